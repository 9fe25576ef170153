/* SMPI latency of hytune's kernels for Barrier, Gather, Scatter,
 * Allgatherv, Alltoallv, Reduce_scatter, Reduce_scatter_block, Scan and
 * Exscan, and of the MPI
 * library's own selection (run smpirun with --cfg=smpi/coll-selector:mpich
 * for SimGrid's MPICH selection).
 *   newcoll_sweep [-s B,B,...] [-w N] [-i N] COLL [skew] native    PMPI
 *   newcoll_sweep [-s B,B,...] [-w N] [-i N] COLL [skew] table     hytune's dispatch, as
 *                              MPI_<COLL> reaches it (HYTUNE_TABLE, HYTUNE_MODE)
 *   newcoll_sweep [-s B,B,...] [-w N] [-i N] COLL [skew] ALG K...  hytune's ALG with
 *                              every K (0: no radix)
 * Sizes 8 B .. 1 MiB (x4 steps, then 1 MiB), or the list -s, of MPI_INT:
 *   gather, scatter, allgatherv, reduce_scatter: the whole vector (each rank's
 *   block size/p, at least one int); alltoallv: what one rank sends in all;
 *   reduce_scatter_block: one rank's block (its input: p blocks);
 *   scan, exscan: the vector; barrier: one point of 0 bytes.
 * skew (v-variants): every 8th block (Alltoallv: pair) is 8 times the
 * others, the total kept.  Per point: N warm-up calls (-w, default 1; 0
 * for MPI's own selection where one call is expensive to simulate: the
 * barrier before the timed call pays MPI's set-up of the communicator, but
 * not hytune's, which a kernel's first call pays; hybrid
 * mode tunes a key online once it has had HYTUNE_HOT_CALLS calls, so give it
 * enough to settle; table mode: more while hytune's private duplicate waits
 * to be repaid, and in hybrid mode N more after it, since hybrid mode tunes
 * a key only from its duplicate on), then N timed calls (-i, default 3; hybrid mode: enough to
 * spread its periodic drift checks as an application's calls do)
 * after a barrier; a call's time is the slowest rank's; a call that fails or
 * falls back aborts the run.  Prints
 * "coll alg k bytes usec" lines on rank 0. */
#include "src/hyt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB (1 << 20)

static int table_mode;
static int warmups = 1, iters = 3;

static double one(hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    hyt_fallback_t fb = HYT_FB_NONE;
    hyt_args_t call = *a; /* hyt_dispatch fills fields of its own */
    int rc = alg          ? hyt_run_alg(&call, alg, k, &fb)
             : table_mode ? hyt_dispatch(&call)
                          : hyt_pmpi_call(&call);
    if (rc != MPI_SUCCESS || fb != HYT_FB_NONE) {
        fprintf(stderr, "newcoll_sweep: %s %s:%d failed (error %d, fallback %s)\n",
                hyt_coll_name(a->coll), alg ? alg->name : "native", k, rc, hyt_fallback_name(fb));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double dt = PMPI_Wtime() - t0, mx;
    PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

/* Table mode: calls of c that ran MPI's own algorithm since the last
 * look because hytune's private duplicate of MPI_COMM_WORLD was not yet
 * repaid (HYT_FB_SETUP, counted per key; the same on every rank). */
#define MAX_SETUP_WARMUP 10000
static uint64_t setup_seen;
static uint64_t setup_waits(hyt_coll_t c)
{
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    uint64_t n = 0;
    for (int b = 0; ctx && b < HYT_NBUCKETS; b++)
        if (ctx->keys[c][b])
            n += ctx->keys[c][b]->fallbacks[HYT_FB_SETUP];
    uint64_t d = n - setup_seen;
    setup_seen = n;
    return d;
}

/* Ints of block i out of n ints over p blocks (skew: weight 8 on every 8th). */
static int share(long n, int p, int i, int skew)
{
    long w = skew ? (i % 8 == 0 ? 8 : 1) : 1, tot = 0;
    for (int j = 0; j < p; j++)
        tot += skew ? (j % 8 == 0 ? 8 : 1) : 1;
    long c = n * w / tot;
    return c > 0 ? (int)c : 1;
}

static long displs(int p, const int *c, int *d)
{
    long at = 0;
    for (int i = 0; i < p; i++) {
        d[i] = (int)at;
        at += c[i];
    }
    return at;
}

/* The next size after b: of the list (-s; -1 after its end), else 8 B .. 1 MiB x4. */
static long next_size(hyt_coll_t c, const char *list, int *at, long b)
{
    if (c == HYT_COLL_BARRIER)
        return b < 0 ? 0 : -1;
    if (list) {
        const char *s = list;
        for (int i = 0; i < *at && s; i++)
            s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL;
        ++*at;
        return s && *s ? atol(s) : -1;
    }
    return b < 0 ? 8 : b >= MAXB ? -1 : b * 4 > MAXB ? MAXB : b * 4;
}

static void sweep(hyt_coll_t c, int skew, const hyt_alg_t *alg, const char *name, int k, int p,
                  int me, int *v, const char *list)
{
    int *sc = v, *sd = v + p, *rc = v + 2 * p, *rd = v + 3 * p, at = 0;
    for (long b = next_size(c, list, &at, -1); b >= 0; b = next_size(c, list, &at, b)) {
        long n = b / (long)sizeof(int);
        hyt_args_t a = {.coll = c, .count = (int)n, .type = MPI_INT, .scount = (int)n,
                        .stype = MPI_INT, .op = MPI_SUM, .comm = MPI_COMM_WORLD, .root = 0,
                        .scounts = sc, .sdispls = sd, .rcounts = rc, .rdispls = rd};
        long sn = n, rn = n;
        if (c == HYT_COLL_GATHER || c == HYT_COLL_SCATTER) {
            a.count = a.scount = share(n, p, 0, 0);
            sn = rn = (long)p * a.count;
        } else if (c == HYT_COLL_ALLGATHERV || c == HYT_COLL_REDUCE_SCATTER) {
            for (int i = 0; i < p; i++)
                rc[i] = share(n, p, i, skew);
            sn = rn = displs(p, rc, rd);
            a.scount = rc[me];
        } else if (c == HYT_COLL_REDUCE_SCATTER_BLOCK) {
            sn = (long)p * n;
        } else if (c == HYT_COLL_ALLTOALLV) {
            for (int i = 0; i < p; i++) {
                sc[i] = share(n, p, (me + i) % p, skew);
                rc[i] = share(n, p, (i + me) % p, skew);
            }
            sn = displs(p, sc, sd);
            rn = displs(p, rc, rd);
        }
        char *s = calloc((size_t)sn + 1, sizeof(int)), *r = calloc((size_t)rn + 1, sizeof(int));
        a.sbuf = s;
        a.rbuf = r;
        for (int w = 0; w < warmups; w++)
            one(&a, alg, k);
        /* table mode: the warm-up goes on while a call ran MPI's own
         * algorithm only because the private duplicate's set-up is not yet
         * repaid (docs/memory.md), as collbench's 20 warm-up calls let it
         * happen: the timed calls are the table's steady state */
        int waited = 0;
        for (int w = 1; table_mode && setup_waits(c) > 0 && w < MAX_SETUP_WARMUP; w++, waited = 1)
            one(&a, alg, k);
        /* hybrid mode counts a key's calls towards hot from the duplicate
         * on: its warm-up starts again there */
        for (int w = 0; waited && hyt_cfg.mode == HYT_MODE_HYBRID && w < warmups; w++)
            one(&a, alg, k);
        double sum = 0;
        for (int it = 0; it < iters; it++)
            sum += one(&a, alg, k);
        if (me == 0)
            printf("%s%s %s %d %ld %.3f\n", hyt_coll_name(c), skew ? "-skew" : "", name, k, b,
                   sum / iters * 1e6);
        free(s);
        free(r);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *list = NULL;
    int first = 1;
    for (; argc > first + 1 && argv[first][0] == '-'; first += 2) {
        char *end;
        long w = strtol(argv[first + 1], &end, 10);
        if (strcmp(argv[first], "-s") == 0)
            list = argv[first + 1];
        else if (strcmp(argv[first], "-w") == 0 && *end == '\0' && w >= 0 && w <= 100000)
            warmups = (int)w;
        else if (strcmp(argv[first], "-i") == 0 && *end == '\0' && w >= 1 && w <= 100000)
            iters = (int)w;
        else
            break; /* the usage below */
    }
    int cc = argc >= first + 2 ? hyt_coll_from_name(argv[first]) : -1, arg = first + 1;
    int skew = argc > arg && strcmp(argv[arg], "skew") == 0;
    arg += skew;
    int native = argc > arg && strcmp(argv[arg], "native") == 0;
    table_mode = argc > arg && strcmp(argv[arg], "table") == 0;
    const hyt_alg_t *alg =
        cc >= 0 && argc > arg && !native && !table_mode ? hyt_alg_find((hyt_coll_t)cc, argv[arg])
                                                        : NULL;
    if (cc < 0 || (!native && !table_mode && !alg)) {
        if (me == 0)
            fprintf(stderr, "usage: newcoll_sweep [-s B,B,...] [-w WARMUPS 0..100000] "
                            "[-i TIMED 1..100000] COLL [skew] native|table|ALG K...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *v = malloc(4 * (size_t)p * sizeof(int));
    if (native || table_mode)
        sweep((hyt_coll_t)cc, skew, NULL, argv[arg], 0, p, me, v, list);
    for (int i = arg + 1; alg && i < argc; i++)
        sweep((hyt_coll_t)cc, skew, alg, alg->name, atoi(argv[i]), p, me, v, list);
    free(v);
    MPI_Finalize();
    return 0;
}
