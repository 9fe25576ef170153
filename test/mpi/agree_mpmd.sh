#!/bin/sh
# Ranks that read different settings (an MPMD launch: `-n 1 -env X a : -n 1
# -env X b`) still run the same algorithms: the job finishes with correct
# results (the programs check every call against PMPI), one error line from
# rank 0 names what each rank saw, and the statistics of both ranks show the
# common fallback.
#   sh test/mpi/agree_mpmd.sh [CASE...]   cases: table warm force mode var three same
name=agree_mpmd
. test/mpi/script.sh
export MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE=${MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE:-1}
fail_logs="$d/out"
tab=$PWD/test/smpi/online_table.json  # knomial / recmult / kring rules: not MPI's own
native=$PWD/test/data/table-native-all.json

# mpmd PROGRAM ARGS -- ENV0 -- ENV1: one rank each, every rank's HYTUNE_STATS
# in $d/s.RANK(.json); output in $d/out
mpmd() {
    prog=$1 args=$2 env0=$3 env1=$4
    rm -f "$d"/s.*
    # shellcheck disable=SC2086 # the env lists are "-env NAME VALUE" words
    timeout 120 $MPIEXEC ${genv:-} -genv HYTUNE_STATS "$d/s.%r" -n 1 $env0 "$B/test/mpi/$prog" $args : \
        -n 1 $env1 "$B/test/mpi/$prog" $args >"$d/out" 2>&1 ||
        fail "the launch did not finish cleanly (exit $?)"
}

# one_error PATTERN...: exactly one hytune line, an error from rank 0
# containing every PATTERN
one_error() {
    [ "$(grep -c '^hytune\[' "$d/out")" = 1 ] || fail "want exactly one hytune line"
    line=$(grep '^hytune\[' "$d/out")
    case $line in 'hytune[0] error '*) ;; *) fail "not an error from rank 0: $line" ;; esac
    for p in "$@"; do
        echo "$line" | grep -qF -- "$p" || fail "the error line lacks \"$p\": $line"
    done
}

# json RANK PYTHON-EXPRESSION: true if the expression over the stats JSON j holds
json() {
    python3 -c "import json, sys; j = json.load(open('$d/s.$1.json')); sys.exit(0 if ($2) else 1)" ||
        fail "rank $1 statistics: not ($2)"
}
keys='[k for c in j["communicators"] for k in c["keys"]]'

case_table() {
    # rank 0 has the table, rank 1 a path that does not exist on its node
    mpmd test_core_pass quick "-env HYTUNE_TABLE $tab" "-env HYTUNE_TABLE $d/missing.json"
    one_error "HYTUNE_TABLE differs between ranks: rank 0: table $tab (rules checksum " \
        "rank 1: table $d/missing.json: cannot open" "every rank continues with the MPI library's own selection"
    for r in 0 1; do json $r 'j["table"] is None'; done
    # the same table under two paths agrees
    cp "$tab" "$d/copy.json"
    mpmd test_core_pass quick "-env HYTUNE_TABLE $tab" "-env HYTUNE_TABLE $d/copy.json"
    ! grep -q '^hytune\[' "$d/out" || fail "copies of one table do not agree"
    json 1 'j["table"] is not None'
}

case_warm() {
    # an earlier run's statistics as the warm start, on rank 0 only
    HYTUNE_TABLE=$tab HYTUNE_STATS=$d/w.%r timeout 60 $MPIEXEC -n 2 "$B/test/mpi/test_online_mpi" 30 \
        >"$d/out" 2>&1 || fail "the warm-up run failed"
    cp "$d/w.0.json" "$d/warm.json"
    mpmd test_online_mpi 30 "-env HYTUNE_TABLE $tab -env HYTUNE_WARM_START $d/warm.json" \
        "-env HYTUNE_TABLE $tab"
    one_error "HYTUNE_WARM_START differs between ranks: rank 0: warm start $d/warm.json: " \
        "rank 1: unset" "every rank starts without warm start"
    for r in 0 1; do
        json $r "any('online' in k for k in $keys)"
        json $r "all(k['online']['start_from'] != 'warm start' for k in $keys if 'online' in k)"
    done
    # on both ranks it is used
    mpmd test_online_mpi 30 "-env HYTUNE_TABLE $tab -env HYTUNE_WARM_START $d/warm.json" \
        "-env HYTUNE_TABLE $tab -env HYTUNE_WARM_START $d/warm.json"
    ! grep -q '^hytune\[' "$d/out" || fail "the same warm start on both ranks does not agree"
    json 1 "any(k['online']['start_from'] == 'warm start' for k in $keys if 'online' in k)"
}

case_force() {
    # a forced k-nomial Bcast on rank 0 only, MPI's own algorithms elsewhere
    mpmd test_core_pass quick "-env HYTUNE_TABLE $native -env HYTUNE_FORCE_BCAST knomial:2" \
        "-env HYTUNE_TABLE $native"
    one_error "HYTUNE_FORCE_BCAST differs between ranks: rank 0: HYTUNE_FORCE_BCAST=knomial:2; rank 1: HYTUNE_FORCE_BCAST unset" \
        "no rank forces an algorithm for bcast"
    for r in 0 1; do
        json $r "any(k['collective'] == 'bcast' for k in $keys)"
        json $r "all(k['algorithm'] == 'native' for k in $keys if k['collective'] == 'bcast')"
    done
    # a value only rank 1 cannot parse: every rank drops it, one error (not rank 1's hidden warning)
    mpmd test_core_pass quick "-env HYTUNE_FORCE_ALLREDUCE recmult:2" \
        "-env HYTUNE_FORCE_ALLREDUCE recmult:two"
    one_error "HYTUNE_FORCE_ALLREDUCE differs between ranks: rank 0: HYTUNE_FORCE_ALLREDUCE=recmult:2; rank 1: HYTUNE_FORCE_ALLREDUCE=recmult:two ignored: "
    json 0 "all(k['algorithm'] == 'native' for k in $keys if k['collective'] == 'allreduce')"
}

case_mode() {
    # rank 1 off: every rank runs off (no statistics: off mode writes none); the
    # preloaded -plain program checks results only (the linked one would expect
    # rank 0 to count its calls)
    genv="-genv LD_PRELOAD $B/lib/libhytune.so"
    mpmd test_core_pass-plain quick "-env HYTUNE_TABLE $tab" \
        "-env HYTUNE_MODE off -env HYTUNE_TABLE $tab"
    genv=
    one_error "HYTUNE_MODE differs between ranks: rank 0: mode hybrid; rank 1: mode off" \
        "every rank runs in off mode"
    [ ! -e "$d/s.0" ] && [ ! -e "$d/s.1" ] || fail "statistics written in off mode"
}

case_var() {
    # a variable compared by value: both ranks take its default
    mpmd test_online_mpi 30 "-env HYTUNE_TABLE $tab -env HYTUNE_HOT_CALLS 4" "-env HYTUNE_TABLE $tab"
    one_error "HYTUNE_HOT_CALLS differs between ranks: rank 0: HYTUNE_HOT_CALLS=4; rank 1: HYTUNE_HOT_CALLS unset" \
        "every rank uses the default auto"
    for r in 0 1; do
        json $r "all(k['online']['settled_at_call'] >= 16 for k in $keys if 'online' in k and k['online'].get('settled_at_call'))"
    done
}

case_three() {
    # three ranks, the middle one without the table: ranks grouped in the line
    rm -f "$d"/s.*
    timeout 120 $MPIEXEC -genv HYTUNE_STATS "$d/s.%r" -n 1 -env HYTUNE_TABLE "$tab" \
        "$B/test/mpi/test_core_pass" quick : -n 1 "$B/test/mpi/test_core_pass" quick : \
        -n 1 -env HYTUNE_TABLE "$tab" "$B/test/mpi/test_core_pass" quick >"$d/out" 2>&1 ||
        fail "the launch did not finish cleanly (exit $?)"
    one_error "HYTUNE_TABLE differs between ranks: ranks 0,2: table $tab (rules checksum " \
        "; rank 1: unset; every rank continues"
    for r in 0 1 2; do json $r 'j["table"] is None'; done
}

case_same() {
    # per-rank variables may differ: no error
    mpmd test_core_pass quick "-env HYTUNE_LOG error" "-env HYTUNE_LOG warn"
    ! grep -q '^hytune\[' "$d/out" || fail "HYTUNE_LOG may differ between ranks"
}

cases=${*:-table warm force mode var three same}
for c in $cases; do
    "case_$c"
    echo "$name: $c ok"
done
