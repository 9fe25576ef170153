#!/bin/sh
# The online choice at scale: for each loop (platform and ranks, collective
# and size, arrival pattern), hybrid mode choosing among the table's
# shortlist against the best fixed candidate of a sweep on the same loop,
# with offline mode (the table alone) and radix-only hybrid mode (the same
# table without its shortlists) beside it.
#
#   sh bench/online_choose_scale.sh -o OUTDIR [-c CALLS] [-a ARRIVALS] [-s CALLS]
#        [-t SECONDS] [-A] CONFIG...
#   CONFIG   PLATFORM:NODES:PPN:TABLE (platforms/PLATFORM.xml, block mapping), e.g.
#            dragonfly-64:64:1:out/t.json
#   -c       calls per loop, from a cold start (default 1000)
#   -a       arrival patterns (default "b2b linear:25 random:25"): b2b (back to back),
#            linear:US (rank r of p US*r/(p-1) late before every call), random:US
#            (each rank up to US late, seeded)
#   -s       calls of each fixed run (offline, the sweep; default: -c): a run of
#            fewer calls is extrapolated to -c calls from its first call, its
#            time per call after it and the closing barrier (a fixed run is
#            periodic after its first call; radix-only and hybrid runs are
#            always -c calls long)
#   -t       wall-time limit of one run in seconds (default 0: none); a sweep run
#            over it, or one that fails, is written to sweep.csv as "unfinished"
#            and to the loop's sweep_unfinished field, never dropped
#   -A       sweep every algorithm of the collective (`hytune list`), not only
#            those of the loop's shortlist
#   -l       overhead mode: instead of the sweep, per loop write a table whose rule
#            is the sweep's best fixed candidate (read from OUTDIR/loops.csv, with the
#            rest of its shortlist) and compare offline and hybrid on it
# Cases: SCALE_CASES (default "allreduce:2 allreduce:256 allreduce:16384
# allreduce:262144 bcast:2 bcast:256 bcast:16384 bcast:262144 reduce:2 reduce:256
# reduce:16384 reduce:262144 allgather:2 allgather:256 allgather:16384"), COLL:COUNT
# in MPI_INT elements (8 B, 1 KiB, 64 KiB, 1 MiB; Allgather's count is the block of
# one rank).
#
# The sweep runs every algorithm of the loop's shortlist (-A: of the collective), fixed for the whole
# loop (HYTUNE_FORCE_<COLL>, offline mode), at its shortlist k and at every
# power of two from its k_min to the table's k_max ("tuning": {"k_max"}; else
# HYTUNE_PROBE_K_MAX; else 16), within the algorithm's limit at the job's size.
# The exhaustive online search's count is what measuring every algorithm of the
# collective (`hytune list`) at each of those radixes for one window
# (HYTUNE_PROBE_CALLS calls, default 3) would spend.
#
# Writes OUTDIR/loops.csv (one row per loop:
#   platform,ranks,coll,bytes,arrival,offline_us,radix_us,hybrid_us,best_fixed,best_us,
#   hybrid_over_best,offline_over_best,radix_over_best,chosen,settled_k,choosing_calls,
#   calls_to_settle,exhaustive_calls,sweep_unfinished; calls_to_settle: the timed calls
#   from the incumbent's window, the last before the key turns hot, to the settle:
#   choosing and radix probe; sweep_unfinished: the sweep's candidates that did not
#   finish, ";"-separated, "-" when none: best_fixed is then the best of those that did)
# OUTDIR/sweep.csv (platform,ranks,coll,bytes,arrival,candidate,us; us "unfinished"
# for a run that timed out or failed), OUTDIR/failed.csv (loops whose offline,
# radix-only or hybrid run did not finish: platform,ranks,coll,bytes,arrival,run,why),
# each run's output in OUTDIR/runs/, and prints the summary (mean and worst hybrid /
# best, calls spent, loops failed, loops with unfinished sweep runs).
# With -l: OUTDIR/overhead.csv (platform,ranks,coll,bytes,arrival,best_fixed,
# offline_us,hybrid_us,hybrid_over_offline).  Times are the loop's simulated time per
# call, choosing and probing included.  Environment: HYT_BUILD (default build/),
# SMPI_EXTRA (default --cfg=smpi/coll-selector:mpich, as `hytune tune` is run in
# bench/tune_repro.sh: "native" is SimGrid's MPICH selection).
set -u
. bench/lib.sh
B=$(hyt_build_dir)
calls=1000 arrivals="b2b linear:25 random:25" out='' over=0 scalls='' tlim=0 every=0
export SMPI_EXTRA="${SMPI_EXTRA:---cfg=smpi/coll-selector:mpich}"
while getopts o:c:a:s:t:Al opt; do
    case $opt in
    o) out=$OPTARG ;; c) calls=$OPTARG ;; a) arrivals=$OPTARG ;; l) over=1 ;;
    s) scalls=$OPTARG ;; t) tlim=$OPTARG ;; A) every=1 ;;
    *) die "usage: see the header of $0" ;;
    esac
done
shift $((OPTIND - 1))
[ -n "$out" ] || die "give -o OUTDIR"
scalls=${scalls:-$calls}
[ "$scalls" -ge 2 ] 2>/dev/null && [ "$scalls" -le "$calls" ] ||
    die "-s: calls of a fixed run must be 2 .. the -c calls ($calls), not \"$scalls\""
[ "$tlim" -ge 0 ] 2>/dev/null || die "-t: a wall time in seconds (0: none), not \"$tlim\""
[ $# -gt 0 ] || die "no CONFIG (PLATFORM:NODES:PPN:TABLE, e.g. dragonfly-64:64:1:table.json)"
cases=${SCALE_CASES:-"allreduce:2 allreduce:256 allreduce:16384 allreduce:262144 bcast:2 bcast:256 bcast:16384 bcast:262144 reduce:2 reduce:256 reduce:16384 reduce:262144 allgather:2 allgather:256 allgather:16384"}
window=${HYTUNE_PROBE_CALLS:-3}
mkdir -p "$out/runs" || die "cannot create $out"
if [ $over = 1 ]; then
    [ -s "$out/loops.csv" ] || die "-l needs $out/loops.csv (run the sweep first)"
    [ -s "$out/overhead.csv" ] ||
        echo "platform,ranks,coll,bytes,arrival,best_fixed,offline_us,hybrid_us,hybrid_over_offline" >"$out/overhead.csv"
else
    [ -s "$out/loops.csv" ] ||
        echo "platform,ranks,coll,bytes,arrival,offline_us,radix_us,hybrid_us,best_fixed,best_us,hybrid_over_best,offline_over_best,radix_over_best,chosen,settled_k,choosing_calls,calls_to_settle,exhaustive_calls,sweep_unfinished" >"$out/loops.csv"
    [ -s "$out/sweep.csv" ] || echo "platform,ranks,coll,bytes,arrival,candidate,us" >"$out/sweep.csv"
fi
[ -s "$out/failed.csv" ] || echo "platform,ranks,coll,bytes,arrival,run,why" >"$out/failed.csv"


# run NAME TABLE CALLS ENV... -- COLL COUNT ARRIVAL: one loop of CALLS calls (output
# in runs/NAME.out); prints its time per call, extrapolated to -c calls when CALLS is
# fewer; fails, the reason in runs/NAME.why, unless every call was exact and the
# ranks agreed within the -t wall time
run() {
    _name=$1 _table=$2 _n=$3
    shift 3
    _env=
    while [ "$1" != -- ]; do _env="$_env $1"; shift; done
    shift
    _arr=$3
    [ "$_arr" = b2b ] && _arr=
    # shellcheck disable=SC2086 # the lists are word-split on purpose
    (export HYTUNE_TABLE="$_table"
     [ -z "$_env" ] || export $_env
     timeout "$tlim" nice -n 5 sh -c '. bench/lib.sh; smpi_run "$@"' sh "$np" "platforms/$plat.xml" "$hf" \
         "$B/test/smpi/test_online_choose" "$1" "$2" "$_n" $_arr) >"$out/runs/$_name.out" 2>&1
    _rc=$?
    rm -f "$out/runs/$_name.why"
    if [ $_rc = 124 ]; then
        echo "over the -t limit of $tlim s" >"$out/runs/$_name.why"
        echo "$_name: over the -t limit of $tlim s" >&2
        return 1
    fi
    _t=$(choose_result "$out/runs/$_name.out" "$np" "$_name" $_rc) || {
        echo "exit status $_rc, no summary with 0 wrong and agreeing ranks" >"$out/runs/$_name.why"
        return 1
    }
    [ "$_n" -lt "$calls" ] || { echo "$_t"; return 0; }
    sed -n 's/^loop: first call \([0-9.]*\) us, then \([0-9.]*\) us\/call, end \([0-9.]*\) us$/\1 \2 \3/p' \
        "$out/runs/$_name.out" | awk -v n="$calls" '{ printf "%.3f\n", ($1 + (n - 1) * $2 + $3) / n }'
}

# failed NAME WHAT: record a loop's run that did not finish in failed.csv
failed() {
    echo "$plat,$np,$coll,$bytes,$arr,$2,$(cat "$out/runs/$1.why" 2>/dev/null || echo failed)" >>"$out/failed.csv"
    echo "$tag: the $2 run did not finish ($(cat "$out/runs/$1.why" 2>/dev/null)); loop skipped"
}

# the table's k_max ("tuning": {"k_max": K}), else HYTUNE_PROBE_K_MAX, else 16
table_kmax() {
    _k=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("tuning", {}).get("k_max", 0))' "$1")
    [ "$_k" -gt 0 ] 2>/dev/null || _k=${HYTUNE_PROBE_K_MAX:-16}
    [ "$_k" -gt 0 ] || _k=16
    echo "$_k"
}

# best_table TABLE COLL BYTES ALG K OUT: TABLE with the rule of COLL at BYTES
# choosing ALG:K, the rest of its shortlist kept (the table already right)
best_table() {
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1])); coll, b, alg, k = sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
for s in t["collectives"][coll]:
    for r in s["rules"]:
        if "bytes_max" in r and r["bytes_max"] < b:
            continue
        own = {f: r[f] for f in ("algorithm", "k", "predicted_us", "spread_us") if f in r}
        sl = [own] + [c for c in r.get("shortlist", [])]
        win = [c for c in sl if c["algorithm"] == alg]
        rest = [c for c in sl if c["algorithm"] != alg]
        w = dict(win[0]) if win else {"algorithm": alg}
        if k > 0: w["k"] = k
        else: w.pop("k", None)
        for f in ("algorithm", "k", "predicted_us", "spread_us"):
            r.pop(f, None)
        r.update(w)
        if rest: r["shortlist"] = rest
        break
json.dump(t, open(sys.argv[6], "w"), indent=1)' "$@"
}

# radixes ALG KMIN KLIM KMAX TABLEK: the sweep radixes of an algorithm
radixes() {
    awk -v kmin="$2" -v klim="$3" -v kmax="$4" -v tk="$5" 'BEGIN {
        if (klim == 0) { print 0; exit }
        top = kmax < klim ? kmax : klim
        if (kmin < 2 && kmin >= 1) printf "%d ", kmin
        for (k = 2; k <= top; k *= 2) if (k >= kmin) { printf "%d ", k; seen[k] = 1 }
        if (tk > 0 && !seen[tk] && tk != kmin) printf "%d ", tk
        print "" }'
}

# the radix range of ALG for COLL from `hytune list` ("2..p", "1..p", "-"), at NP ranks
alg_range() { # COLL ALG -> "KMIN KLIM"
    "$B/bin/hytune" list | awk -v c="$1" -v a="$2" -v p="$np" '$1 == c && $2 == a {
        if ($3 == "-") { print 0, 0; exit }
        split($3, r, /\.\./); print r[1], (r[2] == "p" ? p : r[2]); exit }'
}

for config in "$@"; do
    plat=${config%%:*} rest=${config#*:}
    nodes=${rest%%:*} rest=${rest#*:}
    ppn=${rest%%:*} table=${rest#*:}
    [ -s "platforms/$plat.xml" ] || die "no platforms/$plat.xml"
    [ -s "$table" ] || die "no table $table"
    table=$(cd "$(dirname "$table")" && pwd)/$(basename "$table")
    np=$((nodes * ppn))
    hf=$out/hostfile-$nodes-$ppn
    hostfile "$nodes" "$ppn" >"$hf"
    kmax=$(table_kmax "$table")
    radix_table=$out/radix-only-$(basename "$table")
    strip_shortlists "$table" "$radix_table" || die "cannot write $radix_table"
    for case in $cases; do
        coll=${case%%:*} count=${case#*:}
        C=$(echo "$coll" | tr a-z A-Z)
        bytes=$((count * 4))
        for arr in $arrivals; do
            tag=$plat-$np-$coll-$bytes-$(echo "$arr" | tr : _)
            if [ $over = 1 ]; then
                best=$(awk -F, -v p="$plat" -v n="$np" -v c="$coll" -v b="$bytes" -v a="$arr" \
                    '$1 == p && $2 == n && $3 == c && $4 == b && $5 == a { print $9 }' "$out/loops.csv" | tail -1)
                [ -n "$best" ] || { echo "$tag: not in loops.csv, skipped"; continue; }
                best_table "$table" "$coll" "$bytes" "${best%%:*}" "${best#*:}" "$out/right-$tag.json"
                t_off=$(run "right-off-$tag" "$out/right-$tag.json" "$scalls" HYTUNE_MODE=offline -- "$coll" "$count" "$arr") ||
                    { failed "right-off-$tag" offline-right; continue; }
                t_hyb=$(run "right-hyb-$tag" "$out/right-$tag.json" "$calls" HYTUNE_MODE=hybrid -- "$coll" "$count" "$arr") ||
                    { failed "right-hyb-$tag" hybrid-right; continue; }
                r=$(awk -v h="$t_hyb" -v o="$t_off" 'BEGIN { printf "%.4f", h / o }')
                echo "$plat,$np,$coll,$bytes,$arr,$best,$t_off,$t_hyb,$r" >>"$out/overhead.csv"
                echo "$tag: table right ($best): offline $t_off, hybrid $t_hyb us/call: hybrid/offline $r"
                continue
            fi
            if awk -F, -v p="$plat" -v n="$np" -v c="$coll" -v b="$bytes" -v a="$arr" \
                '$1 == p && $2 == n && $3 == c && $4 == b && $5 == a { f = 1 } END { exit !f }' "$out/loops.csv"; then
                echo "$tag: in loops.csv already"
                continue
            fi
            t_off=$(run "off-$tag" "$table" "$scalls" HYTUNE_MODE=offline -- "$coll" "$count" "$arr") ||
                { failed "off-$tag" offline; continue; }
            cands=$(sed -n 's/^shortlist //p' "$out/runs/off-$tag.out")
            [ -n "$cands" ] || { echo "$tag: the table has no rule for $coll"; continue; }
            t_rad=$(run "radix-$tag" "$radix_table" "$calls" HYTUNE_MODE=hybrid -- "$coll" "$count" "$arr") ||
                { failed "radix-$tag" radix-only; continue; }
            t_hyb=$(run "hyb-$tag" "$table" "$calls" HYTUNE_MODE=hybrid -- "$coll" "$count" "$arr") ||
                { failed "hyb-$tag" hybrid; continue; }
            : >"$out/runs/sweep-$tag"
            unfin=
            if [ $every = 1 ]; then # every algorithm of the collective not on the shortlist
                for a in $("$B/bin/hytune" list | awk -v c="$coll" '$1 == c { print $2 }'); do
                    echo "$cands" | tr ' ' '\n' | grep -q "^$a:" || cands="$cands $a:0"
                done
            fi
            for c in $cands; do
                alg=${c%%:*} tk=${c#*:}
                set -- $(alg_range "$coll" "$alg")
                for k in $(radixes "$alg" "${1:-0}" "${2:-0}" "$kmax" "$tk"); do
                    spec=$alg
                    [ "$k" = 0 ] || spec=$alg:$k
                    t=$(run "fixed-$tag-$spec" "$table" "$scalls" HYTUNE_MODE=offline "HYTUNE_FORCE_$C=$spec" \
                        -- "$coll" "$count" "$arr") || {
                        unfin="${unfin:+$unfin;}$alg:$k"
                        echo "$plat,$np,$coll,$bytes,$arr,$alg:$k,unfinished" >>"$out/sweep.csv"
                        continue
                    }
                    echo "$alg:$k $t" >>"$out/runs/sweep-$tag"
                    echo "$plat,$np,$coll,$bytes,$arr,$alg:$k,$t" >>"$out/sweep.csv"
                done
            done
            set -- $(sort -g -k2 "$out/runs/sweep-$tag" | head -1)
            best=${1:--} t_best=${2:-0}
            [ "$t_best" != 0 ] || { echo "$tag: no sweep run finished ($unfin)"; continue; }
            # calls spent: the timed calls from the incumbent's window (the last
            # window before the key turned hot) to the settle, radix probe included;
            # a rotating root's references after hot (the winner's, calls it runs
            # anyway) are not counted, only printed
            set -- $(sed -n 's/^online: chosen \([^,]*\), settled k \([0-9-]*\),.* \([0-9]*\) calls choosing, .* settled \([0-9-]*\) calls after hot, hot after [0-9]* calls\(, \([0-9]*\) reference calls, \([0-9]*\) after hot\)\{0,1\}$/\1 \2 \3 \4 \6 \7/p' \
                "$out/runs/hyb-$tag.out")
            chosen=${1:--} sk=${2:--} nch=${3:-0} nref=${5:-0} nref_hot=${6:-0}
            npr=$((${4:-0} + window - nref_hot))
            # every algorithm of the collective at every sweep radix, one window each
            exh=0
            for alg in $("$B/bin/hytune" list | awk -v c="$coll" '$1 == c { print $2 }'); do
                set -- $(alg_range "$coll" "$alg")
                n=$(radixes "$alg" "${1:-0}" "${2:-0}" "$kmax" 0 | wc -w)
                exh=$((exh + n * window))
            done
            awk -v p="$plat" -v n="$np" -v c="$coll" -v b="$bytes" -v a="$arr" -v o="$t_off" -v r="$t_rad" \
                -v h="$t_hyb" -v bf="$best" -v tb="$t_best" -v ch="$chosen" -v sk="$sk" -v nc="$nch" -v np_="$npr" -v e="$exh" \
                -v u="${unfin:--}" \
                'BEGIN { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%s,%s,%s,%s,%s,%s\n",
                    p, n, c, b, a, o, r, h, bf, tb, h / tb, o / tb, r / tb, ch, sk, nc, np_, e, u }' >>"$out/loops.csv"
            echo "$tag: offline $t_off, radix-only $t_rad, hybrid $t_hyb (chosen $chosen k $sk, $nch calls choosing, settled after $npr; $nref reference calls, $nref_hot after hot; exhaustive $exh), best fixed $best $t_best us/call: hybrid/best $(awk -v h="$t_hyb" -v b="$t_best" 'BEGIN { printf "%.3f", h / b }')${unfin:+; sweep runs not finished: $unfin}"
        done
    done
done

if [ $over = 1 ]; then
    awk -F, 'NR > 1 { n++; s += $9; if ($9 > w) w = $9 }
        END { if (n) printf "overhead: %d loops, hybrid/offline on a right table mean %.4f, worst %.4f\n", n, s / n, w }' "$out/overhead.csv"
else
    awk -F, 'NR > 1 { n++; s += $11; if ($11 > w) { w = $11; wl = $1 " " $2 " " $3 " " $4 " " $5 }
            so += $12; sr += $13; cc += $16; if ($16 > wcc) wcc = $16
            ch = $17; sc += ch; if (ch > wc) wc = ch; over += ch > 40; se += $18; u += $19 != "-" }
        END { if (n) printf "summary: %d loops, hybrid/best mean %.4f, worst %.4f (%s); offline/best mean %.4f, radix-only/best mean %.4f; calls choosing mean %.1f, max %d; calls to settle (choosing and radix probe) mean %.1f, max %d, %d loops over 40; exhaustive search mean %.0f; %d loops with sweep runs not finished (sweep_unfinished)\n",
            n, s / n, w, wl, so / n, sr / n, cc / n, wcc, sc / n, wc, over, se / n, u }' "$out/loops.csv"
fi
awk -F, 'NR > 1 { n++ } END { if (n) printf "%d loops not measured: a run did not finish (%s)\n", n, FILENAME }' "$out/failed.csv"
