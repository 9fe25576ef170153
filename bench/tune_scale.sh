#!/bin/sh
# Whole `hytune tune` time versus nodes, with and without parallel scheduling.
#
#   sh bench/tune_scale.sh [-o OUTDIR] [-n "16 64 256"] [-c COLLS] [-m MAX_BYTES]
#                          [-k K_MAX] [-l LEVEL] [-p "yes no"] [-w WALL_S]
#                          [-a "EXTRA TUNE ARGS"]
#
# For every node count N (1 rank per node) the tuner runs twice under SimGrid
# SMPI on a dragonfly (platforms/dragonfly-64.xml up to 64 nodes,
# dragonfly-256.xml up to 256, dragonfly-1024.xml above), on the first N
# hosts: once with parallel scheduling (points of a batch on disjoint network
# groups at once) and once with --no-parallel.  Both runs get the same
# HYTUNE_NETWORK_FILE (so the same node order); it names the dragonfly
# router of every host (-l router, default: 4 nodes per group) or its chassis
# (-l chassis) or its dragonfly group (-l group), read from the platform's
# topo_parameters.
#
# Prints a table and writes OUTDIR/tune_scale.csv:
#   nodes,ranks,platform,parallel,iterations,points,bench_s,tune_s,wall_s,status
# tune_s is the tuner's own closing line ("tune: done: ... elapsed E s"), in
# simulated seconds (MPI_Wtime under SMPI; simulate-computation:no, so the
# forest's computing on rank 0 costs no simulated time); bench_s is the sum of
# the benchmark points' cost (the same clock); wall_s is this machine's wall
# time of the whole smpirun.  A run past WALL_S seconds of wall time (default
# 1500) is stopped: status "wall-limit", no tune_s.
# -k 0 runs without --k-max; -p yes (or no) runs one of the two modes only.
# Defaults: -c allreduce,bcast -m 64K -k 8; the tuner's other options are its
# defaults (--shapes all, --batch 8, --seed 1, --threshold 0.02).  Uses the
# build in $HYT_BUILD (or B=..., default build/).
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$HYT_TOP" || exit 1
[ -n "${B:-}" ] && HYT_BUILD=${HYT_BUILD:-$B}
. bench/lib.sh

out=out/tune-scale
list="16 64 256"
colls=allreduce,bcast
maxb=64K
kmax=8
level=router
wall=1500
extra=
modes="yes no"
while getopts o:n:c:m:k:l:p:w:a:h opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) list=$OPTARG ;;
    c) colls=$OPTARG ;;
    m) maxb=$OPTARG ;;
    k) kmax=$OPTARG ;;
    l) level=$OPTARG ;;
    p) modes=$OPTARG ;;
    w) wall=$OPTARG ;;
    a) extra=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
case $level in router | chassis | group) ;; *) die "-l $level: give router, chassis or group" ;; esac
for m in $modes; do case $m in yes | no) ;; *) die "-p $m: give yes and/or no" ;; esac; done
case $kmax in *[!0-9]* | '') die "-k $kmax: give an integer (0: no --k-max)" ;; esac
kopt=
[ "$kmax" -gt 0 ] && kopt="--k-max $kmax"
B=$(hyt_build_dir)
[ -x "$B/bin/hytune-smpi" ] || die "no $B/bin/hytune-smpi: build it with \`make B=$B\`"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# network file: "node-i PATH", PATH the host's group / chassis / router from
# topo_parameters="G,gl;C,cl;R,rl;N" (SimGrid numbers hosts router by router)
netfile() {
    _tp=$(sed -n 's/.*topo_parameters="\([^"]*\)".*/\1/p' "$1" | head -n 1)
    [ -n "$_tp" ] || die "$1: no DRAGONFLY topo_parameters"
    awk -v tp="$_tp" -v n="$2" -v lvl="$3" 'BEGIN {
        split(tp, f, ";"); split(f[2], c, ","); split(f[3], r, ",")
        C = c[1]; R = r[1]; N = f[4]
        for (i = 0; i < n; i++) {
            rt = int(i / N); ch = int(rt / R); g = int(ch / C)
            if (lvl == "group") p = "g" g
            else if (lvl == "chassis") p = "g" g "/c" (ch % C)
            else p = "g" g "/c" (ch % C) "/r" (rt % R)
            printf "node-%d %s\n", i, p
        }
    }'
}

now() { date +%s.%N; }

csv=$out/tune_scale.csv
echo "nodes,ranks,platform,parallel,iterations,points,bench_s,tune_s,wall_s,status" | write_atomic "$csv"
cmdline="hytune-smpi tune --coll $colls --max-bytes $maxb $kopt $extra"
progress "tune_scale: $cmdline [--no-parallel]; nodes: $list; groups: $level; wall limit ${wall} s; output $out"
for n in $list; do
    if [ "$n" -le 64 ]; then plat=platforms/dragonfly-64.xml
    elif [ "$n" -le 256 ]; then plat=platforms/dragonfly-256.xml
    else plat=platforms/dragonfly-1024.xml; fi
    [ "$n" -le "$(plat_nodes "$plat")" ] || die "$n nodes: $plat has $(plat_nodes "$plat")"
    hostfile "$n" 1 | write_atomic "$out/hosts-$n"
    netfile "$plat" "$n" "$level" | write_atomic "$out/network-$n.txt"
    for par in $modes; do
        flag=
        [ "$par" = no ] && flag=--no-parallel
        log=$out/tune-$n-$par.log
        progress "tune_scale: $n nodes, parallel $par"
        t0=$(now)
        # shellcheck disable=SC2086,SC2016 # option lists; $0/$@ expand in the inner sh
        HYTUNE_NETWORK_FILE=$out/network-$n.txt SMPI_EXTRA=--cfg=smpi/coll-selector:mpich \
            timeout "$wall" sh -c '. "$0"/bench/lib.sh; shift; smpi_run "$@"' "$HYT_TOP" - \
            "$n" "$HYT_TOP/$plat" "$out/hosts-$n" "$B/bin/hytune-smpi" tune --coll "$colls" \
            --max-bytes "$maxb" $kopt $flag $extra -o "$out/table-$n-$par.json" \
            >"$log" 2>&1
        rc=$?
        t1=$(now)
        status=ok
        [ $rc = 124 ] && status="wall-limit"
        [ $rc != 0 ] && [ $rc != 124 ] && status=exit-$rc
        mode=$(sed -n 's/.* shapes, \([a-z]*\) benchmarking.*/\1/p' "$log" | head -n 1)
        [ "$par" = yes ] && [ "$mode" != parallel ] && [ "$status" = ok ] && status="ran-$mode"
        awk -v n="$n" -v plat="$(basename "$plat" .xml)" -v par="$par" -v t0="$t0" -v t1="$t1" \
            -v st="$status" '
            /^tune: done:/ { it = $5; pt = $7; b = $10; e = $13 }
            END { printf "%d,%d,%s,%s,%s,%s,%s,%s,%.1f,%s\n", n, n, plat, par, it, pt, b, e,
                  t1 - t0, st }' "$log" >>"$csv"
        progress "tune_scale: $(tail -n 1 "$csv")"
    done
done
{
    echo "# $cmdline [--no-parallel], 1 rank per node, groups: dragonfly $level"
    printf "%6s %9s %11s %7s %10s %13s %9s  %s\n" nodes parallel iterations points bench_s \
        "tune_s (sim)" wall_s status
    awk -F, 'NR > 1 { printf "%6d %9s %11s %7s %10s %13s %9s  %s\n", $1, $4, $5, $6, $7, $8, $9, $10 }' "$csv"
} | tee "$out/tune_scale.txt"
echo "tune_scale: CSV $csv; logs and tables in $out"
