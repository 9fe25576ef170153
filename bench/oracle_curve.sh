#!/bin/sh
# The tuner's quality as a function of benchmark time, next to random
# sampling, from `hytune tune --oracle` replays (bench/tune_oracle.sh keeps
# them as OUTDIR/curves-SEED.txt).
#   sh bench/oracle_curve.sh [-b "2 5 10 15 20"] [-p OUT.png] CURVES.txt...
# For every budget B (percent of the exhaustive sweep's benchmark cost), per
# collective and for the whole run ("all": every collective given B% of its
# own exhaustive cost, so the run spends B% of the run's; slowdown and
# mistakes averaged over all groups of all collectives):
#   tuner:  its state after its last iteration costing <= B% (after its own
#           stop, the stopped state: "stopped" counts those seeds);
#   random: random sampling's last iteration costing <= B%, only for seeds
#           whose random run reached B% or measured the whole grid (it runs
#           to the tuner's stop cost, or to --random-to).
# Means over seeds of the average slowdown and the share of significant
# mistakes (> 10% slower), and "ok": seeds with slowdown <= 1.03 and
# mistakes <= 5%.  With -p and gnuplot, also a PNG of the "all" curves.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
budgets="2 3 5 7.5 10 12.5 15 20 25 30" png=''
while getopts b:p: opt; do
    case $opt in
    b) budgets=$OPTARG ;; p) png=$OPTARG ;;
    *) echo "usage: sh bench/oracle_curve.sh [-b BUDGETS] [-p OUT.png] CURVES.txt..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "oracle_curve: no replay outputs given (OUTDIR/curves-*.txt of bench/tune_oracle.sh)" >&2; exit 2; }
for f in "$@"; do
    grep -q '^summary [a-z]*:' "$f" || { echo "oracle_curve: $f is not a finished 'hytune tune --oracle' output (no summary line)" >&2; exit 2; }
done
dat=${png:+${png%.png}.dat}
awk -v budgets="$budgets" -v dat="$dat" '
FNR == 1 { nf++ }
/^# [a-z_]+: .* groups,/ {
    c = $2; sub(":", "", c)
    for (i = 3; i < NF; i++) {
        if ($(i + 1) == "groups,") groups[c] = $i
        if ($(i + 1) == "grid") gridn[c] = $i
    }
    if (!(c in seen)) { seen[c] = 1; colls[++nc] = c }
}
$1 == "tuner" || $1 == "random" {
    m = $1; c = $2; cost = $6; sub("%", "", cost)
    key = nf SUBSEP c SUBSEP m
    n = ++rows[key]; rcost[key, n] = cost + 0; rslow[key, n] = $10; rmis[key, n] = $12
    if ($4 >= gridn[c]) done[key] = 1 # the whole grid measured: final at any budget
}
function at(key, b,    i, last) { # last row costing <= b%, 0 if none
    last = 0
    for (i = 1; i <= rows[key]; i++) if (rcost[key, i] <= b + 1e-9) last = i
    return last
}
function fmt(n, s, m, ok) { return n ? sprintf("%7.4f %6.1f%% %3d/%-3d", s / n, 100 * m / n, ok, n) : sprintf("%7s %7s %7s", "-", "-", "-") }
END {
    nb = split(budgets, B, " ")
    nc1 = nc + 1; colls[nc1] = "all"
    printf "# seeds: %d; columns per budget: slowdown, mistakes, ok (<= 1.03 and <= 5%%) / seeds\n", nf
    printf "%-10s %7s | %-23s %8s | %-23s\n", "coll", "budget", "tuner", "stopped", "random"
    for (ci = 1; ci <= nc1; ci++) {
        c = colls[ci]
        for (bi = 1; bi <= nb; bi++) {
            b = B[bi]; tn = ts = tm = tok = st = rn = rs = rm = rok = 0
            for (f = 1; f <= nf; f++) {
                # tuner and random values of seed f at budget b over collective c (or all)
                tg = rg = 0; tsl = tmi = rsl = rmi = 0; tgood = rgood = 1; stop = 1
                for (cj = 1; cj <= nc; cj++) {
                    d = colls[cj]
                    if (c != "all" && d != c) continue
                    kt = f SUBSEP d SUBSEP "tuner"; kr = f SUBSEP d SUBSEP "random"
                    if (!rows[kt]) { tgood = rgood = 0; continue }
                    i = at(kt, b); w = c == "all" ? groups[d] : 1
                    if (i) { tsl += w * rslow[kt, i]; tmi += w * rmis[kt, i]; tg += w } else tgood = 0
                    if (i < rows[kt]) stop = 0
                    j = at(kr, b)
                    if (j && (rcost[kr, rows[kr]] >= b - 1e-9 || done[kr])) { rsl += w * rslow[kr, j]; rmi += w * rmis[kr, j]; rg += w } else rgood = 0
                }
                if (tgood && tg > 0) {
                    tn++; ts += tsl / tg; tm += tmi / tg; st += stop
                    tok += tsl / tg <= 1.03 && tmi / tg <= 0.05
                }
                if (rgood && rg > 0) {
                    rn++; rs += rsl / rg; rm += rmi / rg
                    rok += rsl / rg <= 1.03 && rmi / rg <= 0.05
                }
            }
            printf "%-10s %6g%% | %s %8s | %s\n", c, b, fmt(tn, ts, tm, tok), tn ? st "/" tn : "-", fmt(rn, rs, rm, rok)
            if (dat != "" && c == "all")
                printf "%g %s %s %s %s\n", b, tn ? ts / tn : "NaN", tn ? 100 * tm / tn : "NaN",
                    rn ? rs / rn : "NaN", rn ? 100 * rm / rn : "NaN" > dat
        }
    }
}' "$@"
if [ -n "$png" ]; then
    if command -v gnuplot >/dev/null 2>&1; then
        name=$(basename "$(dirname "$1")")
        gnuplot -e "datafile='$dat'; outfile='$png'; plottitle='$name: tuner vs random sampling, whole run ($# seeds)'" \
            "$top/bench/plot/oracle_curve.gp" || echo "oracle_curve: gnuplot failed" >&2
    else
        echo "oracle_curve: gnuplot not found, data in $dat" >&2
    fi
fi
