#!/bin/sh
# Quality of the allocation-time tuner against an exhaustive oracle (SimGrid).
#   sh bench/tune_oracle.sh [OUTDIR]
# 1. `hytune-smpi tune --exhaustive --dump` measures every candidate (registry
#    algorithms x k grid) at every shape (power-of-two nodes x ppn) and every
#    power-of-two size: the oracle CSV (coll,nodes,ppn,bytes,algorithm,k,time_us).
# 2. `hytune tune --oracle` replays the tuner's loop on it and, at the same
#    number of benchmark seconds, random sampling; per iteration it prints
#    R^2, average slowdown vs the best measured choice, accuracy, share of
#    significant mistakes (>10% slower) and cumulative benchmark seconds as a
#    percentage of the exhaustive sweep.
# Environment: B (build dir, default build), NODES (16), PPN (4),
# COLLS (allreduce,bcast,reduce,allgather), MAX_BYTES (1M),
# PLATFORM (platforms/cluster-small.xml), SEEDS ("1 2 3").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
NODES=${NODES:-16} PPN=${PPN:-4} COLLS=${COLLS:-allreduce,bcast,reduce,allgather}
MAX_BYTES=${MAX_BYTES:-1M} PLATFORM=${PLATFORM:-$top/platforms/cluster-small.xml}
SEEDS=${SEEDS:-1 2 3}
out=${1:-$(mktemp -d /tmp/hytune-oracle.XXXXXX)}
mkdir -p "$out"
hf=$out/hosts
i=0
: >"$hf"
while [ $i -lt "$NODES" ]; do echo "node-$i:$PPN" >>"$hf"; i=$((i + 1)); done
SMPI="--cfg=smpi/simulate-computation:no --log=root.thres:critical --log=smpi.thres:critical --cfg=smpi/display-timing:no"
if [ ! -s "$out/oracle.csv" ]; then
    echo "tune_oracle: exhaustive sweep, $NODES nodes x $PPN ppn, $COLLS, up to $MAX_BYTES" >&2
    smpirun -np $((NODES * PPN)) -platform "$PLATFORM" -hostfile "$hf" $SMPI \
        "$B/bin/hytune-smpi" tune --exhaustive --batch 64 --coll "$COLLS" --max-bytes "$MAX_BYTES" \
        --timeout 1e9 --dump "$out/oracle.csv.tmp" -o "$out/exhaustive-table.json" 2>"$out/sweep.log"
    mv "$out/oracle.csv.tmp" "$out/oracle.csv"
fi
echo "# oracle: $(($(wc -l <"$out/oracle.csv") - 1)) measurements in $out/oracle.csv"
for s in $SEEDS; do
    echo "# seed $s: $B/bin/hytune tune --oracle $out/oracle.csv --coll $COLLS --seed $s"
    "$B/bin/hytune" tune --oracle "$out/oracle.csv" --coll "$COLLS" --seed "$s" | tee "$out/curves-$s.txt" |
        grep -E '^(summary|#)'
done
