/* Random-forest regressor (see forest.h).
 *
 * Growing a tree: every feature is binned once per fit (numeric: at most
 * HYT_FOREST_MAX_BINS bins of distinct training values, cut at midpoints;
 * categorical: one bin per category).  A node builds a histogram of bootstrap
 * weight and weighted target sum per bin for each of mtry random features and
 * takes the split with the largest variance reduction:
 *   numeric: a threshold between bins (x <= thr goes left);
 *   categorical: categories sorted by their mean target, best prefix goes left
 *   (Breiman's ordering, exact for squared error); categories absent from the
 *   node follow the heavier side.
 * This costs O(rows x mtry + bins) per node instead of a sort, which is what
 * makes a refit of 100 trees cheap enough to run after every batch.
 *
 * Variance: per point the B tree predictions t_b(x).  The jackknife-after-
 * bootstrap needs sum_i (o_i . (t - tbar) / c_i)^2 over training rows i, with
 * o_i the 0/1 out-of-bag vector of row i over trees and c_i its count; that is
 * the quadratic form (t - tbar)' G (t - tbar) with G = sum_i o_i o_i' / c_i^2,
 * a B x B matrix built once per fit.  Each point then costs O(B^2), not
 * O(n B). */
#include "offline/forest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- generator ---- */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void hyt_rng_seed(hyt_rng_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t hyt_rng_next(hyt_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double hyt_rng_uniform(hyt_rng_t *r)
{
    return (double)(hyt_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t hyt_rng_below(hyt_rng_t *r, uint64_t n)
{
    /* rejection keeps it unbiased */
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = hyt_rng_next(r);
    while (x >= lim);
    return x % n;
}

/* ---- model ----
 * Trees are flat arrays of 12-byte nodes (children of node i at left, left+1).
 * A leaf holds its mean in thr, feature nfeat (a slot that holds -inf at
 * prediction, so the step always goes "left") and left = itself: walking is
 * the same branch-free step for every node, and a finished walk stays put
 * while the other lanes of its group go on.  A categorical split tests bit c
 * of masks[mi] (masks[0] = 0 is a spare for the other nodes).  Thresholds
 * are floats: they are midpoints between distinct training values, so
 * rounding moves them by far less than half a gap. */
typedef struct node {
    float thr;       /* numeric split: x <= thr goes left; leaf: its mean */
    int32_t left;    /* right child is left + 1; leaf: itself */
    int16_t feat;    /* split feature; nfeat: leaf (-1 while growing) */
    uint16_t mi;     /* categorical split: index of its mask */
} node_t;

typedef struct tree {
    node_t *nodes;
    uint64_t *masks;
    int n, cap, nmask, capmask;
} tree_t;

struct hyt_forest {
    int nfeat, cat, ncat;
    hyt_forest_opts_t o;
    tree_t *trees;
    /* jackknife: the B x B matrix M of the variance as a quadratic form
     * u' M u in u = t - tbar (see block_variance), as floats */
    float *qm;
    int fitted, n;
    /* binning of the current fit */
    int nbins[HYT_FOREST_MAX_FEAT];
    double edge[HYT_FOREST_MAX_FEAT][HYT_FOREST_MAX_BINS];
};

/* Scratch of one fit. */
typedef struct grow {
    const double *y;
    uint8_t *xb;     /* n x nfeat bins */
    int *idx;        /* distinct in-bag rows of the current tree */
    double *w;       /* bootstrap count of row i in the current tree */
    hyt_rng_t rng;
} grow_t;

void hyt_forest_opts_default(hyt_forest_opts_t *o)
{
    o->ntrees = 100;
    o->max_depth = 16;
    o->min_leaf = 1;
    o->mtry = 0;
    o->seed = 1;
    o->var = HYT_FOREST_VAR_JACKKNIFE;
}

hyt_forest_t *hyt_forest_new(int nfeat, int cat_feat, const hyt_forest_opts_t *o)
{
    if (nfeat < 1 || nfeat > HYT_FOREST_MAX_FEAT || cat_feat >= nfeat)
        return NULL;
    hyt_forest_t *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->nfeat = nfeat;
    f->cat = cat_feat < 0 ? -1 : cat_feat;
    hyt_forest_opts_default(&f->o);
    if (o)
        f->o = *o;
    if (f->o.ntrees < 2)
        f->o.ntrees = 2;
    if (f->o.max_depth < 1)
        f->o.max_depth = 1;
    if (f->o.min_leaf < 1)
        f->o.min_leaf = 1;
    if (f->o.mtry < 1 || f->o.mtry > nfeat)
        f->o.mtry = (nfeat + 1) / 2;
    f->trees = calloc((size_t)f->o.ntrees, sizeof *f->trees);
    f->qm = calloc((size_t)f->o.ntrees * (size_t)f->o.ntrees, sizeof *f->qm);
    if (!f->trees || !f->qm) {
        hyt_forest_free(f);
        return NULL;
    }
    return f;
}

void hyt_forest_free(hyt_forest_t *f)
{
    if (!f)
        return;
    if (f->trees)
        for (int b = 0; b < f->o.ntrees; b++) {
            free(f->trees[b].nodes);
            free(f->trees[b].masks);
        }
    free(f->trees);
    free(f->qm);
    free(f);
}

long hyt_forest_nodes(const hyt_forest_t *f)
{
    long n = 0;
    for (int b = 0; f->fitted && b < f->o.ntrees; b++)
        n += f->trees[b].n;
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Cut points of a numeric feature: midpoints between groups of distinct values. */
static int make_edges(hyt_forest_t *f, int j, const double *X, int n, double *tmp)
{
    for (int i = 0; i < n; i++)
        tmp[i] = X[(size_t)i * f->nfeat + j];
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    int nd = 0;
    for (int i = 0; i < n; i++)
        if (nd == 0 || tmp[i] != tmp[nd - 1])
            tmp[nd++] = tmp[i];
    int nb = nd < HYT_FOREST_MAX_BINS ? nd : HYT_FOREST_MAX_BINS;
    /* bin b holds distinct values [b*nd/nb, (b+1)*nd/nb) */
    for (int b = 0; b + 1 < nb; b++) {
        int last = (int)(((long)(b + 1) * nd) / nb) - 1;
        f->edge[j][b] = 0.5 * (tmp[last] + tmp[last + 1]);
    }
    f->nbins[j] = nb;
    return 0;
}

static int bin_of(const hyt_forest_t *f, int j, double x)
{
    if (j == f->cat)
        return (int)x;
    int lo = 0, hi = f->nbins[j] - 1; /* first edge >= x */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x <= f->edge[j][mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int add_node(tree_t *t)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        node_t *nn = realloc(t->nodes, (size_t)cap * sizeof *nn);
        if (!nn)
            return -1;
        t->nodes = nn;
        t->cap = cap;
    }
    memset(&t->nodes[t->n], 0, sizeof t->nodes[0]);
    t->nodes[t->n].feat = -1;
    return t->n++;
}

static int add_mask(tree_t *t, uint64_t mask)
{
    if (t->nmask == t->capmask) {
        int cap = t->capmask ? 2 * t->capmask : 16;
        uint64_t *m = realloc(t->masks, (size_t)cap * sizeof *m);
        if (!m)
            return -1;
        t->masks = m;
        t->capmask = cap;
    }
    t->masks[t->nmask] = mask;
    return t->nmask++;
}

typedef struct split {
    double gain;
    int feat, bin;
    uint64_t mask;
} split_t;

typedef struct hist {
    double w[HYT_FOREST_MAX_BINS], s[HYT_FOREST_MAX_BINS];
} hist_t;

static void consider(split_t *best, double gain, int feat, int bin, uint64_t mask)
{
    if (gain > best->gain) {
        best->gain = gain;
        best->feat = feat;
        best->bin = bin;
        best->mask = mask;
    }
}

static void split_numeric(const hist_t *h, int nb, int feat, double W, double S, int minl,
                          split_t *best)
{
    double wl = 0, sl = 0;
    for (int b = 0; b + 1 < nb; b++) {
        if (h->w[b] == 0)
            continue;
        wl += h->w[b];
        sl += h->s[b];
        double wr = W - wl;
        if (wl < minl || wr < minl)
            continue;
        consider(best, sl * sl / wl + (S - sl) * (S - sl) / wr, feat, b, 0);
    }
}

static void split_categorical(const hist_t *h, int ncat, int feat, double W, double S, int minl,
                              split_t *best)
{
    int cats[HYT_FOREST_MAX_CAT], nc = 0;
    for (int c = 0; c < ncat; c++)
        if (h->w[c] > 0)
            cats[nc++] = c;
    /* insertion sort by mean target: nc is small */
    for (int i = 1; i < nc; i++) {
        int c = cats[i], j = i;
        double m = h->s[c] / h->w[c];
        while (j > 0 && h->s[cats[j - 1]] / h->w[cats[j - 1]] > m) {
            cats[j] = cats[j - 1];
            j--;
        }
        cats[j] = c;
    }
    uint64_t present = 0, left = 0;
    for (int i = 0; i < nc; i++)
        present |= 1ull << cats[i];
    double wl = 0, sl = 0;
    for (int i = 0; i + 1 < nc; i++) {
        wl += h->w[cats[i]];
        sl += h->s[cats[i]];
        left |= 1ull << cats[i];
        double wr = W - wl;
        if (wl < minl || wr < minl)
            continue;
        /* unseen categories go with the heavier side */
        uint64_t mask = wl >= wr ? left | ~present : left;
        consider(best, sl * sl / wl + (S - sl) * (S - sl) / wr, feat, -1, mask);
    }
}

/* Best split of rows idx[lo..hi) over mtry random features; gain <= 0: none. */
static split_t find_split(const hyt_forest_t *f, grow_t *g, int lo, int hi, double W, double S)
{
    split_t best = {.gain = S * S / W * (1 + 1e-12) + 1e-12, .feat = -1};
    double base = best.gain;
    int feats[HYT_FOREST_MAX_FEAT];
    for (int j = 0; j < f->nfeat; j++)
        feats[j] = j;
    /* like CART forests: past mtry features, keep drawing only while no valid
     * split was found (a node pure in the drawn feature is not a leaf) */
    for (int t = 0; t < f->nfeat && (t < f->o.mtry || best.feat < 0); t++) {
        int r = t + (int)hyt_rng_below(&g->rng, (uint64_t)(f->nfeat - t));
        int j = feats[r];
        feats[r] = feats[t];
        feats[t] = j;
        int nb = j == f->cat ? f->ncat : f->nbins[j];
        if (nb < 2)
            continue;
        hist_t h;
        memset(h.w, 0, (size_t)nb * sizeof h.w[0]);
        memset(h.s, 0, (size_t)nb * sizeof h.s[0]);
        for (int q = lo; q < hi; q++) {
            int i = g->idx[q];
            int b = g->xb[(size_t)i * f->nfeat + j];
            h.w[b] += g->w[i];
            h.s[b] += g->w[i] * g->y[i];
        }
        if (j == f->cat)
            split_categorical(&h, f->ncat, j, W, S, f->o.min_leaf, &best);
        else
            split_numeric(&h, nb, j, W, S, f->o.min_leaf, &best);
    }
    if (best.feat < 0 || best.gain <= base)
        best.gain = 0;
    return best;
}

static int goes_left(const hyt_forest_t *f, const split_t *sp, int bin)
{
    if (sp->feat == f->cat)
        return (int)((sp->mask >> bin) & 1);
    return bin <= sp->bin;
}

typedef struct task {
    int node, lo, hi, depth;
} task_t;

/* Grow one tree over the in-bag rows g->idx[0..m). */
static int grow_tree(const hyt_forest_t *f, grow_t *g, tree_t *t, int m, task_t *stack)
{
    t->n = t->nmask = 0;
    int root = add_node(t);
    if (root < 0 || add_mask(t, 0) < 0)
        return -1;
    int sp = 0;
    stack[sp++] = (task_t){root, 0, m, 0};
    while (sp > 0) {
        task_t k = stack[--sp];
        double W = 0, S = 0, Q = 0;
        for (int q = k.lo; q < k.hi; q++) {
            int i = g->idx[q];
            W += g->w[i];
            S += g->w[i] * g->y[i];
            Q += g->w[i] * g->y[i] * g->y[i];
        }
        t->nodes[k.node].thr = (float)(S / W);
        if (k.depth >= f->o.max_depth || W < 2 * f->o.min_leaf || k.hi - k.lo < 2 ||
            Q - S * S / W <= 1e-12 * (Q > 0 ? Q : 1))
            continue;
        split_t s = find_split(f, g, k.lo, k.hi, W, S);
        if (s.gain <= 0)
            continue;
        int a = k.lo, b = k.hi - 1; /* partition: left rows first */
        while (a <= b) {
            int i = g->idx[a];
            if (goes_left(f, &s, g->xb[(size_t)i * f->nfeat + s.feat])) {
                a++;
            } else {
                g->idx[a] = g->idx[b];
                g->idx[b--] = i;
            }
        }
        if (a == k.lo || a == k.hi)
            continue;
        int l = add_node(t), r = add_node(t);
        if (l < 0 || r < 0)
            return -1;
        int mi = s.feat == f->cat ? add_mask(t, s.mask) : 0;
        if (mi < 0 || mi > UINT16_MAX)
            return -1;
        node_t *nd = &t->nodes[k.node];
        nd->feat = (int16_t)s.feat;
        nd->left = l;
        nd->mi = (uint16_t)mi;
        nd->thr = s.feat == f->cat ? 0 : (float)f->edge[s.feat][s.bin];
        stack[sp++] = (task_t){r, a, k.hi, k.depth + 1};
        stack[sp++] = (task_t){l, k.lo, a, k.depth + 1};
    }
    for (int i = 0; i < t->n; i++)
        if (t->nodes[i].feat < 0) {
            t->nodes[i].feat = (int16_t)f->nfeat;
            t->nodes[i].left = i;
        }
    return 0;
}

static int check_rows(const hyt_forest_t *f, const double *X, int n)
{
    if (f->cat < 0)
        return 0;
    for (int i = 0; i < n; i++) {
        double c = X[(size_t)i * f->nfeat + f->cat];
        if (!(c >= 0 && c < HYT_FOREST_MAX_CAT) || c != floor(c))
            return -1;
    }
    return 0;
}

/* The matrix of the jackknife as a quadratic form (see block_variance):
 *   G = sum_i o_i o_i' / c_i^2   over rows left out by at least one tree,
 *   M = (n-1)/n P G P  [- (e-1) n / B^2 I for the bias-corrected form],
 * P = I - 11'/B the centring projection.  Since u = t - tbar has P u = u,
 * u' M u is exactly the estimator; the projection removes G's large
 * all-ones component, which would otherwise cancel in the sum and cost the
 * float evaluation its precision.  Built in double, stored as float. */
static int build_qm(hyt_forest_t *f, const uint16_t *cnt, int n, int *oob)
{
    int B = f->o.ntrees;
    double *G = calloc((size_t)B * (size_t)B, sizeof *G), *rm = calloc((size_t)B, sizeof *rm);
    if (!G || !rm) {
        free(G);
        free(rm);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int c = 0;
        for (int b = 0; b < B; b++)
            if (cnt[(size_t)b * n + i] == 0)
                oob[c++] = b;
        if (c == 0)
            continue;
        double v = 1.0 / ((double)c * c);
        for (int p = 0; p < c; p++)
            for (int q = 0; q < c; q++)
                G[(size_t)oob[p] * B + oob[q]] += v;
    }
    double all = 0; /* P G P = G - r 1' - 1 r' + m 11', r the row means */
    for (int a = 0; a < B; a++) {
        for (int b = 0; b < B; b++)
            rm[a] += G[(size_t)a * B + b];
        rm[a] /= B;
        all += rm[a] / B;
    }
    double scale = (double)(n - 1) / n;
    double bias = f->o.var == HYT_FOREST_VAR_JACKKNIFE_U ? (2.718281828459045 - 1) * n / ((double)B * B) : 0;
    for (int a = 0; a < B; a++)
        for (int b = 0; b < B; b++) {
            double v = scale * (G[(size_t)a * B + b] - rm[a] - rm[b] + all) - (a == b ? bias : 0);
            f->qm[(size_t)a * B + b] = (float)v;
        }
    free(G);
    free(rm);
    return 0;
}

int hyt_forest_fit(hyt_forest_t *f, const double *X, const double *y, int n)
{
    if (n < 1 || check_rows(f, X, n) != 0)
        return -1;
    int B = f->o.ntrees, rc = -1;
    grow_t g = {.y = y};
    double *tmp = malloc((size_t)n * sizeof *tmp);
    g.xb = malloc((size_t)n * (size_t)f->nfeat);
    g.idx = malloc((size_t)n * sizeof *g.idx);
    g.w = malloc((size_t)n * sizeof *g.w);
    uint16_t *cnt = calloc((size_t)n * (size_t)B, sizeof *cnt);
    int *oob = malloc((size_t)B * sizeof *oob);
    task_t *stack = malloc((size_t)(2 * f->o.max_depth + 4) * sizeof *stack);
    if (!tmp || !g.xb || !g.idx || !g.w || !cnt || !oob || !stack)
        goto out;
    f->fitted = 0;
    f->ncat = 0;
    for (int i = 0; f->cat >= 0 && i < n; i++)
        if ((int)X[(size_t)i * f->nfeat + f->cat] + 1 > f->ncat)
            f->ncat = (int)X[(size_t)i * f->nfeat + f->cat] + 1;
    for (int j = 0; j < f->nfeat; j++)
        if (j != f->cat)
            make_edges(f, j, X, n, tmp);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < f->nfeat; j++)
            g.xb[(size_t)i * f->nfeat + j] = (uint8_t)bin_of(f, j, X[(size_t)i * f->nfeat + j]);
    for (int b = 0; b < B; b++) {
        /* one stream per tree: tree b depends only on (seed, b, data) */
        hyt_rng_seed(&g.rng, f->o.seed * 0x100000001b3ull + (uint64_t)b);
        uint16_t *c = cnt + (size_t)b * n;
        for (int d = 0; d < n; d++)
            c[hyt_rng_below(&g.rng, (uint64_t)n)]++;
        int m = 0;
        for (int i = 0; i < n; i++) {
            g.w[i] = c[i];
            if (c[i])
                g.idx[m++] = i;
        }
        if (grow_tree(f, &g, &f->trees[b], m, stack) != 0)
            goto out;
    }
    if (f->o.var != HYT_FOREST_VAR_TREES && build_qm(f, cnt, n, oob) != 0)
        goto out;
    f->n = n;
    f->fitted = 1;
    rc = 0;
out:
    free(tmp);
    free(g.xb);
    free(g.idx);
    free(g.w);
    free(cnt);
    free(oob);
    free(stack);
    return rc;
}

/* Points per block of the prediction: all trees walk one block (tree-major:
 * a tree's nodes stay in cache while the block walks it). */
#define PREDICT_BLOCK 256
/* Points per lane group of the quadratic form (a multiple of 8). */
#define QL 16

typedef float vf8 __attribute__((vector_size(32)));

/* q[p] = u_p' M u_p for QL points; U holds u of point p of tree b at
 * U[b * stride + p].  M is symmetric: u' M u = 2 sum_a u_a (M_aa u_a / 2 +
 * sum_{b>a} M_ab u_b), half the products of the full form.  The lanes are
 * points, so every point's sum runs in the same order whatever the vector
 * width: the AVX2 clone and the generic one give identical bits (no FMA
 * contraction under -std=c11). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void quad_lanes(const float *M, const float *U, int stride, int B, float *q)
{
    vf8 acc[QL / 8] = {0};
    for (int a = 0; a < B; a++) {
        const float *row = M + (size_t)a * B;
        vf8 ua[QL / 8], r[QL / 8];
        for (int v = 0; v < QL / 8; v++) {
            memcpy(&ua[v], U + (size_t)a * stride + 8 * v, sizeof ua[v]);
            r[v] = ua[v] * (0.5f * row[a]);
        }
        for (int b = a + 1; b < B; b++) {
            float g = row[b];
            for (int v = 0; v < QL / 8; v++) {
                vf8 ub;
                memcpy(&ub, U + (size_t)b * stride + 8 * v, sizeof ub);
                r[v] += ub * g;
            }
        }
        for (int v = 0; v < QL / 8; v++)
            acc[v] += ua[v] * r[v];
    }
    for (int v = 0; v < QL / 8; v++)
        for (int p = 0; p < 8; p++)
            q[8 * v + p] = 2 * acc[v][p];
}

/* Lanes of the tree walk: WL walks interleaved in lock step hide the latency
 * of each one's chain of loads (measured: twice as fast as one walk at a
 * time, although a group runs as deep as its deepest walk). */
#define WL 8

/* Leaf values of one tree for WL points: xf holds each point's features as
 * floats plus -inf in slot nfeat (stride nfeat + 1), c its category. */
static void tree_walk(const tree_t *t, int cat, int nf, const float *xf, const int *c,
                      double *out)
{
    const node_t *nd = t->nodes;
    int i[WL] = {0};
    for (;;) {
        int more = 0;
        for (int p = 0; p < WL; p++) {
            const node_t *n = &nd[i[p]];
            int j = n->feat;
            int nr = xf[p * (nf + 1) + j] > n->thr;
            int cr = !((t->masks[n->mi] >> c[p]) & 1);
            i[p] = n->left + (j == cat ? cr : nr);
            more |= j != nf;
        }
        if (!more)
            break;
    }
    for (int p = 0; p < WL; p++)
        out[p] = nd[i[p]].thr;
}

/* Mean and variance of np points from their tree predictions T (tree-major,
 * T[b * PREDICT_BLOCK + p]); U is float scratch of the same layout. */
static void block_variance(const hyt_forest_t *f, const double *T, float *U, int np, double *mean,
                           double *var)
{
    int B = f->o.ntrees, S = PREDICT_BLOCK;
    double mu[PREDICT_BLOCK] = {0}, ss[PREDICT_BLOCK] = {0};
    for (int b = 0; b < B; b++)
        for (int p = 0; p < np; p++)
            mu[p] += T[(size_t)b * S + p];
    for (int p = 0; p < np; p++) {
        mu[p] /= B;
        if (mean)
            mean[p] = mu[p];
    }
    if (!var)
        return;
    for (int b = 0; b < B; b++)
        for (int p = 0; p < np; p++) {
            double u = T[(size_t)b * S + p] - mu[p];
            ss[p] += u * u;
            U[(size_t)b * S + p] = (float)u;
        }
    if (f->o.var == HYT_FOREST_VAR_TREES) {
        for (int p = 0; p < np; p++)
            var[p] = ss[p] / (B - 1);
        return;
    }
    /* Jackknife-after-bootstrap: (n-1)/n sum_i (tbar_{-i} - tbar)^2 with
     * tbar_{-i} - tbar = o_i . u / c_i, i.e. u' M u (build_qm); O(B^2) per
     * point whatever n.  Lanes past np hold zeros (U is zeroed by the caller). */
    float q[QL];
    for (int p = 0; p < np; p += QL) {
        quad_lanes(f->qm, U + p, S, B, q);
        for (int i = 0; i < QL && p + i < np; i++)
            var[p + i] = q[i] > 0 ? q[i] : 0;
    }
}

int hyt_forest_predict(const hyt_forest_t *f, const double *X, int m, double *mean, double *var)
{
    if (!f->fitted)
        return -1;
    int B = f->o.ntrees, nf = f->nfeat, S = PREDICT_BLOCK;
    double *T = malloc((size_t)S * B * sizeof *T);
    float *U = calloc((size_t)S * B, sizeof *U), *xf = malloc((size_t)S * (nf + 1) * sizeof *xf);
    int *cat = malloc((size_t)S * sizeof *cat);
    if (!T || !U || !xf || !cat) {
        free(T);
        free(U);
        free(xf);
        free(cat);
        return -1;
    }
    for (int p0 = 0; p0 < m; p0 += S) {
        int np = m - p0 < S ? m - p0 : S;
        /* the last lane group repeats the block's last point */
        int npad = (np + WL - 1) / WL * WL;
        for (int p = 0; p < npad; p++) {
            const double *x = X + (size_t)(p0 + (p < np ? p : np - 1)) * nf;
            for (int j = 0; j < nf; j++)
                xf[p * (nf + 1) + j] = (float)x[j];
            xf[p * (nf + 1) + nf] = -INFINITY;
            cat[p] = f->cat >= 0 ? (int)x[f->cat] & (HYT_FOREST_MAX_CAT - 1) : 0;
        }
        for (int b = 0; b < B; b++)
            for (int p = 0; p < npad; p += WL)
                tree_walk(&f->trees[b], f->cat, nf, xf + (size_t)p * (nf + 1), cat + p,
                          T + (size_t)b * S + p);
        if (np < S) /* the quadratic form's last lanes must be zeros */
            memset(U, 0, (size_t)S * B * sizeof *U);
        block_variance(f, T, U, np, mean ? mean + p0 : NULL, var ? var + p0 : NULL);
    }
    free(T);
    free(U);
    free(xf);
    free(cat);
    return 0;
}
