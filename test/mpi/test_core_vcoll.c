/* Barrier, Gather, Scatter, Allgatherv, Alltoallv, Reduce_scatter, Scan and
 * Exscan called as an application calls them (MPI_*, through hytune's
 * wrappers and dispatch) and as PMPI_*: results byte for byte equal, with
 * uneven and zero counts, displacements in reverse order with gaps, in
 * place, and a non-commutative op.  Run with HYTUNE_FORCE_<COLL>=ALG:K
 * (test/mpi/vcoll_run.sh sets every registry row in turn): `tuned COLL`
 * then checks that hytune's algorithm ran every call of COLL (no fallback)
 * except those with the non-commutative op on an algorithm that needs a
 * commutative one.
 *   test_core_vcoll [tuned COLL] */
#include "src/hyt.h"
#include "test/check.h"
#include "test/mpi/both.h"

#include <string.h>

#ifdef HYT_TEST_PLAIN
int main(void)
{
    return 0;
}
#else

static int p, me;

/* inout = in: associative, not commutative (the result names the first rank) */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static int cnt(int n, int a, int b)
{
    return n == 0 || (2 * a + b) % 3 == 1 ? 0 : n + (a + 2 * b) % 3;
}

static long rev_displs(const int *c, int *d)
{
    long at = 0;
    for (int i = p - 1; i >= 0; i--) {
        d[i] = (int)at;
        at += c[i] + 1;
    }
    return at;
}

static void fill(int *b, long n, int salt)
{
    for (long i = 0; i < n; i++)
        b[i] = me * 1000003 + (int)i * 7 + salt;
}

/* Through MPI_ and PMPI_ on equal inputs (test/mpi/both.h); the results are
 * compared unless pmpi_ok is off (SimGrid's own (Ex)scan and a non-commutative op). */
#define BOTH(what, nr, init, call) HYT_TEST_BOTH(what, nr, pmpi_ok, init, call)

/* With the op "first" a (ex)scan's result is rank 0's input. */
static void check_first(const int *r, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (r[i] != i * 7) {
            CHECK(0, "%s with a non-commutative op: element %d is %d, rank 0 gave %d", what, i,
                  r[i], i * 7);
            return;
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Op first;
    MPI_Op_create(first_fn, 0, &first);
    MPI_Op ops[2] = {MPI_SUM, first};
    size_t cap = (size_t)p * 64 * sizeof(int) + 64;
    int *sb[2] = {malloc(cap), malloc(cap)}, *rb[2] = {malloc(cap), malloc(cap)};
    int *c = malloc(4 * (size_t)p * sizeof(int)), *d = c + p, *c2 = d + p, *d2 = c2 + p;
    int ns[] = {0, 1, 5, 37}, pmpi_ok = 1;
    for (unsigned t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int n = ns[t], root = (int)t % p;
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
        BOTH("gather", me == root ? p * n : 0, fill(s, n, x * 0),
             MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD));
        BOTH("gather in place", me == root ? p * n : 0, fill(me == root ? r + me * n : s, n, 0),
             MPI_Gather(me == root ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, root,
                        MPI_COMM_WORLD));
        BOTH("scatter", n, fill(s, (long)p * n, 0),
             MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < p; i++)
            c[i] = cnt(n, i, 0);
        long span = rev_displs(c, d);
        BOTH("allgatherv", span, fill(s, c[me], 0),
             MPI_Allgatherv(s, c[me], MPI_INT, r, c, d, MPI_INT, MPI_COMM_WORLD));
        BOTH("allgatherv in place", span, fill(r + d[me], c[me], 0),
             MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, r, c, d, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < p; i++) {
            c[i] = cnt(n, me, i);
            c2[i] = cnt(n, i, me);
        }
        long sspan = rev_displs(c, d), rspan = rev_displs(c2, d2);
        BOTH("alltoallv", rspan, fill(s, sspan, 0),
             MPI_Alltoallv(s, c, d, MPI_INT, r, c2, d2, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < p; i++)
            c[i] = n == 0 ? 0 : (me + i) % 3 == 1 ? 0 : n + (me * i) % 3; /* symmetric */
        span = rev_displs(c, d);
        BOTH("alltoallv in place", span, fill(r, span, 0),
             MPI_Alltoallv(MPI_IN_PLACE, c, d, MPI_INT, r, c, d, MPI_INT, MPI_COMM_WORLD));
        for (int o = 0; o < 2; o++) {
            for (int i = 0; i < p; i++)
                c[i] = cnt(n, i, 0);
            long tot = 0;
            for (int i = 0; i < p; i++)
                tot += c[i];
            BOTH("reduce_scatter", c[me], fill(s, tot, 0),
                 MPI_Reduce_scatter(s, r, c, MPI_INT, ops[o], MPI_COMM_WORLD));
            BOTH("reduce_scatter in place", c[me], fill(r, tot, 0),
                 MPI_Reduce_scatter(MPI_IN_PLACE, r, c, MPI_INT, ops[o], MPI_COMM_WORLD));
            int scan_ok = 1, exscan_ok = 1;
#ifdef SMPI_H
            /* SimGrid's own (Ex)scan gets such an op wrong: check hytune's only */
            pmpi_ok = o == 0;
            scan_ok = getenv("HYTUNE_FORCE_SCAN") != NULL;
            exscan_ok = getenv("HYTUNE_FORCE_EXSCAN") != NULL;
#endif
            BOTH("scan", n, fill(s, n, 0), MPI_Scan(s, r, n, MPI_INT, ops[o], MPI_COMM_WORLD));
            if (o == 1 && scan_ok)
                check_first(rb[0], n, "scan");
            BOTH("scan in place", n, fill(r, n, 0),
                 MPI_Scan(MPI_IN_PLACE, r, n, MPI_INT, ops[o], MPI_COMM_WORLD));
            if (o == 1 && scan_ok)
                check_first(rb[0], n, "scan in place");
            BOTH("exscan", me ? n : 0, fill(s, n, 0),
                 MPI_Exscan(s, r, n, MPI_INT, ops[o], MPI_COMM_WORLD));
            if (o == 1 && exscan_ok)
                check_first(rb[0], me ? n : 0, "exscan");
            pmpi_ok = 1;
        }
    }
    if (argc == 3 && !strcmp(argv[1], "tuned")) {
        int cl = hyt_coll_from_name(argv[2]);
        hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
        CHECK(cl >= 0 && ctx, "collective %s, context", argv[2]);
        uint64_t calls = 0, tuned = 0, fb = 0, noncomm = 0;
        for (int b = 0; ctx && cl >= 0 && b < HYT_NBUCKETS; b++) {
            const hyt_key_t *k = ctx->keys[cl][b];
            if (!k)
                continue;
            calls += k->calls;
            tuned += k->tuned;
            for (int f = 1; f < HYT_NFB; f++)
                fb += k->fallbacks[f];
            noncomm += k->fallbacks[HYT_FB_NONCOMMUTATIVE];
        }
        CHECK(!ctx || ctx->beyond == 0, "%s: %llu kernel requests beyond the scratch reserve",
              argv[2], ctx ? (unsigned long long)ctx->beyond : 0ULL);
        CHECK(calls > 0 && tuned + fb == calls && fb == noncomm,
              "%s: %llu calls, %llu by hytune's algorithm, %llu fallbacks (%llu non-commutative)",
              argv[2], (unsigned long long)calls, (unsigned long long)tuned,
              (unsigned long long)fb, (unsigned long long)noncomm);
    }
    free(c);
    for (int x = 0; x < 2; x++)
        free(sb[x]), free(rb[x]);
    MPI_Op_free(&first);
    MPI_Finalize();
    return me == 0 ? check_done("test_core_vcoll") : (check_failures ? 1 : 0);
}
#endif
