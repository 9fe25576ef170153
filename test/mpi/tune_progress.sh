#!/bin/sh
# hytune tune's progress at n=2:
# - standard error not a terminal (a file): a line per iteration
#   ("tune: allreduce iter N: ..."), no carriage return, no rewritten line;
# - --progress line under script(1) (a terminal): one line rewritten in place
#   ("\r\033[K" + collective, points, benchmark seconds, expected gain left)
#   ended by a newline when the collective is done, whose points are the
#   run's ("tune: done: ... N points"), and no per-iteration lines;
# - --progress auto under script(1) and mpiexec: MPICH passes rank 0's
#   standard error through a pipe, so the per-iteration lines;
# - a bad --progress value: exit 2 and a message naming the values.
#   B=build MPIEXEC=mpiexec sh test/mpi/tune_progress.sh
name=tune_progress
# shellcheck source=test/mpi/script.sh
. test/mpi/script.sh
fail_logs="$d/err"
ARGS="--coll allreduce --max-bytes 4K --timeout 6 --point-budget 0.005 -o $d/t.json"
cr=$(printf '\r')
esc=$(printf '\033')

# shellcheck disable=SC2086 # MPIEXEC and ARGS are word lists
timeout 120 $MPIEXEC -n 2 "$B/bin/hytune" tune $ARGS 2>"$d/err" || fail "tune (log) failed"
grep -Eq '^tune: allreduce iter 1: [0-9]+ points, ' "$d/err" || fail "log: no iteration line"
! grep -q "$cr" "$d/err" || fail "log: a carriage return"
grep -q '^tune: done: ' "$d/err" || fail "log: no done line"

command -v script >/dev/null || { echo "tune_progress: no script(1): the terminal path is not tested"; exit 0; }
script -qc "timeout 120 $MPIEXEC -n 2 $B/bin/hytune tune $ARGS --progress line" /dev/null >"$d/err" 2>&1 </dev/null ||
    fail "tune --progress line under script failed"
tr -d "$cr" <"$d/err" >"$d/plain"
grep -q "${cr}${esc}\\[Ktune: allreduce: [0-9]* points, benchmark [0-9.]* s, " "$d/err" ||
    fail "line: no rewritten progress line"
points=$(sed -n 's/^tune: done: .*, \([0-9]*\) points, .*/\1/p' "$d/plain")
[ -n "$points" ] || fail "line: no done line"
grep -Eq "${esc}\\[Ktune: allreduce: $points points, benchmark [0-9.]+ s, (expected gain left [0-9.e+-]+ \\(stop below 0.02\\)|first batch), elapsed [0-9]+ s${cr}?\$" "$d/err" ||
    fail "line: the last line does not end with the run's $points points and a newline"
! grep -q 'iter [0-9]*:' "$d/err" || fail "line: per-iteration lines too"

script -qc "timeout 120 $MPIEXEC -n 2 $B/bin/hytune tune $ARGS" /dev/null >"$d/err" 2>&1 </dev/null ||
    fail "tune (auto) under script failed"
grep -q '^tune: allreduce iter 1: ' "$d/err" || fail "auto under mpiexec: not the line log"

# shellcheck disable=SC2086
timeout 60 $MPIEXEC -n 2 "$B/bin/hytune" tune --progress bar >"$d/err" 2>&1
[ $? = 2 ] || fail "--progress bar: not exit 2"
grep -q -- '--progress bar: give auto (line on a terminal, else log), line or log' "$d/err" ||
    fail "--progress bar: no clear message"
echo "tune_progress: ok"
