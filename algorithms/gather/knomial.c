/* Gather, k-nomial tree.
 *
 * Algorithm (algorithms/pattern.h, hyt_kn_*): ranks relative to the root
 * form a k-nomial tree whose subtrees are contiguous ranges of relative
 * ranks.  Every rank collects its subtree's blocks from its children, in
 * relative order behind its own, and sends the range to its parent in one
 * message; the root puts each block in place with the receive datatype.
 * Blocks travel as their packed bytes (every rank's block has the same type
 * signature, so the same size), which takes any send and receive datatype;
 * at the root a child's range goes straight into the receive buffer when the
 * receive type is contiguous and the range does not wrap past rank p-1.
 * Cost ceil(log_k p) levels of latency against p-1 for a flat gather, with
 * (p-1) n bytes into the root as in any gather; inner nodes forward their
 * subtree's data once.  k = 2 is the binomial gather, k >= p the flat one. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"


/* Receive a child's range [c, c + cs) (relative ranks) at the root: into
 * the receive buffer directly, or into tmp at relative offset c. */
static int root_irecv(const hyt_args_t *a, const hyt_kn_t *t, int c, int cs, long bsz, char *tmp,
                      int direct, MPI_Aint ext, MPI_Request *req)
{
    int abs = hyt_kn_abs(t, c);
    if (direct && abs + cs <= t->p)
        return hyt_p2p_irecv(a, (char *)a->rbuf + (MPI_Aint)abs * a->count * ext,
                             (int)(cs * bsz), MPI_BYTE, abs, req);
    return hyt_p2p_irecv(a, tmp + c * bsz, (int)(cs * bsz), MPI_BYTE, abs, req);
}

/* Unpack relative blocks [c, c + cs) from tmp into the receive buffer. */
static int root_unpack(const hyt_args_t *a, const hyt_kn_t *t, int c, int cs, long bsz,
                       const char *tmp, MPI_Aint ext)
{
    int rc = MPI_SUCCESS;
    while (cs > 0 && rc == MPI_SUCCESS) {
        int abs = hyt_kn_abs(t, c), run = t->p - abs < cs ? t->p - abs : cs, pos = 0;
        rc = hyt_p2p_unpack(a, tmp + c * bsz, (int)(run * bsz), &pos,
                            (char *)a->rbuf + (MPI_Aint)abs * a->count * ext, run * a->count,
                            a->type);
        c += run;
        cs -= run;
    }
    return rc;
}

int hyt_gather_knomial(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, me = a->ctx->rank, root = me == a->root, nr = 0;
    hyt_knb_t kb;
    int rc = hyt_knb_init(&kb, a->ctx, k, a->root, root ? a->count : a->scount,
                          root ? a->type : a->stype);
    if (rc != MPI_SUCCESS || kb.bsz == 0)
        return rc;
    hyt_kn_t t = kb.t;
    int n = kb.n;
    long bsz = kb.bsz;
    char *tmp = kb.tmp;
    MPI_Aint ext = kb.ext;
    MPI_Request *req = kb.req;
    int direct = root && hyt_type_is_contig(a->type);
    for (long m = 1; m < t.mask && rc == MPI_SUCCESS; m *= t.k)
        for (int j = 1; j <= hyt_kn_nchildren_at(&t, (int)m) && rc == MPI_SUCCESS; j++) {
            int c = hyt_kn_child_rel(&t, (int)m, j), cs = hyt_kn_child_subtree(&t, (int)m, j);
            if (root)
                rc = root_irecv(a, &t, c, cs, bsz, tmp, direct, ext, &req[nr++]);
            else
                rc = hyt_p2p_irecv(a, tmp + (c - t.rel) * bsz, (int)(cs * bsz), MPI_BYTE,
                                   hyt_kn_abs(&t, c), &req[nr++]);
        }
    if (root) {
        if (a->sbuf != MPI_IN_PLACE && rc == MPI_SUCCESS)
            rc = hyt_p2p_copy(a, a->sbuf, a->scount, a->stype,
                              (char *)a->rbuf + (MPI_Aint)me * a->count * ext, a->count, a->type);
    } else if (rc == MPI_SUCCESS) {
        int pos = 0;
        rc = hyt_p2p_pack(a, a->sbuf, a->scount, a->stype, tmp, (int)bsz, &pos);
    }
    int rc2 = hyt_p2p_waitall(nr, req);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && !root)
        return hyt_p2p_send(a, tmp, (int)(n * bsz), MPI_BYTE, t.parent);
    for (long m = 1; m < t.mask && rc == MPI_SUCCESS; m *= t.k)
        for (int j = 1; j <= hyt_kn_nchildren_at(&t, (int)m) && rc == MPI_SUCCESS; j++) {
            int c = hyt_kn_child_rel(&t, (int)m, j), cs = hyt_kn_child_subtree(&t, (int)m, j);
            if (!direct || hyt_kn_abs(&t, c) + cs > p)
                rc = root_unpack(a, &t, c, cs, bsz, tmp, ext);
        }
    return rc;
}
