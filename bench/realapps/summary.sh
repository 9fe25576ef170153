#!/bin/sh
# The real-application table and plot from runs of bench/realapps/run.sh.
#
# usage: sh bench/realapps/summary.sh [-o PLOT.png] [-t TITLE] RUNS...
#        sh bench/realapps/summary.sh -u TABLE.csv OUTDIR...
#   RUNS     output folders of bench/realapps/run.sh (their speedup.csv), or
#            files in that format (docs/data/realapps.csv: the rows README's
#            table and plot show)
#   -o       also draw the speedups as a PNG (gnuplot, bench/plot/apps.gp)
#   -u       put the rows of OUTDIRs' speedup.csv into TABLE.csv, each
#            replacing the row of the same platform, ranks, application and
#            input in its place (a row of a new key goes at the end; written
#            atomically), then summarize TABLE.csv
# Prints one Markdown row per application, platform and rank count: the
# speedup of the whole run's communication time (simulated, computation off)
# over MPICH's selection, offline and hybrid, the tuning time (simulated s)
# and the break-even (runs of this length that repay the tuning), then the
# geometric means over the rows.
set -u
HYT_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$HYT_TOP/bench/lib.sh"

png='' title='real applications: speedup of the communication time over the MPICH selection'
update=''
while getopts o:t:u: opt; do
    case $opt in
    o) png=$OPTARG ;; t) title=$OPTARG ;; u) update=$OPTARG ;;
    *) die "usage: see the comment at the top of bench/realapps/summary.sh" ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || die "give the output folders of bench/realapps/run.sh"
header=platform,ranks,app,input,mpich_s,offline_s,hybrid_s,speedup_offline,speedup_hybrid,tune_s,breakeven_runs_offline
# the speedup.csv of a folder, or a file in its format
runs_csv() {
    f=$1
    [ -d "$f" ] && f=$f/speedup.csv
    [ -s "$f" ] || die "no $f: give output folders of bench/realapps/run.sh or files like docs/data/realapps.csv"
    [ "$(head -n 1 "$f")" = "$header" ] || die "$f: its first line is not '$header'"
    echo "$f"
}
# checked here, in this shell: runs_csv's die inside $(...) below would not stop the script
for d in "$@"; do runs_csv "$d" >/dev/null; done
if [ -n "$update" ]; then
    [ ! -e "$update" ] || [ "$(head -n 1 "$update")" = "$header" ] ||
        die "$update: its first line is not '$header'"
    tmp=$update.tmp.$$ new=$update.new.$$
    # the key is fields 1-4: a replaced row keeps its place, a new one goes at the end
    for d in "$@"; do awk -F, 'NR > 1 && $8 != ""' "$(runs_csv "$d")"; done >"$new" || die "cannot write $new"
    [ -s "$new" ] || { rm -f "$new"; die "no run with both mpich and offline in $*: $update unchanged"; }
    { if [ -e "$update" ]; then cat "$update"; else echo "$header"; fi; } |
        awk -F, 'FNR == NR { k = $1 FS $2 FS $3 FS $4; if (!(k in row)) order[++n] = k; row[k] = $0; next }
            FNR == 1 { print; next }
            { k = $1 FS $2 FS $3 FS $4 } k in row { if (!done[k]++) print row[k]; next } { print }
            END { for (i = 1; i <= n; i++) if (!done[order[i]]) print row[order[i]] }' "$new" - >"$tmp" &&
        mv "$tmp" "$update" || { rm -f "$tmp" "$new"; die "cannot write $update"; }
    rm -f "$new"
    set -- "$update"
fi
rows=$(mktemp) || die "cannot create a temporary file"
trap 'rm -f "$rows"' EXIT
for d in "$@"; do
    awk -F, 'NR > 1 && $8 != ""' "$(runs_csv "$d")" >>"$rows"
done
[ -s "$rows" ] || die "no run with both mpich and offline in $*"
echo "| application | input | platform | ranks | offline | hybrid | tuning (s) | break-even (runs) |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
awk -F, '{ printf "| %s | %s | %s | %s | %.2f | %s | %s | %s |\n", $3, $4, $1, $2, $8,
    ($9 == "" ? "-" : sprintf("%.2f", $9)), ($10 == "" ? "-" : sprintf("%.3f", $10)), $11 }' "$rows"
go=$(cut -d, -f8 "$rows" | geomean)
gh=$(awk -F, '$9 != "" { print $9 }' "$rows" | geomean)
echo "geometric mean: offline $go, hybrid $gh"
if [ -n "$png" ]; then
    command -v gnuplot >/dev/null 2>&1 || die "no gnuplot: install it to draw $png"
    dat=$(mktemp) || die "cannot create a temporary file"
    awk -F, '{ p = $1; sub(/^dragonfly-/, "df", p); sub(/^fattree-/, "ft", p)
        printf "%s-%s-%s %s %s\n", $3, p, $2, $8, ($9 == "" ? 0 : $9) }' "$rows" >"$dat"
    gnuplot -e "datafile='$dat'; outfile='$png'; plottitle='$title'; set xtics rotate by -90" "$HYT_TOP/bench/plot/apps.gp" ||
        { rm -f "$dat"; die "gnuplot failed drawing $png"; }
    rm -f "$dat"
fi
