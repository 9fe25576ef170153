/* Reduce_scatter (any recvcounts), pairwise exchange.
 *
 * Algorithm: p-1 steps; in step i a rank sends its contribution to the
 * block of rank + i (recvcounts[rank + i] elements at the block's offset,
 * the sum of the counts before it) and receives rank - i's contribution to
 * its own block.  With a commutative op each contribution is folded in as
 * it arrives; otherwise all p contributions are kept and combined at the
 * end in rank order (c0 op c1 op ... op c(p-1)), so non-commutative ops are
 * exact at the price of p blocks of scratch.
 * Cost p-1 steps, each rank sends the total minus its own block and
 * receives p-1 copies of its block: the large-block choice, and the one
 * whose traffic follows the skew of recvcounts exactly; no radix. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

/* Element offset of every block (p + 1 entries, off[p] = total) in
 * scratch2; NULL if out of memory.  Shared by the Reduce_scatter kernels. */
long *hyt_reduce_scatter_offsets(const hyt_args_t *a)
{
    int p = a->ctx->size;
    long *off = hyt_scratch2(a->ctx, (size_t)(p + 1) * sizeof *off);
    if (!off)
        return NULL;
    off[0] = 0;
    for (int i = 0; i < p; i++)
        off[i + 1] = off[i] + (a->rcounts[i] > 0 ? a->rcounts[i] : 0);
    return off;
}

int hyt_reduce_scatter_pairwise(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size, me = a->ctx->rank, n = a->rcounts[me], rc = MPI_SUCCESS;
    long *off = hyt_reduce_scatter_offsets(a);
    if (!off)
        return MPI_ERR_NO_MEM;
    if (off[p] == 0)
        return MPI_SUCCESS;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    const char *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    int commute = hyt_op_is_commutative(a->op);
    /* commutative: [0] the partial result, [1] the block received;
     * otherwise one slot per contribution, in rank order */
    hyt_pat_pool_t pool;
    if (hyt_pat_pool(&pool, a->ctx, n, a->type, commute ? 2 : p) != 0)
        return MPI_ERR_NO_MEM;
    char *acc = hyt_pat_pool_buf(&pool, commute ? 0 : me);
    rc = hyt_p2p_copy(a, in + off[me] * ext, n, a->type, acc, n, a->type);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int to = (me + i) % p, from = (me - i + p) % p;
        char *tmp = hyt_pat_pool_buf(&pool, commute ? 1 : from);
        rc = hyt_p2p_sendrecv(a, in + off[to] * ext, a->rcounts[to], a->type, to, tmp, n,
                              a->type, from);
        if (rc == MPI_SUCCESS && commute)
            rc = PMPI_Reduce_local(tmp, acc, n, a->type, a->op);
    }
    if (!commute) {
        acc = hyt_pat_pool_buf(&pool, p - 1);
        for (int j = p - 2; j >= 0 && rc == MPI_SUCCESS; j--)
            rc = PMPI_Reduce_local(hyt_pat_pool_buf(&pool, j), acc, n, a->type, a->op);
    }
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_copy(a, acc, n, a->type, a->rbuf, n, a->type);
    return rc;
}
