#!/bin/sh
# Drift re-probing under SimGrid when the network's bandwidth changes mid-run.
#   sh bench/online_drift.sh [-o DIR] [COLL ALG BYTES [CALLS [INTERVAL]]]
# Defaults: allgather recmult 2048, 1500 calls, HYTUNE_DRIFT_INTERVAL=auto (the library's default; on the
# default platform its best radix moves from 32 to 16 at the change).
# Platform: platforms/tree-bwstep-64.xml, 64 ranks, one per node (PLATFORM,
# NODES and PPN override); its leaf uplinks drop from 100 GB/s to 12.5 GB/s
# at the time the trace file says (10 ms simulated).  The driver
# (bench/online_drift.c) sweeps k before the change, runs CALLS calls in
# hybrid mode (table: ALG at k_min, a cold start) across the change, then
# sweeps k again on the new bandwidth.  Prints the call of the change, the
# drift window that saw it, the calls where the re-probe started and
# settled, the radix before and after, the best radix of both sweeps and
# the settled radix's gap to the new best.  Writes into DIR (default
# out/online/drift-COLL-ALG-BYTES): sweep.csv (phase,k,us), calls.csv
# (call,t_start_us,us,k,state,reprobes), summary.txt ("name value"),
# drift.csv (the same as one CSV row) and stats (HYTUNE_STATS report).
# SMPI_EXTRA (default --cfg=smpi/coll-selector:mpich) is passed to smpirun.
set -u
. bench/lib.sh
outdir=
if [ "${1:-}" = "-o" ]; then
    outdir=${2:?"-o needs a folder"}
    shift 2
fi
coll=${1:-allgather} alg=${2:-recmult} bytes=${3:-2048}
calls=${4:-1500} interval=${5:-auto}
plat=${PLATFORM:-platforms/tree-bwstep-64.xml}
nodes=${NODES:-64} ppn=${PPN:-1}
np=$((nodes * ppn))
outdir=${outdir:-out/online/drift-$coll-$alg-$bytes}
SMPI_EXTRA=${SMPI_EXTRA:-"--cfg=smpi/coll-selector:mpich"}
B=$(hyt_build_dir)
drv=$B/bench/online_drift
mkdir -p "$B/bench" "$outdir" || die "cannot create $outdir"
"$B/bin/hytune-smpicc" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I. $(pkg-config --cflags json-c 2>/dev/null) \
    bench/online_drift.c -o "$drv" 2>&1 | grep -v PRETEND_CC >&2
[ -x "$drv" ] || die "cannot build $drv"

# the change: the second line of the platform's first bandwidth trace
trace=$(sed -n 's/.*bandwidth_file="\([^"]*\)".*/\1/p' "$plat" | head -n 1)
[ -n "$trace" ] || die "$plat has no bandwidth trace"
t_change=$(awk 'NR == 2 { printf "%.0f", $1 * 1e6 }' "$(dirname "$plat")/$trace")
[ -n "$t_change" ] || die "cannot read the change time from $trace"

kmin=$("$B/bin/hytune" list "$coll" | awk -v a="$alg" '$2 == a { split($3, r, "\\."); print r[1] }')
[ -n "$kmin" ] || die "$coll has no algorithm $alg (see hytune list $coll)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hostfile "$nodes" "$ppn" >"$tmp/hf"
printf '{"format": 1, "platform": {"nodes": %d, "ppn": %d, "mpi": "SimGrid"},\n "collectives": {"%s": [{"rules": [{"algorithm": "%s", "k": %d}]}]}}\n' \
    "$nodes" "$ppn" "$coll" "$alg" "$kmin" >"$tmp/table.json"

progress "$np ranks on $(basename "$plat"): $coll $alg $bytes B, $calls calls, drift interval $interval, change at $t_change us"
t0=$(date +%s)
HYTUNE_DRIFT_INTERVAL=$interval HYTUNE_TABLE=$tmp/table.json HYTUNE_STATS=$outdir/stats \
    smpi_run "$np" "$plat" "$tmp/hf" "$drv" "$coll" "$alg" "$bytes" "$calls" "$t_change" "$outdir" \
    >"$tmp/out" || { cat "$tmp/out" >&2; die "the simulation failed"; }
wall=$(($(date +%s) - t0))
{
    cat "$tmp/out"
    echo "drift_interval $interval"
    echo "wall_s $wall"
} | write_atomic "$outdir/summary.txt"
awk -v coll="$coll" -v alg="$alg" -v bytes="$bytes" -v np="$np" '
    { v[$1] = $2; if ($1 ~ /^best_k_/) us[$1] = $3 }
    END {
        print "p,coll,alg,bytes,drift_interval,change_call,k_before,best_k_before,drift_window_call,reprobe_call,resettled_call,calls_change_to_resettled,k_after,best_k_after,k_after_gap_pct"
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", np, coll, alg, bytes, v["drift_interval"],
            v["change_call"], v["k_before"], v["best_k_before"], v["drift_window_call"], v["reprobe_call"],
            v["resettled_call"], v["calls_change_to_resettled"], v["k_after"], v["best_k_after"], v["k_after_gap_pct"]
    }' "$outdir/summary.txt" | write_atomic "$outdir/drift.csv"

awk '{ v[$1] = $0; sub(/^[^ ]+ /, "", v[$1]) }
END {
    printf "change of bandwidth at %s us: call %s (state before it: %s)\n", v["change_at_us"], v["change_call"], v["state_before_change"]
    printf "before the change: settled k=%s; sweep best k=%s us\n", v["k_before"], v["best_k_before"]
    printf "drift window from call %s, re-probe started at call %s, settled at call %s: %s calls after the change\n",
        v["drift_window_call"], v["reprobe_call"], v["resettled_call"], v["calls_change_to_resettled"]
    printf "after: settled k=%s (%s us on the new bandwidth, %s%% over the best); sweep best k=%s us\n",
        v["k_after"], v["k_after_us_on_new_bandwidth"], v["k_after_gap_pct"], v["best_k_after"]
    if ("warning" in v) print "warning: " v["warning"]
}' "$outdir/summary.txt"
echo "wall time ${wall} s; CSV and the statistics report in $outdir"
