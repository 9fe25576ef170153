/* SimGrid latency of node-aware compositions against flat algorithms.
 *
 * Usage: composition COLL SPEC[,SPEC...] SIZE[,SIZE...] ITERS
 *   COLL  allreduce | bcast | reduce | allgather
 *   SPEC  native | NAME | NAME:K | NAME:prior | NAME:sweep (every k in 2,3,4,6,8,
 *         12,16,24,32,48,64,... up to the communicator size)
 * Prints one line per (spec, size): coll, bytes, algorithm, k, latency in
 * microseconds = median over ITERS of (last exit - first entry) over all ranks
 * (simulated time, deterministic with --cfg=smpi/simulate-computation:no),
 * after one warm-up. */
#include "src/hyt.h"
#include "topology/topology.h"

#include <stdlib.h>
#include <string.h>

/* Median over iters of the completion span: the last rank's exit minus the
 * first rank's entry (MPI_Wtime is the simulation's global clock, so times
 * of different ranks compare). */
static double run_one(hyt_args_t *a, const hyt_alg_t *alg, int k, int iters, MPI_Comm timing)
{
    double t[64];
    iters = iters > 64 ? 64 : iters;
    PMPI_Barrier(a->comm);
    hyt_run_alg(a, alg, k, NULL); /* warm-up: first-call setup (node split) */
    for (int i = 0; i < iters; i++) {
        PMPI_Barrier(a->comm);
        double se[2], r[2];
        se[0] = -PMPI_Wtime();
        hyt_run_alg(a, alg, k, NULL);
        se[1] = PMPI_Wtime();
        PMPI_Allreduce(se, r, 2, MPI_DOUBLE, MPI_MAX, timing);
        t[i] = r[1] + r[0];
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) { /* insertion sort */
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    }
    return t[iters / 2] * 1e6;
}

/* 2, 3, 4, 6, 8, 12, 16, 24, ...: powers of two and their midpoints */
static int next_k(int k)
{
    if (k < 4)
        return k + 1;
    return (k & (k - 1)) ? k / 3 * 4 : k / 2 * 3;
}

static void bench(hyt_coll_t c, const char *spec, size_t bytes, int iters, char *buf, char *out,
                  MPI_Comm timing)
{
    char name[64];
    const char *colon = strchr(spec, ':');
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
    const hyt_alg_t *alg = hyt_alg_find(c, name);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (!alg) {
        if (rank == 0)
            fprintf(stderr, "composition: no algorithm %s for %s\n", name, hyt_coll_name(c));
        return;
    }
    int red = hyt_coll_has_op(c);
    hyt_args_t a = {.coll = c, .sbuf = buf, .rbuf = c == HYT_COLL_BCAST ? buf : out,
                    .count = (int)(red ? bytes / 4 : bytes), .type = red ? MPI_INT : MPI_BYTE,
                    .scount = (int)bytes, .stype = MPI_BYTE, .op = MPI_SUM, .root = 0,
                    .comm = MPI_COMM_WORLD};
    a.ctx = hyt_comm_get(MPI_COMM_WORLD);
    int ks[32], nk = 0;
    if (!colon || !hyt_alg_has_radix(alg))
        ks[nk++] = hyt_alg_has_radix(alg) ? hyt_topo_prior_k(alg, a.ctx, bytes) : 0;
    else if (strcmp(colon + 1, "prior") == 0)
        ks[nk++] = hyt_topo_prior_k(alg, a.ctx, bytes);
    else if (strcmp(colon + 1, "sweep") == 0) {
        /* a composition's k acts over the node leaders */
        int lim = alg->flags & HYT_ALG_COMPOSITION ? a.ctx->nodes : p;
        for (int k = 2; k <= lim && nk < 32; k = next_k(k))
            ks[nk++] = k;
    } else
        ks[nk++] = atoi(colon + 1);
    for (int i = 0; i < nk; i++) {
        double us = run_one(&a, alg, ks[i], iters, timing);
        if (rank == 0)
            printf("%-10s %8zu %-12s %4d %10.2f\n", hyt_coll_name(c), bytes, alg->name, ks[i], us);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 5) {
        fprintf(stderr, "usage: composition COLL SPEC[,SPEC] SIZE[,SIZE] ITERS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int c = hyt_coll_from_name(argv[1]), iters = atoi(argv[4]), p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t maxb = 0;
    char *sizes = strdup(argv[3]), *s1 = NULL, *specs, *s2 = NULL;
    for (char *t = strtok_r(sizes, ",", &s1); t; t = strtok_r(NULL, ",", &s1))
        maxb = (size_t)atol(t) > maxb ? (size_t)atol(t) : maxb;
    size_t outb = c == HYT_COLL_ALLGATHER ? maxb * (size_t)p : maxb;
    char *buf = calloc(maxb + 64, 1), *out = calloc(outb + 64, 1);
    MPI_Comm timing;
    PMPI_Comm_dup(MPI_COMM_WORLD, &timing);
    free(sizes);
    sizes = strdup(argv[3]);
    for (char *t = strtok_r(sizes, ",", &s1); t && c >= 0; t = strtok_r(NULL, ",", &s1)) {
        specs = strdup(argv[2]);
        for (char *sp = strtok_r(specs, ",", &s2); sp; sp = strtok_r(NULL, ",", &s2))
            bench((hyt_coll_t)c, sp, (size_t)atol(t), iters, buf, out, timing);
        free(specs);
    }
    free(sizes);
    free(buf);
    free(out);
    PMPI_Comm_free(&timing);
    MPI_Finalize();
    return 0;
}
