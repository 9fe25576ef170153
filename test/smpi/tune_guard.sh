#!/bin/sh
# The native guard end to end: challengers predicted to win that do not win
# when measured are rewritten to native, and the guard measures the sizes
# between the grid's powers of two at a rule's edges.
#   sh test/smpi/tune_guard.sh BUILD PLATFORM_DIR    (SMPIRUN, SMPI from test/run.sh)
# 2 nodes x 2 ppn on cluster-small, MPICH's selection as native.  A warm
# start claims k-ring (k = 1) takes 0.01 us from 4 to 256 bytes and
# Rabenseifner 0.01 us from 512 to 4096, so the model's rules are k-ring up to
# E (256, or the midpoint 384 if the model gives it to k-ring) and
# Rabenseifner from E + 4 (MPI_INT: multiples of 4; 260 or 388, off the
# grid), both replacing native; --timeout 1e-6 stops after the first batch.
# 1. --no-native-guard: the table has both rules (the claim does decide them).
# 2. with the guard: k-ring (far slower than MPICH's recursive doubling at
#    4 ranks) is measured against native at its sizes and rewritten; the
#    dump has both measured at the rules' edges E and E + 4 and at k-ring's
#    sizes 4 and 16, and the guard reports the change.
set -u
B=$1 PLAT=$2
: "${SMPIRUN:?run through test/run.sh, which sets SMPIRUN and SMPI}" "${SMPI:?}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf 'node-0:2\nnode-1:2\n' >"$d/hf"
{
    echo "coll,nodes,ppn,bytes,algorithm,k,time_us"
    for b in 4 8 16 32 64 128 256; do echo "allreduce,2,2,$b,kring,1,0.01"; done
    for b in 512 1024 2048 4096; do echo "allreduce,2,2,$b,rabenseifner,0,0.01"; done
} >"$d/ws.csv"
tune() { # OUT ARGS...
    _o=$1
    shift
    "$SMPIRUN" -np 4 -platform "$PLAT/cluster-small.xml" -hostfile "$d/hf" $SMPI \
        --cfg=smpi/coll-selector:mpich "$B/bin/hytune-smpi" tune --coll allreduce --max-bytes 4K --shapes job \
        --warm-start "$d/ws.csv" --timeout 1e-6 --progress log -o "$_o" "$@" 2>"$_o.log"
}
fail() {
    echo "tune_guard: $*"
    for f in "$d"/*.log; do echo "--- $f"; cat "$f"; done
    exit 1
}
# algorithm of the rule covering BYTES in table FILE
alg_at() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
rules = json.load(open(sys.argv[1]))["collectives"]["allreduce"][0]["rules"]
b = int(sys.argv[2])
for r in rules:
    if "bytes_max" not in r or b <= r["bytes_max"]:
        print(r["algorithm"])
        break
EOF
}
tune "$d/noguard.json" --no-native-guard || fail "tuning without the guard failed"
E=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["collectives"]["allreduce"][0]["rules"][0].get("bytes_max", 0))' "$d/noguard.json")
case $E in 256 | 384) ;; *) fail "without the guard the first rule ends at $E, want 256 or 384: $(cat "$d/noguard.json")" ;; esac
[ "$(alg_at "$d/noguard.json" 4)" = kring ] && [ "$(alg_at "$d/noguard.json" "$E")" = kring ] &&
    [ "$(alg_at "$d/noguard.json" $((E + 4)))" = rabenseifner ] ||
    fail "without the guard the warm start does not give kring up to $E and rabenseifner from $((E + 4)): $(cat "$d/noguard.json")"

tune "$d/t.json" --dump "$d/dump.csv" || fail "tuning with the guard failed"
line=$(grep 'native guard:' "$d/t.json.log") || fail "no native guard line"
echo "$line"
echo "$line" | grep -Eq 'native guard: 2 rules replace native, .* native kept at [1-9][0-9]* sizes, [12] rules changed' ||
    fail "the guard did not rewrite a rule: $line"
for b in 4 16 "$E"; do
    a=$(alg_at "$d/t.json" "$b")
    [ "$a" = native ] || fail "$b bytes: $a after the guard, want native (kring measured slower)"
done
for pt in "$E,kring,1" "$E,native,0" "$((E + 4)),rabenseifner,0" "$((E + 4)),native,0" "4,kring,1" \
    "4,native,0" "16,kring,1" "16,native,0"; do
    b=${pt%%,*} rest=${pt#*,}
    grep -q "^allreduce,2,2,$b,$rest," "$d/dump.csv" || fail "the dump has no guard point $pt"
done
echo "tune_guard: ok"
