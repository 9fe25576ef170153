#!/bin/sh
# The tuner's stop rule on noisy machines: replays of an exhaustive oracle with
# measurement noise (`hytune tune --oracle --oracle-noise`), per noise kind and
# seed, against the aims (stop <= 15% of the exhaustive cost, slowdown <= 1.03,
# mistakes <= 5%) and random sampling at the tuner's cost.
#   sh bench/tune_noise.sh ORACLE.csv [KIND...]
# KIND: an --oracle-noise spec (SIGMA[,outliers=P][,steps=N]) or "exact";
# default: exact 0.05 0.1 0.2 0.05,outliers=0.1 0.05,steps=10.
# Environment: B (build dir, default build), COLLS (allreduce,bcast), SEEDS (1..10),
# OUT (directory for the replays' output; default a temporary one, removed).
# Output: one line per kind:
#   KIND: stop X% (MIN-MAX) slowdown S (worst) mistakes M% (worst) | all three A/N |
#   random at the same cost: slowdown / mistakes / both aims R/N
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
[ $# -ge 1 ] && [ -s "$1" ] || { echo "usage: sh bench/tune_noise.sh ORACLE.csv [KIND...]" >&2; exit 2; }
oracle=$1
shift
[ $# -ge 1 ] || set -- exact 0.05 0.1 0.2 0.05,outliers=0.1 0.05,steps=10
COLLS=${COLLS:-allreduce,bcast} SEEDS=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
tmp=
if [ -z "${OUT:-}" ]; then tmp=$(mktemp -d); OUT=$tmp; fi
mkdir -p "$OUT"
for kind in "$@"; do
    for s in $SEEDS; do
        f=$OUT/$kind-$s.txt
        if [ "$kind" = exact ]; then
            "$B/bin/hytune" tune --oracle "$oracle" --coll "$COLLS" --seed "$s" >"$f"
        else
            "$B/bin/hytune" tune --oracle "$oracle" --coll "$COLLS" --seed "$s" --oracle-noise "$kind" >"$f"
        fi
        grep '^summary run' "$f"
    done |
        # summary run (N collectives, G groups): tuner P points C s (X% of the exhaustive E s)
        #   slowdown S mistakes M% | random P points C s slowdown S mistakes M%
        awk -v kind="$kind" '{
            c = $12; sub(/^\(/, "", c); sub(/%$/, "", c); s = $19; m = $21; sub(/%$/, "", m)
            rs = $29; rm = $31; sub(/%$/, "", rm); c += 0; s += 0; m += 0; rs += 0; rm += 0
            n++; sc += c; ss += s; sm += m; srs += rs; srm += rm
            if (n == 1 || c < cmin) cmin = c; if (n == 1 || c > cmax) cmax = c
            if (s > sw) sw = s; if (m > mw) mw = m
            ok += (c <= 15 && s <= 1.03 && m <= 5); rok += (rs <= 1.03 && rm <= 5)
        } END {
            printf "%s: stop %.1f%% (%.1f-%.1f%%) slowdown %.4f (worst %.4f) mistakes %.1f%% (worst %.1f%%) | all three %d/%d | random at the same cost: %.4f / %.1f%% / %d/%d\n",
                kind, sc / n, cmin, cmax, ss / n, sw, sm / n, mw, ok, n, srs / n, srm / n, rok, n
        }'
done
[ -z "$tmp" ] || rm -rf "$tmp"
