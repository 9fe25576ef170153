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
 * This costs O(rows x mtry) per node (only the bins the node's rows touch
 * are scanned) instead of a sort, which is what makes a refit of 100 trees
 * cheap enough to run after every batch.
 *
 * Prediction bins the points with the fit's cuts and pushes them down each
 * tree together, a node partitioning its points between its children, as
 * the fit partitions rows: a streaming loop per node instead of a chain of
 * dependent loads per point.
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

/* [0, n) for the forest's many small draws (bootstrap, features): the
 * multiply-shift map of 32 random bits, with Lemire's rejection to stay
 * unbiased; no 64-bit division as in hyt_rng_below in the common case. */
static uint32_t draw_below(hyt_rng_t *r, uint32_t n)
{
    uint64_t m = (hyt_rng_next(r) >> 32) * n;
    if ((uint32_t)m < n) {
        uint32_t t = (uint32_t)-n % n;
        while ((uint32_t)m < t)
            m = (hyt_rng_next(r) >> 32) * n;
    }
    return (uint32_t)(m >> 32);
}

/* ---- model ----
 * Every feature is binned once per fit (numeric: bin b holds the values
 * between edge[b-1] and edge[b]; categorical: bin = category); training rows
 * and candidates are both turned into bytes, and trees compare bins, never
 * values.  Trees are flat arrays of 12-byte nodes (children of node i at
 * left, left + 1; left = 0 marks a leaf, since the root is nobody's child).
 * A categorical split keeps the categories going left as a 64-bit mask
 * (masks[mi], mi > 0; mi = 0 marks a numeric split). */
typedef struct node {
    float val;       /* mean target of the node's bootstrap rows: a leaf's prediction */
    int32_t left;    /* right child is left + 1; 0: leaf */
    uint8_t feat;    /* split feature */
    uint8_t bin;     /* numeric split: bins <= bin go left */
    uint16_t mi;     /* categorical split: index of its mask; 0: numeric split */
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
    double *oob;     /* out-of-bag prediction of each training row (NAN: in every bag) */
    int fitted, n, capoob;
    /* binning of the current fit */
    int nbins[HYT_FOREST_MAX_FEAT];
    double edge[HYT_FOREST_MAX_FEAT][HYT_FOREST_MAX_BINS];
};

/* A (weight, weighted target) pair: one vector add per row in a histogram. */
typedef double vd2 __attribute__((vector_size(16)));

/* Scratch of one fit. */
typedef struct grow {
    const double *y;
    int n;
    uint8_t *xb;     /* bins, by column: feature j of row i at xb[j * n + i] */
    int32_t *idx[2]; /* distinct in-bag rows of the current tree; the partition
                      * of a node's rows goes from one buffer to the other */
    vd2 *ws;         /* row i: {bootstrap count in the current tree, count times y[i]} */
    vd2 h[HYT_FOREST_MAX_BINS]; /* histogram of those pairs; zero between uses */
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
    free(f->oob);
    free(f);
}

const double *hyt_forest_oob(const hyt_forest_t *f)
{
    return f->fitted ? f->oob : NULL;
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

/* Bin of value x of feature j: the number of edges below x (x <= edge[b]
 * is bin <= b); a category is its own bin. */
static uint8_t bin_of(const hyt_forest_t *f, int j, double x)
{
    if (j == f->cat)
        return (uint8_t)((int)x & (HYT_FOREST_MAX_CAT - 1));
    const double *e = f->edge[j];
    int lo = 0, len = f->nbins[j] - 1; /* the edges below x are e[0..lo) */
    while (len > 0) { /* halving without a data-dependent jump */
        int half = len / 2, below = e[lo + half] < x;
        lo += below * (half + 1);
        len = below ? len - half - 1 : half;
    }
    return (uint8_t)lo;
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

/* Rows src[lo..hi) of a node split into dst: those going left to
 * dst[lo..a), the others to dst[a..hi) (reversed); returns a.  col holds
 * the bins of the split feature; cat: categorical split (bit b of mask set:
 * left), else numeric (bin <= thr: left).  No branch on the data: each row
 * is written at both ends and only its side's end advances, so the cost
 * does not depend on how predictable the split is.  Used by the fit and by
 * the prediction, which pushes all candidates down a tree together. */
static int partition(const uint8_t *col, int cat, uint64_t mask, unsigned thr,
                     const int32_t *src, int32_t *dst, int lo, int hi)
{
    int32_t *l = dst + lo, *r = dst + hi; /* next left slot; one past the next right slot */
    const int32_t *s = src + lo, *end = src + hi;
    if (cat) {
        for (; s < end; s++) {
            uint32_t v = (uint32_t)*s, right = !((mask >> col[v]) & 1);
            *l = (int32_t)v;
            r[-1] = (int32_t)v;
            l += !right;
            r -= right;
        }
    } else {
        for (; s < end; s++) {
            uint32_t v = (uint32_t)*s, right = col[v] > thr;
            *l = (int32_t)v;
            r[-1] = (int32_t)v;
            l += !right;
            r -= right;
        }
    }
    return (int)(l - dst);
}

typedef struct split {
    double num, den; /* gain = num / den */
    int feat, bin;
    uint64_t mask;
    double wl, sl;   /* weight and weighted target sum of the left side */
} split_t;

/* The split with left weight wl and sum sl, if its gain sl^2 / wl + sr^2 / wr
 * = (sl^2 wr + sr^2 wl) / (wl wr) beats the best so far (compared without
 * dividing). */
static void consider(split_t *best, double W, double S, int feat, int bin, uint64_t mask,
                     double wl, double sl)
{
    double wr = W - wl, sr = S - sl, num = sl * sl * wr + sr * sr * wl, den = wl * wr;
    if (num * best->den > best->num * den)
        *best = (split_t){num, den, feat, bin, mask, wl, sl};
}

/* bins[0..nb): the bins present in the node, in increasing order. */
static void split_numeric(const grow_t *g, const int *bins, int nb, int feat, double W, double S,
                          int minl, split_t *best)
{
    double wl = 0, sl = 0;
    for (int k = 0; k + 1 < nb; k++) {
        wl += g->h[bins[k]][0];
        sl += g->h[bins[k]][1];
        double wr = W - wl;
        if (wl < minl || wr < minl)
            continue;
        consider(best, W, S, feat, bins[k], 0, wl, sl);
    }
}

static void split_categorical(const grow_t *g, const int *present, int nc, int feat, double W,
                              double S, int minl, split_t *best)
{
    int cats[HYT_FOREST_MAX_CAT];
    /* insertion sort by mean target: nc is small */
    for (int i = 0; i < nc; i++) {
        int c = present[i], j = i;
        double m = g->h[c][1] / g->h[c][0];
        while (j > 0 && g->h[cats[j - 1]][1] / g->h[cats[j - 1]][0] > m) {
            cats[j] = cats[j - 1];
            j--;
        }
        cats[j] = c;
    }
    uint64_t seen = 0, left = 0;
    for (int i = 0; i < nc; i++)
        seen |= 1ull << cats[i];
    double wl = 0, sl = 0;
    for (int i = 0; i + 1 < nc; i++) {
        wl += g->h[cats[i]][0];
        sl += g->h[cats[i]][1];
        left |= 1ull << cats[i];
        double wr = W - wl;
        if (wl < minl || wr < minl)
            continue;
        /* unseen categories go with the heavier side */
        uint64_t mask = wl >= wr ? left | ~seen : left;
        consider(best, W, S, feat, -1, mask, wl, sl);
    }
}

static int lowest_bit(uint64_t m)
{
#if defined(__GNUC__)
    return __builtin_ctzll(m);
#else
    int k = 0;
    while (!(m & 1)) {
        m >>= 1;
        k++;
    }
    return k;
#endif
}

/* Best split of rows[lo..hi) over mtry random features; feat < 0: none.
 * The histogram of a feature has one entry per bin, but a deep node holds a
 * few rows: a bitmap of the bins it touched gives them in order, and only
 * those are scanned and cleared. */
static split_t find_split(const hyt_forest_t *f, grow_t *g, const int32_t *rows, int lo, int hi,
                          double W, double S)
{
    /* a split must gain more than rounding over the node's own S^2 / W */
    split_t best = {.num = S * S / W * (1 + 1e-12) + 1e-12, .den = 1, .feat = -1};
    int feats[HYT_FOREST_MAX_FEAT], bins[HYT_FOREST_MAX_BINS];
    for (int j = 0; j < f->nfeat; j++)
        feats[j] = j;
    /* like CART forests: past mtry features, keep drawing only while no valid
     * split was found (a node pure in the drawn feature is not a leaf) */
    for (int t = 0; t < f->nfeat && (t < f->o.mtry || best.feat < 0); t++) {
        int r = t + (int)draw_below(&g->rng, (uint32_t)(f->nfeat - t));
        int j = feats[r];
        feats[r] = feats[t];
        feats[t] = j;
        if ((j == f->cat ? f->ncat : f->nbins[j]) < 2)
            continue;
        const uint8_t *col = g->xb + (size_t)j * g->n;
        if (hi - lo == 2) {
            /* a third of the nodes hold two rows: every feature that tells
             * them apart gives the same split, one row per side; the first
             * drawn one is taken, without a histogram */
            int i0 = rows[lo], i1 = rows[lo + 1], b0 = col[i0], b1 = col[i1];
            if (b0 == b1 || best.feat >= 0 || g->ws[i0][0] < f->o.min_leaf ||
                g->ws[i1][0] < f->o.min_leaf)
                continue;
            int cat = j == f->cat;
            int left = cat ? g->y[i0] > g->y[i1] : b0 > b1; /* 0: row i0 goes left */
            int il = left ? i1 : i0, bl = left ? b1 : b0;
            uint64_t mask = 0; /* categorical: the left row's category, and the unseen
                                * ones if that side is the heavier */
            if (cat) {
                mask = 1ull << bl;
                if (g->ws[il][0] >= W - g->ws[il][0])
                    mask |= ~(1ull << b0 | 1ull << b1);
            }
            consider(&best, W, S, j, cat ? -1 : bl, mask, g->ws[il][0], g->ws[il][1]);
            continue;
        }
        uint64_t touched[HYT_FOREST_MAX_BINS / 64] = {0};
        if ((j == f->cat ? f->ncat : f->nbins[j]) <= 64) {
            /* the usual case: the bitmap is one word, kept in a register */
            uint64_t m = 0;
            for (int q = lo; q < hi; q++) {
                int i = rows[q], b = col[i];
                g->h[b] += g->ws[i];
                m |= 1ull << b;
            }
            touched[0] = m;
        } else {
            for (int q = lo; q < hi; q++) {
                int i = rows[q], b = col[i];
                g->h[b] += g->ws[i];
                touched[b / 64] |= 1ull << (b % 64);
            }
        }
        int nb = 0;
        for (int k = 0; k < HYT_FOREST_MAX_BINS / 64; k++)
            for (uint64_t m = touched[k]; m; m &= m - 1)
                bins[nb++] = 64 * k + lowest_bit(m);
        if (j == f->cat)
            split_categorical(g, bins, nb, j, W, S, f->o.min_leaf, &best);
        else
            split_numeric(g, bins, nb, j, W, S, f->o.min_leaf, &best);
        for (int k = 0; k < nb; k++)
            g->h[bins[k]] = (vd2){0, 0};
    }
    return best;
}

typedef struct task {
    int node, lo, hi, depth, buf; /* rows: idx[buf][lo..hi) */
    double W, S;                  /* their weight and weighted target sum */
} task_t;

/* Grow one tree over the in-bag rows g->idx[0][0..m) of total weight W and
 * weighted target sum S. */
static int grow_tree(const hyt_forest_t *f, grow_t *g, tree_t *t, int m, double W, double S,
                     task_t *stack)
{
    t->n = t->nmask = 0;
    int root = add_node(t);
    if (root < 0 || add_mask(t, 0) < 0)
        return -1;
    int sp = 0;
    stack[sp++] = (task_t){root, 0, m, 0, 0, W, S};
    while (sp > 0) {
        task_t k = stack[--sp];
        t->nodes[k.node].val = (float)(k.S / k.W);
        if (k.depth >= f->o.max_depth || k.W < 2 * f->o.min_leaf || k.hi - k.lo < 2)
            continue;
        split_t s = find_split(f, g, g->idx[k.buf], k.lo, k.hi, k.W, k.S);
        if (s.feat < 0)
            continue;
        int cat = s.feat == f->cat, mi = cat ? add_mask(t, s.mask) : 0;
        if (mi < 0 || mi > UINT16_MAX)
            return -1;
        int a = partition(g->xb + (size_t)s.feat * g->n, cat, s.mask, (unsigned)s.bin,
                          g->idx[k.buf], g->idx[!k.buf], k.lo, k.hi);
        int l = add_node(t), r = add_node(t);
        if (l < 0 || r < 0)
            return -1;
        node_t *nd = &t->nodes[k.node];
        nd->left = l;
        nd->feat = (uint8_t)s.feat;
        nd->bin = cat ? 0 : (uint8_t)s.bin;
        nd->mi = (uint16_t)mi;
        stack[sp++] = (task_t){r, a, k.hi, k.depth + 1, !k.buf, k.W - s.wl, k.S - s.sl};
        stack[sp++] = (task_t){l, k.lo, a, k.depth + 1, !k.buf, s.wl, s.sl};
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
        for (int p = 0; p < c; p++) /* upper triangle: oob is increasing */
            for (int q = p; q < c; q++)
                G[(size_t)oob[p] * B + oob[q]] += v;
    }
    for (int a = 0; a < B; a++)
        for (int b = a + 1; b < B; b++)
            G[(size_t)b * B + a] = G[(size_t)a * B + b];
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

static void tree_predict(const tree_t *t, const uint8_t *xb, int stride, int np, int32_t *idx[2],
                         task_t *stack, float *out);

/* Out-of-bag prediction of every training row: the mean of the trees whose
 * bootstrap sample left it out (cnt: per tree, each row's count). */
static int fit_oob(hyt_forest_t *f, grow_t *g, const uint16_t *cnt, task_t *stack)
{
    int n = g->n, B = f->o.ntrees;
    if (n > f->capoob) {
        double *o = realloc(f->oob, (size_t)n * sizeof *o);
        if (!o)
            return -1;
        f->oob = o;
        f->capoob = n;
    }
    float *t = malloc((size_t)n * sizeof *t);
    int *c = calloc((size_t)n, sizeof *c);
    if (!t || !c) {
        free(t);
        free(c);
        return -1;
    }
    for (int i = 0; i < n; i++)
        f->oob[i] = 0;
    for (int b = 0; b < B; b++) {
        tree_predict(&f->trees[b], g->xb, n, n, g->idx, stack, t);
        for (int i = 0; i < n; i++)
            if (cnt[(size_t)b * n + i] == 0) {
                f->oob[i] += t[i];
                c[i]++;
            }
    }
    for (int i = 0; i < n; i++)
        f->oob[i] = c[i] ? f->oob[i] / c[i] : NAN;
    free(t);
    free(c);
    return 0;
}

int hyt_forest_fit(hyt_forest_t *f, const double *X, const double *y, int n)
{
    if (n < 1 || check_rows(f, X, n) != 0)
        return -1;
    int B = f->o.ntrees, nf = f->nfeat, rc = -1;
    grow_t *g = calloc(1, sizeof *g);
    double *tmp = malloc((size_t)n * sizeof *tmp);
    uint16_t *cnt = calloc((size_t)n * (size_t)B, sizeof *cnt);
    int *oob = malloc((size_t)B * sizeof *oob);
    task_t *stack = malloc((size_t)(2 * f->o.max_depth + 4) * sizeof *stack);
    if (!g || !tmp || !cnt || !oob || !stack)
        goto out;
    g->y = y;
    g->n = n;
    g->xb = malloc((size_t)n * (size_t)nf);
    g->idx[0] = malloc((size_t)n * sizeof *g->idx[0]);
    g->idx[1] = malloc((size_t)n * sizeof *g->idx[1]);
    g->ws = malloc((size_t)n * sizeof *g->ws);
    if (!g->xb || !g->idx[0] || !g->idx[1] || !g->ws)
        goto out;
    f->fitted = 0;
    f->ncat = 0;
    for (int i = 0; f->cat >= 0 && i < n; i++)
        if ((int)X[(size_t)i * nf + f->cat] + 1 > f->ncat)
            f->ncat = (int)X[(size_t)i * nf + f->cat] + 1;
    for (int j = 0; j < nf; j++)
        if (j != f->cat)
            make_edges(f, j, X, n, tmp);
    for (int j = 0; j < nf; j++)
        for (int i = 0; i < n; i++)
            g->xb[(size_t)j * n + i] = bin_of(f, j, X[(size_t)i * nf + j]);
    for (int b = 0; b < B; b++) {
        /* one stream per tree: tree b depends only on (seed, b, data) */
        hyt_rng_seed(&g->rng, f->o.seed * 0x100000001b3ull + (uint64_t)b);
        uint16_t *c = cnt + (size_t)b * n;
        for (int d = 0; d < n; d++)
            c[draw_below(&g->rng, (uint32_t)n)]++;
        int m = 0;
        double S = 0;
        for (int i = 0; i < n; i++) {
            g->ws[i] = (vd2){c[i], c[i] * y[i]};
            S += g->ws[i][1];
            if (c[i])
                g->idx[0][m++] = i;
        }
        if (grow_tree(f, g, &f->trees[b], m, n, S, stack) != 0)
            goto out;
    }
    if (f->o.var != HYT_FOREST_VAR_TREES && build_qm(f, cnt, n, oob) != 0)
        goto out;
    if (fit_oob(f, g, cnt, stack) != 0)
        goto out;
    f->n = n;
    f->fitted = 1;
    rc = 0;
out:
    if (g) {
        free(g->xb);
        free(g->idx[0]);
        free(g->idx[1]);
        free(g->ws);
    }
    free(g);
    free(tmp);
    free(cnt);
    free(oob);
    free(stack);
    return rc;
}

/* Most points per block of the prediction.  Every tree visits each of its
 * nodes once per block, so blocks should be large (a block of 2,048 points
 * spent most of its time in node overhead); the trees' predictions of a
 * block, B floats per point, are the memory it needs. */
#define PREDICT_BLOCK 32768
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

/* One tree's prediction for np points at once: xb holds their bins (feature
 * j of point p at xb[j * stride + p]).  Instead of walking every point from
 * the root (a chain of dependent loads per point), the points are pushed
 * down together: a node partitions its points between its children
 * (partition(), a streaming loop) and a leaf writes its value to its
 * points.  Same answers as walks, at a fraction of the cost. */
static void tree_predict(const tree_t *t, const uint8_t *xb, int stride, int np, int32_t *idx[2],
                         task_t *stack, float *out)
{
    for (int p = 0; p < np; p++)
        idx[0][p] = p;
    int sp = 0;
    stack[sp++] = (task_t){.node = 0, .lo = 0, .hi = np, .buf = 0};
    while (sp > 0) {
        task_t k = stack[--sp];
        const node_t *nd = &t->nodes[k.node];
        const int32_t *src = idx[k.buf];
        if (!nd->left) {
            for (int q = k.lo; q < k.hi; q++)
                out[src[q]] = nd->val;
            continue;
        }
        int a = partition(xb + (size_t)nd->feat * stride, nd->mi > 0, t->masks[nd->mi], nd->bin,
                          src, idx[!k.buf], k.lo, k.hi);
        if (a < k.hi)
            stack[sp++] = (task_t){.node = nd->left + 1, .lo = a, .hi = k.hi, .buf = !k.buf};
        if (a > k.lo)
            stack[sp++] = (task_t){.node = nd->left, .lo = k.lo, .hi = a, .buf = !k.buf};
    }
}

/* Mean and variance of np points from their tree predictions T (tree-major,
 * T[b * S + p]), which become u = t - tbar in place.  mu, ss: scratch of np
 * doubles each. */
static void block_variance(const hyt_forest_t *f, float *T, int S, int np, double *mu,
                           double *ss, double *mean, double *var)
{
    int B = f->o.ntrees;
    for (int p = 0; p < np; p++)
        mu[p] = ss[p] = 0;
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
    int npad = (np + QL - 1) / QL * QL; /* the quadratic form's last lanes hold zeros */
    for (int b = 0; b < B; b++) {
        float *U = T + (size_t)b * S;
        for (int p = 0; p < np; p++) {
            double u = U[p] - mu[p];
            ss[p] += u * u;
            U[p] = (float)u;
        }
        for (int p = np; p < npad; p++)
            U[p] = 0;
    }
    if (f->o.var == HYT_FOREST_VAR_TREES) {
        for (int p = 0; p < np; p++)
            var[p] = ss[p] / (B - 1);
        return;
    }
    /* Jackknife-after-bootstrap: (n-1)/n sum_i (tbar_{-i} - tbar)^2 with
     * tbar_{-i} - tbar = o_i . u / c_i, i.e. u' M u (build_qm); O(B^2) per
     * point whatever n. */
    float q[QL];
    for (int p = 0; p < np; p += QL) {
        quad_lanes(f->qm, T + p, S, B, q);
        for (int i = 0; i < QL && p + i < np; i++)
            var[p + i] = q[i] > 0 ? q[i] : 0;
    }
}

int hyt_forest_predict(const hyt_forest_t *f, const double *X, int m, double *mean, double *var)
{
    if (!f->fitted)
        return -1;
    if (m < 1)
        return 0;
    /* equal blocks of at most PREDICT_BLOCK points, a multiple of QL; rows
     * of T padded by QL floats, since rows a power of two apart would all
     * fall into the same cache sets (the quadratic form reads a few floats
     * of every row at once) */
    int B = f->o.ntrees, nf = f->nfeat, nblk = (m + PREDICT_BLOCK - 1) / PREDICT_BLOCK, rc = -1;
    int S = ((m + nblk - 1) / nblk + QL - 1) / QL * QL, stride = S + QL;
    float *T = malloc((size_t)stride * B * sizeof *T);
    uint8_t *xb = malloc((size_t)S * nf);
    int32_t *idx[2] = {malloc((size_t)S * sizeof *idx[0]), malloc((size_t)S * sizeof *idx[1])};
    double *mu = malloc(2 * (size_t)S * sizeof *mu);
    task_t *stack = malloc((size_t)(2 * f->o.max_depth + 4) * sizeof *stack);
    if (!T || !xb || !idx[0] || !idx[1] || !mu || !stack)
        goto out;
    for (int p0 = 0; p0 < m; p0 += S) {
        int np = m - p0 < S ? m - p0 : S;
        for (int j = 0; j < nf; j++)
            for (int p = 0; p < np; p++)
                xb[(size_t)j * S + p] = bin_of(f, j, X[(size_t)(p0 + p) * nf + j]);
        for (int b = 0; b < B; b++)
            tree_predict(&f->trees[b], xb, S, np, idx, stack, T + (size_t)b * stride);
        block_variance(f, T, stride, np, mu, mu + S, mean ? mean + p0 : NULL, var ? var + p0 : NULL);
    }
    rc = 0;
out:
    free(T);
    free(xb);
    free(idx[0]);
    free(idx[1]);
    free(mu);
    free(stack);
    return rc;
}
