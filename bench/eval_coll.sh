#!/bin/sh
# Collective latency per message size: MPICH's selection vs hytune offline
# (a table) vs hytune hybrid (the table + online radix tuning), on simulated
# platforms, with bench/apps/collbench (warm-up, barrier before each timed
# call, mean per rank, max over ranks).
#
# usage: sh bench/eval_coll.sh -o OUTDIR [-t TABLE|oracle]
#            [-P "PLATFORM:NODES:PPN ..."] [-c "allreduce allgather bcast reduce"]
#            [-s MIN] [-m MAX] [-x STEP] [-i ITERS] [-w WARMUP] [-k "2 4 8"]
#            [-M "mpich offline hybrid"] [-A]
#   -M         the modes to run (default all three)
#   -A         keep the rows already in OUTDIR/coll.csv (e.g. the MPICH runs of
#              an earlier call with -M mpich); each (configuration, collective,
#              mode) run replaces its own rows
#              (-M "" -A recomputes speedups, plots and the summary lines)
#   -t TABLE   a hytune table (format 1) used for every configuration; the
#              default "oracle" sweeps the registry once per configuration
#              (bench/eval_oracle.sh, same sizes) and uses that oracle table
#   -P         configurations, platform name in platforms/ (default
#              "dragonfly-64:64:1 dragonfly-256:256:1")
#   sizes MIN, MIN*STEP, ... MAX (default 8 .. 1048576, step 2); Allgather
#   skips sizes whose receive buffer exceeds collbench's --max-total.
#   Defaults: 10 timed calls after 20 warm-up calls per size (-i, -w);
#   hybrid mode gets -W more warm-up calls (default 60) so that it becomes
#   hot (HYTUNE_HOT_CALLS=auto: after 54 calls for a key of a format-1
#   table, one algorithm), probes (at most 24 calls) and settles before the
#   timed calls:
#   these numbers are its steady state, its probing cost (calls and us) is
#   in its stats files (stats-*-hybrid), not in these numbers.
# COLLBENCH_ARGS="--max-total 4194304" in the environment is passed to
# collbench (e.g. to cap Allgather buffers; skipped sizes are reported).
# Output in OUTDIR: coll.csv (platform,nodes,ppn,ranks,coll,mode,bytes,
# time_us,verified), speedup.csv, geomean.csv, PLATFORM-NODESxPPN-COLL.png,
# stats-*, and per configuration the oracle sweep.  Prints the speedup per
# size and the geometric mean per collective and mode.
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"

hwarm=60 out='' table=oracle configs="dragonfly-64:64:1 dragonfly-256:256:1"
modes="mpich offline hybrid" append=0
colls="allreduce allgather bcast reduce" minb=8 maxb=1048576 step=2 iters=10 warmup=20 klist="2 4 8"
while getopts o:t:P:c:s:m:x:i:w:W:k:M:A opt; do
    case $opt in
    o) out=$OPTARG ;; t) table=$OPTARG ;; P) configs=$OPTARG ;; c) colls=$OPTARG ;;
    s) minb=$OPTARG ;; m) maxb=$OPTARG ;; x) step=$OPTARG ;; i) iters=$OPTARG ;;
    w) warmup=$OPTARG ;; W) hwarm=$OPTARG ;; k) klist=$OPTARG ;;
    M) modes=$OPTARG ;; A) append=1 ;;
    *) die "usage: see the comment at the top of bench/eval_coll.sh" ;;
    esac
done
[ -n "$out" ] || die "give -o OUTDIR"
[ "$table" = oracle ] || [ -f "$table" ] || die "-t: table \"$table\" not found (or give -t oracle)"
case $table in oracle | /*) ;; *) table=$(pwd)/$table ;; esac
B=$(hyt_build_dir)
bench=$B/bench/apps/collbench
[ -x "$bench" ] || die "no $bench: run \`make B=$B bench-apps\`"
mkdir -p "$out" || die "cannot create $out"
csv=$out/coll.csv
for m in $modes; do
    case $m in mpich | offline | hybrid) ;; *) die "-M: unknown mode \"$m\" (mpich, offline, hybrid)" ;; esac
done
[ $append = 1 ] && [ -f "$csv" ] ||
    echo "platform,nodes,ppn,ranks,coll,mode,bytes,time_us,verified" | write_atomic "$csv"
export SMPI_EXTRA="--cfg=smpi/coll-selector:mpich"

run_mode() { # PLATFORM HOSTFILE NP COLL MODE TABLE STATS
    case $5 in
    mpich) set -- "$@" HYTUNE_MODE=off ;;
    offline) set -- "$@" HYTUNE_MODE=offline "HYTUNE_TABLE=$6" "HYTUNE_STATS=$7" ;;
    hybrid) set -- "$@" HYTUNE_MODE=hybrid "HYTUNE_TABLE=$6" "HYTUNE_STATS=$7" ;;
    esac
    _p=$1 _hf=$2 _np=$3 _c=$4 _w=$warmup
    [ "$5" = hybrid ] && _w=$((warmup + hwarm))
    shift 7
    env "$@" sh -c '. "$0"/bench/lib.sh; shift; smpi_run "$@"' "$HYT_TOP" - "$_np" "$_p" "$_hf" \
        "$bench" --coll "$_c" --min-bytes "$minb" --max-bytes "$maxb" --step "$step" \
        --iters "$iters" --warmup "$_w" ${COLLBENCH_ARGS:-}
}

for cfg in $configs; do
    pname=${cfg%%:*} rest=${cfg#*:}
    nodes=${rest%%:*} ppn=${rest#*:}
    plat=$HYT_TOP/platforms/$pname.xml
    [ -f "$plat" ] || die "configuration $cfg: no platforms/$pname.xml"
    np=$((nodes * ppn))
    hf=$out/hostfile-$nodes-$ppn
    hostfile "$nodes" "$ppn" | write_atomic "$hf"
    t=$table
    case " $modes " in *" offline "* | *" hybrid "*) ;; *) t=none ;; esac
    if [ "$t" = oracle ]; then
        progress "coll: $cfg: oracle sweep"
        sh "$HYT_TOP/bench/eval_oracle.sh" -p "$plat" -n "$nodes" -q "$ppn" -o "$out/oracle-$pname-$nodes-$ppn" \
            -c "$colls" -s "$minb" -m "$maxb" -x "$step" -k "$klist" -i "$iters" -w 2 \
            >"$out/oracle-$pname-$nodes-$ppn.txt" || die "oracle sweep failed for $cfg"
        t=$out/oracle-$pname-$nodes-$ppn/oracle-table.json
    fi
    for coll in $colls; do
        for mode in $modes; do
            progress "coll: $cfg: $coll ($mode)"
            awk -F, -v p="$pname" -v n="$nodes" -v q="$ppn" -v c="$coll" -v m="$mode" \
                '!($1 == p && $2 == n && $3 == q && $5 == c && $6 == m)' "$csv" | write_atomic "$csv"
            run_mode "$plat" "$hf" "$np" "$coll" "$mode" "$t" "$out/stats-$pname-$nodes-$ppn-$coll-$mode" \
                2>>"$out/coll.log" | awk -F, -v p="$pname" -v n="$nodes" -v q="$ppn" -v m="$mode" \
                '{ print p "," n "," q "," $3 "," $1 "," m "," $2 "," $4 "," $5 }' >>"$csv"
        done
    done
done
grep -q ',no$' "$csv" && die "some results were wrong (verified=no in $csv)"

# speedup per size (MPICH time / mode time) and geometric means
awk -F, 'NR > 1 { k = $1 FS $2 FS $3 FS $5 FS $7; t[k, $6] = $8; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END { print "platform,nodes,ppn,coll,bytes,mpich_us,offline_us,hybrid_us,speedup_offline,speedup_hybrid"
        for (i = 1; i <= n; i++) { k = order[i]; m = t[k, "mpich"]; o = t[k, "offline"]; h = t[k, "hybrid"]
            if (m > 0 && o > 0) printf "%s,%s,%s,%s,%.4f,%s\n", k, m, o, (h > 0 ? h : ""), m / o,
                (h > 0 ? sprintf("%.4f", m / h) : "") } }' \
    "$csv" | write_atomic "$out/speedup.csv"
awk -F, 'NR > 1 { k = $1 FS $2 FS $3 FS $4; lo[k] += log($9); c[k]++
        if ($10 != "") { lh[k] += log($10); ch[k]++ }
        if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END { print "platform,nodes,ppn,coll,sizes,geomean_speedup_offline,geomean_speedup_hybrid"
        for (i = 1; i <= n; i++) { k = order[i]
            printf "%s,%d,%.4f,%s\n", k, c[k], exp(lo[k] / c[k]), (ch[k] == c[k] ? sprintf("%.4f", exp(lh[k] / c[k])) : "") } }' \
    "$out/speedup.csv" | write_atomic "$out/geomean.csv"

echo "speedup over MPICH's selection (MPICH time / hytune time), per size:"
awk -F, 'NR > 1 { printf "  %-14s %5s x %-3s %-10s %8d B  mpich %10.3f us  offline %10.3f us (x%.3f)", $1, $2, $3, $4, $5, $6, $7, $9
    if ($10 != "") printf "  hybrid %10.3f us (x%.3f)", $8, $10
    print "" }' "$out/speedup.csv"
echo "geometric mean over sizes:"
awk -F, 'NR > 1 { printf "  %-14s %5s x %-3s %-10s offline x%.3f  hybrid %s  (%d sizes)\n", $1, $2, $3, $4, $6, ($7 != "" ? "x" $7 : "(not run)"), $5 }' "$out/geomean.csv"
echo "sizes where hytune is more than 3% slower than MPICH's selection (speedup < 1/1.03):"
awk -F, 'NR > 1 { for (i = 9; i <= 10; i++) if ($i != "" && $i < 1 / 1.03) { n++
        printf "  %-14s %5s x %-3s %-10s %8d B  %s x%.3f\n", $1, $2, $3, $4, $5, (i == 9 ? "offline" : "hybrid"), $i } }
    END { if (!n) print "  none" }' "$out/speedup.csv"

if command -v gnuplot >/dev/null 2>&1; then
    awk -F, 'NR > 1 { print $1 "-" $2 "x" $3 "-" $4 }' "$out/speedup.csv" | sort -u | while read -r key; do
        awk -F, -v key="$key" 'NR > 1 && $1 "-" $2 "x" $3 "-" $4 == key { print $5, $6, $7, ($8 == "" ? "NaN" : $8) }' \
            "$out/speedup.csv" >"$out/$key.dat"
        gnuplot -e "datafile='$out/$key.dat'; outfile='$out/$key.png'; plottitle='$key: latency per size'" \
            "$HYT_TOP/bench/plot/coll.gp" 2>>"$out/gnuplot.log" || echo "eval_coll: gnuplot failed for $key" >&2
    done
fi
echo "eval_coll: results in $out (coll.csv, speedup.csv, geomean.csv, *.png)"
