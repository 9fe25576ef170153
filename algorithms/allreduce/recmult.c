/* Allreduce, recursive multiplying.
 *
 * Algorithm (algorithms/pattern.h, hyt_rm_*): p' = k^m is the largest power
 * of k <= p.  The ranks form p' contiguous blocks of 1..k ranks; members
 * send their input to the block's first rank (fold in), which combines them
 * in rank order.  Then m rounds: in round r each block leader exchanges its
 * partial result with the k-1 other leaders of its group (leader indices
 * spaced k^(r-1)) and combines all k partials in group order, which is rank
 * order, so non-commutative ops keep their order and all ranks end with the
 * very same bits.  Finally leaders send the result to their members (fold
 * out).  Cost about log_k p' * (alpha + (k-1) * n*(beta + gamma)) plus two
 * steps for the fold: k = 2 (recursive doubling) has the most rounds and the
 * least data per round; a k near the number of ports a node can drive at
 * once overlaps the k-1 transfers of a round, which is where k > 2 helps.
 *
 * Memory: k-1 buffers of the message from the communicator's scratch area
 * (the user's rbuf is the k-th). */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

typedef struct {
    const hyt_args_t *a;
    hyt_pat_pool_t pool;
    MPI_Request *req;
} rm_ctx_t;

/* Slot 0 is the user's rbuf, slots 1..k-1 the scratch buffers. */
static void *slot_buf(const rm_ctx_t *c, int slot)
{
    return slot == 0 ? c->a->rbuf : hyt_pat_pool_buf(&c->pool, slot - 1);
}

/* The t-th slot not holding the running result acc (acc -1: none). */
static int free_slot(int t, int acc)
{
    return acc >= 0 && t >= acc ? t + 1 : t;
}

/* Leader: receive the members' inputs and fold them in rank order. */
static int fold_in(const rm_ctx_t *c, int first, int bsize, const void *in, int *acc)
{
    const hyt_args_t *a = c->a;
    for (int j = 1; j < bsize; j++) {
        int rc = hyt_p2p_irecv(a, slot_buf(c, free_slot(j - 1, *acc)), a->count, a->type, first + j,
                               &c->req[j - 1]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    int rc = hyt_p2p_waitall(bsize - 1, c->req);
    /* member j's buffer becomes running op member j (lower ranks first) */
    const void *cur = in;
    int prev = *acc;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++) {
        int slot = free_slot(j - 1, prev);
        rc = PMPI_Reduce_local(cur, slot_buf(c, slot), a->count, a->type, a->op);
        cur = slot_buf(c, slot);
        *acc = slot;
    }
    return rc;
}

/* One round among leaders: exchange with the k-1 peers, combine in group order. */
static int round_exchange(const rm_ctx_t *c, const hyt_rm_t *rm, int me_blk, int s, int *acc)
{
    const hyt_args_t *a = c->a;
    int k = rm->k, d = hyt_rm_digit(rm, me_blk, s), nr = 0, rc = MPI_SUCCESS;
    int prev = *acc;
    for (int j = 0; j < k && rc == MPI_SUCCESS; j++) {
        if (j == d)
            continue;
        int peer = hyt_rm_block_start(rm, hyt_rm_peer(rm, me_blk, s, j));
        int slot = free_slot(j < d ? j : j - 1, prev);
        rc = hyt_p2p_irecv(a, slot_buf(c, slot), a->count, a->type, peer, &c->req[nr++]);
        if (rc == MPI_SUCCESS)
            rc = hyt_p2p_isend(a, slot_buf(c, prev), a->count, a->type, peer, &c->req[nr++]);
    }
    int rc2 = hyt_p2p_waitall(nr, c->req);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : rc2;
    /* running = P_0; P_j = running op P_j for j = 1..k-1 */
    int cur = d == 0 ? prev : free_slot(0, prev);
    for (int j = 1; j < k; j++) {
        int slot = j == d ? prev : free_slot(j < d ? j : j - 1, prev);
        rc = PMPI_Reduce_local(slot_buf(c, cur), slot_buf(c, slot), a->count, a->type, a->op);
        if (rc != MPI_SUCCESS)
            return rc;
        cur = slot;
    }
    *acc = cur;
    return MPI_SUCCESS;
}

static int leader(rm_ctx_t *c, const hyt_rm_t *rm, int blk, const void *in)
{
    const hyt_args_t *a = c->a;
    int first = hyt_rm_block_start(rm, blk), bsize = hyt_rm_block_size(rm, blk);
    int acc = in == a->rbuf ? 0 : -1, rc;
    if (bsize > 1) {
        rc = fold_in(c, first, bsize, in, &acc);
    } else { /* rounds write into the running result: it must not be sbuf */
        rc = hyt_p2p_copy(a, in, a->count, a->type, a->rbuf, a->count, a->type);
        acc = 0;
    }
    for (int r = 1; r <= rm->m && rc == MPI_SUCCESS; r++)
        rc = round_exchange(c, rm, blk, hyt_rm_spacing(rm, r), &acc);
    if (rc == MPI_SUCCESS && acc != 0)
        rc = hyt_p2p_copy(a, slot_buf(c, acc), a->count, a->type, a->rbuf, a->count, a->type);
    int nr = 0;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++)
        rc = hyt_p2p_isend(a, a->rbuf, a->count, a->type, first + j, &c->req[nr++]);
    int rc2 = hyt_p2p_waitall(nr, c->req);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int hyt_allreduce_recmult(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (p == 1)
        return hyt_p2p_copy(a, in, a->count, a->type, a->rbuf, a->count, a->type);
    hyt_rm_t rm;
    hyt_rm_init(&rm, p, k);
    int blk = hyt_rm_block_of(&rm, me), first = hyt_rm_block_start(&rm, blk);
    if (me != first) { /* member: fold in, then fold out */
        int rc = hyt_p2p_send(a, in, a->count, a->type, first);
        if (rc != MPI_SUCCESS)
            return rc;
        return hyt_p2p_recv(a, a->rbuf, a->count, a->type, first);
    }
    rm_ctx_t c = {.a = a};
    c.req = hyt_pat_reqs(a->ctx, 2 * rm.k);
    if (!c.req || hyt_pat_pool(&c.pool, a->ctx, a->count, a->type, rm.k - 1) != 0)
        return MPI_ERR_NO_MEM;
    return leader(&c, &rm, blk, in);
}
