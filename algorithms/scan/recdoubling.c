/* Scan and Exscan, recursive doubling.
 *
 * Algorithm: every rank keeps a partial (the reduction of the contributions
 * of a block of 2^s consecutive ranks containing it) and its result.  In the
 * step of distance 2^s it swaps partials with rank ^ 2^s (when that rank
 * exists); the partial from a lower rank is folded in front (in op order:
 * it covers the ranks just below the block) of both the partial and the
 * result, the one from a higher rank behind the partial only.  Operands
 * are always combined in rank order, so non-commutative ops are exact.
 * Exscan keeps no own contribution in its result: the first partial
 * received from below starts it (rank 0's result stays untouched, as MPI
 * leaves it undefined).
 * Cost ceil(log2 p) steps of one n-element exchange and up to two local
 * reductions each, against p-1 steps for a linear chain: the choice for
 * small and medium n.  No radix. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

static int recdoubling(const hyt_args_t *a, int exclusive)
{
    int p = a->ctx->size, me = a->ctx->rank, n = a->count, rc = MPI_SUCCESS;
    if (n == 0)
        return MPI_SUCCESS;
    hyt_pat_pool_t pool;
    if (hyt_pat_pool(&pool, a->ctx, n, a->type, 2) != 0)
        return MPI_ERR_NO_MEM;
    char *part = hyt_pat_pool_buf(&pool, 0), *tmp = hyt_pat_pool_buf(&pool, 1);
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    int commute = hyt_op_is_commutative(a->op), have = !exclusive;
    rc = hyt_p2p_copy(a, in, n, a->type, part, n, a->type);
    if (rc == MPI_SUCCESS && !exclusive)
        rc = hyt_p2p_copy(a, in, n, a->type, a->rbuf, n, a->type);
    for (long mask = 1; mask < p && rc == MPI_SUCCESS; mask <<= 1) {
        int peer = (int)(me ^ mask);
        if (peer >= p)
            continue;
        rc = hyt_p2p_sendrecv(a, part, n, a->type, peer, tmp, n, a->type, peer);
        if (rc != MPI_SUCCESS)
            break;
        if (peer < me) {
            rc = PMPI_Reduce_local(tmp, part, n, a->type, a->op);
            if (rc == MPI_SUCCESS && have)
                rc = PMPI_Reduce_local(tmp, a->rbuf, n, a->type, a->op);
            else if (rc == MPI_SUCCESS)
                rc = hyt_p2p_copy(a, tmp, n, a->type, a->rbuf, n, a->type);
            have = 1;
        } else if (commute) {
            rc = PMPI_Reduce_local(tmp, part, n, a->type, a->op);
        } else {
            /* part op tmp lands in tmp: swap the roles of the two buffers */
            rc = PMPI_Reduce_local(part, tmp, n, a->type, a->op);
            char *x = part;
            part = tmp;
            tmp = x;
        }
    }
    return rc;
}

int hyt_scan_recdoubling(const hyt_args_t *a, int k)
{
    (void)k;
    return recdoubling(a, 0);
}

int hyt_exscan_recdoubling(const hyt_args_t *a, int k)
{
    (void)k;
    return recdoubling(a, 1);
}
