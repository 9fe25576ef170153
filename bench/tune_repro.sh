#!/bin/sh
# A table written by `hytune tune` in the job, measured against MPICH's own
# selection by a separate benchmark program (bench/apps/collbench through
# bench/eval_coll.sh), on a platform the defaults were not tuned on.
#
#   sh bench/tune_repro.sh -o OUTDIR [-p PLATFORM] [-n NODES] [-q PPN]
#        [-c "allreduce alltoall reduce bcast"] [-m MAX_BYTES] [-a "TUNE ARGS"]
#        [-t TABLE] [-M offline|"offline hybrid"|hybrid] [-W WARMUPS] [-I TIMED] [-S SHAPES]
#        [-K SIZES] [-N TIMED]
#
# Defaults: platforms/dragonfly-64.xml, 16 nodes x 4 ppn (64 ranks), the four
# collectives above, sizes up to 16384 bytes:
#   1. smpirun -np 64 ... hytune-smpi tune --coll allreduce,alltoall,reduce,bcast
#          --max-bytes 16K --shapes job -o OUTDIR/table.json
#      (--cfg=smpi/coll-selector:mpich: "native" is MPICH's selection)
#   2. bench/eval_coll.sh -M "mpich offline" with that table at the powers of two
#      4 .. MAX_BYTES (OUTDIR/pow2) and at 3 x the powers of two 12 .. 3/4 MAX_BYTES,
#      sizes between the table's grid points (OUTDIR/mid); collbench times each
#      size with a barrier before every call, mean per rank, max over ranks.
#      The collectives collbench does not run (barrier, gather, scatter,
#      allgatherv, alltoallv, reduce_scatter, reduce_scatter_block, scan,
#      exscan) are timed by
#      bench/newcoll_sweep.c instead, at the same sizes as the table keys them
#      (docs/table-format.md; Allgatherv, Alltoallv and Reduce_scatter from
#      4 B per block, even blocks and, as "COLL-skew", every 8th block 8 times
#      the others): MPICH's selection against hytune's dispatch with the table
#      (HYTUNE_MODE=offline), a barrier before each call, the slowest rank's
#      time, mean of 3 calls after one warm-up call, more while hytune's private
#      duplicate is not yet repaid (OUTDIR/new).
# -t TABLE: measure this table instead of tuning one (step 1 skipped).
# -M "offline hybrid": also time the table in hybrid mode (HYTUNE_MODE=hybrid:
#    online tuning of hot keys), in the same job; collbench's hybrid runs get
#    bench/eval_coll.sh's extra warm-up calls, newcoll_sweep's -W WARMUPS
#    warm-up calls per size (default 120: with HYTUNE_HOT_CALLS=auto a key
#    whose shortlist has up to four candidates turns hot after at most 72
#    calls, and its search takes at most half as many more), so the timed
#    calls are its settled state, and -I TIMED timed calls (default 200: a
#    settled key checks for drift every 16-1000 calls, one window with an
#    allreduce; 3 calls would hold one such window or none).  Each hybrid run of
#    newcoll_sweep writes hytune's statistics (rank 0's) to
#    OUTDIR/new/COLL-SHAPE-hybrid.stats (and .stats.json): what each key chose and
#    settled on.  HYTUNE_HOT_CALLS and the other HYTUNE_* settings of the
#    environment reach every run.
# -M hybrid: time hybrid mode only, against MPICH's selection and the offline
#    table as an earlier run in OUTDIR timed them (OUTDIR/new/COLL-SHAPE-mpich.txt
#    and -table.txt; with OUTDIR/table.json, e.g. -M offline's, nothing is tuned);
#    only for the collectives newcoll_sweep times (not collbench's).  -K there
#    restricts the hybrid sizes only.
# -S SHAPES: the block shapes of Allgatherv, Alltoallv and Reduce_scatter,
#    "even", "skew" or "even skew" (the default).
# -K B,B,...: newcoll_sweep times only these key sizes (bytes as the table keys
#    them, e.g. -K 4,64,1024,4096), not every one up to MAX_BYTES.
# -N TIMED: newcoll_sweep's timed calls per size of MPICH's selection and of
#    the offline table (default 3; SimGrid repeats a call exactly, so 1 gives
#    the same time where one call is expensive to simulate, as SimGrid's own
#    Scan and Exscan at 256 ranks).
# Prints every (collective, size) with MPICH's time, the table's time and the
# ratio MPICH / table (> 1: the table is faster), the lowest ratio, and the
# points below 0.97.  Exit status 0 even when some are below (the numbers are
# the result); 1 when a step fails.
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$HYT_TOP/bench/lib.sh"

out='' plat=$HYT_TOP/platforms/dragonfly-64.xml nodes=16 ppn=4
colls="allreduce alltoall reduce bcast" maxb=16384 targs='' table='' modes=offline hwarm=120 hiter=200 vshapes="even skew"
keys='' niter=3
while getopts o:p:n:q:c:m:a:t:M:W:I:S:K:N: opt; do
    case $opt in
    o) out=$OPTARG ;; p) plat=$OPTARG ;; n) nodes=$OPTARG ;; q) ppn=$OPTARG ;;
    c) colls=$OPTARG ;; m) maxb=$OPTARG ;; a) targs=$OPTARG ;; t) table=$OPTARG ;;
    M) modes=$OPTARG ;; W) hwarm=$OPTARG ;; I) hiter=$OPTARG ;; S) vshapes=$OPTARG ;;
    K) keys=$OPTARG ;; N) niter=$OPTARG ;;
    *) die "usage: see the comment at the top of bench/tune_repro.sh" ;;
    esac
done
case $modes in offline | "offline hybrid" | hybrid) ;; *) die "-M: \"offline\", \"offline hybrid\" or \"hybrid\", not \"$modes\"" ;; esac
case $hwarm in '' | *[!0-9]*) die "-W: a number of warm-up calls, not \"$hwarm\"" ;; esac
case $hiter in '' | *[!0-9]*) die "-I: a number of timed calls, not \"$hiter\"" ;; esac
case $vshapes in even | skew | "even skew") ;; *) die "-S: \"even\", \"skew\" or \"even skew\", not \"$vshapes\"" ;; esac
case $niter in '' | 0 | *[!0-9]*) die "-N: a number of timed calls >= 1, not \"$niter\"" ;; esac
case $keys in *[!0-9,]* | ,* | *, | *,,*) die "-K: sizes in bytes separated by commas (e.g. 4,64,1024), not \"$keys\"" ;; esac
[ -n "$out" ] || die "give -o OUTDIR"
[ -f "$plat" ] || die "-p: no platform file $plat"
case $plat in /*) ;; *) plat=$(pwd)/$plat ;; esac
pname=$(basename "$plat" .xml)
[ "$plat" = "$HYT_TOP/platforms/$pname.xml" ] ||
    die "-p: the platform must be one of platforms/*.xml (bench/eval_coll.sh takes its name)"
B=$(hyt_build_dir)
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
np=$((nodes * ppn))
hostfile "$nodes" "$ppn" | write_atomic "$out/hostfile"
clist=$(echo "$colls" | tr ' ' ',')
old='' new=''
for c in $colls; do
    case $c in
    allreduce | alltoall | reduce | bcast | allgather) old="$old $c" ;;
    barrier | gather | scatter | allgatherv | alltoallv | reduce_scatter | reduce_scatter_block | scan | exscan)
        new="$new $c" ;;
    *) die "-c: no benchmark for \"$c\" here" ;;
    esac
done
[ "$modes" != hybrid ] || [ -z "$old" ] ||
    die "-M hybrid: only for$new (collbench times$old in offline and hybrid mode together: -M \"offline hybrid\")"
[ "$modes" != hybrid ] || [ -s "$out/table.json" ] || [ -n "$table" ] ||
    die "-M hybrid: no table: give -t TABLE or an OUTDIR with the table.json of an earlier run"
if [ -n "$table" ]; then
    [ -s "$table" ] || die "-t: no table $table"
    cp "$table" "$out/table.json" || die "cannot copy $table"
fi

if [ ! -s "$out/table.json" ]; then
    progress "tune_repro: hytune tune, $nodes x $ppn on $pname, $clist up to $maxb bytes"
    # shellcheck disable=SC2086 # TUNE ARGS are words
    SMPI_EXTRA="--cfg=smpi/coll-selector:mpich" smpi_run "$np" "$plat" "$out/hostfile" \
        "$B/bin/hytune-smpi" tune --coll "$clist" --max-bytes "$maxb" --shapes job \
        --progress log $targs -o "$out/table.json.tmp" 2>"$out/tune.log" ||
        die "the tuning run failed (see $out/tune.log)"
    mv "$out/table.json.tmp" "$out/table.json"
fi
[ ! -f "$out/tune.log" ] || grep -E 'native guard|tune: done' "$out/tune.log"
if [ "$modes" = hybrid ]; then # the earlier run's timings must all be there
    for c in $new; do
        shapes=even
        case $c in allgatherv | alltoallv | reduce_scatter) shapes=$vshapes ;; esac
        for sh in $shapes; do for m in mpich table; do
            [ -s "$out/new/$c-$sh-$m.txt" ] ||
                die "-M hybrid: no $out/new/$c-$sh-$m.txt: time MPICH's selection and the table first (-M offline)"
        done; done
    done
fi
: >"$out/new.csv"

if [ -n "$old" ]; then
    progress "tune_repro: powers of two 4 .. $maxb"
    sh "$HYT_TOP/bench/eval_coll.sh" -o "$out/pow2" -t "$out/table.json" -P "$pname:$nodes:$ppn" \
        -c "$old" -s 4 -m "$maxb" -x 2 -M "mpich $modes" >"$out/pow2.txt" ||
        die "bench/eval_coll.sh failed (see $out/pow2.txt, $out/pow2/coll.log)"
    progress "tune_repro: sizes between: 12 .. $((maxb * 3 / 4))"
    sh "$HYT_TOP/bench/eval_coll.sh" -o "$out/mid" -t "$out/table.json" -P "$pname:$nodes:$ppn" \
        -c "$old" -s 12 -m $((maxb * 3 / 4)) -x 2 -M "mpich $modes" >"$out/mid.txt" ||
        die "bench/eval_coll.sh failed (see $out/mid.txt, $out/mid/coll.log)"
fi

if [ -n "$new" ]; then
    mkdir -p "$out/new" || die "cannot create $out/new"
    "$B/bin/hytune-smpicc" -std=c11 -O2 -I"$HYT_TOP" "$HYT_TOP/bench/newcoll_sweep.c" \
        -o "$out/new/sweep" || die "cannot build bench/newcoll_sweep.c"
    for c in $new; do
        # the table's key sizes (powers of two and 3 x them up to MAX_BYTES), as
        # newcoll_sweep sizes them: Gather/Scatter the whole vector (p blocks)
        lo=4 mul=1 shapes=even
        case $c in gather | scatter) mul=$np ;; allgatherv | alltoallv | reduce_scatter)
            lo=$((4 * np)) shapes=$vshapes ;; esac
        sizes=$(awk -v lo="$lo" -v hi="$maxb" -v m="$mul" -v keys="$keys" 'BEGIN {
            if (keys != "") { n = split(keys, k, ",")
                for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? "," : ""), k[i] * m
                exit }
            for (b = lo; b <= hi; b *= 2) { printf "%s%d", s, b * m; s = ","
                if (b >= 8 && b * 3 / 2 <= hi) printf ",%d", b * 3 / 2 * m } }')
        for sh in $shapes; do
            sk=''
            [ "$sh" = skew ] && sk=skew
            if [ "$modes" != hybrid ]; then
                progress "tune_repro: $c $sh, MPICH's selection and the table"
                # shellcheck disable=SC2086 # sk is empty or one word
                SMPI_EXTRA="--cfg=smpi/coll-selector:mpich" smpi_run "$np" "$plat" "$out/hostfile" \
                    "$out/new/sweep" -s "$sizes" -i "$niter" "$c" $sk native >"$out/new/$c-$sh-mpich.txt" ||
                    die "newcoll_sweep $c $sk native failed"
                # shellcheck disable=SC2086
                HYTUNE_MODE=offline HYTUNE_TABLE=$out/table.json \
                    SMPI_EXTRA="--cfg=smpi/coll-selector:mpich" smpi_run "$np" "$plat" \
                    "$out/hostfile" "$out/new/sweep" -s "$sizes" -i "$niter" "$c" $sk table \
                    >"$out/new/$c-$sh-table.txt" || die "newcoll_sweep $c $sk table failed"
            fi
            : >"$out/new/$c-$sh-hybrid.txt"
            case $modes in *hybrid*)
                progress "tune_repro: $c $sh, the table in hybrid mode (-W $hwarm -I $hiter)"
                # shellcheck disable=SC2086
                HYTUNE_MODE=hybrid HYTUNE_TABLE=$out/table.json HYTUNE_STATS=$out/new/$c-$sh-hybrid.stats \
                    SMPI_EXTRA="--cfg=smpi/coll-selector:mpich" smpi_run "$np" "$plat" \
                    "$out/hostfile" "$out/new/sweep" -s "$sizes" -w "$hwarm" -i "$hiter" "$c" $sk table \
                    >"$out/new/$c-$sh-hybrid.txt" || die "newcoll_sweep $c $sk table (hybrid) failed"
                ;;
            esac
            # "coll alg k bytes usec" -> the speedup.csv row at the table's key size
            awk -v P="$pname" -v N="$nodes" -v Q="$ppn" -v m="$mul" 'FILENAME ~ /-hybrid.txt$/ { h[$4] = $5; next }
                FILENAME ~ /-table.txt$/ { t[$4] = $5; next }
                ($4 in t) { printf "%s,%d,%d,%s,%d,%.3f,%.3f,%s,%.4f,%s\n", P, N, Q, $1, $4 / m, $5, t[$4],
                    ($4 in h) ? sprintf("%.3f", h[$4]) : "", $5 / t[$4],
                    ($4 in h) ? sprintf("%.4f", $5 / h[$4]) : "" }' "$out/new/$c-$sh-hybrid.txt" \
                "$out/new/$c-$sh-table.txt" "$out/new/$c-$sh-mpich.txt" >>"$out/new.csv"
        done
    done
fi

# speedup.csv: platform,nodes,ppn,coll,bytes,mpich_us,offline_us,hybrid_us,speedup_offline,...
for f in "$out/pow2/speedup.csv" "$out/mid/speedup.csv"; do [ ! -f "$f" ] || tail -n +2 "$f"; done |
    cat - "$out/new.csv" | sort -t, -k4,4 -k5,5n | tee "$out/ratio.csv" |
    awk -F, '{ printf "%-10s %6d B  mpich %9.3f us  table %9.3f us  x%.3f%s", $4, $5, $6, $7, $9, ($9 < 0.97 ? "  BELOW 0.97" : "")
        if ($10 != "") printf "  hybrid %9.3f us  x%.3f%s", $8, $10, ($10 < 0.97 ? "  BELOW 0.97" : "") ($8 > 1.02 * $7 ? "  HYBRID > 1.02 x OFFLINE" : "")
        printf "\n"
        if (n == 0 || $9 < lo) { lo = $9; at = $4 " " $5 " B" } n++; below += ($9 < 0.97) }
        END { printf "tune_repro: %d points, lowest x%.3f (%s), %d below 0.97\n", n, lo, at, below }'
# per collective (and shape): geometric mean and lowest ratio (hybrid: the same of its ratios,
# and its largest time over offline's)
awk -F, '{ n[$4]++; l[$4] += log($9); if (!($4 in lo) || $9 < lo[$4]) lo[$4] = $9
      if ($10 != "") { hn[$4]++; hl[$4] += log($10); if (!($4 in hlo) || $10 < hlo[$4]) hlo[$4] = $10
          if (!($4 in hx) || $8 / $7 > hx[$4]) hx[$4] = $8 / $7 } }
    END { for (c in n) { printf "tune_repro: %s: geomean x%.3f over %d sizes, lowest x%.3f", c,
              exp(l[c] / n[c]), n[c], lo[c]
            if (c in hn) printf "; hybrid geomean x%.3f over %d sizes, lowest x%.3f, at most %.3f x offline",
              exp(hl[c] / hn[c]), hn[c], hlo[c], hx[c]
            printf "\n" } }' "$out/ratio.csv" | sort
