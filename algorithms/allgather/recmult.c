/* Allgather, recursive multiplying.
 *
 * Algorithm (algorithms/pattern.h, hyt_rm_*): p' = k^m is the largest power
 * of k <= p; the ranks form p' contiguous blocks of 1..k ranks.  Members send
 * their block to the block's first rank (fold in).  In round r = 1..m every
 * leader sends the range of ranks it holds (k^(r-1) leader blocks: one
 * contiguous piece of the receive buffer, sent with the user's datatype) to
 * the k-1 other leaders of its group and receives theirs in place.  Leaders
 * then send the whole buffer to their members (fold out).  Cost about
 * log_k p' * alpha + (p'-1)/p' * p*n*beta per leader, the same volume as
 * recursive doubling in log_k p' instead of log_2 p' steps, but each round
 * sends k-1 messages at once: k > 2 helps when a node can drive k-1
 * transfers together (several ports) or when latency
 * dominates.  Uneven blocks (p not a power of k) only change range sizes. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

#include <limits.h>

/* Rank range [lo, hi) held by the leaders of index range [blo, bhi). */
static void rank_range(const hyt_rm_t *rm, int blo, int bhi, int *lo, int *hi)
{
    *lo = hyt_rm_block_start(rm, blo);
    *hi = hyt_rm_block_start(rm, bhi);
}

static int round_exchange(const hyt_args_t *a, const hyt_rm_t *rm, MPI_Aint ext, int blk, int s,
                          MPI_Request *req)
{
    int d = hyt_rm_digit(rm, blk, s), nr = 0, rc = MPI_SUCCESS, blo, bhi, lo, hi;
    hyt_rm_cover(blk, s, &blo, &bhi);
    rank_range(rm, blo, bhi, &lo, &hi);
    void *mine = hyt_pat_at(a->rbuf, ext, (long)lo * a->count);
    for (int j = 0; j < rm->k && rc == MPI_SUCCESS; j++) {
        if (j == d)
            continue;
        int peer = hyt_rm_peer(rm, blk, s, j), plo, phi;
        hyt_rm_cover(peer, s, &blo, &bhi);
        rank_range(rm, blo, bhi, &plo, &phi);
        int dest = hyt_rm_block_start(rm, peer);
        rc = hyt_p2p_irecv(a, hyt_pat_at(a->rbuf, ext, (long)plo * a->count),
                           (phi - plo) * a->count, a->type, dest, &req[nr++]);
        if (rc == MPI_SUCCESS)
            rc = hyt_p2p_isend(a, mine, (hi - lo) * a->count, a->type, dest, &req[nr++]);
    }
    int rc2 = hyt_p2p_waitall(nr, req);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int leader(const hyt_args_t *a, const hyt_rm_t *rm, MPI_Aint ext, int blk)
{
    int first = hyt_rm_block_start(rm, blk), bsize = hyt_rm_block_size(rm, blk);
    int p = rm->p, rc = MPI_SUCCESS, nr = 0;
    MPI_Request *req = hyt_pat_reqs(a->ctx, 2 * rm->k);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++)
        rc = hyt_p2p_irecv(a, hyt_pat_at(a->rbuf, ext, (long)(first + j) * a->count), a->count,
                           a->type, first + j, &req[nr++]);
    int rc2 = hyt_p2p_waitall(nr, req);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    for (int r = 1; r <= rm->m && rc == MPI_SUCCESS; r++)
        rc = round_exchange(a, rm, ext, blk, hyt_rm_spacing(rm, r), req);
    nr = 0;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++)
        rc = hyt_p2p_isend(a, a->rbuf, p * a->count, a->type, first + j, &req[nr++]);
    rc2 = hyt_p2p_waitall(nr, req);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int hyt_allgather_recmult(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank;
    if ((long long)p * a->count > INT_MAX)
        return HYT_UNSUPPORTED; /* the fold-out count would overflow */
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    void *mine = hyt_pat_at(a->rbuf, ext, (long)me * a->count);
    if (a->sbuf != MPI_IN_PLACE) {
        int rc = hyt_p2p_copy(a, a->sbuf, a->scount, a->stype, mine, a->count, a->type);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (p == 1 || a->count == 0)
        return MPI_SUCCESS;
    hyt_rm_t rm;
    hyt_rm_init(&rm, p, k);
    int blk = hyt_rm_block_of(&rm, me), first = hyt_rm_block_start(&rm, blk);
    if (me == first)
        return leader(a, &rm, ext, blk);
    int rc = hyt_p2p_send(a, mine, a->count, a->type, first);
    if (rc != MPI_SUCCESS)
        return rc;
    return hyt_p2p_recv(a, a->rbuf, p * a->count, a->type, first);
}
