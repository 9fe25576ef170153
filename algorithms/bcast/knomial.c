/* Bcast, k-nomial tree.
 *
 * Algorithm: ranks relative to the root form a k-nomial tree
 * (algorithms/pattern.h).  Every rank receives the whole message once from
 * its parent, then sends it to its children level by level, farthest level
 * first: the k-1 children of a level are sent to at once, and a level waits
 * for the one before, so the largest subtrees start first with the full
 * bandwidth (k = 2 is then exactly the binomial tree's schedule).  Latency ceil(log_k p) * (alpha + n*beta) on
 * the critical path, with (k-1) sends per level serialised at each sender:
 * cost about ceil(log_k p) * (k-1) * (alpha + n*beta) at the root.  k = 2 is
 * the binomial tree; a large k (up to p: a flat tree) wins for small
 * messages when the network overlaps concurrent sends, a small k for large
 * ones where the sender's bandwidth is the limit. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_bcast_knomial(const hyt_args_t *a, int k)
{
    int p = a->ctx->size;
    if (p == 1)
        return MPI_SUCCESS;
    hyt_kn_t t;
    hyt_kn_init(&t, p, k, a->root, a->ctx->rank);
    int n = hyt_kn_nchildren(&t);
    MPI_Request *req = hyt_pat_reqs(a->ctx, n);
    if (!req)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (t.parent >= 0)
        rc = hyt_p2p_recv(a, a->rbuf, a->count, a->type, t.parent);
    /* one level at a time, farthest first: the largest subtree gets the
     * sender's full bandwidth, as in the binomial tree (k = 2 is exactly it) */
    int rc2 = MPI_SUCCESS;
    for (int m = t.mask / t.k; m >= 1 && rc == MPI_SUCCESS && rc2 == MPI_SUCCESS; m /= t.k) {
        int c = hyt_kn_nchildren_at(&t, m), nr = 0;
        for (int j = c; j >= 1 && rc == MPI_SUCCESS; j--)
            rc = hyt_p2p_isend(a, a->rbuf, a->count, a->type,
                               hyt_kn_abs(&t, hyt_kn_child_rel(&t, m, j)), &req[nr++]);
        rc2 = hyt_p2p_waitall(nr, req);
    }
    return rc != MPI_SUCCESS ? rc : rc2;
}
