#!/bin/sh
# An interrupted `hytune tune` leaves the previous table as it was and no
# temporary file: the run is stopped mid-way (after its first finished
# iteration, long before it could write) with SIGINT (Ctrl-C) and with
# SIGTERM (what a batch system sends at the end of a job), both sent to
# mpiexec.  Also checks that no rank of the run is left behind.
#   B=build MPIEXEC=mpiexec sh test/mpi/tune_kill.sh
name=tune_kill
# shellcheck source=test/mpi/script.sh
. test/mpi/script.sh
fail_logs="$d/log.*"
for sig in INT TERM; do
    printf '{"format": 1, "collectives": {}, "note": "previous table %s"}\n' "$sig" >"$d/t.json"
    cp "$d/t.json" "$d/before.json"
    # a run that cannot converge in the test's time: tiny threshold, long budget
    $MPIEXEC -n 2 "$B/bin/hytune" tune --coll allreduce,bcast --max-bytes 1M --timeout 600 \
        --threshold 1e-9 --point-budget 0.05 -o "$d/t.json" >"$d/log.$sig" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 600 ] && ! grep -q ' iter ' "$d/log.$sig"; do
        kill -0 $pid 2>/dev/null || fail "SIG$sig: the run ended before its first iteration"
        sleep 0.1
        i=$((i + 1))
    done
    [ $i -lt 600 ] || { kill -KILL $pid; fail "SIG$sig: no iteration within 60 s"; }
    # the check for survivors below must be able to see the ranks
    pgrep -f "hytune tune .*-o $d/t.json" >/dev/null || fail "SIG$sig: pgrep does not see the ranks"
    kill -$sig $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "SIG$sig: mpiexec still running 30 s after the signal"; }
    wait $pid
    st=$?
    # (the exit status is mpiexec's choice: hydra returned 0 after forwarding SIGINT)
    grep -q 'tune: wrote' "$d/log.$sig" && fail "SIG$sig: the run finished before the signal"
    cmp "$d/before.json" "$d/t.json" || fail "SIG$sig: the previous table changed"
    for f in "$d"/*.tmp.*; do
        [ -e "$f" ] && fail "SIG$sig: temporary file left: $f"
    done
    # no rank survives (the hydra proxy forwards the signal to them)
    sleep 1
    pgrep -f "hytune tune .*-o $d/t.json" >/dev/null &&
        fail "SIG$sig: ranks still running: $(pgrep -af "hytune tune .*-o $d/t.json")"
    echo "SIG$sig after $(grep -c ' iter ' "$d/log.$sig") iteration(s): exit $st, previous table intact, no temporary file"
done
exit 0
