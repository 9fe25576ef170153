/* Node model, network groups and radix priors (topology/).
 *
 * At init (hyt_topo_init, once per process) the world node map is built from
 * MPI (ranks on one host, by MPI_Get_processor_name, form a node), the node hardware is read from
 * hwloc or HYTUNE_NODE_HW, node hostnames are gathered and network groups
 * assigned from HYTUNE_NETWORK_FILE, SLURM_TOPOLOGY_ADDR or one per node.
 * Every fact used for a decision is agreed on all ranks at init.  The logic
 * is split into pure functions (an hwloc topology in, facts out; a text in,
 * groups out; a shape in, a radix out) so unit tests need no cluster. */
#ifndef HYT_TOPOLOGY_H
#define HYT_TOPOLOGY_H

#include "src/hyt.h"

/* This rank's record for the node model (HYT_TOPO_REC_BYTES bytes): its host name's hash and length, whether it wants
 * world rank 0 to assign network groups, whether it holds the memory
 * hyt_topo_init needs (allocated here) and the other memory hytune takes
 * in MPI_Init (also_bytes, which it holds if also_held: the emergency
 * reserve, src/small.c), its node's hardware facts (hwloc is loaded
 * here).  Local; MPI_Init's settings step carries it to every rank
 * (src/agree.h, its rider). */
#define HYT_TOPO_REC_BYTES ((4 + HYT_HW_NFACTS) * (int)sizeof(int))
void hyt_topo_record(void *out, size_t also_bytes, int also_held);
/* Build the world node map (hyt_world_node_of) at init from every rank's
 * record (records: world size x HYT_TOPO_REC_BYTES, rank order); every
 * rank calls it (world rank 0 gathers the leaders' names when it assigns
 * network groups).  MPI_ERR_NO_MEM on every rank when a record says its
 * rank could not hold the memory (one warning names it and the bytes).  hyt_topo_finalize
 * also frees what hyt_topo_record held when hyt_topo_init is not called. */
int hyt_topo_init(const void *records);
void hyt_topo_finalize(void);

/* Starting radix for alg on a communicator of this shape at this message
 * size, within the algorithm's k range (0 for algorithms without a radix).
 * A pure function of rank-invariant inputs: every rank gets the same k.
 * Used by the tuner's candidate grid and by online probing. */
int hyt_topo_prior_k(const hyt_alg_t *alg, const hyt_comm_t *ctx, size_t bytes);

/* Network groups (nodes sharing a switch group) of the world's nodes, for the
 * tuner's parallel scheduling: group index of world node n, and the count.
 * Without information every node is its own group. */
int hyt_topo_node_group(int world_node);
int hyt_topo_ngroups(void);
/* Network ports per node (hwloc, or HYTUNE_NODE_HW ports=N); 1 if unknown. */
int hyt_topo_ports(void);

/* ---- node hardware (topology/hw.c) ---------------------------------------- */
typedef enum {
    HYT_HW_PACKAGES,
    HYT_HW_NUMAS,
    HYT_HW_CORES,
    HYT_HW_PUS,
    HYT_HW_PORTS,
    HYT_HW_GPUS,
    HYT_HW_NFACTS
} hyt_hw_fact_t;

/* Where a fact came from, printed by `hytune topo`. */
typedef enum { HYT_SRC_DEFAULT, HYT_SRC_HWLOC, HYT_SRC_ENV, HYT_SRC_MPI } hyt_src_t;

typedef struct hyt_node_hw {
    int val[HYT_HW_NFACTS];
    hyt_src_t src[HYT_HW_NFACTS];
    int uniform[HYT_HW_NFACTS]; /* same value on every node (after agreement) */
} hyt_node_hw_t;

/* Key of a fact in HYTUNE_NODE_HW ("ports") and its source's name. */
const char *hyt_hw_fact_name(hyt_hw_fact_t f);
const char *hyt_src_name(hyt_src_t s);
/* Defaults: one package, NUMA domain, port; no GPU; cores = pus = cores. */
void hyt_hw_default(hyt_node_hw_t *hw, int cores);
/* Facts of an hwloc topology (hwloc_topology_t passed as void * so this
 * header needs no hwloc).  ports: PCI devices carrying a network or
 * OpenFabrics OS device (a NIC seen as both counts once); 0 when the
 * topology shows none (the caller decides the fallback).  gpus: GPU and
 * co-processor OS devices. */
void hyt_hw_from_hwloc(void *topology, hyt_node_hw_t *hw);
/* Apply "key=N,key=N" (HYTUNE_NODE_HW grammar) over hw.  Returns 0, or -1
 * with one message in err naming the variable and the valid keys; valid
 * entries before and after a bad one still apply. */
int hyt_hw_parse(const char *spec, hyt_node_hw_t *hw, char *err, size_t errlen);
/* The node hardware in force (after init). */
const hyt_node_hw_t *hyt_topo_hw(void);

/* ---- network groups (topology/groups.c) ---------------------------------- */
/* Group path of each of n nodes from a network file (`host group/path` per
 * line, `#` comments).  paths[i] is set (malloc'd) for hosts found, left NULL
 * otherwise.  Returns 0, or -1 with err naming file and line. */
int hyt_groups_parse_file(const char *file, int n, const char *const *names, char **paths,
                          char *err, size_t errlen);
/* Group path of a Slurm SLURM_TOPOLOGY_ADDR ("s1.s2.node7" -> "s1.s2"),
 * malloc'd, or NULL when the address has no switch part. */
char *hyt_groups_slurm_path(const char *addr);
/* Number nodes' groups by first appearance of their path; a NULL path is a
 * group of its own.  Returns the number of groups. */
int hyt_groups_index(int n, char *const *paths, int *group);

/* ---- radix priors (topology/prior.c) ------------------------------------- */
typedef struct hyt_topo_shape {
    int p;     /* communicator size */
    int nodes; /* nodes it spans */
    int ppn;   /* largest processes per node */
    int ports; /* network ports per node */
} hyt_topo_shape_t;

/* hyt_topo_prior_k on an explicit shape (what the unit tests drive). */
int hyt_topo_prior_k_shape(const hyt_alg_t *alg, const hyt_topo_shape_t *s, size_t bytes);
/* Modelled time (microseconds) of a k-ary schedule over p ranks for
 * collective c at this selection size: a tree (tree != 0, k-nomial) or an
 * exchange (Bruck, recursive k-ing).  Exposed for tests and bench reports. */
double hyt_topo_model_us(int k, int p, size_t bytes, hyt_coll_t c, int tree);

/* ---- helpers of the node-aware compositions (topology/compose.c) -------- */
/* Make ctx->node_comm and ctx->leader_comm (collective over the communicator
 * on first use; every rank is in the same collective call then). */
int hyt_compose_setup(hyt_comm_t *ctx);
/* Temporary buffer for count elements of type (scratch of ctx, adjusted for
 * the type's lower bound); NULL if out of memory. */
void *hyt_compose_tmp(hyt_comm_t *ctx, int count, MPI_Datatype type);
/* The kernel of a composition's inter-node step at radix k, one rule for
 * every composition: the registry's inner row of the collective
 * (hyt_alg_inner: its k-nomial kernel, else its recursive multiplying) when
 * k > 0 (k = 1 acts as 2 in every kernel); NULL for k <= 0: the MPI
 * library's own collective among the leaders. */
const hyt_alg_t *hyt_compose_kernel(hyt_coll_t c, int k);
/* Run the inter-node step (a call on ctx->leader_comm):
 * hyt_compose_kernel(coll, k) with radix k, else PMPI. */
int hyt_compose_inner(hyt_args_t *inner, int k);
/* One rank per node (nodes == size): a composition is its inter-node step
 * alone, with the same ranks in the same order as the communicator, so it
 * runs that step on the communicator itself (hyt_compose_whole) and makes
 * no node or leader communicator (two MPI_Comm_split that would buy
 * nothing). */
static inline int hyt_compose_flat(const hyt_comm_t *ctx)
{
    return ctx->nodes == ctx->size;
}
/* The call a itself as the inter-node step, for a flat communicator:
 * hyt_compose_inner on a's communicator. */
int hyt_compose_whole(const hyt_args_t *a, int k);
/* Reductions: can this call keep MPI's operand order?  Node-consecutive
 * ranks make intra-node-then-inter-node the canonical order. */
int hyt_compose_order_ok(const hyt_args_t *a);
/* Rank of communicator rank `rank` inside its node communicator. */
int hyt_compose_node_rank_of(const hyt_comm_t *ctx, int rank);

#endif
