#!/bin/sh
# What hytune adds to MPI_Init + MPI_Finalize, in simulated time: an MPI
# program that only calls MPI_Init and MPI_Finalize, run under SimGrid with
# computation off (deterministic), without hytune and with it in each mode,
# for SimGrid's default collective selection and MPICH's.  The "kernel table"
# row gives MPI_COMM_WORLD an Allreduce rule that runs a kernel of hytune's:
# its private duplicate is made by the first call that runs one, not in
# MPI_Init.
#   sh bench/init_cost.sh [-p] [NP [PLATFORM]]  (defaults: 64, platforms/dragonfly-64.xml)
# -p: a second table, per phase of a program that calls MPI_Init, an 8-byte
# MPI_Allreduce on MPI_COMM_WORLD, MPI_Comm_split (all ranks, one color), an
# 8-byte MPI_Allreduce on the new communicator, MPI_Comm_free and
# MPI_Finalize: the simulated time (max over ranks, us) at which each phase
# ends, without hytune and with it off and offline (no table).
# One rank per host (the platform needs NP hosts).  HYT_BUILD selects the build.
# Prints one line per (selection, configuration): simulated seconds of the
# whole run and the microseconds added over the run without hytune.
# INIT_COST_MAX_US=N: exit 1 if a configuration adds more than N us (the
# runs are deterministic: a test); INIT_COST_OVER_OFF_MAX_US=N: exit 1 if
# one adds more than N us over off mode (the node model rides on the
# settings' exchange, which off mode makes too).
set -eu
phases=0
if [ "${1:-}" = -p ]; then
    phases=1
    shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
HYT_TOP=$top
. "$top/bench/lib.sh"
B=$(hyt_build_dir)
NP=${1:-64}
PLAT=${2:-$top/platforms/dragonfly-64.xml}
plat_need_hosts "$PLAT" "$NP"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/empty.c" <<'EOF'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
EOF
cat >"$tmp/phases.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    double t[4], tmax[4], x = 1, y;
    MPI_Comm c;
    MPI_Init(&argc, &argv);
    t[0] = MPI_Wtime();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t[1] = MPI_Wtime();
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c);
    t[2] = MPI_Wtime();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
    t[3] = MPI_Wtime();
    MPI_Comm_free(&c);
    /* after the phases: its own time is not in them */
    MPI_Reduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("PHASES %.1f %.1f %.1f %.1f\n", tmax[0] * 1e6, tmax[1] * 1e6, tmax[2] * 1e6,
               tmax[3] * 1e6);
    MPI_Finalize();
    return 0;
}
EOF
smpicc -O2 "$tmp/empty.c" -o "$tmp/plain" 2>/dev/null || die "smpicc failed on $tmp/empty.c"
"$B/bin/hytune-smpicc" -O2 "$tmp/empty.c" -o "$tmp/hytune"
cat >"$tmp/native.json" <<'EOF'
{"format": 1, "collectives": {"allreduce": [{"rules": [{"algorithm": "native"}]}]}}
EOF
cat >"$tmp/kernel.json" <<'EOF'
{"format": 1, "collectives": {"allreduce": [{"rules": [{"algorithm": "recmult", "k": 2}]}]}}
EOF
hostfile "$NP" 1 >"$tmp/hosts"
max=${INIT_COST_MAX_US:-}
over_off=${INIT_COST_OVER_OFF_MAX_US:-}
over=0

# sim EXE [VAR=VALUE...]: simulated seconds of one run
sim() {
    _exe=$1
    shift
    env "$@" sh -c '. "$0"/bench/lib.sh; shift; smpi_run "$@"' "$top" - "$NP" "$PLAT" \
        "$tmp/hosts" --cfg=smpi/display-timing:yes --log=smpi_utils.thres:info "$_exe" \
        >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "run of $_exe ($*) failed"; }
    _t=$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$tmp/log")
    [ -n "$_t" ] || die "no simulated time in the output of $_exe ($*)"
    echo "$_t"
}

# selector SEL: SimGrid's collective selection for the runs that follow
selector() {
    if [ "$1" = mpich ]; then
        SMPI_EXTRA=--cfg=smpi/coll-selector:mpich
    else
        SMPI_EXTRA=
    fi
    export SMPI_EXTRA
}

echo "# MPI_Init + MPI_Finalize, $NP ranks (one per host), $(basename "$PLAT"), computation off"
printf '%-8s %-26s %14s %12s\n' selection configuration "simulated s" "added us"
for sel in default mpich; do
    selector "$sel"
    base=$(sim "$tmp/plain")
    printf '%-8s %-26s %14s %12s\n' "$sel" "no hytune" "$base" -
    for cfg in off offline hybrid "offline, native table" "offline, kernel table"; do
        case $cfg in
        "offline, native table") set -- HYTUNE_MODE=offline "HYTUNE_TABLE=$tmp/native.json" ;;
        "offline, kernel table") set -- HYTUNE_MODE=offline "HYTUNE_TABLE=$tmp/kernel.json" ;;
        *) set -- HYTUNE_MODE="$cfg" ;;
        esac
        t=$(sim "$tmp/hytune" -u HYTUNE_TABLE "$@")
        added=$(awk -v a="$t" -v b="$base" 'BEGIN { printf "%.1f", (a - b) * 1e6 }')
        printf '%-8s %-26s %14s %12s\n' "$sel" "$cfg" "$t" "$added"
        if [ -n "$max" ] && awk -v a="$added" -v m="$max" 'BEGIN { exit !(a > m) }'; then
            echo "init_cost.sh: $sel, $cfg: $added us added, above INIT_COST_MAX_US=$max" >&2
            over=1
        fi
        [ "$cfg" = off ] && off_added=$added
        if [ -n "$over_off" ] && awk -v a="$added" -v o="$off_added" -v m="$over_off" 'BEGIN { exit !(a - o > m) }'; then
            echo "init_cost.sh: $sel, $cfg: $added us added, more than INIT_COST_OVER_OFF_MAX_US=$over_off over off mode's $off_added" >&2
            over=1
        fi
    done
done
[ "$phases" = 1 ] || exit "$over"

smpicc -O2 "$tmp/phases.c" -o "$tmp/phases-plain" 2>/dev/null || die "smpicc failed on $tmp/phases.c"
"$B/bin/hytune-smpicc" -O2 "$tmp/phases.c" -o "$tmp/phases-hytune"
echo
echo "# phases: simulated time (us, max over ranks) at the end of MPI_Init, the first Allreduce"
echo "# (MPI_COMM_WORLD), MPI_Comm_split and the Allreduce on the new communicator"
printf '%-8s %-12s %9s %12s %9s %12s\n' selection configuration init allreduce split "allreduce'"
for sel in default mpich; do
    selector "$sel"
    for cfg in "no hytune" off offline; do
        if [ "$cfg" = "no hytune" ]; then
            sim "$tmp/phases-plain" >/dev/null
        else
            sim "$tmp/phases-hytune" -u HYTUNE_TABLE HYTUNE_MODE="$cfg" >/dev/null
        fi
        # shellcheck disable=SC2046
        set -- $(sed -n 's/^PHASES //p' "$tmp/log")
        [ $# = 4 ] || die "no PHASES line in the output ($sel, $cfg)"
        printf '%-8s %-12s %9s %12s %9s %12s\n' "$sel" "$cfg" "$1" "$2" "$3" "$4"
    done
done
exit "$over"
