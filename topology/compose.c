/* Shared steps of the node-aware compositions (algorithms/<coll>/composition.c):
 * node and leader communicators, a temporary buffer, and the inter-node step,
 * which runs the registry's k-nomial kernel with the composition's radix when
 * one is registered, else the MPI library's own collective. */
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

int hyt_compose_inner(hyt_args_t *inner, int k)
{
    const hyt_alg_t *alg = k > 0 ? hyt_alg_find_family(inner->coll, HYT_FAM_KNOMIAL) : NULL;
    if (!alg || !hyt_alg_has_radix(alg))
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
    if (a->coll != HYT_COLL_ALLGATHERV)
        return hyt_compose_inner(&inner, k);
    /* Allgatherv's leaders run recursive multiplying, k < 2 acting as 2 */
    return hyt_run_alg(&inner, hyt_alg_find_family(a->coll, HYT_FAM_RECMULT), k < 2 ? 2 : k, NULL);
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
