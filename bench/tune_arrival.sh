#!/bin/sh
# What tuning with synchronized arrival costs an application whose ranks
# arrive skewed, and what `hytune tune --arrival` recovers (SimGrid).
#
#   sh bench/tune_arrival.sh [-o OUTDIR] [-p PLATFORM.xml] [-n NODES] [-q PPN]
#                            [-a PATTERN] [-c COLLS] [-m MAX_BYTES] [-k K_MAX]
#
# On the job's own shape (--shapes job), four SimGrid runs of hytune-smpi:
#   1. an exhaustive sweep with synchronized arrival   -> OUTDIR/sync.csv
#   2. an exhaustive sweep with --arrival PATTERN      -> OUTDIR/PATTERN.csv
#   3. the tuner with synchronized arrival             -> OUTDIR/t-sync.json
#   4. the tuner with --arrival PATTERN                -> OUTDIR/t-PATTERN.json
# then scores both tables against both sweeps (`hytune tune --oracle CSV
# --score TABLE`: average slowdown over the best measured candidate per size,
# share of sizes > 10% slower).  The sweeps time what each arrival gives: the
# slowest rank's call (sync) or the last delay (PATTERN).
# Defaults: platforms/dragonfly-64.xml, 16 nodes x 4 ppn, linear:20,
# allreduce,bcast, up to 64K, --k-max 8.  Uses $HYT_BUILD (or build/).
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$HYT_TOP" || exit 1
. bench/lib.sh

out=out/tune-arrival plat=platforms/dragonfly-64.xml nodes=16 ppn=4 pattern=linear:20
colls=allreduce,bcast maxb=64K kmax=8
while getopts o:p:n:q:a:c:m:k:h opt; do
    case $opt in
    o) out=$OPTARG ;; p) plat=$OPTARG ;; n) nodes=$OPTARG ;; q) ppn=$OPTARG ;;
    a) pattern=$OPTARG ;; c) colls=$OPTARG ;; m) maxb=$OPTARG ;; k) kmax=$OPTARG ;;
    *) sed -n '2,19p' "$0" >&2; exit 2 ;;
    esac
done
B=$(hyt_build_dir)
[ -f "$plat" ] || die "no platform file $plat"
mkdir -p "$out"
hostfile "$nodes" "$ppn" >"$out/hosts"
tune() { # tune LOG ARGS...: one hytune-smpi run over the whole job
    _log=$1
    shift
    smpi_run $((nodes * ppn)) "$plat" "$out/hosts" "$B/bin/hytune-smpi" tune --shapes job \
        --coll "$colls" --max-bytes "$maxb" --k-max "$kmax" --timeout 1e9 "$@" 2>"$_log" ||
        die "hytune-smpi tune $* failed, see $_log"
    tail -n 1 "$_log" >&2
}
for a in sync "$pattern"; do
    if [ ! -s "$out/$a.csv" ]; then
        progress "exhaustive sweep, arrival $a"
        tune "$out/sweep-$a.log" --exhaustive --arrival "$a" --dump "$out/$a.csv.tmp" \
            -o "$out/exhaustive-$a.json"
        mv "$out/$a.csv.tmp" "$out/$a.csv"
    fi
    progress "tuner, arrival $a"
    tune "$out/tune-$a.log" --arrival "$a" -o "$out/t-$a.json"
done
echo "# $nodes x $ppn on $(basename "$plat"), $colls up to $maxb, k <= $kmax; table tuned with ... scored against the sweep with ..."
for t in sync "$pattern"; do
    for o in sync "$pattern"; do
        "$B/bin/hytune" tune --oracle "$out/$o.csv" --coll "$colls" --score "$out/t-$t.json" |
            sed "s/^/table $t, sweep $o: /"
    done
done | tee "$out/scores.txt"
