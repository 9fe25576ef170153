/* Reduce, k-nomial tree.
 *
 * Algorithm: a k-nomial tree (algorithms/pattern.h) whose subtrees are
 * contiguous ranges of ranks relative to the tree root.  Level by level
 * (m = 1, k, k^2, ...) a node receives the partial results of its up to k-1
 * children at that level and folds them into its own in subtree order, then
 * sends the result of its whole subtree to its parent.  Cost about
 * ceil(log_k p) * (alpha + (k-1) * (n*beta + n*gamma)) on the critical path:
 * a larger k means fewer levels but more data into one node per level, so
 * large k suits small messages.  k = 2 is the binomial tree.
 *
 * Operand order: combining children in subtree order keeps the rank order of
 * the tree's relative ranks.  For a non-commutative op and root != 0 that
 * order would be rotated, so the tree is rooted at rank 0 (canonical order)
 * and rank 0 forwards the result to the root: one extra message, only then.
 *
 * Memory: up to k buffers of the message (one per child of a level plus the
 * running result) from the communicator's scratch area. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

/* The t-th free slot of the pool when slot `acc` holds the running result. */
static int free_slot(int t, int acc)
{
    return acc >= 0 && t >= acc ? t + 1 : t;
}

static int max_level_children(const hyt_kn_t *t)
{
    int mx = 0;
    for (long long m = 1; m < t->mask; m *= t->k) {
        int c = hyt_kn_nchildren_at(t, (int)m);
        mx = c > mx ? c : mx;
    }
    return mx;
}

/* Fold all children into the running result; returns MPI status and the
 * pointer holding the subtree's result in *res (in itself if no children). */
static int gather_children(const hyt_args_t *a, const hyt_kn_t *t, const void *in,
                           const void **res)
{
    int maxc = max_level_children(t);
    *res = in;
    if (maxc == 0)
        return MPI_SUCCESS;
    hyt_pat_pool_t pool;
    MPI_Request *req = hyt_pat_reqs(a->ctx, maxc);
    if (!req || hyt_pat_pool(&pool, a->ctx, a->count, a->type, maxc + 1) != 0)
        return MPI_ERR_NO_MEM;
    int acc = -1; /* -1: the running result is the caller's input */
    for (long long m = 1; m < t->mask; m *= t->k) {
        int c = hyt_kn_nchildren_at(t, (int)m);
        for (int j = 1; j <= c; j++) {
            int rc =
                hyt_p2p_irecv(a, hyt_pat_pool_buf(&pool, free_slot(j - 1, acc)), a->count, a->type,
                              hyt_kn_abs(t, hyt_kn_child_rel(t, (int)m, j)), &req[j - 1]);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        int rc = hyt_p2p_waitall(c, req);
        if (rc != MPI_SUCCESS)
            return rc;
        /* child = running op child (lower ranks first); the slots were
         * chosen with the running result of the previous level */
        int prev = acc;
        for (int j = 1; j <= c; j++) {
            int slot = free_slot(j - 1, prev);
            const void *cur = acc < 0 ? in : hyt_pat_pool_buf(&pool, acc);
            rc = PMPI_Reduce_local(cur, hyt_pat_pool_buf(&pool, slot), a->count, a->type, a->op);
            if (rc != MPI_SUCCESS)
                return rc;
            acc = slot;
        }
        if (acc >= 0)
            *res = hyt_pat_pool_buf(&pool, acc);
    }
    return MPI_SUCCESS;
}

int hyt_reduce_knomial(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (p == 1)
        return hyt_p2p_copy(a, in, a->count, a->type, a->rbuf, a->count, a->type);
    int ordered_root = a->root == 0 || hyt_op_is_commutative(a->op);
    int troot = ordered_root ? a->root : 0;
    hyt_kn_t t;
    hyt_kn_init(&t, p, k, troot, me);
    const void *res;
    int rc = gather_children(a, &t, in, &res);
    if (rc != MPI_SUCCESS)
        return rc;
    if (t.parent >= 0) {
        rc = hyt_p2p_send(a, res, a->count, a->type, t.parent);
        if (rc != MPI_SUCCESS || ordered_root || me != a->root)
            return rc;
        /* non-commutative op, root != 0: the ordered result comes from rank 0 */
        return hyt_p2p_recv(a, a->rbuf, a->count, a->type, 0);
    }
    if (ordered_root)
        return hyt_p2p_copy(a, res, a->count, a->type, a->rbuf, a->count, a->type);
    return hyt_p2p_send(a, res, a->count, a->type, a->root);
}
