/* Scatter, k-nomial tree.
 *
 * Algorithm (algorithms/pattern.h, hyt_kn_*): the mirror of the k-nomial
 * Gather.  The root sends every child the blocks of its subtree (a
 * contiguous range of relative ranks) in one message, largest subtrees
 * first; an inner rank receives its subtree's range, forwards its
 * children's parts and keeps its own block.  Blocks travel as packed bytes
 * (all blocks have the same type signature); the root sends straight from
 * the send buffer when the send type is contiguous and the range does not
 * wrap past rank p-1, and a leaf with a contiguous receive type receives
 * straight into its receive buffer.
 * Cost ceil(log_k p) levels of latency against p-1 for a flat scatter,
 * (p-1) n bytes out of the root; k = 2 is the binomial scatter, k >= p the
 * flat one. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"


/* At the root: relative blocks [c, c + cs) ready to send, *out (packed into
 * tmp at offset c unless they can go straight from the send buffer). */
static int root_range(const hyt_args_t *a, const hyt_kn_t *t, int c, int cs, long bsz, char *tmp,
                      int direct, MPI_Aint ext, const char **out)
{
    int abs = hyt_kn_abs(t, c), rc = MPI_SUCCESS;
    if (direct && abs + cs <= t->p) {
        *out = (const char *)a->sbuf + (MPI_Aint)abs * a->scount * ext;
        return MPI_SUCCESS;
    }
    *out = tmp + c * bsz;
    /* at most two runs: up to rank p-1, then from rank 0 */
    for (char *at = tmp + c * bsz; cs > 0 && rc == MPI_SUCCESS; abs = 0) {
        int run = t->p - abs < cs ? t->p - abs : cs, pos = 0;
        rc = hyt_p2p_pack(a, (const char *)a->sbuf + (MPI_Aint)abs * a->scount * ext,
                          run * a->scount, a->stype, at, (int)(run * bsz), &pos);
        at += run * bsz;
        cs -= run;
    }
    return rc;
}

int hyt_scatter_knomial(const hyt_args_t *a, int k)
{
    int me = a->ctx->rank, root = me == a->root, nr = 0;
    hyt_knb_t kb;
    int rc = hyt_knb_init(&kb, a->ctx, k, a->root, root ? a->scount : a->count,
                          root ? a->stype : a->type);
    if (rc != MPI_SUCCESS || kb.bsz == 0)
        return rc;
    hyt_kn_t t = kb.t;
    int nch = kb.nch, n = kb.n;
    long bsz = kb.bsz;
    MPI_Request *req = kb.req;
    char *tmp = kb.tmp;
    MPI_Aint ext = kb.ext;
    int leaf_direct = !root && nch == 0 && hyt_type_is_contig(a->type);
    if (!root) {
        rc = hyt_p2p_recv(a, leaf_direct ? a->rbuf : tmp, (int)(n * bsz), MPI_BYTE, t.parent);
        if (leaf_direct)
            return rc;
    }
    int direct = root && hyt_type_is_contig(a->stype);
    for (long m = t.mask / t.k; m >= 1 && rc == MPI_SUCCESS; m /= t.k)
        for (int j = hyt_kn_nchildren_at(&t, (int)m); j >= 1 && rc == MPI_SUCCESS; j--) {
            int c = hyt_kn_child_rel(&t, (int)m, j), cs = hyt_kn_child_subtree(&t, (int)m, j);
            const char *from = tmp + (c - t.rel) * bsz;
            if (root)
                rc = root_range(a, &t, c, cs, bsz, tmp, direct, ext, &from);
            if (rc == MPI_SUCCESS)
                rc = hyt_p2p_isend(a, from, (int)(cs * bsz), MPI_BYTE, hyt_kn_abs(&t, c),
                                   &req[nr++]);
        }
    if (rc == MPI_SUCCESS && root && a->rbuf != MPI_IN_PLACE)
        rc = hyt_p2p_copy(a, (const char *)a->sbuf + (MPI_Aint)me * a->scount * ext, a->scount,
                          a->stype, a->rbuf, a->count, a->type);
    else if (rc == MPI_SUCCESS && !root) {
        int pos = 0;
        rc = hyt_p2p_unpack(a, tmp, (int)bsz, &pos, a->rbuf, a->count, a->type);
    }
    int rc2 = hyt_p2p_waitall(nr, req);
    return rc != MPI_SUCCESS ? rc : rc2;
}
