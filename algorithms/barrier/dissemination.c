/* Barrier, k-dissemination (Hensgen, Finkel and Manber; k-port form after
 * Hoefler et al.).
 *
 * Algorithm (algorithms/pattern.h, hyt_dis_*): ceil(log_k p) rounds; in the
 * round of distance d = k^r every rank sends an empty message to the k-1
 * ranks j*d ahead of it and waits for the k-1 ranks j*d behind it.  No rank
 * leaves before every rank has entered: after the last round each rank has
 * heard, directly or through intermediate ranks, from all p-1 others.
 * Cost ceil(log_k p) rounds of k-1 concurrent messages: k = 2 is the classic
 * dissemination barrier (log2 p rounds), a larger k trades rounds for
 * messages per round, which pays where a node sends several messages in
 * about the time of one (k = p: one round, p-1 messages per rank). */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_barrier_dissemination(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank, rc = MPI_SUCCESS;
    if (p == 1)
        return MPI_SUCCESS;
    k = hyt_dis_k(p, k);
    MPI_Request *req = hyt_pat_reqs(a->ctx, 2 * (k - 1));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (long d = 1; d < p && rc == MPI_SUCCESS; d *= k) {
        int nj = hyt_dis_nj(p, k, d), nr = 0;
        for (int j = 1; j <= nj && rc == MPI_SUCCESS; j++)
            rc = hyt_p2p_irecv(a, NULL, 0, MPI_BYTE, hyt_dis_peer(p, me, d, j, -1), &req[nr++]);
        for (int j = 1; j <= nj && rc == MPI_SUCCESS; j++)
            rc = hyt_p2p_isend(a, NULL, 0, MPI_BYTE, hyt_dis_peer(p, me, d, j, +1), &req[nr++]);
        int rc2 = hyt_p2p_waitall(nr, req);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    return rc;
}
