/* An error inside a kernel goes through the communicator's error handler, as
 * MPI's own collectives do.  HYTUNE_TEST_KERNEL_FAIL=F with
 * HYTUNE_TEST_KERNEL_FAIL_AT=kernel makes every kernel's own scratch request
 * fail on world rank F after the ranks agreed on the scratch (an allocation
 * the reserve did not cover, docs/memory.md; test_scratch covers the
 * reserve itself) (2 ranks; run with
 * HYTUNE_FORCE_BCAST and HYTUNE_FORCE_REDUCE naming kernels that take
 * scratch on every rank, e.g. knomial:2).  F alone fails, so the calls are
 * chosen so that the other rank O does not wait for F: a Bcast rooted at O
 * (O's one small send completes eagerly) and a Reduce rooted at F (O sends
 * its contribution and is done).
 *   test_kernel_err return   MPI_ERRORS_RETURN on MPI_COMM_WORLD and a
 *                            counting handler on a duplicate: on F each call
 *                            returns class MPI_ERR_NO_MEM and the handler
 *                            runs once on its communicator with that error;
 *                            on O each call succeeds and no handler runs.
 *                            Without HYTUNE_TEST_KERNEL_FAIL every call
 *                            succeeds with the right result.
 *   test_kernel_err fatal    the default handler: the first call aborts the
 *                            job on F (the program fails if it returns). */
#include "test/check.h"

#include <mpi.h>
#include <string.h>

static int calls;
static MPI_Comm seen;
static int seen_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    seen = *comm;
    seen_code = *code;
}

/* One call's outcome on this rank: the failing rank gets MPI_ERR_NO_MEM
 * (and, with the counting handler, one handler call on comm), every other
 * rank success and no handler call. */
static void check_call(const char *what, int rc, MPI_Comm comm, int failing, int counted)
{
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    int want = failing ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
    if (counted) {
        CHECK(calls == (failing ? 1 : 0), "%s: the error handler ran %d times", what, calls);
        if (failing && calls > 0) {
            CHECK(seen == comm, "%s: the error handler got another communicator", what);
            MPI_Error_class(seen_code, &cls);
            CHECK(cls == MPI_ERR_NO_MEM, "%s: the handler got class %d", what, cls);
        }
    }
    calls = 0;
    seen = MPI_COMM_NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("HYTUNE_TEST_KERNEL_FAIL");
    int f = env ? atoi(env) : -1; /* the failing rank, -1: none */
    int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
    if (size != 2 || f >= size || (fatal && f < 0)) {
        if (rank == 0)
            fprintf(stderr, "test_kernel_err: run on 2 ranks (fatal: with "
                            "HYTUNE_TEST_KERNEL_FAIL=0 or 1)\n");
        MPI_Finalize();
        return 1;
    }
    int o = f == 1 ? 0 : 1; /* the rank that does not fail */
    if (fatal) {
        int buf = 0;
        MPI_Bcast(&buf, 1, MPI_INT, o, MPI_COMM_WORLD);
        CHECK(rank != f, "rank %d: the failing Bcast returned instead of aborting", rank);
        MPI_Finalize();
        return check_done("test_kernel_err fatal");
    }
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
    for (int i = 0; i < 2; i++) {
        MPI_Comm c = comms[i];
        int counted = c == dup, failing = rank == f;
        int buf = rank == o ? 42 + i : 0, in = rank + 1 + i, out = 0;
        check_call("bcast", MPI_Bcast(&buf, 1, MPI_INT, o, c), c, failing, counted);
        check_call("reduce", MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, f < 0 ? 0 : f, c), c,
                   failing, counted);
        if (f < 0) {
            CHECK(buf == 42 + i, "bcast: %d, expected %d", buf, 42 + i);
            CHECK(rank != 0 || out == 3 + 2 * i, "reduce: %d, expected %d", out, 3 + 2 * i);
        }
    }
    /* after an error the communicator's state is undefined (messages of the
     * other rank may be left unmatched): the program only ends */
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return check_done("test_kernel_err");
}
