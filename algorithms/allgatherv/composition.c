/* Allgatherv, node-aware composition.
 *
 * Algorithm (any layout of ranks on nodes, any ppn):
 *   1. intra-node gatherv of the node's blocks to the node leader (lowest
 *      rank of the node), straight into their places in its receive buffer;
 *   2. among the node leaders, the inter-node step of every composition
 *      (topology/compose.c, hyt_compose_kernel): for k > 0 the
 *      recursive-multiplying exchange of algorithms/allgatherv/recmult.c
 *      with radix k over one unit per node, a range of nodes one message (an
 *      indexed type over the blocks of those nodes' ranks), ceil(log_k
 *      nodes) rounds (k = 1 acts as 2); for k <= 0 the MPI library's own:
 *      one Bcast per node of its blocks from its leader.  The only network
 *      step, one rank per node;
 *   3. intra-node broadcast of all p blocks (one indexed type) from the
 *      leader.
 * Blocks never leave their displacements, so gaps, any order, zero counts,
 * in place and derived types need nothing more.  Helps when the network is
 * much slower than shared memory: nodes-1 network partners instead of p-1. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"
#include "topology/topology.h"

/* Ranks sorted by node (stable): their counts oc and displacements od, the
 * first entry of each node (start, nodes + 1 entries) and each node's
 * leader (lead). */
static void by_node(const hyt_args_t *a, int *oc, int *od, int *start, int *lead)
{
    const hyt_comm_t *ctx = a->ctx;
    int p = ctx->size, nodes = ctx->nodes;
    for (int n = 0; n <= nodes; n++)
        start[n] = 0;
    for (int i = 0; i < p; i++)
        start[ctx->node_of[i] + 1]++;
    for (int n = 0; n < nodes; n++) {
        start[n + 1] += start[n];
        lead[n] = start[n]; /* the next free entry of node n */
    }
    for (int i = 0; i < p; i++) {
        int j = lead[ctx->node_of[i]]++;
        oc[j] = a->rcounts[i];
        od[j] = a->rdispls[i];
    }
    for (int i = p - 1; i >= 0; i--)
        lead[ctx->node_of[i]] = i;
}

/* Bytes of hyt_scratch the composition takes on p ranks over `nodes` nodes. */
static size_t area_bytes(int p, int nodes, int k, size_t *dbytes)
{
    *dbytes = ((size_t)hyt_agv_rm_slots(nodes, k) * sizeof(MPI_Datatype) + 63) & ~(size_t)63;
    return *dbytes + (2 * (size_t)p + 2 * (size_t)nodes + 1) * sizeof(int);
}

size_t hyt_agv_composition_bytes(int p, int nodes, int k)
{
    size_t d;
    return area_bytes(p, nodes, k, &d);
}

/* The leaders' step with the MPI library's own collective: node n's blocks
 * (one indexed type over the receive buffer) broadcast from leader n, which
 * is rank n of the leader communicator (ranked by node). */
static int leaders_native(const hyt_args_t *a, const int *oc, const int *od, const int *start,
                          MPI_Datatype *dt)
{
    const hyt_comm_t *ctx = a->ctx;
    int rc = MPI_SUCCESS;
    for (int n = 0; n < ctx->nodes && rc == MPI_SUCCESS; n++) {
        rc = hyt_pat_vrange(oc, od, start[n], start[n + 1], a->type, dt);
        if (rc != MPI_SUCCESS)
            break;
        rc = PMPI_Bcast(a->rbuf, 1, *dt, n, ctx->leader_comm);
        PMPI_Type_free(dt);
    }
    return rc;
}

int hyt_allgatherv_composition(const hyt_args_t *a, int k)
{
    hyt_comm_t *ctx = a->ctx;
    if (hyt_compose_flat(ctx))
        return hyt_compose_whole(a, k);
    int p = ctx->size, me = ctx->rank, nodes = ctx->nodes, leader = ctx->node_rank == 0;
    int rc = hyt_compose_setup(ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t dbytes;
    char *area = hyt_scratch(ctx, area_bytes(p, nodes, k, &dbytes));
    if (!area)
        return MPI_ERR_NO_MEM;
    MPI_Datatype *dt = (MPI_Datatype *)(void *)area;
    int *oc = (int *)(void *)(area + dbytes), *od = oc + p, *start = od + p, *lead = start + nodes + 1;
    by_node(a, oc, od, start, lead);
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    int nsize = start[ctx->my_node + 1] - start[ctx->my_node];
    char *rb = a->rbuf;
    if (leader)
        rc = hyt_allgatherv_own(a, ext);
    if (rc == MPI_SUCCESS && nsize > 1) {
        if (leader)
            rc = PMPI_Gatherv(MPI_IN_PLACE, 0, a->type, rb, oc + start[ctx->my_node],
                              od + start[ctx->my_node], a->type, 0, ctx->node_comm);
        else if (a->sbuf == MPI_IN_PLACE)
            rc = PMPI_Gatherv(rb + (MPI_Aint)a->rdispls[me] * ext, a->rcounts[me], a->type, rb,
                              oc + start[ctx->my_node], od + start[ctx->my_node], a->type, 0,
                              ctx->node_comm);
        else
            rc = PMPI_Gatherv(a->sbuf, a->scount, a->stype, rb, oc + start[ctx->my_node],
                              od + start[ctx->my_node], a->type, 0, ctx->node_comm);
    }
    if (rc == MPI_SUCCESS && leader && nodes > 1) {
        if (hyt_compose_kernel(a->coll, k)) {
            hyt_agv_units_t u = {oc, od, start, lead, nodes};
            rc = hyt_agv_rm_units(a, &u, ctx->my_node, k, dt);
        } else {
            rc = leaders_native(a, oc, od, start, dt);
        }
    }
    if (rc != MPI_SUCCESS || nsize == 1 || a->bytes == 0) /* bytes: the total, alike */
        return rc;
    MPI_Datatype all;
    rc = hyt_pat_vrange(a->rcounts, a->rdispls, 0, p, a->type, &all);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Bcast(rb, 1, all, 0, ctx->node_comm);
    PMPI_Type_free(&all);
    return rc;
}
