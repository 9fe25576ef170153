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
 * totals; with skewed blocks a round costs its largest range. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

static int range_op(const hyt_args_t *a, int lo, int hi, int peer, int send, MPI_Request *req,
                    MPI_Datatype *dt)
{
    int rc = hyt_pat_vrange(a->rcounts, a->rdispls, lo, hi, a->type, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = send ? hyt_p2p_isend(a, a->rbuf, 1, *dt, peer, req)
              : hyt_p2p_irecv(a, a->rbuf, 1, *dt, peer, req);
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

static int leader(const hyt_args_t *a, const hyt_rm_t *rm, int blk, MPI_Request *req,
                  MPI_Datatype *dt)
{
    int first = hyt_rm_block_start(rm, blk), bsize = hyt_rm_block_size(rm, blk), nr = 0;
    int rc = MPI_SUCCESS;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++, nr++)
        rc = range_op(a, first + j, first + j + 1, first + j, 0, &req[nr], &dt[nr]);
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
            rc = range_op(a, hyt_rm_block_start(rm, blo), hyt_rm_block_start(rm, bhi), dest, 0,
                          &req[nr], &dt[nr]);
            if (rc == MPI_SUCCESS) {
                nr++;
                rc = range_op(a, lo, hi, dest, 1, &req[nr], &dt[nr]);
            }
            if (rc == MPI_SUCCESS)
                nr++;
        }
        rc = finish(nr, req, dt, rc);
    }
    nr = 0;
    for (int j = 1; j < bsize && rc == MPI_SUCCESS; j++, nr++)
        rc = range_op(a, 0, rm->p, first + j, 1, &req[nr], &dt[nr]);
    return finish(nr, req, dt, rc);
}

int hyt_allgatherv_recmult(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    int rc = hyt_allgatherv_own(a, ext);
    if (p == 1 || rc != MPI_SUCCESS)
        return rc;
    hyt_rm_t rm;
    hyt_rm_init(&rm, p, k);
    int n = 2 * rm.k > rm.q + 1 ? 2 * rm.k : rm.q + 1;
    MPI_Request *req = hyt_pat_reqs(a->ctx, n);
    MPI_Datatype *dt = hyt_scratch(a->ctx, (size_t)n * sizeof *dt);
    if (!req || !dt)
        return MPI_ERR_NO_MEM;
    int blk = hyt_rm_block_of(&rm, me), first = hyt_rm_block_start(&rm, blk);
    if (me == first)
        return leader(a, &rm, blk, req, dt);
    rc = range_op(a, me, me + 1, first, 1, &req[0], &dt[0]);
    rc = finish(rc == MPI_SUCCESS, req, dt, rc);
    if (rc == MPI_SUCCESS)
        rc = range_op(a, 0, p, first, 0, &req[0], &dt[0]);
    return finish(rc == MPI_SUCCESS, req, dt, rc);
}
