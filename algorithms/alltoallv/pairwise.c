/* Alltoallv, pairwise exchange.
 *
 * Algorithm: the own block is copied locally, then in step i = 1..p-1 a
 * rank sends its block for rank + i and receives the block of rank - i
 * (one exchange per step, each block straight from sdispls and into
 * rdispls), so every step is a perfect matching and zero-count blocks cost
 * an empty message.  In place the input is first copied to scratch.
 * Cost p-1 steps, one message in flight per rank: no network congestion
 * whatever the skew, the large-block choice; no radix. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

/* The send side of an Alltoallv (the receive side copied to scratch when in
 * place); shared by the Alltoallv kernels. */
int hyt_alltoallv_src(const hyt_args_t *a, hyt_a2av_t *s)
{
    s->buf = a->sbuf;
    s->counts = a->scounts;
    s->displs = a->sdispls;
    s->type = a->stype;
    if (a->sbuf == MPI_IN_PLACE) {
        int end = 0;
        for (int i = 0; i < a->ctx->size; i++)
            if (a->rcounts[i] > 0 && a->rdispls[i] + a->rcounts[i] > end)
                end = a->rdispls[i] + a->rcounts[i];
        MPI_Aint tlb;
        char *tmp = hyt_scratch(a->ctx, hyt_pat_span(end, a->type, &tlb) + 1);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        s->buf = tmp - tlb;
        s->counts = a->rcounts;
        s->displs = a->rdispls;
        s->type = a->type;
        int rc = hyt_p2p_copy(a, a->rbuf, end, a->type, tmp - tlb, end, a->type);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    MPI_Aint lb;
    PMPI_Type_get_extent(s->type, &lb, &s->ext);
    PMPI_Type_get_extent(a->type, &lb, &s->rext);
    int me = a->ctx->rank;
    return hyt_p2p_copy(a, hyt_a2av_sbuf(s, me), s->counts[me], s->type,
                        hyt_a2av_rbuf(a, s, me), a->rcounts[me], a->type);
}

int hyt_alltoallv_pairwise(const hyt_args_t *a, int k)
{
    (void)k;
    int p = a->ctx->size, me = a->ctx->rank;
    hyt_a2av_t s;
    int rc = hyt_alltoallv_src(a, &s);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int to = (me + i) % p, from = (me - i + p) % p;
        rc = hyt_p2p_sendrecv(a, hyt_a2av_sbuf(&s, to), s.counts[to], s.type, to,
                              hyt_a2av_rbuf(a, &s, from), a->rcounts[from], a->type, from);
    }
    return rc;
}
