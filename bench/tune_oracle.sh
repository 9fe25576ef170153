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
#    The sweep races (--cut 1.25): under SimGrid, one point at a time (no
#    network groups known), every call after the first takes the same time,
#    so a loser's second call is its median and the
#    oracle is the same (test smpi/tune-exhaustive-cut); SWEEP_CUT=0 repeats
#    every point.  K_MAX (unset) passes --k-max to the sweep.
# Environment: B (build dir, default build), NODES (16), PPN (4),
# COLLS (allreduce,bcast,reduce,allgather), MAX_BYTES (1M),
# PLATFORM (platforms/cluster-small.xml), SEEDS ("1 2 3"), BUDGET (15: also print
# the tuner's state at its last iteration within BUDGET% of the exhaustive cost,
# and random sampling's at no more than the same cost), RANDOM_TO (30: random
# sampling goes on to this percentage of the exhaustive cost).
# 3. bench/oracle_curve.sh: slowdown and mistakes against benchmark time, tuner
#    and random, mean over the seeds: OUTDIR/curve.txt (and curve.png).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
NODES=${NODES:-16} PPN=${PPN:-4} COLLS=${COLLS:-allreduce,bcast,reduce,allgather}
MAX_BYTES=${MAX_BYTES:-1M} PLATFORM=${PLATFORM:-$top/platforms/cluster-small.xml}
SEEDS=${SEEDS:-1 2 3} BUDGET=${BUDGET:-15} RANDOM_TO=${RANDOM_TO:-30}
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
        "$B/bin/hytune-smpi" tune --exhaustive --cut "${SWEEP_CUT:-1.25}" ${K_MAX:+--k-max "$K_MAX"} \
        --batch 64 --coll "$COLLS" --max-bytes "$MAX_BYTES" \
        --timeout 1e9 --dump "$out/oracle.csv.tmp" -o "$out/exhaustive-table.json" 2>"$out/sweep.log"
    mv "$out/oracle.csv.tmp" "$out/oracle.csv"
fi
echo "# oracle: $(($(wc -l <"$out/oracle.csv") - 1)) measurements in $out/oracle.csv"
for s in $SEEDS; do
    echo "# seed $s: $B/bin/hytune tune --oracle $out/oracle.csv --coll $COLLS --seed $s --random-to $RANDOM_TO"
    "$B/bin/hytune" tune --oracle "$out/oracle.csv" --coll "$COLLS" --seed "$s" --random-to "$RANDOM_TO" |
        tee "$out/curves-$s.txt" |
        grep -E '^(summary|#)'
    # columns: mode coll iter points cost_s cost% cumvar expgain R2 slowdown accuracy mistakes
    awk -v B="$BUDGET" '
        $1 == "tuner"  { c = $6; sub("%", "", c); if (c + 0 <= B) { tc[$2] = c; tp[$2] = $4; ts[$2] = $10; tm[$2] = $12 } }
        $1 == "random" { c = $6; sub("%", "", c); if (($2 in tc) && c + 0 <= tc[$2] + 1e-9) { rc[$2] = c; rs[$2] = $10; rm[$2] = $12 } }
        END { for (k in tc) printf "at %g%% %s: tuner %s%% of exhaustive (%d points) slowdown %.4f mistakes %.1f%% | random %s%% slowdown %.4f mistakes %.1f%%\n",
                  B, k, tc[k], tp[k], ts[k], 100 * tm[k], rc[k], rs[k], 100 * rm[k] }' "$out/curves-$s.txt" | sort
done
files=''
for s in $SEEDS; do files="$files $out/curves-$s.txt"; done
# shellcheck disable=SC2086 # one argument per seed's file
sh "$top/bench/oracle_curve.sh" -p "$out/curve.png" $files | tee "$out/curve.txt"
