#!/bin/sh
# Run one proxy application (bench/apps/) under SimGrid and check its own
# verification.  Used by test/smpi/testlist.
#   sh test/smpi/eval_apps.sh [--expect-fail] APP NODES PPN PLATFORM [APP ARGS...]
# Passes when the application exits 0 and prints "verified yes"; with
# --expect-fail (the --corrupt self-test) when it exits 1 and prints
# "verified no".  Needs B, SMPIRUN, SMPI from test/run.sh.
set -u
want=yes
if [ "${1:-}" = --expect-fail ]; then want=no; shift; fi
app=$1 nodes=$2 ppn=$3 plat=$4
shift 4
. bench/lib.sh
hf=$(mktemp)
out=$(mktemp)
trap 'rm -f "$hf" "$out"' EXIT
hostfile "$nodes" "$ppn" >"$hf"
# shellcheck disable=SC2086 # $SMPI is an option list
# shellcheck disable=SC2046 # word lists on purpose
"$SMPIRUN" -np $((nodes * ppn)) -platform "$plat" -hostfile "$hf" $SMPI $(plat_opts "$plat") \
    "$B/bench/apps/$app" "$@" >"$out" 2>&1
rc=$?
cat "$out"
line=$(grep "^APP $app " "$out")
[ -n "$line" ] || { echo "FAIL: no APP summary line from $app"; exit 1; }
case $want in
yes) [ $rc -eq 0 ] && echo "$line" | grep -q "verified yes" || { echo "FAIL: $app exit $rc, expected a verified run"; exit 1; } ;;
no) [ $rc -eq 1 ] && echo "$line" | grep -q "verified no" || { echo "FAIL: $app exit $rc, expected its verifier to catch the damage"; exit 1; } ;;
esac
exit 0
