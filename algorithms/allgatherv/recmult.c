/* Allgatherv, recursive multiplying with displacements.
 *
 * Algorithm (algorithms/pattern.h, hyt_rm_*): the schedule of the
 * recursive-multiplying Allgather.  p' = k^m is the largest power of k <= p;
 * the ranks form p' contiguous blocks of 1..k ranks whose members send
 * their block to the block's first rank (fold in).  In round r = 1..m every
 * leader sends the range of ranks it holds to the k-1 other leaders of its
 * group and receives theirs; leaders then send all p blocks to their
 * members (fold out).  A range of ranks is one message: an indexed datatype
 * over the recvcounts and displs of those ranks (hyt_pat_vrange), so the
 * blocks stay in place whatever their order, gaps and sizes.
 * Cost m = floor(log_k p) rounds (+2 when p is not a power of k) of k-1
 * concurrent messages, against p-1 steps for the ring: the choice for small
 * totals; with skewed blocks a round costs its largest range.
 *
 * The exchange runs over units (hyt_agv_units_t): here one unit per rank;
 * the node-aware composition (composition.c) runs it over one unit per
 * node, each unit the blocks of that node's ranks, between the node leaders. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

/* Entry index of unit i (the start of its blocks) and the rank of unit i. */
static int entry(const hyt_agv_units_t *u, int i)
{
    return u->start ? u->start[i] : i;
}

static int rank_of(const hyt_agv_units_t *u, int i)
{
    return u->rank ? u->rank[i] : i;
}

/* Send or receive the blocks of units lo..hi-1 to or from unit peer. */
static int range_op(const hyt_args_t *a, const hyt_agv_units_t *u, int lo, int hi, int peer,
                    int send, MPI_Request *req, MPI_Datatype *dt)
{
    int rc = hyt_pat_vrange(u->counts, u->displs, entry(u, lo), entry(u, hi), a->type, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    int to = rank_of(u, peer);
    rc = send ? hyt_p2p_isend(a, a->rbuf, 1, *dt, to, req)
              : hyt_p2p_irecv(a, a->rbuf, 1, *dt, to, req);
    if (rc != MPI_SUCCESS)
        PMPI_Type_free(dt);
    return rc;
}

/* Wait for nr requests and free the nr datatypes behind them. */
static int finish(int nr, MPI_Request *req, MPI_Datatype *dt, int rc)
{
    int rc2 = hyt_p2p_waitall(nr, req);
    for (int i = 0; i < nr; i++)
        PMPI_Type_free(&dt[i]);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int leader(const hyt_args_t *a, const hyt_agv_units_t *u, const hyt_rm_t *rm, int blk,
                  MPI_Request *req, MPI_Datatype *dt)
{
    int first = hyt_rm_block_start(rm, blk), bsize = hyt_rm_block_size(rm, blk), nr = 0;
    int rc = MPI_SUCCESS;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++, nr++)
        rc = range_op(a, u, first + j, first + j + 1, first + j, 0, &req[nr], &dt[nr]);
    rc = finish(nr, req, dt, rc);
    for (int r = 1; r <= rm->m && rc == MPI_SUCCESS; r++) {
        int s = hyt_rm_spacing(rm, r), d = hyt_rm_digit(rm, blk, s), blo, bhi;
        hyt_rm_cover(blk, s, &blo, &bhi);
        int lo = hyt_rm_block_start(rm, blo), hi = hyt_rm_block_start(rm, bhi);
        nr = 0;
        for (int j = 0; j < rm->k && rc == MPI_SUCCESS; j++) {
            if (j == d)
                continue;
            int peer = hyt_rm_peer(rm, blk, s, j), dest = hyt_rm_block_start(rm, peer);
            hyt_rm_cover(peer, s, &blo, &bhi);
            rc = range_op(a, u, hyt_rm_block_start(rm, blo), hyt_rm_block_start(rm, bhi), dest,
                          0, &req[nr], &dt[nr]);
            if (rc == MPI_SUCCESS) {
                nr++;
                rc = range_op(a, u, lo, hi, dest, 1, &req[nr], &dt[nr]);
            }
            if (rc == MPI_SUCCESS)
                nr++;
        }
        rc = finish(nr, req, dt, rc);
    }
    nr = 0;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++, nr++)
        rc = range_op(a, u, 0, rm->p, first + j, 1, &req[nr], &dt[nr]);
    return finish(nr, req, dt, rc);
}

int hyt_agv_rm_slots(int n, int k)
{
    hyt_rm_t rm;
    hyt_rm_init(&rm, n, k);
    return 2 * rm.k > rm.q + 1 ? 2 * rm.k : rm.q + 1;
}

int hyt_agv_rm_units(const hyt_args_t *a, const hyt_agv_units_t *u, int me, int k,
                     MPI_Datatype *dt)
{
    if (u->n <= 1)
        return MPI_SUCCESS;
    hyt_rm_t rm;
    hyt_rm_init(&rm, u->n, k);
    MPI_Request *req = hyt_pat_reqs(a->ctx, hyt_agv_rm_slots(u->n, k));
    if (!req)
        return MPI_ERR_NO_MEM;
    int blk = hyt_rm_block_of(&rm, me), first = hyt_rm_block_start(&rm, blk);
    if (me == first)
        return leader(a, u, &rm, blk, req, dt);
    int rc = range_op(a, u, me, me + 1, first, 1, &req[0], &dt[0]);
    rc = finish(rc == MPI_SUCCESS, req, dt, rc);
    if (rc == MPI_SUCCESS)
        rc = range_op(a, u, 0, u->n, first, 0, &req[0], &dt[0]);
    return finish(rc == MPI_SUCCESS, req, dt, rc);
}

int hyt_allgatherv_recmult(const hyt_args_t *a, int k)
{
    int p = a->ctx->size;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    int rc = hyt_allgatherv_own(a, ext);
    if (p == 1 || rc != MPI_SUCCESS)
        return rc;
    MPI_Datatype *dt = hyt_scratch(a->ctx, (size_t)hyt_agv_rm_slots(p, k) * sizeof *dt);
    if (!dt)
        return MPI_ERR_NO_MEM;
    hyt_agv_units_t u = {a->rcounts, a->rdispls, NULL, NULL, p};
    return hyt_agv_rm_units(a, &u, a->ctx->rank, k, dt);
}
