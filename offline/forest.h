/* Random-forest regressor for the tuner's run-time model (offline/forest.c).
 *
 * Rows are feature vectors of doubles; one feature may be categorical (the
 * algorithm), holding a small integer 0..HYT_FOREST_MAX_CAT-1.  Each tree
 * is grown on a bootstrap sample with a random subset of mtry features tried
 * at every split (variance reduction).  Prediction gives the mean over the
 * trees and a variance estimate (see hyt_forest_var_t).  Deterministic for
 * a given seed; no global state (safe with all SimGrid ranks in one process). */
#ifndef HYT_FOREST_H
#define HYT_FOREST_H

#include <stdint.h>

#define HYT_FOREST_MAX_FEAT 8
#define HYT_FOREST_MAX_CAT 64 /* categories are bits of a 64-bit split mask */
#define HYT_FOREST_MAX_BINS 256

/* ---- seeded generator (xoshiro256**), one per user: no rand() ---- */
typedef struct hyt_rng {
    uint64_t s[4];
} hyt_rng_t;
void hyt_rng_seed(hyt_rng_t *r, uint64_t seed);
uint64_t hyt_rng_next(hyt_rng_t *r);
double hyt_rng_uniform(hyt_rng_t *r);          /* [0, 1) */
uint64_t hyt_rng_below(hyt_rng_t *r, uint64_t n); /* [0, n), n > 0 */

typedef enum {
    /* Jackknife-after-bootstrap (Wager, Hastie, Efron 2014, eq. 6, V_J^B,
     * without bias correction): (n-1)/n sum_i (tbar_{-i}(x) - tbar(x))^2,
     * tbar_{-i} the mean of the trees whose bootstrap sample left i out.
     * With B trees << n its Monte-Carlo bias is about (e-1) n/B times the
     * across-tree variance, so it ranks points much like HYT_FOREST_VAR_TREES
     * plus the sampling term; always >= 0. */
    HYT_FOREST_VAR_JACKKNIFE = 0,
    /* Plain variance of the B tree predictions (what ACCLAiM's prototype
     * ranks by); cheapest. */
    HYT_FOREST_VAR_TREES = 1,
    /* V_J^B minus its Monte-Carlo bias (e-1) n/B * (1/B) sum_b (t_b - tbar)^2
     * (Wager et al., eq. 7, V_J-U^B), clamped at 0.  Unlike V_J^B it does not
     * grow with n at fixed B, so it can serve as a convergence signal. */
    HYT_FOREST_VAR_JACKKNIFE_U = 2,
} hyt_forest_var_t;

typedef struct hyt_forest_opts {
    int ntrees;      /* B; default 100 */
    int max_depth;   /* default 16 */
    int min_leaf;    /* minimum bootstrap draws in a leaf; default 1 */
    int mtry;        /* features tried per split; 0: default (nfeat+1)/2 */
    uint64_t seed;   /* default 1 */
    hyt_forest_var_t var;
} hyt_forest_opts_t;

void hyt_forest_opts_default(hyt_forest_opts_t *o);

typedef struct hyt_forest hyt_forest_t;

/* nfeat <= HYT_FOREST_MAX_FEAT; cat_feat: index of the categorical feature
 * or -1.  o NULL: defaults.  NULL if out of memory or bad arguments. */
hyt_forest_t *hyt_forest_new(int nfeat, int cat_feat, const hyt_forest_opts_t *o);
void hyt_forest_free(hyt_forest_t *f);
/* Fit on n rows (X row-major n x nfeat, y n values); replaces the previous
 * fit.  Returns 0, or -1 (out of memory, n < 1, category out of range). */
int hyt_forest_fit(hyt_forest_t *f, const double *X, const double *y, int n);
/* Mean and variance (either may be NULL) for m rows.  0 or -1 (not fitted,
 * out of memory). */
int hyt_forest_predict(const hyt_forest_t *f, const double *X, int m, double *mean, double *var);
/* Out-of-bag predictions of the last fit's n training rows, in row order:
 * row i's mean over the trees whose bootstrap sample left it out (the
 * model's answer without that row); NAN for a row every tree drew.  NULL
 * when not fitted. */
const double *hyt_forest_oob(const hyt_forest_t *f);
/* Number of nodes over all trees (tests, reports). */
long hyt_forest_nodes(const hyt_forest_t *f);

#endif
