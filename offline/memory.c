/* Memory of the tuner's benchmark points (see memory.h).
 *
 * The scratch bound follows what the algorithms ask of hyt_scratch /
 * hyt_scratch2 (each grows to 1.25 x the request, src/comm.c), in units of
 * the message m (allreduce, reduce, bcast) or of the whole buffer T = p
 * blocks (allgather, alltoall, reduce_scatter_block):
 *   - reductions: radix algorithms keep up to k buffers of m (knomial's
 *     pool, recmult's k - 1 partners), compositions one m more on the node
 *     plus the inner k-nomial's on the leaders; Rabenseifner and the rings
 *     at most 2 m: bound (max(k, 2) + 1) m;
 *   - bcast: one m (recmult on a non-contiguous type);
 *   - allgather: one T (kbruck's rotation area);
 *   - alltoall: 3 T plus 2k requests (kbruck: one staging area, two
 *     packing areas), one T for the others;
 *   - reduce_scatter_block: 2 T (both algorithms).
 * The MPI library's own algorithms (native, mpich:*) are given the bound
 * of the collective at k = 2.  The tuner checks the bound after every point
 * (tune.c: scratch_check). */
#include "offline/memory.h"

#include <hwloc.h>
#include <stdio.h>
#include <unistd.h>

static int blocks_per_rank(hyt_coll_t c)
{
    return (hyt_coll_props(c) & HYT_CP_BLOCK) != 0;
}

uint64_t hyt_mem_buffer(hyt_coll_t c, uint64_t bytes, int p)
{
    return blocks_per_rank(c) ? bytes * (uint64_t)(p > 0 ? p : 1) : bytes;
}

uint64_t hyt_mem_scratch(hyt_coll_t c, const hyt_alg_t *alg, int k, uint64_t bytes, int p)
{
    uint64_t m = hyt_mem_buffer(c, bytes, p), units4; /* in quarters of m */
    int kk = alg && hyt_alg_has_radix(alg) && k > 2 ? k : 2;
    switch (c) {
    case HYT_COLL_ALLREDUCE:
    case HYT_COLL_REDUCE:
        units4 = 4 * (uint64_t)(kk + 1);
        break;
    case HYT_COLL_BCAST:
    case HYT_COLL_ALLGATHER:
        units4 = 4;
        break;
    case HYT_COLL_ALLTOALL:
        units4 = alg && !(alg->flags & HYT_ALG_NATIVE) && hyt_alg_has_radix(alg) ? 12 : 4;
        break;
    default:
        units4 = 8;
        break;
    }
    /* 1.25 x (hyt_scratch's growth), requests and offsets, and the 4 KiB
     * each area starts at (two areas on two contexts for compositions) */
    return m * units4 / 4 * 5 / 4 + 64 * (uint64_t)kk * 16 + 4 * 4096;
}

uint64_t hyt_mem_rank_need(hyt_coll_t c, const hyt_alg_t *alg, int k, uint64_t bytes, int p)
{
    return 2 * hyt_mem_buffer(c, bytes, p) + hyt_mem_scratch(c, alg, k, bytes, p);
}

uint64_t hyt_mem_node_bytes(void)
{
    uint64_t total = 0;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0) {
        if (hwloc_topology_load(t) == 0)
            total = hwloc_get_root_obj(t)->total_memory;
        hwloc_topology_destroy(t);
    }
    if (total == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            total = (uint64_t)pages * (uint64_t)page;
    }
    return total;
}

const char *hyt_mem_fmt(uint64_t bytes, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0 || v == (double)(uint64_t)v)
        snprintf(buf, len, "%.0f %s", v, unit[u]);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
    return buf;
}
