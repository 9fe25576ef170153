#!/bin/sh
# Node-aware compositions vs flat algorithms, and radix priors vs the best
# radix, in SimGrid (simulated time, deterministic).
#   sh bench/composition.sh [HOSTS [PPN]]     (default 64 hosts x 8 ranks)
# Platform: platforms/cluster-small.xml (inter-node 10 GB/s, 1 us; intra-node
# loopback 50 GB/s, 0.1 us).  Baseline "native" is SimGrid's MPICH selector.
# SimGrid 3.32 does not share intra-node bandwidth between concurrent copies,
# so algorithms heavy on intra-node traffic look optimistic here.
# Env: HYT_BUILD (build dir, default ./build), SIZES, SWEEP_SIZES, ITERS,
# PLATFORM (default platforms/cluster-small.xml; hosts must be named node-N).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${HYT_BUILD:-$top/build}
HOSTS=${1:-64}
PPN=${2:-8}
SIZES=${SIZES:-8,64,512,4096,32768,262144,1048576}
SWEEP_SIZES=${SWEEP_SIZES:-8,4096,262144}
ITERS=${ITERS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/bin/hytune-smpicc" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I"$top" -I/usr/include/json-c \
    "$top/bench/composition.c" -o "$tmp/composition" 2>&1 | grep -v SMPI_PRETEND_CC >&2 || true
i=0
while [ $i -lt "$HOSTS" ]; do echo "node-$i:$PPN"; i=$((i + 1)); done >"$tmp/hosts"
np=$((HOSTS * PPN))
plat=${PLATFORM:-$top/platforms/cluster-small.xml}
run() {
    smpirun -np $np -platform "$plat" -hostfile "$tmp/hosts" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:mpich \
        --log=root.thres:critical --log=smpi.thres:critical --cfg=smpi/display-timing:no \
        --cfg=smpi/tmpdir:"$tmp" "$tmp/composition" "$@"
}
echo "# $HOSTS hosts x $PPN ranks = $np ranks, $(basename "$plat"), latency in us"
echo "# composition:0 = MPI's own collective among node leaders; k>0 = k-nomial among leaders"
echo "# coll      bytes    algorithm       k   latency_us"
for coll in allreduce bcast; do
    run $coll native,knomial:prior,recmult:prior,kring:prior,composition:0,composition:prior \
        "$SIZES" "$ITERS"
done | tee "$tmp/flat"
echo
echo "# best composition vs best flat (native, knomial, recmult, kring at their prior k)"
awk '{ if ($3 == "composition") { if (!($1 SUBSEP $2 in c) || $5 < c[$1, $2]) c[$1, $2] = $5 }
       else if (!($1 SUBSEP $2 in f) || $5 < f[$1, $2]) { f[$1, $2] = $5; fa[$1, $2] = $3 } }
     END { printf "# coll      bytes  composition_us  best_flat_us  best_flat     speedup\n";
           for (key in c) { split(key, a, SUBSEP);
               printf "%-10s %8d %14.2f %13.2f  %-10s %6.2fx\n", a[1], a[2], c[key], f[key],
                      fa[key], f[key] / c[key] } }' "$tmp/flat" | sort -k1,1 -k2,2n
echo
echo "# radix prior vs best swept k (ratio = time at prior k / time at best k)"
for coll in allreduce bcast; do
    run $coll knomial:prior,knomial:sweep,composition:prior,composition:sweep "$SWEEP_SIZES" 1
done >"$tmp/sweep"
awk 'BEGIN { printf "# coll      bytes  algorithm   prior_k  prior_us  best_k   best_us  ratio\n" }
     { key = $1 SUBSEP $2 SUBSEP $3
       if (!(key in seen)) { seen[key] = 1; pk[key] = $4; pt[key] = $5; order[++n] = key }
       if (!(key in bt) || $5 < bt[key]) { bt[key] = $5; bk[key] = $4 } }
     END { for (i = 1; i <= n; i++) { key = order[i]; split(key, a, SUBSEP)
               printf "%-10s %8d  %-11s %7d %9.2f %7d %9.2f  %5.2f\n", a[1], a[2], a[3],
                      pk[key], pt[key], bk[key], bt[key], pt[key] / bt[key] } }' "$tmp/sweep"
