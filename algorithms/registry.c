/* The algorithm registry: one table drives dispatch, name parsing, the tuner's
 * candidate set, `hytune list` and the test matrix. */
#include "algorithms/algorithms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NATIVE_ROW(U, l, M, P)                                                                 \
    {.name = "native", .coll = HYT_COLL_##U, .fn = hyt_native, .flags = HYT_ALG_NATIVE,    \
     .family = HYT_FAM_NATIVE, .scratch = hyt_need_native,                                  \
     .desc = "the MPI library's own selection (PMPI_" #M ")"},

/* Rows are grouped by family; the native rows must stay first, in
 * collective order (hyt_alg_native relies on it). */
const hyt_alg_t hyt_algs[] = {
    HYT_COLL_LIST(NATIVE_ROW)
    /* ---- k-nomial tree and recursive multiplying ---- */
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_BCAST, .fn = hyt_bcast_knomial, .k_min = 2,
     .scratch = hyt_need_kn_tree,
     .k_max = HYT_K_P, .desc = "k-nomial tree from the root (k=2: binomial, k>=p: flat)"},
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_REDUCE, .fn = hyt_reduce_knomial, .k_min = 2,
     .scratch = hyt_need_pool,
     .k_max = HYT_K_P, .desc = "k-nomial tree to the root in rank order (k=2: binomial)"},
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_ALLGATHER, .fn = hyt_allgather_knomial, .k_min = 2,
     .scratch = hyt_need_kn_tree,
     .k_max = HYT_K_P, .desc = "k-nomial gather to rank 0, then k-nomial bcast"},
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_ALLREDUCE, .fn = hyt_allreduce_knomial, .k_min = 2,
     .scratch = hyt_need_pool,
     .k_max = HYT_K_P, .desc = "k-nomial reduce to rank 0, then k-nomial bcast"},
    {.name = "recmult", .family = HYT_FAM_RECMULT, .prior = HYT_PRIOR_PORTS,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_ALLREDUCE, .fn = hyt_allreduce_recmult, .k_min = 2,
     .scratch = hyt_need_pool,
     .k_max = HYT_K_P, .desc = "recursive multiplying: log_k p rounds of k-way exchange "
     "(k=2: recursive doubling)"},
    {.name = "recmult", .family = HYT_FAM_RECMULT, .prior = HYT_PRIOR_PORTS,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_ALLGATHER, .fn = hyt_allgather_recmult, .k_min = 2,
     .scratch = hyt_need_rm,
     .k_max = HYT_K_P, .desc = "recursive multiplying: log_k p rounds of k-way exchange "
     "(k=2: recursive doubling)"},
    {.name = "recmult", .family = HYT_FAM_RECMULT, .prior = HYT_PRIOR_PORTS,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_BCAST, .fn = hyt_bcast_recmult, .k_min = 2,
     .scratch = hyt_need_bcast_recmult,
     .k_max = HYT_K_P, .desc = "k-ary scatter, then recursive-multiplying allgather"},
    /* ---- k-ring ---- */
    {.name = "kring", .family = HYT_FAM_KRING, .prior = HYT_PRIOR_PPN,
     .coll = HYT_COLL_ALLGATHER, .fn = hyt_allgather_kring, .k_min = 1,
     .scratch = hyt_need_kring,
     .k_max = HYT_K_P, .desc = "k-ring: column rings across groups of k ranks, then rings "
     "inside groups (k=1: ring)"},
    {.name = "kring", .family = HYT_FAM_KRING, .prior = HYT_PRIOR_PPN,
     .coll = HYT_COLL_BCAST, .fn = hyt_bcast_kring, .k_min = 1,
     .scratch = hyt_need_bcast_kring,
     .k_max = HYT_K_P, .desc = "scatter from the root, then the k-ring allgather (k=1: "
     "scatter + ring)"},
    {.name = "kring", .family = HYT_FAM_KRING, .prior = HYT_PRIOR_PPN,
     .coll = HYT_COLL_ALLREDUCE, .fn = hyt_allreduce_kring, .k_min = 1,
     .scratch = hyt_need_allreduce_kring,
     .k_max = HYT_K_P, .flags = HYT_ALG_NEEDS_COMMUTATIVE, .desc = "k-ring reduce-scatter "
     "then k-ring allgather (k=1: ring)"},
    /* ---- classic baselines (Rabenseifner, Bruck, pairwise, recursive halving) ---- */
    {.name = "rabenseifner", .family = HYT_FAM_RABENSEIFNER,
     .coll = HYT_COLL_ALLREDUCE, .fn = hyt_allreduce_rabenseifner,
     .scratch = hyt_need_rabenseifner,
     .desc = "recursive-halving reduce-scatter + recursive-doubling allgather (rank order)"},
    {.name = "rabenseifner", .family = HYT_FAM_RABENSEIFNER,
     .coll = HYT_COLL_REDUCE, .fn = hyt_reduce_rabenseifner,
     .scratch = hyt_need_rabenseifner,
     .desc = "recursive-halving reduce-scatter + binomial gather to the root (rank order)"},
    {.name = "kbruck", .family = HYT_FAM_KBRUCK, .prior = HYT_PRIOR_EXCHANGE,
     .coll = HYT_COLL_ALLGATHER, .fn = hyt_allgather_kbruck, .k_min = 2,
     .scratch = hyt_need_allgather_kbruck,
     .k_max = HYT_K_P, .desc = "k-port Bruck: ceil(log_k p) rounds of k-1 messages (k=2: "
     "Bruck)"},
    {.name = "kbruck", .family = HYT_FAM_KBRUCK, .prior = HYT_PRIOR_EXCHANGE,
     .coll = HYT_COLL_ALLTOALL, .fn = hyt_alltoall_kbruck, .k_min = 2,
     .scratch = hyt_need_alltoall_kbruck,
     .k_max = HYT_K_P, .desc = "k-port Bruck: one round per base-k digit, k-1 packed "
     "messages each (k=2: Bruck)"},
    {.name = "pairwise", .family = HYT_FAM_PAIRWISE,
     .coll = HYT_COLL_ALLTOALL, .fn = hyt_alltoall_pairwise,
     .scratch = hyt_need_alltoall_pairwise,
     .desc = "p-1 pairwise exchange steps (send to rank+i, receive from rank-i)"},
    {.name = "rechalving", .family = HYT_FAM_RECHALVING,
     .coll = HYT_COLL_REDUCE_SCATTER_BLOCK,
     .fn = hyt_reduce_scatter_block_rechalving, .flags = HYT_ALG_NEEDS_COMMUTATIVE,
     .scratch = hyt_need_rsb_rechalving,
     .desc = "recursive halving, non-power-of-two ranks folded in pairs"},
    {.name = "pairwise", .family = HYT_FAM_PAIRWISE,
     .coll = HYT_COLL_REDUCE_SCATTER_BLOCK,
     .fn = hyt_reduce_scatter_block_pairwise, .flags = HYT_ALG_NEEDS_COMMUTATIVE,
     .scratch = hyt_need_rsb_pairwise,
     .desc = "p-1 pairwise exchange steps, each folding one contribution"},
    /* ---- Barrier, Gather, Scatter, v-variants, Scan ---- */
    {.name = "dissemination", .family = HYT_FAM_DISSEMINATION, .prior = HYT_PRIOR_EXCHANGE,
     .coll = HYT_COLL_BARRIER, .fn = hyt_barrier_dissemination,
     .scratch = hyt_need_dissemination,
     .k_min = 2, .k_max = HYT_K_P, .desc = "k-dissemination: ceil(log_k p) rounds of k-1 "
     "messages (k=2: dissemination)"},
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_BARRIER, .fn = hyt_barrier_knomial, .k_min = 2,
     .scratch = hyt_need_kn_tree,
     .k_max = HYT_K_P, .desc = "k-nomial gather to rank 0, then k-nomial release"},
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_GATHER, .fn = hyt_gather_knomial, .k_min = 2,
     .scratch = hyt_need_knb,
     .k_max = HYT_K_P, .desc = "k-nomial tree to the root, subtrees' blocks in one message "
     "(k=2: binomial)"},
    {.name = "knomial", .family = HYT_FAM_KNOMIAL, .prior = HYT_PRIOR_TREE,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_SCATTER, .fn = hyt_scatter_knomial, .k_min = 2,
     .scratch = hyt_need_knb,
     .k_max = HYT_K_P, .desc = "k-nomial tree from the root, subtrees' blocks in one message "
     "(k=2: binomial)"},
    {.name = "ring", .family = HYT_FAM_RING,
     .coll = HYT_COLL_ALLGATHERV, .fn = hyt_allgatherv_ring,
     .desc = "p-1 ring steps, blocks in place at their displacements"},
    {.name = "recmult", .family = HYT_FAM_RECMULT, .prior = HYT_PRIOR_PORTS,
     .k_one_round = HYT_K_P, .coll = HYT_COLL_ALLGATHERV, .fn = hyt_allgatherv_recmult, .k_min = 2,
     .scratch = hyt_need_allgatherv_recmult,
     .k_max = HYT_K_P, .desc = "recursive multiplying, rank ranges as indexed types (k=2: "
     "recursive doubling)"},
    {.name = "kring", .family = HYT_FAM_KRING, .prior = HYT_PRIOR_PPN,
     .coll = HYT_COLL_ALLGATHERV, .fn = hyt_allgatherv_kring, .k_min = 1,
     .scratch = hyt_need_allgatherv_kring,
     .k_max = HYT_K_P, .desc = "k-ring: column rings across groups of k ranks, then rings "
     "inside groups, blocks in place (k=1: ring)"},
    {.name = "pairwise", .family = HYT_FAM_PAIRWISE,
     .coll = HYT_COLL_ALLTOALLV, .fn = hyt_alltoallv_pairwise,
     .scratch = hyt_need_alltoallv_pairwise,
     .desc = "p-1 pairwise exchange steps (send to rank+i, receive from rank-i)"},
    {.name = "scattered", .family = HYT_FAM_SCATTERED, .prior = HYT_PRIOR_EXCHANGE,
     .coll = HYT_COLL_ALLTOALLV, .fn = hyt_alltoallv_scattered,
     .scratch = hyt_need_alltoallv_scattered,
     .k_min = 1, .k_max = HYT_K_P, .desc = "batches of k sends and k receives in flight "
     "(k>=p-1: all at once)"},
    {.name = "rechalving", .family = HYT_FAM_RECHALVING,
     .coll = HYT_COLL_REDUCE_SCATTER, .fn = hyt_reduce_scatter_rechalving,
     .scratch = hyt_need_rs_rechalving,
     .flags = HYT_ALG_NEEDS_COMMUTATIVE, .desc = "recursive halving at block boundaries, "
     "non-power-of-two ranks folded in pairs"},
    {.name = "pairwise", .family = HYT_FAM_PAIRWISE,
     .coll = HYT_COLL_REDUCE_SCATTER, .fn = hyt_reduce_scatter_pairwise,
     .scratch = hyt_need_rs_pairwise,
     .desc = "p-1 pairwise exchange steps (rank order kept for non-commutative ops)"},
    {.name = "recdoubling", .family = HYT_FAM_RECDOUBLING,
     .coll = HYT_COLL_SCAN, .fn = hyt_scan_recdoubling,
     .scratch = hyt_need_scan,
     .desc = "recursive doubling of partial prefixes, operands in rank order"},
    {.name = "recdoubling", .family = HYT_FAM_RECDOUBLING,
     .coll = HYT_COLL_EXSCAN, .fn = hyt_exscan_recdoubling,
     .scratch = hyt_need_scan,
     .desc = "recursive doubling of partial prefixes, operands in rank order"},
    /* ---- node-aware compositions ---- */
    /* k of a composition is the radix of the kernel of its inter-node step,
     * the collective's inner row (hyt_alg_inner: k-nomial, Allgatherv's
     * recursive multiplying); k <= 0, reachable only through hyt_run_alg:
     * the MPI library's own collective among the node leaders (one rule,
     * topology/compose.c's hyt_compose_kernel) */
    {.name = "composition", .family = HYT_FAM_COMPOSITION, .prior = HYT_PRIOR_INNER,
     .coll = HYT_COLL_ALLREDUCE, .fn = hyt_allreduce_composition,
     .k_min = 2, .k_max = HYT_K_P, .flags = HYT_ALG_COMPOSITION,
     .desc = "intra-node reduce, allreduce among node leaders, intra-node bcast"},
    {.name = "composition", .family = HYT_FAM_COMPOSITION, .prior = HYT_PRIOR_INNER,
     .coll = HYT_COLL_BCAST, .fn = hyt_bcast_composition,
     .k_min = 2, .k_max = HYT_K_P, .flags = HYT_ALG_COMPOSITION,
     .desc = "bcast on the root's node, among node leaders, then on the other nodes"},
    {.name = "composition", .family = HYT_FAM_COMPOSITION, .prior = HYT_PRIOR_INNER,
     .coll = HYT_COLL_REDUCE, .fn = hyt_reduce_composition,
     .scratch = hyt_need_reduce_composition,
     .k_min = 2, .k_max = HYT_K_P, .flags = HYT_ALG_COMPOSITION,
     .desc = "intra-node reduce, reduce among node leaders, forward to the root"},
    {.name = "composition", .family = HYT_FAM_COMPOSITION, .prior = HYT_PRIOR_INNER,
     .coll = HYT_COLL_ALLGATHER, .fn = hyt_allgather_composition,
     .k_min = 2, .k_max = HYT_K_P, .flags = HYT_ALG_COMPOSITION | HYT_ALG_NODE_CONSECUTIVE,
     .desc = "intra-node gather, allgather of node blocks among leaders, intra-node bcast"},
    {.name = "composition", .family = HYT_FAM_COMPOSITION, .prior = HYT_PRIOR_INNER,
     .coll = HYT_COLL_ALLGATHERV, .fn = hyt_allgatherv_composition,
     .scratch = hyt_need_allgatherv_composition,
     .k_min = 2, .k_max = HYT_K_P, .flags = HYT_ALG_COMPOSITION,
     .desc = "intra-node gatherv, recursive multiplying of node blocks among leaders, "
     "intra-node bcast"},
};
const int hyt_nalgs = (int)(sizeof hyt_algs / sizeof hyt_algs[0]);

int hyt_native(const hyt_args_t *a, int k)
{
    (void)k;
    return hyt_pmpi_call(a);
}

const hyt_alg_t *hyt_alg_find(hyt_coll_t c, const char *name)
{
    for (int i = 0; i < hyt_nalgs; i++)
        if (hyt_algs[i].coll == c && strcmp(hyt_algs[i].name, name) == 0)
            return &hyt_algs[i];
    return NULL;
}

const hyt_alg_t *hyt_alg_find_family(hyt_coll_t c, hyt_family_t f)
{
    for (int i = 0; i < hyt_nalgs; i++)
        if (hyt_algs[i].coll == c && hyt_algs[i].family == f)
            return &hyt_algs[i];
    return NULL;
}

const hyt_alg_t *hyt_alg_inner(hyt_coll_t c)
{
    const hyt_alg_t *a = hyt_alg_find_family(c, HYT_FAM_KNOMIAL);
    return a ? a : hyt_alg_find_family(c, HYT_FAM_RECMULT);
}

int hyt_alg_one_round_k(const hyt_alg_t *alg, int p)
{
    return alg->k_one_round == HYT_K_P ? p : alg->k_one_round;
}

const hyt_alg_t *hyt_alg_native(hyt_coll_t c)
{
    return &hyt_algs[c]; /* the native rows come first, in collective order */
}

int hyt_alg_has_radix(const hyt_alg_t *alg)
{
    return alg->k_max != 0;
}

int hyt_alg_k_max(const hyt_alg_t *alg, int p)
{
    if (alg->k_max == HYT_K_P)
        return p > alg->k_min ? p : alg->k_min;
    return alg->k_max;
}

static void list_names(hyt_coll_t c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < hyt_nalgs && used < len; i++)
        if (hyt_algs[i].coll == c) {
            int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", hyt_algs[i].name);
            if (n < 0)
                break;
            used += (size_t)n;
        }
}

int hyt_alg_parse(hyt_coll_t c, const char *spec, const hyt_alg_t **alg, int *k, char *err,
                  size_t errlen)
{
    char name[64], names[512];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n == 0 || n >= sizeof name) {
        list_names(c, names, sizeof names);
        snprintf(err, errlen, "\"%s\" names no algorithm; valid for %s: %s", spec,
                 hyt_coll_name(c), names);
        return -1;
    }
    memcpy(name, spec, n);
    name[n] = 0;
    const hyt_alg_t *a = hyt_alg_find(c, name);
    if (!a) {
        list_names(c, names, sizeof names);
        snprintf(err, errlen, "unknown algorithm \"%s\" for %s; valid: %s", name,
                 hyt_coll_name(c), names);
        return -1;
    }
    int kk = hyt_alg_has_radix(a) ? a->k_min : 0;
    if (colon) {
        const char *ks = colon + 1;
        if (strncmp(ks, "k=", 2) == 0)
            ks += 2;
        char *end;
        long v = strtol(ks, &end, 10);
        if (!hyt_alg_has_radix(a)) {
            snprintf(err, errlen, "algorithm %s of %s takes no radix; write just \"%s\"", name,
                     hyt_coll_name(c), name);
            return -1;
        }
        if (end == ks || *end || v < a->k_min || v > HYT_K_LIMIT) {
            snprintf(err, errlen, "radix \"%s\" for %s:%s is not valid; give an integer k in "
                     "%d..%d", colon + 1, hyt_coll_name(c), name, a->k_min, HYT_K_LIMIT);
            return -1;
        }
        kk = (int)v;
    }
    *alg = a;
    *k = kk;
    return 0;
}

hyt_fallback_t hyt_alg_check(const hyt_alg_t *alg, const hyt_args_t *a)
{
    unsigned f = alg->flags;
    if (f & HYT_ALG_NATIVE)
        return HYT_FB_NONE;
    if ((f & HYT_ALG_NEEDS_COMMUTATIVE) && hyt_coll_has_op(a->coll) &&
        !hyt_op_is_commutative(a->op))
        return HYT_FB_NONCOMMUTATIVE;
    if ((f & HYT_ALG_NO_INPLACE) && a->sbuf == MPI_IN_PLACE)
        return HYT_FB_INPLACE;
    if ((f & HYT_ALG_NODE_CONSECUTIVE) && !a->ctx->node_consecutive)
        return HYT_FB_LAYOUT;
    return HYT_FB_NONE;
}

int hyt_coll_tunable(hyt_coll_t c)
{
    for (int i = HYT_NCOLL; i < hyt_nalgs; i++)
        if (hyt_algs[i].coll == c && !(hyt_algs[i].flags & HYT_ALG_NATIVE))
            return 1;
    return 0;
}
