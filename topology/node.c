/* World node map: which node every world rank runs on.
 *
 * Ranks sharing memory (MPI_Comm_split_type SHARED; a simulated host under
 * SimGrid) form a node; a node is named by the smallest world rank on it and
 * numbered by first appearance.  Built once at init with one allgather; every
 * communicator's node model is then derived locally (src/comm.c). */
#include "topology/topology.h"

#include <stdio.h>
#include <stdlib.h>

int hyt_world_size, hyt_world_rank;
int *hyt_world_node_of;
int hyt_world_nodes;

int hyt_topo_init(void)
{
    MPI_Comm shm;
    int rc;
    PMPI_Comm_size(MPI_COMM_WORLD, &hyt_world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &hyt_world_rank);
    /* SimGrid computes the split from the ranks that reached it: line them up first */
    PMPI_Barrier(MPI_COMM_WORLD);
    rc = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS)
        return rc;
    int leader = hyt_world_rank, mine;
    PMPI_Allreduce(&leader, &mine, 1, MPI_INT, MPI_MIN, shm);
    PMPI_Comm_free(&shm);
    int *leaders = malloc((size_t)hyt_world_size * sizeof *leaders);
    hyt_world_node_of = malloc((size_t)hyt_world_size * sizeof *hyt_world_node_of);
    int *index = malloc((size_t)hyt_world_size * sizeof *index);
    if (!leaders || !hyt_world_node_of || !index) {
        free(leaders);
        free(index);
        free(hyt_world_node_of);
        hyt_world_node_of = NULL;
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Allgather(&mine, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < hyt_world_size; i++)
        index[i] = -1;
    hyt_world_nodes = 0;
    for (int i = 0; i < hyt_world_size; i++) {
        int l = leaders[i];
        if (index[l] < 0)
            index[l] = hyt_world_nodes++;
        hyt_world_node_of[i] = index[l];
    }
    free(leaders);
    free(index);
    return rc;
}

void hyt_topo_finalize(void)
{
    free(hyt_world_node_of);
    hyt_world_node_of = NULL;
}

/* `hytune topo`: print the node model of MPI_COMM_WORLD (out NULL: compute only). */
int hyt_topo_print(FILE *out)
{
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    if (!out)
        return 0;
    if (!ctx) {
        fprintf(out, "hytune topo: hytune is off (HYTUNE_MODE=off); no node model\n");
        return 1;
    }
    fprintf(out, "ranks %d, nodes %d, ppn %d%s, node-consecutive %s\n", ctx->size, ctx->nodes,
            ctx->ppn, ctx->ppn != ctx->ppn_min ? " (not uniform)" : "",
            ctx->node_consecutive ? "yes" : "no");
    return 0;
}

/* Initial priors; topology/prior.c refines them. */
int hyt_topo_prior_k(const hyt_alg_t *alg, const hyt_comm_t *ctx, size_t bytes)
{
    (void)bytes;
    if (!hyt_alg_has_radix(alg))
        return 0;
    int k = alg->k_min > 2 ? alg->k_min : 2;
    int kmax = hyt_alg_k_max(alg, ctx->size);
    return k < kmax ? k : kmax;
}

int hyt_topo_node_group(int world_node)
{
    return world_node;
}

int hyt_topo_ngroups(void)
{
    return hyt_world_nodes;
}

int hyt_topo_ports(void)
{
    return 1;
}
