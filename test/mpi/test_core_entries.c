/* Every collective entry point, called once: blocking, nonblocking (I*),
 * persistent (*_init, started twice) and large-count (*_c) forms of each
 * collective the MPI library defines (persistent and large-count: MPI 4).
 * Neighborhood collectives are left out under SimGrid 3.32, which aborts in
 * them ("not yet implemented").
 *
 * Each call's result must equal the blocking PMPI_* call's on the same
 * input (hytune passes these forms through; it must not change them).
 * Nonblocking and persistent requests are completed by every member of the
 * Wait and Test family in turn (Wait, Test, Waitall, Testall, Waitany,
 * Testany, Waitsome, Testsome; persistent ones by Start and Test, Startall and
 * Waitall), so that the statistics
 * show each completion path timed.
 *
 * Rank 0 prints one "expect <entry> <calls> <bytes> <timed>" line per entry
 * point: test/mpi/entries_check.sh compares them with the statistics dump.
 * Neighborhood collectives run on a periodic ring (two neighbors each).
 * Usage: test_core_entries (any number of ranks). */
#include "test/check.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#define N 3     /* elements per block */
#define MAXP 64 /* largest communicator this test takes */
#define NEIGHBORS 2

static int rank, p, how;
static MPI_Comm world, ring;
static int sb[MAXP * N], rb[MAXP * N], ref[MAXP * N];
static int in = N;
static int icounts[MAXP], idispls[MAXP], ibdispls[MAXP];
static MPI_Aint cbdispls[MAXP];
#if MPI_VERSION >= 4
static MPI_Count cn = N, ccounts[MAXP];
static MPI_Aint cdispls[MAXP];
#endif
static MPI_Datatype types[MAXP];

/* The receive buffer before every call: rank-dependent, so Bcast's root
 * sends data and untouched parts must match too. */
static void reset(int *buf)
{
    for (int i = 0; i < MAXP * N; i++)
        buf[i] = -(rank * 1000 + i);
}

static void expect(const char *entry, int calls, long bytes, int timed)
{
    if (rank == 0)
        printf("expect %s %d %ld %d\n", entry, calls, bytes, timed);
}

/* Complete request r by the next member of the Wait/Test family. */
static void finish(MPI_Request *r)
{
    int flag = 0, idx, out, inds[1];
    MPI_Request two[2] = {MPI_REQUEST_NULL, *r};
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC's access attribute on MPICH's
                       * prototypes takes it for a zero-size array */
    switch (how++ % 8) {
    case 0:
        MPI_Wait(r, MPI_STATUS_IGNORE);
        break;
    case 1:
        while (!flag)
            MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        break;
    case 2:
        MPI_Waitall(2, two, st);
        *r = two[1];
        break;
    case 3:
        while (!flag)
            MPI_Testall(2, two, &flag, st);
        *r = two[1];
        break;
    case 4:
        MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE);
        CHECK(idx == 1, "Waitany index %d", idx);
        *r = two[1];
        break;
    case 5:
#if HYT_SMPI /* SimGrid 3.32's Testany returns flag set and MPI_UNDEFINED for an
              * active nonblocking collective request (without hytune too) */
        MPI_Waitany(1, r, &idx, MPI_STATUS_IGNORE);
#else
        while (!flag)
            MPI_Testany(2, two, &idx, &flag, MPI_STATUS_IGNORE);
        *r = two[1];
#endif
        break;
    case 6:
        MPI_Waitsome(1, r, &out, inds, st);
        CHECK(out == 1, "Waitsome outcount %d", out);
        break;
    default:
        out = 0;
        while (out == 0)
            MPI_Testsome(1, r, &out, inds, st);
        break;
    }
}

static void compare(const char *entry, int rc, int skip_rank0)
{
    CHECK(rc == MPI_SUCCESS, "%s returned %d", entry, rc);
    if (skip_rank0 && rank == 0)
        return; /* Exscan: rank 0's receive buffer is undefined */
    CHECK(memcmp(rb, ref, sizeof rb) == 0, "%s: result differs from PMPI's", entry);
}

/* One collective in every form.  A(K, R) is its argument list with the
 * counts of kind K (i: int, c: MPI_Count) and receive buffer R. */
#define RUN_BLOCKING(M, l, A, bytes, skip)                                                 \
    do {                                                                                   \
        reset(ref);                                                                        \
        PMPI_##M(A(i, ref));                                                               \
        reset(rb);                                                                         \
        compare("MPI_" #M, MPI_##M(A(i, rb)), skip);                                        \
        expect("MPI_" #M, 1, bytes, 1);                                                    \
        MPI_Request r;                                                                     \
        reset(rb);                                                                         \
        int rc = MPI_I##l(A(i, rb), &r);                                                   \
        finish(&r);                                                                        \
        compare("MPI_I" #l, rc, skip);                                                     \
        expect("MPI_I" #l, 1, bytes, 1);                                                   \
        RUN_MPI4(M, l, A, bytes, skip);                                                    \
    } while (0)

#if MPI_VERSION >= 4
/* persistent: init, one start (Start + Test, or Startall + Waitall, in
 * turn), Request_free.  One start only, completed by Test or Waitall only:
 * MPICH 4.0.2 itself (without hytune) fails a restarted persistent Gather,
 * Scatter or Allgather (wrong data at 2 ranks, an error at 3) and fails
 * MPI_Testall on a started persistent collective request. */
static int pstart;
#define RUN_PERSISTENT(name, CALL, skip, bytes)                                            \
    do {                                                                                   \
        MPI_Request r;                                                                     \
        MPI_Status st;                                                                     \
        reset(rb);                                                                         \
        int rc = CALL, flag = 0;                                                           \
        if (pstart++ % 2) {                                                                \
            MPI_Startall(1, &r);                                                           \
            CHECK(MPI_Waitall(1, &r, &st) == MPI_SUCCESS, "%s: Waitall", name);            \
        } else {                                                                           \
            MPI_Start(&r);                                                                 \
            while (!flag)                                                                  \
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);                                    \
        }                                                                                  \
        compare(name, rc, skip);                                                           \
        MPI_Request_free(&r);                                                              \
        expect(name, 1, bytes, 1);                                                         \
    } while (0)
#define RUN_MPI4_NO_COUNT(M, l, A, bytes, skip)                                            \
    RUN_PERSISTENT("MPI_" #M "_init", MPI_##M##_init(A(i, rb), MPI_INFO_NULL, &r), skip, bytes)
#define RUN_MPI4(M, l, A, bytes, skip)                                                     \
    do {                                                                                   \
        RUN_MPI4_NO_COUNT(M, l, A, bytes, skip);                                           \
        reset(rb);                                                                         \
        compare("MPI_" #M "_c", MPI_##M##_c(A(c, rb)), skip);                              \
        expect("MPI_" #M "_c", 1, bytes, 1);                                               \
        MPI_Request r;                                                                     \
        reset(rb);                                                                         \
        int rc = MPI_I##l##_c(A(c, rb), &r);                                               \
        finish(&r);                                                                        \
        compare("MPI_I" #l "_c", rc, skip);                                                \
        expect("MPI_I" #l "_c", 1, bytes, 1);                                              \
        RUN_PERSISTENT("MPI_" #M "_init_c", MPI_##M##_init_c(A(c, rb), MPI_INFO_NULL, &r),  \
                       skip, bytes);                                                       \
    } while (0)
#else
#define RUN_MPI4_NO_COUNT(M, l, A, bytes, skip)
#define RUN_MPI4(M, l, A, bytes, skip)
#endif

/* argument lists */
#define A_ALLREDUCE(K, R) sb, R, K##n, MPI_INT, MPI_SUM, world
#define A_BCAST(K, R) R, K##n, MPI_INT, 0, world
#define A_REDUCE(K, R) sb, R, K##n, MPI_INT, MPI_SUM, 0, world
#define A_ALLGATHER(K, R) sb, K##n, MPI_INT, R, K##n, MPI_INT, world
#define A_NEIGHBOR(K, R) sb, K##n, MPI_INT, R, K##n, MPI_INT, ring
#define A_GATHER(K, R) sb, K##n, MPI_INT, R, K##n, MPI_INT, 0, world
#define A_REDUCE_SCATTER(K, R) sb, R, K##counts, MPI_INT, MPI_SUM, world
#define A_GATHERV(K, R) sb, K##n, MPI_INT, R, K##counts, K##displs, MPI_INT, 0, world
#define A_SCATTERV(K, R) sb, K##counts, K##displs, MPI_INT, R, K##n, MPI_INT, 0, world
#define A_ALLGATHERV(K, R) sb, K##n, MPI_INT, R, K##counts, K##displs, MPI_INT, world
#define A_NEIGHBOR_ALLGATHERV(K, R) sb, K##n, MPI_INT, R, K##counts, K##displs, MPI_INT, ring
#define A_ALLTOALLV(K, R)                                                                  \
    sb, K##counts, K##displs, MPI_INT, R, K##counts, K##displs, MPI_INT, world
#define A_NEIGHBOR_ALLTOALLV(K, R)                                                         \
    sb, K##counts, K##displs, MPI_INT, R, K##counts, K##displs, MPI_INT, ring
#define A_ALLTOALLW(K, R) sb, K##counts, K##bdispls, types, R, K##counts, K##bdispls, types, world
#define A_NEIGHBOR_ALLTOALLW(K, R)                                                         \
    sb, K##counts, cbdispls, types, R, K##counts, cbdispls, types, ring
#define A_BARRIER(K, R) world

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    world = MPI_COMM_WORLD;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &p);
    if (p > MAXP) {
        fprintf(stderr, "test_core_entries: at most %d ranks\n", MAXP);
        MPI_Abort(world, 2);
    }
    int dims[1] = {p}, periods[1] = {1};
    MPI_Cart_create(world, 1, dims, periods, 0, &ring);
    for (int i = 0; i < MAXP * N; i++)
        sb[i] = rank * 100 + i;
    for (int i = 0; i < MAXP; i++) {
        icounts[i] = N;
        idispls[i] = i * N;
        ibdispls[i] = i * N * (int)sizeof(int);
        cbdispls[i] = (MPI_Aint)(i * N * (int)sizeof(int));
        types[i] = MPI_INT;
#if MPI_VERSION >= 4
        ccounts[i] = N;
        cdispls[i] = i * N;
#endif
    }
    const long blk = N * (long)sizeof(int), all = p * blk, nb = NEIGHBORS * blk;

    RUN_BLOCKING(Allreduce, allreduce, A_ALLREDUCE, blk, 0);
    RUN_BLOCKING(Scan, scan, A_ALLREDUCE, blk, 0);
    RUN_BLOCKING(Exscan, exscan, A_ALLREDUCE, blk, 1);
    RUN_BLOCKING(Bcast, bcast, A_BCAST, blk, 0);
    RUN_BLOCKING(Reduce, reduce, A_REDUCE, blk, 0);
    RUN_BLOCKING(Allgather, allgather, A_ALLGATHER, blk, 0);
    RUN_BLOCKING(Alltoall, alltoall, A_ALLGATHER, blk, 0);
    RUN_BLOCKING(Reduce_scatter_block, reduce_scatter_block, A_ALLREDUCE, blk, 0);
    RUN_BLOCKING(Reduce_scatter, reduce_scatter, A_REDUCE_SCATTER, all, 0);
    RUN_BLOCKING(Gather, gather, A_GATHER, blk, 0);
    RUN_BLOCKING(Scatter, scatter, A_GATHER, blk, 0);
    RUN_BLOCKING(Gatherv, gatherv, A_GATHERV, rank == 0 ? all : blk, 0);
    RUN_BLOCKING(Scatterv, scatterv, A_SCATTERV, rank == 0 ? all : blk, 0);
    RUN_BLOCKING(Allgatherv, allgatherv, A_ALLGATHERV, all, 0);
    RUN_BLOCKING(Alltoallv, alltoallv, A_ALLTOALLV, all, 0);
    RUN_BLOCKING(Alltoallw, alltoallw, A_ALLTOALLW, all, 0);
#if !HYT_SMPI
    RUN_BLOCKING(Neighbor_allgather, neighbor_allgather, A_NEIGHBOR, blk, 0);
    RUN_BLOCKING(Neighbor_alltoall, neighbor_alltoall, A_NEIGHBOR, blk, 0);
    RUN_BLOCKING(Neighbor_allgatherv, neighbor_allgatherv, A_NEIGHBOR_ALLGATHERV, nb, 0);
    RUN_BLOCKING(Neighbor_alltoallv, neighbor_alltoallv, A_NEIGHBOR_ALLTOALLV, nb, 0);
    RUN_BLOCKING(Neighbor_alltoallw, neighbor_alltoallw, A_NEIGHBOR_ALLTOALLW, nb, 0);
#else
    (void)nb;
#endif
    /* Barrier: no data, no large-count form */
    CHECK(MPI_Barrier(world) == MPI_SUCCESS, "MPI_Barrier");
    expect("MPI_Barrier", 1, 0, 1);
    MPI_Request r;
    CHECK(MPI_Ibarrier(world, &r) == MPI_SUCCESS, "MPI_Ibarrier");
    finish(&r);
    expect("MPI_Ibarrier", 1, 0, 1);
    reset(ref); /* Barrier_init moves no data: rb must stay as reset */
    RUN_MPI4_NO_COUNT(Barrier, barrier, A_BARRIER, 0, 0);

    MPI_Comm_free(&ring);
    int mine = check_failures, any = 0;
    PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, world);
    if (any && !check_failures)
        check_failures = 1;
    int rc = rank == 0 || mine ? check_done("test_core_entries") : (any ? 1 : 0);
    MPI_Finalize();
    return rc;
}
