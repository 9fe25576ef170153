#!/bin/sh
# Offline mode (the table's own choice) against hybrid mode choosing among
# the rule's shortlist, on back-to-back loops under SimGrid, next to every
# candidate of the shortlist run fixed (HYTUNE_FORCE_<COLL>, offline).
#
#   sh bench/online_choose.sh [-n NODES] [-q PPN] [-p PLATFORM] [-t TABLE] [-c CALLS]
#                             [-s] [--check] CASE...
#   CASE: COLL:COUNT (MPI_INT elements), COLL one of allreduce, bcast, reduce, allgather
#   -n, -q  nodes and ranks per node (default 4 x 8), block mapping
#   -p      platform (default platforms/cluster-small.xml)
#   -t      table (default test/smpi/online_choose_table.json); none: no table, the
#           built-in shortlist (HYTUNE_BUILTIN_SHORTLIST=on)
#   -c      calls per loop, from a cold start (default 200)
#   -s      arrival skew: before each call a rank computes 0-3 us by rank plus 0-3 us at random
#   -x ARG  pass ARG to test_online_choose (noncomm: a non-commutative user sum)
#   -H      the hybrid run only (no offline and fixed runs): exact results and agreeing ranks
#   --check exit 1 unless, for every case, every run gave exact results with every rank
#           deciding alike (per-rank statistics compared), hybrid chose the fastest fixed
#           candidate (or one within 10% of it when the two are that close; the chosen
#           algorithm at its settled k is run fixed too), and, where the
#           table's own choice is 1.2x the fastest or more, hybrid beat offline
#
# Prints per case one line per fixed candidate and
#   CASE: offline T us/call (ALG), hybrid T us/call (chosen ALG k K, N calls choosing),
#         fastest fixed ALG T us/call: hybrid/offline R
# Times are the loop's simulated time per call (test/smpi/test_online_choose.c), probing
# and choosing included.  Environment: HYT_BUILD (default build/).
set -u
. bench/lib.sh
B=$(hyt_build_dir)
SMPIRUN=$(config_value SMPIRUN)
nodes=4 ppn=8 plat=platforms/cluster-small.xml table=$PWD/test/smpi/online_choose_table.json
calls=200 skew= check=0 only_hybrid=0 extra=
while [ $# -gt 0 ]; do
    case $1 in
    -n) nodes=$2; shift 2 ;;
    -q) ppn=$2; shift 2 ;;
    -p) plat=$2; shift 2 ;;
    -t) table=$2; shift 2 ;;
    -c) calls=$2; shift 2 ;;
    -s) skew=skew; shift ;;
    -H) only_hybrid=1; shift ;;
    -x) extra="$extra $2"; shift 2 ;;
    --check) check=1; shift ;;
    -*) die "unknown option $1 (see the header of $0)" ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || die "no CASE (COLL:COUNT, e.g. allreduce:16384)"
np=$((nodes * ppn))
d=$(mktemp -d /tmp/online-choose.XXXXXX)
trap 'rm -rf "$d"' EXIT
hostfile "$nodes" "$ppn" >"$d/hf"
fail=0

# run NAME ENV... -- COLL COUNT: one loop; its output in $d/NAME.out; the
# summary line must be there (SimGrid ends a deadlock with exit status 0)
run() {
    _name=$1
    shift
    _env=
    while [ "$1" != -- ]; do _env="$_env $1"; shift; done
    shift
    # shellcheck disable=SC2086 # the lists are word-split on purpose
    (if [ "$table" = none ]; then export HYTUNE_BUILTIN_SHORTLIST=on; else export HYTUNE_TABLE="$table"; fi
     [ -z "$_env" ] || export $_env
     smpi_run "$np" "$plat" "$d/hf" "$B/test/smpi/test_online_choose" "$1" "$2" "$calls" $skew $extra) \
        >"$d/$_name.out" 2>&1
    choose_result "$d/$_name.out" "$np" "$_name" $?
}

# fixed CAND NOTE: the loop with CAND (ALG:K, ALG:0 without a radix) forced,
# its time appended to the case's list of fixed times
fixed() {
    _spec=$1
    case $1 in *:0) _spec=${1%:0} ;; esac
    _t=$(run "fixed-$1" HYTUNE_MODE=offline "HYTUNE_FORCE_$C=$_spec" -- "$coll" "$count") ||
        return 1
    echo "  $case fixed $1$2: $_t us/call"
    echo "$1 $_t" >>"$d/fixed-$coll-$count"
}

# fastest: best, t_best and second from the case's fixed times
fastest() {
    set -- $(sort -g -k2 "$d/fixed-$coll-$count" | awk 'NR <= 2 { printf "%s %s ", $1, $2 }')
    best=${1:-} t_best=${2:-} second=${4:-}
}

for case in "$@"; do
    coll=${case%%:*} count=${case#*:}
    C=$(echo "$coll" | tr a-z A-Z)
    if [ $only_hybrid = 1 ]; then
        rm -f "$d"/stats.*
        t_hyb=$(run hybrid HYTUNE_MODE=hybrid "HYTUNE_STATS=$d/stats.%r" -- "$coll" "$count") ||
            { fail=1; continue; }
        "$B/test/unit/test_online_statscmp" "$d"/stats.*.json >"$d/cmp.out" 2>&1 ||
            { echo "$case: the ranks' online records differ:"; cat "$d/cmp.out"; fail=1; }
        echo "$case: hybrid $t_hyb us/call, $(sed -n 's/^online: //p' "$d/hybrid.out")"
        continue
    fi
    t_off=$(run off HYTUNE_MODE=offline -- "$coll" "$count") || { fail=1; continue; }
    cands=$(sed -n 's/^shortlist //p' "$d/off.out")
    [ -n "$cands" ] || { echo "$case: the table has no rule for $coll"; fail=1; continue; }
    own=${cands%% *}
    best= t_best= second=
    for c in $cands; do
        fixed "$c" "" || fail=1
    done
    fastest
    rm -f "$d"/stats.*
    t_hyb=$(run hybrid HYTUNE_MODE=hybrid "HYTUNE_STATS=$d/stats.%r" -- "$coll" "$count") ||
        { fail=1; continue; }
    "$B/test/unit/test_online_statscmp" "$d"/stats.*.json >"$d/cmp.out" 2>&1 ||
        { echo "$case: the ranks' online records differ:"; cat "$d/cmp.out"; fail=1; }
    chosen=$(sed -n 's/^online: chosen \([^,]*\), settled k \([0-9-]*\),.* \([0-9]*\) calls choosing.*/\1 \2 \3/p' "$d/hybrid.out")
    set -- $chosen
    alg=${1:--} k=${2:--} nchoose=${3:--}
    # --check: the fixed time of the chosen algorithm at its settled k (a
    # radix the shortlist does not name is run fixed too, and joins the
    # comparison)
    ck=$alg:$k
    [ "$k" = - ] && ck=$alg:0
    if [ $check = 1 ] && ! awk -v c="$ck" '$1 == c { f = 1 } END { exit !f }' "$d/fixed-$coll-$count"; then
        fixed "$ck" " (settled)" || { fail=1; continue; }
        fastest
    fi
    echo "$case: offline $t_off us/call ($own), hybrid $t_hyb us/call (chosen $alg k $k, $nchoose calls choosing), fastest fixed $best $t_best us/call: hybrid/offline $(awk -v a="$t_hyb" -v b="$t_off" 'BEGIN { printf "%.3f", a / b }')"
    [ $check = 1 ] || continue
    t_alg=$(awk -v c="$ck" '$1 == c { print $2 }' "$d/fixed-$coll-$count")
    awk -v ta="${t_alg:-1e300}" -v tb="$t_best" -v t2="${second:-1e300}" -v a="$alg" -v b="${best%%:*}" '
        BEGIN { clear = t2 >= 1.1 * tb
                ok = clear ? a == b : ta <= 1.1 * tb
                exit !ok }' ||
        { echo "$case: hybrid chose $alg ($t_alg us/call fixed), the fastest fixed is $best ($t_best us/call)"; fail=1; }
    t_own=$(awk -v c="$own" '$1 == c { print $2 }' "$d/fixed-$coll-$count")
    awk -v o="$t_own" -v tb="$t_best" -v h="$t_hyb" -v f="$t_off" 'BEGIN { exit !(o < 1.2 * tb || h < f) }' ||
        { echo "$case: hybrid ($t_hyb us/call) did not beat offline ($t_off us/call)"; fail=1; }
done
exit $fail
