/* A captured call (hyt_args_t) as the core sees it: the MPI library's own
 * collective for it, and its size (docs/statistics.md, "the size of a
 * call").  Inline bodies for the per-call path (src/runtime.c) and for
 * running an algorithm (algorithms/registry.c); hyt_pmpi_call and
 * hyt_selection_bytes (src/call.c) are the same out of line. */
#ifndef HYT_CALL_H
#define HYT_CALL_H
#include "src/hyt.h"

/* The MPI library's own collective for a captured call, on a->comm: the
 * body of hyt_pmpi_call, inlined into the per-call path. */
static HYT_INLINE int call_pmpi_on(const hyt_args_t *a)
{
    switch (a->coll) {
    case HYT_COLL_ALLREDUCE:
        return PMPI_Allreduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_BCAST:
        return PMPI_Bcast(a->rbuf, a->count, a->type, a->root, a->comm);
    case HYT_COLL_REDUCE:
        return PMPI_Reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, a->comm);
    case HYT_COLL_ALLGATHER:
        return PMPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm);
    case HYT_COLL_ALLTOALL:
        return PMPI_Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm);
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_BARRIER:
        return PMPI_Barrier(a->comm);
    case HYT_COLL_GATHER:
        return PMPI_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->root,
                           a->comm);
    case HYT_COLL_GATHERV:
        return PMPI_Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                            a->type, a->root, a->comm);
    case HYT_COLL_SCATTER:
        return PMPI_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->root,
                            a->comm);
    case HYT_COLL_SCATTERV:
        return PMPI_Scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->count,
                             a->type, a->root, a->comm);
    case HYT_COLL_ALLGATHERV:
        return PMPI_Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                               a->type, a->comm);
    case HYT_COLL_ALLTOALLV:
        return PMPI_Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts,
                              a->rdispls, a->type, a->comm);
    case HYT_COLL_ALLTOALLW:
        return PMPI_Alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts,
                              a->rdispls, a->rtypes, a->comm);
    case HYT_COLL_REDUCE_SCATTER:
        return PMPI_Reduce_scatter(a->sbuf, a->rbuf, a->rcounts, a->type, a->op, a->comm);
    case HYT_COLL_SCAN:
        return PMPI_Scan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_EXSCAN:
        return PMPI_Exscan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_NEIGHBOR_ALLGATHER:
        return PMPI_Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->count,
                                       a->type, a->comm);
    case HYT_COLL_NEIGHBOR_ALLGATHERV:
        return PMPI_Neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                        a->rdispls, a->type, a->comm);
    case HYT_COLL_NEIGHBOR_ALLTOALL:
        return PMPI_Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type,
                                      a->comm);
    case HYT_COLL_NEIGHBOR_ALLTOALLV:
        return PMPI_Neighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                       a->rcounts, a->rdispls, a->type, a->comm);
    case HYT_COLL_NEIGHBOR_ALLTOALLW:
        return PMPI_Neighbor_alltoallw(a->sbuf, a->scounts, a->csdispls, a->stypes, a->rbuf,
                                       a->rcounts, a->crdispls, a->rtypes, a->comm);
    case HYT_NCOLL:
        break;
    }
    return MPI_ERR_INTERN;
}

/* The call on the communicator's private duplicate, when MPI's own
 * collectives run there (ctx->mpi_on_priv: src/runtime.c); an error goes
 * to the application's handler on its own communicator (src/call.c). */
int hyt_call_pmpi_priv(const hyt_args_t *a);

/* The MPI library's own collective for a captured call. */
static HYT_INLINE int hyt_call_pmpi(const hyt_args_t *a)
{
    if (HYT_UNLIKELY(a->ctx && a->ctx->mpi_on_priv))
        return hyt_call_pmpi_priv(a);
    return call_pmpi_on(a);
}

static inline size_t call_type_size(MPI_Datatype t)
{
    int size = hyt_type_builtin_size(t);
    if (!size)
        PMPI_Type_size(t, &size);
    return (size_t)size;
}

static inline size_t call_nbytes(MPI_Count n, MPI_Datatype t)
{
    return n > 0 ? (size_t)n * call_type_size(t) : 0;
}

/* Total bytes of n blocks of a v or w variant, the largest in *block: the
 * send side (scounts, stype or stypes) or the receive side. */
static inline size_t call_vector_bytes(const hyt_args_t *a, int send, int n, size_t *block)
{
    const int *ci = send ? a->scounts : a->rcounts;
    const MPI_Count *cc = send ? a->cscounts : a->crcounts;
    const MPI_Datatype *types = send ? a->stypes : a->rtypes;
    size_t one = types ? 0 : call_type_size(send ? a->stype : a->type), total = 0, big = 0;
    if (a->large ? !cc : !ci)
        n = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count c = a->large ? cc[i] : ci[i];
        size_t b = c > 0 ? (size_t)c * (types ? call_type_size(types[i]) : one) : 0;
        total += b;
        if (b > big)
            big = b;
    }
    *block = big;
    return total;
}

/* Which side of a rooted collective this rank is: 1 root, 0 leaf, -1
 * neither (an intercommunicator's MPI_PROC_NULL ranks). */
static inline int call_root_side(const hyt_args_t *a, const hyt_comm_t *ctx)
{
    if (ctx->is_inter)
        return a->root == MPI_ROOT ? 1 : a->root == MPI_PROC_NULL ? -1 : 0;
    return a->root == ctx->rank;
}

/* The size of a call of any collective (hyt_args_t.bytes) and its largest
 * block.  The six original collectives take the first branch. */
static HYT_INLINE size_t hyt_call_size(const hyt_args_t *a, hyt_comm_t *ctx, size_t *block)
{
    MPI_Count count = a->large ? a->ccount : a->count;
    MPI_Count scount = a->large ? a->cscount : a->scount;
    int side, in, out;
    switch (a->coll) {
    case HYT_COLL_ALLREDUCE:
    case HYT_COLL_BCAST:
    case HYT_COLL_REDUCE:
    case HYT_COLL_ALLGATHER:
    case HYT_COLL_ALLTOALL:
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
    case HYT_COLL_SCAN:
    case HYT_COLL_EXSCAN:
        return *block = call_nbytes(count, a->type);
    case HYT_COLL_BARRIER:
    case HYT_NCOLL:
        break;
    case HYT_COLL_GATHER:
        side = ctx ? call_root_side(a, ctx) : 0;
        return *block = side > 0 ? call_nbytes(count, a->type) : side == 0 ? call_nbytes(scount, a->stype) : 0;
    case HYT_COLL_SCATTER:
        side = ctx ? call_root_side(a, ctx) : 0;
        return *block = side > 0 ? call_nbytes(scount, a->stype) : side == 0 ? call_nbytes(count, a->type) : 0;
    case HYT_COLL_GATHERV:
        side = ctx ? call_root_side(a, ctx) : 0;
        if (side > 0)
            return call_vector_bytes(a, 0, ctx->remote_size, block);
        return *block = side == 0 ? call_nbytes(scount, a->stype) : 0;
    case HYT_COLL_SCATTERV:
        side = ctx ? call_root_side(a, ctx) : 0;
        if (side > 0)
            return call_vector_bytes(a, 1, ctx->remote_size, block);
        return *block = side == 0 ? call_nbytes(count, a->type) : 0;
    case HYT_COLL_ALLGATHERV:
        return ctx ? call_vector_bytes(a, 0, ctx->remote_size, block) : (*block = 0);
    case HYT_COLL_REDUCE_SCATTER:
        return ctx ? call_vector_bytes(a, 0, ctx->size, block) : (*block = 0);
    case HYT_COLL_ALLTOALLV:
    case HYT_COLL_ALLTOALLW: /* MPI_IN_PLACE: the send side is the receive side */
        return ctx ? call_vector_bytes(a, a->sbuf != MPI_IN_PLACE, ctx->remote_size, block)
                   : (*block = 0);
    case HYT_COLL_NEIGHBOR_ALLGATHER:
    case HYT_COLL_NEIGHBOR_ALLTOALL:
        return *block = call_nbytes(scount, a->stype);
    case HYT_COLL_NEIGHBOR_ALLGATHERV:
        if (!ctx)
            break;
        hyt_comm_degrees(ctx, &in, &out);
        return call_vector_bytes(a, 0, in, block);
    case HYT_COLL_NEIGHBOR_ALLTOALLV:
    case HYT_COLL_NEIGHBOR_ALLTOALLW:
        if (!ctx)
            break;
        hyt_comm_degrees(ctx, &in, &out);
        return call_vector_bytes(a, 1, out, block);
    }
    return *block = 0;
}

static inline size_t hyt_call_bytes(const hyt_args_t *a)
{
    size_t block;
    hyt_comm_t *ctx = a->ctx;
    if (!ctx && ((hyt_coll_props(a->coll) & HYT_CP_VECTOR) || a->coll == HYT_COLL_GATHER ||
                 a->coll == HYT_COLL_SCATTER))
        ctx = hyt_comm_get(a->comm); /* which rank is the root, how many ranks */
    return hyt_call_size(a, ctx, &block);
}

#endif
