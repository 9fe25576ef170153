/* k-ring Bcast: scatter from the root, then the k-ring allgather.
 *
 * Algorithm: the count elements are cut into G*k cells (G = ceil(p/k)
 * groups of k consecutive ranks, cells in column-major order so a column is
 * one contiguous range; see algorithms/allgather/kring.c).  The root sends
 * every cell straight to the rank serving it (all sends posted at once: one
 * round, n bytes leave the root), then the column rings (G-1 steps, one
 * cell per step, all columns in parallel) and the group rings (k-1 steps,
 * one column per step) rebuild the whole buffer everywhere.
 * Cost: about 1 + (G-1) + (k-1) rounds and 2n bytes per rank for large n;
 * the bandwidth term is the same as scatter + ring allgather, and k trades
 * cross-group steps (G-1) for in-group steps (k-1): k = ranks per node keeps
 * the k-1 steps inside a node.  k = 1 and k >= p are scatter + ring. */
#include "algorithms/algorithms.h"

int hyt_bcast_kring(const hyt_args_t *a, int k)
{
    int p = a->ctx->size;
    if (p == 1 || a->count == 0)
        return MPI_SUCCESS;
    hyt_kr_t kr;
    int kk = k < 1 ? 1 : (k > p ? p : k);
    int cells = ((p + kk - 1) / kk) * kk;
    int rc = hyt_kr_init(&kr, a, k, a->rbuf, a->count, 0, cells + 1);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_scatter(&kr, a->root);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_allgather_rings(&kr);
    hyt_kr_free(&kr);
    return rc;
}
