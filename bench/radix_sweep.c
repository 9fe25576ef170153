/* SMPI latency of the k-nomial and recursive-multiplying kernels per radix,
 * and of SMPI's own binomial / recursive-doubling algorithms.
 *   radix_sweep COLL ALG K...     run hytune's ALG (knomial, recmult) with every K
 *   radix_sweep COLL native       PMPI (the algorithm smpirun was told, e.g.
 *                                 --cfg=smpi/bcast:binomial_tree)
 * COLL: allreduce | allgather | bcast | reduce.  Sizes 8 B .. 512 KiB (x4
 * steps) and 1 MiB are total bytes (Allgather: the gathered buffer, each rank gives
 * size/p, at least one int).  Per point: one warm-up call, then 3 timed
 * calls after a barrier; a call's time is the slowest rank's.  Prints
 * "coll alg k bytes usec" lines on rank 0. */
#include "src/hyt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB (1 << 20)

static double one(hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    if (alg)
        hyt_run_alg(a, alg, k, NULL);
    else
        hyt_pmpi_call(a);
    double dt = PMPI_Wtime() - t0, mx;
    PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

static void sweep(hyt_coll_t c, const hyt_alg_t *alg, const char *name, int k, char *s, char *r,
                  int p, int me)
{
    for (long b = 8; b <= MAXB; b = b < MAXB && b * 4 > MAXB ? MAXB : b * 4) {
        int count = (int)(b / (long)sizeof(int));
        hyt_args_t a = {.coll = c, .sbuf = s, .rbuf = r, .count = count, .type = MPI_INT,
                        .op = MPI_SUM, .comm = MPI_COMM_WORLD, .stype = MPI_INT, .root = 0};
        if (c == HYT_COLL_ALLGATHER)
            a.count = a.scount = count / p > 0 ? count / p : 1;
        one(&a, alg, k);
        double sum = 0;
        for (int it = 0; it < 3; it++)
            sum += one(&a, alg, k);
        if (me == 0)
            printf("%s %s %d %ld %.3f\n", hyt_coll_name(c), name, k, b, sum / 3 * 1e6);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    int cc = argc >= 3 ? hyt_coll_from_name(argv[1]) : -1;
    int native = argc >= 3 && strcmp(argv[2], "native") == 0;
    const hyt_alg_t *alg = cc >= 0 && !native ? hyt_alg_find((hyt_coll_t)cc, argv[2]) : NULL;
    if (cc < 0 || (!native && !alg)) {
        if (me == 0)
            fprintf(stderr, "usage: radix_sweep allreduce|allgather|bcast|reduce "
                            "knomial|recmult|native K...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* allgather: p blocks of at most MAXB/p, rounded up to one int each */
    size_t cap = (size_t)MAXB + (size_t)p * sizeof(int);
    char *s = calloc(cap, 1), *r = calloc(cap, 1);
    if (native)
        sweep((hyt_coll_t)cc, NULL, "native", 0, s, r, p, me);
    for (int i = 3; !native && i < argc; i++)
        sweep((hyt_coll_t)cc, alg, alg->name, atoi(argv[i]), s, r, p, me);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
