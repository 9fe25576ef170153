#!/bin/sh
# Time of hytune's kernels for the collectives beyond the first six
# (Barrier, Gather, Scatter, Allgatherv, Alltoallv, Reduce_scatter, Scan,
# Exscan) against SimGrid's MPICH selection, 8 B .. 1 MiB, v-variants also
# with skewed blocks.
#   sh bench/newcoll_sweep.sh [HOSTS [PPN [PLATFORM]]]
#     default 16 hosts x 4 ranks on platforms/dragonfly-64.xml
# Prints the raw "coll alg k bytes usec" lines of bench/newcoll_sweep.c,
# then per (collective, size) the fastest hytune (alg, k) of the sweep and
# its speedup over the native time ("best" lines: the best of a sweep, an
# upper bound of what a table can reach, not a tuned table's result), and
# per collective the geometric mean and the worst of those speedups.
set -eu
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"
B=$(hyt_build_dir)
hosts=${1:-16}
ppn=${2:-4}
plat=${3:-$HYT_TOP/platforms/dragonfly-64.xml}
np=$((hosts * ppn))
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
hostfile "$hosts" "$ppn" >"$d/hf"
"$B/bin/hytune-smpicc" -std=c11 -O2 -I"$HYT_TOP" "$HYT_TOP/bench/newcoll_sweep.c" -o "$d/sweep"
run() { smpi_run "$np" "$plat" "$d/hf" "$@"; }
ks="2 3 4 8 16 $np"
progress "new collectives on $np ranks ($hosts x $ppn), $(basename "$plat")"
for spec in "barrier dissemination $ks" "barrier knomial $ks" "gather knomial $ks" \
    "scatter knomial $ks" "allgatherv ring 0" "allgatherv recmult 2 3 4 8 16" \
    "allgatherv kring 1 2 4 8 16 $np" "allgatherv composition 2 4 8 16" \
    "alltoallv pairwise 0" "alltoallv scattered 1 2 4 8 16 $((np - 1))" \
    "reduce_scatter rechalving 0" "reduce_scatter pairwise 0" "scan recdoubling 0" \
    "exscan recdoubling 0"; do
    # shellcheck disable=SC2086 # spec is "COLL ALG K..."
    set -- $spec
    c=$1
    shift
    run "$d/sweep" "$c" "$@" | tee -a "$d/ours"
    case $c in allgatherv | alltoallv | reduce_scatter)
        run "$d/sweep" "$c" skew "$@" | tee -a "$d/ours" ;;
    esac
done
for c in barrier gather scatter allgatherv alltoallv reduce_scatter scan exscan; do
    SMPI_EXTRA=--cfg=smpi/coll-selector:mpich run "$d/sweep" "$c" native | tee -a "$d/native"
    case $c in allgatherv | alltoallv | reduce_scatter)
        SMPI_EXTRA=--cfg=smpi/coll-selector:mpich run "$d/sweep" "$c" skew native |
            tee -a "$d/native" ;;
    esac
done
awk 'NR == FNR { nat[$1 " " $4] = $5; next }
     { key = $1 " " $4; if (!(key in best) || $5 < best[key]) { best[key] = $5; w[key] = $2 ":" $3 } }
     END { for (key in best) if (key in nat) { split(key, f, " ")
             printf "best %s bytes=%s %s usec=%.3f native=%.3f speedup=%.3f\n", f[1], f[2], w[key],
                    best[key], nat[key], nat[key] / best[key] } }' "$d/native" "$d/ours" |
    sort -k2,2 -k3,3V | tee "$d/best"
awk '{ s = $NF; sub("speedup=", "", s); n[$2]++; l[$2] += log(s)
       if (!($2 in lo) || s < lo[$2]) lo[$2] = s }
     END { for (c in n) printf "summary %s: geomean speedup %.3f over %d sizes, worst %.3f\n", c,
           exp(l[c] / n[c]), n[c], lo[c] }' "$d/best" | sort
