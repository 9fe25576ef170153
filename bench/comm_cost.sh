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
#   sh bench/comm_cost.sh -w [NP [PLATFORM]]
# instead prints what MPI_COMM_WORLD's first collective costs: for each of
# Allreduce, Bcast, Reduce, Barrier, Allgather and Alltoall (8 bytes, one run
# each, MPI_COMM_WORLD fresh) its first and second call; then, in one run,
# MPI_Comm_dup of the fresh MPI_COMM_WORLD, the first and second Allreduce on
# the duplicate, and the first on MPI_COMM_WORLD (docs/memory.md).
#   sh bench/comm_cost.sh -s [NP [PLATFORM]]
# instead prints, for p = 2, 4, 8, ... NP, what an MPI_Comm_dup + MPI_Comm_free costs
# (the slowest rank's) on the first p ranks (p neighbouring hosts: what `hytune tune`
# measures on its nodes) and on p ranks NP/p apart (all NP/p such slices at once, as an
# application's column communicators are).
set -eu
sizes=0
case ${1:-} in
-s) sizes=1 && shift ;;
-w) sizes=2 && shift ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
NP=${1:-256}
PLAT=${2:-$top/platforms/dragonfly-256.xml}
[ $((NP % 8)) -eq 0 ] || die "NP ($NP) must be a multiple of 8"
plat_need_hosts "$PLAT" "$NP"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/dup.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p, x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 2) { /* -w: MPI_COMM_WORLD's first collective (argv[2]), or "dup" first */
        int b[2] = {1, 2}, c[2 * 1024];
        const char *w = argv[2];
        MPI_Comm d = MPI_COMM_WORLD;
        double t[5];
        t[0] = MPI_Wtime();
        if (!strcmp(w, "dup"))
            MPI_Comm_dup(MPI_COMM_WORLD, &d);
        t[1] = MPI_Wtime();
        double dup = 1e6 * (t[1] - t[0]);
        for (int i = 0; i < 2 + !strcmp(w, "dup"); i++) {
            MPI_Comm on = i < 2 ? d : MPI_COMM_WORLD;
            if (!strcmp(w, "bcast"))
                MPI_Bcast(b, 2, MPI_INT, 0, on);
            else if (!strcmp(w, "reduce"))
                MPI_Reduce(b, c, 2, MPI_INT, MPI_SUM, 0, on);
            else if (!strcmp(w, "barrier"))
                MPI_Barrier(on);
            else if (!strcmp(w, "allgather") && p <= 1024)
                MPI_Allgather(b, 2, MPI_INT, c, 2, MPI_INT, on);
            else if (!strcmp(w, "alltoall") && p <= 1024)
                MPI_Alltoall(c, 2, MPI_INT, c + 1024, 2, MPI_INT, on);
            else
                MPI_Allreduce(b, c, 2, MPI_INT, MPI_SUM, on);
            double now = MPI_Wtime();
            t[2 + i] = 1e6 * (now - t[1]);
            t[1] = now;
        }
        if (r == 0 && !strcmp(w, "dup"))
            printf("%d ranks: first: MPI_Comm_dup of MPI_COMM_WORLD %.1f us; on it first "
                   "Allreduce %.1f us, second %.1f us; first Allreduce on MPI_COMM_WORLD %.1f us\n",
                   p, dup, t[2], t[3], t[4]);
        else if (r == 0)
            printf("%d ranks: first: %s on MPI_COMM_WORLD first call %.1f us, second %.1f us\n",
                   p, w, t[2], t[3]);
        MPI_Finalize();
        return 0;
    }
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
run() {
    SMPI_EXTRA=--cfg=smpi/coll-selector:mpich smpi_run "$NP" "$PLAT" "$tmp/hosts" "$tmp/dup" "$@" >"$tmp/log" 2>&1 ||
        { cat "$tmp/log" >&2; die "the run failed"; }
    grep "$pat" "$tmp/log" || { cat "$tmp/log" >&2; die "no result line"; }
}
case $sizes in
1) pat="ranks: dup + free" && run sizes ;;
2) pat="ranks: first:" && for w in allreduce bcast reduce barrier allgather alltoall dup; do run world "$w"; done ;;
*) pat="ranks: split" && run ;;
esac
