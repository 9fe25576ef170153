/* k-port Bruck Alltoall (k >= 2; k = 2 is Bruck's algorithm).
 *
 * Algorithm: rotate locally so position j holds the block for rank
 * (rank + j) mod p.  For every base-k digit position d = 1, k, k^2, ... (< p)
 * and every digit value v = 1..k-1, the blocks whose index has digit v at d
 * are packed and sent to rank + v*d, and the same positions are received
 * from rank - v*d (the k-1 exchanges of a digit run concurrently).  A block
 * moves by its own index in total, so afterwards position j holds the block
 * that rank - j sent to this rank; a final reversed rotation puts the blocks
 * in source order.
 * Cost: ceil(log_k p) rounds of k-1 messages, each of about p/k blocks:
 * (k-1)/k * p * log_k p blocks moved per rank against p-1 for pairwise.
 * The small-block choice; k trades rounds for volume (k >= p is a direct
 * exchange of everything in one round). */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

typedef struct {
    const hyt_args_t *a; /* the call (algorithms/p2p.h) */
    int p, k, count;
    MPI_Datatype type;
    MPI_Aint bext;      /* bytes between blocks */
    char *rot;          /* rotated blocks */
    char *spack, *rpack;/* packed blocks of one round, p blocks each */
} kb_t;

/* Copy the blocks with digit v at digit position d between rot and a
 * packed buffer (dir 0: pack, 1: unpack); returns the number of blocks. */
static int kb_move(const kb_t *b, long d, int v, char *pack, int dir, int *rc)
{
    int nb = 0;
    for (long j0 = v * d; j0 < b->p && *rc == MPI_SUCCESS; j0 += b->k * d) {
        long run = d < b->p - j0 ? d : b->p - j0;
        int n = (int)run * b->count;
        char *rp = b->rot + j0 * b->bext, *pp = pack + nb * b->bext;
        *rc = dir == 0 ? hyt_p2p_copy(b->a, rp, n, b->type, pp, n, b->type)
                       : hyt_p2p_copy(b->a, pp, n, b->type, rp, n, b->type);
        nb += (int)run;
    }
    return nb;
}

static int kb_round(const kb_t *b, long d, int r, MPI_Request *req)
{
    int rc = MPI_SUCCESS, nreq = 0, off = 0;
    int offs[b->k > 0 ? b->k : 1];
    for (int v = 1; v < b->k && v * d < b->p && rc == MPI_SUCCESS; v++) {
        offs[v] = off;
        int nb = kb_move(b, d, v, b->spack + off * b->bext, 0, &rc);
        int to = (int)((r + v * d) % b->p), from = (int)((r - v * d % b->p + b->p) % b->p);
        if (rc == MPI_SUCCESS)
            rc = hyt_p2p_irecv(b->a, b->rpack + off * b->bext, nb * b->count, b->type, from,
                               &req[nreq++]);
        if (rc == MPI_SUCCESS)
            rc = hyt_p2p_isend(b->a, b->spack + off * b->bext, nb * b->count, b->type, to,
                               &req[nreq++]);
        off += nb;
    }
    int rc2 = hyt_p2p_waitall(nreq, req);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : rc2;
    for (int v = 1; v < b->k && v * d < b->p && rc == MPI_SUCCESS; v++)
        kb_move(b, d, v, b->rpack + offs[v] * b->bext, 1, &rc);
    return rc;
}

int hyt_alltoall_kbruck(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, r = a->ctx->rank, rc = MPI_SUCCESS;
    if (a->count == 0)
        return MPI_SUCCESS;
    k = k < 2 ? 2 : (k > p ? p : k);
    if (k > 4096)
        k = 4096; /* keeps the per-round offset table on the stack small */
    MPI_Aint lb, ext, sext = 0;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    hyt_pat_blocks_t l; /* each of the three areas: p blocks */
    if (hyt_pat_blocks(&l, p, a->count, a->type) != MPI_SUCCESS)
        return HYT_UNSUPPORTED;
    kb_t b = {.a = a, .p = p, .k = k, .count = l.count, .type = l.type, .bext = l.bext};
    MPI_Aint tlb = l.true_lb, rbext = ext * a->count;
    size_t stride = (l.bytes + 63) & ~(size_t)63;
    size_t rq = ((size_t)2 * k * sizeof(MPI_Request) + 63) & ~(size_t)63;
    char *s1 = hyt_scratch(a->ctx, stride), *s2 = hyt_scratch2(a->ctx, rq + 2 * stride);
    if (!s1 || !s2)
        return MPI_ERR_NO_MEM;
    MPI_Request *req = (MPI_Request *)(void *)s2;
    b.rot = s1 - tlb;
    b.spack = s2 + rq - tlb;
    b.rpack = s2 + rq + stride - tlb;
    /* rotate: position j <- the block for rank r + j (from sbuf, or rbuf in place) */
    const char *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    MPI_Datatype st = a->sbuf == MPI_IN_PLACE ? a->type : a->stype;
    int sc = a->sbuf == MPI_IN_PLACE ? a->count : a->scount;
    PMPI_Type_get_extent(st, &lb, &sext);
    MPI_Aint sbext = sext * sc;
    rc = hyt_p2p_copy(a, src + r * sbext, (p - r) * sc, st, b.rot, (p - r) * b.count, b.type);
    if (rc == MPI_SUCCESS && r > 0)
        rc = hyt_p2p_copy(a, src, r * sc, st, b.rot + (p - r) * b.bext, r * b.count, b.type);
    for (long d = 1; d < p && rc == MPI_SUCCESS; d *= k)
        rc = kb_round(&b, d, r, req);
    /* position j came from rank r - j */
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
        rc = hyt_p2p_copy(a, b.rot + j * b.bext, b.count, b.type,
                          (char *)a->rbuf + ((r - j + p) % p) * rbext, a->count, a->type);
    return rc;
}
