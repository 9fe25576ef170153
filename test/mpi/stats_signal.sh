#!/bin/sh
# Statistics survive a job killed mid-run: ranks looping over collectives get
# SIGTERM (what a batch system sends at the time limit); each leaves a whole
# statistics file (text and JSON) counting its calls, no temporary file, and
# dies by SIGTERM.  With HYTUNE_STATS_SIGNALS=none nothing is written; an
# application's own SIGUSR1 handler still runs after hytune's dump
# (test_stats_signal usr1); a bad value is refused with the valid ones.
name=stats_signal
. test/mpi/script.sh
export MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE=${MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE:-1}
prog=$B/test/mpi/test_stats_signal
fail_logs="$d/out"

# kill_run [ENV...]: start 2 looping ranks and SIGTERM them once both are
# ready, rank 0 first.  mpiexec SIGKILLs every rank as soon as one is gone,
# so rank 0 runs an application SIGTERM handler that waits 3 s after
# hytune's dump (the chained path); rank 1 has none (hytune re-raises with
# the default action) and gets its SIGTERM once rank 0's statistics are
# there (with HYTUNE_STATS_SIGNALS=none: after 1 s).
kill_run() {
    rm -rf "$d/run" && mkdir "$d/run" || exit 2
    env "$@" HYTUNE_STATS="$d/run/s.%r" timeout 120 $MPIEXEC -n 1 "$prog" loop "$d/run" slow : \
        -n 1 "$prog" loop "$d/run" >"$d/out" 2>&1 &
    launcher=$!
    for _ in $(seq 300); do
        [ -s "$d/run/ready.0" ] && [ -s "$d/run/ready.1" ] && break
        sleep 0.1
    done
    [ -s "$d/run/ready.0" ] && [ -s "$d/run/ready.1" ] || fail "the ranks never got ready"
    kill -TERM "$(cat "$d/run/ready.0")"
    for _ in $(seq 10); do
        [ -s "$d/run/s.0.json" ] && break
        sleep 0.1
    done
    kill -TERM "$(cat "$d/run/ready.1")"
    wait $launcher
    rc=$?
    [ $rc != 124 ] || fail "the ranks did not end on SIGTERM"
    [ $rc != 0 ] || fail "the job ended normally: the signal was swallowed"
    grep -q 'no signal within' "$d/out" && fail "a rank kept running"
    return 0
}

kill_run
for r in 0 1; do
    [ -s "$d/run/s.$r" ] && [ -s "$d/run/s.$r.json" ] || fail "rank $r left no statistics"
    head -n 1 "$d/run/s.$r" | grep -q "^==== hytune statistics (rank $r of 2" || fail "rank $r: text report incomplete"
    python3 -c "
import json, sys
j = json.load(open('$d/run/s.$r.json'))
n = sum(k['calls'] for c in j['communicators'] for k in c['keys'] if k['collective'] == 'allreduce')
sys.exit(0 if n >= 200 else 1)" || fail "rank $r: the JSON statistics do not count the 200 allreduce calls"
done
! ls "$d/run" | grep -q '\.tmp\.' || fail "temporary files left: $(ls "$d/run")"
grep -Eq 'signal 15|Terminated' "$d/out" || fail "the ranks did not die by SIGTERM"

kill_run HYTUNE_STATS_SIGNALS=none
[ ! -e "$d/run/s.0" ] || fail "HYTUNE_STATS_SIGNALS=none wrote statistics"

HYTUNE_STATS="$d/u.%r" timeout 60 $MPIEXEC -n 2 "$prog" usr1 >"$d/out" 2>&1 || fail "SIGUSR1 run"
out=$(HYTUNE_STATS_SIGNALS=TERM,BOGUS HYTUNE_STATS="$d/v.%r" timeout 60 $MPIEXEC -n 1 "$prog" usr1 2>&1)
echo "$out" | grep -q 'HYTUNE_STATS_SIGNALS="TERM,BOGUS" is not valid (valid: none|TERM,INT,HUP,USR1,USR2,XCPU); using the default TERM,USR1' ||
    fail "bad value not refused: $out"
echo "$name: ok"
