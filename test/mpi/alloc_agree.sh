#!/bin/sh
# An allocation that fails on one rank only (HYTUNE_TEST_KERNEL_FAIL=RANK,
# HYTUNE_TEST_KERNEL_FAIL_AT=WHAT) leaves every rank deciding alike
# (docs/memory.md): runs test_alloc_agree WHAT (test/mpi/test_alloc_agree.c)
# and checks its output and every rank's statistics.
#   alloc_agree.sh smpi NODES PPN node|online RANK|none
#   alloc_agree.sh mpich NP node|online RANK|none
# node: Allreduce, Bcast and Reduce forced to kernels; with a failing rank
#   every rank runs off (no statistics file anywhere, one warning naming
#   the rank), without one every rank writes its file.
# online: hybrid mode, test/smpi/online_choose_table.json, HYTUNE_HOT_CALLS=auto,
#   HYTUNE_PROBE_CALLS=2 (so that a rotation of 2 ranks is longer than a
#   window: the key plans a reference); every rank's online records are
#   identical (test_online_statscmp), and the rotating-root keys are off
#   with "off_reason": "no memory" exactly when a rank fails.
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
export HYTUNE_STATS="$d/s.%r" HYTUNE_TEST_KERNEL_FAIL_AT="$what"
[ "$fail" = none ] || export HYTUNE_TEST_KERNEL_FAIL="$fail"
if [ "$what" = node ]; then
    export HYTUNE_FORCE_BCAST=knomial:2 HYTUNE_FORCE_REDUCE=knomial:2 HYTUNE_FORCE_ALLREDUCE=recmult:2
    calls=20
else
    export HYTUNE_TABLE="$PWD/test/smpi/online_choose_table.json" HYTUNE_HOT_CALLS=auto \
        HYTUNE_PROBE_CALLS=2
    calls=200
fi
"$@" "$what" "$calls" >"$d/out" 2>&1
rc=$?
bad() {
    cat "$d/out"
    echo "alloc_agree.sh $launcher $what (failing rank: $fail): $*"
    exit 1
}
[ "$rc" = 0 ] || bad "exit status $rc"
[ "$(grep -c '^test_alloc_agree: [0-9]* checks, 0 failed$' "$d/out")" = "$np" ] ||
    bad "not every one of the $np ranks passed its checks"
grep -q "^test_alloc_agree $what p=$np: " "$d/out" || bad "no summary line"
files=$(ls "$d"/s.*.json 2>/dev/null | wc -l)
if [ "$what" = node ]; then
    if [ "$fail" = none ]; then
        [ "$files" = "$np" ] || bad "$files statistics files, not $np"
    else
        [ "$files" = 0 ] || bad "$files statistics files: some rank ran hytune"
        [ "$(grep -c "could not allocate the node model" "$d/out")" = 1 ] || bad "not one warning"
        grep -q "world rank $fail could not allocate the node model" "$d/out" ||
            bad "the warning does not name rank $fail"
    fi
    exit 0
fi
[ "$files" = "$np" ] || bad "$files statistics files, not $np"
"$B/test/unit/test_online_statscmp" "$d"/s.*.json || bad "the ranks' online records differ"
off=$(grep -o '"off_reason": *"no memory"' "$d/s.0.json" | wc -l)
if [ "$fail" = none ]; then
    [ "$off" = 0 ] || bad "a key is off for memory without a failure"
else
    [ "$off" -ge 1 ] || bad "no key is off for memory"
    grep -q 'a rank could not allocate the [0-9]*-call windows of a rotating root' "$d/out" ||
        bad "no warning"
fi
grep -v '^test_alloc_agree: ' "$d/out"
exit 0
