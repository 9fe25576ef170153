/* Scratch memory is agreed across ranks (docs/memory.md): a call whose
 * algorithm needs scratch some rank cannot hold, or more than
 * HYTUNE_SCRATCH_MAX, runs MPI's own collective on every rank, with the
 * right result and no error.
 *   test_scratch fail   HYTUNE_TEST_KERNEL_FAIL=F (reserve: F's scratch
 *                       cannot grow): every call of every forced algorithm
 *                       below runs PMPI on every rank, counted as a scratch
 *                       fallback; results equal PMPI's; the error handler
 *                       never runs.  Without HYTUNE_TEST_KERNEL_FAIL every
 *                       call runs the forced algorithm.
 *   test_scratch cap    HYTUNE_SCRATCH_MAX=64K, Allreduce recmult:2 (two
 *                       buffers of the message): calls up to 8000 ints (62.5
 *                       KiB of scratch) run the kernel, calls from 9000 ints
 *                       up run PMPI on every rank; the scratch held stays
 *                       within the cap.
 *   test_scratch wide   HYTUNE_SCRATCH_MAX=1M; the odd ranks use datatypes
 *                       with the even ranks' type signature but gaps (an int
 *                       resized to 3 ints, a vector of every other int), so
 *                       their blocks laid out by extent would take 2-3 times
 *                       the agreed bound.  Allgather kbruck, Alltoall (the
 *                       forced algorithm) and Alltoall in place, each on its
 *                       own duplicate of MPI_COMM_WORLD: at sizes whose agreed
 *                       bound fits the cap every rank runs the kernel and no
 *                       rank asks for scratch beyond the reserve (the wide
 *                       ranks hold their blocks packed); at sizes whose
 *                       bound does not fit every rank runs PMPI.
 *   test_scratch retry  HYTUNE_TEST_KERNEL_FAIL=F: 100 Allreduce calls whose
 *                       need F cannot hold all run PMPI, asking the ranks
 *                       again a few times (not on every call, not never);
 *                       then F's memory comes back (the test clears the
 *                       knob on every rank) and within the back-off the
 *                       kernel runs again, on every later call, without
 *                       further agreements.
 *   test_scratch first  MPI_COMM_WORLD's first reserve (HYT_WORLD_RESERVE0
 *                       and 1, agreed in MPI_Init): the first calls of every
 *                       forced algorithm but Alltoallv in place (whose need
 *                       is each rank's own) at 1 and 100 ints run the kernel
 *                       on MPI_COMM_WORLD without a reserve agreement, while
 *                       the same first call on a duplicate of it takes one;
 *                       with HYTUNE_SCRATCH_MAX below the first reserve, or
 *                       HYTUNE_TEST_KERNEL_FAIL=F (F cannot hold it), no
 *                       rank has a first reserve and the first call agrees
 *                       (and under F's failure every call runs PMPI).
 * Forced algorithms (unless the environment names others): Allreduce
 * recmult:2, Bcast knomial:2, Reduce knomial:3, Allgather kbruck:2, Alltoall
 * kbruck:2, Alltoallv pairwise (in place: each rank's own need), Reduce_scatter_block
 * pairwise, Scan recdoubling, Gather knomial:2.  Every rank checks its own
 * counters, and that every rank has the same counters and reserve. */
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

static int p, me, handler_calls;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

static const struct {
    hyt_coll_t coll;
    const char *var, *spec;
} forced[] = {
    {HYT_COLL_ALLREDUCE, "HYTUNE_FORCE_ALLREDUCE", "recmult:2"},
    {HYT_COLL_BCAST, "HYTUNE_FORCE_BCAST", "knomial:2"},
    {HYT_COLL_REDUCE, "HYTUNE_FORCE_REDUCE", "knomial:3"},
    {HYT_COLL_ALLGATHER, "HYTUNE_FORCE_ALLGATHER", "kbruck:2"},
    {HYT_COLL_ALLTOALL, "HYTUNE_FORCE_ALLTOALL", "kbruck:2"},
    {HYT_COLL_ALLTOALLV, "HYTUNE_FORCE_ALLTOALLV", "pairwise"},
    {HYT_COLL_REDUCE_SCATTER_BLOCK, "HYTUNE_FORCE_REDUCE_SCATTER_BLOCK", "pairwise"},
    {HYT_COLL_SCAN, "HYTUNE_FORCE_SCAN", "recdoubling"},
    {HYT_COLL_GATHER, "HYTUNE_FORCE_GATHER", "knomial:2"},
};
#define NFORCED ((int)(sizeof forced / sizeof forced[0]))

static void fill(int *b, long n, int salt)
{
    for (long i = 0; i < n; i++)
        b[i] = me * 1000003 + (int)i * 7 + salt;
}

/* Through MPI_ and PMPI_ on equal inputs, results compared (test/mpi/both.h). */
#define BOTH(what, nr, init, call) HYT_TEST_BOTH(what, nr, 1, init, call)

/* Every call of collective c on comm's context, summed over sizes. */
static void counters_on(MPI_Comm comm, hyt_coll_t c, uint64_t out[3])
{
    hyt_comm_t *ctx = hyt_comm_get(comm);
    out[0] = out[1] = out[2] = 0;
    for (int b = 0; ctx && b < HYT_NBUCKETS; b++) {
        const hyt_key_t *k = ctx->keys[c][b];
        if (!k)
            continue;
        out[0] += k->calls;
        out[1] += k->tuned;
        out[2] += k->fallbacks[HYT_FB_SCRATCH];
    }
}

static void counters(hyt_coll_t c, uint64_t out[3])
{
    counters_on(MPI_COMM_WORLD, c, out);
}

/* Does every rank hold the same values (as MIN and MAX over ranks)? */
static int same_everywhere(const uint64_t *v, int n)
{
    uint64_t lo[8], hi[8];
    PMPI_Allreduce(v, lo, n, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(v, hi, n, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return memcmp(lo, hi, (size_t)n * sizeof *lo) == 0;
}

/* Every forced collective once at n ints per block (through MPI_ and PMPI_);
 * without cnt and dsp, every one but Alltoallv. */
static void run_all(long n, int **sb, int **rb, size_t cap, int *cnt, int *dsp)
{
    int ni = (int)n;
    BOTH("allreduce", n, fill(s, n, 1),
         MPI_Allreduce(s, r, ni, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    BOTH("bcast", n, fill(r, n, me == 1 % p ? 2 : 99),
         MPI_Bcast(r, ni, MPI_INT, 1 % p, MPI_COMM_WORLD));
    BOTH("reduce", me == 0 ? n : 0, fill(s, n, 3),
         MPI_Reduce(s, r, ni, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    BOTH("allgather", p * n, fill(s, n, 4),
         MPI_Allgather(s, ni, MPI_INT, r, ni, MPI_INT, MPI_COMM_WORLD));
    BOTH("alltoall", p * n, fill(s, p * n, 5),
         MPI_Alltoall(s, ni, MPI_INT, r, ni, MPI_INT, MPI_COMM_WORLD));
    /* in place, uneven blocks (n to n + 2 ints, symmetric: what i sends j, j
     * receives from i) with a gap after each */
    long end = 0;
    for (int i = 0; cnt && i < p; i++) {
        cnt[i] = ni + (i + me) % 3;
        dsp[i] = (int)end;
        end += cnt[i] + 1;
    }
    if (cnt)
        BOTH("alltoallv in place", end, fill(r, end, 6),
             MPI_Alltoallv(MPI_IN_PLACE, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    BOTH("reduce_scatter_block", n, fill(s, p * n, 7),
         MPI_Reduce_scatter_block(s, r, ni, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    BOTH("scan", n, fill(s, n, 8), MPI_Scan(s, r, ni, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    BOTH("gather", me == 0 ? p * n : 0, fill(s, n, 9),
         MPI_Gather(s, ni, MPI_INT, r, ni, MPI_INT, 0, MPI_COMM_WORLD));
}

/* The wide mode's three calls, each on its own communicator (the reserve of
 * one would change what another can grow to). */
enum { W_ALLGATHER, W_ALLTOALL, W_ALLTOALL_INPLACE, W_N };
static const char *const wide_name[W_N] = {"allgather", "alltoall", "alltoall in place"};

/* One call of wide[w] at n ints a block (odd ranks: gapped types of the
 * same signature) through MPI_ and PMPI_; checks the result and that every
 * rank ran the forced kernel (run) or a scratch fallback (!run). */
static void wide_call(int w, MPI_Comm comm, long n, int run, int **sb, int **rb, size_t cap)
{
    int ni = (int)n, odd = me % 2;
    MPI_Datatype res, vec; /* an int every 3 ints; n ints every other int */
    MPI_Type_create_resized(MPI_INT, 0, 3 * (MPI_Aint)sizeof(int), &res);
    MPI_Type_commit(&res);
    MPI_Type_vector(ni, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    hyt_coll_t c = w == W_ALLGATHER ? HYT_COLL_ALLGATHER : HYT_COLL_ALLTOALL;
    uint64_t before[3], after[3];
    counters_on(comm, c, before);
    if (w == W_ALLGATHER)
        BOTH("allgather, gapped types on odd ranks", p * n * (odd ? 3 : 1), fill(s, 2 * n, 4),
             MPI_Allgather(s, odd ? 1 : ni, odd ? vec : MPI_INT, r, ni, odd ? res : MPI_INT,
                           comm));
    else if (w == W_ALLTOALL)
        BOTH("alltoall, gapped types on odd ranks", p * n * (odd ? 2 : 1), fill(s, 2 * p * n, 5),
             MPI_Alltoall(s, odd ? 1 : ni, odd ? vec : MPI_INT, r, odd ? 1 : ni,
                          odd ? vec : MPI_INT, comm));
    else
        BOTH("alltoall in place, gapped types on odd ranks", p * n * (odd ? 3 : 1),
             fill(r, 3 * p * n, 6),
             MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, ni, odd ? res : MPI_INT, comm));
    counters_on(comm, c, after);
    int ran = after[1] == before[1] + 1, fell = after[2] == before[2] + 1;
    CHECK(run ? ran && !fell : fell && !ran, "%s of %ld ints under HYTUNE_SCRATCH_MAX: %s, expected %s",
          wide_name[w], n, ran ? "the kernel ran" : fell ? "scratch fallback" : "neither counted",
          run ? "the kernel" : "a scratch fallback");
    CHECK(same_everywhere(after, 3), "%s %ld: the ranks' counters differ", wide_name[w], n);
    MPI_Type_free(&res);
    MPI_Type_free(&vec);
}

/* n-int Allreduce calls through MPI_ and PMPI_ until, after at least min
 * calls, one ran the kernel (stop) or max were made; returns the calls
 * made, *ran and *fell the kernel runs and scratch fallbacks among them. */
static long allreduce_calls(long n, long min, long max, int stop, int **sb, int **rb, size_t cap,
                            long *ran, long *fell)
{
    long i;
    *ran = *fell = 0;
    for (i = 0; i < max && (i < min || !stop || !*ran); i++) {
        uint64_t before[3], after[3];
        counters(HYT_COLL_ALLREDUCE, before);
        BOTH("allreduce", n, fill(s, n, (int)i),
             MPI_Allreduce(s, r, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        counters(HYT_COLL_ALLREDUCE, after);
        *ran += after[1] > before[1];
        *fell += after[2] > before[2];
    }
    return i;
}

/* test_scratch retry: see the top of this file. */
static void retry_mode(int failing)
{
    CHECK(failing, "retry needs HYTUNE_TEST_KERNEL_FAIL set to a rank");
    long n = 3000, ran, fell;
    size_t cap = (size_t)n * sizeof(int);
    int *sb[2], *rb[2];
    for (int x = 0; x < 2; x++)
        sb[x] = malloc(cap), rb[x] = malloc(cap);
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    uint64_t asks0 = ctx->asks;
    long calls = allreduce_calls(n, 100, 100, 0, sb, rb, cap, &ran, &fell);
    uint64_t asks = ctx->asks - asks0;
    CHECK(ran == 0 && fell == calls, "with rank %s short of memory: %ld of %ld calls ran the "
          "kernel, %ld fell back", getenv("HYTUNE_TEST_KERNEL_FAIL"), ran, calls, fell);
    /* asked on the first call and again after a back-off doubling from a
     * few calls: more than once, at most about log2(calls) times */
    int log2c = 0;
    for (long c = calls; c > 1; c /= 2)
        log2c++;
    CHECK(asks >= 2 && asks <= (uint64_t)log2c, "%ld refused calls asked the ranks %llu times; "
          "want from 2 to %d", calls, (unsigned long long)asks, log2c);
    hyt_cfg.test_kernel_fail = -1; /* the memory is back on every rank */
    asks0 = ctx->asks;
    calls = allreduce_calls(n, 1, 2 * (long)ctx->retry_after + 2, 1, sb, rb, cap, &ran, &fell);
    CHECK(ran == 1 && fell == calls - 1, "memory back: the kernel did not run again within the "
          "back-off (%ld calls, %ld ran, %ld fell back)", calls, ran, fell);
    long more = allreduce_calls(n, 50, 50, 0, sb, rb, cap, &ran, &fell);
    CHECK(ran == more && fell == 0, "after the kernel ran again, %ld of %ld calls ran it", ran,
          more);
    CHECK(ctx->asks - asks0 == 1, "the need was asked %llu times once memory was back; want "
          "once", (unsigned long long)(ctx->asks - asks0));
    uint64_t all[2] = {ctx->asks, (uint64_t)calls};
    CHECK(same_everywhere(all, 2), "the ranks asked or retried differently");
    for (int x = 0; x < 2; x++)
        free(sb[x]), free(rb[x]);
}

/* The reserve agreements run on comm's context so far (0: no context). */
static uint64_t asks_on(MPI_Comm comm)
{
    hyt_comm_t *ctx = hyt_comm_get(comm);
    return ctx ? ctx->asks : 0;
}

/* test_scratch first: see the top of this file. */
static void first_mode(int failing, int **sb, int **rb, size_t cap)
{
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    if (!ctx)
        return;
    size_t lim = (size_t)hyt_cfg.scratch_max;
    int want = !failing && HYT_WORLD_RESERVE0 + HYT_WORLD_RESERVE1 <= lim;
    CHECK(want ? ctx->reserve[0] == HYT_WORLD_RESERVE0 && ctx->reserve[1] == HYT_WORLD_RESERVE1
               : ctx->reserve[0] == 0 && ctx->reserve[1] == 0,
          "MPI_COMM_WORLD's reserve before any call: %zu + %zu bytes; want %s", ctx->reserve[0],
          ctx->reserve[1], want ? "the first reserve" : "none");
    uint64_t asks0 = ctx->asks;
    for (long n = 1; n <= 100; n += 99)
        run_all(n, sb, rb, cap, NULL, NULL);
    uint64_t asks = ctx->asks - asks0;
    CHECK(want ? asks == 0 : asks >= 1, "the first calls on MPI_COMM_WORLD agreed on scratch %llu "
          "times; want %s", (unsigned long long)asks, want ? "none" : "at least once");
    for (int i = 0; i < NFORCED; i++) {
        uint64_t c[3];
        if (forced[i].coll == HYT_COLL_ALLTOALLV)
            continue;
        counters(forced[i].coll, c);
        CHECK(c[0] == 2 && c[1] == (failing ? 0 : 2) && c[2] == (failing ? 2 : 0),
              "%s: %llu calls, %llu ran %s, %llu scratch fallbacks; want %s",
              hyt_coll_name(forced[i].coll), (unsigned long long)c[0],
              (unsigned long long)c[1], forced[i].spec, (unsigned long long)c[2],
              failing ? "2 fallbacks" : "2 runs");
    }
    /* another communicator starts with no reserve: its first call agrees */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    long n = 1;
    BOTH("allreduce on a duplicate", n, fill(s, n, 1),
         MPI_Allreduce(s, r, (int)n, MPI_INT, MPI_SUM, dup));
    CHECK(asks_on(dup) == 1, "the first call on a duplicate of MPI_COMM_WORLD agreed on scratch "
          "%llu times; want once", (unsigned long long)asks_on(dup));
    MPI_Comm_free(&dup);
    uint64_t all[3] = {asks, ctx->reserve[0], ctx->reserve[1]};
    CHECK(same_everywhere(all, 3), "the ranks' agreements or reserves differ");
}

/* test_scratch wide: see the top of this file. */
static void wide_mode(void)
{
    long lim = hyt_cfg.scratch_max;
    hyt_comm_t *wctx = hyt_comm_get(MPI_COMM_WORLD);
    const hyt_alg_t *a2a = wctx ? wctx->forced[HYT_COLL_ALLTOALL] : NULL;
    CHECK(a2a != NULL, "no Alltoall algorithm is forced");
    if (!a2a)
        return;
    int kbruck = !strcmp(a2a->name, "kbruck");
    /* bytes of scratch per byte of one rank's p blocks, by the bound of the
     * algorithm (algorithms/scratch.c): Allgather kbruck one copy, Alltoall
     * kbruck three, pairwise one in place and none otherwise */
    const int mult[W_N] = {1, kbruck ? 3 : 0, kbruck ? 3 : 1};
    long nbig = 0;
    for (int w = 0; w < W_N; w++) {
        long m = mult[w] ? mult[w] : 1, nb = lim * 5 / 4 / (m * p * (long)sizeof(int));
        nbig = nb > nbig ? nb : nbig;
    }
    size_t cap = (size_t)(3 * p * (nbig + 1) + 64) * sizeof(int);
    int *sb[2], *rb[2];
    for (int x = 0; x < 2; x++)
        sb[x] = malloc(cap), rb[x] = malloc(cap);
    for (int w = 0; w < W_N; w++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        long m = mult[w] ? mult[w] : 1, blk = m * p * (long)sizeof(int);
        /* the agreed bound at 3/4 of the cap (a gapped layout would pass
         * it), above the cap, small, and at 3/4 again */
        long fit = lim * 3 / 4 / blk, big = lim * 5 / 4 / blk;
        const struct {
            long n;
            int run;
        } calls[] = {{fit, 1}, {big, !mult[w]}, {16, 1}, {fit, 1}};
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            wide_call(w, comm, calls[i].n, calls[i].run, sb, rb, cap);
        hyt_comm_t *ctx = hyt_comm_get(comm);
        CHECK(ctx != NULL, "%s: no context", wide_name[w]);
        if (ctx) {
            uint64_t held = ctx->scratch_size + ctx->scratch2_size;
            CHECK(ctx->beyond == 0, "%s: %llu kernel requests beyond the agreed reserve",
                  wide_name[w], (unsigned long long)ctx->beyond);
            CHECK(held <= (uint64_t)lim, "%s: scratch held %llu > HYTUNE_SCRATCH_MAX %ld",
                  wide_name[w], (unsigned long long)held, lim);
        }
        MPI_Comm_free(&comm);
    }
    for (int x = 0; x < 2; x++)
        free(sb[x]), free(rb[x]);
}

int main(int argc, char **argv)
{
    int cap_mode = argc > 1 && !strcmp(argv[1], "cap");
    int wide = argc > 1 && !strcmp(argv[1], "wide");
    int retry = argc > 1 && !strcmp(argv[1], "retry");
    int first = argc > 1 && !strcmp(argv[1], "first");
    if (argc < 2 || (!cap_mode && !wide && !retry && !first && strcmp(argv[1], "fail"))) {
        fprintf(stderr, "usage: test_scratch fail|cap|wide|retry|first\n");
        return 2;
    }
    for (int i = 0; i < NFORCED; i++)
        setenv(forced[i].var, forced[i].spec, 0);
    if (cap_mode || wide)
        setenv("HYTUNE_SCRATCH_MAX", cap_mode ? "64K" : "1M", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    const char *env = getenv("HYTUNE_TEST_KERNEL_FAIL");
    int failing = env && atoi(env) >= 0 && atoi(env) < p;
    /* sizes: growing (each may pass the reserve), then smaller again */
    static const long sizes[] = {1, 10, 1000, 3000, 20000, 100, 7};
    long nmax = 20000 + 3;
    size_t cap = (size_t)(p + 1) * (size_t)(nmax + 1) * sizeof(int) * 2;
    int *sb[2], *rb[2];
    for (int x = 0; x < 2; x++)
        sb[x] = malloc(cap), rb[x] = malloc(cap);
    int *cnt = malloc((size_t)p * sizeof *cnt), *dsp = malloc((size_t)p * sizeof *dsp);
    uint64_t before[NFORCED][3], after[3];
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    CHECK(ctx != NULL, "MPI_COMM_WORLD has no context");
    if (first) {
        first_mode(failing, sb, rb, cap);
    } else if (retry) {
        retry_mode(failing);
    } else if (wide) {
        wide_mode();
    } else if (!cap_mode) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            run_all(sizes[i], sb, rb, cap, cnt, dsp);
        for (int i = 0; i < NFORCED; i++) {
            counters(forced[i].coll, after);
            const char *name = hyt_coll_name(forced[i].coll);
            if (failing)
                CHECK(after[0] > 0 && after[1] == 0 && after[2] == after[0],
                      "%s: %llu calls, %llu ran %s, %llu scratch fallbacks; want all fallbacks",
                      name, (unsigned long long)after[0], (unsigned long long)after[1],
                      forced[i].spec, (unsigned long long)after[2]);
            else
                CHECK(after[0] > 0 && after[1] == after[0] && after[2] == 0,
                      "%s: %llu calls, %llu ran %s, %llu scratch fallbacks; want all run",
                      name, (unsigned long long)after[0], (unsigned long long)after[1],
                      forced[i].spec, (unsigned long long)after[2]);
            CHECK(same_everywhere(after, 3), "%s: the ranks' counters differ", name);
        }
    } else {
        /* recmult:2 at n ints holds two copies (8n bytes) and a few requests:
         * 8000 ints fit 64 KiB, 9000 do not */
        static const struct {
            long n;
            int tuned;
        } calls[] = {{16, 1}, {3072, 1}, {9000, 0}, {262144, 0}, {100, 1}, {8000, 1}, {40960, 0}};
        long big = 262144;
        for (int x = 0; x < 2; x++) {
            free(sb[x]);
            free(rb[x]);
            sb[x] = malloc((size_t)big * sizeof(int));
            rb[x] = malloc((size_t)big * sizeof(int));
        }
        cap = (size_t)big * sizeof(int);
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
            long n = calls[i].n;
            counters(HYT_COLL_ALLREDUCE, before[0]);
            BOTH("allreduce", n, fill(s, n, 1),
                 MPI_Allreduce(s, r, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            counters(HYT_COLL_ALLREDUCE, after);
            int ran = after[1] == before[0][1] + 1, fell = after[2] == before[0][2] + 1;
            CHECK(calls[i].tuned ? ran && !fell : fell && !ran,
                  "allreduce of %ld ints under HYTUNE_SCRATCH_MAX=64K: %s, expected %s", n,
                  ran ? "recmult ran" : fell ? "scratch fallback" : "neither counted",
                  calls[i].tuned ? "recmult" : "a scratch fallback");
            CHECK(same_everywhere(after, 3), "allreduce %ld: the ranks' counters differ", n);
        }
    }
    if (ctx) {
        uint64_t held = ctx->scratch_size + ctx->scratch2_size;
        uint64_t res[2] = {ctx->reserve[0], ctx->reserve[1]};
        CHECK(held <= (uint64_t)hyt_cfg.scratch_max, "scratch held %llu > HYTUNE_SCRATCH_MAX %ld",
              (unsigned long long)held, hyt_cfg.scratch_max);
        CHECK(res[0] <= ctx->scratch_size && res[1] <= ctx->scratch2_size,
              "reserve %llu+%llu above what this rank holds", (unsigned long long)res[0],
              (unsigned long long)res[1]);
        CHECK(same_everywhere(res, 2), "the ranks' reserves differ");
        CHECK(!failing || retry || (res[0] == 0 && res[1] == 0), "a failing rank left a reserve");
    }
    CHECK(handler_calls == 0, "the error handler ran %d times", handler_calls);
    free(cnt);
    free(dsp);
    for (int x = 0; x < 2; x++)
        free(sb[x]), free(rb[x]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return check_done(cap_mode ? "test_scratch cap"
                      : wide   ? "test_scratch wide"
                      : retry  ? "test_scratch retry"
                      : first  ? "test_scratch first"
                               : "test_scratch fail");
}
#endif
