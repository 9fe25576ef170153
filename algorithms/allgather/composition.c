/* Allgather, node-aware composition.
 *
 * Algorithm (node-consecutive ranks, uniform ppn: node n holds ranks
 * n*ppn .. n*ppn+ppn-1, so its blocks are one contiguous node block):
 *   1. intra-node gather of the ppn blocks into the node block of the
 *      leader's receive buffer;
 *   2. allgather of node blocks (ppn*count elements) among the node leaders:
 *      the only network step (k-nomial kernel with radix k when registered
 *      and k > 0, else the MPI library's);
 *   3. intra-node broadcast of the whole result from the leader.
 * Other layouts are refused by the registry flag and run by PMPI. */
#include "algorithms/algorithms.h"
#include "topology/topology.h"

#include <limits.h>

int hyt_allgather_composition(const hyt_args_t *a, int k)
{
    hyt_comm_t *ctx = a->ctx;
    if (hyt_compose_flat(ctx))
        return hyt_compose_whole(a, k);
    /* same on every rank: recvcount and the shape are */
    if ((long long)a->count * ctx->size > INT_MAX)
        return HYT_UNSUPPORTED;
    int rc = hyt_compose_setup(ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    int ppn = ctx->ppn, leader = ctx->node_rank == 0;
    char *rbuf = a->rbuf;
    char *node_block = rbuf + (MPI_Aint)ctx->my_node * ppn * a->count * ext;
    if (a->sbuf != MPI_IN_PLACE)
        rc = PMPI_Gather(a->sbuf, a->scount, a->stype, node_block, a->count, a->type, 0,
                         ctx->node_comm);
    else if (leader)
        rc = PMPI_Gather(MPI_IN_PLACE, a->count, a->type, node_block, a->count, a->type, 0,
                         ctx->node_comm);
    else /* my block already sits at my place in rbuf */
        rc = PMPI_Gather(rbuf + (MPI_Aint)ctx->rank * a->count * ext, a->count, a->type, NULL,
                         a->count, a->type, 0, ctx->node_comm);
    if (rc == MPI_SUCCESS && leader && ctx->nodes > 1) {
        hyt_args_t inner = {.coll = HYT_COLL_ALLGATHER, .sbuf = MPI_IN_PLACE, .scount = 0,
                            .stype = MPI_DATATYPE_NULL, .rbuf = a->rbuf,
                            .count = ppn * a->count, .type = a->type, .comm = ctx->leader_comm};
        rc = hyt_compose_inner(&inner, k);
    }
    if (rc == MPI_SUCCESS && ppn > 1)
        rc = PMPI_Bcast(a->rbuf, ctx->size * a->count, a->type, 0, ctx->node_comm);
    return rc;
}
