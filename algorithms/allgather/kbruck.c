/* k-port Bruck Allgather (k >= 2; k = 2 is Bruck's algorithm).
 *
 * Algorithm: blocks are kept in a rotated buffer where position j holds the
 * block of rank (rank + j) mod p, so every rank starts with its own block
 * at position 0.  In the round of distance d = 1, k, k^2, ... (< p) a rank
 * holding positions [0, d) receives, for i = 1..k-1, the first
 * min(d, p - i*d) positions of rank + i*d into positions [i*d, ...), and
 * sends the same from its own positions to rank - i*d.  After
 * ceil(log_k p) rounds all p positions are filled; a final rotation puts
 * them in rank order.
 * Cost: ceil(log_k p) rounds of k-1 concurrent messages, (p-1) blocks
 * received per rank, for any p (no power-of-k restriction).  Larger k cuts
 * rounds (latency) when the network takes k-1 messages at once; k >= p is
 * one round of direct exchanges. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

static int bruck_rounds(const hyt_args_t *a, int k, char *tmp, const hyt_pat_blocks_t *l,
                        MPI_Request *req)
{
    int p = a->ctx->size, r = a->ctx->rank;
    for (long d = 1; d < p; d *= k) {
        int nreq = 0, rc = MPI_SUCCESS;
        for (int i = 1; i < k && i * d < p && rc == MPI_SUCCESS; i++) {
            long off = i * d, n = d < p - off ? d : p - off;
            int cnt = (int)n * l->count;
            rc = hyt_p2p_irecv(a, tmp + off * l->bext, cnt, l->type, (int)((r + off) % p),
                               &req[nreq++]);
            if (rc == MPI_SUCCESS)
                rc = hyt_p2p_isend(a, tmp, cnt, l->type, (int)((r - off + p) % p), &req[nreq++]);
        }
        int rc2 = hyt_p2p_waitall(nreq, req);
        if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
            return rc != MPI_SUCCESS ? rc : rc2;
    }
    return MPI_SUCCESS;
}

int hyt_allgather_kbruck(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, r = a->ctx->rank, rc;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    MPI_Aint bext = ext * a->count; /* one rank's block */
    char *mine = (char *)a->rbuf + r * bext;
    if (p == 1 || a->count == 0)
        return a->sbuf == MPI_IN_PLACE
                   ? MPI_SUCCESS
                   : hyt_p2p_copy(a, a->sbuf, a->scount, a->stype, mine, a->count, a->type);
    if (k < 2)
        k = 2;
    if (k > p)
        k = p;
    hyt_pat_blocks_t l; /* the rotated result: p blocks */
    if (hyt_pat_blocks(&l, p, a->count, a->type) != MPI_SUCCESS)
        return HYT_UNSUPPORTED;
    char *tmp = hyt_scratch(a->ctx, l.bytes);
    MPI_Request *req = hyt_pat_reqs(a->ctx, 2 * (k - 1));
    if (!tmp || !req)
        return MPI_ERR_NO_MEM;
    tmp -= l.true_lb;
    if (a->sbuf == MPI_IN_PLACE)
        rc = hyt_p2p_copy(a, mine, a->count, a->type, tmp, l.count, l.type);
    else
        rc = hyt_p2p_copy(a, a->sbuf, a->scount, a->stype, tmp, l.count, l.type);
    if (rc == MPI_SUCCESS)
        rc = bruck_rounds(a, k, tmp, &l, req);
    /* position j holds rank r + j: two contiguous copies undo the rotation */
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_copy(a, tmp, (p - r) * l.count, l.type, mine, (p - r) * a->count, a->type);
    if (rc == MPI_SUCCESS && r > 0)
        rc = hyt_p2p_copy(a, tmp + (p - r) * l.bext, r * l.count, l.type, a->rbuf, r * a->count,
                          a->type);
    return rc;
}
