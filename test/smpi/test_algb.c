/* Correctness of the k-ring and classic-baseline kernels against PMPI.
 *
 * For every kernel named below (looked up in the registry), every k of a
 * list around its range, counts 0, 1, < p, not divisible by p or k, three
 * datatypes (int; a strided int pair with gaps and a resized extent, sent
 * as plain ints on the other side; a 2x2 matrix with a non-commutative
 * op), in place and not, and several roots: run the kernel through
 * hyt_run_alg and PMPI on identically prepared buffers and compare every
 * byte of the receive buffers (gaps included: neither may touch them).
 * Kernels flagged HYT_ALG_NEEDS_COMMUTATIVE must fall back on the matrix op,
 * every other case must run the kernel (no fallback).
 *   usage: test_algb [kernel-filter]    e.g. "kring" or "allreduce:rabenseifner" */
#include "src/hyt.h"
#include "test/check.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>

static const char *kernels[][2] = {
    {"allgather", "kring"},         {"bcast", "kring"},          {"allreduce", "kring"},
    {"allreduce", "rabenseifner"},  {"reduce", "rabenseifner"},  {"allgather", "kbruck"},
    {"alltoall", "kbruck"},         {"alltoall", "pairwise"},
    {"reduce_scatter_block", "rechalving"}, {"reduce_scatter_block", "pairwise"},
};

enum { T_INT, T_STRIDED, T_MAT, NT };
static MPI_Datatype types[NT];
static MPI_Op matmul, ssum;
static int p, me;

/* 2x2 matrix product mod 2^32: associative, not commutative. */
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    uint32_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        uint32_t r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        uint32_t r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0, b[1] = r1, b[2] = r2, b[3] = r3;
    }
}

/* Sum over the strided type, written for its layout: SMPI applies
 * predefined ops to basic types only (MPI_SUM on a vector type fails there),
 * so the strided case reduces with this commutative user op.  Under MPICH
 * (HYT_TEST_MPI_SUM) the predefined MPI_SUM is used instead. */
static void ssum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 5, b += 5)
        b[0] += a[0], b[3] += a[3];
}

static void make_types(void)
{
    MPI_Datatype v;
    /* ints 0 and 3 of every 5: gaps inside and after each element */
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 5 * (MPI_Aint)sizeof(int), &types[T_STRIDED]);
    MPI_Type_free(&v);
    MPI_Type_commit(&types[T_STRIDED]);
    types[T_INT] = MPI_INT;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &types[T_MAT]);
    MPI_Type_commit(&types[T_MAT]);
    MPI_Op_create(matmul_fn, 0, &matmul);
#ifdef HYT_TEST_MPI_SUM
    ssum = MPI_SUM;
#else
    MPI_Op_create(ssum_fn, 1, &ssum);
#endif
}

/* ints per element in memory (extent) and in the signature */
static int ext_ints(int t) { return t == T_INT ? 1 : t == T_STRIDED ? 5 : 4; }

static uint32_t seed;
static uint32_t next_val(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % 997;
}

/* Fill n ints: data values everywhere (gaps too: gaps must survive). */
static void fill(int *buf, size_t n, uint32_t s)
{
    seed = s;
    for (size_t i = 0; i < n; i++)
        buf[i] = (int)next_val() - 400;
}

typedef struct {
    hyt_coll_t coll;
    const hyt_alg_t *alg;
    int k, count, t, inplace, root;
} tcase_t;

static int *sb, *rb, *sb2, *rb2;
static size_t cap;

/* Run both and compare.  Buffers: s* holds send data, r* receive data,
 * sized generously (p*count elements of the widest extent). */
static void run_case(const tcase_t *c)
{
    int t = c->t, cnt = c->count, e = ext_ints(t);
    MPI_Datatype dt = types[t];
    hyt_args_t a = {.coll = c->coll, .count = cnt, .type = dt, .comm = MPI_COMM_WORLD,
                    .root = c->root, .op = t == T_MAT ? matmul : t == T_STRIDED ? ssum : MPI_SUM, .stype = dt,
                    .scount = cnt};
    size_t nsend = (size_t)cnt * e, nrecv = (size_t)cnt * e;
    switch (c->coll) {
    case HYT_COLL_ALLGATHER:
        nrecv *= p;
        break;
    case HYT_COLL_ALLTOALL:
        nsend *= p, nrecv *= p;
        break;
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
        nsend *= p;
        if (c->inplace)
            nrecv *= p;
        break;
    default:
        break;
    }
    /* allgather/alltoall strided: the send side is plain ints */
    if (t == T_STRIDED && (c->coll == HYT_COLL_ALLGATHER || c->coll == HYT_COLL_ALLTOALL)) {
        a.stype = MPI_INT;
        a.scount = cnt * 2;
        nsend = (size_t)a.scount * (c->coll == HYT_COLL_ALLTOALL ? p : 1);
    }
    nsend += 8, nrecv += 8;
    if (nsend > cap || nrecv > cap) {
        fprintf(stderr, "test buffers too small\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint32_t s = (uint32_t)(me * 7919 + cnt * 31 + c->k * 17 + t);
    fill(sb, cap, s);
    fill(rb, cap, s ^ 0x5555u);
    memcpy(sb2, sb, cap * sizeof(int));
    memcpy(rb2, rb, cap * sizeof(int));
    int in_place = c->inplace;
    if (c->coll == HYT_COLL_BCAST)
        in_place = 0;
    if (c->coll == HYT_COLL_REDUCE && me != c->root)
        in_place = 0;
    int is_bcast = c->coll == HYT_COLL_BCAST;
    /* Reduce: non-roots pass no receive buffer */
    int norecv = c->coll == HYT_COLL_REDUCE && me != c->root;
    a.sbuf = in_place ? MPI_IN_PLACE : sb2;
    a.rbuf = norecv ? NULL : rb2;
    if (is_bcast && me == c->root)
        memcpy(rb2, sb2, nrecv * sizeof(int)), memcpy(rb, sb, nrecv * sizeof(int));
    hyt_fallback_t fb = HYT_FB_NONE;
    int rc = hyt_run_alg(&a, c->alg, c->k, &fb);
    /* reference: same call through PMPI on the pristine copies */
    a.sbuf = in_place ? MPI_IN_PLACE : sb;
    a.rbuf = norecv ? NULL : rb;
    a.ctx = NULL;
    int rc2;
    if (c->coll == HYT_COLL_ALLREDUCE) {
        /* SMPI's default Allreduce for this size (ompi_ring_segmented)
         * divides by zero on some derived types: reference via Reduce+Bcast */
        rc2 = PMPI_Reduce(a.sbuf == MPI_IN_PLACE && me != 0 ? a.rbuf : a.sbuf, a.rbuf, cnt, dt,
                          a.op, 0, MPI_COMM_WORLD);
        if (rc2 == MPI_SUCCESS)
            rc2 = PMPI_Bcast(a.rbuf, cnt, dt, 0, MPI_COMM_WORLD);
    } else if (c->coll == HYT_COLL_ALLTOALL && t == T_STRIDED && !in_place) {
        /* SMPI 3.32's Alltoall returns wrong data at p = 16 when the send
         * type (ints) differs from the receive type (strided): the
         * reference is computed locally from every rank's known input */
        int *other = malloc(cap * sizeof(int));
        for (int j = 0; j < p; j++) {
            fill(other, cap, (uint32_t)(j * 7919 + cnt * 31 + c->k * 17 + t));
            for (int e = 0; e < cnt; e++) {
                rb[(size_t)(j * cnt + e) * 5] = other[(size_t)me * a.scount + 2 * e];
                rb[(size_t)(j * cnt + e) * 5 + 3] = other[(size_t)me * a.scount + 2 * e + 1];
            }
        }
        free(other);
        rc2 = MPI_SUCCESS;
    } else {
        rc2 = hyt_pmpi_call(&a);
    }
    CHECK(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS, "rc %d/%d", rc, rc2);
    int want_fb = t == T_MAT && (c->alg->flags & HYT_ALG_NEEDS_COMMUTATIVE);
    CHECK(want_fb ? fb == HYT_FB_NONCOMMUTATIVE : fb == HYT_FB_NONE,
          "%s %s k=%d: fallback %d (want %s)", hyt_coll_name(c->coll), c->alg->name, c->k, fb,
          want_fb ? "noncommutative" : "none");
    int bad = -1;
    for (size_t i = 0; i < cap && !norecv; i++)
        if (rb[i] != rb2[i]) {
            bad = (int)i;
            break;
        }
    CHECK(bad < 0, "p=%d rank %d %s %s k=%d count=%d type=%d inplace=%d root=%d: int %d "
          "differs (%d, PMPI %d)", p, me, hyt_coll_name(c->coll), c->alg->name, c->k, cnt, t,
          c->inplace, c->root, bad, bad >= 0 ? rb2[bad] : 0, bad >= 0 ? rb[bad] : 0);
    CHECK(memcmp(sb, sb2, cap * sizeof(int)) == 0, "%s %s k=%d: send buffer modified",
          hyt_coll_name(c->coll), c->alg->name, c->k);
}

/* Radices to try: both ends of the range and the uneven cases. */
static int klist(const hyt_alg_t *alg, int *ks)
{
    if (!hyt_alg_has_radix(alg)) {
        ks[0] = 0;
        return 1;
    }
    int cand[] = {alg->k_min, alg->k_min + 1, 3, 4, 5, 8, p - 1, p, p + 3};
    int n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int k = cand[i], dup = 0;
        if (k < alg->k_min)
            continue;
        for (int j = 0; j < n; j++)
            dup |= ks[j] == k;
        if (!dup)
            ks[n++] = k;
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    make_types();
    /* without a context hyt_run_alg would quietly run PMPI: a vacuous pass */
    CHECK(hyt_comm_get(MPI_COMM_WORLD) != NULL, "hytune is not active (HYTUNE_MODE=off?)");
    const char *filter = argc > 1 ? argv[1] : NULL;
    int counts[] = {0, 1, 2, p - 1 > 0 ? p - 1 : 1, p + 1, 3 * p + 2, 97};
    int maxcount = 97 > 3 * p + 2 ? 97 : 3 * p + 2;
    cap = (size_t)maxcount * 5 * (size_t)p + 64;
    sb = malloc(cap * sizeof(int)), rb = malloc(cap * sizeof(int));
    sb2 = malloc(cap * sizeof(int)), rb2 = malloc(cap * sizeof(int));
    int ran = 0;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char full[96];
        snprintf(full, sizeof full, "%s:%s", kernels[i][0], kernels[i][1]);
        if (filter && !strstr(full, filter))
            continue;
        hyt_coll_t coll = (hyt_coll_t)hyt_coll_from_name(kernels[i][0]);
        const hyt_alg_t *alg = hyt_alg_find(coll, kernels[i][1]);
        CHECK(alg != NULL, "%s not in the registry", full);
        if (!alg)
            continue;
        int ks[16], nk = klist(alg, ks);
        int ntypes = hyt_coll_has_op(coll) ? NT : NT - 1;
        for (int ki = 0; ki < nk; ki++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int t = 0; t < ntypes; t++)
                    for (int ip = 0; ip < 2; ip++) {
                        int roots[3] = {0, p - 1, p / 2};
                        int nroots = hyt_coll_has_root(coll) ? 3 : 1;
                        for (int ri = 0; ri < nroots; ri++) {
                            tcase_t c = {coll, alg, ks[ki], counts[ci], t, ip, roots[ri]};
                            run_case(&c);
                            ran++;
                        }
                    }
    }
    CHECK(ran > 0 || filter, "no kernel ran");
    free(sb), free(rb), free(sb2), free(rb2);
    MPI_Type_free(&types[T_STRIDED]);
    MPI_Type_free(&types[T_MAT]);
    MPI_Op_free(&matmul);
#ifndef HYT_TEST_MPI_SUM
    MPI_Op_free(&ssum);
#endif
    int fails = check_failures, all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int st = check_done("test_algb");
    MPI_Finalize();
    return st || all;
}
