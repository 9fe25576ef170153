# shellcheck shell=sh
# Shared shell helpers for hytune's benchmark and evaluation scripts.
# Source it: `. bench/lib.sh` from the top of the tree (POSIX sh).
#
#   hostfile NODES PPN [PREFIX]       print a SimGrid hostfile: PREFIX0:PPN ... (block mapping)
#   smpi_run NP PLATFORM HOSTFILE PROG [ARGS...]
#                                     run PROG under smpirun with the deterministic options
#                                     plus $SMPI_EXTRA (e.g. --cfg=smpi/coll-selector:mpich)
#   plat_nodes PLATFORM               number of hosts a platform file declares
#   progress MSG...                   timestamped progress line on stderr
#   die MSG...                        message on stderr, exit 1
#   choose_result OUT NP NAME RC      time per call of a test_online_choose run, if exact and agreed
#   write_atomic FILE                 copy stdin to FILE through a temporary file + rename
#   geomean                           geometric mean of the numbers on stdin (one per line)
#   hyt_build_dir                     the build directory: $HYT_BUILD or build/ (absolute)
#   config_value NAME                 NAME's value in config.mk (MPICC, MPIEXEC: MPICH's own
#                                     wrappers as ./configure found and checked them)
#
# Every SimGrid run uses --cfg=smpi/simulate-computation:no (deterministic,
# host computation free) and the platform's raw latency/bandwidth
# (lat-factor and bw-factor 1), so the numbers are those of the XML file.

HYT_TOP=${HYT_TOP:-$(pwd)}
SMPIRUN=${SMPIRUN:-smpirun}
SMPI_OPTS="--cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --log=root.thres:critical --log=smpi.thres:critical --cfg=smpi/display-timing:no"

die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

progress() {
    echo "[$(date +%H:%M:%S)] $*" >&2
}

hyt_build_dir() {
    b=${HYT_BUILD:-$HYT_TOP/build}
    case $b in /*) ;; *) b=$HYT_TOP/$b ;; esac
    [ -x "$b/bin/hytune-smpicc" ] || die "no $b/bin/hytune-smpicc: build it with \`make B=$b\` (or set HYT_BUILD to a built tree)"
    echo "$b"
}

config_value() {
    [ -f "$HYT_TOP/config.mk" ] || die "no $HYT_TOP/config.mk: run ./configure first"
    _v=$(sed -n "s/^$1 = //p" "$HYT_TOP/config.mk")
    [ -n "$_v" ] || die "config.mk has no $1: rerun ./configure (it finds MPICH's mpicc.mpich and mpiexec.mpich)"
    echo "$_v"
}

# hostfile NODES PPN [PREFIX]: NODES lines "PREFIXi:PPN", i = 0..NODES-1.
hostfile() {
    _n=$1 _ppn=$2 _pre=${3:-node-}
    _i=0
    while [ "$_i" -lt "$_n" ]; do
        echo "$_pre$_i:$_ppn"
        _i=$((_i + 1))
    done
}

# Hosts a platform declares: the radical range of its cluster, or its <host> count.
plat_nodes() {
    _r=$(sed -n 's/.*radical="0-\([0-9]*\)".*/\1/p' "$1" | head -n 1)
    if [ -n "$_r" ]; then
        echo $((_r + 1))
    else
        grep -c '<host ' "$1"
    fi
}

# Stop unless platform $1 exists and has $2 hosts (one rank per host).
plat_need_hosts() {
    [ -f "$1" ] || die "no platform file $1"
    [ "$(plat_nodes "$1")" -ge "$2" ] || die "$1 has fewer than $2 hosts (one rank per host)"
}

# Options a platform needs beyond the defaults: link traces need the full
# network model (network/optim:Full).
plat_opts() {
    if grep -q '_file=' "$1"; then echo "--cfg=network/optim:Full"; fi
}

smpi_run() {
    _np=$1 _plat=$2 _hf=$3
    shift 3
    # shellcheck disable=SC2086,SC2046 # option lists are word-split on purpose
    $SMPIRUN -np "$_np" -platform "$_plat" -hostfile "$_hf" $SMPI_OPTS $(plat_opts "$_plat") ${SMPI_EXTRA:-} "$@"
}

# choose_result OUT NP NAME RC: the time per call of a test_online_choose run
# whose output is OUT and exit status RC; fails, saying why, unless its
# summary line shows every call exact and the ranks agreeing (SimGrid ends a
# deadlocked run with exit status 0, before the summary)
choose_result() {
    if [ "$4" != 0 ] || ! grep -q "^test_online_choose p=$2 .*: 0 wrong, .* ranks agree$" "$1"; then
        echo "$3: exit status $4, no summary line with 0 wrong and agreeing ranks (a deadlock ends the simulation early):" >&2
        tail -n 5 "$1" >&2
        return 1
    fi
    sed -n 's/^test_online_choose .* \([0-9.]*\) us\/call.*/\1/p' "$1"
}

write_atomic() {
    _tmp="$1.tmp.$$"
    cat >"$_tmp" && mv -f "$_tmp" "$1"
}

# strip_shortlists TABLE OUT: TABLE without its rules' shortlists, written
# atomically to OUT: hybrid mode with it tunes only the radix online (the
# table's algorithm is final), the radix-only hybrid mode of the benchmarks
strip_shortlists() {
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
for sets in t["collectives"].values():
    for s in sets:
        for r in s["rules"]:
            r.pop("shortlist", None)
json.dump(t, open(sys.argv[2], "w"), indent=1)' "$1" "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2" ||
        { rm -f "$2.tmp.$$"; return 1; }
}

geomean() {
    awk '$1 > 0 { s += log($1); n++ } END { if (n) printf "%.4f\n", exp(s / n); else print "nan" }'
}

# gen_trace_platform VARIANT NODES OUTDIR: write OUTDIR/tree-VARIANT-NODES.xml
# and its traces (OUTDIR/traces/).  A two-level tree declared link by link,
# because SimGrid cannot attach traces to <cluster> links: NODES hosts of 8
# cores, 8 per leaf switch; node links 25 GB/s 0.5 us (one port), leaf-core
# uplinks 100 GB/s 0.5 us; loopback 150 GB/s 0.1 us.  The traces sit on the
# uplinks (SimGrid reads a trace file for one link only, so one file per
# uplink).  Run with --cfg=network/optim:Full (smpi_run adds it).
#   noise:  every uplink follows its own seeded trace, a new value every
#           50 us: bandwidth 30-100% of 100 GB/s, latency 0.5-1.5 us.
#   bwstep: every uplink drops from 100 GB/s to 12.5 GB/s at t = 10 ms.
gen_trace_platform() {
    _var=$1 _n=$2 _dir=$3
    _leaves=$(((_n + 7) / 8))
    mkdir -p "$_dir/traces"
    _l=0
    while [ $_l -lt $_leaves ]; do
        case $_var in
        noise)
            awk -v seed=$((_l + 1)) 'BEGIN { srand(seed); for (i = 0; i < 200; i++)
                printf "%.6f %.0f\n", i * 0.00005, 100e9 * (0.3 + 0.7 * rand());
                print "LOOPAFTER 0.00005" }' | write_atomic "$_dir/traces/noise-$_n-bw-$_l.txt"
            awk -v seed=$((_l + 1001)) 'BEGIN { srand(seed); for (i = 0; i < 200; i++)
                printf "%.6f %.3e\n", i * 0.00005, 0.5e-6 * (1 + 2 * rand());
                print "LOOPAFTER 0.00005" }' | write_atomic "$_dir/traces/noise-$_n-lat-$_l.txt" ;;
        bwstep)
            printf '0 100000000000\n0.01 12500000000\n' | write_atomic "$_dir/traces/bwstep-$_n-$_l.txt" ;;
        *) die "gen_trace_platform: unknown variant \"$_var\" (valid: noise, bwstep)" ;;
        esac
        _l=$((_l + 1))
    done
    awk -v n="$_n" -v var="$_var" '
    function trace(l) {
        if (var == "noise")
            return sprintf(" bandwidth_file=\"traces/noise-%d-bw-%d.txt\" latency_file=\"traces/noise-%d-lat-%d.txt\"", n, l, n, l)
        return sprintf(" bandwidth_file=\"traces/bwstep-%d-%d.txt\"", n, l)
    }
    BEGIN {
        leaves = int((n + 7) / 8)
        print "<?xml version=\x271.0\x27?>"
        print "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
        printf "<!-- Generated by bench/lib.sh gen_trace_platform %s %d: two-level tree, %d hosts of 8 cores,\n", var, n, n
        print "     8 per leaf switch; node links 25 GB/s 0.5 us, leaf-core uplinks 100 GB/s 0.5 us,"
        print "     loopback 150 GB/s 0.1 us."
        if (var == "noise")
            print "     Uplinks follow seeded bandwidth (30-100%) and latency (0.5-1.5 us) traces, 50 us steps."
        else
            print "     Uplinks drop from 100 GB/s to 12.5 GB/s at t = 10 ms (simulated)."
        print "     Run with --cfg=network/optim:Full.  See platforms/README.md. -->"
        print "<platform version=\"4.1\">"
        print " <zone id=\"tree\" routing=\"Floyd\">"
        for (i = 0; i < n; i++) printf "  <host id=\"node-%d\" speed=\"1Gf\" core=\"8\"/>\n", i
        print "  <router id=\"core\"/>"
        for (l = 0; l < leaves; l++) {
            printf "  <router id=\"leaf-%d\"/>\n", l
            printf "  <link id=\"up-%d\" bandwidth=\"100GBps\" latency=\"0.5us\"%s/>\n", l, trace(l)
        }
        for (i = 0; i < n; i++) {
            printf "  <link id=\"nic-%d\" bandwidth=\"25GBps\" latency=\"0.5us\"/>\n", i
            printf "  <link id=\"lo-%d\" bandwidth=\"150GBps\" latency=\"0.1us\" sharing_policy=\"FATPIPE\"/>\n", i
        }
        for (l = 0; l < leaves; l++)
            printf "  <route src=\"leaf-%d\" dst=\"core\"><link_ctn id=\"up-%d\"/></route>\n", l, l
        for (i = 0; i < n; i++) {
            printf "  <route src=\"node-%d\" dst=\"leaf-%d\"><link_ctn id=\"nic-%d\"/></route>\n", i, int(i / 8), i
            printf "  <route src=\"node-%d\" dst=\"node-%d\" symmetrical=\"NO\"><link_ctn id=\"lo-%d\"/></route>\n", i, i, i
        }
        print " </zone>"
        print "</platform>"
    }' | write_atomic "$_dir/tree-$_var-$_n.xml"
}

# stats_choices STATS_REPORT: one line summarising what hytune chose, from
# the human report HYTUNE_STATS wrote (rank 0): per key
# "coll SIZE: alg:k=K [start k=S, settled k=N]"; "-" if nothing was recorded.
stats_choices() {
    [ -s "$1" ] || { echo "-"; return; }
    awk '
    function flush() {
        if (key == "") return
        if (extra != "" && extra !~ /\]$/) extra = extra "]"
        out = out (out == "" ? "" : "; ") key extra
    }
    /^   [a-z_]+ +[0-9]+(-[0-9]+)? B / { flush(); alg = $7; for (i = 8; i <= NF; i++) alg = alg " " $i
        key = $1 " " $2 "B: " alg; extra = ""; next }
    /online .*start k=/ { if (match($0, /start k=[0-9]+/)) extra = " [" substr($0, RSTART, RLENGTH) }
    /settled k=/ { if (match($0, /settled k=[0-9]+/)) extra = extra (extra == "" ? " [" : ", ") substr($0, RSTART, RLENGTH) "]" }
    END { flush(); print (out == "" ? "-" : out) }' "$1"
}
