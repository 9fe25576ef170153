/* Allgatherv, ring.
 *
 * Algorithm: a rank first puts its own block in place (unless in place),
 * then in step s = 0..p-2 passes block rank - s to rank + 1 and receives
 * block rank - s - 1 from rank - 1, each block straight from and into its
 * place in the receive buffer (recvcounts[i] elements at displs[i]), so
 * displacements in any order, gaps and zero counts need nothing special.
 * Cost p-1 steps; every rank sends and receives the total minus its own
 * block once, whatever the skew of the block sizes: the bandwidth-optimal
 * choice for large totals, no radix. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

/* Own block into its place (nothing in place).  Shared by the Allgatherv
 * kernels. */
int hyt_allgatherv_own(const hyt_args_t *a, MPI_Aint ext)
{
    int me = a->ctx->rank;
    if (a->sbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return hyt_p2p_copy(a, a->sbuf, a->scount, a->stype,
                        (char *)a->rbuf + (MPI_Aint)a->rdispls[me] * ext, a->rcounts[me],
                        a->type);
}

int hyt_allgatherv_ring(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size, me = a->ctx->rank;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    int rc = hyt_allgatherv_own(a, ext), right = (me + 1) % p, left = (me - 1 + p) % p;
    char *rb = a->rbuf;
    for (int s = 0; s < p - 1 && rc == MPI_SUCCESS; s++) {
        int out = (me - s + p) % p, in = (me - s - 1 + p) % p;
        rc = hyt_p2p_sendrecv(a, rb + (MPI_Aint)a->rdispls[out] * ext, a->rcounts[out], a->type,
                              right, rb + (MPI_Aint)a->rdispls[in] * ext, a->rcounts[in],
                              a->type, left);
    }
    return rc;
}
