#!/bin/sh
# Smoke test of the evaluation scripts at 8 ranks: bench/eval_oracle.sh
# writes a table that hytune loads and applies (the stats report of an
# offline run names the table's choice for the 8-byte Allreduce), and
# bench/eval_apps.sh and bench/summary.sh produce their CSV and markdown.
# Needs B and SMPIRUN from test/run.sh.
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export HYT_BUILD=$B
fail() { echo "FAIL: $*"; exit 1; }

sh bench/eval_oracle.sh -p platforms/cluster-small.xml -n 4 -q 2 -o "$out/or" -c allreduce \
    -s 8 -m 64 -x 8 -k 2 -i 2 -w 1 >"$out/oracle.txt" 2>&1 || fail "eval_oracle.sh exit $?"
cat "$out/oracle.txt"
t=$out/or/oracle-table.json
[ -s "$t" ] || fail "no oracle table"
grep -q '"generator": "bench/eval_oracle.sh' "$t" || fail "the oracle table does not say it is one"
# the sweep measured native and at least one algorithm at both sizes
[ "$(grep -c ',allreduce,native,' "$out/or/oracle-sweep.csv")" -eq 2 ] || fail "native not measured at 2 sizes"
[ "$(grep -c ',allreduce,' "$out/or/oracle-sweep.csv")" -gt 2 ] || fail "no algorithm measured"
best=$(awk -F, 'NR > 1 && $6 == 8 { if (!b || $8 < b) { b = $8; c = $5 } } END { print c }' "$out/or/oracle-sweep.csv")
echo "best at 8 B: $best"

sh bench/eval_apps.sh -p platforms/cluster-small.xml -n 4 -q 2 -t "$t" -o "$out/apps" -a cg \
    >"$out/apps.txt" 2>&1 || { cat "$out/apps.txt"; fail "eval_apps.sh exit $?"; }
cat "$out/apps.txt"
[ "$(grep -c ',cg,' "$out/apps/apps.csv")" -eq 3 ] || fail "apps.csv lacks the 3 modes"
# the offline run applied the table: its report names the oracle's choice
want=$(echo "$best" | sed 's/:/:k=/')
[ "$best" = native ] && want=native
grep -q "allreduce .* $want\$" "$out/apps/stats-cg-offline" ||
    { cat "$out/apps/stats-cg-offline"; fail "offline run did not use the table's $want"; }
SUMMARY_OUT=$out/summary.md sh bench/summary.sh "$out/or" "$out/apps" >"$out/summary.txt" || fail "summary.sh exit $?"
grep -q "^| apps | cluster-small | 4 x 2 | cg |" "$out/summary.txt" || { cat "$out/summary.txt"; fail "summary lacks the cg row"; }
echo "eval_scripts: ok"
