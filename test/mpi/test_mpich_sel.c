/* MPICH's own algorithms as the tuner sees them (offline/mpich.c).
 *   test_mpich_sel sig    collectives under whatever selection MPICH was given
 *                         (a selection file, an algorithm variable): checks the
 *                         results and prints, per rank, how MPICH called a
 *                         user-defined reduction in Reduce_scatter_block (count 16):
 *                         a timing-free signature of the algorithm MPICH ran
 *   test_mpich_sel mpit   (not in the -plain build) the MPI_T side: names and
 *                         values of the algorithm variables, a write taking
 *                         effect on the next call, "auto" restored; prints the
 *                         signature of recursive doubling selected through MPI_T */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HYT_TEST_PLAIN
#include "offline/mpich.c"
#endif
#include "test/check.h"

static int ncalls, lens[16];

static void sum_op(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = io;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
    if (ncalls < 16)
        lens[ncalls] = *len;
    ncalls++;
}

/* Reduce_scatter_block with a commutative user op; prints the signature. */
static void rsb_signature(MPI_Op op, const char *tag)
{
    int r, p, cnt = 16;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *s = malloc(sizeof(int) * (size_t)(cnt * p)), *d = malloc(sizeof(int) * cnt);
    for (int i = 0; i < cnt * p; i++)
        s[i] = r + i;
    ncalls = 0;
    int rc = MPI_Reduce_scatter_block(s, d, cnt, MPI_INT, op, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "reduce_scatter_block rc %d", rc);
    for (int i = 0; i < cnt; i++)
        CHECK(d[i] == p * (r * cnt + i) + p * (p - 1) / 2, "rsb[%d] = %d", i, d[i]);
    char line[256];
    int o = snprintf(line, sizeof line, "%s rank %d: op calls %d lens", tag, r, ncalls);
    for (int i = 0; i < ncalls && i < 16 && o < 200; i++)
        o += snprintf(line + o, sizeof line - (size_t)o, " %d", lens[i]);
    /* one line per rank, in rank order */
    for (int q = 0; q < p; q++) {
        if (q == r) {
            printf("%s\n", line);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(s);
    free(d);
}

/* The other collectives the selection file covers, with checked results. */
static void run_others(MPI_Op op)
{
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int cnt = 1; cnt <= 4096; cnt *= 8) {
        int *a = malloc(sizeof(int) * (size_t)cnt * (size_t)p), *b = malloc(sizeof(int) * (size_t)cnt * (size_t)p);
        for (int i = 0; i < cnt; i++)
            a[i] = r + i;
        MPI_Allreduce(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < cnt; i++)
            CHECK(b[i] == p * i + p * (p - 1) / 2, "allreduce sum cnt %d [%d] %d", cnt, i, b[i]);
        MPI_Allreduce(a, b, cnt, MPI_INT, op, MPI_COMM_WORLD);
        for (int i = 0; i < cnt; i++)
            CHECK(b[i] == p * i + p * (p - 1) / 2, "allreduce op cnt %d [%d] %d", cnt, i, b[i]);
        MPI_Reduce(a, b, cnt, MPI_INT, MPI_SUM, p - 1, MPI_COMM_WORLD);
        for (int i = 0; r == p - 1 && i < cnt; i++)
            CHECK(b[i] == p * i + p * (p - 1) / 2, "reduce cnt %d [%d] %d", cnt, i, b[i]);
        for (int i = 0; i < cnt; i++)
            b[i] = r == 0 ? 7 * i : -1;
        MPI_Bcast(b, cnt, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < cnt; i++)
            CHECK(b[i] == 7 * i, "bcast cnt %d [%d] %d", cnt, i, b[i]);
        MPI_Allgather(a, cnt, MPI_INT, b, cnt, MPI_INT, MPI_COMM_WORLD);
        for (int q = 0; q < p; q++)
            CHECK(b[q * cnt] == q && b[q * cnt + cnt - 1] == q + cnt - 1, "allgather cnt %d", cnt);
        for (int i = 0; i < cnt * p; i++)
            a[i] = r * 1000 + i / cnt;
        MPI_Alltoall(a, cnt, MPI_INT, b, cnt, MPI_INT, MPI_COMM_WORLD);
        for (int q = 0; q < p; q++)
            CHECK(b[q * cnt] == q * 1000 + r, "alltoall cnt %d from %d: %d", cnt, q, b[q * cnt]);
        MPI_Request req;
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        free(a);
        free(b);
    }
}

#ifndef HYT_TEST_PLAIN
static void mpit(MPI_Op op)
{
    CHECK(hyt_mpich_init() == 0, "MPI_T algorithm variables not found");
    const char *names[HYT_MPICH_MAX_ALGS];
    int values[HYT_MPICH_MAX_ALGS], rd = -1, rsa = -1, rsb_rd = -1;
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    for (int c = 0; c < HYT_NCOLL; c++) {
        int m = hyt_mpich_algs((hyt_coll_t)c, names, values, HYT_MPICH_MAX_ALGS);
        for (int i = 0; r == 0 && i < m; i++)
            printf("cand %s %s\n", hyt_coll_name((hyt_coll_t)c), names[i]);
    }
    int n = hyt_mpich_algs(HYT_COLL_ALLREDUCE, names, values, HYT_MPICH_MAX_ALGS);
    for (int i = 0; i < n; i++) {
        if (r == 0)
            printf("allreduce candidate mpich:%s = %d\n", names[i], values[i]);
        CHECK(strcmp(names[i], "auto"), "auto listed as a candidate");
        if (!strcmp(names[i], "recursive_doubling"))
            rd = values[i];
        if (!strcmp(names[i], "reduce_scatter_allgather"))
            rsa = values[i];
    }
    CHECK(rd >= 0 && rsa >= 0, "allreduce algorithms missing (%d listed)", n);
    /* the value MPICH gave the name in the environment is the one we parsed */
    const char *env = getenv("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM");
    int cur = hyt_mpich_current(HYT_COLL_ALLREDUCE);
    if (env)
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], env))
                CHECK(cur == values[i], "%s: MPICH says %d, parsed %d", env, cur, values[i]);
    n = hyt_mpich_algs(HYT_COLL_REDUCE_SCATTER_BLOCK, names, values, HYT_MPICH_MAX_ALGS);
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], "recursive_doubling"))
            rsb_rd = values[i];
    CHECK(rsb_rd >= 0, "reduce_scatter_block recursive_doubling missing");
    if (env)
        return;
    /* a write takes effect on the next call: reduce-scatter-allgather refuses
     * a user-defined op, and the tuner runs with fallback = error */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int a[64], b[64];
    for (int i = 0; i < 64; i++)
        a[i] = i;
    CHECK(hyt_mpich_select(HYT_COLL_ALLREDUCE, rsa) == 0, "write");
    CHECK(hyt_mpich_current(HYT_COLL_ALLREDUCE) == rsa, "read back");
    int rc = MPI_Allreduce(a, b, 64, MPI_INT, op, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "reduce_scatter_allgather with a user op did not fail: not selected");
    CHECK(hyt_mpich_select(HYT_COLL_ALLREDUCE, -1) == 0, "restore");
    rc = MPI_Allreduce(a, b, 64, MPI_INT, op, MPI_COMM_WORLD);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK(rc == MPI_SUCCESS && b[5] == 5 * p, "auto after restore: rc %d, b[5] %d", rc, b[5]);
    rc = MPI_Allreduce(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "sum after restore rc %d", rc);
    /* recursive doubling selected through MPI_T for Reduce_scatter_block */
    CHECK(hyt_mpich_select(HYT_COLL_REDUCE_SCATTER_BLOCK, rsb_rd) == 0, "write rsb");
    rsb_signature(op, "sig");
    hyt_mpich_select(HYT_COLL_REDUCE_SCATTER_BLOCK, -1);
    hyt_mpich_finalize();
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Op op;
    MPI_Op_create(sum_op, 1, &op);
    const char *mode = argc > 1 ? argv[1] : "sig";
    if (!strcmp(mode, "sig")) {
        run_others(op);
        rsb_signature(op, "sig");
    } else if (!strcmp(mode, "mpit")) {
#ifndef HYT_TEST_PLAIN
        mpit(op);
#else
        CHECK(0, "mpit needs the hytune build");
#endif
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    MPI_Op_free(&op);
    MPI_Finalize();
    return check_done("test_mpich_sel");
}
