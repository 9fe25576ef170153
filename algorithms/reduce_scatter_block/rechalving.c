/* Recursive-halving Reduce_scatter_block (commutative ops): the recursive
 * halving of Reduce_scatter (algorithms/reduce_scatter/rechalving.c) with
 * p equal blocks of recvcount elements.
 * Cost log2 p' steps (+2 when p is not a power of two) and about
 * n(p'-1)/p' bytes per rank for the p*n-element input, against p-1 steps
 * for pairwise: the small and medium choice.  Partial results combine ranks
 * in butterfly order, so the registry flags HYT_ALG_NEEDS_COMMUTATIVE. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

#include <limits.h>

int hyt_reduce_scatter_block_rechalving(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size;
    if ((long long)p * a->count > INT_MAX)
        return HYT_UNSUPPORTED; /* the whole vector is one message */
    long *off = hyt_scratch2(a->ctx, (size_t)(p + 1) * sizeof *off);
    if (!off)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i <= p; i++)
        off[i] = (long)i * a->count;
    return hyt_reduce_scatter_rechalving_off(a, off);
}
