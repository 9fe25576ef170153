/* The selection table's "nonblocking" section on MPICH (src/nbsel.c).
 *   test_nbsel vars    with HYTUNE_TABLE=test/data/table-nb.json: every
 *                      nonblocking call starts with MPICH's variables as the
 *                      table says for its size (read through MPI_T inside
 *                      PMPI_I<coll>, which this program defines around
 *                      MPICH's), its results equal the blocking PMPI
 *                      collective's, and the previous values are back after it
 *   test_nbsel effect  with test/data/table-nb-ring.json and
 *                      MPIR_CVAR_COLLECTIVE_FALLBACK=error: MPICH runs what
 *                      was written.  tsp_ring refuses a non-commutative op, so
 *                      a 16-byte Iallreduce with one fails, the same call
 *                      made directly through PMPI succeeds, and a 4000-byte
 *                      one (rule "auto") succeeds with PMPI's result; the
 *                      same for MPI_Allreduce_init (the rule applies at init)
 *   test_nbsel results only the results against PMPI's (whatever selects
 *                      MPICH's algorithms: an MPICH selection file)
 *   test_nbsel sig     how MPICH calls a commutative user op in a 64-byte
 *                      Ireduce to rank 0: calls per rank, a timing-free
 *                      signature of the algorithm and radix MPICH ran
 *   test_nbsel export-ireduce K FILE   (not in the -plain build) the MPICH
 *                      selection file offline/nbtune.c writes for a table
 *                      whose Ireduce rule is tsp_tree with radix K
 *   test_nbsel export-all FILE   (not in the -plain build) the file for
 *                      winners of every collective: the guards, the
 *                      parameters, and the rules the file cannot express
 * The -plain build runs the same under LD_PRELOAD of libhytune.so. */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HYT_TEST_PLAIN
#include "src/mpit.c" /* the library under LD_PRELOAD keeps its own copy to itself */
#else
#include "offline/mpich.c"
#include "offline/nbtune.c"
#endif
#include "test/check.h"

enum { AR, BC, RD, AG, AA, IB, IG, IS, AGV, AAV, RS, RSB, SC, IGV, ISV, NNB };
static const char *const nb_up[NNB] = {
    "IALLREDUCE", "IBCAST",      "IREDUCE",    "IALLGATHER",      "IALLTOALL",
    "IBARRIER",   "IGATHER",     "ISCATTER",   "IALLGATHERV",     "IALLTOALLV",
    "IREDUCE_SCATTER", "IREDUCE_SCATTER_BLOCK", "ISCAN", "IGATHERV", "ISCATTERV"};
/* every radix variable of each collective (MPICH 4.0.2) */
static const char *const kvars[NNB][3] = {
    {"RECEXCH_KVAL", "TREE_KVAL", NULL},
    {"TREE_KVAL", "SCATTERV_KVAL", "ALLGATHERV_RECEXCH_KVAL"},
    {"TREE_KVAL", NULL, NULL},
    {"RECEXCH_KVAL", "BRUCKS_KVAL", NULL},
    {"BRUCKS_KVAL", NULL, NULL},
    {"RECEXCH_KVAL", NULL, NULL},
    {"TREE_KVAL", NULL, NULL},
    {"TREE_KVAL", NULL, NULL},
    {"RECEXCH_KVAL", "BRUCKS_KVAL", NULL},
    {NULL, NULL, NULL},
    {"RECEXCH_KVAL", NULL, NULL},
    {"RECEXCH_KVAL", NULL, NULL},
    {NULL, NULL, NULL},
    {NULL, NULL, NULL},
    {NULL, NULL, NULL},
};

static hyt_cvar_t alg_var[NNB], k_var[NNB][3];
static int alg_orig[NNB], k_orig[NNB][3];
static int seen_calls[NNB], seen_alg[NNB], seen_k[NNB][3];

static void open_vars(void)
{
    CHECK(hyt_mpit_begin() == 0, "MPI_T_init_thread");
    for (int n = 0; n < NNB; n++) {
        char name[96];
        snprintf(name, sizeof name, "MPIR_CVAR_%s_INTRA_ALGORITHM", nb_up[n]);
        CHECK(hyt_cvar_open(name, 1, &alg_var[n]) == 0, "open %s", name);
        CHECK(hyt_cvar_read(&alg_var[n], &alg_orig[n]) == 0, "read %s", name);
        for (int q = 0; q < 3 && kvars[n][q]; q++) {
            snprintf(name, sizeof name, "MPIR_CVAR_%s_%s", nb_up[n], kvars[n][q]);
            CHECK(hyt_cvar_open(name, 0, &k_var[n][q]) == 0, "open %s", name);
            CHECK(hyt_cvar_read(&k_var[n][q], &k_orig[n][q]) == 0, "read %s", name);
        }
    }
}

/* inside PMPI_I<coll>: the values the call starts with */
static void record(int n)
{
    seen_calls[n]++;
    hyt_cvar_read(&alg_var[n], &seen_alg[n]);
    for (int q = 0; q < 3 && kvars[n][q]; q++)
        hyt_cvar_read(&k_var[n][q], &seen_k[n][q]);
}

#define SHADOW(NAME, N, PARAMS, ARGS)                                                      \
    int P##NAME PARAMS                                                                     \
    {                                                                                      \
        typedef int(*fn_t) PARAMS;                                                         \
        static fn_t real;                                                                  \
        if (!real)                                                                         \
            *(void **)&real = dlsym(RTLD_NEXT, "P" #NAME);                                 \
        record(N);                                                                         \
        return real ARGS;                                                                  \
    }
SHADOW(MPI_Iallreduce, AR,
       (const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *q),
       (s, r, c, t, op, comm, q))
SHADOW(MPI_Ibcast, BC, (void *b, int c, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *q),
       (b, c, t, root, comm, q))
SHADOW(MPI_Ireduce, RD,
       (const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm,
        MPI_Request *q),
       (s, r, c, t, op, root, comm, q))
SHADOW(MPI_Iallgather, AG,
       (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,
        MPI_Request *q),
       (s, sc, st, r, rc, rt, comm, q))
SHADOW(MPI_Ialltoall, AA,
       (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,
        MPI_Request *q),
       (s, sc, st, r, rc, rt, comm, q))
SHADOW(MPI_Ibarrier, IB, (MPI_Comm comm, MPI_Request *q), (comm, q))
SHADOW(MPI_Igather, IG,
       (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
        MPI_Comm comm, MPI_Request *q),
       (s, sc, st, r, rc, rt, root, comm, q))
SHADOW(MPI_Iscatter, IS,
       (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
        MPI_Comm comm, MPI_Request *q),
       (s, sc, st, r, rc, rt, root, comm, q))
SHADOW(MPI_Iallgatherv, AGV,
       (const void *s, int sc, MPI_Datatype st, void *r, const int *rc, const int *rd,
        MPI_Datatype rt, MPI_Comm comm, MPI_Request *q),
       (s, sc, st, r, rc, rd, rt, comm, q))
SHADOW(MPI_Ialltoallv, AAV,
       (const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r, const int *rc,
        const int *rd, MPI_Datatype rt, MPI_Comm comm, MPI_Request *q),
       (s, sc, sd, st, r, rc, rd, rt, comm, q))
SHADOW(MPI_Ireduce_scatter, RS,
       (const void *s, void *r, const int *rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
        MPI_Request *q),
       (s, r, rc, t, op, comm, q))
SHADOW(MPI_Ireduce_scatter_block, RSB,
       (const void *s, void *r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *q),
       (s, r, rc, t, op, comm, q))
SHADOW(MPI_Iscan, SC,
       (const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *q),
       (s, r, c, t, op, comm, q))
SHADOW(MPI_Igatherv, IGV,
       (const void *s, int sc, MPI_Datatype st, void *r, const int *rc, const int *rd,
        MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *q),
       (s, sc, st, r, rc, rd, rt, root, comm, q))
SHADOW(MPI_Iscatterv, ISV,
       (const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r, int rc,
        MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *q),
       (s, sc, sd, st, r, rc, rt, root, comm, q))

/* What test/data/table-nb.json says for collective n at bytes on p ranks
 * (this program runs on one node): algorithm name ("auto": the values
 * before) and the radix its variables take.  (Ibcast's
 * tsp_scatterv_recexch_allgatherv only up to 2 ranks: MPICH 4.0.2's gives
 * wrong results at 3 ranks for counts not divisible by 3, without hytune.) */
static void expect(int n, int bytes, int p, const char **alg, const char **kv1, const char **kv2,
                   int *k)
{
    *kv1 = *kv2 = NULL;
    *k = 0;
    switch (n) {
    case AR:
        if (bytes <= 64)
            *alg = "tsp_recexch_single_buffer", *kv1 = "RECEXCH_KVAL", *k = 3;
        else if (bytes <= 4096)
            *alg = "tsp_tree", *kv1 = "TREE_KVAL", *k = 4;
        else
            *alg = "auto";
        break;
    case BC:
        if (p <= 2)
            *alg = "tsp_scatterv_recexch_allgatherv", *kv1 = "SCATTERV_KVAL",
            *kv2 = "ALLGATHERV_RECEXCH_KVAL", *k = 3;
        else
            *alg = "tsp_tree", *kv1 = "TREE_KVAL", *k = 3;
        break;
    case RD:
        if (bytes <= 1024)
            *alg = "sched_binomial";
        else
            *alg = "tsp_tree", *kv1 = "TREE_KVAL", *k = 5;
        break;
    case AG:
        *alg = "tsp_recexch_doubling", *kv1 = "RECEXCH_KVAL", *k = 4;
        break;
    case AA:
        *alg = "tsp_brucks", *kv1 = "BRUCKS_KVAL", *k = 3;
        break;
    case IB:
        *alg = "sched_recursive_doubling";
        break;
    case IG:
        if (bytes <= 64)
            *alg = "tsp_tree", *kv1 = "TREE_KVAL", *k = 3;
        else
            *alg = "sched_binomial";
        break;
    case IS:
        *alg = "tsp_tree", *kv1 = "TREE_KVAL", *k = 2;
        break;
    case AGV: /* bytes: all p blocks */
        if (bytes <= 1024)
            *alg = "tsp_brucks", *kv1 = "BRUCKS_KVAL", *k = 3;
        else
            *alg = "tsp_recexch_doubling", *kv1 = "RECEXCH_KVAL", *k = 2;
        break;
    case AAV: /* its size differs between ranks: the last rule whatever the size */
        *alg = "tsp_scattered";
        break;
    case RS:
        *alg = "tsp_recexch", *kv1 = "RECEXCH_KVAL", *k = 3;
        break;
    case RSB:
        *alg = "sched_recursive_halving";
        break;
    case IGV: /* Igatherv and Iscatterv: their size differs between ranks: the last rule */
        *alg = "tsp_linear";
        break;
    case ISV:
        *alg = "sched_linear";
        break;
    default:
        *alg = "tsp_recursive_doubling";
    }
}

/* The call of n at bytes started as the table says; everything is back now. */
static int vars_checked;

static void check_vars(int n, int bytes, int calls_before)
{
    if (!vars_checked)
        return;
    const char *alg, *kv1, *kv2;
    int k, p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    expect(n, bytes, p, &alg, &kv1, &kv2, &k);
    CHECK(seen_calls[n] == calls_before + 1, "%s %d B: PMPI_%s reached %d times", nb_up[n], bytes,
          nb_up[n], seen_calls[n] - calls_before);
    int want = strcmp(alg, "auto") ? hyt_cvar_value(&alg_var[n], alg) : alg_orig[n];
    CHECK(want >= 0, "MPICH lists %s for %s", alg, nb_up[n]);
    CHECK(seen_alg[n] == want, "%s %d B: started with algorithm value %d (%s), the table says "
          "%d (%s)", nb_up[n], bytes, seen_alg[n],
          seen_alg[n] >= 0 && seen_alg[n] < alg_var[n].n ? alg_var[n].names[seen_alg[n]] : "?",
          want, alg);
    for (int q = 0; q < 3 && kvars[n][q]; q++) {
        int set = (kv1 && !strcmp(kvars[n][q], kv1)) || (kv2 && !strcmp(kvars[n][q], kv2));
        CHECK(seen_k[n][q] == (set ? k : k_orig[n][q]), "%s %d B: %s was %d, want %d", nb_up[n],
              bytes, kvars[n][q], seen_k[n][q], set ? k : k_orig[n][q]);
        int now;
        hyt_cvar_read(&k_var[n][q], &now);
        CHECK(now == k_orig[n][q], "%s: %s is %d after the call, was %d before", nb_up[n],
              kvars[n][q], now, k_orig[n][q]);
    }
    int now;
    hyt_cvar_read(&alg_var[n], &now);
    CHECK(now == alg_orig[n], "%s: algorithm value %d after the call, was %d", nb_up[n], now,
          alg_orig[n]);
}

/* One call of n started with START (request q_) at selection size BYTES:
 * the variables as the table says, then its first CMP result bytes against
 * REF's (the blocking PMPI collective into ref). */
#define NB_CASE(N, BYTES, START, REF, CMP, WHAT)                                            \
    do {                                                                                    \
        int before_ = seen_calls[N];                                                        \
        MPI_Request q_;                                                                     \
        CHECK((START) == MPI_SUCCESS, "%s %d B: start", WHAT, BYTES);                       \
        check_vars(N, BYTES, before_);                                                      \
        MPI_Wait(&q_, MPI_STATUS_IGNORE);                                                   \
        REF;                                                                                \
        CHECK((CMP) == 0 || !memcmp(d, ref, (CMP)), "%s %d B result", WHAT, BYTES);         \
    } while (0)

/* The collectives added after the first five, c ints per block (the
 * v-variants: every rank's block, displacements in rank order). */
static void more_colls(int *s, int *d, int *ref, int c, int r, int p)
{
    int bytes = c * 4, all = bytes * p, *cnt = malloc(2 * sizeof(int) * (size_t)p);
    int *dsp = cnt + p;
    size_t one = sizeof(int) * (size_t)c, whole = one * (size_t)p;
    MPI_Comm w = MPI_COMM_WORLD;
    for (int i = 0; i < p; i++)
        cnt[i] = c, dsp[i] = i * c;
    NB_CASE(IB, 0, MPI_Ibarrier(w, &q_), (void)0, 0, "ibarrier");
    NB_CASE(IG, bytes, MPI_Igather(s, c, MPI_INT, d, c, MPI_INT, 0, w, &q_),
            PMPI_Gather(s, c, MPI_INT, ref, c, MPI_INT, 0, w), r == 0 ? whole : 0, "igather");
    NB_CASE(IS, bytes, MPI_Iscatter(s, c, MPI_INT, d, c, MPI_INT, p - 1, w, &q_),
            PMPI_Scatter(s, c, MPI_INT, ref, c, MPI_INT, p - 1, w), one, "iscatter");
    NB_CASE(AGV, all, MPI_Iallgatherv(s, c, MPI_INT, d, cnt, dsp, MPI_INT, w, &q_),
            PMPI_Allgatherv(s, c, MPI_INT, ref, cnt, dsp, MPI_INT, w), whole, "iallgatherv");
    NB_CASE(AAV, all, MPI_Ialltoallv(s, cnt, dsp, MPI_INT, d, cnt, dsp, MPI_INT, w, &q_),
            PMPI_Alltoallv(s, cnt, dsp, MPI_INT, ref, cnt, dsp, MPI_INT, w), whole, "ialltoallv");
    NB_CASE(RS, all, MPI_Ireduce_scatter(s, d, cnt, MPI_INT, MPI_SUM, w, &q_),
            PMPI_Reduce_scatter(s, ref, cnt, MPI_INT, MPI_SUM, w), one, "ireduce_scatter");
    NB_CASE(RSB, bytes, MPI_Ireduce_scatter_block(s, d, c, MPI_INT, MPI_SUM, w, &q_),
            PMPI_Reduce_scatter_block(s, ref, c, MPI_INT, MPI_SUM, w), one,
            "ireduce_scatter_block");
    NB_CASE(SC, bytes, MPI_Iscan(s, d, c, MPI_INT, MPI_SUM, w, &q_),
            PMPI_Scan(s, ref, c, MPI_INT, MPI_SUM, w), one, "iscan");
    NB_CASE(IGV, all, MPI_Igatherv(s, c, MPI_INT, d, cnt, dsp, MPI_INT, p - 1, w, &q_),
            PMPI_Gatherv(s, c, MPI_INT, ref, cnt, dsp, MPI_INT, p - 1, w), r == p - 1 ? whole : 0,
            "igatherv");
    NB_CASE(ISV, all, MPI_Iscatterv(s, cnt, dsp, MPI_INT, d, c, MPI_INT, 0, w, &q_),
            PMPI_Scatterv(s, cnt, dsp, MPI_INT, ref, c, MPI_INT, 0, w), one, "iscatterv");
    free(cnt);
}

static void vars_mode(void)
{
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    open_vars();
    static const int counts[] = {1, 16, 17, 300, 1024, 2000};
    for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
        int c = counts[ci], bytes = c * 4, before;
        int *s = malloc(sizeof(int) * (size_t)c * (size_t)p), *d = malloc(sizeof(int) * (size_t)c * (size_t)p);
        int *ref = malloc(sizeof(int) * (size_t)c * (size_t)p);
        MPI_Request q;
        for (int i = 0; i < c * p; i++)
            s[i] = r * 1000 + i * 7 + 1;
        /* Iallreduce, then in place */
        before = seen_calls[AR];
        CHECK(MPI_Iallreduce(s, d, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q) == MPI_SUCCESS, "iallreduce");
        check_vars(AR, bytes, before);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        PMPI_Allreduce(s, ref, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(!memcmp(d, ref, sizeof(int) * (size_t)c), "iallreduce %d B result", bytes);
        memcpy(d, s, sizeof(int) * (size_t)c);
        before = seen_calls[AR];
        MPI_Iallreduce(MPI_IN_PLACE, d, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
        check_vars(AR, bytes, before);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(!memcmp(d, ref, sizeof(int) * (size_t)c), "iallreduce in place %d B result", bytes);
        /* Ibcast from the last rank */
        memcpy(d, s, sizeof(int) * (size_t)c);
        before = seen_calls[BC];
        MPI_Ibcast(d, c, MPI_INT, p - 1, MPI_COMM_WORLD, &q);
        check_vars(BC, bytes, before);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        memcpy(ref, s, sizeof(int) * (size_t)c);
        PMPI_Bcast(ref, c, MPI_INT, p - 1, MPI_COMM_WORLD);
        CHECK(!memcmp(d, ref, sizeof(int) * (size_t)c), "ibcast %d B result", bytes);
        /* Ireduce to rank 0 */
        before = seen_calls[RD];
        MPI_Ireduce(s, d, c, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &q);
        check_vars(RD, bytes, before);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        PMPI_Reduce(s, ref, c, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        CHECK(r != 0 || !memcmp(d, ref, sizeof(int) * (size_t)c), "ireduce %d B result", bytes);
        /* Iallgather and Ialltoall: c ints per block */
        before = seen_calls[AG];
        MPI_Iallgather(s, c, MPI_INT, d, c, MPI_INT, MPI_COMM_WORLD, &q);
        check_vars(AG, bytes, before);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        PMPI_Allgather(s, c, MPI_INT, ref, c, MPI_INT, MPI_COMM_WORLD);
        CHECK(!memcmp(d, ref, sizeof(int) * (size_t)c * (size_t)p), "iallgather %d B result", bytes);
        before = seen_calls[AA];
        MPI_Ialltoall(s, c, MPI_INT, d, c, MPI_INT, MPI_COMM_WORLD, &q);
        check_vars(AA, bytes, before);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        PMPI_Alltoall(s, c, MPI_INT, ref, c, MPI_INT, MPI_COMM_WORLD);
        CHECK(!memcmp(d, ref, sizeof(int) * (size_t)c * (size_t)p), "ialltoall %d B result", bytes);
        more_colls(s, d, ref, c, r, p);
        free(s);
        free(d);
        free(ref);
    }
    /* a value the application wrote through MPI_T itself is back after a
     * call the table covers (400 B: tsp_tree, TREE_KVAL = 4) */
    if (!vars_checked)
        return;
    int s[100], d[100], now = -1;
    for (int i = 0; i < 100; i++)
        s[i] = i;
    MPI_Request q;
    hyt_cvar_write(&k_var[AR][1], 7);
    MPI_Iallreduce(s, d, 100, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    CHECK(seen_k[AR][1] == 4, "TREE_KVAL during the call %d, want 4", seen_k[AR][1]);
    hyt_cvar_read(&k_var[AR][1], &now);
    CHECK(now == 7, "TREE_KVAL the application set to 7 is %d after the call", now);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    hyt_cvar_write(&k_var[AR][1], k_orig[AR][1]);
}

/* (a op b) keeps a: associative, not commutative */
static void first_op(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)in, (void)io, (void)len, (void)dt;
}

/* One round of a persistent request, then its release. */
static void start_wait_free(MPI_Request *q)
{
    MPI_Start(q);
    MPI_Wait(q, MPI_STATUS_IGNORE);
    MPI_Request_free(q);
}

static void effect_mode(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Op op;
    MPI_Op_create(first_op, 0, &op);
    int s[1000], d[1000], ref[1000];
    for (int i = 0; i < 1000; i++)
        s[i] = r * 1000 + i;
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = MPI_Iallreduce(s, d, 4, MPI_INT, op, comm, &q);
    CHECK(rc != MPI_SUCCESS, "16-byte Iallreduce with a non-commutative op under the table's "
          "tsp_ring succeeded: the algorithm was not set");
    if (rc == MPI_SUCCESS)
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    rc = PMPI_Iallreduce(s, d, 4, MPI_INT, op, comm, &q);
    CHECK(rc == MPI_SUCCESS, "the same call through PMPI (MPICH's own choice) failed: %d", rc);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    /* a persistent Allreduce takes the Iallreduce rule at MPI_Allreduce_init,
     * where MPICH builds its schedule */
    q = MPI_REQUEST_NULL;
    rc = MPI_Allreduce_init(s, d, 4, MPI_INT, op, comm, MPI_INFO_NULL, &q);
    CHECK(rc != MPI_SUCCESS, "16-byte Allreduce_init with a non-commutative op under the "
          "table's tsp_ring succeeded: the algorithm was not set");
    if (rc == MPI_SUCCESS)
        MPI_Request_free(&q);
    q = MPI_REQUEST_NULL;
    rc = PMPI_Allreduce_init(s, d, 4, MPI_INT, op, comm, MPI_INFO_NULL, &q);
    CHECK(rc == MPI_SUCCESS, "the same Allreduce_init through PMPI failed: %d", rc);
    if (rc == MPI_SUCCESS)
        start_wait_free(&q);
    q = MPI_REQUEST_NULL;
    rc = MPI_Allreduce_init(s, d, 1000, MPI_INT, op, comm, MPI_INFO_NULL, &q);
    CHECK(rc == MPI_SUCCESS, "4000-byte Allreduce_init (rule auto) failed: %d", rc);
    if (rc == MPI_SUCCESS)
        start_wait_free(&q);
    rc = MPI_Iallreduce(s, d, 1000, MPI_INT, op, comm, &q);
    CHECK(rc == MPI_SUCCESS, "4000-byte Iallreduce (rule auto) failed: %d", rc);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    PMPI_Allreduce(s, ref, 1000, MPI_INT, op, comm);
    CHECK(!memcmp(d, ref, sizeof d), "4000-byte Iallreduce result differs from PMPI's");
    MPI_Op_free(&op);
    MPI_Comm_free(&comm);
}

static int op_calls;

static void count_sum(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)io)[i] += ((int *)in)[i];
    op_calls++;
}

static void sig_mode(void)
{
    int r, p, s[16], d[16];
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Op op;
    MPI_Op_create(count_sum, 1, &op);
    for (int i = 0; i < 16; i++)
        s[i] = r + i;
    MPI_Request q;
    CHECK(MPI_Ireduce(s, d, 16, MPI_INT, op, 0, MPI_COMM_WORLD, &q) == MPI_SUCCESS, "ireduce");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < 16 && r == 0; i++)
        CHECK(d[i] == p * i + p * (p - 1) / 2, "ireduce[%d] = %d", i, d[i]);
    MPI_Op_free(&op);
    for (int q2 = 0; q2 < p; q2++) { /* one line per rank, in rank order */
        if (q2 == r) {
            printf("ireduce rank %d: op calls %d\n", r, op_calls);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

#ifndef HYT_TEST_PLAIN
/* Rank 0 writes the file; everything freed. */
static void done_export(char *txt, const char *file, int r, hyt_nbtune_keep_t *keep)
{
    FILE *f = r == 0 && txt ? fopen(file, "w") : NULL;
    if (f) {
        fputs(txt, f);
        fclose(f);
    }
    free(txt);
    hyt_nbtune_mpich_free(keep);
    hyt_mpit_end();
}

static void export_mode(int k, const char *file)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    CHECK(hyt_mpit_begin() == 0, "MPI_T");
    hyt_nb_rule_t rule = {.bytes_max = UINT64_MAX, .alg = "tsp_tree", .k = k};
    hyt_nb_set_t set = {INT32_MAX, INT32_MAX, 1, &rule};
    hyt_nb_table_t t = {.nsets = {[HYT_NB_IREDUCE] = 1}, .sets = {[HYT_NB_IREDUCE] = &set}};
    hyt_mpich_coll_t mc[HYT_NB_NCOLL];
    const char *names[HYT_NB_NCOLL];
    hyt_nbtune_keep_t keep;
    int won, dropped, n = hyt_nbtune_mpich(&t, mc, names, HYT_NB_NCOLL, &keep, &won, &dropped);
    CHECK(n == 1 && won == 1 && dropped == 0, "export: %d collectives, %d won, %d dropped", n, won,
          dropped);
    char *txt = n == 1 ? hyt_mpich_json_named(mc, names, n) : NULL;
    char want[64];
    snprintf(want, sizeof want, "{\"k=%d\":{},\"tree_type=0\":{}", k);
    CHECK(txt && strstr(txt, "\"algorithm=MPIR_Ireduce_intra_tsp_tree\":") && strstr(txt, want),
          "the file has Ireduce tsp_tree with %s", want);
    done_export(txt, file, r, &keep);
}

static void export_all(const char *file)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    CHECK(hyt_mpit_begin() == 0, "MPI_T");
    hyt_nb_rule_t ar[] = {{.bytes_max = 64, .alg = "tsp_recexch_single_buffer", .k = 4},
                          {.bytes_max = UINT64_MAX, .alg = "sched_reduce_scatter_allgather"}};
    hyt_nb_rule_t bc[] = {{.bytes_max = 1024, .alg = "tsp_scatterv_recexch_allgatherv", .k = 3},
                          {.bytes_max = UINT64_MAX, .alg = "auto"}};
    hyt_nb_rule_t ag[] = {{.bytes_max = 16, .alg = "tsp_brucks", .k = 2},
                          {.bytes_max = UINT64_MAX, .alg = "sched_recursive_doubling"}};
    hyt_nb_rule_t aa[] = {{.bytes_max = UINT64_MAX, .alg = "sched_permuted_sendrecv"}};
    /* later collectives: a winner without parameters, and one with a radix (left out) */
    hyt_nb_rule_t aav[] = {{.bytes_max = UINT64_MAX, .alg = "sched_blocked"}};
    hyt_nb_rule_t ig[] = {{.bytes_max = UINT64_MAX, .alg = "tsp_tree", .k = 2}};
    /* Igatherv and Iscatterv: MPICH's containers for every communicator kind */
    hyt_nb_rule_t igv[] = {{.bytes_max = UINT64_MAX, .alg = "tsp_linear"}};
    hyt_nb_rule_t isv[] = {{.bytes_max = UINT64_MAX, .alg = "sched_linear"}};
    hyt_nb_set_t sar = {INT32_MAX, INT32_MAX, 2, ar}, sbc = {INT32_MAX, INT32_MAX, 2, bc},
                 sag = {INT32_MAX, INT32_MAX, 2, ag}, saa = {INT32_MAX, INT32_MAX, 1, aa},
                 saav = {INT32_MAX, INT32_MAX, 1, aav}, sig = {INT32_MAX, INT32_MAX, 1, ig},
                 sigv = {INT32_MAX, INT32_MAX, 1, igv}, sisv = {INT32_MAX, INT32_MAX, 1, isv};
    hyt_nb_table_t t = {.nsets = {1, 1, 0, 1, 1, [HYT_NB_IALLTOALLV] = 1, [HYT_NB_IGATHER] = 1,
                                  [HYT_NB_IGATHERV] = 1, [HYT_NB_ISCATTERV] = 1},
                        .sets = {&sar, &sbc, NULL, &sag, &saa, [HYT_NB_IALLTOALLV] = &saav,
                                 [HYT_NB_IGATHER] = &sig, [HYT_NB_IGATHERV] = &sigv,
                                 [HYT_NB_ISCATTERV] = &sisv}};
    hyt_mpich_coll_t mc[HYT_NB_NCOLL];
    const char *names[HYT_NB_NCOLL];
    hyt_nbtune_keep_t keep;
    int won, dropped, n = hyt_nbtune_mpich(&t, mc, names, HYT_NB_NCOLL, &keep, &won, &dropped);
    CHECK(n == 8 && won == 8 && dropped == 2, "export: %d collectives, %d won, %d dropped", n, won,
          dropped);
    char *txt = n == 8 ? hyt_mpich_json_named(mc, names, n) : NULL;
    static const char *const want[] = {
        /* iallreduce: the radix; builtin op and count >= pof2 */
        "\"avg_msg_size<=64\":{\"algorithm=MPIR_Iallreduce_intra_tsp_recexch_single_buffer\":{\"k=4\":{}}}",
        "\"avg_msg_size=any\":{\"is_op_built_in=yes\":{\"count<pow2\":{\"algorithm=MPIR_Iallreduce_intra_sched_recursive_doubling\":{}},\"count=any\":{\"algorithm=MPIR_Iallreduce_intra_sched_reduce_scatter_allgather\":{}}},\"is_op_built_in=no\":{\"algorithm=MPIR_Iallreduce_intra_sched_recursive_doubling\":{}}}",
        /* ibcast: both radixes; auto above 1 KiB is the general algorithm */
        "\"avg_msg_size<=1024\":{\"algorithm=MPIR_Ibcast_intra_tsp_scatterv_recexch_allgatherv\":{\"scatterv_k=3\":{},\"allgatherv_k=3\":{}}},\"avg_msg_size=any\":{\"algorithm=MPIR_Ibcast_intra_sched_binomial\":{}}",
        /* iallgather: brucks cannot be expressed (general ring), recursive doubling on powers of two, total sizes */
        "\"total_msg_size<=",
        "{\"comm_size=pow2\":{\"algorithm=MPIR_Iallgather_intra_sched_recursive_doubling\":{}},\"comm_size=any\":{\"algorithm=MPIR_Iallgather_intra_sched_ring\":{}}}",
        /* ialltoall: not in place */
        "\"collective=ialltoall\":{\"comm_type=intra\":{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Ialltoall_intra_sched_inplace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Ialltoall_intra_sched_permuted_sendrecv\":{}}}",
        /* ialltoallv: not in place either */
        "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Ialltoallv_intra_sched_inplace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Ialltoallv_intra_sched_blocked\":{}}}",
        /* igatherv, iscatterv: allcomm */
        "\"collective=igatherv\":{\"comm_type=intra\":{\"algorithm=MPIR_Igatherv_allcomm_tsp_linear\":{}}",
        "\"collective=iscatterv\":{\"comm_type=intra\":{\"algorithm=MPIR_Iscatterv_allcomm_sched_linear\":{}}",
    };
    for (size_t i = 0; txt && i < sizeof want / sizeof *want; i++)
        CHECK(strstr(txt, want[i]), "the file has %s", want[i]);
    CHECK(txt && !strstr(txt, "tsp_brucks"), "Iallgather tsp_brucks left out");
    CHECK(txt && !strstr(txt, "Igather_intra_tsp_tree"), "Igather tsp_tree left out");
    done_export(txt, file, r, &keep);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "vars";
    vars_checked = !strcmp(mode, "vars");
    if (!strcmp(mode, "effect"))
        effect_mode();
    else if (!strcmp(mode, "sig"))
        sig_mode();
#ifndef HYT_TEST_PLAIN
    else if (!strcmp(mode, "export-ireduce") && argc > 3)
        export_mode(atoi(argv[2]), argv[3]);
    else if (!strcmp(mode, "export-all") && argc > 2)
        export_all(argv[2]);
#endif
    else
        vars_mode();
    for (int n = 0; n < NNB; n++) {
        hyt_cvar_close(&alg_var[n]);
        for (int q = 0; q < 3; q++)
            hyt_cvar_close(&k_var[n][q]);
    }
    hyt_mpit_end();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = check_done(rank ? "test_nbsel (rank > 0)" : "test_nbsel");
    MPI_Finalize();
    return rc;
}
