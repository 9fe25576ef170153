/* Real-MPI end-to-end test of hybrid mode (MPICH, n = 2 and a short n = 4):
 * loops of MPI_Allreduce, MPI_Bcast, MPI_Allgather, MPI_Reduce, MPI_Gather
 * and MPI_Scatter through hytune with a table selecting radix algorithms
 * (HYTUNE_TABLE; a collective the table has rules for must be tuned), every
 * result compared with PMPI's on the same input (integer sums:
 * bit-identical).  Real timings are noisy and differ between ranks; the
 * test checks that the online records (settled k, call of the settle,
 * probing calls) are the same on every rank and that every tuned key
 * settled.  The per-rank stats files are compared by test_online_statscmp.
 *   test_online_mpi [calls] [threads | rooted]
 * threads: MPI_THREAD_MULTIPLE, which must turn hybrid into offline mode.
 * rooted: also the Gather and Scatter loops (the last two cases).
 * Built also as test_online_mpi-plain (no hytune): results only. */
#ifndef HYT_TEST_PLAIN
#include "online/online.h"
#include "src/hyt.h"
#endif
#include "test/check.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int rank, p;

static void fill(int *v, int n, int call, int salt)
{
    for (int i = 0; i < n; i++)
        v[i] = (rank + 1) * 977 + i * 13 + call * 7 + salt;
}

/* One call of collective c with n ints; 1 if the result differs from PMPI's. */
static int one_call(int c, int n, int call, int *in, int *a, int *b)
{
    int root = call % p;
    fill(in, n, call, c);
    switch (c) {
    case 0:
        MPI_Allreduce(in, a, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(in, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        return memcmp(a, b, (size_t)n * sizeof *a) != 0;
    case 1:
        memcpy(a, in, (size_t)n * sizeof *a);
        memcpy(b, in, (size_t)n * sizeof *b);
        MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
        PMPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
        return memcmp(a, b, (size_t)n * sizeof *a) != 0;
    case 2:
        MPI_Allgather(in, n, MPI_INT, a, n, MPI_INT, MPI_COMM_WORLD);
        PMPI_Allgather(in, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
        return memcmp(a, b, (size_t)n * (size_t)p * sizeof *a) != 0;
    case 3:
        MPI_Reduce(in, a, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        PMPI_Reduce(in, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        return rank == root && memcmp(a, b, (size_t)n * sizeof *a) != 0;
    case 4:
        MPI_Gather(in, n, MPI_INT, a, n, MPI_INT, root, MPI_COMM_WORLD);
        PMPI_Gather(in, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD);
        return rank == root && memcmp(a, b, (size_t)n * (size_t)p * sizeof *a) != 0;
    default:
        fill(in, n * p, call, c); /* the root scatters p blocks */
        MPI_Scatter(in, n, MPI_INT, a, n, MPI_INT, root, MPI_COMM_WORLD);
        PMPI_Scatter(in, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD);
        return memcmp(a, b, (size_t)n * sizeof *a) != 0;
    }
}

static const struct {
    const char *name;
    int coll; /* index for one_call */
    int count;
} cases[] = {
    {"allreduce 8 B", 0, 2}, {"allreduce 4 KiB", 0, 1024}, {"bcast 64 B", 1, 16},
    {"allgather 8 B", 2, 2}, {"reduce 64 B", 3, 16}, {"gather 64 B", 4, 16},
    {"scatter 64 B", 5, 16},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

#ifndef HYT_TEST_PLAIN
static const hyt_coll_t colls[] = {HYT_COLL_ALLREDUCE, HYT_COLL_BCAST, HYT_COLL_ALLGATHER,
                                   HYT_COLL_REDUCE,    HYT_COLL_GATHER, HYT_COLL_SCATTER};

/* The key's online record must be the same on every rank. */
static void check_agreement(int c)
{
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    size_t bytes = (size_t)cases[c].count * sizeof(int);
    hyt_key_t *key = ctx->keys[colls[cases[c].coll]][hyt_bucket(bytes)];
    hyt_online_info_t info;
    memset(&info, 0, sizeof info);
    int tuned = key && hyt_online_key_info(key, &info) == 0;
    long long v[4] = {tuned, info.settled_k, info.settled_call, info.probing_calls};
    long long mx[4], mn[4];
    PMPI_Allreduce(v, mx, 4, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(v, mn, 4, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    CHECK(memcmp(mx, mn, sizeof mx) == 0,
          "%s: ranks disagree: tuned %lld..%lld, k %lld..%lld, settle call %lld..%lld, "
          "probing calls %lld..%lld", cases[c].name, mn[0], mx[0], mn[1], mx[1], mn[2], mx[2],
          mn[3], mx[3]);
    if (hyt_cfg.mode != HYT_MODE_HYBRID)
        CHECK(!tuned, "%s: tuned online in mode %d", cases[c].name, (int)hyt_cfg.mode);
    if (hyt_cfg.mode == HYT_MODE_HYBRID && hyt_table && ctx->rules[colls[cases[c].coll]]) {
        CHECK(tuned, "%s: not tuned online (algorithm %s)", cases[c].name,
              key && key->alg ? key->alg->name : "-");
        CHECK(info.settled_k > 0, "%s: not settled", cases[c].name);
    }
    if (rank == 0 && tuned)
        printf("%-16s settled k=%d at call %lld, %lld probing calls\n", cases[c].name,
               info.settled_k, info.settled_call, info.probing_calls);
}
#endif

int main(int argc, char **argv)
{
    /* "threads": MPI_THREAD_MULTIPLE, under which hybrid mode runs offline */
    int threads = argc > 2 && strcmp(argv[2], "threads") == 0, provided = MPI_THREAD_SINGLE;
    if (threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int calls = argc > 1 ? atoi(argv[1]) : 60;
#ifndef HYT_TEST_PLAIN
    if (threads && provided == MPI_THREAD_MULTIPLE)
        CHECK(hyt_cfg.mode == HYT_MODE_OFFLINE, "THREAD_MULTIPLE left mode %d", (int)hyt_cfg.mode);
#endif
    size_t most = 1024 * (size_t)p;
    int *in = malloc(most * sizeof *in), *a = malloc(most * sizeof *a), *b = malloc(most * sizeof *b);
    if (!in || !a || !b)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int ncases = argc > 2 && strcmp(argv[2], "rooted") == 0 ? NCASES : NCASES - 2;
    int wrong[NCASES] = {0};
    for (int i = 0; i < calls; i++)
        for (int c = 0; c < ncases; c++)
            wrong[c] += one_call(cases[c].coll, cases[c].count, i, in, a, b);
    for (int c = 0; c < ncases; c++) {
        CHECK(wrong[c] == 0, "rank %d: %s differed from PMPI on %d of %d calls", rank,
              cases[c].name, wrong[c], calls);
#ifndef HYT_TEST_PLAIN
        check_agreement(c);
#endif
    }
    free(in);
    free(a);
    free(b);
    int rc = check_done("test_online_mpi");
    MPI_Finalize();
    return rc;
}
