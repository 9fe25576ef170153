/* Barrier, k-nomial tree.
 *
 * Algorithm (algorithms/pattern.h, hyt_kn_*, root 0): every rank waits for
 * an empty message from each of its children, tells its parent, then waits
 * for the release from its parent and passes it on to its children.  The
 * root releases only after its whole tree has checked in, so no rank leaves
 * before every rank has entered.
 * Cost 2 ceil(log_k p) levels, k-1 messages per level at an inner node:
 * fewer messages than dissemination (2(p-1) in all against p ceil(log_k p)
 * (k-1)), twice its depth; k = 2 is the binomial gather-release barrier,
 * k = p a flat one (the root talks to every rank). */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_barrier_knomial(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, rc = MPI_SUCCESS;
    if (p == 1)
        return MPI_SUCCESS;
    hyt_kn_t t;
    hyt_kn_init(&t, p, k, 0, a->ctx->rank);
    int n = hyt_kn_nchildren(&t), nr = 0;
    MPI_Request *req = hyt_pat_reqs(a->ctx, n);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (long m = 1; m < t.mask && rc == MPI_SUCCESS; m *= t.k)
        for (int j = 1; j <= hyt_kn_nchildren_at(&t, (int)m) && rc == MPI_SUCCESS; j++)
            rc = hyt_p2p_irecv(a, NULL, 0, MPI_BYTE,
                               hyt_kn_abs(&t, hyt_kn_child_rel(&t, (int)m, j)), &req[nr++]);
    int rc2 = hyt_p2p_waitall(nr, req);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && t.parent >= 0)
        rc = hyt_p2p_send(a, NULL, 0, MPI_BYTE, t.parent);
    if (rc == MPI_SUCCESS && t.parent >= 0)
        rc = hyt_p2p_recv(a, NULL, 0, MPI_BYTE, t.parent);
    nr = 0;
    for (long m = t.mask / t.k; m >= 1 && rc == MPI_SUCCESS; m /= t.k)
        for (int j = hyt_kn_nchildren_at(&t, (int)m); j >= 1 && rc == MPI_SUCCESS; j--)
            rc = hyt_p2p_isend(a, NULL, 0, MPI_BYTE,
                               hyt_kn_abs(&t, hyt_kn_child_rel(&t, (int)m, j)), &req[nr++]);
    rc2 = hyt_p2p_waitall(nr, req);
    return rc != MPI_SUCCESS ? rc : rc2;
}
