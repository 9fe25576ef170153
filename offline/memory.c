/* Memory of the tuner's benchmark points (see memory.h).
 *
 * The scratch a candidate holds is the runtime's own bound: the registry's
 * .scratch of the algorithm (algorithms/scratch.c) for the call the tuner
 * benchmarks, as the reserve holds it (hyt_scratch_room: a quarter of
 * headroom, src/comm.c); a composition adds its step on the node leaders'
 * communicator, with the kernel the composition runs there
 * (hyt_compose_kernel: k-nomial, Allgatherv's recursive multiplying),
 * counted as if it had all p ranks (an upper bound).  The MPI library's own algorithms (native, mpich:*) are counted
 * with the native row's bound, an estimate of MPICH's temporary buffers
 * (algorithms/scratch.c: hyt_need_native).  The tuner
 * checks the bound after every point (tune_bench.c: scratch_check); the test
 * mem-bound checks that a kernel holds exactly this bound. */
#include "offline/memory.h"
#include "topology/topology.h"

#include <hwloc.h>
#ifdef HYT_SMPI
#include <xbt/config.h>
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Only the tuner's buffers are shared: the runtime and the tests never
 * allocate with SMPI_SHARED_MALLOC (test shared-malloc-tuner-only); every
 * algorithm's result is checked against PMPI by the tests, on each rank's
 * own buffers. */
void *hyt_mem_buf_alloc(size_t n)
{
#ifdef HYT_SMPI
    return SMPI_SHARED_MALLOC(n);
#else
    return malloc(n);
#endif
}

void hyt_mem_buf_free(void *p)
{
#ifdef HYT_SMPI
    if (p)
        SMPI_SHARED_FREE(p);
#else
    free(p);
#endif
}

#ifdef HYT_SMPI
/* Another call site than hyt_mem_buf_alloc's, for the probe. */
static void *buf_alloc_elsewhere(size_t n)
{
    return SMPI_SHARED_MALLOC(n);
}
#endif

int hyt_mem_buf_sharing(uint64_t *block)
{
    *block = 0;
#ifdef HYT_SMPI
    /* Two allocations from hyt_mem_buf_alloc's call site and one from
     * another: global mode maps all three onto one memory, local mode the
     * first two (it shares by call site), off none. */
    unsigned char *a = hyt_mem_buf_alloc(4096), *b = hyt_mem_buf_alloc(4096);
    unsigned char *c = buf_alloc_elsewhere(4096);
    int mode = HYT_BUF_PRIVATE;
    if (a && b && c) {
        a[0] = 1;
        b[0] = 2;
        c[0] = 3;
        mode = a[0] == 3 ? HYT_BUF_SHARED_ALL : a[0] == 2 ? HYT_BUF_SHARED_SITE : HYT_BUF_PRIVATE;
    }
    hyt_mem_buf_free(a);
    hyt_mem_buf_free(b);
    hyt_mem_buf_free(c);
    if (mode == HYT_BUF_SHARED_ALL) {
        double bs = sg_cfg_get_double("smpi/shared-malloc-blocksize");
        *block = bs >= 4096 ? (uint64_t)bs : 4096;
    }
    return mode;
#else
    return HYT_BUF_PRIVATE;
#endif
}

static int blocks_per_rank(hyt_coll_t c)
{
    return (hyt_coll_props(c) & HYT_CP_BLOCK) != 0;
}

uint64_t hyt_mem_buffer(hyt_coll_t c, uint64_t bytes, int p)
{
    uint64_t np = (uint64_t)(p > 0 ? p : 1), need = blocks_per_rank(c) ? bytes * np : bytes;
    if (hyt_coll_props(c) & HYT_CP_VECTOR) { /* whole elements on every rank */
        uint64_t unit = hyt_coll_has_op(c) ? 4 : 1, per = (bytes / unit + np - 1) / np;
        if (per * np * unit > need)
            need = per * np * unit;
    }
    return need;
}

/* The call tune_bench.c's bench_args makes at selection size bytes on p ranks:
 * MPI_INT and MPI_SUM for reductions, bytes otherwise; the v-variants even
 * blocks of whole elements. */
static void bench_call(hyt_args_t *a, hyt_comm_t *ctx, hyt_coll_t c, uint64_t bytes, int p)
{
    int red = hyt_coll_has_op(c);
    uint64_t unit = red ? 4 : 1, n = bytes / unit;
    if (n > INT_MAX)
        n = INT_MAX;
    memset(ctx, 0, sizeof *ctx);
    ctx->size = ctx->remote_size = p > 0 ? p : 1;
    memset(a, 0, sizeof *a);
    a->coll = c;
    a->ctx = ctx;
    a->sbuf = a->rbuf = ctx; /* not MPI_IN_PLACE: the tuner's buffers */
    a->type = a->stype = red ? MPI_INT : MPI_BYTE;
    a->op = MPI_SUM;
    a->count = a->scount = (int)n;
    a->bytes = a->block = (size_t)(n * unit);
    if (hyt_coll_props(c) & HYT_CP_VECTOR) {
        uint64_t per = (n + (uint64_t)ctx->size - 1) / (uint64_t)ctx->size;
        a->block = (size_t)(per * unit);
        a->bytes = a->block * (size_t)ctx->size;
    }
}

/* What a context holds once the reserve took alg's need for call a. */
static uint64_t held(const hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    size_t need[2], room[2];
    hyt_alg_scratch(a, alg, k, need);
    hyt_scratch_room(need, room);
    return (uint64_t)room[0] + room[1];
}

uint64_t hyt_mem_scratch(hyt_coll_t c, const hyt_alg_t *alg, int k, uint64_t bytes, int p)
{
    hyt_comm_t ctx;
    hyt_args_t a;
    bench_call(&a, &ctx, c, bytes, p);
    if (!alg)
        alg = hyt_alg_native(c);
    uint64_t total = held(&a, alg, k);
    /* the leaders' kernel, as the composition runs it (topology/compose.c) */
    const hyt_alg_t *inner = hyt_compose_kernel(c, k);
    if ((alg->flags & HYT_ALG_COMPOSITION) && inner) {
        /* the leaders' call: Allgather moves a node's blocks (at most p) */
        hyt_comm_t lctx;
        hyt_args_t la;
        bench_call(&la, &lctx, c, c == HYT_COLL_ALLGATHER ? bytes * (uint64_t)p : bytes, p);
        total += held(&la, inner, k);
    }
    return total;
}

uint64_t hyt_mem_max_maps(void)
{
    unsigned long long v = 0;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v ? v : 65530;
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
