/* Scratch bounds: what each kernel takes from hyt_scratch (need[0]) and
 * hyt_scratch2 (need[1]) at most, known before it runs (the registry's
 * .scratch field; src/comm.c: hyt_scratch_reserve agrees on them across
 * ranks).
 *
 * The bounds are computed from values every rank of the call has alike, so
 * that every rank reaches the same verdict without communicating:
 *   - the communicator's size p and the radix k;
 *   - reductions: count and datatype (the same on every rank, as MPI
 *     requires), so their span (extent, holes included) is agreed;
 *   - the other collectives: the selection size a->bytes (type signature
 *     bytes: one block, or all blocks of Allgatherv) and a->block, which the
 *     type signatures make equal on every rank, although the datatypes, and
 *     so their extents, may differ.  A kernel that keeps blocks in its
 *     scratch lays them out with the type's extent only where that fits the
 *     bound, and packed otherwise (hyt_pat_blocks, algorithms/pattern.h), so
 *     no rank asks for more than the others agreed on.
 * Alltoallv in place copies the receive side, whose span is each rank's own:
 * that bound is this rank's (the return value says so) and the reserve then
 * agrees on every call.  Each bound follows the kernel's own requests (same
 * formulas, rounded up where the kernel rounds). */
#include "algorithms/algorithms.h"

#define ROUND64(n) (((n) + 63) & ~(size_t)63)

/* Span of n elements of type: (n - 1) extents plus the true extent. */
static size_t span(size_t n, MPI_Datatype type)
{
    MPI_Aint lb, extent, tlb, textent;
    size_t size = (size_t)hyt_type_builtin_size(type);
    if (n == 0 || size)
        return n * size;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    return (n - 1) * (size_t)(extent > 0 ? extent : 0) + (size_t)(textent > 0 ? textent : 0);
}

/* The span of a reduction's message (count and type alike on every rank). */
static size_t msg_span(const hyt_args_t *a)
{
    return span((size_t)(a->count > 0 ? a->count : 0), a->type);
}

static int clamp(int k, int lo, int p)
{
    int hi = p > lo ? p : lo;
    return k < lo ? lo : (k > hi ? hi : k);
}

/* The radix as the k-nomial and recursive-multiplying patterns clamp it. */
static size_t kc(const hyt_args_t *a, int k)
{
    return (size_t)clamp(k, 2, a->ctx->size);
}

/* Most children any rank has in a k-nomial tree over p ranks (the root's). */
static size_t kn_children(int p, int k)
{
    size_t levels = 0;
    for (long long m = 1; m < p; m *= k)
        levels++;
    size_t n = (size_t)(k - 1) * levels;
    return n < (size_t)p ? n : (size_t)p;
}

static size_t reqs(size_t n)
{
    return (n > 0 ? n : 1) * sizeof(MPI_Request);
}

/* hyt_kr_init's area: requests, one pointer and one count per column. */
static size_t kring_area(int p, int k, size_t nreq_min)
{
    int g = clamp(k, 1, p), last = p - ((p + g - 1) / g - 1) * g;
    size_t per = (size_t)((g + last - 1) / last), nreq = 2 * per + 2;
    if (nreq < nreq_min)
        nreq = nreq_min;
    return nreq * sizeof(MPI_Request) + per * (sizeof(char *) + sizeof(int));
}

int hyt_need_kn_tree(const hyt_args_t *a, int k, size_t need[2])
{
    need[1] = reqs(kn_children(a->ctx->size, (int)kc(a, k)));
    return 0;
}

int hyt_need_rm(const hyt_args_t *a, int k, size_t need[2])
{
    need[1] = reqs(2 * kc(a, k));
    return 0;
}

int hyt_need_bcast_recmult(const hyt_args_t *a, int k, size_t need[2])
{
    need[0] = a->bytes; /* the packed message, for a non-contiguous type */
    return hyt_need_rm(a, k, need);
}

int hyt_need_bcast_kring(const hyt_args_t *a, int k, size_t need[2])
{
    int p = a->ctx->size, g = clamp(k, 1, p);
    need[1] = kring_area(p, k, (size_t)((p + g - 1) / g) * (size_t)g + 1);
    return 0;
}

int hyt_need_kring(const hyt_args_t *a, int k, size_t need[2])
{
    need[1] = kring_area(a->ctx->size, k, 0);
    return 0;
}

int hyt_need_allreduce_kring(const hyt_args_t *a, int k, size_t need[2])
{
    need[0] = msg_span(a);
    return hyt_need_kring(a, k, need);
}

int hyt_need_pool(const hyt_args_t *a, int k, size_t need[2])
{
    /* up to k buffers of the message and 2k requests (Allreduce knomial:
     * then the Bcast's children) */
    need[0] = kc(a, k) * ROUND64(msg_span(a));
    need[1] = reqs(2 * kc(a, k) + kn_children(a->ctx->size, (int)kc(a, k)));
    return 0;
}

int hyt_need_rabenseifner(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    need[0] = msg_span(a); /* Reduce: the accumulator, the receive area in the other */
    need[1] = a->coll == HYT_COLL_REDUCE ? need[0] : 0;
    return 0;
}

int hyt_need_reduce_composition(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    need[0] = msg_span(a); /* the inner step reserves on the leaders' communicator */
    return 0;
}

int hyt_need_allgather_kbruck(const hyt_args_t *a, int k, size_t need[2])
{
    need[0] = (size_t)a->ctx->size * a->bytes;
    return hyt_need_rm(a, k, need);
}

int hyt_need_alltoall_kbruck(const hyt_args_t *a, int k, size_t need[2])
{
    size_t all = ROUND64((size_t)a->ctx->size * a->bytes);
    need[0] = all;
    need[1] = ROUND64(2 * kc(a, k) * sizeof(MPI_Request)) + 2 * all;
    return 0;
}

int hyt_need_alltoall_pairwise(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    if (a->sbuf == MPI_IN_PLACE)
        need[0] = (size_t)a->ctx->size * a->bytes; /* a copy of the receive buffer */
    return 0;
}

int hyt_need_rsb_rechalving(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    size_t c = (size_t)(a->count > 0 ? a->count : 0);
    need[0] = 2 * ROUND64(span((size_t)a->ctx->size * c, a->type));
    need[1] = (size_t)(a->ctx->size + 1) * sizeof(long);
    return 0;
}

int hyt_need_rsb_pairwise(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    need[0] = 2 * ROUND64(msg_span(a));
    return 0;
}

/* Reduce_scatter: the total and largest block in elements (recvcounts are
 * the same on every rank), and the block offsets in the second area. */
static void rs_counts(const hyt_args_t *a, size_t *total, size_t *big, size_t need[2])
{
    int size = 0;
    PMPI_Type_size(a->type, &size);
    *total = size > 0 ? a->bytes / (size_t)size : 0;
    *big = size > 0 ? a->block / (size_t)size : 0;
    need[1] = (size_t)(a->ctx->size + 1) * sizeof(long);
}

int hyt_need_rs_rechalving(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    size_t total, big;
    rs_counts(a, &total, &big, need);
    need[0] = 2 * ROUND64(span(total, a->type));
    return 0;
}

int hyt_need_rs_pairwise(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    size_t total, big;
    rs_counts(a, &total, &big, need);
    /* 2 blocks, or one per rank for a non-commutative op */
    size_t n = hyt_op_is_commutative(a->op) ? 2 : (size_t)a->ctx->size;
    need[0] = n * ROUND64(span(big, a->type));
    return 0;
}

int hyt_need_scan(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    need[0] = 2 * ROUND64(msg_span(a));
    return 0;
}

int hyt_need_dissemination(const hyt_args_t *a, int k, size_t need[2])
{
    need[1] = reqs(2 * (kc(a, k) - 1));
    return 0;
}

int hyt_need_knb(const hyt_args_t *a, int k, size_t need[2])
{
    need[0] = (size_t)a->ctx->size * a->bytes; /* the root's p blocks, another's subtree's */
    return hyt_need_kn_tree(a, k, need);
}

int hyt_need_allgatherv_recmult(const hyt_args_t *a, int k, size_t need[2])
{
    size_t p1 = (size_t)a->ctx->size + 1, m = 2 * kc(a, k) > p1 ? 2 * kc(a, k) : p1;
    need[0] = m * sizeof(MPI_Datatype);
    need[1] = reqs(m);
    return 0;
}

int hyt_need_allgatherv_kring(const hyt_args_t *a, int k, size_t need[2])
{
    need[0] = hyt_kr_v_bytes(a->ctx->size, k);
    return hyt_need_kring(a, k, need);
}

int hyt_need_allgatherv_composition(const hyt_args_t *a, int k, size_t need[2])
{
    /* the tuner's model (offline/memory.c) knows no nodes: one per rank */
    int p = a->ctx->size, nodes = a->ctx->nodes > 0 ? a->ctx->nodes : p;
    need[0] = hyt_agv_composition_bytes(p, nodes, k);
    need[1] = reqs((size_t)hyt_agv_rm_slots(nodes, k));
    return 0;
}

/* Alltoallv in place: a copy of this rank's receive side, as
 * hyt_alltoallv_src takes; its span is this rank's own. */
static int a2av_src(const hyt_args_t *a, size_t need[2])
{
    if (a->sbuf != MPI_IN_PLACE)
        return 0;
    int end = 0;
    for (int i = 0; i < a->ctx->size; i++)
        if (a->rcounts[i] > 0 && a->rdispls[i] + a->rcounts[i] > end)
            end = a->rdispls[i] + a->rcounts[i];
    need[0] = span((size_t)end, a->type) + 1;
    return 1;
}

int hyt_need_alltoallv_pairwise(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    return a2av_src(a, need);
}

int hyt_need_alltoallv_scattered(const hyt_args_t *a, int k, size_t need[2])
{
    need[1] = reqs(2 * (size_t)clamp(k, 1, a->ctx->size - 1));
    return a2av_src(a, need);
}

/* The MPI library's own algorithms (native rows): never reserved (their
 * memory is MPI's), counted by the tuner's memory bound (offline/memory.c)
 * as an estimate of the temporary buffers MPICH's algorithms of the same
 * families keep: Allreduce and Reduce three messages, Bcast one, Allgather
 * and Alltoall one result (p blocks), the others two messages or results. */
int hyt_need_native(const hyt_args_t *a, int k, size_t need[2])
{
    (void)k;
    int per_rank = (hyt_coll_props(a->coll) & HYT_CP_BLOCK) != 0;
    size_t m = per_rank ? (size_t)a->ctx->size * a->block : a->bytes;
    switch (a->coll) {
    case HYT_COLL_ALLREDUCE:
    case HYT_COLL_REDUCE:
        need[0] = 3 * m;
        break;
    case HYT_COLL_BCAST:
    case HYT_COLL_ALLGATHER:
    case HYT_COLL_ALLTOALL:
        need[0] = m;
        break;
    default:
        need[0] = 2 * m;
        break;
    }
    return 0;
}

int hyt_alg_scratch(const hyt_args_t *a, const hyt_alg_t *alg, int k, size_t need[2])
{
    need[0] = need[1] = 0;
    int local = alg->scratch ? alg->scratch(a, k, need) : 0;
    /* a kernel may take a few bytes of an area it needs nothing from (an
     * empty pool is 64 bytes): every area starts at 64 */
    for (int i = 0; i < 2; i++)
        if (need[i] < 64)
            need[i] = 64;
    return local;
}
