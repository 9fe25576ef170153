#!/bin/sh
# Run hytune's tests: every test/*/testlist line is one test.
#   sh test/run.sh [FILTER...]    only tests whose name contains a FILTER
# A testlist line is "name: shell command"; the command runs from the top of
# the tree with B (build dir), MPIEXEC, MPIF90 (MPICH's, from config.mk), SMPIRUN, SMPI (common smpirun
# options), PLAT (platforms dir) and VALGRIND (valgrind command or empty)
# set.  Exit status 0 is a pass.  Output of a failing test is shown.
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
[ -f config.mk ] || { echo "test/run.sh: no config.mk: run ./configure and make tests first" >&2; exit 2; }
# MPICH's mpiexec and mpif90 as configure found and checked them
MPIEXEC=$(sed -n 's/^MPIEXEC = //p' config.mk)
MPIF90=$(sed -n 's/^MPIF90 = //p' config.mk)
SMPIRUN=$(sed -n 's/^SMPIRUN = //p' config.mk)
[ -n "$MPIEXEC" ] || { echo "test/run.sh: config.mk names no mpiexec: rerun ./configure (MPIEXEC=/path/to/mpich/bin/mpiexec)" >&2; exit 2; }
B=${HYT_BUILD:-$top/build}
PLAT=$top/platforms
SMPI="--cfg=smpi/simulate-computation:no --log=root.thres:critical --log=smpi.thres:critical --cfg=smpi/display-timing:no"
VALGRIND=
if command -v valgrind >/dev/null 2>&1; then
    VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$top/test/valgrind.supp"
fi
export MPIEXEC MPIF90 SMPIRUN B PLAT SMPI VALGRIND
# MPICH over UCX busy-polls: keep it from pinning both cores for every rank
export MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE=${MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE:-1}
export HYDRA_TOPO_DEBUG=0

pass=0 fail=0 skip=0
failed=
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for list in test/unit/testlist test/mpi/testlist test/smpi/testlist; do
    [ -f "$list" ] || continue
    suite=$(basename "$(dirname "$list")")
    while IFS= read -r line; do
        case $line in '' | '#'*) continue ;; esac
        name=$suite/${line%%:*}
        cmd=${line#*:}
        if [ $# -gt 0 ]; then
            hit=0
            for f in "$@"; do case $name in *"$f"*) hit=1 ;; esac; done
            [ $hit = 1 ] || continue
        fi
        if [ "$suite" = smpi ] && [ -z "$SMPIRUN" ]; then
            echo "SKIP $name (no SimGrid)"
            skip=$((skip + 1))
            continue
        fi
        start=$(date +%s)
        timeout 600 sh -c "$cmd" </dev/null >"$log" 2>&1
        rc=$?
        secs=$(($(date +%s) - start))
        if [ $rc -eq 0 ]; then
            pass=$((pass + 1))
            echo "PASS $name (${secs}s)"
        else
            fail=$((fail + 1))
            failed="$failed $name"
            echo "FAIL $name (exit $rc, ${secs}s)"
            tail -n 40 "$log" | sed 's/^/    | /'
        fi
    done <"$list"
done
[ -n "$failed" ] && echo "failed:$failed"
if [ $skip -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ]
