#!/bin/sh
# `hytune report` on the statistics of real runs: test_online_mpi at n=2
# (N calls of each case; Allreduce has two sizes) with MPI's own selection
# (a), with a table in offline mode and Bcast forced (b), in hybrid mode (c).
# Checks, against the JSON files themselves (awk):
# - the report of one file: the calls per entry point, what chose each key
#   (table, forced, online, MPI's selection with its reason), the probing
#   calls;
# - the comparison of a and b: each file's time per entry point and the
#   speedup (the first file's mean time per call over the second's);
# - --csv: the header, one row per key, the sums of calls, the sources;
# - --png: non-empty PNG files (time.png; speedup.png for two files);
# - errors: a table file, a non-JSON file, format 1, a field of the wrong
#   type, a FIFO, a missing file, --png without gnuplot in PATH.
#   B=build MPIEXEC=mpiexec sh test/mpi/report.sh
name=report
# shellcheck source=test/mpi/script.sh
. test/mpi/script.sh
N=20
H=$B/bin/hytune
TABLE=$PWD/test/smpi/online_table.json
fail_logs="$d/out"
prog="$B/test/mpi/test_online_mpi $N"
run() { # OUT VAR=VALUE...
    out=$1
    shift
    # shellcheck disable=SC2086 # MPIEXEC may carry options
    env "$@" HYTUNE_STATS="$d/$out" timeout 120 $MPIEXEC -n 2 $prog \
        >"$d/out" 2>&1 || fail "the run for $out failed (exit $?)"
    [ -s "$d/$out.json" ] || fail "no $out.json"
}
run a HYTUNE_MODE=offline
run b HYTUNE_MODE=offline HYTUNE_TABLE="$TABLE" HYTUNE_FORCE_BCAST=knomial:3
run c HYTUNE_MODE=hybrid HYTUNE_TABLE="$TABLE"
# hybrid mode with a table whose rule keeps MPI's own algorithm, with a
# shortlist, on calls too few to start a choice: the native calls are the
# table's, not an online choice
printf '%s\n' '{"format": 2, "platform": {"nodes": 1, "ppn": 2},' \
    ' "collectives": {"allreduce": [{"rules": [{"algorithm": "native",' \
    '  "shortlist": [{"algorithm": "recmult", "k": 2}]}]}]}}' >"$d/native.json"
prog=$B/test/mpi/test_core_pass run d HYTUNE_MODE=hybrid HYTUNE_TABLE="$d/native.json"

# sum of a numeric field per call in a statistics JSON (json-c's pretty layout:
# "call" comes before the key's other fields)
json_sum() { # FILE FIELD CALL
    awk -v f="\"$2\":" -v c="\"call\":\"$3\"," '
        { gsub(/ /, "") } index($0, "\"call\":") == 1 { on = ($0 == c) }
        index($0, f) == 1 && on { sub(f, ""); sub(/,$/, ""); s += $0 }
        END { print s + 0 }' "$1"
}

# ---- one file ----
"$H" report "$d/d.json" --csv >"$d/csv" 2>"$d/out" || fail "--csv of d.json failed"
awk -F, '$8 == "MPI_Allreduce" { n++; if ($23 != "table rule native") bad = 1 } END { exit bad || !n }' \
    "$d/csv" || fail "d: hybrid mode's native Allreduce calls not reported as 'table rule native': $(grep MPI_Allreduce "$d/csv")"

"$H" report "$d/b.json" >"$d/out" 2>&1 || fail "report b.json failed"
cat "$d/out"
grep -q '^Where the collective time went' "$d/out" || fail "no time section"
for call in MPI_Allreduce MPI_Bcast MPI_Reduce MPI_Allgather; do
    want=$(json_sum "$d/b.json" calls $call)
    [ "$want" -ge $N ] || fail "b.json has $want calls of $call, the program made at least $N"
    got=$(awk -v c=$call '$1 == c && $2 ~ /^[0-9]+$/ { print $2 }' "$d/out")
    [ "$got" = "$want" ] || fail "$call: the report says $got calls, the JSON $want"
done
[ "$(json_sum "$d/b.json" calls MPI_Allreduce)" = $((2 * N)) ] || fail "Allreduce: not 2N calls"
grep -Eq '^ +MPI_Bcast .* knomial:k=3 +forced$' "$d/out" || fail "Bcast not shown as forced knomial:k=3"
grep -Eq '^ +MPI_Allreduce .* table$' "$d/out" || fail "Allreduce not shown as chosen by the table"
grep -q '^  no fallbacks$' "$d/out" || fail "fallbacks reported in b"
grep -q 'none (no key was probed online: hybrid mode probes)' "$d/out" || fail "probing in offline mode"

"$H" report "$d/a.json" >"$d/out" 2>&1 || fail "report a.json failed"
grep -Eq '^ +MPI_Allreduce .* native +MPI.s selection \(no table\)$' "$d/out" ||
    fail "a: Allreduce not shown as MPI's selection (no table)"
grep -Eq "^    no table +$((5 * N)) calls$" "$d/out" || fail "a: not all $((5 * N)) calls under 'no table'"

"$H" report "$d/c.json" >"$d/out" 2>&1 || fail "report c.json failed"
probes=$(grep -o '"probing_calls":[0-9]*' "$d/c.json" | awk -F: '{ s += $2 } END { print s + 0 }')
[ "$probes" -gt 0 ] || fail "c.json: no probing calls in hybrid mode"
grep -Eq "^  total: [1-9][0-9]* keys probed, $probes probing calls" "$d/out" ||
    fail "c: the probing total is not the JSON's $probes"
grep -Eq '^ +MPI_Allreduce .* online$' "$d/out" || fail "c: Allreduce not shown as online"

# hybrid mode choosing among shortlists of algorithms with a radix (the
# program checks each key settles on a k), hot after 4 calls so the choice
# ends within the N calls: the report's online choice section against the
# JSON: per key the winner, the calls choosing, the choices and switches,
# each candidate's window time or status, the predictions
printf '%s\n' '{"format": 2, "platform": {"nodes": 1, "ppn": 2}, "collectives": {' \
    ' "allreduce": [{"rules": [{"bytes_max": 64, "algorithm": "knomial", "k": 2,' \
    '   "shortlist": [{"algorithm": "recmult", "k": 2}, {"algorithm": "kring", "k": 1}]},' \
    '  {"algorithm": "recmult", "k": 2, "predicted_us": 50, "spread_us": 5,' \
    '   "shortlist": [{"algorithm": "knomial", "k": 2, "predicted_us": 60, "spread_us": 20},' \
    '                 {"algorithm": "kring", "k": 1, "predicted_us": 400, "spread_us": 1}]}]}],' \
    ' "bcast": [{"rules": [{"algorithm": "knomial", "k": 2,' \
    '   "shortlist": [{"algorithm": "kring", "k": 2}]}]}],' \
    ' "allgather": [{"rules": [{"algorithm": "recmult", "k": 2,' \
    '   "shortlist": [{"algorithm": "kring", "k": 1}, {"algorithm": "knomial", "k": 2}]}]}],' \
    ' "reduce": [{"rules": [{"algorithm": "knomial", "k": 2}]}]}}' >"$d/choose.json"
run e HYTUNE_MODE=hybrid HYTUNE_HOT_CALLS=4 HYTUNE_TABLE="$d/choose.json"
"$H" report "$d/e.json" >"$d/out" 2>&1 || fail "report e.json failed"
sed -n '/^Online algorithm choice/,$p' "$d/out"
python3 - "$d/e.json" "$d/out" <<'PY' || fail "e: the online choice section does not match e.json"
import json, sys
stats = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
sect = lines[lines.index(next(l for l in lines if l.startswith("Online algorithm choice"))):]
want, calls, keys = [], 0, 0
for c in stats["communicators"]:
    for k in c["keys"]:
        on = k.get("online") or {}
        if "candidates" not in on:
            continue
        keys += 1
        calls += on["choosing_calls"]
        b = k["bucket"]
        lo, hi = 1 << (b - 1), 1 << b
        def h(n):
            u = 0
            while n >= 1024 and n % 1024 == 0:
                n //= 1024; u += 1
            return "%d%s" % (n, ["B", "KiB", "MiB", "GiB"][u])
        size = "%dB" % b if b <= 1 else "%s-%s" % (h(lo), h(hi))
        want.append("  comm #%d %s %s: chosen %s, %d calls choosing, %d choices, %d switches (%s shortlist)"
                    % (c["id"], k["call"], size, on["chosen_algorithm"] or "none yet",
                       on["choosing_calls"], on["choices"], on["switches"], on["shortlist_from"]))
        for x in on["candidates"]:
            name = ("*" if x["algorithm"] == on["chosen_algorithm"] else " ") + x["algorithm"]
            if x["k"] > 0:
                name += ":k=%d" % x["k"]
            t = "%.2f us" % x["time_us"] if x["time_us"] is not None else x["status"]
            p = "predicted %.2f us" % x["predicted_us"] if x["predicted_us"] is not None else ""
            want.append(("    %-24s %-14s %s" % (name, t, p)).rstrip())
want.append("  total: %d keys chose online, %d calls choosing" % (keys, calls))
got = sect[1:1 + len(want)]
bad = [(w, g) for w, g in zip(want, got) if w != g]
if keys != 4 or bad or len(got) != len(want):
    print("want:", *want, "got:", *got, sep="\n")
    sys.exit(1)
PY
"$H" report "$d/c.json" >"$d/out" 2>&1 || fail "report c.json failed"
! grep -q '^Online algorithm choice' "$d/out" || fail "c: an online choice section without shortlists"

# ---- comparison ----
"$H" report "$d/a.json" "$d/b.json" >"$d/out" 2>&1 || fail "report a.json b.json failed"
cat "$d/out"
grep -q '^hytune statistics, 2 files side by side' "$d/out" || fail "no comparison header"
for call in MPI_Allreduce MPI_Bcast; do
    want=$(awk -v ta="$(json_sum "$d/a.json" time_s $call)" -v na="$(json_sum "$d/a.json" timed_calls $call)" \
        -v tb="$(json_sum "$d/b.json" time_s $call)" -v nb="$(json_sum "$d/b.json" timed_calls $call)" \
        'BEGIN { printf "%.6f %.6f %.3gx\n", ta, tb, (ta / na) / (tb / nb) }')
    got=$(awk -v c=$call '$1 == c && NF == 4 { print $2, $3, $4 }' "$d/out")
    [ "$got" = "$want" ] || fail "$call: the comparison says '$got', the JSON files '$want'"
done
grep -Eq '^ +\[2\] +'$N' calls .* knomial:k=3 +forced$' "$d/out" || fail "no [2] forced Bcast row"

# ---- CSV ----
"$H" report "$d/a.json" "$d/b.json" --csv >"$d/csv" 2>"$d/out" || fail "--csv failed"
head -1 "$d/csv" | grep -qx 'file,rank,mode,comm,comm_size,nodes,ppn,call,collective,bucket,bytes_min,bytes_max,calls,timed_calls,bytes,time_s,mean_us,algorithm,k,source,tuned_calls,native_calls,native_reason,fallback_calls,probing_calls,probing_overhead_us,settled_k' ||
    fail "--csv: wrong header: $(head -1 "$d/csv")"
keys=$(($(grep -c '"call":' "$d/a.json") + $(grep -c '"call":' "$d/b.json")))
[ "$(($(wc -l <"$d/csv") - 1))" = "$keys" ] || fail "--csv: $(($(wc -l <"$d/csv") - 1)) rows for $keys keys"
awk -F, 'NR > 1 && NF != 27 { exit 1 }' "$d/csv" || fail "--csv: a row without 27 fields"
for f in a b; do
    want=$(grep -o '"calls":[0-9]*' "$d/$f.json" | awk -F: '{ s += $2 } END { print s }')
    got=$(awk -F, -v f="$d/$f.json" '$1 == f { s += $13 } END { print s }' "$d/csv")
    [ "$got" = "$want" ] || fail "--csv: $f has $got calls, its JSON $want"
done
awk -F, -v f="$d/b.json" '$1 == f && $8 == "MPI_Bcast" && ($20 != "forced" || $18 != "knomial" || $19 != 3) { exit 1 }
    $1 == f && $8 == "MPI_Allreduce" && $20 != "table" { exit 1 }' "$d/csv" || fail "--csv: wrong source rows"
awk -F, -v f="$d/a.json" '$1 == f && ($20 != "mpi" || $23 != "no table" || $22 != $13) { exit 1 }' "$d/csv" ||
    fail "--csv: a's rows are not MPI's selection with no table"

# ---- PNG ----
png_ok() { [ -s "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "$1 is not a PNG"; }
"$H" report "$d/a.json" "$d/b.json" --png "$d/png2" >"$d/out" 2>&1 || fail "--png (two files) failed"
png_ok "$d/png2/time.png"
png_ok "$d/png2/speedup.png"
"$H" report "$d/c.json" --png "$d/png1" >"$d/out" 2>&1 || fail "--png (one file) failed"
png_ok "$d/png1/time.png"
[ ! -e "$d/png1/speedup.png" ] || fail "a speedup plot of one file"
gp=$(command -v "$H")
PATH=/nonexistent "$gp" report "$d/a.json" --png "$d/png3" >"$d/out" 2>&1 && fail "--png without gnuplot succeeded"
grep -q 'needs gnuplot, which is not in PATH (install it: apt-get install gnuplot-nox)' "$d/out" ||
    fail "--png without gnuplot: no clear error"

# ---- errors: exit 1, one message naming the file ----
bad() { # WHAT EXPECTED-TEXT FILE...
    what=$1 text=$2
    shift 2
    timeout 20 "$H" report "$@" >"$d/out" 2>&1
    rc=$?
    [ $rc = 1 ] || fail "$what: exit $rc, not 1"
    grep -qF -- "$text" "$d/out" || fail "$what: no message '$text'"
    [ "$(wc -l <"$d/out")" = 1 ] || fail "$what: not one line"
}
bad "a table" "$TABLE is not a hytune statistics file (no \"content\": \"hytune statistics\"" "$TABLE"
printf 'HYTUNE statistics\n' >"$d/text"
bad "text" "$d/text is not a hytune statistics file (not JSON" "$d/a.json" "$d/text"
sed 's/"format":2,/"format":1,/' "$d/a.json" >"$d/f1.json"
bad "format 1" "$d/f1.json is a hytune statistics file of format 1; this hytune reads format 2" "$d/f1.json"
sed '0,/"time_s":/s/"time_s":[^,]*/"time_s":"x"/' "$d/a.json" >"$d/type.json"
bad "a string time" "$d/type.json: communicators[0].keys[0].time_s: expected a number" "$d/type.json"
path=$(python3 - "$d/e.json" "$d/ctype.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for ci, c in enumerate(s["communicators"]):
    for ki, k in enumerate(c["keys"]):
        if "candidates" in (k.get("online") or {}):
            k["online"]["candidates"][0]["time_us"] = "x"
            json.dump(s, open(sys.argv[2], "w"))
            print("communicators[%d].keys[%d].online.candidates[0].time_us" % (ci, ki))
            sys.exit(0)
PY
) || fail "e.json has no candidate to spoil"
bad "a string candidate time" "$d/ctype.json: $path: expected a number" "$d/ctype.json"
mkfifo "$d/fifo"
bad "a FIFO" "cannot read $d/fifo (a FIFO, not a regular file)" "$d/fifo"
bad "a missing file" "cannot read $d/none.json (No such file or directory)" "$d/none.json"
"$H" report >"$d/out" 2>&1
[ $? = 2 ] || fail "no file: not exit 2"
echo "report: ok"
