/* Bcast, node-aware composition.
 *
 * Algorithm (any root):
 *   1. on the root's node: intra-node broadcast from the root, which hands
 *      the data to the node leader (lowest rank of the node) over shared
 *      memory and finishes that node at once;
 *   2. broadcast among the node leaders from the root node's leader: the only
 *      network step, one rank per node (k-nomial kernel with radix k when
 *      registered and k > 0, else the MPI library's);
 *   3. on every other node: intra-node broadcast from the leader.
 * Helps when the network is much slower than shared memory: nodes-1 network
 * transfers instead of a tree over all p ranks crossing nodes repeatedly. */
#include "algorithms/algorithms.h"
#include "topology/topology.h"

int hyt_bcast_composition(const hyt_args_t *a, int k)
{
    hyt_comm_t *ctx = a->ctx;
    if (hyt_compose_flat(ctx))
        return hyt_compose_whole(a, k);
    int rc = hyt_compose_setup(ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    int root_node = ctx->node_of[a->root], nsize;
    int on_root_node = ctx->my_node == root_node;
    PMPI_Comm_size(ctx->node_comm, &nsize);
    if (on_root_node && nsize > 1)
        rc = PMPI_Bcast(a->rbuf, a->count, a->type, hyt_compose_node_rank_of(ctx, a->root),
                        ctx->node_comm);
    if (rc == MPI_SUCCESS && ctx->node_rank == 0 && ctx->nodes > 1) {
        /* leader_comm ranks follow the node index (split key = my_node) */
        hyt_args_t inner = {.coll = HYT_COLL_BCAST, .rbuf = a->rbuf, .count = a->count,
                            .type = a->type, .root = root_node, .comm = ctx->leader_comm};
        rc = hyt_compose_inner(&inner, k);
    }
    if (rc == MPI_SUCCESS && !on_root_node && nsize > 1)
        rc = PMPI_Bcast(a->rbuf, a->count, a->type, 0, ctx->node_comm);
    return rc;
}
