/* k-ring Allreduce: k-ring reduce-scatter, then k-ring allgather.
 *
 * Algorithm: the count elements are cut into G*k cells (G = ceil(p/k)
 * groups of k consecutive ranks; cell (g,c) is part c*G + g, so a column is
 * one contiguous range; see algorithms/allgather/kring.c).
 *   1. group rings, reduce-scatter of columns (k-1 steps): afterwards the
 *      member of a group serving column c holds that column summed over
 *      the group;
 *   2. column rings, reduce-scatter of cells (G-1 steps): the rank serving
 *      cell (g,c) holds it summed over all ranks;
 *   3. column rings, allgather of cells (G-1 steps);
 *   4. group rings, allgather of columns (k-1 steps).
 * Cost: 2((G-1) + (k-1)) steps and about 2n(p-1)/p bytes per rank (the
 * ring's bandwidth), with fewer cross-group steps when k = ranks per node.
 * k = 1 and k >= p are the ring (reduce-scatter + allgather).
 * Partial sums travel around rings, so operands are combined out of rank
 * order: the registry flags HYT_ALG_NEEDS_COMMUTATIVE. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_allreduce_kring(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, rc = MPI_SUCCESS;
    if (a->sbuf != MPI_IN_PLACE)
        rc = hyt_p2p_copy(a, a->sbuf, a->count, a->type, a->rbuf, a->count, a->type);
    if (rc != MPI_SUCCESS || p == 1 || a->count == 0)
        return rc;
    MPI_Aint tlb;
    size_t span = hyt_pat_span(a->count, a->type, &tlb);
    char *tmp = hyt_scratch(a->ctx, span);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    hyt_kr_t kr;
    rc = hyt_kr_init(&kr, a, k, a->rbuf, a->count, 0, 0);
    /* tmp mirrors rbuf: element i of tmp is at tmp - true_lb + i*extent */
    kr.tmp = tmp - tlb;
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_group_ring(&kr, 1);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_column_ring(&kr, 1);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_allgather_rings(&kr);
    hyt_kr_free(&kr);
    return rc;
}
