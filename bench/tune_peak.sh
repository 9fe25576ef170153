#!/bin/sh
# Peak memory of a tuning run under SimGrid (all ranks live in one process):
#   sh bench/tune_peak.sh [-f FROM] [-o DIR] NP PLATFORM [TUNE OPTIONS...]
# runs `hytune-smpi tune --coll <all 14> --max-bytes 1M --shapes job --k-max 8
# TUNE OPTIONS` on NP ranks, 4 per host, and samples the simulation process:
#   resident      VmHWM of /proc/PID/status (the kernel's peak resident set:
#                 a page mapped N times counts N times)
#   private       RssAnon + VmPTE of /proc/PID/status, every 0.05 s (memory
#                 the process holds alone, and its page tables)
#   proportional  Pss of /proc/PID/smaps_rollup, every 2 s (every page once)
# A point's buffers and scratch grow with its size and are freed after it, so
# a run's peak comes from a collective's largest benchmarked sizes.  -f FROM
# (bytes, a power of two) makes the run measure exactly the points from FROM
# up, each with one call (--exhaustive --point-budget 1e-9), and the native
# guard: sizes below FROM are placeholders (--warm-start, native fastest),
# so FROM at or below every candidate's largest size (the `tune: memory:`
# lines) gives the highest peak any run of these options can reach, in a
# fraction of a full run's time.  Without -f: one ordinary run.
# DIR (default: a temporary directory, removed) keeps the log, the table and
# the samples; SMPI_EXTRA adds smpirun options.  Prints the memory lines and
# one line of peaks (GiB).
set -eu
from= dir=
while getopts f:o: o; do
    case $o in
    f) from=$OPTARG ;;
    o) dir=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: sh bench/tune_peak.sh [-f FROM] [-o DIR] NP PLATFORM [TUNE OPTIONS...]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
HYT_TOP=$top
. "$top/bench/lib.sh"
B=$(hyt_build_dir)
NP=$1 PLAT=$2
shift 2
[ -f "$PLAT" ] || die "no platform file $PLAT"
[ $((NP % 4)) = 0 ] && [ "$(plat_nodes "$PLAT")" -ge $((NP / 4)) ] ||
    die "$PLAT needs $((NP / 4)) hosts for $NP ranks, 4 per host"
if [ -n "$dir" ]; then
    mkdir -p "$dir"
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
dir=$(cd "$dir" && pwd)
colls=alltoall,allgather,reduce_scatter_block,gather,scatter,alltoallv,allgatherv,reduce_scatter,allreduce,reduce,bcast,barrier,scan,exscan
hostfile $((NP / 4)) 4 >"$dir/hosts"
set -- --coll "$colls" --max-bytes 1M --shapes job --k-max 8 --progress log -o "$dir/table.json" "$@"
if [ -n "$from" ]; then
    # every registered algorithm of these collectives, native and radixes 0-8
    # (a row no candidate has is ignored), at the powers of two below FROM
    "$B/bin/hytune" list | awk -v colls=",$colls," -v from="$from" -v nodes=$((NP / 4)) '
        NR == 1 { print "coll,nodes,ppn,bytes,algorithm,k,time_us"; next }
        index(colls, "," $1 ",") {
            red = $1 ~ /^(allreduce|reduce|reduce_scatter_block|reduce_scatter|scan|exscan)$/
            for (b = red ? 4 : 1; b < from; b *= 2)
                for (k = 0; k <= 8; k++)
                    if ($2 == "native") {
                        if (k == 0)
                            printf "%s,%d,4,%d,native,0,1\n", $1, nodes, b
                    } else
                        printf "%s,%d,4,%d,%s,%d,2\n", $1, nodes, b, $2, k
        }' >"$dir/below.csv"
    set -- "$@" --exhaustive --point-budget 1e-9 --warm-start "$dir/below.csv"
fi
start=$(date +%s)
# shellcheck disable=SC2086 # option lists are word-split on purpose
$SMPIRUN -np "$NP" -platform "$PLAT" -hostfile "$dir/hosts" $SMPI_OPTS $(plat_opts "$PLAT") ${SMPI_EXTRA:-} \
    "$B/bin/hytune-smpi" tune "$@" >"$dir/out" 2>"$dir/log" &
run=$!
pid= hwm=0 priv=0 pss=0 n=0
while kill -0 "$run" 2>/dev/null; do
    if [ -z "$pid" ]; then
        for c in $(cat "/proc/$run/task/$run/children" 2>/dev/null); do
            [ "$(cat "/proc/$c/comm" 2>/dev/null)" = smpimain ] && pid=$c
        done
    fi
    if [ -n "$pid" ]; then
        anon=0 pte=0
        # the process may end at any moment: a file that cannot be read is skipped
        { while read -r k v _; do
            case $k in
            VmHWM:) if [ "$v" -gt "$hwm" ]; then hwm=$v; fi ;;
            RssAnon:) anon=$v ;;
            VmPTE:) pte=$v ;;
            esac
        done <"/proc/$pid/status"; } 2>/dev/null || :
        if [ $((anon + pte)) -gt "$priv" ]; then priv=$((anon + pte)); fi
        if [ $((n % 40)) = 0 ]; then
            { while read -r k v _; do
                if [ "$k" = Pss: ] && [ "$v" -gt "$pss" ]; then pss=$v; fi
            done <"/proc/$pid/smaps_rollup"; } 2>/dev/null || :
            echo "$(date +%T) resident_kB=$hwm private_kB=$priv proportional_kB=$pss" >"$dir/samples"
        fi
        n=$((n + 1))
    fi
    sleep 0.05
done
rc=0
wait "$run" || rc=$?
[ "$rc" = 0 ] || { tail -n 20 "$dir/log" >&2; die "the tuning run failed (exit status $rc)"; }
grep '^tune: memory:' "$dir/log" || :
awk -v h="$hwm" -v a="$priv" -v p="$pss" -v w=$(($(date +%s) - start)) -v np="$NP" 'BEGIN {
    g = 1024 * 1024
    printf "peak, %d ranks: resident %.2f GiB, private %.2f GiB, proportional %.2f GiB; %d s wall\n", np, h / g, a / g, p / g, w }'
