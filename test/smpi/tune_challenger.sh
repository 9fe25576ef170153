#!/bin/sh
# --tune-nodes: each rule of the largest shape is measured on the whole job
# against native and against its challenger (the first entry of its
# shortlist after its own that is not native).
#   sh test/smpi/tune_challenger.sh BUILD PLATFORM_DIR    (SMPIRUN, SMPI from test/run.sh)
# 13 nodes x 1 rank of cluster-small, MPICH's selection as native, the
# search on 4 nodes.  Allgather: recursive multiplying k 4 wins on 4 nodes
# for 65-2048 B (and 2-48 B) with Bruck k 4 next in its shortlist; on the 13
# ranks Bruck k 4 is faster beyond the noise, so the job's own rule set takes
# it there, the 4-node set keeps recursive multiplying, and the job's rule
# has Bruck's own gains (test_tune_load -c; fails without the challenger: no
# job's own set).  Recursive multiplying, slower than Bruck on the 13 ranks
# beyond the noise and the shortlist margin at each size measured, is not in
# the job's rule's shortlist (test_tune_load -d; fails where the job's
# shortlists come from the 4-node model alone).  Reduce: no challenger
# wins on the 13 ranks, and the table has the 4-node set alone, serving
# every communicator (fails if a challenger within the noise changed it).
set -u
B=$1 PLAT=$2
: "${SMPIRUN:?run through test/run.sh, which sets SMPIRUN and SMPI}" "${SMPI:?}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
i=0
while [ $i -lt 13 ]; do echo "node-$i:1"; i=$((i + 1)); done >"$d/hf"
fail() {
    echo "tune_challenger: $*"
    cat "$d/log"
    exit 1
}
"$SMPIRUN" -np 13 -platform "$PLAT/cluster-small.xml" -hostfile "$d/hf" $SMPI \
    --cfg=smpi/coll-selector:mpich \
    "$B/bin/hytune-smpi" tune --coll allgather,reduce --max-bytes 4K --shapes job --k-max 4 \
    --timeout 5 --tune-nodes 4 --progress log -o "$d/t.json" 2>"$d/log" || fail "tuning failed"
grep "shortlist challenger" "$d/log"
grep -Eq "^tune: allgather: on the job's 13 nodes a shortlist challenger is faster beyond the noise at [1-9][0-9]* of [1-9][0-9]* sizes, [1-9][0-9]* rules changed: the job's own rule set, the challenger there, serves its communicators above 4 nodes$" "$d/log" ||
    fail "allgather: no challenger taken on the whole job"
grep -Eq "^tune: reduce: on the job's 13 nodes a shortlist challenger is faster beyond the noise at 0 of [1-9][0-9]* sizes, 0 rules changed$" "$d/log" &&
    grep -Eq "^tune: reduce: on the job's 13 nodes native is faster beyond the noise at 0 of [1-9][0-9]* sizes, 0 rules changed$" "$d/log" ||
    fail "reduce: a challenger or native changed a rule on the whole job"
grep "the job's own rule set:" "$d/log"
grep -Eq "^tune: allgather: the job's own rule set: [1-9][0-9]* shortlist entries dropped \(measured slower than their rule on the job's 13 nodes beyond the noise and the margin\)$" "$d/log" ||
    fail "allgather: no shortlist entry dropped"
! grep -q "^tune: reduce: the job's own rule set" "$d/log" || fail "reduce: a job's own rule set"
"$B/test/unit/test_tune_load" -j 13 -c -d "$d/t.json" allgather || fail "allgather: the job's own set"
"$B/test/unit/test_tune_load" -j 13 "$d/t.json" reduce || fail "reduce: the table"
n=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["collectives"]["reduce"]; print(len(s), "nodes_max" in s[0])' "$d/t.json")
[ "$n" = "1 False" ] || fail "reduce: sets (count, bounded) $n, want the 4-node set alone, unbounded"
echo "tune_challenger: ok"
