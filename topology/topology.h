/* Node model and network groups (topology/). */
#ifndef HYT_TOPOLOGY_H
#define HYT_TOPOLOGY_H

#include "src/hyt.h"

/* Build the world node map (hyt_world_node_of) at init: collective over
 * MPI_COMM_WORLD. */
int hyt_topo_init(void);
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

#endif
