/* Reduce, node-aware composition.
 *
 * Algorithm (any root):
 *   1. intra-node reduce to each node leader (lowest rank of the node);
 *   2. reduce among the node leaders to the root node's leader: the only
 *      network step (k-nomial kernel with radix k when registered and k > 0,
 *      else the MPI library's);
 *   3. if the root is not its node's leader, the leader forwards the result
 *      over shared memory.
 * Operand order: with node-consecutive ranks, node blocks reduced in node
 * order is MPI's canonical order, so non-commutative ops are exact;
 * otherwise the call is declined before any communication. */
#include "algorithms/algorithms.h"
#include "topology/topology.h"

/* Step 1: the node's partial result lands in acc at the leader. */
static int reduce_node(const hyt_args_t *a, int is_root, void *acc)
{
    hyt_comm_t *ctx = a->ctx;
    const void *in = is_root && a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (ctx->node_rank != 0)
        return PMPI_Reduce(in, NULL, a->count, a->type, a->op, 0, ctx->node_comm);
    /* a root that is its node's leader reduces straight into its rbuf */
    const void *s = is_root && a->sbuf == MPI_IN_PLACE ? MPI_IN_PLACE : in;
    return PMPI_Reduce(s, acc, a->count, a->type, a->op, 0, ctx->node_comm);
}

/* Rank (in the communicator) of the leader of node `node`: its lowest rank. */
static int node_leader(const hyt_comm_t *ctx, int node)
{
    int r = 0;
    while (ctx->node_of[r] != node)
        r++;
    return r;
}

int hyt_reduce_composition(const hyt_args_t *a, int k)
{
    hyt_comm_t *ctx = a->ctx;
    if (hyt_compose_flat(ctx))
        return hyt_compose_whole(a, k);
    if (!hyt_compose_order_ok(a))
        return HYT_UNSUPPORTED;
    int rc = hyt_compose_setup(ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    int is_root = ctx->rank == a->root, leader = ctx->node_rank == 0;
    int root_node = ctx->node_of[a->root], root_nr = hyt_compose_node_rank_of(ctx, a->root);
    void *acc = NULL;
    if (leader)
        acc = is_root ? a->rbuf : hyt_compose_tmp(ctx, a->count, a->type);
    if (leader && !acc)
        return MPI_ERR_NO_MEM;
    rc = reduce_node(a, is_root, acc);
    if (rc == MPI_SUCCESS && leader && ctx->nodes > 1) {
        int mine = ctx->my_node == root_node;
        hyt_args_t inner = {.coll = HYT_COLL_REDUCE, .sbuf = mine ? MPI_IN_PLACE : acc,
                            .rbuf = mine ? acc : NULL, .count = a->count, .type = a->type,
                            .op = a->op, .root = root_node, .comm = ctx->leader_comm};
        rc = hyt_compose_inner(&inner, k);
    }
    if (rc != MPI_SUCCESS || root_nr == 0 || ctx->my_node != root_node)
        return rc;
    if (leader)
        return hyt_p2p_send(a, acc, a->count, a->type, a->root);
    if (is_root)
        return hyt_p2p_recv(a, a->rbuf, a->count, a->type, node_leader(ctx, root_node));
    return MPI_SUCCESS;
}
