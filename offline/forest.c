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

/* ---- model ---- */
typedef struct node {
    double thr;     /* numeric: x <= thr goes left */
    uint64_t mask;  /* categorical: bit c set goes left */
    double value;   /* leaf mean */
    int feat;       /* -1: leaf */
    int left;       /* right child is left + 1 */
} node_t;

typedef struct tree {
    node_t *nodes;
    int n, cap;
} tree_t;

struct hyt_forest {
    int nfeat, cat;
    hyt_forest_opts_t o;
    tree_t *trees;
    double *gram; /* B x B, jackknife */
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
    f->gram = calloc((size_t)f->o.ntrees * (size_t)f->o.ntrees, sizeof *f->gram);
    if (!f->trees || !f->gram) {
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
        for (int b = 0; b < f->o.ntrees; b++)
            free(f->trees[b].nodes);
    free(f->trees);
    free(f->gram);
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

static void split_categorical(const hist_t *h, int feat, double W, double S, int minl,
                              split_t *best)
{
    int cats[HYT_FOREST_MAX_CAT], nc = 0;
    for (int c = 0; c < HYT_FOREST_MAX_CAT; c++)
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
        int nb = j == f->cat ? HYT_FOREST_MAX_CAT : f->nbins[j];
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
            split_categorical(&h, j, W, S, f->o.min_leaf, &best);
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
    t->n = 0;
    int root = add_node(t);
    if (root < 0)
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
        t->nodes[k.node].value = S / W;
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
        node_t *nd = &t->nodes[k.node];
        nd->feat = s.feat;
        nd->left = l;
        nd->mask = s.mask;
        nd->thr = s.feat == f->cat ? 0 : f->edge[s.feat][s.bin];
        stack[sp++] = (task_t){r, a, k.hi, k.depth + 1};
        stack[sp++] = (task_t){l, k.lo, a, k.depth + 1};
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

/* G = sum_i o_i o_i' / c_i^2 over rows left out by at least one tree. */
static void build_gram(hyt_forest_t *f, const uint16_t *cnt, int n, int *oob)
{
    int B = f->o.ntrees;
    memset(f->gram, 0, (size_t)B * (size_t)B * sizeof *f->gram);
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
                f->gram[(size_t)oob[p] * B + oob[q]] += v;
    }
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
    build_gram(f, cnt, n, oob);
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

#define LANES 8

/* u' G u for LANES points at once (u = t - tbar, rows of t with stride B):
 * each row of G is loaded once for all of them, and the LANES independent
 * sums keep the floating-point units busy.  G is symmetric. */
static void quad_forms(const double *G, const double *u, int np, int B, double *out)
{
    double acc[LANES] = {0};
    for (int a = 0; a < B; a++) {
        const double *row = G + (size_t)a * B;
        double r[LANES] = {0};
        for (int b = 0; b < B; b++) {
            double g = row[b];
            for (int p = 0; p < LANES; p++)
                r[p] += g * u[(size_t)p * B + b];
        }
        for (int p = 0; p < LANES; p++)
            acc[p] += r[p] * u[(size_t)p * B + a];
    }
    for (int p = 0; p < np; p++)
        out[p] = acc[p];
}

/* Points are taken in blocks and trees in the outer loop, so one tree's
 * nodes stay in cache while the whole block walks it. */
#define PREDICT_BLOCK 256

/* Mean and variance of np points from their tree predictions t (np x B,
 * one spare row of B after them). */
static void block_variance(const hyt_forest_t *f, double *t, int np, double *mean, double *var)
{
    int B = f->o.ntrees;
    double q[LANES];
    for (int p = 0; p < np; p++) {
        double *tp = t + (size_t)p * B, s = 0, ss = 0;
        for (int b = 0; b < B; b++)
            s += tp[b];
        double mu = s / B;
        if (mean)
            mean[p] = mu;
        for (int b = 0; b < B; b++) {
            tp[b] -= mu;
            ss += tp[b] * tp[b];
        }
        if (var)
            var[p] = ss / (B - 1);
    }
    if (!var || f->o.var == HYT_FOREST_VAR_TREES)
        return;
    for (int p = 0; p < np; p += LANES) {
        int n = np - p < LANES ? np - p : LANES;
        quad_forms(f->gram, t + (size_t)p * B, n, B, q);
        for (int i = 0; i < n; i++) {
            double vj = (double)(f->n - 1) / f->n * q[i];
            if (f->o.var == HYT_FOREST_VAR_JACKKNIFE_U) {
                /* var[] holds the across-tree variance with divisor B-1 */
                double bias = (2.718281828459045 - 1) * f->n / B * var[p + i] * (B - 1) / B;
                vj = vj > bias ? vj - bias : 0;
            }
            var[p + i] = vj;
        }
    }
}

static void tree_predict_lanes(const hyt_forest_t *f, const tree_t *t, const double *X, int np,
                               double *out, int stride)
{
    const node_t *nd[LANES];
    int cat = f->cat, nf = f->nfeat;
    for (int p = 0; p < np; p++)
        nd[p] = t->nodes;
    for (;;) {
        int active = 0;
        for (int p = 0; p < np; p++) {
            const node_t *n = nd[p];
            if (n->feat < 0)
                continue;
            active = 1;
            double v = X[(size_t)p * nf + n->feat];
            int num_left = v <= n->thr;
            int cat_left = (int)((n->mask >> ((unsigned)v & 63)) & 1);
            int left = n->feat == cat ? cat_left : num_left;
            nd[p] = &t->nodes[n->left + 1 - left];
        }
        if (!active)
            break;
    }
    for (int p = 0; p < np; p++)
        out[(size_t)p * stride] = nd[p]->value;
}

int hyt_forest_predict(const hyt_forest_t *f, const double *X, int m, double *mean, double *var)
{
    if (!f->fitted)
        return -1;
    int B = f->o.ntrees;
    double *t = calloc((size_t)PREDICT_BLOCK * B, sizeof *t);
    if (!t)
        return -1;
    for (int p0 = 0; p0 < m; p0 += PREDICT_BLOCK) {
        int np = m - p0 < PREDICT_BLOCK ? m - p0 : PREDICT_BLOCK;
        for (int b = 0; b < B; b++)
            for (int p = 0; p < np; p += LANES)
                tree_predict_lanes(f, &f->trees[b], X + (size_t)(p0 + p) * f->nfeat,
                                   np - p < LANES ? np - p : LANES, t + (size_t)p * B + b, B);
        block_variance(f, t, np, mean ? mean + p0 : NULL, var ? var + p0 : NULL);
    }
    free(t);
    return 0;
}
