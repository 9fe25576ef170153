/* Rabenseifner Reduce: reduce-scatter by recursive halving, then a
 * binomial gather of the chunks to the root.
 *
 * Algorithm: the fold and the halving of algorithms/allreduce/rabenseifner.c
 * (p' = largest power of two <= p; the first 2*(p-p') ranks pair up), so
 * every new rank ends with one fully reduced chunk of n/p'.  The halving
 * steps are then undone towards the root only: in the step of distance 2^s
 * the rank whose bit s differs from the root's sends everything it holds to
 * its partner and stops.  A root among the folded even ranks gets the
 * result from its odd partner at the end.
 * Cost: 2 log2 p' steps (+1 or 2 when p is not a power of two), about
 * 2n(p'-1)/p' bytes at the root instead of n log2 p for a binomial tree:
 * the choice for large vectors; no radix.  Operands are combined in rank
 * order (see the Allreduce file), so non-commutative ops are fine. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_reduce_rabenseifner(const hyt_args_t *a, int k)
{
    (void)k;
    int r = a->ctx->rank, root = a->root, rc = MPI_SUCCESS;
    if (a->count == 0)
        return MPI_SUCCESS;
    if (a->ctx->size == 1)
        return a->sbuf == MPI_IN_PLACE
                   ? MPI_SUCCESS
                   : hyt_p2p_copy(a, a->sbuf, a->count, a->type, a->rbuf, a->count, a->type);
    MPI_Aint tlb;
    size_t span = hyt_pat_span(a->count, a->type, &tlb);
    /* the root accumulates in its receive buffer, the others in scratch */
    char *acc = r == root ? a->rbuf : hyt_scratch(a->ctx, span);
    char *tmp = r == root ? hyt_scratch(a->ctx, span) : hyt_scratch2(a->ctx, span);
    if (!acc || !tmp)
        return MPI_ERR_NO_MEM;
    if (r != root)
        acc -= tlb;
    tmp -= tlb;
    if (a->sbuf != MPI_IN_PLACE)
        rc = hyt_p2p_copy(a, a->sbuf, a->count, a->type, acc, a->count, a->type);
    hyt_rab_t rb;
    hyt_rab_init(&rb, a, acc, tmp);
    /* a folded-out even root is served by its odd partner */
    int holder = root < 2 * rb.rem && root % 2 == 0 ? root + 1 : root;
    int newroot = holder < 2 * rb.rem ? holder / 2 : holder - rb.rem;
    if (rc == MPI_SUCCESS)
        rc = hyt_rab_fold(&rb);
    if (rc == MPI_SUCCESS && rb.newrank >= 0)
        rc = hyt_rab_reduce_scatter(&rb);
    if (rc == MPI_SUCCESS && rb.newrank >= 0)
        rc = hyt_rab_gather(&rb, newroot);
    if (rc == MPI_SUCCESS && holder != root) {
        if (r == holder)
            rc = hyt_p2p_send(rb.a, acc, a->count, a->type, root);
        else if (r == root)
            rc = hyt_p2p_recv(rb.a, a->rbuf, a->count, a->type, holder);
    }
    return rc;
}
