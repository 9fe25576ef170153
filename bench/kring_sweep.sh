#!/bin/sh
# k-ring latency vs k on platforms/cluster-small.xml (8 ranks per host), and
# k=1 k-ring against SMPI's own ring algorithms:
#   allgather  vs allgather:NTSLR (logical ring: send right, receive left;
#              SMPI's "ring" allgather is a distance-i exchange, not a ring)
#   allreduce  vs allreduce:lr (ring reduce-scatter + ring allgather); lr runs
#              SMPI's default algorithm, not a ring, when count < p, so those
#              sizes are printed as "n/a"
#   bcast      vs bcast:scatter_LR_allgather (binomial scatter + ring
#              allgather; ours scatters in one round from the root)
#   sh bench/kring_sweep.sh [HOSTS]      (default 8 hosts = 64 ranks)
# Needs a build with SimGrid: B=build dir (default build).  Prints the raw
# lines of bench/kring_sweep.c, then "ratio" lines: k-ring k=1 time divided
# by SMPI ring time per size (< 1: ours is faster).  Intra-node transfers do
# not share bandwidth in SMPI 3.32, which flatters in-node steps.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
hosts=${1:-8}
np=$((hosts * 8))
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
i=0
while [ $i -lt "$hosts" ]; do echo "node-$i:8"; i=$((i + 1)); done >"$d/hf"
"$B/bin/hytune-smpicc" -std=c11 -O2 -I"$top" "$top/bench/kring_sweep.c" -o "$d/sweep"
run() {
    smpirun -np $np -platform "$top/platforms/cluster-small.xml" -hostfile "$d/hf" \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical --log=smpi.thres:critical \
        --cfg=smpi/display-timing:no "$@" 2>/dev/null
}
ks="1 2 4 8 16 $np"
for c in allgather bcast allreduce; do
    run "$d/sweep" $c kring $ks | tee -a "$d/kring"
done
run --cfg=smpi/allgather:NTSLR "$d/sweep" allgather native | tee -a "$d/native"
run --cfg=smpi/bcast:scatter_LR_allgather "$d/sweep" bcast native | tee -a "$d/native"
run --cfg=smpi/allreduce:lr "$d/sweep" allreduce native | tee -a "$d/native"
# ratio of k-ring k=1 to SMPI's ring, per collective and size (MPI_INT data)
awk -v np=$np 'NR == FNR { if ($3 == 1) t[$1 " " $4] = $5; next }
     ($1 " " $4) in t {
         if ($1 == "allreduce" && $4 / 4 < np)
             printf "ratio %s %s kring1/smpi-ring n/a (count < p: lr is not a ring)\n", $1, $4
         else
             printf "ratio %s %s kring1/smpi-ring %.3f\n", $1, $4, t[$1 " " $4] / $5 }' \
    "$d/kring" "$d/native"
