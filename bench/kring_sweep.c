/* SMPI latency of the k-ring kernels against SMPI's own ring.
 *   kring_sweep COLL MODE K...     COLL: allgather|bcast|allreduce
 *   MODE kring: run hytune's k-ring with every K; MODE native: PMPI (the
 *   algorithm is the one smpirun was told, e.g. --cfg=smpi/allgather:ring).
 * Sizes 8 B .. 1 MiB (x8 steps, then 1 MiB) are total bytes (Allgather: the gathered
 * buffer, each rank contributes size/p).  Per point: one warm-up call, then
 * 5 timed calls; the time of a call is the slowest rank's (max-reduced).
 * Prints "coll mode k bytes usec" lines on rank 0. */
#include "src/hyt.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double one(hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (alg)
        hyt_run_alg(a, alg, k, NULL);
    else
        hyt_pmpi_call(a);
    double dt = MPI_Wtime() - t0, mx;
    PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: kring_sweep allgather|bcast|allreduce kring|native K...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hyt_coll_t c = (hyt_coll_t)hyt_coll_from_name(argv[1]);
    int native = strcmp(argv[2], "native") == 0;
    const hyt_alg_t *alg = native ? NULL : hyt_alg_find(c, "kring");
    size_t maxb = 1 << 20;
    char *s = calloc(maxb, 1), *r = calloc(maxb, 1);
    int nk = native ? 1 : argc - 3;
    for (int ki = 0; ki < nk; ki++) {
        int k = native ? 0 : atoi(argv[3 + ki]);
        for (size_t b = 8; b <= maxb; b = b * 8 > maxb && b < maxb ? maxb : b * 8) {
            int count = (int)(b / sizeof(int));
            hyt_args_t a = {.coll = c, .sbuf = s, .rbuf = r, .count = count, .type = MPI_INT,
                            .op = MPI_SUM, .comm = MPI_COMM_WORLD, .stype = MPI_INT};
            if (c == HYT_COLL_ALLGATHER) {
                a.count = count / p > 0 ? count / p : 1;
                a.scount = a.count;
            }
            one(&a, alg, k);
            double sum = 0;
            for (int it = 0; it < 5; it++)
                sum += one(&a, alg, k);
            if (me == 0)
                printf("%s %s %d %zu %.2f\n", argv[1], native ? "native" : "kring", k, b,
                       sum / 5 * 1e6);
        }
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
