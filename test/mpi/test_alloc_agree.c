/* An allocation that fails on one rank only must not make that rank decide
 * apart from the others (docs/memory.md).  HYTUNE_TEST_KERNEL_FAIL=F makes
 * it fail on world rank F, HYTUNE_TEST_KERNEL_FAIL_AT says which:
 *   test_alloc_agree node CALLS     (node) F cannot hold the node model's
 *        memory at MPI_Init: hytune runs off on every rank.  Without the
 *        failure hytune runs on every rank.
 *   test_alloc_agree online CALLS   (online; hybrid mode with a table whose
 *        Reduce rule has a radix, HYTUNE_HOT_CALLS=auto) F cannot hold the
 *        longer windows and the references of the Reduce key, whose root
 *        rotates: the key is off on every rank, at the rule's own
 *        algorithm.  Without the failure the key is tuned (not off).
 *   test_alloc_agree small CALLS    (ctx, nodemodel, key, onlinekey, init)
 *        F cannot allocate a communicator's context, its node model, a key,
 *        an online key or MPI_Init's settings exchange: the emergency
 *        reserve serves them on F (and on no other rank), hytune runs on
 *        every rank, and alloc_agree.sh compares every rank's statistics
 *        with a run without the failure.  The calls of node and online run
 *        on MPI_COMM_WORLD, then on a duplicate of it and (4 ranks or more)
 *        on the halves of a split, with an Allreduce of 8 ints and an
 *        MPI_Iallreduce (its own key) in each round; the communicators are
 *        freed before the checks.
 *        With spent (F's reserve is empty and its keys cannot be allocated)
 *        the job stops with one message (alloc_agree.sh checks it).
 * All run CALLS rounds of Allreduce, Bcast and Reduce (the root rotating)
 * of 4096 ints, the Reduce loop back to back first (the key online mode
 * tunes), each result compared with PMPI's on the same input (integer sums:
 * exact), and compare every rank's state (mode, the Reduce key's online
 * record) with MPI_MIN and MPI_MAX: a rank that decided alone hangs the run
 * (the testlist's timeout) or shows here.  Built also as -plain (no
 * hytune): results only. */
#ifndef HYT_TEST_PLAIN
#include "online/online.h"
#include "src/hyt.h"
#endif
#include "test/check.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 4096

static int rank, p; /* in MPI_COMM_WORLD */

static void fill(int *v, int call, int salt)
{
    for (int i = 0; i < COUNT; i++)
        v[i] = (rank + 1) * 977 + i * 13 + call * 7 + salt;
}

/* Collective c (0 Reduce, 1 Allreduce, 2 Bcast, 3 Allreduce of 8 ints, 4
 * Iallreduce) once on comm; 1 if it differs from PMPI's. */
static int one_call(MPI_Comm comm, int c, int call, int *in, int *a, int *b)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int root = call % size;
    fill(in, call, c);
    MPI_Request req;
    switch (c) {
    case 0:
        MPI_Reduce(in, a, COUNT, MPI_INT, MPI_SUM, root, comm);
        PMPI_Reduce(in, b, COUNT, MPI_INT, MPI_SUM, root, comm);
        return me == root && memcmp(a, b, COUNT * sizeof *a) != 0;
    case 1:
        MPI_Allreduce(in, a, COUNT, MPI_INT, MPI_SUM, comm);
        PMPI_Allreduce(in, b, COUNT, MPI_INT, MPI_SUM, comm);
        return memcmp(a, b, COUNT * sizeof *a) != 0;
    case 2:
        memcpy(a, in, COUNT * sizeof *a);
        memcpy(b, in, COUNT * sizeof *b);
        MPI_Bcast(a, COUNT, MPI_INT, root, comm);
        PMPI_Bcast(b, COUNT, MPI_INT, root, comm);
        return memcmp(a, b, COUNT * sizeof *a) != 0;
    case 3:
        MPI_Allreduce(in, a, 8, MPI_INT, MPI_SUM, comm);
        PMPI_Allreduce(in, b, 8, MPI_INT, MPI_SUM, comm);
        return memcmp(a, b, 8 * sizeof *a) != 0;
    default:
        MPI_Iallreduce(in, a, COUNT, MPI_INT, MPI_SUM, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        PMPI_Allreduce(in, b, COUNT, MPI_INT, MPI_SUM, comm);
        return memcmp(a, b, COUNT * sizeof *a) != 0;
    }
}

/* CALLS rounds on comm: the Reduce loop back to back first, then the
 * others (ncoll of them) in turn. */
static int rounds(MPI_Comm comm, int calls, int ncoll, int *in, int *a, int *b)
{
    int wrong = 0;
    for (int i = 0; i < calls; i++)
        wrong += one_call(comm, 0, i, in, a, b);
    for (int i = 0; i < calls; i++)
        for (int c = 1; c < ncoll; c++)
            wrong += one_call(comm, c, i, in, a, b);
    return wrong;
}

#ifndef HYT_TEST_PLAIN
static long long name_hash(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (long long)(h >> 2);
}

/* Every rank's state, compared; returns the Reduce key's record (state
 * NULL: none). */
static void check_same(hyt_online_info_t *info)
{
    memset(info, 0, sizeof *info);
    hyt_comm_t *ctx = hyt_initialized ? hyt_comm_get(MPI_COMM_WORLD) : NULL;
    hyt_key_t *key = ctx ? ctx->keys[HYT_COLL_REDUCE][hyt_bucket(COUNT * sizeof(int))] : NULL;
    int online = key && hyt_online_key_info(key, info) == 0;
    if (!online)
        info->state = NULL;
    long long v[8] = {hyt_initialized, (long long)hyt_cfg.mode, online,
                      online ? name_hash(info->state) : 0, online ? name_hash(info->alg_now) : 0,
                      online ? info->k_now : 0, online ? info->probing_calls : 0,
                      online ? info->choosing_calls : 0};
    long long lo[8], hi[8];
    PMPI_Allreduce(v, lo, 8, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(v, hi, 8, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(memcmp(lo, hi, sizeof lo) == 0,
          "ranks differ: initialized %lld..%lld, mode %lld..%lld, online %lld..%lld, "
          "state %s, k %lld..%lld, probing calls %lld..%lld", lo[0], hi[0], lo[1], hi[1], lo[2],
          hi[2], lo[3] == hi[3] ? "same" : "differs", lo[5], hi[5], lo[6], hi[6]);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int small = argc >= 3 && strcmp(argv[1], "small") == 0;
    if (argc < 3 || (strcmp(argv[1], "node") != 0 && strcmp(argv[1], "online") != 0 && !small)) {
        if (rank == 0)
            fprintf(stderr, "usage: test_alloc_agree node|online|small CALLS\n");
        MPI_Finalize();
        return 2;
    }
    int calls = atoi(argv[2]);
    int *in = malloc(COUNT * sizeof *in), *a = malloc(COUNT * sizeof *a),
        *b = malloc(COUNT * sizeof *b);
    if (!in || !a || !b)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int wrong = rounds(MPI_COMM_WORLD, calls, small ? 5 : 3, in, a, b);
    if (small) {
        MPI_Comm dup, half = MPI_COMM_NULL;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        wrong += rounds(dup, calls, 5, in, a, b);
        if (p >= 4) {
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
            wrong += rounds(half, calls, 5, in, a, b);
            MPI_Comm_free(&half);
        }
        MPI_Comm_free(&dup);
    }
#ifndef HYT_TEST_PLAIN
    hyt_online_info_t info;
    check_same(&info);
    int failing = hyt_cfg.test_kernel_fail >= 0 && hyt_cfg.test_kernel_fail < p;
    if (small) {
        hyt_small_use_t use;
        hyt_small_use(&use);
        CHECK(hyt_initialized, "rank %d: hytune off", rank);
        if (failing && rank == hyt_cfg.test_kernel_fail)
            CHECK(use.held && use.allocations > 0, "rank %d: the reserve served nothing", rank);
        else
            CHECK(use.allocations == 0, "rank %d: the reserve served %llu allocations without a "
                  "failure on this rank", rank, (unsigned long long)use.allocations);
    } else if (strcmp(argv[1], "node") == 0) {
        if (failing)
            CHECK(!hyt_initialized && hyt_cfg.mode == HYT_MODE_OFF,
                  "rank %d: runs in mode %d although rank %ld had no memory for the node model",
                  rank, (int)hyt_cfg.mode, hyt_cfg.test_kernel_fail);
        else
            CHECK(hyt_initialized, "rank %d: hytune off without a failure", rank);
    } else {
        CHECK(info.state != NULL, "rank %d: the Reduce key is not tuned online", rank);
        if (info.state && failing)
            CHECK(strcmp(info.state, "off") == 0 && info.probing_calls == 0,
                  "rank %d: the Reduce key is %s (%lld probing calls) although rank %ld had no "
                  "memory for its windows", rank, info.state, info.probing_calls,
                  hyt_cfg.test_kernel_fail);
        else if (info.state)
            CHECK(strcmp(info.state, "off") != 0 && info.probing_calls > 0,
                  "rank %d: the Reduce key is %s without a failure", rank, info.state);
    }
    if (rank == 0)
        printf("test_alloc_agree %s p=%d: hytune %s, mode %d, Reduce key %s%s%s\n", argv[1], p,
               hyt_initialized ? "on" : "off", (int)hyt_cfg.mode,
               info.state ? info.state : "not online", info.state ? " at " : "",
               info.state ? info.alg_now : "");
#endif
    free(in);
    free(a);
    free(b);
    int rc = check_done("test_alloc_agree");
    MPI_Finalize();
    return rc;
}
