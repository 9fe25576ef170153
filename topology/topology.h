/* Node model and network groups (topology/). */
#ifndef HYT_TOPOLOGY_H
#define HYT_TOPOLOGY_H

#include "src/hyt.h"

/* Build the world node map (hyt_world_node_of) at init: collective over
 * MPI_COMM_WORLD. */
int hyt_topo_init(void);
void hyt_topo_finalize(void);

#endif
