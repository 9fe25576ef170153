/* The generated correctness matrix: every registry algorithm (native rows
 * excepted, new rows picked up automatically) x radix k x count x datatype x
 * op x root x in-place, each result compared on every rank with the PMPI
 * result of the same call.
 *
 *   coll_matrix [quick|tiny] [wildcard] [ALG-NAME|COLL:ALG-NAME...]
 *   (HYT_MATRIX_TIMING=1 prints the CPU time spent per algorithm)
 *
 * `wildcard`: the application-interference case, for every registry row
 * (Alltoall and Reduce_scatter_block included) and every k.  Each rank
 * posts MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD) before the
 * row and polls MPI_Iprobe on MPI_COMM_WORLD around every call, as a
 * master-worker code does; after every call the receive must still be
 * pending and the probe must find nothing.  At the end of the row every
 * rank sends one tagged message to the next rank, which must be what the
 * wildcard receive gets.  A kernel sending on the application's
 * communicator makes the receive take its message: a failure, or a hang
 * that SimGrid reports as a deadlock and a watchdog (alarm) ends under MPI.
 *
 * Integer results must match byte for byte on the bytes the datatype covers
 * (MPI_DOUBLE sums use integer-valued inputs, so they are exact); bytes in
 * the gaps of derived datatypes must stay untouched.  Fallbacks are checked
 * against the registry flags (HYT_ALG_NEEDS_COMMUTATIVE with a
 * non-commutative op must fall back, counted) and must agree on all ranks.
 * Float reproducibility stated and tested for every Allreduce algorithm:
 * with non-integer doubles every rank gets the very same bits, and a second
 * run gives the same bits again.
 *
 * To bound run time not every combination runs (budget_for): all datatypes
 * x ops x roots x in-place run at count p+1 for the smallest k (two of them
 * and k = p when p <= 12); every count runs with MPI_INT/MPI_SUM for every k;
 * other k get a seeded random sample of the full space.  Above p = 33 the
 * rows of the later collectives run no full product (later_row).
 * `quick` (real MPICH) keeps one full k; `tiny` runs a handful of calls.
 * Prints one summary line: cases, failures, fallbacks. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "algorithms/algorithms.h"
#include "test/check.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HYT_TEST_PLAIN
/* the -plain build has no hytune to test: nothing to compare against */
int main(void)
{
    return 0;
}
#else

#define SENTINEL 0xA5
#define BIGCOUNT 1000
/* Allgather's result is p times its count: its "large" count keeps the
 * result near 16000 elements, so p = 64 does not dominate the sweep. */
static int per_rank(hyt_coll_t coll)
{
    return coll == HYT_COLL_ALLGATHER || coll == HYT_COLL_GATHER || coll == HYT_COLL_SCATTER ||
           coll == HYT_COLL_ALLGATHERV || coll == HYT_COLL_ALLTOALLV ||
           coll == HYT_COLL_REDUCE_SCATTER;
}

static int big_count(hyt_coll_t coll, int p)
{
    if (!per_rank(coll) || p <= 16)
        return BIGCOUNT;
    return 16000 / p > 3 * p + 3 ? 16000 / p : 3 * p + 3;
}

/* ---- datatypes under test, described by their int/double/short slots ---- */
typedef struct ttype {
    const char *name;
    MPI_Datatype t;
    int nslot;
    int off[2];
    char kind[2];   /* 'i' int, 'd' double, 's' short */
    MPI_Aint ext;
    int reducible;  /* predefined ops apply (all slots one basic type) */
    int bitwise;    /* MPI_BAND applies */
    int pair;       /* element is an affine map for the non-commutative op */
} ttype_t;

enum {
    T_INT, T_DOUBLE, T_SHORT, T_VECTOR, T_STRUCT_II, T_STRUCT_ID, T_RESIZED, T_PAIR, T_PAIR_LB,
    NTYPES
};
static ttype_t types[NTYPES];

static MPI_Datatype mk_struct(MPI_Datatype a, MPI_Aint da, MPI_Datatype b, MPI_Aint db, int n,
                              MPI_Aint lb, MPI_Aint ext)
{
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {da, db};
    MPI_Datatype ts[2] = {a, b}, s, r;
    PMPI_Type_create_struct(n, bl, d, ts, &s);
    PMPI_Type_create_resized(s, lb, ext, &r);
    PMPI_Type_free(&s);
    PMPI_Type_commit(&r);
    return r;
}

static void types_init(void)
{
    MPI_Datatype v, pr;
    PMPI_Type_vector(2, 1, 2, MPI_INT, &v);
    PMPI_Type_commit(&v);
    PMPI_Type_contiguous(2, MPI_INT, &pr);
    PMPI_Type_commit(&pr);
    ttype_t t[NTYPES] = {
        [T_INT] = {"int", MPI_INT, 1, {0}, {'i'}, 4, 1, 1, 0},
        [T_DOUBLE] = {"double", MPI_DOUBLE, 1, {0}, {'d'}, 8, 1, 0, 0},
        [T_SHORT] = {"short", MPI_SHORT, 1, {0}, {'s'}, 2, 1, 1, 0},
        [T_VECTOR] = {"vector", v, 2, {0, 8}, {'i', 'i'}, 12, 1, 1, 0},
        /* two ints with a gap between and after: also the gapped affine pair */
        [T_STRUCT_II] = {"struct-gap", mk_struct(MPI_INT, 0, MPI_INT, 8, 2, 0, 16), 2, {0, 8},
                         {'i', 'i'}, 16, 1, 1, 1},
        [T_STRUCT_ID] = {"struct-int-double", mk_struct(MPI_INT, 0, MPI_DOUBLE, 8, 2, 0, 16), 2,
                         {0, 8}, {'i', 'd'}, 16, 0, 0, 0},
        /* one int at byte 4 of a 12-byte extent: true_lb != lb */
        [T_RESIZED] = {"resized", mk_struct(MPI_INT, 4, MPI_INT, 0, 1, 0, 12), 1, {4}, {'i'}, 12,
                       1, 1, 0},
        [T_PAIR] = {"pair", pr, 2, {0, 4}, {'i', 'i'}, 8, 1, 1, 1},
        /* affine pair at bytes 4 and 8 of a 16-byte extent: true_lb = 4 */
        [T_PAIR_LB] = {"pair-lb", mk_struct(MPI_INT, 4, MPI_INT, 8, 2, 0, 16), 2, {4, 8},
                       {'i', 'i'}, 16, 0, 0, 1},
    };
    memcpy(types, t, sizeof t);
}

/* ---- ops: predefined plus a non-commutative one (affine maps) ---- */
static MPI_Op op_affine;

/* u then v: x -> av*(au*x + bu) + bv, computed mod 2^32 */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const ttype_t *tt = &types[T_PAIR];
    for (int t = 0; t < NTYPES; t++)
        if (types[t].pair && types[t].t == *dt)
            tt = &types[t];
    for (int i = 0; i < *len; i++) {
        char *u = (char *)in + i * tt->ext, *v = (char *)inout + i * tt->ext;
        uint32_t au, bu, av, bv;
        memcpy(&au, u + tt->off[0], 4);
        memcpy(&bu, u + tt->off[1], 4);
        memcpy(&av, v + tt->off[0], 4);
        memcpy(&bv, v + tt->off[1], 4);
        uint32_t a = av * au, b = av * bu + bv;
        memcpy(v + tt->off[0], &a, 4);
        memcpy(v + tt->off[1], &b, 4);
    }
}

typedef struct { const char *name; MPI_Op *op; } top_t;
static MPI_Op op_sum = MPI_SUM, op_max = MPI_MAX, op_band = MPI_BAND;
static top_t ops[] = {{"sum", &op_sum}, {"max", &op_max}, {"band", &op_band},
                      {"affine(noncomm)", &op_affine}};
#define NOPS 4

/* Whether the MPI library reduces this type with this op (SMPI, unlike
 * MPICH, applies predefined ops to predefined types only); probed once with
 * a local reduction, so the answer is the same on every rank. */
static int supported[NTYPES][4];

static void probe_ops(void)
{
    char a[64], b[64];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int t = 0; t < NTYPES; t++)
        for (int o = 0; o < 4; o++)
            supported[t][o] = PMPI_Reduce_local(a, b, 1, types[t].t, *ops[o].op) == MPI_SUCCESS;
}

static int op_applies(int o, const ttype_t *t)
{
    if (!supported[t - types][o])
        return 0;
    if (o == 3)
        return t->pair;
    if (!t->reducible || t == &types[T_PAIR]) /* the pair is for the affine op only */
        return 0;
    return o != 2 || t->bitwise;
}

/* ---- deterministic inputs ---- */
static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}

static int gen(int rank, long i, int slot, int salt)
{
    return (int)(mix((uint32_t)(rank * 7919 + i * 31 + slot * 3 + salt * 1000003)) % 2001) - 1000;
}

static void fill(char *buf, const ttype_t *t, long n, int rank, long first, int salt)
{
    for (long i = 0; i < n; i++)
        for (int s = 0; s < t->nslot; s++) {
            char *at = buf + i * t->ext + t->off[s];
            int v = gen(rank, first + i, s, salt);
            if (t->kind[s] == 'i') {
                memcpy(at, &v, 4);
            } else if (t->kind[s] == 'd') {
                double d = v;
                memcpy(at, &d, 8);
            } else {
                short h = (short)v;
                memcpy(at, &h, 2);
            }
        }
}

static int slot_size(char kind)
{
    return kind == 'd' ? 8 : kind == 's' ? 2 : 4;
}

/* First element whose covered bytes differ (-1 if none); *gap set if a gap
 * byte of got is not the sentinel. */
static long compare(const char *got, const char *want, const ttype_t *t, long n, int *gap)
{
    long bad = -1;
    *gap = 0;
    for (long i = 0; i < n; i++) {
        const char *g = got + i * t->ext;
        unsigned char cover[16] = {0};
        for (int s = 0; s < t->nslot; s++) {
            int sz = slot_size(t->kind[s]);
            if (bad < 0 && memcmp(g + t->off[s], want + i * t->ext + t->off[s], (size_t)sz))
                bad = i;
            memset(cover + t->off[s], 1, (size_t)sz);
        }
        for (int b = 0; b < t->ext; b++)
            if (!cover[b] && (unsigned char)g[b] != SENTINEL)
                *gap = 1;
    }
    return bad;
}

/* ---- one case ---- */
typedef struct mcase {
    const hyt_alg_t *alg;
    int k, count, type, op, root, inplace;
} mcase_t;

typedef struct {
    int p, rank;
    size_t cap;
    char *sref, *rref, *salg, *ralg;
    long cases, failures, fallbacks, declined, shown;
    int timing;
    int wildcard;         /* the application-interference case (see top) */
    MPI_Request wreq;     /* the pending wildcard receive */
    int wval;
    hyt_comm_t *ctx;
    /* v-variants: this rank's counts and displacements (elements) */
    int *scounts, *sdispls, *rcounts, *rdispls;
    long sspan, rspan; /* elements of the send and receive buffer in use */
} mstate_t;

/* Uneven counts with zeros: what rank `from` sends rank `to` in a
 * v-variant whose matrix count is c (symmetric in from, to for in-place
 * Alltoallv, which exchanges equal amounts both ways). */
static int vcount(int c, int from, int to, int sym)
{
    if (c == 0)
        return 0;
    int x = sym ? from + to : 2 * from + to, y = sym ? from * to : from + 2 * to;
    return x % 3 == 1 ? 0 : c + y % 3;
}

/* Blocks in reverse rank order with a one-element gap after each. */
static long vdispls(int p, const int *counts, int *displs)
{
    long at = 0;
    for (int i = p - 1; i >= 0; i--) {
        displs[i] = (int)at;
        at += counts[i] + 1;
    }
    return at;
}

static hyt_fallback_t expected_fb(const mstate_t *m, const mcase_t *c)
{
    const hyt_alg_t *a = c->alg;
    if (hyt_coll_has_op(a->coll) && (a->flags & HYT_ALG_NEEDS_COMMUTATIVE) &&
        !hyt_op_is_commutative(*ops[c->op].op))
        return HYT_FB_NONCOMMUTATIVE;
    if ((a->flags & HYT_ALG_NO_INPLACE) && c->inplace)
        return HYT_FB_INPLACE;
    if ((a->flags & HYT_ALG_NODE_CONSECUTIVE) && !m->ctx->node_consecutive)
        return HYT_FB_LAYOUT;
    return HYT_FB_NONE;
}

static void report(mstate_t *m, const mcase_t *c, const char *what, long at)
{
    m->failures++;
    if (m->shown++ < 25)
        fprintf(stderr,
                "coll_matrix: FAIL p=%d rank %d: %s %s:k=%d count=%d type=%s op=%s root=%d "
                "inplace=%d: %s (element %ld)\n",
                m->p, m->rank, hyt_coll_name(c->alg->coll), c->alg->name, c->k, c->count,
                types[c->type].name, hyt_coll_has_op(c->alg->coll) ? ops[c->op].name : "-",
                c->root, c->inplace, what, at);
}

/* Counts and displacements of a v-variant case; the buffer spans. */
static void layout(mstate_t *m, const mcase_t *c)
{
    hyt_coll_t coll = c->alg->coll;
    int p = m->p, me = m->rank, n = c->count;
    m->sspan = m->rspan = n;
    if (coll == HYT_COLL_ALLGATHER || coll == HYT_COLL_GATHER || coll == HYT_COLL_SCATTER ||
        coll == HYT_COLL_ALLTOALL || coll == HYT_COLL_REDUCE_SCATTER_BLOCK)
        m->rspan = m->sspan = (long)p * n; /* Reduce_scatter_block: the input, in place too */
    if (coll == HYT_COLL_ALLGATHERV || coll == HYT_COLL_REDUCE_SCATTER) {
        for (int i = 0; i < p; i++)
            m->rcounts[i] = vcount(n, i, 0, 0);
        if (coll == HYT_COLL_ALLGATHERV) {
            m->rspan = vdispls(p, m->rcounts, m->rdispls);
            m->sspan = m->rcounts[me];
        } else {
            m->sspan = 0;
            for (int i = 0; i < p; i++)
                m->sspan += m->rcounts[i];
            m->rspan = m->sspan; /* in place the input is in the receive buffer */
        }
    }
    if (coll == HYT_COLL_ALLTOALLV) {
        for (int i = 0; i < p; i++) {
            m->scounts[i] = vcount(n, me, i, c->inplace);
            m->rcounts[i] = vcount(n, i, me, c->inplace);
        }
        m->sspan = vdispls(p, m->scounts, m->sdispls);
        m->rspan = vdispls(p, m->rcounts, m->rdispls);
    }
}

/* Elements of the result to compare, from the start of the receive buffer. */
static long result_count(const mstate_t *m, const mcase_t *c)
{
    switch (c->alg->coll) {
    case HYT_COLL_REDUCE_SCATTER:
        return m->rcounts[m->rank];
    case HYT_COLL_SCATTER:
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
        return c->count;
    case HYT_COLL_BARRIER:
        return 0;
    default:
        return m->rspan;
    }
}

/* Inputs for both runs, laid out as the collective reads them. */
static void prepare(mstate_t *m, const mcase_t *c, long nres, int salt)
{
    const ttype_t *t = &types[c->type];
    hyt_coll_t coll = c->alg->coll;
    /* only the bytes this call can touch: the matrix is memory-bound otherwise */
    long span = m->sspan > m->rspan ? m->sspan : m->rspan;
    size_t used = (size_t)(span > nres ? span : nres) * (size_t)t->ext + 64;
    memset(m->sref, SENTINEL, used);
    memset(m->rref, SENTINEL, used);
    int root = m->rank == c->root;
    if (coll == HYT_COLL_BARRIER) {
    } else if (coll == HYT_COLL_GATHER) {
        if (c->inplace && root)
            fill(m->rref + (long)m->rank * c->count * t->ext, t, c->count, m->rank, 0, salt);
        else
            fill(m->sref, t, c->count, m->rank, 0, salt);
    } else if (coll == HYT_COLL_SCATTER) {
        if (root)
            fill(m->sref, t, (long)m->p * c->count, m->rank, 0, salt);
    } else if (coll == HYT_COLL_ALLGATHERV) {
        char *at = c->inplace ? m->rref + (long)m->rdispls[m->rank] * t->ext : m->sref;
        fill(at, t, m->rcounts[m->rank], m->rank, 0, salt);
    } else if (coll == HYT_COLL_ALLTOALLV) {
        for (int i = 0; i < m->p; i++)
            if (c->inplace)
                fill(m->rref + (long)m->rdispls[i] * t->ext, t, m->rcounts[i], m->rank,
                     (long)i * BIGCOUNT, salt);
            else
                fill(m->sref + (long)m->sdispls[i] * t->ext, t, m->scounts[i], m->rank,
                     (long)i * BIGCOUNT, salt);
    } else if (coll == HYT_COLL_REDUCE_SCATTER) {
        fill(c->inplace ? m->rref : m->sref, t, m->sspan, m->rank, 0, salt);
    } else if (coll == HYT_COLL_BCAST) {
        if (m->rank == c->root)
            fill(m->rref, t, c->count, m->rank, 0, salt);
    } else if (coll == HYT_COLL_ALLGATHER) {
        if (c->inplace)
            fill(m->rref + (long)m->rank * c->count * t->ext, t, c->count, m->rank, 0, salt);
        else
            fill(m->sref, t, c->count, m->rank, 0, salt);
    } else if (coll == HYT_COLL_ALLTOALL || coll == HYT_COLL_REDUCE_SCATTER_BLOCK) {
        fill(c->inplace ? m->rref : m->sref, t, m->sspan, m->rank, 0, salt);
    } else {
        int in_r = c->inplace && (!hyt_coll_has_root(coll) || m->rank == c->root);
        fill(in_r ? m->rref : m->sref, t, c->count, m->rank, 0, salt);
    }
    memcpy(m->salg, m->sref, used);
    memcpy(m->ralg, m->rref, used);
}

static hyt_args_t args_of(const mstate_t *m, const mcase_t *c, char *s, char *r)
{
    hyt_coll_t coll = c->alg->coll;
    MPI_Datatype t = types[c->type].t;
    int ip = c->inplace && (!hyt_coll_has_root(coll) || m->rank == c->root);
    hyt_args_t a = {.coll = coll, .sbuf = ip ? MPI_IN_PLACE : s, .rbuf = r, .count = c->count,
                    .type = t, .scount = c->count, .stype = t, .op = *ops[c->op].op,
                    .root = c->root, .comm = MPI_COMM_WORLD, .scounts = m->scounts,
                    .sdispls = m->sdispls, .rcounts = m->rcounts, .rdispls = m->rdispls};
    if (coll == HYT_COLL_BCAST)
        a.sbuf = NULL;
    if (coll == HYT_COLL_SCATTER) { /* in place: the root's receive buffer */
        a.sbuf = s;
        a.rbuf = ip ? MPI_IN_PLACE : r;
    }
    if (coll == HYT_COLL_ALLGATHERV)
        a.scount = m->rcounts[m->rank];
    a.bytes = hyt_selection_bytes(&a);
    return a;
}

static int result_defined(const mstate_t *m, const mcase_t *c)
{
    hyt_coll_t coll = c->alg->coll;
    if (coll == HYT_COLL_REDUCE || coll == HYT_COLL_GATHER)
        return m->rank == c->root;
    if (coll == HYT_COLL_SCATTER && c->inplace)
        return m->rank != c->root;
    return coll != HYT_COLL_EXSCAN || m->rank != 0; /* undefined on rank 0 */
}

/* The reference of a Scan or Exscan with the non-commutative op under SMPI,
 * whose own Scan applies such an op out of rank order: the inputs of ranks
 * 0..rank (regenerated from their seeds) folded in rank order.  1 if it
 * wrote the reference, 0 if PMPI gives it. */
static int scan_fold(mstate_t *m, const mcase_t *c, int salt)
{
#ifdef SMPI_H /* SimGrid's mpi.h */
    hyt_coll_t coll = c->alg->coll;
    if ((coll != HYT_COLL_SCAN && coll != HYT_COLL_EXSCAN) || hyt_op_is_commutative(*ops[c->op].op))
        return 0;
    const ttype_t *t = &types[c->type];
    int last = coll == HYT_COLL_SCAN ? m->rank : m->rank - 1;
    if (last < 0)
        return 1;
    char *in = malloc((size_t)c->count * (size_t)t->ext + 64);
    memset(in, SENTINEL, (size_t)c->count * (size_t)t->ext + 64);
    fill(m->rref, t, c->count, last, 0, salt);
    for (int j = last - 1; j >= 0; j--) {
        fill(in, t, c->count, j, 0, salt);
        PMPI_Reduce_local(in, m->rref, c->count, t->t, *ops[c->op].op);
    }
    free(in);
    return 1;
#else
    (void)m, (void)c, (void)salt;
    return 0;
#endif
}

/* A barrier lets no rank out before every rank is in: one rank (a
 * different one every case) arrives late; every exit must follow its
 * entry (MPI_Wtime: the simulated clock under SMPI, one machine's
 * clock under MPICH). */
static void check_barrier(mstate_t *m, const mcase_t *c, hyt_args_t *run)
{
    struct timespec late = {0, 2000000};
    if (m->rank == (int)(m->cases % m->p))
        nanosleep(&late, NULL);
    double in = PMPI_Wtime();
    hyt_fallback_t fb;
    int rc = hyt_run_alg(run, c->alg, c->k, &fb);
    double out = PMPI_Wtime(), lo, hi;
    if (rc != MPI_SUCCESS || fb != HYT_FB_NONE)
        report(m, c, "barrier failed or fell back", rc);
    PMPI_Allreduce(&in, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(&out, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (lo < hi)
        report(m, c, "a rank left the barrier before the last one entered", -1);
}

/* ---- the application's wildcard receive (wildcard mode) ---- */
#define WILD_TAG 77
#define WILD_MAGIC 0x5157

/* The receive is still pending and MPI_Iprobe sees nothing on the
 * application's communicator (polled a few times, as a worker loop does). */
static void wild_poll(mstate_t *m, const mcase_t *c, const char *when)
{
    for (int i = 0; i < 4; i++) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            char what[120];
            snprintf(what, sizeof what, "MPI_Iprobe %s the call saw a message (source %d tag %d)",
                     when, st.MPI_SOURCE, st.MPI_TAG);
            report(m, c, what, -1);
            break;
        }
    }
    int done = 0;
    MPI_Status st;
    MPI_Test(&m->wreq, &done, &st);
    if (done) {
        char what[120];
        snprintf(what, sizeof what, "the wildcard receive was matched %s the call (source %d tag "
                 "%d)", when, st.MPI_SOURCE, st.MPI_TAG);
        report(m, c, what, -1);
        MPI_Irecv(&m->wval, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m->wreq);
    }
}

static void wild_post(mstate_t *m)
{
    m->wval = -1;
    MPI_Irecv(&m->wval, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m->wreq);
}

/* Satisfy the receive with the application's own message: from the
 * previous rank, with its tag and value. */
static void wild_finish(mstate_t *m, const hyt_alg_t *a)
{
    int val = WILD_MAGIC + m->rank, from = (m->rank - 1 + m->p) % m->p;
    MPI_Request sreq;
    MPI_Status st;
    PMPI_Barrier(MPI_COMM_WORLD); /* every rank is done polling the row */
    MPI_Isend(&val, 1, MPI_INT, (m->rank + 1) % m->p, WILD_TAG, MPI_COMM_WORLD, &sreq);
    MPI_Wait(&m->wreq, &st);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    if (st.MPI_SOURCE != from || st.MPI_TAG != WILD_TAG || m->wval != WILD_MAGIC + from) {
        mcase_t c = {a, 0, 0, T_INT, 0, 0, 0};
        char what[160];
        snprintf(what, sizeof what, "the wildcard receive got source %d tag %d value %d, "
                 "expected the application's message (source %d tag %d value %d)",
                 st.MPI_SOURCE, st.MPI_TAG, m->wval, from, WILD_TAG, WILD_MAGIC + from);
        report(m, &c, what, -1);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
}

/* A call that hangs (its message taken by the wildcard receive) ends the
 * run with a message instead of the test's time limit. */
static void wild_alarm(int sig)
{
    static const char msg[] = "coll_matrix: FAIL: wildcard case still running after the "
                              "watchdog's limit: a collective message went to the "
                              "application's receive\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(3);
}

static void run_case(mstate_t *m, const mcase_t *c)
{
    const ttype_t *t = &types[c->type];
    layout(m, c);
    long nres = result_count(m, c);
    prepare(m, c, nres, (int)m->cases);
    hyt_args_t ref = args_of(m, c, m->sref, m->rref), run = args_of(m, c, m->salg, m->ralg);
    if (c->alg->coll == HYT_COLL_BARRIER) {
        if (m->wildcard)
            wild_poll(m, c, "before");
        check_barrier(m, c, &run);
        if (m->wildcard)
            wild_poll(m, c, "after");
        m->cases++;
        return;
    }
    if (c->alg->coll == HYT_COLL_ALLTOALLV && c->inplace) {
        /* the same exchange out of place from a copy: the in-place forms of
         * SMPI (derived types) and MPICH (large derived types) fail */
        memcpy(m->sref, m->rref, (size_t)m->rspan * (size_t)t->ext + 64);
        ref.sbuf = m->sref;
        ref.scounts = m->rcounts;
        ref.sdispls = m->rdispls;
    }
    int salt = (int)m->cases++;
    int rc = scan_fold(m, c, salt) ? MPI_SUCCESS : hyt_pmpi_call(&ref);
    if (rc != MPI_SUCCESS) {
        report(m, c, "PMPI reference failed", rc);
        return;
    }
    hyt_fallback_t fb = HYT_NFB;
    if (m->wildcard)
        wild_poll(m, c, "before");
    rc = hyt_run_alg(&run, c->alg, c->k, &fb);
    if (rc != MPI_SUCCESS)
        report(m, c, "algorithm returned an error", rc);
    if (m->wildcard)
        wild_poll(m, c, "after");
    /* the fallback decision must be the same everywhere */
    int mm[2] = {(int)fb, -(int)fb}, g[2];
    PMPI_Allreduce(mm, g, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (g[0] != -g[1])
        report(m, c, "ranks disagree on the fallback", fb);
    hyt_fallback_t want = expected_fb(m, c);
    if (fb == HYT_FB_ALGORITHM && want == HYT_FB_NONE) {
        m->declined++;
    } else if (fb != want) {
        char what[120];
        snprintf(what, sizeof what, "fallback \"%s\", expected \"%s\"", hyt_fallback_name(fb),
                 hyt_fallback_name(want));
        report(m, c, what, -1);
    }
    if (fb != HYT_FB_NONE)
        m->fallbacks++;
    if (!result_defined(m, c))
        return;
    int gap;
    long bad = compare(m->ralg, m->rref, t, nres, &gap);
    if (bad >= 0)
        report(m, c, "result differs from PMPI", bad);
    if (gap)
        report(m, c, "bytes in datatype gaps were written", -1);
}

/* ---- the matrix ---- */
static int valid_k(const hyt_alg_t *a, int k, int p)
{
    if (!hyt_alg_has_radix(a))
        return k == 0;
    return k >= a->k_min && k <= (a->k_max == HYT_K_P ? p + 1 : a->k_max);
}

static int k_list(const hyt_alg_t *a, int p, int *ks)
{
    int cand[] = {1, 2, 3, 4, 5, 8, p - 1, p, p + 1}, n = 0;
    if (!hyt_alg_has_radix(a)) {
        ks[0] = 0;
        return 1;
    }
    for (unsigned i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= ks[j] == cand[i];
        if (!dup && valid_k(a, cand[i], p))
            ks[n++] = cand[i];
    }
    return n;
}

static int type_applies(hyt_coll_t coll, int ty, int o)
{
    const ttype_t *t = &types[ty];
    if (hyt_coll_has_op(coll))
        return op_applies(o, t);
    if (coll == HYT_COLL_BARRIER)
        return o == 0 && ty == T_INT; /* moves no data: one case per k and count */
    return o == 0 && ty != T_PAIR && ty != T_PAIR_LB; /* data movement: every type once */
}

static int nroots(int p, int *roots)
{
    int cand[3] = {0, p - 1, p / 2}, n = 0;
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= roots[j] == cand[i];
        if (!dup)
            roots[n++] = cand[i];
    }
    return n;
}

static int inplace_allowed(const hyt_alg_t *a)
{
    return a->coll != HYT_COLL_BCAST && a->coll != HYT_COLL_BARRIER;
}

/* Every type x op x root x in-place at one count. */
static void run_full(mstate_t *m, const hyt_alg_t *a, int k, int count, int all_roots)
{
    int roots[3], nr = hyt_coll_has_root(a->coll) && all_roots ? nroots(m->p, roots) : 1;
    if (nr == 1)
        roots[0] = hyt_coll_has_root(a->coll) ? m->p - 1 : 0;
    for (int ty = 0; ty < NTYPES; ty++)
        for (int o = 0; o < NOPS; o++) {
            if (!type_applies(a->coll, ty, o))
                continue;
            for (int r = 0; r < nr; r++)
                for (int ip = 0; ip <= inplace_allowed(a); ip++) {
                    mcase_t c = {a, k, count, ty, o, roots[r], ip};
                    run_case(m, &c);
                }
        }
}

/* Every count with MPI_INT (sum), root p-1, plus one in-place call. */
static void run_counts(mstate_t *m, const hyt_alg_t *a, int k, int tiny, int big)
{
    int p = m->p, bigc = big_count(a->coll, p), counts[] = {0, 1, p - 1, p + 1, 3 * p + 2, bigc};
    for (unsigned i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if ((tiny && counts[i] != p + 1) || (!big && i == 5))
            continue;
        mcase_t c = {a, k, counts[i], T_INT, 0, p - 1, 0};
        run_case(m, &c);
    }
    if (inplace_allowed(a)) {
        mcase_t c = {a, k, 3 * p + 2, T_INT, 0, p / 2, 1};
        run_case(m, &c);
    }
}

/* A seeded sample of the full space (the same on every rank). */
static void run_sample(mstate_t *m, const hyt_alg_t *a, int k, int n, uint32_t *seed)
{
    int p = m->p, counts[] = {1, p - 1, p + 1, 3 * p + 2, big_count(a->coll, p)}, roots[3],
        nr = nroots(p, roots);
    for (int done = 0, tries = 0; done < n && tries < 1000; tries++) {
        uint32_t r = *seed = mix(*seed + 0x9e3779b9U);
        int ty = (int)(r % NTYPES), o = (int)(r / 8 % NOPS);
        if (!type_applies(a->coll, ty, o))
            continue;
        mcase_t c = {a, k, counts[r / 64 % 5], ty, o,
                     hyt_coll_has_root(a->coll) ? roots[r / 512 % (unsigned)nr] : 0,
                     inplace_allowed(a) ? (int)(r / 4096 % 2) : 0};
        run_case(m, &c);
        done++;
    }
}

/* Non-integer doubles: identical bits on every rank and across two runs. */
static void run_repro(mstate_t *m, const hyt_alg_t *a, int k, int count)
{
    double *in = (double *)m->salg, *out = (double *)m->ralg, *first = (double *)m->rref;
    for (int i = 0; i < count; i++)
        in[i] = gen(m->rank, i, 0, 7) / 7.0 + 1e-3 * m->rank;
    mcase_t c = {a, k, count, T_DOUBLE, 0, 0, 0};
    for (int run = 0; run < 2; run++) {
        hyt_args_t x = {.coll = HYT_COLL_ALLREDUCE, .sbuf = in, .rbuf = run ? out : first,
                        .count = count, .type = MPI_DOUBLE, .op = MPI_SUM,
                        .comm = MPI_COMM_WORLD};
        hyt_fallback_t fb;
        m->cases++;
        if (hyt_run_alg(&x, a, k, &fb) != MPI_SUCCESS)
            report(m, &c, "reproducibility run failed", -1);
    }
    if (memcmp(out, first, (size_t)count * sizeof *out) != 0)
        report(m, &c, "float allreduce differs between two runs", -1);
    memcpy(m->sref, first, (size_t)count * sizeof *out);
    PMPI_Bcast(m->sref, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (memcmp(m->sref, first, (size_t)count * sizeof *out) != 0)
        report(m, &c, "float allreduce bits differ from rank 0's", -1);
}

/* How much of the space runs: simulation cost grows with p (every case is
 * p ranks of messages), so large p run the full product for fewer k and
 * sample more thinly; the whole SMPI sweep stays within minutes. */
typedef struct {
    int full_first;  /* the full product for the first this many k */
    int full_p;      /* ... and for k = p */
    int sample;      /* random cases for every other k */
    int big_all;     /* count BIGCOUNT for every k (else first and last k) */
    int all_roots;   /* full product over roots {0, p-1, p/2} (else p-1) */
    int big_last;    /* count BIGCOUNT for the last k too (the first always) */
} budget_t;

/* Rows of the collectives after the first six of HYT_COLL_LIST (Barrier,
 * Gather(v), Scatter(v), Allgatherv, Alltoallv, Reduce_scatter, Scan,
 * Exscan) above p = 33: every count at every k, BIGCOUNT at the first k,
 * one random case per k; their full product runs at every p up to 33. */
static int later_row(const hyt_alg_t *a)
{
    return a->coll > HYT_COLL_REDUCE_SCATTER_BLOCK;
}

static budget_t budget_for(int p, int level, const hyt_alg_t *a)
{
    if (level == 2) /* quick (real MPICH) */
        return (budget_t){1, 0, 3, 1, 1, 1};
    if (p <= 12)
        return (budget_t){2, 1, 6, 1, 1, 1};
    if (p <= 33)
        return (budget_t){1, 1, 3, 0, 1, 1};
    if (later_row(a))
        return (budget_t){0, 0, 1, 0, 0, 0};
    return (budget_t){1, 0, 2, 0, 0, 1};
}

/* Wildcard mode: every k at a few counts (and one in-place call), inside
 * one pending wildcard receive per row. */
static void run_wild_row(mstate_t *m, const hyt_alg_t *a)
{
    int ks[16], nk = k_list(a, m->p, ks);
    if (m->p == 1 && (a->coll == HYT_COLL_ALLTOALL || a->coll == HYT_COLL_ALLTOALLV)) {
        /* no reference: MPICH 4.0.2's own MPI_Alltoall(v) on one rank hangs
         * while the application has a wildcard receive pending */
        if (m->rank == 0)
            printf("coll_matrix: skipped %s %s on one rank (PMPI reference hangs)\n",
                   hyt_coll_name(a->coll), a->name);
        return;
    }
    alarm(120);
    wild_post(m);
    for (int i = 0; i < nk; i++)
        run_counts(m, a, ks[i], 0, 0);
    wild_finish(m, a);
    alarm(0);
}

static void run_alg(mstate_t *m, const hyt_alg_t *a, int level, uint32_t *seed)
{
    int ks[16], nk = k_list(a, m->p, ks);
    budget_t b = budget_for(m->p, level, a);
    for (int i = 0; i < nk; i++) {
        int k = ks[i];
        int full = i < b.full_first || (b.full_p && k == m->p);
        clock_t c0 = clock();
        if (level == 0) { /* tiny: one k, a few calls */
            if (i > 0)
                break;
            run_counts(m, a, k, 1, 0);
            run_sample(m, a, k, 2, seed);
            continue;
        }
        run_counts(m, a, k, 0, b.big_all || i == 0 || (b.big_last && i == nk - 1));
        if (full)
            run_full(m, a, k, m->p + 1, b.all_roots);
        else
            run_sample(m, a, k, b.sample, seed);
        if (a->coll == HYT_COLL_ALLREDUCE && (full || i == nk - 1))
            run_repro(m, a, k, BIGCOUNT);
        if (m->timing > 1 && m->rank == 0)
            printf("coll_matrix:   k=%d %.2f s cpu\n", k, (double)(clock() - c0) / CLOCKS_PER_SEC),
                fflush(stdout);
    }
}

/* An argument names a row as ALG-NAME (every collective's) or
 * COLL:ALG-NAME (one collective's). */
static int selected(const hyt_alg_t *a, int argc, char **argv, int first)
{
    if (first >= argc)
        return 1;
    const char *cn = hyt_coll_name(a->coll);
    size_t cl = strlen(cn);
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], a->name) == 0 ||
            (strncmp(argv[i], cn, cl) == 0 && argv[i][cl] == ':' && !strcmp(argv[i] + cl + 1, a->name)))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mstate_t m = {0};
    PMPI_Comm_size(MPI_COMM_WORLD, &m.p);
    PMPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
    int level = 1, first = 1;
    const char *tenv = getenv("HYT_MATRIX_TIMING");
    int timing = m.timing = tenv ? atoi(tenv) : 0;
    if (argc > 1 && strcmp(argv[1], "quick") == 0)
        level = 2, first = 2;
    else if (argc > 1 && strcmp(argv[1], "tiny") == 0)
        level = 0, first = 2;
    if (argc > first && strcmp(argv[first], "wildcard") == 0) {
        m.wildcard = 1;
        first++;
        signal(SIGALRM, wild_alarm);
    }
    types_init();
    PMPI_Op_create(affine_fn, 0, &op_affine);
    probe_ops();
    for (int t = 0; t < NTYPES && m.rank == 0; t++)
        for (int o = 0; o < 3; o++)
            if (types[t].reducible && t != T_PAIR && (o != 2 || types[t].bitwise) &&
                !supported[t][o])
                printf("coll_matrix: skipped %s on %s: the MPI library does not reduce it\n",
                       ops[o].name, types[t].name);
    m.ctx = hyt_comm_get(MPI_COMM_WORLD);
    CHECK(m.ctx != NULL, "no hytune context: run with HYTUNE_MODE=offline or hybrid, not off");
    if (!m.ctx) {
        MPI_Finalize();
        return check_done("coll_matrix");
    }
    m.cap = (size_t)m.p * (BIGCOUNT + 4) * 16 + 64;
    m.scounts = malloc(4 * (size_t)m.p * sizeof(int));
    m.sdispls = m.scounts + m.p;
    m.rcounts = m.sdispls + m.p;
    m.rdispls = m.rcounts + m.p;
    m.sref = malloc(m.cap);
    m.rref = malloc(m.cap);
    m.salg = malloc(m.cap);
    m.ralg = malloc(m.cap);
    uint32_t seed = 12345u + (uint32_t)m.p;
    double t0 = PMPI_Wtime();
    int nalg = 0;
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        if ((a->flags & HYT_ALG_NATIVE) || !selected(a, argc, argv, first))
            continue;
        if (!m.wildcard &&
            (a->coll == HYT_COLL_ALLTOALL || a->coll == HYT_COLL_REDUCE_SCATTER_BLOCK))
            continue; /* they have their own tests (the wildcard case runs every row) */
        nalg++;
        clock_t c0 = clock();
        long n0 = m.cases;
        if (m.wildcard)
            run_wild_row(&m, a);
        else
            run_alg(&m, a, level, &seed);
        if (timing && m.rank == 0) /* process CPU: all simulated ranks together */
            printf("coll_matrix: %s %s: %ld cases, %.2f s cpu\n", hyt_coll_name(a->coll),
                   a->name, m.cases - n0, (double)(clock() - c0) / CLOCKS_PER_SEC),
                fflush(stdout);
    }
    long loc[4] = {m.cases, m.failures, m.fallbacks, m.declined}, glob[4];
    PMPI_Allreduce(loc, glob, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(nalg > 0, "no algorithm of the registry was selected");
    CHECK(glob[1] == 0, "%ld failed comparisons (first ones on stderr)", glob[1]);
    if (m.rank == 0)
        printf("coll_matrix p=%d%s: %d algorithms, %ld cases, %ld failures, %ld fallbacks "
               "(%ld declined by the algorithm), MPI_Wtime %.3f s\n",
               m.p, m.wildcard ? " (pending wildcard receive)" : "", nalg, m.cases, glob[1],
               glob[2] / m.p, glob[3] / m.p, PMPI_Wtime() - t0);
    free(m.scounts);
    free(m.sref);
    free(m.rref);
    free(m.salg);
    free(m.ralg);
    PMPI_Op_free(&op_affine);
    for (int t = 0; t < NTYPES; t++)
        if (types[t].t != MPI_INT && types[t].t != MPI_DOUBLE && types[t].t != MPI_SHORT)
            PMPI_Type_free(&types[t].t);
    MPI_Finalize();
    return m.rank == 0 ? check_done("coll_matrix") : (check_failures ? 1 : 0);
}
#endif
