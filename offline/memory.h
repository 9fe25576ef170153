/* Memory of the tuner's benchmark points: what one rank holds while a
 * candidate runs (benchmark buffers plus an upper bound of the algorithm's
 * scratch), the node's memory (hwloc), and the limit `hytune tune` caps its
 * grid at (--mem-limit). */
#ifndef HYT_MEMORY_H
#define HYT_MEMORY_H

#include "src/hyt.h"

#include <stdint.h>

/* Default limit: this share of the node's memory. */
#define HYT_MEM_DEFAULT_SHARE 0.25

/* Bytes of each of the two benchmark buffers (send, receive) of collective c
 * at selection size bytes on p ranks: p blocks for collectives moving one
 * block per rank (HYT_CP_BLOCK), one message otherwise. */
uint64_t hyt_mem_buffer(hyt_coll_t c, uint64_t bytes, int p);

/* Upper bound of the scratch one rank of candidate (alg, k) holds after a
 * call of collective c at size bytes on p ranks: the registry's bound
 * (algorithms/scratch.c) as the reserve holds it, plus the leader
 * communicator's for compositions; for native candidates (alg NULL or
 * native), the native row's estimate of the MPI library's own buffers. */
uint64_t hyt_mem_scratch(hyt_coll_t c, const hyt_alg_t *alg, int k, uint64_t bytes, int p);

/* Both buffers plus the scratch bound: what one rank holds during the point. */
uint64_t hyt_mem_rank_need(hyt_coll_t c, const hyt_alg_t *alg, int k, uint64_t bytes, int p);

/* Physical memory of this node in bytes (hwloc; sysconf when hwloc cannot
 * tell), 0 if unknown. */
uint64_t hyt_mem_node_bytes(void);

/* "1.5 GiB", "512 MiB", "64 KiB", "100 B" into buf. */
const char *hyt_mem_fmt(uint64_t bytes, char *buf, size_t len);

#endif
