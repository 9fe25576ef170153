#!/bin/sh
# hytune demo on a simulated Slingshot-style dragonfly (platforms/dragonfly-64.xml,
# 64 nodes, DEMO_PPN ranks per node, default 2).
#
#   sh bench/demo.sh [OUTDIR]          (or `make demo`)
#
# 1. tuning: `hytune-smpi tune` when this build has a working tuner (its
#    `tune --help` exits 0 under smpirun and it writes a table within
#    DEMO_TUNE_WALL seconds, default 900); otherwise an
#    oracle table from an exhaustive sweep of the registry (bench/eval_oracle.sh),
#    restricted to the sizes the applications use, and labelled as such;
# 2. the proxy applications (bench/apps/) under MPICH's selection, hytune
#    offline (the table) and hytune hybrid (the table + online radix tuning);
# 3. a table: application, simulated time per mode, speedup, tuning time,
#    and what hytune chose (algorithm, k, start and settled k from its stats).
# Everything (summary.md, CSVs, stats, plots, logs) goes into one folder,
# default out/demo-<timestamp>, named at the end.  Uses the build in
# $HYT_BUILD (default build/).  Times are SimGrid simulated time
# (--cfg=smpi/simulate-computation:no), deterministic; wall times are this
# machine's and only say how long the demo took.
set -u
HYT_TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$HYT_TOP" || exit 1
. bench/lib.sh

out=${1:-out/demo-$(date +%Y%m%d-%H%M%S)}
plat=$HYT_TOP/platforms/dragonfly-64.xml
nodes=${DEMO_NODES:-64}
ppn=${DEMO_PPN:-2}
np=$((nodes * ppn))
B=$(hyt_build_dir)
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
demo_t0=$(date +%s)

# Application sizes are kept small so the whole demo stays within minutes
# on a 2-core machine; the collective sizes they produce are listed in
# docs/evaluation.md.
export APPARGS_cg="--iters 60"
export APPARGS_particles="--steps 10"
export APPARGS_fft="--iters 8"
export APPARGS_qchem="--iters 4"

need_apps() {
    for a in cg particles fft qchem collbench; do
        [ -x "$B/bench/apps/$a" ] || return 1
    done
}
# the tree's own build: make brings the applications up to date (a source or
# the library newer than a binary); a frozen HYT_BUILD copy is used as it is
if [ -z "${HYT_BUILD:-}" ] || ! need_apps; then
    progress "demo: building the proxy applications (make B=$B bench-apps)"
    make -s B="$B" bench-apps >"$out/build.log" 2>&1 || die "building the applications failed, see $out/build.log"
fi

# ---- 1. tuning ------------------------------------------------------------
table=$out/table.json
tuner=none
tune_t0=$(date +%s)
hostfile "$nodes" "$ppn" | write_atomic "$out/hostfile"
if [ -x "$B/bin/hytune-smpi" ] &&
    smpi_run 1 "$plat" "$out/hostfile" "$B/bin/hytune-smpi" tune --help >"$out/tune-help.log" 2>&1; then
    # Tuning runs on a slice of the platform: simulating the radix-p
    # candidates (p^2 concurrent flows) costs wall time growing ~p^3 here
    # (32 ranks: ~4 min; 128 ranks: no batch done in 200 s).  The table of
    # the slice's shape serves the larger application communicators.
    tnodes=${DEMO_TUNE_NODES:-16}
    hostfile "$tnodes" "$ppn" | write_atomic "$out/tune-hostfile"
    progress "demo: tuning with hytune-smpi tune on $tnodes of the $nodes nodes x $ppn ppn (--shapes job)"
    # --timeout is the tuner's benchmark budget in simulated seconds; the
    # wall-clock limit keeps the demo within its minutes if tuning is slow.
    if SMPI_EXTRA=--cfg=smpi/coll-selector:mpich timeout "${DEMO_TUNE_WALL:-900}" sh -c \
        '. "$0"/bench/lib.sh; shift; smpi_run "$@"' "$HYT_TOP" - "$((tnodes * ppn))" "$plat" \
        "$out/tune-hostfile" "$B/bin/hytune-smpi" tune --coll allreduce,allgather,alltoall,bcast,reduce \
        --shapes job --batch 16 --max-bytes 512K --timeout "${DEMO_TUNE_BUDGET:-2}" -o "$table" \
        >"$out/tune.log" 2>&1 &&
        [ -s "$table" ]; then
        tuner="hytune tune on $tnodes of the $nodes nodes"
    else
        progress "demo: hytune-smpi tune did not produce a table (see $out/tune.log); using the oracle sweep"
    fi
else
    progress "demo: this build has no working tuner (hytune-smpi tune --help failed, see $out/tune-help.log)"
fi
if [ "$tuner" = none ]; then
    progress "demo: ORACLE TABLE: exhaustive sweep of the registry at the applications' sizes"
    RANGE_allreduce=8:8 RANGE_allgather=2048:2048 RANGE_alltoall=256:256 \
        RANGE_bcast=2048:524288 RANGE_reduce=2048:524288 \
        sh bench/eval_oracle.sh -p "$plat" -n "$nodes" -q "$ppn" -o "$out/oracle" \
        -c "allreduce allgather alltoall bcast reduce" -x 16 -k "${DEMO_K:-2 4 8}" -i 3 -w 2 \
        >"$out/oracle.txt" 2>"$out/oracle-progress.log" || die "oracle sweep failed, see $out/oracle-progress.log"
    cp "$out/oracle/oracle-table.json" "$table"
    tuner="oracle sweep (not the tuner)"
    grep -i failed "$out/oracle-progress.log" >&2
fi
tune_wall=$(($(date +%s) - tune_t0))
# simulated seconds the tuner took (its closing "tune: done:" line; empty for an oracle table)
tune_sim=$(awk '/^tune: done:/ { for (i = 1; i < NF; i++) if ($i == "elapsed") v = $(i + 1) } END { print v }' \
    "$out/tune.log" 2>/dev/null)
progress "demo: table ready ($tuner, ${tune_wall} s wall): $table"

# ---- 2. applications -------------------------------------------------------
# Hybrid probing climbs k multiplicatively; radices near p (128 here) are
# legal but make SimGrid solve ~p^2 concurrent flows per round, minutes of
# wall time per probe window.  The cap bounds the climb (a table's own larger
# k is kept); DEMO_PROBE_K_MAX=0 lifts it.
HYTUNE_PROBE_K_MAX=${DEMO_PROBE_K_MAX:-16} sh bench/eval_apps.sh -p "$plat" -n "$nodes" -q "$ppn" -t "$table" -o "$out" >"$out/apps.txt" ||
    die "application runs failed, see $out/apps.txt and $out/log-*"

# ---- 3. summary ---------------------------------------------------------------
{
    echo "# hytune demo: proxy applications on dragonfly-64 ($nodes nodes x $ppn ranks = $np ranks)"
    echo
    echo "Simulated time (SimGrid SMPI 3.32, simulate-computation:no, coll-selector:mpich), seconds."
    echo "Table source: **$tuner**, tuning took ${tune_sim:-(no tuner run)} s of simulated time (${tune_wall} s of wall time on this machine)."
    echo "Break-even: the job length (seconds under MPICH's selection) from which tuning has paid for"
    echo "itself, tuning time x MPICH time / (MPICH time - hytune time)."
    echo
    echo "| application | MPICH selection | hytune offline | hytune hybrid | speedup offline | speedup hybrid | break-even offline (s) | hytune chose (hybrid run) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    awk -F, -v tune="${tune_sim:-0}" 'NR > 1 { t[$5, $6] = $7; if ($6 == "hybrid") { c = $0; for (i = 0; i < 9; i++) c = substr(c, index(c, ",") + 1); gsub(/"/, "", c); ch[$5] = c }
            if (!($5 in seen)) { seen[$5] = 1; order[++n] = $5 } }
        END { for (i = 1; i <= n; i++) { a = order[i]; m = t[a, "mpich"]; o = t[a, "offline"]; h = t[a, "hybrid"]
            be = (tune <= 0 ? "-" : m > o ? sprintf("%.3g", tune * m / (m - o)) : "never")
            printf "| %s | %.6f | %.6f | %.6f | %.3f | %.3f | %s | %s |\n", a, m, o, h, (o > 0 ? m / o : 0), (h > 0 ? m / h : 0), be, ch[a] } }' \
        "$out/apps.csv"
    echo
    echo "Files: apps.csv, apps-speedup.csv, apps.png, stats-APP-MODE(.json), table.json$([ -d "$out/oracle" ] && echo ", oracle/ (sweep CSV)")."
} | write_atomic "$out/summary.md"
cat "$out/summary.md"
echo
echo "demo: finished in $(($(date +%s) - demo_t0)) s wall; everything is in $out"
