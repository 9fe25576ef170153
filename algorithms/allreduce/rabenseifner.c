/* Rabenseifner Allreduce: reduce-scatter by recursive halving, then
 * allgather by recursive doubling; plus the halving engine shared with the
 * Rabenseifner Reduce (algorithms/reduce/rabenseifner.c).
 *
 * Algorithm: p' = largest power of two <= p, rem = p - p'.  Fold: among the
 * first 2*rem ranks every even rank sends its vector to the odd rank above
 * it, which combines them and takes part as new rank rank/2 (ranks >= 2*rem
 * are new rank rank - rem).  Halving: in step s (distance 2^s, s = 0, 1,
 * ...) a new rank exchanges half of its current range of the p' chunks with
 * new rank ^ 2^s and combines the half it keeps.  After log2 p' steps every
 * new rank holds one fully reduced chunk.  Allgather: the steps in reverse,
 * swapping kept halves, rebuild the whole vector; the odd ranks then send
 * it to the folded even ranks.
 * Cost: 2 log2 p' steps (+2 when p is not a power of two) and about
 * 2n(p'-1)/p' bytes per rank: the choice for large vectors; no radix.
 * Operand order: distance 2^s grows from 1, so a partial result always
 * covers a contiguous range of ranks and the lower range is combined on
 * the left: non-commutative ops are reduced in canonical order. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

void hyt_rab_init(hyt_rab_t *rb, const hyt_args_t *a, char *acc, char *tmp)
{
    int p = a->ctx->size, r = a->ctx->rank;
    rb->p = p;
    rb->rank = r;
    rb->pof2 = hyt_pat_pow_floor(p, 2, &rb->steps);
    rb->rem = p - rb->pof2;
    rb->newrank = r < 2 * rb->rem ? (r % 2 ? r / 2 : -1) : r - rb->rem;
    rb->acc = acc;
    rb->tmp = tmp;
    rb->count = a->count;
    rb->type = a->type;
    rb->op = a->op;
    rb->a = a;
    MPI_Aint lb;
    PMPI_Type_get_extent(a->type, &lb, &rb->ext);
}

int hyt_rab_real(const hyt_rab_t *rb, int newrank)
{
    return newrank < rb->rem ? 2 * newrank + 1 : newrank + rb->rem;
}

/* Element range of chunks [lo, hi) of the p' chunks. */
static void rab_range(const hyt_rab_t *rb, int lo, int hi, MPI_Aint *off, int *n)
{
    long a = hyt_pat_split(rb->count, rb->pof2, lo), b = hyt_pat_split(rb->count, rb->pof2, hi);
    *off = (MPI_Aint)a * rb->ext;
    *n = (int)(b - a);
}

/* Fold the first 2*rem ranks: the even one's vector goes to the odd one,
 * combined as (even op odd). */
int hyt_rab_fold(hyt_rab_t *rb)
{
    int r = rb->rank;
    if (r >= 2 * rb->rem)
        return MPI_SUCCESS;
    if (r % 2 == 0)
        return hyt_p2p_send(rb->a, rb->acc, rb->count, rb->type, r + 1);
    int rc = hyt_p2p_recv(rb->a, rb->tmp, rb->count, rb->type, r - 1);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce_local(rb->tmp, rb->acc, rb->count, rb->type, rb->op);
    return rc;
}

/* Combine a received partial (tmp) into acc keeping rank order. */
static int rab_combine(hyt_rab_t *rb, MPI_Aint off, int n, int partner_is_lower)
{
    if (partner_is_lower)
        return PMPI_Reduce_local(rb->tmp + off, rb->acc + off, n, rb->type, rb->op);
    int rc = PMPI_Reduce_local(rb->acc + off, rb->tmp + off, n, rb->type, rb->op);
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_copy(rb->a, rb->tmp + off, n, rb->type, rb->acc + off, n, rb->type);
    return rc;
}

int hyt_rab_reduce_scatter(hyt_rab_t *rb)
{
    int nr = rb->newrank, lo = 0, hi = rb->pof2;
    for (int s = 0; s < rb->steps; s++) {
        int pn = nr ^ (1 << s), peer = hyt_rab_real(rb, pn), mid = (lo + hi) / 2;
        rb->lo[s] = lo;
        rb->hi[s] = hi;
        int klo = nr < pn ? lo : mid, khi = nr < pn ? mid : hi;
        int slo = nr < pn ? mid : lo, shi = nr < pn ? hi : mid;
        MPI_Aint koff, soff;
        int kn, sn;
        rab_range(rb, klo, khi, &koff, &kn);
        rab_range(rb, slo, shi, &soff, &sn);
        int rc = hyt_p2p_sendrecv(rb->a, rb->acc + soff, sn, rb->type, peer, rb->tmp + koff, kn,
                                  rb->type, peer);
        if (rc == MPI_SUCCESS)
            rc = rab_combine(rb, koff, kn, pn < nr);
        if (rc != MPI_SUCCESS)
            return rc;
        lo = klo;
        hi = khi;
    }
    rb->mylo = lo;
    rb->myhi = hi;
    return MPI_SUCCESS;
}

/* Chunks I hold before undoing step s: the half of step s's range I kept. */
static void rab_kept(const hyt_rab_t *rb, int s, int *lo, int *hi)
{
    int pn = rb->newrank ^ (1 << s), mid = (rb->lo[s] + rb->hi[s]) / 2;
    *lo = rb->newrank < pn ? rb->lo[s] : mid;
    *hi = rb->newrank < pn ? mid : rb->hi[s];
}

static int rab_allgather(hyt_rab_t *rb)
{
    int nr = rb->newrank;
    for (int s = rb->steps - 1; s >= 0; s--) {
        int pn = nr ^ (1 << s), peer = hyt_rab_real(rb, pn), klo, khi;
        rab_kept(rb, s, &klo, &khi);
        int olo = klo == rb->lo[s] ? khi : rb->lo[s], ohi = klo == rb->lo[s] ? rb->hi[s] : klo;
        MPI_Aint koff, ooff;
        int kn, on;
        rab_range(rb, klo, khi, &koff, &kn);
        rab_range(rb, olo, ohi, &ooff, &on);
        int rc = hyt_p2p_sendrecv(rb->a, rb->acc + koff, kn, rb->type, peer, rb->acc + ooff, on,
                                  rb->type, peer);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int hyt_rab_gather(hyt_rab_t *rb, int newroot)
{
    int nr = rb->newrank;
    for (int s = rb->steps - 1; s >= 0; s--) {
        int m = 1 << s, pn = nr ^ m, peer = hyt_rab_real(rb, pn), klo, khi;
        /* a rank differing from the root above bit s has sent and stopped */
        if (((nr ^ newroot) >> (s + 1)) != 0)
            continue;
        rab_kept(rb, s, &klo, &khi);
        MPI_Aint koff, ooff;
        int kn, on, rc;
        rab_range(rb, klo, khi, &koff, &kn);
        if ((nr & m) == (newroot & m)) {
            int olo = klo == rb->lo[s] ? khi : rb->lo[s];
            int ohi = klo == rb->lo[s] ? rb->hi[s] : klo;
            rab_range(rb, olo, ohi, &ooff, &on);
            rc = hyt_p2p_recv(rb->a, rb->acc + ooff, on, rb->type, peer);
        } else {
            rc = hyt_p2p_send(rb->a, rb->acc + koff, kn, rb->type, peer);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int hyt_allreduce_rabenseifner(const hyt_args_t *a, int k)
{
    (void)k;
    int rc = MPI_SUCCESS;
    if (a->sbuf != MPI_IN_PLACE)
        rc = hyt_p2p_copy(a, a->sbuf, a->count, a->type, a->rbuf, a->count, a->type);
    if (rc != MPI_SUCCESS || a->ctx->size == 1 || a->count == 0)
        return rc;
    MPI_Aint tlb;
    char *tmp = hyt_scratch(a->ctx, hyt_pat_span(a->count, a->type, &tlb));
    if (!tmp)
        return MPI_ERR_NO_MEM;
    hyt_rab_t rb;
    hyt_rab_init(&rb, a, a->rbuf, tmp - tlb);
    int r = rb.rank;
    rc = hyt_rab_fold(&rb);
    if (rc == MPI_SUCCESS && rb.newrank >= 0)
        rc = hyt_rab_reduce_scatter(&rb);
    if (rc == MPI_SUCCESS && rb.newrank >= 0)
        rc = rab_allgather(&rb);
    /* unfold: the odd ranks hand the result to the even ones */
    if (rc == MPI_SUCCESS && r < 2 * rb.rem) {
        if (r % 2)
            rc = hyt_p2p_send(rb.a, a->rbuf, a->count, a->type, r - 1);
        else
            rc = hyt_p2p_recv(rb.a, a->rbuf, a->count, a->type, r + 1);
    }
    return rc;
}
