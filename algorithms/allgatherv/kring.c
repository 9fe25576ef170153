/* Allgatherv, k-ring.
 *
 * Algorithm: the k-ring Allgather (algorithms/allgather/kring.c) over the
 * ranks' blocks at their displacements: G = ceil(p/k) groups of k
 * consecutive ranks; first a ring along every column (the ranks at the same
 * place of each group, G-1 steps, the k columns at once), each step one
 * rank's block, then a ring inside every group (k-1 steps) whose unit is a
 * whole column: the blocks of ranks c, c+k, c+2k, ... as one indexed type.
 * Blocks stay in place in the receive buffer, so displacements in any
 * order, gaps, zero counts (an empty block or column is not sent: counts
 * are alike on every rank) and in place need nothing more.
 * Cost (G-1) + (k-1) steps instead of the ring's p-1, every rank sending
 * and receiving the total minus its own block; with k = ranks per node a
 * column step crosses the network through all of a node's ranks at once and
 * a group step stays in the node.  k = 1 and k >= p are the ring. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_allgatherv_kring(const hyt_args_t *a, int k)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    int rc = hyt_allgatherv_own(a, ext);
    if (rc != MPI_SUCCESS || a->ctx->size == 1)
        return rc;
    hyt_kr_t kr;
    rc = hyt_kr_init_v(&kr, a, k);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_allgather_rings(&kr);
    hyt_kr_free(&kr);
    return rc;
}
