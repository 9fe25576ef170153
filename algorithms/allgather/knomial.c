/* Allgather, k-nomial tree: gather to rank 0, then broadcast from rank 0.
 *
 * Algorithm: in the k-nomial tree rooted at rank 0 (algorithms/pattern.h)
 * every subtree is a contiguous range of ranks, hence a contiguous range of
 * the receive buffer: children's ranges are received in place, and a node
 * sends its subtree's range to its parent in one message.  Then the k-nomial
 * Bcast distributes the p blocks.  Gather cost ceil(log_k p) * alpha plus
 * about (p-1) blocks into rank 0; the Bcast sends p*n per edge, so this is
 * for small blocks, where a large k cuts the number of latency steps. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

#include <limits.h>

static int gather_to_zero(const hyt_args_t *a, int k, MPI_Aint ext)
{
    hyt_kn_t t;
    hyt_kn_init(&t, a->ctx->size, k, 0, a->ctx->rank);
    int n = hyt_kn_nchildren(&t);
    MPI_Request *req = hyt_pat_reqs(a->ctx, n);
    if (!req)
        return MPI_ERR_NO_MEM;
    int nr = 0, rc = MPI_SUCCESS;
    for (int m = 1; m < t.mask && rc == MPI_SUCCESS; m *= t.k) {
        int c = hyt_kn_nchildren_at(&t, m);
        for (int j = 1; j <= c && rc == MPI_SUCCESS; j++) {
            int child = hyt_kn_child_rel(&t, m, j);
            rc = hyt_p2p_irecv(a, hyt_pat_at(a->rbuf, ext, (long)child * a->count),
                               hyt_kn_child_subtree(&t, m, j) * a->count, a->type, child,
                               &req[nr++]);
        }
    }
    int rc2 = hyt_p2p_waitall(nr, req);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : rc2;
    if (t.parent < 0)
        return MPI_SUCCESS;
    return hyt_p2p_send(a, hyt_pat_at(a->rbuf, ext, (long)t.rel * a->count),
                        hyt_kn_subtree(&t) * a->count, a->type, t.parent);
}

int hyt_allgather_knomial(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank;
    if ((long long)p * a->count > INT_MAX)
        return HYT_UNSUPPORTED; /* the Bcast count would overflow */
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    if (a->sbuf != MPI_IN_PLACE) {
        int rc = hyt_p2p_copy(a, a->sbuf, a->scount, a->stype,
                              hyt_pat_at(a->rbuf, ext, (long)me * a->count), a->count, a->type);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (p == 1 || a->count == 0)
        return MPI_SUCCESS;
    int rc = gather_to_zero(a, k, ext);
    if (rc != MPI_SUCCESS)
        return rc;
    hyt_args_t b = *a;
    b.coll = HYT_COLL_BCAST;
    b.sbuf = NULL;
    b.count = p * a->count;
    b.root = 0;
    return hyt_bcast_knomial(&b, k);
}
