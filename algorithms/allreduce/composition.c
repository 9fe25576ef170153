/* Allreduce, node-aware composition (MPICH's "composition alpha").
 *
 * Algorithm:
 *   1. intra-node reduce to the node leader (lowest rank of the node), over
 *      shared memory;
 *   2. allreduce among the node leaders: the only step that crosses the
 *      network, one rank per node, so its message count is that of a
 *      p/ppn-rank allreduce (k-nomial kernel with radix k when registered and
 *      k > 0, else the MPI library's);
 *   3. intra-node broadcast from the leader.
 * Helps when intra-node links are much faster than the network and ppn is
 * large: the network carries nodes-1 instead of p-1 partners' traffic.
 * Operand order: with node-consecutive ranks, reducing each node's block then
 * the blocks in node order is MPI's canonical order, so non-commutative ops
 * are exact; otherwise the call is declined before any communication. */
#include "algorithms/algorithms.h"
#include "topology/topology.h"

int hyt_allreduce_composition(const hyt_args_t *a, int k)
{
    hyt_comm_t *ctx = a->ctx;
    if (hyt_compose_flat(ctx))
        return hyt_compose_whole(a, k);
    if (!hyt_compose_order_ok(a))
        return HYT_UNSUPPORTED;
    int rc = hyt_compose_setup(ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    int leader = ctx->node_rank == 0, nsize;
    PMPI_Comm_size(ctx->node_comm, &nsize);
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (leader)
        rc = PMPI_Reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, 0, ctx->node_comm);
    else
        rc = PMPI_Reduce(in, NULL, a->count, a->type, a->op, 0, ctx->node_comm);
    if (rc == MPI_SUCCESS && leader && ctx->nodes > 1) {
        hyt_args_t inner = {.coll = HYT_COLL_ALLREDUCE, .sbuf = MPI_IN_PLACE, .rbuf = a->rbuf,
                            .count = a->count, .type = a->type, .op = a->op,
                            .comm = ctx->leader_comm};
        rc = hyt_compose_inner(&inner, k);
    }
    if (rc == MPI_SUCCESS && nsize > 1)
        rc = PMPI_Bcast(a->rbuf, a->count, a->type, 0, ctx->node_comm);
    return rc;
}
