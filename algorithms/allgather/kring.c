/* k-ring Allgather, and the k-ring engine shared with Bcast and Allreduce.
 *
 * Algorithm: the p ranks form G = ceil(p/k) groups of k consecutive ranks
 * (hyt_kring_*; the last group holds s = p - (G-1)*k ranks).  Rank g*k + c
 * sits in group g at column c.  The data is cut into G*k units, one per
 * (group, column) cell; a cell of the short last group with no rank of its
 * own (c >= s) is served by the last-group rank of column c mod s.
 *   1. column rings: for every column c, the G cells (0,c) .. (G-1,c) run a
 *      ring allgather (G-1 steps).  The k columns run at the same time, so
 *      the inter-group traffic leaves every group through k ranks at once.
 *   2. group rings: inside every group a ring allgather (k-1 steps) whose
 *      unit is a whole column (rank j of a group of size sz carries the
 *      columns c with c mod sz == j).
 * Cost: (G-1) + (k-1) steps instead of the ring's p-1, with the same
 * (p-1)/p * n bytes per rank; the G-1 column steps cross groups and the k-1
 * group steps stay inside a group.  With k = ranks per node a step either
 * stays inside a node or uses all of the node's links together, which is
 * where k helps; k = 1 (one column) and k >= p (one group) are the ring.
 * Allreduce runs the reverse first (group ring reduce-scatter, then column
 * ring reduce-scatter) and then the two allgather phases; Bcast scatters
 * the cells from the root and runs the two allgather phases.
 *
 * Layouts: Allgather units are the ranks' blocks in rank order, so a column
 * is a strided vector (an hvector of the user type); an empty cell is a
 * missing block.  Bcast and Allreduce cut the count elements into G*k cells
 * in column-major order (cell (g,c) is part c*G + g), so a column is one
 * contiguous range and a reduction needs no packing. */
#include "algorithms/algorithms.h"
#include "algorithms/pattern.h"

/* Rank serving cell (g, c). */
static int kr_owner(const hyt_kr_t *kr, int g, int c)
{
    if (g < kr->g.ngroups - 1)
        return g * kr->g.k + c;
    return g * kr->g.k + c % kr->g.last;
}

/* Columns carried by member j of a group of size sz: j, j+sz, ... < k. */
#define KR_FOR_COLS(kr, c, j, sz) for (int c = (j); c < (kr)->g.k; c += (sz))

/* Cell (g, c): where its data starts, how many `*dt` it holds (0: none). */
static void kr_cell(const hyt_kr_t *kr, int g, int c, char **ptr, int *n, MPI_Datatype *dt)
{
    *dt = kr->type;
    if (kr->vcounts) {
        int v = g * kr->g.k + c;
        *n = v < kr->g.p ? kr->vcounts[v] : 0;
        *ptr = kr->buf + (v < kr->g.p ? (MPI_Aint)kr->vdispls[v] * kr->ext : 0);
        return;
    }
    if (kr->blocks) {
        int v = g * kr->g.k + c;
        *n = v < kr->g.p ? kr->count : 0;
        *ptr = kr->buf + (MPI_Aint)v * kr->count * kr->ext;
        return;
    }
    int i = c * kr->g.ngroups + g, V = kr->g.ngroups * kr->g.k;
    long lo = hyt_pat_split(kr->count, V, i), hi = hyt_pat_split(kr->count, V, i + 1);
    *n = (int)(hi - lo);
    *ptr = kr->buf + (MPI_Aint)lo * kr->ext;
}

/* Whole column c. */
static void kr_column(const hyt_kr_t *kr, int c, char **ptr, int *n, MPI_Datatype *dt)
{
    if (kr->vcounts) {
        *ptr = kr->buf;
        *dt = kr->vcol[c];
        *n = kr->vcol[c] != MPI_DATATYPE_NULL;
        return;
    }
    if (kr->blocks) {
        int G = kr->g.ngroups, nb = c < kr->g.last ? G : G - 1;
        *ptr = kr->buf + (MPI_Aint)c * kr->count * kr->ext;
        *dt = kr->col[c < kr->g.last ? 0 : 1];
        *n = nb > 0 && kr->count > 0 ? 1 : 0;
        return;
    }
    int G = kr->g.ngroups, V = G * kr->g.k;
    long lo = hyt_pat_split(kr->count, V, c * G), hi = hyt_pat_split(kr->count, V, (c + 1) * G);
    *ptr = kr->buf + (MPI_Aint)lo * kr->ext;
    *n = (int)(hi - lo);
    *dt = kr->type;
}

static char *kr_tmp(const hyt_kr_t *kr, char *ptr)
{
    return kr->tmp + (ptr - kr->buf);
}

int hyt_kr_init(hyt_kr_t *kr, const hyt_args_t *a, int k, void *buf, int count, int blocks,
                int nreq_min)
{
    int p = a->ctx->size;
    hyt_kring_init(&kr->g, p, k < 1 ? 1 : k);
    kr->rank = a->ctx->rank;
    kr->a = a;
    kr->buf = buf;
    kr->tmp = NULL;
    kr->type = a->type;
    kr->op = a->op;
    kr->count = count;
    kr->blocks = blocks;
    kr->col[0] = kr->col[1] = MPI_DATATYPE_NULL;
    kr->vcounts = kr->vdispls = NULL;
    kr->vcol = NULL;
    MPI_Aint lb;
    PMPI_Type_get_extent(a->type, &lb, &kr->ext);
    /* a last-group rank carries up to ceil(k/s) columns: two requests and
     * one pending reduction each per step; all from scratch2 (no stack
     * arrays sized by k) */
    int per = (kr->g.k + kr->g.last - 1) / kr->g.last;
    int nreq = 2 * per + 2 > nreq_min ? 2 * per + 2 : nreq_min;
    size_t bytes = (size_t)nreq * sizeof(MPI_Request) + (size_t)per * sizeof(char *) +
                   (size_t)per * sizeof(int);
    char *area = hyt_scratch2(a->ctx, bytes);
    if (!area)
        return MPI_ERR_NO_MEM;
    kr->req = (MPI_Request *)(void *)area;
    kr->rptr = (char **)(void *)(area + (size_t)nreq * sizeof(MPI_Request));
    kr->rn = (int *)(void *)(area + (size_t)nreq * sizeof(MPI_Request) + (size_t)per * sizeof(char *));
    if (!blocks || count == 0)
        return MPI_SUCCESS;
    int G = kr->g.ngroups;
    MPI_Aint stride = (MPI_Aint)kr->g.k * count * kr->ext;
    int rc = PMPI_Type_create_hvector(G, count, stride, a->type, &kr->col[0]);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&kr->col[0]);
    if (rc == MPI_SUCCESS && G > 1) {
        rc = PMPI_Type_create_hvector(G - 1, count, stride, a->type, &kr->col[1]);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_commit(&kr->col[1]);
    }
    return rc;
}

/* Allgatherv: cell (g, c) is the block of rank g*k + c at its
 * displacement, column c the blocks of ranks c, c+k, ... as one indexed
 * type (MPI_DATATYPE_NULL when they hold nothing).  The k column types and
 * the two index arrays that build them come from hyt_scratch. */
int hyt_kr_init_v(hyt_kr_t *kr, const hyt_args_t *a, int k)
{
    int rc = hyt_kr_init(kr, a, k, a->rbuf, 0, 1, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    int K = kr->g.k, G = kr->g.ngroups;
    char *area = hyt_scratch(a->ctx, hyt_kr_v_bytes(kr->g.p, k));
    if (!area)
        return MPI_ERR_NO_MEM;
    MPI_Datatype *col = (MPI_Datatype *)(void *)area;
    int *bl = (int *)(void *)(area + (size_t)K * sizeof *col), *dis = bl + G;
    for (int c = 0; c < K; c++)
        col[c] = MPI_DATATYPE_NULL;
    kr->vcol = col;
    kr->vcounts = a->rcounts;
    kr->vdispls = a->rdispls;
    for (int c = 0; c < K && rc == MPI_SUCCESS; c++) {
        int nb = 0;
        long total = 0;
        for (int v = c; v < kr->g.p; v += K, nb++) {
            bl[nb] = a->rcounts[v];
            dis[nb] = a->rdispls[v];
            total += bl[nb];
        }
        if (total == 0)
            continue;
        rc = PMPI_Type_indexed(nb, bl, dis, a->type, &col[c]);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_commit(&col[c]);
    }
    return rc;
}

size_t hyt_kr_v_bytes(int p, int k)
{
    hyt_kring_t g;
    hyt_kring_init(&g, p, k < 1 ? 1 : k);
    return (size_t)g.k * sizeof(MPI_Datatype) + 2 * (size_t)g.ngroups * sizeof(int);
}

void hyt_kr_free(hyt_kr_t *kr)
{
    for (int i = 0; i < 2; i++)
        if (kr->col[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&kr->col[i]);
    for (int c = 0; kr->vcol && c < kr->g.k; c++)
        if (kr->vcol[c] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&kr->vcol[c]);
}

/* Complete the step's requests, then (reducing) fold every unit noted by
 * kr_recv in. */
static int kr_finish(hyt_kr_t *kr, int nreq, int nr, int reduce)
{
    int rc = hyt_p2p_waitall(nreq, kr->req);
    for (int i = 0; reduce && rc == MPI_SUCCESS && i < nr; i++)
        rc = PMPI_Reduce_local(kr_tmp(kr, kr->rptr[i]), kr->rptr[i], kr->rn[i], kr->type,
                               kr->op);
    return rc;
}

/* Post the receive of one unit (into the temporary mirror when reducing)
 * and note it for kr_finish; shared by the group and column rings. */
static int kr_recv(hyt_kr_t *kr, char *ptr, int n, MPI_Datatype dt, int src, int reduce,
                   int *nreq, int *nr)
{
    int rc = hyt_p2p_irecv(kr->a, reduce ? kr_tmp(kr, ptr) : ptr, n, dt, src, &kr->req[(*nreq)++]);
    if (rc == MPI_SUCCESS) {
        kr->rptr[*nr] = ptr;
        kr->rn[(*nr)++] = n;
    }
    return rc;
}

/* Ring over the members of my group; the unit of member m is its columns.
 * Allgather: step t sends member j-t's columns and receives j-t-1's.
 * Reduce-scatter: step t sends j-t-1's partial sums, receives j-t-2's. */
int hyt_kr_group_ring(hyt_kr_t *kr, int reduce)
{
    int grp = hyt_kring_group(&kr->g, kr->rank), j = hyt_kring_index(&kr->g, kr->rank);
    int sz = hyt_kring_size(&kr->g, grp), base = hyt_kring_start(&kr->g, grp);
    int next = base + (j + 1) % sz, prev = base + (j - 1 + sz) % sz, red = reduce ? 1 : 0;
    for (int t = 0; t < sz - 1; t++) {
        int sm = ((j - t - red) % sz + sz) % sz, rm = ((j - t - 1 - red) % sz + sz) % sz;
        int nreq = 0, nr = 0, rc;
        char *ptr;
        int n;
        MPI_Datatype dt;
        KR_FOR_COLS(kr, c, rm, sz) {
            kr_column(kr, c, &ptr, &n, &dt);
            if (n == 0)
                continue;
            rc = kr_recv(kr, ptr, n, dt, prev, reduce, &nreq, &nr);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        KR_FOR_COLS(kr, c, sm, sz) {
            kr_column(kr, c, &ptr, &n, &dt);
            if (n == 0)
                continue;
            rc = hyt_p2p_isend(kr->a, ptr, n, dt, next, &kr->req[nreq++]);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        rc = kr_finish(kr, nreq, nr, reduce);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Rings along every column I serve (one, or several in a short last group).
 * Position g of column c is cell (g, c); the unit is one cell. */
int hyt_kr_column_ring(hyt_kr_t *kr, int reduce)
{
    int G = kr->g.ngroups, g = hyt_kring_group(&kr->g, kr->rank);
    int j = hyt_kring_index(&kr->g, kr->rank), sz = hyt_kring_size(&kr->g, g);
    int red = reduce ? 1 : 0;
    for (int t = 0; t < G - 1; t++) {
        int sg = ((g - t - red) % G + G) % G, rg = ((g - t - 1 - red) % G + G) % G;
        int nreq = 0, nr = 0, rc;
        char *ptr;
        int n;
        MPI_Datatype dt;
        KR_FOR_COLS(kr, c, j, sz) {
            kr_cell(kr, rg, c, &ptr, &n, &dt);
            if (n == 0)
                continue;
            rc = kr_recv(kr, ptr, n, dt, kr_owner(kr, (g - 1 + G) % G, c), reduce, &nreq, &nr);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        KR_FOR_COLS(kr, c, j, sz) {
            kr_cell(kr, sg, c, &ptr, &n, &dt);
            if (n == 0)
                continue;
            rc = hyt_p2p_isend(kr->a, ptr, n, dt, kr_owner(kr, (g + 1) % G, c), &kr->req[nreq++]);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        rc = kr_finish(kr, nreq, nr, reduce);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int hyt_kr_allgather_rings(hyt_kr_t *kr)
{
    int rc = hyt_kr_column_ring(kr, 0);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_group_ring(kr, 0);
    return rc;
}

/* Bcast's first half: the root sends every cell to the rank serving it.
 * Cells leave the root one message each, all posted at once. */
int hyt_kr_scatter(hyt_kr_t *kr, int root)
{
    int G = kr->g.ngroups, K = kr->g.k, nreq = 0, rc = MPI_SUCCESS;
    char *ptr;
    int n;
    MPI_Datatype dt;
    if (kr->rank == root) {
        MPI_Request *req = kr->req; /* sized by hyt_kr_init for G*k cells */
        for (int g = 0; g < G && rc == MPI_SUCCESS; g++)
            for (int c = 0; c < K && rc == MPI_SUCCESS; c++) {
                int to = kr_owner(kr, g, c);
                kr_cell(kr, g, c, &ptr, &n, &dt);
                if (to != root && n > 0)
                    rc = hyt_p2p_isend(kr->a, ptr, n, dt, to, &req[nreq++]);
            }
        int rc2 = hyt_p2p_waitall(nreq, req);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    int g = hyt_kring_group(&kr->g, kr->rank), j = hyt_kring_index(&kr->g, kr->rank);
    int sz = hyt_kring_size(&kr->g, g);
    KR_FOR_COLS(kr, c, j, sz) {
        kr_cell(kr, g, c, &ptr, &n, &dt);
        if (n > 0 && rc == MPI_SUCCESS)
            rc = hyt_p2p_irecv(kr->a, ptr, n, dt, root, &kr->req[nreq++]);
    }
    int rc2 = hyt_p2p_waitall(nreq, kr->req);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int hyt_allgather_kring(const hyt_args_t *a, int k)
{
    int p = a->ctx->size, r = a->ctx->rank;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(a->type, &lb, &ext);
    char *mine = (char *)a->rbuf + (MPI_Aint)r * a->count * ext;
    int rc = MPI_SUCCESS;
    if (a->sbuf != MPI_IN_PLACE)
        rc = hyt_p2p_copy(a, a->sbuf, a->scount, a->stype, mine, a->count, a->type);
    if (rc != MPI_SUCCESS || p == 1 || a->count == 0)
        return rc;
    hyt_kr_t kr;
    rc = hyt_kr_init(&kr, a, k, a->rbuf, a->count, 1, 0);
    if (rc == MPI_SUCCESS)
        rc = hyt_kr_allgather_rings(&kr);
    hyt_kr_free(&kr);
    return rc;
}
