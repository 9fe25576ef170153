#!/bin/sh
# Files in a shared directory, tried as a job would meet them:
# - a FIFO, a directory and /dev/zero as HYTUNE_TABLE, HYTUNE_WARM_START,
#   HYTUNE_NETWORK_FILE and as `hytune tune --oracle`: one message naming
#   the file and saying it is not a regular file, the job runs to its end
#   (a hang hits the timeout and fails);
# - HYTUNE_STATS in a directory where symlinks to the owner's file are
#   planted at the target, at PATH.json and at PATH.tmp.PID for the next
#   pids (and `hytune tune` -o and --dump at symlinks): the files replace
#   the links, the owner's file is unchanged;
# - HYTUNE_STATS with %n, %s and %x in it (written under that literal name)
#   4079 characters long (written) and longer than 4095 (one error, no file,
#   the job ends well).
#   B=build MPIEXEC=mpiexec sh test/mpi/files.sh
name=files
# shellcheck source=test/mpi/script.sh
. test/mpi/script.sh
fail_logs="$d/out" # the last run's output
run() { # VAR=VALUE...: the test program under MPI, a hang fails after 60 s
    # shellcheck disable=SC2086 # MPIEXEC may carry options
    env "$@" timeout 60 $MPIEXEC -n 2 "$B/test/mpi/test_core_pass" quick >"$d/out" 2>&1
}

mkfifo "$d/fifo" || exit 2
for var in HYTUNE_TABLE HYTUNE_WARM_START HYTUNE_NETWORK_FILE; do
    for f in "$d/fifo" "$d" /dev/zero; do
        start=$(date +%s.%N)
        run "$var=$f" || fail "$var=$f: the job failed (exit $?)"
        secs=$(echo "$(date +%s.%N) - $start" | bc)
        msg=$(grep '^hytune\[' "$d/out")
        [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -qF "$f" &&
            echo "$msg" | grep -q ", not a regular file" && echo "$msg" | grep -qF "$var" ||
            fail "$var=$f: not one message naming the file"
        echo "$var=$f: refused, job ended in $secs s"
    done
    out=$(timeout 10 "$B/bin/hytune" tune --oracle "$d/fifo" 2>&1)
    echo "$out" | grep -q "oracle $d/fifo: cannot open (a FIFO, not a regular file)" ||
        fail "--oracle FIFO: $out"
done

# symlinks planted at the report's names, for the pids the ranks may get
echo "the owner's file" >"$d/victim"
cp "$d/victim" "$d/before"
ln -s "$d/victim" "$d/s"
ln -s "$d/victim" "$d/s.json"
next=$(sh -c 'echo $$')
for i in $(seq 1 400); do
    ln -s "$d/victim" "$d/s.tmp.$((next + i))"
done
run HYTUNE_STATS="$d/s" || fail "stats with planted symlinks: the job failed"
cmp -s "$d/before" "$d/victim" || fail "the owner's file changed: $(head -c 200 "$d/victim")"
[ ! -L "$d/s" ] && [ ! -L "$d/s.json" ] && grep -q '^==== hytune statistics' "$d/s" &&
    grep -q '"communicators"' "$d/s.json" || fail "the report did not replace the links"
n=0
for f in "$d"/s.tmp.* "$d"/s.json.tmp.*; do
    [ -L "$f" ] || [ ! -e "$f" ] || fail "temporary file left: $f"
    [ ! -L "$f" ] || n=$((n + 1))
done
[ $n = 400 ] || fail "$n of the 400 planted links left"
echo "planted symlinks: not followed, the report replaced the links"

# the tuner's table and dump over planted symlinks
ln -s "$d/victim" "$d/t.json"
ln -s "$d/victim" "$d/o.csv"
# shellcheck disable=SC2086
timeout 120 $MPIEXEC -n 2 "$B/bin/hytune" tune --coll allreduce --max-bytes 16 --shapes job \
    --no-mpich-algs --timeout 0.2 --dump "$d/o.csv" -o "$d/t.json" >"$d/out" 2>&1 ||
    fail "tune over planted symlinks: the run failed"
cmp -s "$d/before" "$d/victim" || fail "tune: the owner's file changed: $(head -c 200 "$d/victim")"
[ ! -L "$d/t.json" ] && [ ! -L "$d/o.csv" ] && grep -q '"collectives"' "$d/t.json" &&
    grep -q '^allreduce,' "$d/o.csv" || fail "tune: the table and dump did not replace the links"
echo "tune -o and --dump: planted symlinks not followed"

# format characters are written as they are
run HYTUNE_STATS="$d/a%n%s%x.%r" || fail "stats with %n%s%x: the job failed"
for r in 0 1; do
    grep -q "^==== hytune statistics (rank $r of 2" "$d/a%n%s%x.$r" && [ -s "$d/a%n%s%x.$r.json" ] ||
        fail "stats with %n%s%x: no report of rank $r"
done
echo "HYTUNE_STATS with %n%s%x: written under its literal name"

# a path longer than PATH_MAX: one clear error, nothing written
long="$d/$(printf '%04100d' 0)"
run HYTUNE_STATS="$long" || fail "stats path of 4100+ characters: the job failed"
[ "$(grep -c '^hytune\[' "$d/out")" = 1 ] &&
    grep -q '^hytune\[0\] error core: HYTUNE_STATS: the path is longer than 4079 characters' "$d/out" ||
    fail "stats path of 4100+ characters: not one clear error"
# the longest path accepted (4079 characters): both files written
deep=$d
while [ ${#deep} -lt 3840 ]; do deep="$deep/$(printf '%0200d' 0)"; done
mkdir -p "$deep" || exit 2
name=$(printf "%0$((4078 - ${#deep}))d" 0)
run HYTUNE_STATS="$deep/$name" || fail "stats path of 4079 characters: the job failed"
[ ${#deep} -gt 3839 ] && [ "${#deep}" -lt 4078 ] && [ $((${#deep} + 1 + ${#name})) = 4079 ] &&
    grep -q '^==== hytune statistics' "$deep/$name" && [ -s "$deep/$name.json" ] ||
    fail "stats path of 4079 characters: not written"
# a file name longer than NAME_MAX: the system's error naming the path
run HYTUNE_STATS="$d/$(printf '%0300d' 0)" || fail "stats name of 300 characters: the job failed"
grep -q '^hytune\[0\] error core: HYTUNE_STATS: cannot write .*(File name too long)$' "$d/out" ||
    fail "stats name of 300 characters: no clear error"
echo "HYTUNE_STATS too long: one error each"
exit 0
