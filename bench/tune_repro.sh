#!/bin/sh
# A table written by `hytune tune` in the job, measured against MPICH's own
# selection by a separate benchmark program (bench/apps/collbench through
# bench/eval_coll.sh), on a platform the defaults were not tuned on.
#
#   sh bench/tune_repro.sh -o OUTDIR [-p PLATFORM] [-n NODES] [-q PPN]
#        [-c "allreduce alltoall reduce bcast"] [-m MAX_BYTES] [-a "TUNE ARGS"]
#
# Defaults: platforms/dragonfly-64.xml, 16 nodes x 4 ppn (64 ranks), the four
# collectives above, sizes up to 16384 bytes:
#   1. smpirun -np 64 ... hytune-smpi tune --coll allreduce,alltoall,reduce,bcast
#          --max-bytes 16K --shapes job -o OUTDIR/table.json
#      (--cfg=smpi/coll-selector:mpich: "native" is MPICH's selection)
#   2. bench/eval_coll.sh -M "mpich offline" with that table at the powers of two
#      4 .. MAX_BYTES (OUTDIR/pow2) and at 3 x the powers of two 12 .. 3/4 MAX_BYTES,
#      sizes between the table's grid points (OUTDIR/mid); collbench times each
#      size with a barrier before every call, mean per rank, max over ranks.
# Prints every (collective, size) with MPICH's time, the table's time and the
# ratio MPICH / table (> 1: the table is faster), the lowest ratio, and the
# points below 0.97.  Exit status 0 even when some are below (the numbers are
# the result); 1 when a step fails.
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"

out='' plat=$HYT_TOP/platforms/dragonfly-64.xml nodes=16 ppn=4
colls="allreduce alltoall reduce bcast" maxb=16384 targs=''
while getopts o:p:n:q:c:m:a: opt; do
    case $opt in
    o) out=$OPTARG ;; p) plat=$OPTARG ;; n) nodes=$OPTARG ;; q) ppn=$OPTARG ;;
    c) colls=$OPTARG ;; m) maxb=$OPTARG ;; a) targs=$OPTARG ;;
    *) die "usage: see the comment at the top of bench/tune_repro.sh" ;;
    esac
done
[ -n "$out" ] || die "give -o OUTDIR"
[ -f "$plat" ] || die "-p: no platform file $plat"
case $plat in /*) ;; *) plat=$(pwd)/$plat ;; esac
pname=$(basename "$plat" .xml)
[ "$plat" = "$HYT_TOP/platforms/$pname.xml" ] ||
    die "-p: the platform must be one of platforms/*.xml (bench/eval_coll.sh takes its name)"
B=$(hyt_build_dir)
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
np=$((nodes * ppn))
hostfile "$nodes" "$ppn" | write_atomic "$out/hostfile"
clist=$(echo "$colls" | tr ' ' ',')

if [ ! -s "$out/table.json" ]; then
    progress "tune_repro: hytune tune, $nodes x $ppn on $pname, $clist up to $maxb bytes"
    # shellcheck disable=SC2086 # TUNE ARGS are words
    SMPI_EXTRA="--cfg=smpi/coll-selector:mpich" smpi_run "$np" "$plat" "$out/hostfile" \
        "$B/bin/hytune-smpi" tune --coll "$clist" --max-bytes "$maxb" --shapes job \
        --progress log $targs -o "$out/table.json.tmp" 2>"$out/tune.log" ||
        die "the tuning run failed (see $out/tune.log)"
    mv "$out/table.json.tmp" "$out/table.json"
fi
grep -E 'native guard|tune: done' "$out/tune.log"

progress "tune_repro: powers of two 4 .. $maxb"
sh "$HYT_TOP/bench/eval_coll.sh" -o "$out/pow2" -t "$out/table.json" -P "$pname:$nodes:$ppn" \
    -c "$colls" -s 4 -m "$maxb" -x 2 -M "mpich offline" >"$out/pow2.txt" ||
    die "bench/eval_coll.sh failed (see $out/pow2.txt, $out/pow2/coll.log)"
progress "tune_repro: sizes between: 12 .. $((maxb * 3 / 4))"
sh "$HYT_TOP/bench/eval_coll.sh" -o "$out/mid" -t "$out/table.json" -P "$pname:$nodes:$ppn" \
    -c "$colls" -s 12 -m $((maxb * 3 / 4)) -x 2 -M "mpich offline" >"$out/mid.txt" ||
    die "bench/eval_coll.sh failed (see $out/mid.txt, $out/mid/coll.log)"

# speedup.csv: platform,nodes,ppn,coll,bytes,mpich_us,offline_us,hybrid_us,speedup_offline,...
{ tail -n +2 "$out/pow2/speedup.csv"; tail -n +2 "$out/mid/speedup.csv"; } |
    sort -t, -k4,4 -k5,5n | tee "$out/ratio.csv" |
    awk -F, '{ printf "%-10s %6d B  mpich %9.3f us  table %9.3f us  x%.3f%s\n", $4, $5, $6, $7, $9, ($9 < 0.97 ? "  BELOW 0.97" : "")
        if (n == 0 || $9 < lo) { lo = $9; at = $4 " " $5 " B" } n++; below += ($9 < 0.97) }
        END { printf "tune_repro: %d points, lowest x%.3f (%s), %d below 0.97\n", n, lo, at, below }'
