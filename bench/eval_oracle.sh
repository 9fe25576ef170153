#!/bin/sh
# Oracle table: an exhaustive sweep of the registry's candidates, measured
# with bench/apps/collbench on a simulated platform, and the best candidate
# per measured size written as a hytune table (format 1).  It is the
# "oracle" of the evaluation (best measured choice), not the tuner: the
# table says so in its "generator" member, and `hytune tune` replaces it
# once it exists.
#
# usage: sh bench/eval_oracle.sh -p PLATFORM.xml -n NODES -q PPN -o OUTDIR
#            [-c "allreduce bcast ..."] [-s MIN_BYTES] [-m MAX_BYTES] [-x STEP]
#            [-k "2 4 8"] [-i ITERS] [-w WARMUP]
#   -c   collectives (default: allreduce allgather bcast reduce)
#   -s/-m/-x  sizes MIN, MIN*STEP, ... up to MAX (default 8, 1048576, 4);
#        RANGE_<coll>=MIN:MAX in the environment overrides per collective
#   -k   radix values tried for every algorithm with a radix (filtered by
#        its k range from `hytune list`; k_min is always tried)
# Candidates: every `hytune list` row of the collective; "native" runs with
# HYTUNE_MODE=off, the others with HYTUNE_FORCE_<COLL>=name:k.  All runs use
# --cfg=smpi/coll-selector:mpich, so "native" is SimGrid's MPICH selection.
# COLLBENCH_ARGS="--max-total 4194304" in the environment is passed to
# collbench (e.g. to cap Allgather buffers; skipped sizes are reported).
# A candidate whose run fails or gives a wrong result is reported and left
# out of the table.  ORACLE_EXCLUDE="kring:1 ..." in the environment skips
# candidates (say so in results: ring at 1 MiB and 256+ ranks takes minutes
# of wall time per call to simulate).
# Output in OUTDIR: oracle-sweep.csv (platform,nodes,ppn,coll,candidate,
# bytes,ranks,time_us,verified), oracle-table.json, oracle.log.
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"

plat='' nodes='' ppn='' out='' colls="allreduce allgather bcast reduce"
minb=8 maxb=1048576 step=4 klist="2 4 8" iters=5 warmup=2
while getopts p:n:q:o:c:s:m:x:k:i:w: opt; do
    case $opt in
    p) plat=$OPTARG ;; n) nodes=$OPTARG ;; q) ppn=$OPTARG ;; o) out=$OPTARG ;;
    c) colls=$OPTARG ;; s) minb=$OPTARG ;; m) maxb=$OPTARG ;; x) step=$OPTARG ;;
    k) klist=$OPTARG ;; i) iters=$OPTARG ;; w) warmup=$OPTARG ;;
    *) die "usage: see the comment at the top of bench/eval_oracle.sh" ;;
    esac
done
[ -f "$plat" ] || die "-p: platform file \"$plat\" not found (see platforms/)"
[ -n "$nodes" ] && [ -n "$ppn" ] && [ -n "$out" ] || die "give -n NODES -q PPN -o OUTDIR"
B=$(hyt_build_dir)
bench=$B/bench/apps/collbench
[ -x "$bench" ] || die "no $bench: run \`make B=$B bench-apps\`"
mkdir -p "$out" || die "cannot create $out"
hf=$out/hostfile-$nodes-$ppn
hostfile "$nodes" "$ppn" | write_atomic "$hf"
np=$((nodes * ppn))
pname=$(basename "$plat" .xml)
csv=$out/oracle-sweep.csv
echo "platform,nodes,ppn,coll,candidate,bytes,ranks,time_us,verified" | write_atomic "$csv"
export SMPI_EXTRA="--cfg=smpi/coll-selector:mpich"

# Candidates of one collective, one per line: "native", "name" or "name:k".
candidates() {
    "$B/bin/hytune" list "$1" 2>/dev/null | awk -v c="$1" -v np="$np" -v klist="$klist" '
    $1 == c {
        if ($3 == "-") { print $2; next }
        split($3, r, "\\.\\."); kmin = r[1] + 0; kmax = (r[2] == "p") ? np : r[2] + 0
        n = split(klist, ks, " "); seen[kmin] = 1; print $2 ":" kmin
        for (i = 1; i <= n; i++) if (ks[i] + 0 > kmin && ks[i] + 0 <= kmax && !seen[ks[i]]++) print $2 ":" ks[i]
        delete seen
    }'
}

# range COLL: "MIN MAX" (RANGE_<coll>=MIN:MAX overrides -s/-m).
range() {
    eval "_r=\${RANGE_$1:-}"
    if [ -n "$_r" ]; then echo "${_r%%:*} ${_r##*:}"; else echo "$minb $maxb"; fi
}

# Run collbench over the sizes MIN, MIN*step, ... for one candidate.
run_candidate() {
    _coll=$1 _cand=$2 _min=$3 _max=$4
    _upper=$(echo "$_coll" | tr a-z A-Z)
    if [ "$_cand" = native ]; then
        set -- HYTUNE_MODE=off
    else
        set -- HYTUNE_MODE=offline "HYTUNE_FORCE_$_upper=$_cand"
    fi
    env "$@" sh -c '. "$0"/bench/lib.sh; shift; smpi_run "$@"' "$HYT_TOP" - "$np" "$plat" "$hf" \
        "$bench" --coll "$_coll" --min-bytes "$_min" --max-bytes "$_max" --step "$step" \
        --iters "$iters" --warmup "$warmup" ${COLLBENCH_ARGS:-} 2>>"$out/oracle.log"
}

bad=0
for coll in $colls; do
    # shellcheck disable=SC2046 # word lists on purpose
    set -- $(range "$coll")
    for cand in $(candidates "$coll"); do
        case " ${ORACLE_EXCLUDE:-} " in *" $cand "*)
            echo "oracle: $coll $cand skipped (ORACLE_EXCLUDE)" >&2
            continue ;;
        esac
        progress "oracle: $pname $nodes x $ppn: $coll $cand ($1..$2 B)"
        res=$(run_candidate "$coll" "$cand" "$1" "$2")
        rc=$?
        if [ $rc -ne 0 ] || [ -z "$res" ] || echo "$res" | grep -q ',no$'; then
            echo "oracle: $coll $cand FAILED (exit $rc or wrong result); left out of the table, see $out/oracle.log" >&2
            bad=$((bad + 1))
            continue
        fi
        echo "$res" | awk -F, -v p="$pname" -v n="$nodes" -v q="$ppn" -v cand="$cand" \
            '{ print p "," n "," q "," $1 "," cand "," $2 "," $3 "," $4 "," $5 }' >>"$csv"
    done
done

# Best candidate per (collective, size) -> rules; equal times prefer native.
awk -F, -v p="$pname" -v n="$nodes" -v q="$ppn" '
NR > 1 && $9 == "yes" {
    key = $4 SUBSEP $6
    if (!(key in best) || $8 < best[key] - 1e-9 || ($8 <= best[key] + 1e-9 && $5 == "native")) {
        best[key] = $8; choice[key] = $5
    }
    if (!($4 in seen)) { seen[$4] = 1; order[++nc] = $4 }
    sizes[$4, $6] = 1
}
END {
    printf "{\n  \"format\": 1,\n  \"generator\": \"bench/eval_oracle.sh: oracle table (exhaustive sweep, best measured candidate per size), not hytune tune\",\n"
    printf "  \"platform\": {\"nodes\": %d, \"ppn\": %d, \"mpi\": \"SimGrid SMPI 3.32 (mpich selector), %s\"},\n", n, q, p
    printf "  \"collectives\": {"
    for (c = 1; c <= nc; c++) {
        coll = order[c]; m = 0
        for (k in sizes) { split(k, kk, SUBSEP); if (kk[1] == coll) bs[++m] = kk[2] + 0 }
        for (i = 2; i <= m; i++) { v = bs[i]; for (j = i - 1; j >= 1 && bs[j] > v; j--) bs[j + 1] = bs[j]; bs[j + 1] = v }
        printf "%s\n    \"%s\": [{\"rules\": [", (c > 1 ? "," : ""), coll
        nr = 0
        for (i = 1; i <= m; i++) {
            ch = choice[coll, bs[i]]
            if (i < m && choice[coll, bs[i + 1]] == ch) continue  # merged into the next rule
            split(ch, a, ":")
            printf "%s\n      {", (nr++ ? "," : "")
            if (i < m) printf "\"bytes_max\": %d, ", bs[i]
            printf "\"algorithm\": \"%s\"", a[1]
            if (a[2] != "") printf ", \"k\": %d", a[2]
            printf ", \"predicted_us\": %.3f}", best[coll, bs[i]]
        }
        printf "\n    ]}]"
        delete bs
    }
    printf "\n  }\n}\n"
}' "$csv" | write_atomic "$out/oracle-table.json"

echo "oracle: best candidate per size ($pname, $nodes nodes x $ppn ppn):"
awk -F, 'NR > 1 && $9 == "yes" { k = $4 " " $6; if (!(k in b) || $8 < b[k]) { b[k] = $8; c[k] = $5 }
    if ($5 == "native") nat[k] = $8 }
    END { for (k in b) printf "  %-10s %8d B  %-18s %10.3f us  (native %.3f us)\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), c[k], b[k], nat[k] }' "$csv" | sort -k1,1 -k2,2n
echo "oracle: table $out/oracle-table.json, sweep $csv"
[ $bad -eq 0 ] || echo "oracle: $bad candidate(s) failed; see above" >&2
exit 0
