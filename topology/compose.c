/* Shared steps of the node-aware compositions (algorithms/<coll>/composition.c):
 * node and leader communicators, a temporary buffer, and the inter-node step,
 * which runs the registry's inner kernel of the collective (hyt_alg_inner)
 * with the composition's radix k when k > 0, else the MPI library's own
 * collective. */
#include "topology/topology.h"

int hyt_compose_setup(hyt_comm_t *ctx)
{
    return hyt_comm_node_split(ctx);
}

void *hyt_compose_tmp(hyt_comm_t *ctx, int count, MPI_Datatype type)
{
    MPI_Aint lb, extent, tlb, textent;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    size_t n = count > 0 ? (size_t)textent + (size_t)(count - 1) * (size_t)extent : 1;
    char *p = hyt_scratch(ctx, n);
    return p ? p - tlb : NULL;
}

const hyt_alg_t *hyt_compose_kernel(hyt_coll_t c, int k)
{
    const hyt_alg_t *alg = k > 0 ? hyt_alg_inner(c) : NULL;
    return alg && hyt_alg_has_radix(alg) ? alg : NULL;
}

int hyt_compose_inner(hyt_args_t *inner, int k)
{
    const hyt_alg_t *alg = hyt_compose_kernel(inner->coll, k);
    if (!alg)
        return hyt_pmpi_call(inner);
    inner->ctx = NULL; /* the leaders' own context */
    inner->bytes = 0;
    inner->ctx = hyt_comm_get(inner->comm);
    if (inner->ctx)
        inner->bytes = hyt_selection_bytes(inner);
    return hyt_run_alg(inner, alg, k, NULL);
}

int hyt_compose_whole(const hyt_args_t *a, int k)
{
    hyt_args_t inner = *a;
    return hyt_compose_inner(&inner, k);
}

int hyt_compose_order_ok(const hyt_args_t *a)
{
    const hyt_comm_t *ctx = a->ctx;
    if (hyt_op_is_commutative(a->op) || ctx->node_consecutive)
        return 1;
    /* nodes are numbered by first appearance: consecutive iff never decreasing */
    for (int i = 1; i < ctx->size; i++)
        if (ctx->node_of[i] < ctx->node_of[i - 1])
            return 0;
    return 1;
}

int hyt_compose_node_rank_of(const hyt_comm_t *ctx, int rank)
{
    int n = 0, node = ctx->node_of[rank];
    for (int i = 0; i < rank; i++)
        n += ctx->node_of[i] == node;
    return n;
}
