#!/bin/sh
# What SimGrid charges for a new communicator, in simulated time: an MPI
# program (no hytune) that splits MPI_COMM_WORLD into 8 slices of NP/8 ranks,
# duplicates its slice and then MPI_COMM_WORLD, then makes its first Bcast on
# MPI_COMM_WORLD, under SimGrid with computation off and MPICH's selection
# (as bench/realapps/run.sh runs applications).  hytune runs its kernels on a
# private duplicate of the application's communicator: this is what that
# duplicate costs there.
#   sh bench/comm_cost.sh [NP [PLATFORM]]   (defaults: 256, platforms/dragonfly-256.xml)
# One rank per host (the platform needs NP hosts; NP a multiple of 8).
# Prints rank 0's time of each step in microseconds.
#   sh bench/comm_cost.sh -s [NP [PLATFORM]]
# instead prints, for p = 2, 4, 8, ... NP, what an MPI_Comm_dup + MPI_Comm_free costs
# (the slowest rank's) on the first p ranks (p neighbouring hosts: what `hytune tune`
# measures on its nodes) and on p ranks NP/p apart (all NP/p such slices at once, as an
# application's column communicators are).
set -eu
sizes=0
if [ "${1:-}" = -s ]; then
    sizes=1
    shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
NP=${1:-256}
PLAT=${2:-$top/platforms/dragonfly-256.xml}
[ -f "$PLAT" ] || die "no platform file $PLAT"
[ $((NP % 8)) -eq 0 ] || die "NP ($NP) must be a multiple of 8"
[ "$(plat_nodes "$PLAT")" -ge "$NP" ] || die "$PLAT has fewer than $NP hosts (one rank per host)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/dup.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p, x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1) { /* -s: by size, neighbouring and spread ranks */
        for (int q = 2; q <= p; q *= 2) {
            double us[2];
            for (int spread = 0; spread < 2; spread++) {
                MPI_Comm sub, d;
                MPI_Comm_split(MPI_COMM_WORLD, spread ? r % (p / q) : r < q ? 0 : MPI_UNDEFINED, r,
                               &sub);
                double t = 0;
                if (sub != MPI_COMM_NULL) {
                    MPI_Barrier(sub);
                    double t0 = MPI_Wtime();
                    MPI_Comm_dup(sub, &d);
                    MPI_Comm_free(&d);
                    t = 1e6 * (MPI_Wtime() - t0);
                    MPI_Comm_free(&sub);
                }
                MPI_Reduce(&t, &us[spread], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            if (r == 0)
                printf("%d ranks: dup + free of the first %d ranks %.1f us, of %d ranks %d apart "
                       "%.1f us\n", q, q, us[0], q, p / q, us[1]);
        }
        MPI_Finalize();
        return 0;
    }
    MPI_Comm sub, d1, d2;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Comm_split(MPI_COMM_WORLD, r % 8, r, &sub);
    double t1 = MPI_Wtime();
    MPI_Comm_dup(sub, &d1);
    double t2 = MPI_Wtime();
    MPI_Comm_dup(MPI_COMM_WORLD, &d2);
    double t3 = MPI_Wtime();
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double t4 = MPI_Wtime();
    if (r == 0)
        printf("%d ranks: split into %d-rank slices %.1f us, dup of a slice %.1f us, "
               "dup of MPI_COMM_WORLD %.1f us, first Bcast on MPI_COMM_WORLD %.1f us\n",
               p, p / 8, 1e6 * (t1 - t0), 1e6 * (t2 - t1), 1e6 * (t3 - t2), 1e6 * (t4 - t3));
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d1);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
EOC
smpicc -O2 "$tmp/dup.c" -o "$tmp/dup" 2>/dev/null || die "smpicc failed on $tmp/dup.c"
hostfile "$NP" 1 >"$tmp/hosts"
[ $sizes = 1 ] && set -- sizes || set --
SMPI_EXTRA=--cfg=smpi/coll-selector:mpich smpi_run "$NP" "$PLAT" "$tmp/hosts" "$tmp/dup" "$@" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log" >&2; die "the run failed"; }
[ $sizes = 1 ] && pat="ranks: dup + free" || pat="ranks: split"
grep "$pat" "$tmp/log" || { cat "$tmp/log" >&2; die "no result line"; }
