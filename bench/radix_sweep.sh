#!/bin/sh
# Latency vs radix k per message size (8 B .. 1 MiB) for knomial Reduce/Bcast
# and recmult Allreduce/Allgather under SimGrid, and "generalization costs
# nothing": knomial k=2 against SMPI's binomial tree (bcast:binomial_tree,
# reduce:binomial) and recmult k=2 against SMPI's recursive doubling
# (allreduce:rdb, allgather:rdb).
#   sh bench/radix_sweep.sh [HOSTS [PPN [PLATFORM]]]
#     default 8 hosts x 8 ranks on platforms/cluster-small.xml
# Prints the raw "coll alg k bytes usec" lines of bench/radix_sweep.c, a
# "best" line per (coll, size) naming the fastest k, then "ratio" lines:
# our k=2 time divided by SMPI's (1.000: identical cost).  Deterministic
# (simulate-computation:no, raw lat/bw factors).  Needs HYT_BUILD (or build/)
# built with SimGrid.  SMPI 3.32 does not share intra-node bandwidth, which
# flatters intra-node-heavy schedules.
set -eu
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"
B=$(hyt_build_dir)
hosts=${1:-8}
ppn=${2:-8}
plat=${3:-$HYT_TOP/platforms/cluster-small.xml}
np=$((hosts * ppn))
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
hostfile "$hosts" "$ppn" >"$d/hf"
"$B/bin/hytune-smpicc" -std=c11 -O2 -I"$HYT_TOP" "$HYT_TOP/bench/radix_sweep.c" -o "$d/sweep"
run() { smpi_run "$np" "$plat" "$d/hf" "$@" 2>/dev/null; }

# k values: the binomial/doubling baseline, small radices, node size, p.
# recmult keeps k <= 16: each round holds k-1 message copies per rank.
kn_ks="2 3 4 8 16 $np"
rm_ks="2 3 4 8 16"
progress "radix sweep on $np ranks ($hosts x $ppn), $(basename "$plat")"
for c in reduce bcast; do run "$d/sweep" $c knomial $kn_ks | tee -a "$d/ours"; done
for c in allreduce allgather; do run "$d/sweep" $c recmult $rm_ks | tee -a "$d/ours"; done
SMPI_EXTRA=--cfg=smpi/reduce:binomial run "$d/sweep" reduce native | tee -a "$d/native"
SMPI_EXTRA=--cfg=smpi/bcast:binomial_tree run "$d/sweep" bcast native | tee -a "$d/native"
SMPI_EXTRA=--cfg=smpi/allreduce:rdb run "$d/sweep" allreduce native | tee -a "$d/native"
SMPI_EXTRA=--cfg=smpi/allgather:rdb run "$d/sweep" allgather native | tee -a "$d/native"

# fastest k per collective and size
awk '{ key = $1 " " $2 " " $4
       if (!(key in best) || $5 < best[key]) { best[key] = $5; bk[key] = $3 } }
     END { for (key in best) print key, bk[key], best[key] }' "$d/ours" |
    sort -k1,1 -k3,3n | awk '{ printf "best %s %s bytes=%s k=%s usec=%s\n", $1, $2, $3, $4, $5 }'
# our k=2 over SMPI's binomial / recursive doubling, per size
awk 'NR == FNR { if ($3 == 2) t[$1 " " $4] = $5; next }
     ($1 " " $4) in t { printf "ratio %s bytes=%s k2/smpi %.3f\n", $1, $4, t[$1 " " $4] / $5 }' \
    "$d/ours" "$d/native"

# RADIX_OUT=DIR keeps the raw lines and plots latency vs k, one curve per
# size, one PNG per collective (gnuplot).
if [ -n "${RADIX_OUT:-}" ]; then
    mkdir -p "$RADIX_OUT"
    cp "$d/ours" "$RADIX_OUT/radix.txt"
    cp "$d/native" "$RADIX_OUT/smpi-fixed-radix.txt"
    for c in reduce bcast allreduce allgather; do
        # one gnuplot data block per size (blank-line separated, in size order)
        awk -v c="$c" '$1 == c' "$d/ours" | sort -k4,4n -k3,3n |
            awk 'NR > 1 && $4 != prev { printf "\n\n" } { print $3, $5; prev = $4 }' \
                >"$RADIX_OUT/$c.dat"
        sizes=$(awk -v c="$c" '$1 == c { print $4 }' "$d/ours" | sort -un | tr '\n' ' ')
        alg=$(awk -v c="$c" '$1 == c { print $2; exit }' "$d/ours")
        if command -v gnuplot >/dev/null 2>&1; then
            gnuplot <<GP
set terminal png size 900,600
set output "$RADIX_OUT/$c.png"
set title "$c $alg: latency vs k, $np ranks ($hosts x $ppn), $(basename "$plat")"
set logscale xy 2
set xlabel "radix k"
set ylabel "latency (us, simulated)"
set key outside right
sizes = "$sizes"
plot for [i=1:words(sizes)] "$RADIX_OUT/$c.dat" index (i-1) using 1:2 with linespoints title word(sizes,i)." B"
GP
        fi
    done
    progress "radix sweep: data and plots in $RADIX_OUT"
fi
