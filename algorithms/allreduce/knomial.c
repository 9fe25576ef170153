/* Allreduce, k-nomial tree: reduce to rank 0, then broadcast from rank 0.
 *
 * Algorithm: the k-nomial Reduce (algorithms/reduce/knomial.c) rooted at
 * rank 0, which keeps canonical operand order (non-commutative ops work and
 * every rank gets the very same bits), followed by the k-nomial Bcast.
 * Cost about 2 * ceil(log_k p) * (alpha + (k-1) * n*beta): latency-bound,
 * for small messages, where a large k halves the depth or better. */
#include "algorithms/algorithms.h"

int hyt_allreduce_knomial(const hyt_args_t *a, int k)
{
    hyt_args_t r = *a;
    r.coll = HYT_COLL_REDUCE;
    r.root = 0;
    /* in place: the input is in rbuf; only the root may say MPI_IN_PLACE */
    if (a->sbuf == MPI_IN_PLACE && a->ctx->rank != 0)
        r.sbuf = a->rbuf;
    int rc = hyt_reduce_knomial(&r, k);
    if (rc != MPI_SUCCESS)
        return rc;
    hyt_args_t b = *a;
    b.coll = HYT_COLL_BCAST;
    b.sbuf = NULL;
    b.root = 0;
    return hyt_bcast_knomial(&b, k);
}
