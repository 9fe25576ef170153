/* Recursive-halving Reduce_scatter_block (commutative ops).
 *
 * Algorithm: p' = largest power of two <= p, rem = p - p'.  Fold: among the
 * first 2*rem ranks each even rank sends its whole vector to the odd rank
 * above, which takes part as new rank rank/2 and is responsible for both
 * ranks' blocks.  Halving: with distance p'/2, p'/4, ..., 1 a new rank sends
 * the half of its current block range that the partner keeps and combines
 * the half it keeps, so new rank j ends with the blocks of the ranks it
 * stands for.  The odd ranks then pass the even rank's block down.
 * Cost: log2 p' steps (+2 when p is not a power of two) and about
 * n(p'-1)/p' bytes per rank for the p*n-element input, against p-1 steps
 * for pairwise: the small and medium choice.  Partial results combine ranks
 * in butterfly order, so the registry flags HYT_ALG_NEEDS_COMMUTATIVE. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

typedef struct {
    int rem, n;
    MPI_Aint bext;
} rh_t;

/* Byte offset of new rank j's blocks (j = 0..p'; the odd folded ranks
 * carry two blocks). */
static MPI_Aint rh_off(const rh_t *h, int j)
{
    return (MPI_Aint)(j < h->rem ? 2 * j : j + h->rem) * h->bext;
}

static int rh_halving(const rh_t *h, int pof2, int nr, char *acc, char *tmp, MPI_Datatype t,
                      MPI_Op op, const hyt_args_t *a)
{
    int lo = 0, hi = pof2, rc = MPI_SUCCESS;
    for (int m = pof2 / 2; m > 0 && rc == MPI_SUCCESS; m /= 2) {
        int pn = nr ^ m, mid = (lo + hi) / 2, peer = pn < h->rem ? 2 * pn + 1 : pn + h->rem;
        int klo = nr < pn ? lo : mid, khi = nr < pn ? mid : hi;
        int slo = nr < pn ? mid : lo, shi = nr < pn ? hi : mid;
        MPI_Aint ko = rh_off(h, klo), so = rh_off(h, slo);
        int kn = (int)((rh_off(h, khi) - ko) / h->bext) * h->n;
        int sn = (int)((rh_off(h, shi) - so) / h->bext) * h->n;
        rc = hyt_p2p_sendrecv(a, acc + so, sn, t, peer, tmp + ko, kn, t, peer);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Reduce_local(tmp + ko, acc + ko, kn, t, op);
        lo = klo;
        hi = khi;
    }
    return rc;
}

int hyt_reduce_scatter_block_rechalving(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size, r = a->ctx->rank, n = a->count, rc = MPI_SUCCESS, steps;
    if (n == 0)
        return MPI_SUCCESS;
    MPI_Aint lb, ext, tlb;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    rh_t h = {.n = n, .bext = ext * n};
    int pof2 = hyt_pat_pow_floor(p, 2, &steps);
    h.rem = p - pof2;
    size_t span = hyt_pat_span(p * n, a->type, &tlb);
    char *acc = hyt_scratch(a->ctx, span), *tmp = hyt_scratch2(a->ctx, span);
    if (!acc || !tmp)
        return MPI_ERR_NO_MEM;
    acc -= tlb;
    tmp -= tlb;
    const char *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    rc = hyt_p2p_copy(a, in, p * n, a->type, acc, p * n, a->type);
    int nr = r < 2 * h.rem ? (r % 2 ? r / 2 : -1) : r - h.rem;
    if (rc == MPI_SUCCESS && r < 2 * h.rem) {
        if (r % 2 == 0) {
            rc = hyt_p2p_send(a, acc, p * n, a->type, r + 1);
        } else {
            rc = hyt_p2p_recv(a, tmp, p * n, a->type, r - 1);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Reduce_local(tmp, acc, p * n, a->type, a->op);
        }
    }
    if (rc == MPI_SUCCESS && nr >= 0)
        rc = rh_halving(&h, pof2, nr, acc, tmp, a->type, a->op, a);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r < 2 * h.rem && r % 2 == 0)
        return hyt_p2p_recv(a, a->rbuf, n, a->type, r + 1);
    if (r < 2 * h.rem)
        rc = hyt_p2p_send(a, acc + (r - 1) * h.bext, n, a->type, r - 1);
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_copy(a, acc + r * h.bext, n, a->type, a->rbuf, n, a->type);
    return rc;
}
