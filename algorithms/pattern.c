/* k-ary peer arithmetic for the generalized algorithms (see pattern.h for
 * the definitions of the k-nomial tree, the recursive-multiplying blocks and
 * rounds, and the k-ring groups) and the datatype helpers kernels share.
 * Arithmetic is done in long long where a product of two ranks can appear,
 * so p up to INT_MAX / 2 cannot overflow. */
#include "algorithms/pattern.h"

#include <limits.h>
#include <string.h>

int hyt_pat_pow_floor(int n, int k, int *levels)
{
    long long v = 1;
    int l = 0;
    while (v * k <= n) {
        v *= k;
        l++;
    }
    if (levels)
        *levels = l;
    return (int)v;
}

int hyt_pat_pow_ceil(int n, int k)
{
    long long v = 1;
    while (v < n)
        v *= k;
    return v > 0x7fffffff ? 0x7fffffff : (int)v;
}

/* k > p acts as p (a flat tree); k < 2 is not a tree, treat as binomial. */
static int clamp_k(int k, int p)
{
    int hi = p > 2 ? p : 2;
    return k < 2 ? 2 : (k > hi ? hi : k);
}

void hyt_kn_init(hyt_kn_t *t, int p, int k, int root, int rank)
{
    t->p = p;
    t->k = clamp_k(k, p);
    t->root = root;
    t->rel = (rank - root + p) % p;
    if (t->rel == 0) {
        t->mask = hyt_pat_pow_ceil(p, t->k);
        t->parent = -1;
        return;
    }
    /* lowest non-zero base-k digit of rel decides the level */
    long long m = 1, km = t->k;
    while (t->rel % km == 0) {
        m = km;
        km *= t->k;
    }
    t->mask = (int)m;
    t->parent = hyt_kn_abs(t, (int)(t->rel - t->rel % km));
}

int hyt_kn_nchildren_at(const hyt_kn_t *t, int m)
{
    if (m >= t->mask)
        return 0;
    int n = (t->p - 1 - t->rel) / m;
    return n < t->k - 1 ? n : t->k - 1;
}

int hyt_kn_nchildren(const hyt_kn_t *t)
{
    int n = 0;
    for (long long m = 1; m < t->mask; m *= t->k)
        n += hyt_kn_nchildren_at(t, (int)m);
    return n;
}

int hyt_kn_children(const hyt_kn_t *t, int *rel, int max)
{
    int n = 0;
    for (long long m = 1; m < t->mask; m *= t->k) {
        int c = hyt_kn_nchildren_at(t, (int)m);
        for (int j = 1; j <= c; j++, n++)
            if (n < max)
                rel[n] = hyt_kn_child_rel(t, (int)m, j);
    }
    return n;
}

void hyt_rm_init(hyt_rm_t *r, int p, int k)
{
    r->p = p;
    r->k = clamp_k(k, p);
    r->np = hyt_pat_pow_floor(p > 0 ? p : 1, r->k, &r->m);
    r->q = p / r->np;
    r->rem = p % r->np;
}

int hyt_rm_block_of(const hyt_rm_t *r, int rank)
{
    int big = r->rem * (r->q + 1); /* ranks held by the larger blocks */
    if (rank < big)
        return rank / (r->q + 1);
    return r->rem + (rank - big) / r->q;
}

int hyt_rm_spacing(const hyt_rm_t *r, int round)
{
    int s = 1;
    for (int i = 1; i < round; i++)
        s *= r->k;
    return s;
}

void hyt_kring_init(hyt_kring_t *g, int p, int k)
{
    int hi = p > 1 ? p : 1;
    g->p = p;
    g->k = k < 1 ? 1 : (k > hi ? hi : k);
    g->ngroups = (p + g->k - 1) / g->k;
    g->last = p - (g->ngroups - 1) * g->k;
}

int hyt_kring_neighbor(const hyt_kring_t *g, int rank, int d)
{
    int ng = g->ngroups;
    int grp = ((hyt_kring_group(g, rank) + d) % ng + ng) % ng;
    int idx = hyt_kring_index(g, rank);
    int size = hyt_kring_size(g, grp);
    return hyt_kring_start(g, grp) + (idx < size ? idx : size - 1);
}

size_t hyt_pat_span(int count, MPI_Datatype type, MPI_Aint *true_lb)
{
    MPI_Aint lb, extent, tlb, textent;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    if (true_lb)
        *true_lb = tlb;
    if (count <= 0)
        return 0;
    return (size_t)((MPI_Aint)(count - 1) * extent + textent);
}

int hyt_pat_blocks(hyt_pat_blocks_t *l, int n, int count, MPI_Datatype type)
{
    long long bsz = hyt_pat_bytes(count, type);
    if (bsz * n > INT_MAX)
        return HYT_UNSUPPORTED;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(type, &lb, &ext);
    size_t span = hyt_pat_span(n * count, type, &l->true_lb);
    l->bytes = (size_t)(bsz * n);
    if (span <= l->bytes) {
        l->count = count;
        l->type = type;
        l->bext = ext * count;
        l->bytes = span;
    } else {
        l->count = (int)bsz;
        l->type = MPI_PACKED;
        l->bext = (MPI_Aint)bsz;
        l->true_lb = 0;
    }
    return MPI_SUCCESS;
}

int hyt_pat_pool(hyt_pat_pool_t *pool, hyt_comm_t *ctx, int count, MPI_Datatype type, int n)
{
    size_t span = hyt_pat_span(count, type, &pool->true_lb);
    pool->stride = (span + 63) & ~(size_t)63;
    size_t total = pool->stride * (size_t)(n > 0 ? n : 0);
    pool->base = hyt_scratch(ctx, total ? total : 64);
    return pool->base ? 0 : -1;
}

MPI_Request *hyt_pat_reqs(hyt_comm_t *ctx, int n)
{
    return hyt_scratch2(ctx, (size_t)(n > 0 ? n : 1) * sizeof(MPI_Request));
}

int hyt_pat_vrange(const int *counts, const int *displs, int lo, int hi, MPI_Datatype type,
                   MPI_Datatype *out)
{
    int rc = PMPI_Type_indexed(hi - lo, counts + lo, displs + lo, type, out);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(out);
    return rc;
}

int hyt_knb_init(hyt_knb_t *b, hyt_comm_t *ctx, int k, int root, int count, MPI_Datatype type)
{
    int p = ctx->size;
    b->root = ctx->rank == root;
    b->bsz = hyt_pat_bytes(count, type);
    if (b->bsz == 0)
        return MPI_SUCCESS;
    if (b->bsz * p > INT_MAX)
        return HYT_UNSUPPORTED; /* a subtree's byte count would overflow an int */
    hyt_kn_init(&b->t, p, k, root, ctx->rank);
    b->nch = hyt_kn_nchildren(&b->t);
    b->n = hyt_kn_subtree(&b->t);
    b->req = hyt_pat_reqs(ctx, b->nch);
    b->tmp = hyt_scratch(ctx, (size_t)(b->root ? p : b->n) * (size_t)b->bsz);
    if (!b->req || !b->tmp)
        return MPI_ERR_NO_MEM;
    MPI_Aint lb;
    PMPI_Type_get_extent(type, &lb, &b->ext);
    return MPI_SUCCESS;
}
