/* Reduce_scatter (any recvcounts), recursive halving (commutative ops).
 *
 * Algorithm: p' = largest power of two <= p, rem = p - p'.  Fold: among the
 * first 2*rem ranks each even rank sends its whole vector to the odd rank
 * above, which takes part as new rank rank/2 and is responsible for both
 * ranks' blocks.  Halving: with distance p'/2, p'/4, ..., 1 a new rank sends
 * the half of its current range of new ranks that the partner keeps and
 * combines the half it keeps, so new rank j ends with the blocks of the
 * ranks it stands for.  The odd ranks then pass the even rank's block down.
 * Ranges are cut at block boundaries (the element offsets of recvcounts),
 * so uneven and zero counts only change the message sizes; the
 * Reduce_scatter_block kernel is the case of equal counts.
 * Cost log2 p' steps (+2 when p is not a power of two) and about
 * total*(p'-1)/p' elements per rank when blocks are even, against p-1 steps
 * for pairwise: the small and medium choice.  Partial results combine ranks
 * in butterfly order, so the registry flags HYT_ALG_NEEDS_COMMUTATIVE. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

typedef struct {
    int rem;
    const long *off; /* element offset of every rank's block, p + 1 entries */
} rh_t;

/* Element offset of new rank j's blocks (j = 0..p'; the odd folded ranks
 * carry two blocks). */
static long rh_off(const rh_t *h, int j)
{
    return h->off[j < h->rem ? 2 * j : j + h->rem];
}

static int rh_halving(const rh_t *h, int pof2, int nr, char *acc, char *tmp, MPI_Aint ext,
                      const hyt_args_t *a)
{
    int lo = 0, hi = pof2, rc = MPI_SUCCESS;
    for (int m = pof2 / 2; m > 0 && rc == MPI_SUCCESS; m /= 2) {
        int pn = nr ^ m, mid = (lo + hi) / 2, peer = pn < h->rem ? 2 * pn + 1 : pn + h->rem;
        int klo = nr < pn ? lo : mid, khi = nr < pn ? mid : hi;
        int slo = nr < pn ? mid : lo, shi = nr < pn ? hi : mid;
        long ko = rh_off(h, klo), so = rh_off(h, slo);
        int kn = (int)(rh_off(h, khi) - ko), sn = (int)(rh_off(h, shi) - so);
        rc = hyt_p2p_sendrecv(a, acc + so * ext, sn, a->type, peer, tmp + ko * ext, kn, a->type,
                              peer);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Reduce_local(tmp + ko * ext, acc + ko * ext, kn, a->type, a->op);
        lo = klo;
        hi = khi;
    }
    return rc;
}

int hyt_reduce_scatter_rechalving_off(const hyt_args_t *a, const long *off)
{
    int p = a->ctx->size, r = a->ctx->rank, rc = MPI_SUCCESS, steps;
    int total = (int)off[p], n = (int)(off[r + 1] - off[r]);
    if (total == 0)
        return MPI_SUCCESS;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    rh_t h = {.off = off};
    int pof2 = hyt_pat_pow_floor(p, 2, &steps);
    h.rem = p - pof2;
    hyt_pat_pool_t pool;
    if (hyt_pat_pool(&pool, a->ctx, total, a->type, 2) != 0)
        return MPI_ERR_NO_MEM;
    char *acc = hyt_pat_pool_buf(&pool, 0), *tmp = hyt_pat_pool_buf(&pool, 1);
    const char *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    rc = hyt_p2p_copy(a, in, total, a->type, acc, total, a->type);
    int nr = r < 2 * h.rem ? (r % 2 ? r / 2 : -1) : r - h.rem;
    if (rc == MPI_SUCCESS && r < 2 * h.rem) {
        if (r % 2 == 0) {
            rc = hyt_p2p_send(a, acc, total, a->type, r + 1);
        } else {
            rc = hyt_p2p_recv(a, tmp, total, a->type, r - 1);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Reduce_local(tmp, acc, total, a->type, a->op);
        }
    }
    if (rc == MPI_SUCCESS && nr >= 0)
        rc = rh_halving(&h, pof2, nr, acc, tmp, ext, a);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r < 2 * h.rem && r % 2 == 0)
        return hyt_p2p_recv(a, a->rbuf, n, a->type, r + 1);
    if (r < 2 * h.rem)
        rc = hyt_p2p_send(a, acc + off[r - 1] * ext, (int)(off[r] - off[r - 1]), a->type, r - 1);
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_copy(a, acc + off[r] * ext, n, a->type, a->rbuf, n, a->type);
    return rc;
}

int hyt_reduce_scatter_rechalving(const hyt_args_t *a, int k)
{
    (void)k;
    long *off = hyt_reduce_scatter_offsets(a);
    if (!off)
        return MPI_ERR_NO_MEM;
    if (off[a->ctx->size] > 0x7fffffff)
        return HYT_UNSUPPORTED; /* the whole vector is one message */
    return hyt_reduce_scatter_rechalving_off(a, off);
}
