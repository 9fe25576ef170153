/* SMPI end-to-end test of hybrid mode: loops of MPI_Allreduce, MPI_Allgather,
 * MPI_Bcast and MPI_Reduce at several sizes go through hytune (table
 * test/smpi/online_table.json selects knomial, recmult and kring), and every
 * call's result is compared byte for byte with the PMPI result of the same
 * input (integer sums: bit-identical).  At the end every tuned key must be
 * settled; the per-rank statistics files (HYTUNE_STATS=DIR/stats.%r) are
 * compared across ranks by test_online_statscmp (test/smpi/online_run.sh).
 * With HYTUNE_WARM_START (the stats of an earlier run) every key must start
 * at the earlier settled k and only verify it (one window); with
 * HYTUNE_TEST_KERNEL_FAIL_AT=warm (one rank cannot hold it) no key may use it.
 *   test_online_hybrid [calls] [noise]
 * noise: before every call each rank computes for a seeded random 0-3 us
 * (arrival skew; local times then differ between ranks). */
#include "online/online.h"
#include "online/warm.h"
#include "src/hyt.h"
#include "test/check.h"

#include <smpi/smpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, p, noise;
static uint64_t rng;

static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void skew(void)
{
    if (noise)
        smpi_execute_flops(3e3 * urand()); /* up to 3 us at 1 Gflop/s */
}

static void fill(int *v, int n, int call, int salt)
{
    for (int i = 0; i < n; i++)
        v[i] = (rank + 1) * 131 + i * 7 + call * 31 + salt;
}

static int allreduce(int n, int call, int *a, int *b, int *in)
{
    fill(in, n, call, 1);
    skew();
    MPI_Allreduce(in, a, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(in, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return memcmp(a, b, (size_t)n * sizeof *a) != 0;
}

static int allgather(int n, int call, int *a, int *b, int *in)
{
    fill(in, n, call, 2);
    skew();
    MPI_Allgather(in, n, MPI_INT, a, n, MPI_INT, MPI_COMM_WORLD);
    PMPI_Allgather(in, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    return memcmp(a, b, (size_t)n * (size_t)p * sizeof *a) != 0;
}

static int bcast(int n, int call, int *a, int *b, int *in)
{
    (void)in;
    int root = (call * 5) % p;
    fill(a, n, call, rank == root ? 3 : 4);
    memcpy(b, a, (size_t)n * sizeof *a);
    skew();
    MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
    PMPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
    return memcmp(a, b, (size_t)n * sizeof *a) != 0;
}

static int reduce(int n, int call, int *a, int *b, int *in)
{
    int root = (call * 7) % p;
    fill(in, n, call, 5);
    memset(a, 0, (size_t)n * sizeof *a);
    memset(b, 0, (size_t)n * sizeof *b);
    skew();
    MPI_Reduce(in, a, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    PMPI_Reduce(in, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    return rank == root && memcmp(a, b, (size_t)n * sizeof *a) != 0;
}

typedef struct {
    const char *name;
    int (*fn)(int n, int call, int *a, int *b, int *in);
    hyt_coll_t coll;
    int count;
} case_t;

static const case_t cases[] = {
    {"allreduce 8 B", allreduce, HYT_COLL_ALLREDUCE, 2},
    {"allreduce 2 KiB", allreduce, HYT_COLL_ALLREDUCE, 512},
    {"allreduce 32 KiB", allreduce, HYT_COLL_ALLREDUCE, 8192},
    {"allgather 8 B", allgather, HYT_COLL_ALLGATHER, 2},
    {"allgather 1 KiB", allgather, HYT_COLL_ALLGATHER, 256},
    {"bcast 64 B", bcast, HYT_COLL_BCAST, 16},
    {"bcast 16 KiB", bcast, HYT_COLL_BCAST, 4096},
    {"reduce 64 B", reduce, HYT_COLL_REDUCE, 16},
    {"reduce 4 KiB", reduce, HYT_COLL_REDUCE, 1024},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int calls = argc > 1 ? atoi(argv[1]) : 60;
    noise = argc > 2 && strcmp(argv[2], "noise") == 0;
    rng = 0x853c49e6748fea9bULL + (uint64_t)rank * 0xda3e39cb94b95bdbULL;
    size_t most = 8192 * (size_t)(p > 32 ? p : 32);
    int *a = malloc(most * sizeof *a), *b = malloc(most * sizeof *b), *in = malloc(most * sizeof *in);
    if (!a || !b || !in)
        MPI_Abort(MPI_COMM_WORLD, 2);
    /* keys interleave, as in an application's time step */
    int wrong[NCASES] = {0};
    for (int i = 0; i < calls; i++)
        for (int c = 0; c < NCASES; c++)
            wrong[c] += cases[c].fn(cases[c].count, i, a, b, in);
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    int tuned = 0;
    int warm_lost = hyt_cfg.warm_start && hyt_cfg.test_kernel_fail >= 0 &&
                    hyt_cfg.test_kernel_fail_at == HYT_TEST_FAIL_WARM;
    for (int c = 0; c < NCASES; c++) {
        CHECK(wrong[c] == 0, "rank %d: %s differed from PMPI on %d of %d calls", rank,
              cases[c].name, wrong[c], calls);
        size_t bytes = (size_t)cases[c].count * sizeof(int);
        hyt_key_t *key = ctx->keys[cases[c].coll][hyt_bucket(bytes)];
        int k = 0, st = key ? hyt_online_key_settled(key, &k) : -1;
        if (st >= 0)
            tuned++;
        hyt_online_info_t info;
        int have_info = key && hyt_online_key_info(key, &info) == 0;
        /* settled now, or settled once and re-probing after a drift check
         * (the other keys' probing ending changes a key's arrival skew) */
        int reprobing = st == 0 && have_info && info.settled_call > 0 && info.reprobes > 0;
        if (hyt_cfg.mode == HYT_MODE_HYBRID)
            CHECK(st == 1 || reprobing, "rank %d: %s not settled after %d calls (state %d, alg %s)",
                  rank, cases[c].name, calls, st, key && key->alg ? key->alg->name : "-");
        if (warm_lost) /* one rank could not read it: no rank may use it */
            CHECK(hyt_online_warm_count() == 0 && have_info &&
                      info.probing_calls > hyt_cfg.probe_calls,
                  "rank %d: %s: warm start %s used though rank %ld failed to read it (%d "
                  "entries kept, %lld probing calls)", rank, cases[c].name, hyt_cfg.warm_start,
                  hyt_cfg.test_kernel_fail, hyt_online_warm_count(),
                  have_info ? info.probing_calls : -1LL);
        else if (hyt_cfg.warm_start && have_info)
            CHECK(info.probing_calls == hyt_cfg.probe_calls && info.settled_k == info.start_k,
                  "%s: warm start from %s not used: %lld probing calls, start k %d, settled %d",
                  cases[c].name, hyt_cfg.warm_start, info.probing_calls, info.start_k,
                  info.settled_k);
        if (rank == 0 && st == 1)
            printf("%-18s %s:k=%d\n", cases[c].name, key->alg->name, k);
    }
    if (hyt_cfg.mode == HYT_MODE_HYBRID)
        CHECK(tuned == NCASES, "only %d of %d keys were tuned online (table %s loaded: %s)",
              tuned, NCASES, hyt_cfg.table ? hyt_cfg.table : "none", hyt_table ? "yes" : "no");
    else
        CHECK(tuned == 0, "mode %d tuned %d keys online", (int)hyt_cfg.mode, tuned);
    free(a);
    free(b);
    free(in);
    int rc = check_done("test_online_hybrid");
    MPI_Finalize();
    return rc;
}
