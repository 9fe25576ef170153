/* Communicator life cycle under hytune: creating and freeing communicators
 * in a loop with collectives on them, and intercommunicator collectives.
 *
 * Usage: test_core_comm ITERATIONS
 * - every iteration dups the world and splits it by parity, runs an
 *   Allreduce and a Bcast on them (results checked) and frees both;
 * - hytune must keep bounded memory: freed contexts are merged into one per
 *   communicator shape, so the live context list stays short, and no call
 *   is lost from the counts (sum over freed contexts = calls made); the
 *   resident set must not grow with the iteration count;
 * - an intercommunicator Allreduce/Bcast gives MPI's results, goes to PMPI
 *   and is counted as an "intercommunicator" fallback in the stats JSON
 *   (HYTUNE_STATS must contain %r when set, every rank reads its own file). */
#define _GNU_SOURCE
#include "test/mpi/core_util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <unistd.h>

#define INTER_CALLS 5

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

typedef struct tally {
    int contexts;
    long long freed_allreduce, freed_bcast;
} tally_t;

static void count_ctx(hyt_comm_t *ctx, void *arg)
{
    tally_t *t = arg;
    t->contexts++;
    if (!ctx->freed || ctx->is_inter)
        return;
    for (int b = 0; b < HYT_NBUCKETS; b++) {
        if (ctx->keys[HYT_COLL_ALLREDUCE][b])
            t->freed_allreduce += (long long)ctx->keys[HYT_COLL_ALLREDUCE][b]->calls;
        if (ctx->keys[HYT_COLL_BCAST][b])
            t->freed_bcast += (long long)ctx->keys[HYT_COLL_BCAST][b]->calls;
    }
}

static void one_iteration(int rank, int p, int i)
{
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int x = rank + i, sum = -1;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup);
    CHECK(sum == p * (p - 1) / 2 + p * i, "iteration %d: allreduce %d", i, sum);
    int v = rank == (rank % 2) ? 1000 + i : -1; /* rank 0 of each half is world rank 0 or 1 */
    MPI_Bcast(&v, 1, MPI_INT, 0, half);
    CHECK(v == 1000 + i, "iteration %d: bcast %d", i, v);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

static void test_loop(int rank, int p, int iters)
{
    long rss_early = 0;
    for (int i = 0; i < iters; i++) {
        if (i == iters / 10)
            rss_early = rss_kib();
        one_iteration(rank, p, i);
    }
    long growth = rss_kib() - rss_early;
    /* 90% of the loop adds no memory beyond allocator noise */
    if (iters >= 1000 && !getenv("CORE_UNDER_VALGRIND"))
        CHECK(growth < 2048, "resident set grew by %ld KiB over %d iterations", growth,
              iters - iters / 10);
    if (!core_active())
        return;
    tally_t t = {0, 0, 0};
    core_foreach(count_ctx, &t);
    /* world + self + one retired context per shape (dup, half) */
    CHECK(t.contexts <= 4, "%d hytune contexts alive after %d iterations", t.contexts, iters);
    CHECK(t.freed_allreduce == iters && t.freed_bcast == iters,
          "freed contexts count %lld allreduce and %lld bcast calls, %d made", t.freed_allreduce,
          t.freed_bcast, iters);
    if (rank == 0)
        printf("test_core_comm: %d iterations, %d contexts, resident set +%ld KiB\n", iters,
               t.contexts, growth);
}

/* Group of even ranks talks to the group of odd ranks. */
static void test_intercomm(int rank, int p)
{
    if (p < 2)
        return;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter);
    int remote_sum = 0; /* sum of (r + 1) over the other group's world ranks r */
    for (int r = 0; r < p; r++)
        if (r % 2 != rank % 2)
            remote_sum += r + 1;
    for (int i = 0; i < INTER_CALLS; i++) {
        int x = rank + 1, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
        CHECK(y == remote_sum, "intercomm allreduce %d, want %d", y, remote_sum);
    }
    /* Bcast from world rank 0 (rank 0 of the even group) to the odd group */
    int lrank, v = rank == 0 ? 4242 : -1;
    MPI_Comm_rank(local, &lrank);
    int root = rank % 2 ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    if (rank % 2)
        CHECK(v == 4242, "intercomm bcast %d", v);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* After finalize: this rank's stats JSON must show the intercommunicator
 * Allreduce calls as fallbacks. */
static void check_stats_json(int rank, int p)
{
    const char *pat = getenv("HYTUNE_STATS");
    if (!pat || !strstr(pat, "%r") || p < 2)
        return;
    char path[512];
    const char *r = strstr(pat, "%r");
    snprintf(path, sizeof path, "%.*s%d%s.json", (int)(r - pat), pat, rank, r + 2);
    json_object *root = json_object_from_file(path);
    CHECK(root != NULL, "cannot read %s", path);
    if (!root)
        return;
    json_object *comms = NULL;
    json_object_object_get_ex(root, "communicators", &comms);
    long long inter_fb = 0, inter_calls = 0;
    for (size_t i = 0; comms && i < json_object_array_length(comms); i++) {
        json_object *keys = NULL;
        json_object_object_get_ex(json_object_array_get_idx(comms, i), "keys", &keys);
        for (size_t j = 0; keys && j < json_object_array_length(keys); j++) {
            json_object *k = json_object_array_get_idx(keys, j), *coll, *fb, *n, *calls;
            if (!json_object_object_get_ex(k, "collective", &coll) ||
                strcmp(json_object_get_string(coll), "allreduce") != 0 ||
                !json_object_object_get_ex(k, "fallbacks", &fb) ||
                !json_object_object_get_ex(fb, "intercommunicator", &n))
                continue;
            inter_fb += json_object_get_int64(n);
            if (json_object_object_get_ex(k, "calls", &calls))
                inter_calls += json_object_get_int64(calls);
        }
    }
    CHECK(inter_fb == INTER_CALLS && inter_calls == INTER_CALLS,
          "%s: %lld intercommunicator fallbacks in %lld calls, want %d", path, inter_fb,
          inter_calls, INTER_CALLS);
    json_object_put(root);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    test_loop(rank, p, iters);
    test_intercomm(rank, p);
    int rc = core_done("test_core_comm");
    int active = core_active();
    MPI_Finalize();
    if (active) {
        check_stats_json(rank, p);
        rc |= check_failures != 0;
        if (check_failures)
            fprintf(stderr, "test_core_comm: stats JSON check failed on rank %d\n", rank);
    }
    return rc;
}
