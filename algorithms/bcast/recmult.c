/* Bcast, recursive multiplying: k-ary scatter, then recursive-multiplying
 * allgather.
 *
 * Algorithm (algorithms/pattern.h, hyt_rm_*), on ranks relative to the root:
 * p' = k^m is the largest power of k <= p and the ranks form p' contiguous
 * blocks of 1..k ranks whose first rank is the leader (the root leads block
 * 0).  The message, as N bytes, is split into p' chunks as evenly as possible
 * (chunks may be empty when N < p').  Scatter: for r = m down to 1 a leader
 * holding k^r chunks keeps the first k^(r-1) and sends each of the k-1 other
 * k^(r-1)-chunk ranges to the leader they belong to.  Allgather: for
 * r = 1..m each leader exchanges its k^(r-1) chunks with the k-1 other
 * leaders of its group.  Leaders then send the whole message to their block
 * members.  Cost about 2 * log_k p' * alpha + 2 * N*beta for the leaders
 * (plus one fold-out step): the large-message Bcast, where k > 2 cuts the
 * rounds and lets a node drive several links at once.
 *
 * Data moves as bytes so that ranks with different datatypes of the same
 * signature agree on the chunks: a contiguous datatype is used in place,
 * any other is packed into the scratch area (root) and unpacked at the end. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

#include <limits.h>

typedef struct {
    const hyt_args_t *a;
    hyt_rm_t rm;
    char *buf;       /* the N message bytes */
    long n;          /* N */
    MPI_Request *req;
} bc_t;

/* Absolute rank of the leader of block i (relative to the root). */
static int leader_rank(const bc_t *b, int i)
{
    return (hyt_rm_block_start(&b->rm, i) + b->a->root) % b->rm.p;
}

/* Post a transfer of the bytes of chunks [lo, hi); empty ranges are skipped
 * on both sides (both compute the same bounds). */
static int xfer(bc_t *b, int send, int lo, int hi, int peer_blk, int *nr)
{
    long from = hyt_pat_split(b->n, b->rm.np, lo), to = hyt_pat_split(b->n, b->rm.np, hi);
    if (to == from)
        return MPI_SUCCESS;
    int peer = leader_rank(b, peer_blk);
    MPI_Request *r = &b->req[(*nr)++];
    if (send)
        return hyt_p2p_isend(b->a, b->buf + from, (int)(to - from), MPI_BYTE, peer, r);
    return hyt_p2p_irecv(b->a, b->buf + from, (int)(to - from), MPI_BYTE, peer, r);
}

static int waitall(bc_t *b, int nr, int rc)
{
    int rc2 = hyt_p2p_waitall(nr, b->req);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int scatter(bc_t *b, int blk)
{
    int k = b->rm.k, rc = MPI_SUCCESS;
    for (int r = b->rm.m; r >= 1 && rc == MPI_SUCCESS; r--) {
        int s = hyt_rm_spacing(&b->rm, r), nr = 0;
        if (blk % (k * s) == 0) { /* I hold chunks [blk, blk + k*s) */
            for (int j = 1; j < k && rc == MPI_SUCCESS; j++)
                rc = xfer(b, 1, blk + j * s, blk + (j + 1) * s, blk + j * s, &nr);
        } else if (blk % s == 0) { /* my range arrives in this round */
            int src = blk - blk % (k * s);
            rc = xfer(b, 0, blk, blk + s, src, &nr);
        }
        rc = waitall(b, nr, rc);
    }
    return rc;
}

static int allgather(bc_t *b, int blk)
{
    int rc = MPI_SUCCESS;
    for (int r = 1; r <= b->rm.m && rc == MPI_SUCCESS; r++) {
        int s = hyt_rm_spacing(&b->rm, r), d = hyt_rm_digit(&b->rm, blk, s), nr = 0;
        for (int j = 0; j < b->rm.k && rc == MPI_SUCCESS; j++) {
            if (j == d)
                continue;
            int peer = hyt_rm_peer(&b->rm, blk, s, j), lo, hi, plo, phi;
            hyt_rm_cover(blk, s, &lo, &hi);
            hyt_rm_cover(peer, s, &plo, &phi);
            rc = xfer(b, 0, plo, phi, peer, &nr);
            if (rc == MPI_SUCCESS)
                rc = xfer(b, 1, lo, hi, peer, &nr);
        }
        rc = waitall(b, nr, rc);
    }
    return rc;
}

static int leader(bc_t *b, int blk)
{
    int rc = scatter(b, blk);
    if (rc == MPI_SUCCESS)
        rc = allgather(b, blk);
    int first = hyt_rm_block_start(&b->rm, blk), nr = 0;
    for (int j = 1; j < hyt_rm_block_size(&b->rm, blk) && rc == MPI_SUCCESS; j++)
        rc = hyt_p2p_isend(b->a, b->buf, (int)b->n, MPI_BYTE, (first + j + b->a->root) % b->rm.p,
                           &b->req[nr++]);
    return waitall(b, nr, rc);
}

int hyt_bcast_recmult(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, rel = (a->ctx->rank - a->root + p) % p, size;
    PMPI_Type_size(a->type, &size);
    long long n = (long long)a->count * size; /* the same on every rank */
    if (n > INT_MAX)
        return HYT_UNSUPPORTED;
    if (p == 1 || n == 0)
        return MPI_SUCCESS;
    bc_t b = {.a = a, .n = (long)n};
    hyt_rm_init(&b.rm, p, k);
    int contig = hyt_type_is_contig(a->type), pos = 0, rc = MPI_SUCCESS;
    b.buf = contig ? a->rbuf : hyt_scratch(a->ctx, (size_t)n);
    b.req = hyt_pat_reqs(a->ctx, 2 * b.rm.k);
    if (!b.buf || !b.req)
        return MPI_ERR_NO_MEM;
    if (!contig && rel == 0)
        rc = hyt_p2p_pack(a, a->rbuf, a->count, a->type, b.buf, (int)n, &pos);
    int blk = hyt_rm_block_of(&b.rm, rel), first = hyt_rm_block_start(&b.rm, blk);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rel == first)
        rc = leader(&b, blk);
    else
        rc = hyt_p2p_recv(a, b.buf, (int)n, MPI_BYTE, leader_rank(&b, blk));
    if (rc != MPI_SUCCESS || contig || rel == 0)
        return rc;
    return hyt_p2p_unpack(a, b.buf, (int)n, &pos, a->rbuf, a->count, a->type);
}
