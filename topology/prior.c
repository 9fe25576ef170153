/* Radix priors: the starting k of every radix algorithm, before any
 * measurement (the tuner's candidate grid centre, online probing's start).
 *
 *   kring        k = processes per node: one ring step per node crosses the
 *                network, the others stay in shared memory.
 *   recmult      k = smallest power of two >= network ports per node, at least
 *                2: each round drives all ports at once.
 *   knomial,     k minimizing an alpha-beta (LogGP-like) estimate of the
 *   kbruck       schedule: ceil(log_k p) rounds, each one latency plus k-1
 *                messages injected back to back (a tree for knomial, an
 *                exchange for kbruck).  Small messages favour few
 *                rounds (large k, up to p); large ones favour few copies
 *                (k shrinking to 2).  Estimates within TIE of the best are
 *                ties, broken by the fewest ranks outside full powers of k
 *                (partial trees and rounds balance worst there).
 *   composition  the prior of its inner inter-node step (k-nomial over the
 *                node leaders).
 * Each registry row names its prior (hyt_alg_t.prior).
 * Everything is a pure function of the communicator shape and the size, so
 * every rank computes the same k without communicating. */
#include "topology/topology.h"

/* Model constants (microseconds, microseconds per byte): a 10 GB/s network
 * with 1.5 us latency and 10 ns per extra message injected back to back
 * (a NIC posting ~100 M messages/s); reductions at 4 GB/s.
 * Only the ratios matter for the choice. */
#define ALPHA 1.5
#define OVERHEAD 0.01
#define BETA 1e-4
#define GAMMA 2.5e-4
#define TIE 0.02

/* Rounds of a k-ary schedule over p ranks: ceil(log_k p). */
static int rounds(int k, int p)
{
    int r = 0;
    for (long long span = 1; span < p; span *= k)
        r++;
    return r;
}

/* Ranks outside the largest full power of k that fits in p. */
static int leftover(int k, int p)
{
    long long full = 1;
    while (full * k <= p)
        full *= k;
    return p - (int)full;
}

/* The collective's data pattern, from the collective list (HYT_CP_*):
 *   reduces:  every byte received is reduced (GAMMA per byte);
 *   twice:    no root, data moves: a tree runs twice (Allreduce as reduce
 *             then bcast, Allgather as gather then bcast);
 *   gathered: every rank ends with every rank's block, blocks even
 *             (Allgather): the bcast of a tree carries all p blocks, an
 *             exchange's block grows k-fold each round;
 *   forwards: each rank gets its own blocks, blocks even (Alltoall,
 *             Reduce_scatter_block): a k-port Bruck exchange forwards ~p/k
 *             blocks per message. */
typedef struct {
    int reduces, twice, gathered, forwards;
} pattern_t;

static pattern_t pattern(hyt_coll_t c)
{
    unsigned f = hyt_coll_props(c);
    int even_blocks = (f & HYT_CP_BLOCK) && !(f & (HYT_CP_ROOT | HYT_CP_VECTOR));
    return (pattern_t){
        .reduces = (f & HYT_CP_OP) != 0,
        .twice = !(f & (HYT_CP_ROOT | HYT_CP_NO_COUNT)),
        .gathered = even_blocks && !(f & HYT_CP_PERSONAL),
        .forwards = even_blocks && (f & HYT_CP_PERSONAL),
    };
}

/* A k-ary tree (k-nomial): ceil(log_k p) rounds, each one latency plus k-1
 * messages injected back to back. */
static double model_tree(int k, int p, double n, hyt_coll_t c)
{
    pattern_t pt = pattern(c);
    double r = rounds(k, p), msg = pt.gathered ? n * p : n, twice = pt.twice ? 2 : 1;
    double red = pt.reduces ? msg * GAMMA : 0;
    return r * (twice * ALPHA + (k - 1) * (twice * (OVERHEAD + msg * BETA) + red));
}

/* An exchange schedule (k-port Bruck): ceil(log_k p) rounds with k-1
 * partners each; any p works without extra rounds (the last round is
 * partial, counted whole here). */
static double model_exchange(int k, int p, double n, hyt_coll_t c)
{
    pattern_t pt = pattern(c);
    double t = 0, block = n;
    int r = rounds(k, p);
    for (int j = 0; j < r; j++) {
        double msg = n;
        if (pt.gathered) { /* the gathered block grows */
            msg = block;
            block *= k;
        }
        if (pt.forwards)
            msg = n * ((p + k - 1) / k); /* Bruck: ~p/k blocks per message */
        double red = pt.reduces ? msg * GAMMA : 0;
        t += ALPHA + (k - 1) * (OVERHEAD + msg * BETA + red);
    }
    return t;
}

double hyt_topo_model_us(int k, int p, size_t bytes, hyt_coll_t c, int tree)
{
    if (k < 2)
        k = 2;
    return tree ? model_tree(k, p, (double)bytes, c) : model_exchange(k, p, (double)bytes, c);
}

static int clamp_k(const hyt_alg_t *alg, int k, int p)
{
    int lo = alg->k_min, hi = hyt_alg_k_max(alg, p);
    if (hi > p && p >= lo)
        hi = p; /* larger k behaves as p */
    if (k > hi)
        k = hi;
    return k < lo ? lo : k;
}

static int prior_model(const hyt_alg_t *alg, int p, size_t bytes, int tree)
{
    int lo = clamp_k(alg, 2, p), hi = clamp_k(alg, p, p);
    if (p < 2)
        return lo;
    double best = -1;
    for (int k = lo; k <= hi; k++) {
        double t = hyt_topo_model_us(k, p, bytes, alg->coll, tree);
        if (best < 0 || t < best)
            best = t;
    }
    int pick = lo, pick_left = -1;
    for (int k = lo; k <= hi; k++) {
        int kk = k < 2 ? 2 : k;
        if (hyt_topo_model_us(kk, p, bytes, alg->coll, tree) > best * (1 + TIE))
            continue;
        int left = leftover(kk, p);
        if (pick_left < 0 || left < pick_left ||
            (left == pick_left && hyt_topo_model_us(kk, p, bytes, alg->coll, tree) <
                                      hyt_topo_model_us(pick, p, bytes, alg->coll, tree))) {
            pick = k;
            pick_left = left;
        }
    }
    return pick;
}

int hyt_topo_prior_k_shape(const hyt_alg_t *alg, const hyt_topo_shape_t *s, size_t bytes)
{
    if (!hyt_alg_has_radix(alg))
        return 0;
    int p = s->p > 0 ? s->p : 1;
    switch (alg->prior) {
    case HYT_PRIOR_PPN:
        return clamp_k(alg, s->ppn, p);
    case HYT_PRIOR_PORTS: {
        int k = 2;
        while (k < s->ports)
            k *= 2;
        return clamp_k(alg, k, p);
    }
    case HYT_PRIOR_INNER: {
        /* the radix goes to the inter-node step over one leader per node */
        const hyt_alg_t *inner = hyt_alg_inner(alg->coll);
        hyt_topo_shape_t leaders = {s->nodes, s->nodes, 1, s->ports};
        int k = inner ? hyt_topo_prior_k_shape(inner, &leaders, bytes) : 2;
        return clamp_k(alg, k, s->nodes > 0 ? s->nodes : 1);
    }
    case HYT_PRIOR_TREE:
    case HYT_PRIOR_NONE: /* a radix row without a prior of its own: an exchange */
    case HYT_PRIOR_EXCHANGE:
        break;
    }
    return prior_model(alg, p, bytes, alg->prior == HYT_PRIOR_TREE);
}

int hyt_topo_prior_k(const hyt_alg_t *alg, const hyt_comm_t *ctx, size_t bytes)
{
    hyt_topo_shape_t s = {ctx->size, ctx->nodes, ctx->ppn, hyt_topo_ports()};
    return hyt_topo_prior_k_shape(alg, &s, bytes);
}
