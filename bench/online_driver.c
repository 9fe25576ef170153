/* Benchmark driver for hybrid-mode radix tuning (bench/online_converge.sh).
 *
 *   online_driver COLL ALG CALLS[:PART] BYTES...
 * Run under smpirun with HYTUNE_TABLE naming a table that selects ALG for
 * COLL at every size (start k from the table).  For every BYTES it
 *   1. sweeps the radix: for every k of a grid over [k_min, k_max] it runs
 *      ALG directly (hyt_run_alg, no online tuning) 1 + 3 times (Bcast and
 *      Reduce: 1 + 30 or 1 + $ONLINE_SWEEP_CALLS, their calls pipeline in a
 *      loop) and takes the slowest
 *      rank's mean of the timed calls after a barrier: the oracle's best k;
 *   2. oracle: CALLS calls at the best k, total time (slowest rank);
 *   3. hybrid: CALLS calls through MPI_<COLL> (table + online probing),
 *      total time, then reads the key's probing record;
 * and rank 0 prints one CSV line:
 *   p,coll,alg,bytes,start_k,best_k,best_us,settled_k,settled_us,gap_pct,
 *   calls_after_hot,probing_calls,hybrid_us,oracle_us,overhead_pct,
 *   part_calls,hybrid_part_us,oracle_part_us,overhead_part_pct
 * (the last four: the same totals over the first PART calls of both loops,
 * read inside them; empty without PART).
 * settled_us is the sweep's latency of the settled k (measured if the grid
 * missed it); gap_pct its excess over best_us. */
#include "online/online.h"
#include "src/hyt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, p;

static void set_args(hyt_args_t *a, hyt_coll_t c, int *sbuf, int *rbuf, int count)
{
    memset(a, 0, sizeof *a);
    a->coll = c;
    a->sbuf = sbuf;
    a->rbuf = rbuf;
    a->count = count;
    a->type = MPI_INT;
    a->scount = count;
    a->stype = MPI_INT;
    a->op = MPI_SUM;
    a->root = 0;
    a->comm = MPI_COMM_WORLD;
    a->ctx = hyt_comm_get(MPI_COMM_WORLD);
    a->bytes = hyt_selection_bytes(a);
}

static void call_mpi(const hyt_args_t *a)
{
    switch (a->coll) {
    case HYT_COLL_ALLREDUCE:
        MPI_Allreduce(a->sbuf, a->rbuf, a->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case HYT_COLL_BCAST:
        MPI_Bcast(a->rbuf, a->count, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    case HYT_COLL_REDUCE:
        MPI_Reduce(a->sbuf, a->rbuf, a->count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case HYT_COLL_ALLGATHER:
        MPI_Allgather(a->sbuf, a->count, MPI_INT, a->rbuf, a->count, MPI_INT, MPI_COMM_WORLD);
        break;
    default:
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Slowest rank's time of n calls (alg at k, or through MPI when alg NULL);
 * with part in 1..n-1 also the slowest rank's time of the first part calls
 * in *t_part (read on the fly: the loop is not interrupted). */
static double timed_part(hyt_args_t *a, const hyt_alg_t *alg, int k, int n, int part,
                         double *t_part)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t[2] = {0, 0}, tmax[2];
    for (int i = 0; i < n; i++) {
        if (alg)
            hyt_run_alg(a, alg, k, NULL);
        else
            call_mpi(a);
        if (i + 1 == part)
            t[1] = MPI_Wtime() - t0;
    }
    t[0] = MPI_Wtime() - t0;
    PMPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (t_part)
        *t_part = tmax[1];
    return tmax[0];
}

static double timed(hyt_args_t *a, const hyt_alg_t *alg, int k, int n)
{
    return timed_part(a, alg, k, n, 0, NULL);
}

/* Calls per swept k: 3 after a barrier; Bcast and Reduce, whose calls
 * pipeline in a loop (the online component measures that), 30, or
 * ONLINE_SWEEP_CALLS (the mean then carries 1/n of the pipeline's fill: a
 * longer loop weighs the per-call throughput the way a long loop does). */
static int sweep_calls(hyt_coll_t c)
{
    if (c != HYT_COLL_BCAST && c != HYT_COLL_REDUCE)
        return 3;
    const char *e = getenv("ONLINE_SWEEP_CALLS");
    int n = e && *e ? atoi(e) : 30;
    return n > 0 ? n : 30;
}

/* Per-call time of k: the mean of sweep_calls() calls after a barrier. */
static double latency(hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    int n = sweep_calls(a->coll);
    timed(a, alg, k, 1); /* warm-up: scratch space, first-touch */
    return timed(a, alg, k, n) / n;
}

/* Sweep grid: every k to 16, then steps of 4 to 64, of 16 to 256, of 64 beyond. */
static int next_k(int k)
{
    return k < 16 ? k + 1 : k < 64 ? k + 4 : k < 256 ? k + 16 : k + 64;
}

static void one_size(hyt_coll_t c, const hyt_alg_t *alg, int calls, int part, size_t bytes)
{
    int count = bytes < sizeof(int) ? 1 : (int)(bytes / sizeof(int));
    size_t n = (size_t)count * (size_t)p;
    int *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r);
    if (!s || !r)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < n; i++)
        s[i] = r[i] = rank + (int)i;
    hyt_args_t a;
    set_args(&a, c, s, r, count);
    int kmax = hyt_alg_k_max(alg, p), best_k = alg->k_min, nk = 0;
    double best = 1e300, lat[HYT_K_LIMIT / 64 + 64];
    int ks[HYT_K_LIMIT / 64 + 64];
    for (int k = alg->k_min; k <= kmax; k = next_k(k)) {
        double t = latency(&a, alg, k);
        ks[nk] = k;
        lat[nk++] = t;
        if (t < best) {
            best = t;
            best_k = k;
        }
    }
    double oracle_part = 0, hybrid_part = 0;
    double oracle = timed_part(&a, alg, best_k, calls, part, &oracle_part);
    double hybrid = timed_part(&a, NULL, 0, calls, part, &hybrid_part);
    hyt_key_t *key = a.ctx->keys[c][hyt_bucket(a.bytes)];
    hyt_online_info_t info;
    memset(&info, 0, sizeof info);
    if (!key || hyt_online_key_info(key, &info) != 0)
        info.settled_k = 0;
    double settled = -1;
    for (int i = 0; i < nk; i++)
        if (ks[i] == info.settled_k)
            settled = lat[i];
    if (settled < 0 && info.settled_k > 0)
        settled = latency(&a, alg, info.settled_k);
    if (rank == 0) {
        printf("%d,%s,%s,%zu,%d,%d,%.3f,%d,%.3f,%.2f,%lld,%lld,%.1f,%.1f,%.2f", p,
               hyt_coll_name(c), alg->name, bytes, info.start_k, best_k, best * 1e6,
               info.settled_k, settled * 1e6, 100 * (settled / best - 1), info.calls_after_hot,
               info.probing_calls, hybrid * 1e6, oracle * 1e6, 100 * (hybrid / oracle - 1));
        if (part > 0 && part < calls)
            printf(",%d,%.1f,%.1f,%.2f\n", part, hybrid_part * 1e6, oracle_part * 1e6,
                   100 * (hybrid_part / oracle_part - 1));
        else
            printf(",,,,\n");
    }
    fflush(stdout);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 5) {
        if (rank == 0)
            fprintf(stderr, "usage: online_driver COLL ALG CALLS BYTES...\n");
        MPI_Finalize();
        return 2;
    }
    int c = hyt_coll_from_name(argv[1]);
    const hyt_alg_t *alg = c >= 0 ? hyt_alg_find((hyt_coll_t)c, argv[2]) : NULL;
    if (!alg || !hyt_alg_has_radix(alg)) {
        if (rank == 0)
            fprintf(stderr, "online_driver: no radix algorithm %s for %s (see hytune list)\n",
                    argv[2], argv[1]);
        MPI_Finalize();
        return 2;
    }
    /* CALLS or CALLS:PART (PART: also the totals of the first PART calls) */
    int calls = atoi(argv[3]), part = 0;
    const char *colon = strchr(argv[3], ':');
    if (colon)
        part = atoi(colon + 1);
    size_t bytes[argc];
    for (int i = 4; i < argc; i++) {
        char *end;
        unsigned long long b = strtoull(argv[i], &end, 10);
        if (end == argv[i] || *end || b == 0) {
            if (rank == 0)
                fprintf(stderr, "online_driver: BYTES must be a positive number, not \"%s\" "
                                "(one case per line or separated by / in ONLINE_CASES)\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
        bytes[i] = (size_t)b;
    }
    for (int i = 4; i < argc; i++)
        one_size((hyt_coll_t)c, alg, calls, part, bytes[i]);
    MPI_Finalize();
    return 0;
}
