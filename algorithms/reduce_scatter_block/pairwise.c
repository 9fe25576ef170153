/* Pairwise-exchange Reduce_scatter_block.
 *
 * Algorithm: p-1 steps; in step i a rank sends its contribution to block
 * rank + i to that rank and receives rank - i's contribution to its own
 * block, which it folds into its partial result at once.
 * Cost: p-1 steps, (p-1) blocks sent per rank, no extra reduction work
 * beyond the p-1 block reductions: the large-block choice, no radix.
 * Contributions arrive in rotated order, so the registry flags
 * HYT_ALG_NEEDS_COMMUTATIVE. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_reduce_scatter_block_pairwise(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size, r = a->ctx->rank, n = a->count, rc = MPI_SUCCESS;
    if (n == 0)
        return MPI_SUCCESS;
    MPI_Aint lb, ext, tlb;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    MPI_Aint bext = ext * n;
    int inplace = a->sbuf == MPI_IN_PLACE;
    const char *in = inplace ? a->rbuf : a->sbuf;
    /* in place the partial result grows in scratch and is copied to the
     * front of rbuf at the end: the rest of rbuf is left as it was */
    size_t span = hyt_pat_span(n, a->type, &tlb), stride = (span + 63) & ~(size_t)63;
    char *area = hyt_scratch(a->ctx, 2 * stride);
    if (!area)
        return MPI_ERR_NO_MEM;
    char *tmp = area - tlb, *acc = inplace ? area + stride - tlb : a->rbuf;
    rc = hyt_p2p_copy(a, in + r * bext, n, a->type, acc, n, a->type);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int to = (r + i) % p, from = (r - i + p) % p;
        rc = hyt_p2p_sendrecv(a, in + to * bext, n, a->type, to, tmp, n, a->type, from);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Reduce_local(tmp, acc, n, a->type, a->op);
    }
    if (rc == MPI_SUCCESS && inplace)
        rc = hyt_p2p_copy(a, acc, n, a->type, a->rbuf, n, a->type);
    return rc;
}
