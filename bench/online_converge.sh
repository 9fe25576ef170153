#!/bin/sh
# Hybrid-mode radix tuning vs the best-k oracle, under SimGrid.
#   sh bench/online_converge.sh [-o DIR] [CALLS] [SCALES]
# CALLS: calls per key in the hybrid and oracle loops (default 1000);
#   CALLS:PART also gives both totals over the first PART calls (read inside
#   the same loops), e.g. 10000:1000.
# ONLINE_CASES: cases "collective algorithm bytes...", one per line or
#   separated by "/" (default: see below).
# SCALES: "RANKS:PLATFORM:PPN ..." (default "64:fattree-64:8 256:fattree-64:4").
# -o DIR: keep the CSV (DIR/converge.csv), the summary (DIR/summary.txt), the
#   statistics reports with every key's probe sequence (DIR/stats-P-PLATFORM-COLL-ALG)
#   and the wall time of every simulation (DIR/wall.csv).
# For every (collective, radix algorithm, size) key the driver
# (bench/online_driver.c) sweeps k, then runs CALLS calls at the best k
# (oracle) and CALLS calls in hybrid mode starting from a table k = k_min
# (a cold start: the worst case for the climb).  Prints the CSV rows and a
# summary per scale: keys, settled, max and mean calls after hot, keys whose
# settled k is within 3% of the sweep's best, and total hybrid time over
# total oracle time.  Deterministic (simulate-computation:no); the online
# component's CPU time is therefore not charged here (see online_cost.sh).
# SMPI_EXTRA (default --cfg=smpi/coll-selector:mpich) is passed to smpirun;
# other HYTUNE_* variables (HYTUNE_HOT_CALLS, ...) reach the runs unchanged.
# ONLINE_SWEEP_CALLS (default 30): calls per swept k for Bcast and Reduce, whose
#   back-to-back calls pipeline; e.g. the loop length to sweep the loop itself.
set -u
. bench/lib.sh
outdir=
if [ "${1:-}" = "-o" ]; then
    outdir=${2:?"-o needs a folder"}
    shift 2
fi
calls=${1:-1000}
scales=${2:-"64:fattree-64:8 256:fattree-64:4"}
SMPI_EXTRA=${SMPI_EXTRA:-"--cfg=smpi/coll-selector:mpich"}
B=$(hyt_build_dir)
drv=$B/bench/online_driver
mkdir -p "$B/bench"
"$B/bin/hytune-smpicc" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I. $(pkg-config --cflags json-c 2>/dev/null) \
    bench/online_driver.c -o "$drv" 2>&1 | grep -v PRETEND_CC >&2
[ -x "$drv" ] || die "cannot build $drv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
keep=${outdir:-$tmp}
mkdir -p "$keep" || die "cannot create $keep"
echo "p,platform,coll,alg,wall_s" >"$keep/wall.csv"

# collective algorithm sizes... (ONLINE_CASES overrides, same format)
cases=${ONLINE_CASES:-"allreduce knomial 8 1024 65536
allreduce recmult 8 1024 65536
allreduce kring 4096 16384
bcast knomial 8 1024 65536
bcast kring 16384 65536
allgather recmult 8 1024
allgather kring 1024 16384
reduce knomial 8 1024 65536"}
cases=$(printf '%s\n' "$cases" | tr '/' '\n')

{
echo "p,coll,alg,bytes,start_k,best_k,best_us,settled_k,settled_us,gap_pct,calls_after_hot,probing_calls,hybrid_us,oracle_us,overhead_pct,part_calls,hybrid_part_us,oracle_part_us,overhead_part_pct,platform"
for sc in $scales; do
    np=${sc%%:*} rest=${sc#*:}
    pname=${rest%%:*}
    plat=platforms/$pname.xml ppn=${rest#*:}
    hostfile $((np / ppn)) "$ppn" >"$tmp/hf"
    echo "$cases" | while read -r coll alg sizes; do
        [ -n "$coll" ] || continue
        kmin=$("$B/bin/hytune" list "$coll" | awk -v a="$alg" '$2 == a { split($3, r, "\\."); print r[1] }')
        [ -n "$kmin" ] || { progress "skip $coll $alg: not in the registry"; continue; }
        printf '{"format": 1, "platform": {"nodes": %d, "ppn": %d, "mpi": "SimGrid"},\n "collectives": {"%s": [{"rules": [{"algorithm": "%s", "k": %d}]}]}}\n' \
            $((np / ppn)) "$ppn" "$coll" "$alg" "$kmin" >"$tmp/table.json"
        progress "$np ranks ($pname, ppn $ppn): $coll $alg $sizes"
        t0=$(date +%s)
        # shellcheck disable=SC2086
        HYTUNE_STATS=$keep/stats-$np-$pname-$coll-$alg HYTUNE_TABLE=$tmp/table.json \
            smpi_run "$np" "$plat" "$tmp/hf" "$drv" "$coll" "$alg" "$calls" $sizes |
            awk -v p="$pname" '/^[0-9]+,/ { print $0 "," p; next } { print > "/dev/stderr" }'   # rows only
        echo "$np,$pname,$coll,$alg,$(($(date +%s) - t0))" >>"$keep/wall.csv"
    done
done
} | tee "$keep/converge.csv"

{
    echo
    echo "summary (calls per key: $calls)"
    awk -F, '$1 ~ /^[0-9]+$/ {
        p = $1 " " $20; n[p]++; if ($8 > 0) s[p]++
        if ($11 > mx[p]) mx[p] = $11; sum[p] += $11
        if ($8 > 0 && $10 <= 3.0) ok[p]++   # settled, and near the best
        hy[p] += $13; or[p] += $14
        if ($16 != "") { part[p] = $16; hyp[p] += $17; orp[p] += $18 }
    } END {
        for (p in n) {
            printf "p=%s: %d keys, %d settled, calls after hot max %d mean %.1f, settled within 3%% of best: %d/%d (%.0f%%), hybrid/oracle total time %.4f (overhead %.2f%%)",
                p, n[p], s[p], mx[p], sum[p] / n[p], ok[p], n[p], 100 * ok[p] / n[p], hy[p] / or[p], 100 * (hy[p] / or[p] - 1)
            if (p in part)
                printf "; over the first %d calls %.4f (overhead %.2f%%)", part[p], hyp[p] / orp[p], 100 * (hyp[p] / orp[p] - 1)
            printf "\n"
        }
    }' "$keep/converge.csv"
} | tee "$keep/summary.txt"
