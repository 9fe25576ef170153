/* Node-aware compositions against the MPI library, under SimGrid.
 *
 * Run on 8 hosts x 8 ranks.  Sub-communicators of the world pick ppn ranks on
 * each of `nodes` hosts (ppn in 1,2,3,4,8; nodes in 1,3,5,7,8), plus layouts
 * that are not node-consecutive (round-robin order), not uniform (1..4 ranks
 * per node) and reversed.  On each, every composition runs through
 * hyt_run_alg for counts 0/1/7/1001, several roots, in place or not, int
 * SUM/BXOR, a non-contiguous vector type (Bcast, Allgather(v): SimGrid has
 * no predefined ops on derived types) and a non-commutative user op, with
 * k = 0 (MPI's inter-node step) and k-nomial radices (Allgatherv: its
 * blocks uneven, empty on every third rank, in reverse rank order with gaps;
 * k < 2 acts as 2, the radix of its exchange among leaders); the result must be
 * byte-identical to PMPI's, and the layouts a composition cannot take must
 * fall back for the expected reason.  On one rank per node a composition
 * makes no node or leader communicator (it is its inter-node step alone).
 * Usage: test_composition consecutive-a|consecutive-b|consecutive-c|layouts
 *   consecutive-a: ppn 1,2,3; -b: ppn 4; -c: ppn 8 (half of the cases,
 *   chosen so every pair of parameter values still meets); layouts: all. */
#include "src/hyt.h"
#include "topology/topology.h"
#include "test/check.h"

#include <stdlib.h>
#include <string.h>

enum { T_INT, T_PAIR, T_VEC, NTYPES };
static MPI_Datatype types[NTYPES];
static const int unit_ints[NTYPES] = {1, 2, 3}; /* extent in ints */
static MPI_Op affine;                          /* non-commutative, on T_PAIR */

/* (a,b) o (c,d): x -> a(cx+d)+b, composed in rank order; unsigned wraps. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i], b = x[2 * i + 1], c = y[2 * i], d = y[2 * i + 1];
        y[2 * i] = a * c;
        y[2 * i + 1] = a * d + b;
    }
}

typedef struct {
    hyt_coll_t coll;
    int type, count, root, inplace;
    MPI_Op op;
} case_t;

static void fill(unsigned *v, int n, int rank, int salt, int type)
{
    for (int i = 0; i < n; i++)
        v[i] = (unsigned)((rank * 131 + i * 7 + salt * 17) % 1000) * 2 + 1;
    /* the vector type's gaps hold the pattern the result buffers start with */
    for (int i = 1; type == T_VEC && i < n; i += 3)
        v[i] = 0xA5A5A5A5u;
}

/* Allgatherv's blocks: uneven, empty on every third rank, in reverse rank
 * order with a one-element gap after each; returns the span in elements. */
static int vcounts[64], vdispls[64];

static size_t vlayout(int p, int count)
{
    size_t at = 0;
    for (int i = p - 1; i >= 0; i--) {
        vcounts[i] = i % 3 == 1 || count < i % 3 ? 0 : count - i % 3;
        vdispls[i] = (int)at;
        at += (size_t)vcounts[i] + 1;
    }
    return at;
}

/* PMPI reference into exp; the same call through the composition into out. */
static int run_case(MPI_Comm comm, const hyt_alg_t *alg, int k, const case_t *c, unsigned *in,
                    unsigned *out, unsigned *exp, size_t n, hyt_fallback_t *fb)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Datatype t = types[c->type];
    int u = unit_ints[c->type];
    fill(in, c->count * u, rank, c->count + c->root, c->type);
    /* the part of the buffers this case can touch, plus a guard zone */
    size_t used = (size_t)(c->coll == HYT_COLL_ALLGATHER ? p : 1) * c->count * u + 8;
    if (c->coll == HYT_COLL_ALLGATHERV)
        used = vlayout(p, c->count) * u + 8;
    n = used < n ? used : n;
    memset(out, 0xA5, n * sizeof *out);
    memset(exp, 0xA5, n * sizeof *exp);
    hyt_args_t a = {.coll = c->coll, .sbuf = in, .rbuf = out, .count = c->count, .type = t,
                    .scount = c->count, .stype = t, .op = c->op, .root = c->root, .comm = comm};
    int self = c->coll == HYT_COLL_REDUCE ? rank == c->root : 1;
    switch (c->coll) {
    case HYT_COLL_ALLREDUCE:
    case HYT_COLL_REDUCE:
        if (c->coll == HYT_COLL_ALLREDUCE)
            PMPI_Allreduce(in, exp, c->count, t, c->op, comm);
        else
            PMPI_Reduce(in, exp, c->count, t, c->op, c->root, comm);
        if (c->inplace && self) {
            memcpy(out, in, (size_t)c->count * u * sizeof *in);
            a.sbuf = MPI_IN_PLACE;
        }
        break;
    case HYT_COLL_BCAST:
        if (rank == c->root) {
            memcpy(exp, in, (size_t)c->count * u * sizeof *in);
            memcpy(out, in, (size_t)c->count * u * sizeof *in);
        }
        PMPI_Bcast(exp, c->count, t, c->root, comm);
        break;
    case HYT_COLL_ALLGATHER:
        PMPI_Allgather(in, c->count, t, exp, c->count, t, comm);
        if (c->inplace) {
            memcpy(out + (size_t)rank * c->count * u, in, (size_t)c->count * u * sizeof *in);
            a.sbuf = MPI_IN_PLACE;
        }
        break;
    case HYT_COLL_ALLGATHERV:
        a.scount = vcounts[rank];
        a.rcounts = vcounts;
        a.rdispls = vdispls;
        PMPI_Allgatherv(in, vcounts[rank], t, exp, vcounts, vdispls, t, comm);
        if (c->inplace) {
            memcpy(out + (size_t)vdispls[rank] * u, in, (size_t)vcounts[rank] * u * sizeof *in);
            a.sbuf = MPI_IN_PLACE;
        }
        break;
    default:
        break;
    }
    int rc = hyt_run_alg(&a, alg, k, fb);
    if (c->coll == HYT_COLL_REDUCE && rank != c->root)
        return rc; /* only the root's buffer is defined */
    return rc != MPI_SUCCESS ? rc : (memcmp(out, exp, n * sizeof *out) != 0 ? -1 : 0);
}

/* Expected fallback of a composition on this communicator for this case. */
static hyt_fallback_t expect_fb(const hyt_comm_t *ctx, const case_t *c, int consecutive)
{
    if (c->coll == HYT_COLL_ALLGATHER && !ctx->node_consecutive)
        return HYT_FB_LAYOUT;
    if (hyt_coll_has_op(c->coll) && c->op == affine && !consecutive)
        return HYT_FB_ALGORITHM;
    return HYT_FB_NONE;
}

static int nks;
static int ks[4];

/* Radices to try: MPI's inner step, binomial and the prior. */
static void pick_ks(const hyt_alg_t *alg, const hyt_comm_t *ctx)
{
    nks = 0;
    ks[nks++] = 0;
    if (!hyt_alg_has_radix(alg))
        return;
    int cand[2] = {2, hyt_topo_prior_k(alg, ctx, 64)};
    for (int i = 0; i < 2; i++) {
        int dup = 0;
        for (int j = 0; j < nks; j++)
            dup |= ks[j] == cand[i];
        if (!dup)
            ks[nks++] = cand[i];
    }
}

static int sample; /* 1: run half the cases (every pair of parameters still meets) */

static void run_coll(MPI_Comm comm, hyt_comm_t *ctx, hyt_coll_t coll, int consecutive,
                     const char *label, unsigned *bufs[3], size_t n)
{
    static const int counts[] = {0, 1, 7, 1001};
    const hyt_alg_t *alg = hyt_alg_find(coll, "composition");
    CHECK(alg != NULL, "composition registered for %s", hyt_coll_name(coll));
    if (!alg)
        return;
    int p = ctx->size, roots[3] = {0, p - 1, p / 2 + (p > 2)};
    int nroots = hyt_coll_has_root(coll) ? (p > 2 ? 3 : p) : 1;
    MPI_Op ops[3] = {MPI_SUM, MPI_BXOR, affine};
    pick_ks(alg, ctx);
    for (int ki = 0; ki < nks; ki++)
        for (int ci = 0; ci < 4; ci++)
            for (int ty = 0; ty < NTYPES; ty++)
                for (int ri = 0; ri < nroots; ri++)
                    for (int ip = 0; ip < (coll == HYT_COLL_BCAST ? 1 : 2); ip++) {
                        case_t c = {coll, ty, counts[ci], roots[ri % p], ip, MPI_OP_NULL};
                        /* SimGrid refuses predefined ops on derived types */
                        if ((hyt_coll_has_op(coll) && ty == T_VEC) ||
                            (sample && (ki + ci + ty + ri + ip) % 2))
                            continue;
                        if (hyt_coll_has_op(coll))
                            c.op = ty == T_PAIR ? affine : ops[(ci + ri) % 2];
                        hyt_fallback_t fb, want = expect_fb(ctx, &c, consecutive);
                        int r = run_case(comm, alg, ks[ki], &c, bufs[0], bufs[1], bufs[2], n,
                                         &fb);
                        CHECK(r == 0, "%s %s k=%d count=%d type=%d root=%d inplace=%d: %s",
                              label, hyt_coll_name(coll), ks[ki], c.count, ty, c.root, ip,
                              r < 0 ? "result differs from PMPI" : "MPI error");
                        CHECK(fb == want, "%s %s k=%d type=%d: fallback %s, want %s", label,
                              hyt_coll_name(coll), ks[ki], ty, hyt_fallback_name(fb),
                              hyt_fallback_name(want));
                    }
}

/* One sub-communicator: check its node model, then every composition. */
static void run_comm(MPI_Comm comm, int nodes, int ppn, int ppn_min, int consecutive,
                     const char *label)
{
    hyt_comm_t *ctx = hyt_comm_get(comm);
    CHECK(ctx != NULL, "%s: context", label);
    if (!ctx)
        return;
    CHECK(ctx->nodes == nodes && ctx->ppn == ppn && ctx->ppn_min == ppn_min,
          "%s: nodes %d ppn %d..%d, want %d, %d..%d", label, ctx->nodes, ctx->ppn_min, ctx->ppn,
          nodes, ppn_min, ppn);
    CHECK(ctx->node_consecutive == (consecutive && ppn == ppn_min), "%s: node-consecutive %d",
          label, ctx->node_consecutive);
    size_t n = (size_t)ctx->size * 1001 * 3 + 16;
    unsigned *bufs[3] = {malloc(n * sizeof(unsigned)), malloc(n * sizeof(unsigned)),
                         malloc(n * sizeof(unsigned))};
    for (hyt_coll_t c = 0; c < HYT_NCOLL; c++)
        if (c == HYT_COLL_ALLREDUCE || c == HYT_COLL_BCAST || c == HYT_COLL_REDUCE ||
            c == HYT_COLL_ALLGATHER || c == HYT_COLL_ALLGATHERV)
            run_coll(comm, ctx, c, consecutive, label, bufs, n);
    /* one rank per node: the compositions ran their inter-node step on the
     * communicator itself and made no node or leader communicator */
    CHECK((ctx->node_comm == MPI_COMM_NULL) == (ppn == 1), "%s: node communicator %s", label,
          ctx->node_comm == MPI_COMM_NULL ? "never made" : "made");
    for (int i = 0; i < 3; i++)
        free(bufs[i]);
}

/* Rank of this world rank on its host, from the node map. */
static int host_rank(void)
{
    int r = 0;
    for (int i = 0; i < hyt_world_rank; i++)
        r += hyt_world_node_of[i] == hyt_world_node_of[hyt_world_rank];
    return r;
}

static void split_and_run(int in, int key, int nodes, int ppn, int ppn_min, int consecutive,
                          const char *label)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, key, &sub);
    if (sub != MPI_COMM_NULL) {
        run_comm(sub, nodes, ppn, ppn_min, consecutive, label);
        MPI_Comm_free(&sub);
    }
}

static void consecutive_layouts(int first, int last)
{
    static const int ppns[] = {1, 2, 3, 4, 8}, nodess[] = {1, 3, 5, 7, 8};
    int node = hyt_world_node_of[hyt_world_rank], hr = host_rank(), here = 0;
    for (int r = 0; r < hyt_world_size; r++) /* ranks on my host (all hosts alike) */
        here += hyt_world_node_of[r] == node;
    for (int i = first; i <= last; i++)
        for (size_t j = 0; j < sizeof nodess / sizeof nodess[0]; j++) {
            char label[64];
            int q = ppns[i] < here ? ppns[i] : here, m = nodess[j];
            if (m > hyt_world_nodes)
                continue;
            snprintf(label, sizeof label, "%d nodes x %d ppn", m, q);
            split_and_run(node < m && hr < q, hyt_world_rank, m, q, q, 1, label);
        }
}

static void other_layouts(void)
{
    int node = hyt_world_node_of[hyt_world_rank], hr = host_rank();
    /* round-robin over 5 nodes x 3: rank order node-0, node-1, ..., node-0 */
    split_and_run(node < 5 && hr < 3, hr * 100 + node, 5, 3, 3, 0, "round-robin 5x3");
    /* node n keeps 1 + n % 4 ranks: consecutive but not uniform */
    split_and_run(node < 7 && hr < 1 + node % 4, hyt_world_rank, 7, 4, 1, 1, "non-uniform 7");
    /* reversed: consecutive nodes numbered from the last host */
    split_and_run(node < 3 && hr < 4, -hyt_world_rank, 3, 4, 4, 1, "reversed 3x4");
    /* two ranks per node but interleaved pairs: 0,1 on node A, 2 on B, 3 on A... */
    split_and_run(node < 3 && hr < 2, hr == 0 ? 2 * node : 2 * ((node + 1) % 3) + 1, 3, 2, 2, 0,
                  "interleaved 3x2");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &types[T_PAIR]);
    MPI_Type_commit(&types[T_PAIR]);
    MPI_Type_vector(2, 1, 2, MPI_INT, &types[T_VEC]);
    MPI_Type_commit(&types[T_VEC]);
    types[T_INT] = MPI_INT;
    MPI_Op_create(affine_fn, 0, &affine);
    const char *what = argc > 1 ? argv[1] : "layouts";
    CHECK(hyt_comm_get(MPI_COMM_WORLD) != NULL, "hytune is active (HYTUNE_MODE not off)");
    sample = strncmp(what, "consecutive", 11) == 0;
    if (strcmp(what, "consecutive-a") == 0)
        consecutive_layouts(0, 2);
    else if (strcmp(what, "consecutive-b") == 0)
        consecutive_layouts(3, 3);
    else if (strcmp(what, "consecutive-c") == 0)
        consecutive_layouts(4, 4);
    else
        other_layouts();
    MPI_Op_free(&affine);
    MPI_Type_free(&types[T_PAIR]);
    MPI_Type_free(&types[T_VEC]);
    int failed = check_failures, all;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = rank == 0 ? check_done("test_composition") : (check_failures ? 1 : 0);
    MPI_Finalize();
    return all ? 1 : rc;
}
