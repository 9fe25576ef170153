/* Pairwise-exchange Alltoall.
 *
 * Algorithm: p-1 steps; in step i a rank sends its block for rank + i and
 * receives the block of rank - i (one PMPI_Sendrecv), so every step is a
 * perfect matching of senders and receivers.  In place, the input is first
 * copied to scratch so no block is overwritten before it is sent.
 * Cost: p-1 steps, (p-1) blocks per rank, one message in flight per rank:
 * the large-block choice, no radix. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

int hyt_alltoall_pairwise(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size, r = a->ctx->rank, rc = MPI_SUCCESS;
    if (a->count == 0)
        return MPI_SUCCESS;
    MPI_Aint lb, ext, sext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    const char *src = a->sbuf;
    MPI_Datatype st = a->stype;
    int sc = a->scount;
    if (a->sbuf == MPI_IN_PLACE) {
        hyt_pat_blocks_t l; /* a copy of the receive buffer: p blocks */
        if (hyt_pat_blocks(&l, p, a->count, a->type) != MPI_SUCCESS)
            return HYT_UNSUPPORTED;
        char *s = hyt_scratch(a->ctx, l.bytes);
        if (!s)
            return MPI_ERR_NO_MEM;
        src = s - l.true_lb;
        st = l.type;
        sc = l.count;
        rc = hyt_p2p_copy(a, a->rbuf, p * a->count, a->type, (char *)src, p * sc, st);
    }
    PMPI_Type_get_extent(st, &lb, &sext);
    char *rb = a->rbuf;
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_copy(a, src + r * sc * sext, sc, st, rb + r * a->count * ext, a->count,
                          a->type);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int to = (r + i) % p, from = (r - i + p) % p;
        rc = hyt_p2p_sendrecv(a, src + to * sc * sext, sc, st, to, rb + from * a->count * ext,
                              a->count, a->type, from);
    }
    return rc;
}
