#!/bin/sh
# An allocation that fails on one rank only (HYTUNE_TEST_KERNEL_FAIL=RANK,
# HYTUNE_TEST_KERNEL_FAIL_AT=WHAT) leaves every rank deciding alike
# (docs/memory.md): runs test_alloc_agree WHAT (test/mpi/test_alloc_agree.c)
# and checks its output and every rank's statistics.
#   alloc_agree.sh smpi NODES PPN WHAT RANK|none
#   alloc_agree.sh mpich NP WHAT RANK|none
# node: Allreduce, Bcast and Reduce forced to kernels; with a failing rank
#   every rank runs off (no statistics file anywhere, one warning naming
#   the rank), without one every rank writes its file.
# online: hybrid mode, test/smpi/online_choose_table.json, HYTUNE_HOT_CALLS=auto,
#   HYTUNE_PROBE_CALLS=2 (so that a rotation of 2 ranks is longer than a
#   window: the key plans a reference); every rank's online records are
#   identical (test_online_statscmp), and the rotating-root keys are off
#   with "off_reason": "no memory" exactly when a rank fails.
# emergency: as node (the emergency reserve cannot be taken at MPI_Init).
# ctx, nodemodel, key, init: test_alloc_agree small in offline mode with
#   test/mpi/alloc_small_table.json (rules that change with the processes
#   per node); onlinekey: the same in hybrid mode with the online case's
#   settings.  The emergency reserve serves the failing rank (its
#   statistics say so, no other rank's do), and every rank's statistics
#   decide alike with and without the failure (test_online_statscmp
#   --decisions; with MPICH and onlinekey the online records are compared
#   between the ranks instead: real times differ between runs).
# spent: test_alloc_agree small with the failing rank's reserve empty and
#   its keys' allocation failing: the job stops with a non-zero status and
#   one message naming hytune, the rank, the bytes, what for and the fix.
# A hang fails (timeout; SimGrid ends a deadlocked run with status 0, so
# every rank's summary line is required).
# Environment: B, SMPIRUN, SMPI, PLAT, MPIEXEC (test/run.sh).
set -u
launcher=$1
shift
d=$(mktemp -d /tmp/alloc-agree.XXXXXX)
trap 'rm -rf "$d"' EXIT
if [ "$launcher" = smpi ]; then
    nodes=$1 ppn=$2
    shift 2
    np=$((nodes * ppn))
    i=0
    while [ "$i" -lt "$nodes" ]; do
        echo "node-$i:$ppn" >>"$d/hf"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    set -- "$1" "$2" timeout 120 "$SMPIRUN" -np "$np" -platform "$PLAT/cluster-small.xml" \
        -hostfile "$d/hf" $SMPI "$B/test/smpi/test_alloc_agree"
else
    np=$1
    shift
    set -- "$1" "$2" timeout 120 "$MPIEXEC" -n "$np" "$B/test/mpi/test_alloc_agree"
fi
what=$1 fail=$2
shift 2
export HYTUNE_TEST_KERNEL_FAIL_AT="$what"
case $what in
node | emergency)
    export HYTUNE_FORCE_BCAST=knomial:2 HYTUNE_FORCE_REDUCE=knomial:2 HYTUNE_FORCE_ALLREDUCE=recmult:2
    mode=node calls=20 ;;
online)
    export HYTUNE_TABLE="$PWD/test/smpi/online_choose_table.json" HYTUNE_HOT_CALLS=auto \
        HYTUNE_PROBE_CALLS=2
    mode=online calls=200 ;;
onlinekey)
    export HYTUNE_TABLE="$PWD/test/smpi/online_choose_table.json" HYTUNE_HOT_CALLS=auto \
        HYTUNE_PROBE_CALLS=2
    mode=small calls=60 ;;
*)
    export HYTUNE_MODE=offline HYTUNE_TABLE="$PWD/test/mpi/alloc_small_table.json"
    mode=small calls=20 ;;
esac
# run DIR FAIL: the program once, statistics DIR/s.RANK and output DIR/out,
# with the failure on world rank FAIL (none: without one); its status
run() {
    dir=$1 f=$2
    shift 2
    mkdir -p "$dir"
    (
        [ "$f" = none ] || export HYTUNE_TEST_KERNEL_FAIL="$f"
        export HYTUNE_STATS="$dir/s.%r"
        exec "$@" "$mode" "$calls"
    ) >"$dir/out" 2>&1
}
out=$d/f/out
bad() {
    cat "$out"
    echo "alloc_agree.sh $launcher $what (failing rank: $fail): $*"
    exit 1
}
run "$d/f" "$fail" "$@"
rc=$?
if [ "$what" = spent ]; then
    # the failing rank stops the job at its first key: a non-zero status,
    # not the timeout's, and one message naming the rank, the bytes, what
    # for and the fix
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || bad "exit status $rc, want the job stopped"
    [ "$(grep -c '^hytune\[' "$out")" = 1 ] || bad "not one hytune message"
    grep -q "^hytune\[$fail\] error core: world rank $fail is out of memory: [0-9]* bytes for a selection key, and hytune's emergency reserve (0 bytes, 0 in use) cannot hold them either; .*; run with HYTUNE_MODE=off, or give each rank more memory$" "$out" ||
        bad "no message naming rank $fail, the bytes, the key and the fix"
    grep -q '^test_alloc_agree: ' "$out" && bad "a rank finished its checks"
    grep '^hytune\[' "$out"
    exit 0
fi
[ "$rc" = 0 ] || bad "exit status $rc"
[ "$(grep -c '^test_alloc_agree: [0-9]* checks, 0 failed$' "$out")" = "$np" ] ||
    bad "not every one of the $np ranks passed its checks"
grep -q "^test_alloc_agree $mode p=$np: " "$out" || bad "no summary line"
files=$(ls "$d"/f/s.*.json 2>/dev/null | wc -l)
if [ "$mode" = node ]; then
    if [ "$fail" = none ]; then
        [ "$files" = "$np" ] || bad "$files statistics files, not $np"
    else
        [ "$files" = 0 ] || bad "$files statistics files: some rank ran hytune"
        [ "$(grep -c "could not allocate the node model" "$out")" = 1 ] || bad "not one warning"
        grep -q "world rank $fail could not allocate the node model and the emergency reserve ([0-9]* bytes)" "$out" ||
            bad "the warning does not name rank $fail"
    fi
    exit 0
fi
[ "$files" = "$np" ] || bad "$files statistics files, not $np"
"$B/test/unit/test_online_statscmp" "$d"/f/s.*.json || bad "the ranks' online records differ"
if [ "$mode" = small ]; then
    r=0
    while [ "$r" -lt "$np" ]; do
        n=$(grep -o '"allocations": *[0-9]*' "$d/f/s.$r.json" | grep -o '[0-9]*$')
        if [ "$r" = "$fail" ]; then
            [ "${n:-0}" -gt 0 ] || bad "rank $r's statistics: the reserve served nothing"
        else
            [ "${n:-0}" = 0 ] || bad "rank $r's statistics: the reserve served $n allocations"
        fi
        r=$((r + 1))
    done
    [ "$fail" = none ] && { grep -v '^test_alloc_agree: ' "$out"; exit 0; }
    # the same decisions as a run without the failure, rank by rank (MPICH's
    # real times move hybrid mode's choices between runs: its online records
    # were compared between the ranks above)
    [ "$launcher" = mpich ] && [ "$what" = onlinekey ] && { grep -v '^test_alloc_agree: ' "$out"; exit 0; }
    out=$d/n/out
    run "$d/n" none "$@" || bad "the run without a failure: exit status $?"
    out=$d/f/out
    r=0
    while [ "$r" -lt "$np" ]; do
        "$B/test/unit/test_online_statscmp" --decisions "$d/n/s.$r.json" "$d/f/s.$r.json" >/dev/null ||
            bad "rank $r decided otherwise than without the failure"
        r=$((r + 1))
    done
    grep -v '^test_alloc_agree: ' "$out"
    exit 0
fi
off=$(grep -o '"off_reason": *"no memory"' "$d/f/s.0.json" | wc -l)
if [ "$fail" = none ]; then
    [ "$off" = 0 ] || bad "a key is off for memory without a failure"
else
    [ "$off" -ge 1 ] || bad "no key is off for memory"
    grep -q 'a rank could not allocate the [0-9]*-call windows of a rotating root' "$out" ||
        bad "no warning"
fi
grep -v '^test_alloc_agree: ' "$out"
exit 0
