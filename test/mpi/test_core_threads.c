/* MPI_THREAD_MULTIPLE under hytune: two threads run collectives at the same
 * time, each on its own communicator, and each also creates and frees
 * communicators (hytune contexts are created and retired concurrently).
 *
 * Usage: test_core_threads [ITERATIONS]
 * Checked: every result (computed independently), the calls hytune counted
 * per communicator, and that hybrid mode was turned into offline mode (the
 * online prober is not run with threads). */
#define _GNU_SOURCE
#include "test/mpi/core_util.h"

#include <pthread.h>
#include <stdio.h>

#define NT 2
#define BC 100

typedef struct worker {
    int t, rank, p, iters;
    MPI_Comm comm;
    int failures;
    char msg[256];
} worker_t;

/* Record the first failure of a thread (CHECK's counters are not thread-safe). */
#define WCHECK(w, cond, ...)                                                                 \
    do {                                                                                     \
        if (!(cond) && (w)->failures++ == 0)                                                 \
            snprintf((w)->msg, sizeof (w)->msg, __VA_ARGS__);                                \
    } while (0)

static void collectives(worker_t *w, MPI_Comm comm, int i)
{
    int p = w->p, rank = w->rank, base = i + 1 + w->t * 1000;
    int x = (rank + 1) * base, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm);
    WCHECK(w, sum == base * p * (p + 1) / 2, "t%d i%d: allreduce %d", w->t, i, sum);
    int buf[BC], root = i % p;
    for (int j = 0; j < BC; j++)
        buf[j] = rank == root ? base + j : -1;
    MPI_Bcast(buf, BC, MPI_INT, root, comm);
    for (int j = 0; j < BC; j++)
        WCHECK(w, buf[j] == base + j, "t%d i%d: bcast [%d] = %d", w->t, i, j, buf[j]);
    int all[64], mine = rank * 7 + base;
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm);
    for (int r = 0; r < p && r < 64; r++)
        WCHECK(w, all[r] == r * 7 + base, "t%d i%d: allgather [%d] = %d", w->t, i, r, all[r]);
    int out[64], in[64];
    for (int r = 0; r < p && r < 64; r++)
        out[r] = rank * 100 + r + base;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm);
    for (int r = 0; r < p && r < 64; r++)
        WCHECK(w, in[r] == r * 100 + rank + base, "t%d i%d: alltoall [%d] = %d", w->t, i, r,
               in[r]);
}

static void *work(void *arg)
{
    worker_t *w = arg;
    for (int i = 0; i < w->iters; i++) {
        collectives(w, w->comm, i);
        if (i % 5 == 0) { /* a short-lived communicator of this thread */
            MPI_Comm tmp;
            MPI_Comm_dup(w->comm, &tmp);
            collectives(w, tmp, i);
            MPI_Comm_free(&tmp);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI provides thread level %d only", provided);
    int iters = argc > 1 ? atoi(argv[1]) : 300;
    worker_t w[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        w[t] = (worker_t){.t = t, .rank = rank, .p = p, .iters = iters};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
    }
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, work, &w[t]);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        CHECK(w[t].failures == 0, "thread %d: %d failures, first: %s", t, w[t].failures,
              w[t].msg);
        if (core_expect_active() && core_hytune()) {
            CHECK(core_calls(w[t].comm, HYT_COLL_ALLREDUCE) == iters &&
                      core_calls(w[t].comm, HYT_COLL_ALLTOALL) == iters,
                  "thread %d: hytune counted %lld allreduce, %lld alltoall calls, want %d", t,
                  core_calls(w[t].comm, HYT_COLL_ALLREDUCE),
                  core_calls(w[t].comm, HYT_COLL_ALLTOALL), iters);
            const hyt_config_t *cfg = core_cfg();
            CHECK(cfg && cfg->mode != HYT_MODE_HYBRID, "hybrid mode kept with threads");
        }
        MPI_Comm_free(&w[t].comm);
    }
    int rc = core_done("test_core_threads");
    MPI_Finalize();
    return rc;
}
