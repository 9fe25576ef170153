/* Alltoallv, throttled scattered exchange.
 *
 * Algorithm: the own block is copied locally; the p-1 other exchanges run
 * in batches of k: for i in a batch a rank posts the receive from rank - i
 * and the send to rank + i, then waits for the whole batch (MPICH's
 * "scattered" Alltoallv with its throttle as the radix).  The rotated
 * order spreads each batch's traffic over distinct destinations.
 * Cost ceil((p-1)/k) rounds with up to k sends and k receives in flight:
 * k = 1 is a pairwise exchange without its step-by-step matching, k >= p-1
 * posts everything at once (lowest latency, most congestion); the right
 * throttle depends on the network, hence the radix. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_alltoallv_scattered(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank;
    k = k < 1 ? 1 : (k > p - 1 ? (p > 1 ? p - 1 : 1) : k);
    hyt_a2av_t s;
    int rc = hyt_alltoallv_src(a, &s);
    MPI_Request *req = hyt_pat_reqs(a->ctx, 2 * k);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int b = 1; b < p && rc == MPI_SUCCESS; b += k) {
        int nr = 0;
        for (int i = b; i < b + k && i < p && rc == MPI_SUCCESS; i++) {
            int from = (me - i + p) % p;
            rc = hyt_p2p_irecv(a, hyt_a2av_rbuf(a, &s, from), a->rcounts[from], a->type, from,
                               &req[nr++]);
        }
        for (int i = b; i < b + k && i < p && rc == MPI_SUCCESS; i++) {
            int to = (me + i) % p;
            rc = hyt_p2p_isend(a, hyt_a2av_sbuf(&s, to), s.counts[to], s.type, to, &req[nr++]);
        }
        int rc2 = hyt_p2p_waitall(nr, req);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    return rc;
}
