#!/bin/sh
# Proxy applications per selection mode on a simulated platform.
#
# usage: sh bench/eval_apps.sh -p PLATFORM.xml -n NODES -q PPN -t TABLE -o OUTDIR
#            [-a "cg particles fft qchem"] [-M "mpich offline hybrid"] [-A "APP ARGS"]
# Modes (every run uses --cfg=smpi/coll-selector:mpich):
#   mpich    HYTUNE_MODE=off: SimGrid's MPICH selection, the baseline
#   offline  HYTUNE_MODE=offline HYTUNE_TABLE=TABLE
#   hybrid   HYTUNE_MODE=hybrid  HYTUNE_TABLE=TABLE (radix tuned online)
# -A passes extra arguments to every application (e.g. "--iters 20" is not
# common to all: prefer APPARGS_<app>="..." in the environment).
# Each run must print "verified yes" (the applications check their results);
# a failed verification stops the script with exit 1.
# Output in OUTDIR: apps.csv (platform,nodes,ppn,ranks,app,mode,time_s,
# verified,wall_s,choices), stats-APP-MODE (hytune's report) and .json,
# apps-speedup.csv, apps.png.
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"

plat='' nodes='' ppn='' table='' out='' apps="cg particles fft qchem" modes="mpich offline hybrid"
while getopts p:n:q:t:o:a:M: opt; do
    case $opt in
    p) plat=$OPTARG ;; n) nodes=$OPTARG ;; q) ppn=$OPTARG ;; t) table=$OPTARG ;;
    o) out=$OPTARG ;; a) apps=$OPTARG ;; M) modes=$OPTARG ;;
    *) die "usage: see the comment at the top of bench/eval_apps.sh" ;;
    esac
done
[ -f "$plat" ] || die "-p: platform file \"$plat\" not found (see platforms/)"
[ -n "$nodes" ] && [ -n "$ppn" ] && [ -n "$out" ] || die "give -n NODES -q PPN -o OUTDIR"
case " $modes " in *" offline "* | *" hybrid "*)
    [ -f "$table" ] || die "-t: table \"$table\" not found; make one with \`hytune tune\` or bench/eval_oracle.sh" ;;
esac
B=$(hyt_build_dir)
mkdir -p "$out" || die "cannot create $out"
hf=$out/hostfile-$nodes-$ppn
hostfile "$nodes" "$ppn" | write_atomic "$hf"
np=$((nodes * ppn))
pname=$(basename "$plat" .xml)
csv=$out/apps.csv
[ -f "$csv" ] || echo "platform,nodes,ppn,ranks,app,mode,time_s,verified,wall_s,choices" | write_atomic "$csv"
export SMPI_EXTRA="--cfg=smpi/coll-selector:mpich"
case $table in /*) ;; ?*) table=$(pwd)/$table ;; esac

for app in $apps; do
    exe=$B/bench/apps/$app
    [ -x "$exe" ] || die "no $exe: run \`make B=$B bench-apps\`"
    args=""
    eval "args=\${APPARGS_$app:-}"
    for mode in $modes; do
        stats=$out/stats-$app-$mode
        case $mode in
        mpich) set -- HYTUNE_MODE=off ;;
        offline) set -- HYTUNE_MODE=offline "HYTUNE_TABLE=$table" "HYTUNE_STATS=$stats" ;;
        hybrid) set -- HYTUNE_MODE=hybrid "HYTUNE_TABLE=$table" "HYTUNE_STATS=$stats" ;;
        *) die "unknown mode \"$mode\" (valid: mpich offline hybrid)" ;;
        esac
        progress "apps: $pname $nodes x $ppn: $app ($mode)"
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086 # args is a word list
        line=$(env "$@" sh -c '. "$0"/bench/lib.sh; shift; smpi_run "$@"' "$HYT_TOP" - "$np" \
            "$plat" "$hf" "$exe" $args 2>"$out/log-$app-$mode" | grep "^APP $app ")
        wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
        echo "$line" | grep -q "verified yes" ||
            die "$app ($mode) did not verify its result: \"$line\"; see $out/log-$app-$mode"
        t=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($i == "time_s") print $(i + 1) }')
        ch=-
        [ "$mode" = mpich ] || ch=$(stats_choices "$stats")
        echo "$pname,$nodes,$ppn,$np,$app,$mode,$t,yes,$(printf %.1f "$wall"),\"$ch\"" >>"$csv"
        printf '  %-10s %-8s %12.6f s simulated  (%s s wall)  %s\n' "$app" "$mode" "$t" \
            "$(printf %.1f "$wall")" "$ch"
    done
done

# Speedup over the mpich baseline per application and mode.
awk -F, 'NR > 1 { t[$1 FS $2 FS $3 FS $5, $6] = $7; if (!(($1 FS $2 FS $3 FS $5) in seen)) { seen[$1 FS $2 FS $3 FS $5] = 1; order[++n] = $1 FS $2 FS $3 FS $5 } }
    END { print "platform,nodes,ppn,app,mpich_s,offline_s,hybrid_s,speedup_offline,speedup_hybrid"
        for (i = 1; i <= n; i++) { k = order[i]; m = t[k, "mpich"]; o = t[k, "offline"]; h = t[k, "hybrid"]
            printf "%s,%s,%s,%s,%s,%s\n", k, m, o, h, (m && o ? sprintf("%.4f", m / o) : ""), (m && h ? sprintf("%.4f", m / h) : "") } }' \
    "$csv" | write_atomic "$out/apps-speedup.csv"
if command -v gnuplot >/dev/null 2>&1; then
    awk -F, 'NR > 1 && $8 != "" { print $4, ($8 == "" ? 1 : $8), ($9 == "" ? 1 : $9) }' "$out/apps-speedup.csv" \
        >"$out/apps-speedup.dat"
    gnuplot -e "datafile='$out/apps-speedup.dat'; outfile='$out/apps.png'; plottitle='proxy applications, $pname $nodes x $ppn: speedup over MPICH selection'" \
        "$HYT_TOP/bench/plot/apps.gp" 2>>"$out/gnuplot.log" || echo "eval_apps: gnuplot failed, see $out/gnuplot.log" >&2
fi
echo "eval_apps: results in $csv, $out/apps-speedup.csv"
