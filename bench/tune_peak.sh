#!/bin/sh
# Peak memory of a tuning run under SimGrid (all ranks live in one process):
#   sh bench/tune_peak.sh [-f FROM | -t] [-o DIR] NP PLATFORM [TUNE OPTIONS...]
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
# fraction of a full run's time.  -t: each candidate measured once, only
# at its own largest size under the limit (placeholders at every size below
# it), and the native guard: the peak of the largest points alone, in less
# time still (many large points in a row hold more: docs/memory.md).  A
# first run whose every grid point is a placeholder, with no native guard,
# prints the `tune: memory:` lines and benchmarks nothing but the set-up
# cost of a communicator; the second measures each candidate at the size
# those lines give it (the collective's largest, or the smaller one the
# candidate stops at); Barrier, benchmarked at one size, is measured as in
# any run.  Without -f or -t: one ordinary run.
# DIR (default: a temporary directory, removed) keeps the log, the table,
# the samples and `rises` (a line each time the private figure is 64 MiB
# above the last line's, with the collective being tuned); SMPI_EXTRA adds
# smpirun options.  Prints the memory lines and one line of peaks (GiB).
set -eu
from= dir= each=
while getopts f:o:t o; do
    case $o in
    f) from=$OPTARG ;;
    t) each=1 ;;
    o) dir=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: sh bench/tune_peak.sh [-f FROM | -t] [-o DIR] NP PLATFORM [TUNE OPTIONS...]" >&2; exit 2; }
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
[ -z "$from" ] || [ -z "$each" ] || die "-f and -t: give one of them"
# Placeholder rows (native fastest) for every registered algorithm of these
# collectives, native and radixes 0-8 (a row no candidate has is ignored),
# at the powers of two below each candidate's FROM; $1: lines "COLL ALG K
# FROM" ("*" for any; the most specific line counts), $2: 1 to skip Barrier.
placeholders() {
    "$B/bin/hytune" list | awk -v colls=",$colls," -v nodes=$((NP / 4)) -v nobar="$2" '
        FILENAME != "-" { f[$1 " " $2 " " $3] = $4; next }
        FNR == 1 { print "coll,nodes,ppn,bytes,algorithm,k,time_us"; next }
        index(colls, "," $1 ",") && !(nobar && $1 == "barrier") {
            red = $1 ~ /^(allreduce|reduce|reduce_scatter_block|reduce_scatter|scan|exscan)$/
            for (k = 0; k <= 8; k++) {
                if ($2 == "native" && k > 0)
                    break
                from = f["* * *"]
                if (($1 " * *") in f) from = f[$1 " * *"]
                if (($1 " " $2 " " k) in f) from = f[$1 " " $2 " " k]
                for (b = red ? 4 : 1; b < from; b *= 2)
                    if ($2 == "native")
                        printf "%s,%d,4,%d,native,0,1\n", $1, nodes, b
                    else
                        printf "%s,%d,4,%d,%s,%d,2\n", $1, nodes, b, $2, k
            }
        }' "$1" -
}
run_tune() {
    # shellcheck disable=SC2086 # option lists are word-split on purpose
    exec $SMPIRUN -np "$NP" -platform "$PLAT" -hostfile "$dir/hosts" $SMPI_OPTS $(plat_opts "$PLAT") ${SMPI_EXTRA:-} \
        "$B/bin/hytune-smpi" tune "$@"
}
if [ -n "$from" ]; then
    echo "* * * $from" >"$dir/from"
    placeholders "$dir/from" 0 >"$dir/below.csv"
    set -- "$@" --exhaustive --point-budget 1e-9 --warm-start "$dir/below.csv"
elif [ -n "$each" ]; then
    echo "* * * 4611686018427387904" >"$dir/from"
    placeholders "$dir/from" 1 >"$dir/all.csv"
    (run_tune "$@" --exhaustive --point-budget 1e-9 --warm-start "$dir/all.csv" --no-native-guard \
        -o "$dir/pass1.json") \
        >/dev/null 2>"$dir/log1" || { tail -n 20 "$dir/log1" >&2; die "the run that reads the memory lines failed"; }
    # "tune: memory: COLL: sizes above X not benchmarked (...); up to Y only: ALG:K, ALG, ..."
    # -> "COLL * * X" and "COLL ALG K Y"; a collective without a line: its largest grid size
    awk '
        function bytes(n, u) { return n * (u == "KiB" ? 1024 : u == "MiB" ? 1048576 : u == "GiB" ? 1073741824 : 1) }
        /^tune: [0-9]+ nodes x .*sizes up to [0-9]+ bytes/ {
            match($0, /sizes up to [0-9]+ bytes/)
            max = substr($0, RSTART + 12, RLENGTH - 18) + 0
            for (b = 1; b * 2 <= max; b *= 2)
                ;
            print "* * * " b
        }
        /^tune: memory: [a-z_]+: / {
            c = $3; sub(/:$/, "", c)
            rest = $0; sub(/^tune: memory: [a-z_]+: /, "", rest)
            n = split(rest, part, "; ")
            for (i = 1; i <= n; i++) {
                if (part[i] ~ /^sizes above none /)
                    print c " * * 0"
                else if (part[i] ~ /^sizes above /) {
                    split(part[i], w, " ")
                    print c " * * " bytes(w[3], w[4])
                } else if (part[i] ~ /^up to [0-9.]+ [KMG]?i?B only: /) {
                    split(part[i], w, " ")
                    at = bytes(w[3], w[4])
                    list = part[i]; sub(/^up to [^:]*: /, "", list)
                    m = split(list, cand, ", ")
                    for (j = 1; j <= m; j++) {
                        k = 0
                        if (split(cand[j], ak, ":") == 2) k = ak[2]
                        print c " " ak[1] " " k " " at
                    }
                }
            }
        }' "$dir/log1" >"$dir/from"
    grep -q '^\* \* \* [1-9]' "$dir/from" || die "no size limit in $dir/log1"
    placeholders "$dir/from" 1 >"$dir/below.csv"
    set -- "$@" --exhaustive --point-budget 1e-9 --warm-start "$dir/below.csv"
fi
start=$(date +%s)
(run_tune "$@") >"$dir/out" 2>"$dir/log" &
run=$!
pid= hwm=0 priv=0 pss=0 n=0 logged=0
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
        if [ $((anon + pte)) -gt $((logged + 65536)) ]; then
            # 64 MiB above the last line: while which collective
            logged=$((anon + pte))
            echo "$(date +%T) private_kB=$((anon + pte)) $(grep -E '^tune: [a-z_]+: [0-9]+ candidates' "$dir/log" | tail -n 1)" >>"$dir/rises"
        fi
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
