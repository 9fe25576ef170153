/* Memory of the tuner's benchmark points: what one rank holds while a
 * candidate runs (benchmark buffers plus an upper bound of the algorithm's
 * scratch), how the buffers are allocated (shared by all ranks under
 * SimGrid), the node's memory (hwloc), and the limit `hytune tune` caps its
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

/* The two benchmark buffers of a point (offline/tune_bench.c).  Under
 * SimGrid they come from its shared allocation: SimGrid skips copying message
 * payloads from and into them, and all ranks, which live in one process,
 * map one memory instead of holding their own.  Their contents are shared
 * by all ranks and meaningless; the tuner never reads them.  Elsewhere,
 * malloc. */
void *hyt_mem_buf_alloc(size_t n);
void hyt_mem_buf_free(void *p);

/* How the benchmark buffers are held in this run. */
enum {
    HYT_BUF_PRIVATE,     /* each rank its own (MPICH; SimGrid, smpi/shared-malloc:off) */
    HYT_BUF_SHARED_SITE, /* SimGrid's local mode: one memory that every allocation of
                          * the buffers maps, as large as the largest */
    HYT_BUF_SHARED_ALL   /* SimGrid's global mode (its default): every shared
                          * allocation maps one file of *block bytes, one mapping per
                          * block */
};

/* Probed (SimGrid has no C query of smpi/shared-malloc); *block: the global
 * mode's block (smpi/shared-malloc-blocksize), else 0.  No MPI call. */
int hyt_mem_buf_sharing(uint64_t *block);

/* vm.max_map_count (the most memory mappings a process may have; 65530 if
 * it cannot be read). */
uint64_t hyt_mem_max_maps(void);

/* Physical memory of this node in bytes (hwloc; sysconf when hwloc cannot
 * tell), 0 if unknown. */
uint64_t hyt_mem_node_bytes(void);

/* "1.5 GiB", "512 MiB", "64 KiB", "100 B" into buf. */
const char *hyt_mem_fmt(uint64_t bytes, char *buf, size_t len);

#endif
