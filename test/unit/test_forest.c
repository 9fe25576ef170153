/* Random-forest regressor (offline/forest.c): fits a known function within a
 * bound, ranks sparse regions as more uncertain than dense ones, handles the
 * categorical feature, and is deterministic for a seed.  The offline code is
 * linked only into the hytune command, so it is included here. */
#include "offline/forest.c"
#include "test/check.h"

#include <math.h>
#include <stdio.h>

/* y = 2 x0 + sin(x1) + effect of category c: a smooth part and a jump per
 * category, the shape of log(time) over (size, algorithm). */
static double truth(double x0, double x1, int c)
{
    static const double eff[4] = {0.0, 1.5, -1.0, 3.0};
    return 2 * x0 + sin(x1) + eff[c];
}

/* One tree's prediction for one point, walked from the root: the reference
 * for the prediction, which pushes all points down a tree together. */
static double walk(const hyt_forest_t *f, const tree_t *t, const double *x)
{
    const node_t *nd = t->nodes;
    int i = 0;
    while (nd[i].left) {
        int b = bin_of(f, nd[i].feat, x[nd[i].feat]);
        int left = nd[i].mi ? (int)((t->masks[nd[i].mi] >> b) & 1) : b <= nd[i].bin;
        i = nd[i].left + !left;
    }
    return nd[i].val;
}

static void test_fit(void)
{
    enum { N = 1200, M = 400 };
    static double X[N * 3], y[N], T[M * 3], mu[M], var[M];
    hyt_rng_t r;
    hyt_rng_seed(&r, 7);
    for (int i = 0; i < N; i++) {
        X[i * 3] = 4 * hyt_rng_uniform(&r);
        X[i * 3 + 1] = 6 * hyt_rng_uniform(&r);
        X[i * 3 + 2] = (double)hyt_rng_below(&r, 4);
        y[i] = truth(X[i * 3], X[i * 3 + 1], (int)X[i * 3 + 2]) + 0.05 * (hyt_rng_uniform(&r) - 0.5);
    }
    hyt_forest_t *f = hyt_forest_new(3, 2, NULL);
    CHECK(f != NULL, "forest_new");
    CHECK(hyt_forest_fit(f, X, y, N) == 0, "fit");
    double se = 0, sy = 0, my = 0;
    for (int i = 0; i < M; i++) {
        T[i * 3] = 0.2 + 3.6 * hyt_rng_uniform(&r);
        T[i * 3 + 1] = 0.3 + 5.4 * hyt_rng_uniform(&r);
        T[i * 3 + 2] = (double)(i % 4);
    }
    CHECK(hyt_forest_predict(f, T, M, mu, var) == 0, "predict");
    for (int i = 0; i < M; i++)
        my += truth(T[i * 3], T[i * 3 + 1], i % 4) / M;
    for (int i = 0; i < M; i++) {
        double t = truth(T[i * 3], T[i * 3 + 1], i % 4);
        se += (mu[i] - t) * (mu[i] - t);
        sy += (t - my) * (t - my);
        CHECK(var[i] >= 0, "variance %g < 0 at %d", var[i], i);
    }
    double rmse = sqrt(se / M), r2 = 1 - se / sy;
    printf("fit: rmse %.4f, R^2 %.4f, %ld nodes\n", rmse, r2, hyt_forest_nodes(f));
    CHECK(rmse < 0.25, "rmse %g on a smooth function of range ~12 (piecewise-constant limit ~0.2)", rmse);
    CHECK(r2 > 0.99, "R^2 %g", r2);
    hyt_forest_free(f);
}

/* Dense data on [0,5], sparse on [5,10]: the sparse side must be more uncertain,
 * with either estimator. */
static void test_variance(hyt_forest_var_t kind)
{
    enum { N = 430, M = 200 };
    static double X[N * 2], y[N], T[M * 2], var[M];
    hyt_rng_t r;
    hyt_rng_seed(&r, 11);
    for (int i = 0; i < N; i++) {
        double x = i < 400 ? 5 * hyt_rng_uniform(&r) : 5 + 5 * hyt_rng_uniform(&r);
        X[i * 2] = x;
        X[i * 2 + 1] = (double)(i % 2); /* category 1 exists only in dense data too */
        y[i] = sin(2 * x) + 0.3 * (hyt_rng_uniform(&r) - 0.5);
    }
    hyt_forest_opts_t o;
    hyt_forest_opts_default(&o);
    o.var = kind;
    hyt_forest_t *f = hyt_forest_new(2, 1, &o);
    CHECK(f && hyt_forest_fit(f, X, y, N) == 0, "fit");
    for (int i = 0; i < M; i++) {
        T[i * 2] = 0.25 + 9.5 * i / (M - 1.0);
        T[i * 2 + 1] = i % 2;
    }
    hyt_forest_predict(f, T, M, NULL, var);
    double dense = 0, sparse = 0;
    int nd = 0, ns = 0;
    for (int i = 0; i < M; i++) {
        if (T[i * 2] < 4.75) {
            dense += var[i];
            nd++;
        } else if (T[i * 2] > 5.25) {
            sparse += var[i];
            ns++;
        }
    }
    dense /= nd;
    sparse /= ns;
    printf("variance (%s): dense %.5f, sparse %.5f\n", kind ? "trees" : "jackknife", dense, sparse);
    CHECK(sparse > 2 * dense, "sparse-region variance %g not well above dense %g", sparse, dense);
    hyt_forest_free(f);
}

static void test_determinism(void)
{
    enum { N = 300, M = 50 };
    static double X[N * 2], y[N], a[M], b[M], c[M], va[M], vb[M];
    hyt_rng_t r;
    hyt_rng_seed(&r, 3);
    for (int i = 0; i < N; i++) {
        X[i * 2] = hyt_rng_uniform(&r) * 10;
        X[i * 2 + 1] = (double)hyt_rng_below(&r, 3);
        y[i] = X[i * 2] * X[i * 2] + X[i * 2 + 1];
    }
    hyt_forest_opts_t o;
    hyt_forest_opts_default(&o);
    o.seed = 42;
    hyt_forest_t *f1 = hyt_forest_new(2, 1, &o), *f2 = hyt_forest_new(2, 1, &o);
    o.seed = 43;
    hyt_forest_t *f3 = hyt_forest_new(2, 1, &o);
    CHECK(hyt_forest_fit(f1, X, y, N) == 0 && hyt_forest_fit(f2, X, y, N) == 0 &&
          hyt_forest_fit(f3, X, y, N) == 0, "fit");
    hyt_forest_predict(f1, X, M, a, va);
    hyt_forest_predict(f2, X, M, b, vb);
    hyt_forest_predict(f3, X, M, c, NULL);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(va, vb, sizeof va) == 0,
          "same seed gave different predictions");
    CHECK(memcmp(a, c, sizeof a) != 0, "another seed gave identical predictions");
    /* refit replaces the model: same data and seed, same answer */
    hyt_forest_fit(f1, X, y, N);
    hyt_forest_predict(f1, X, M, c, NULL);
    CHECK(memcmp(a, c, sizeof a) == 0, "refit changed the model");
    hyt_forest_free(f1);
    hyt_forest_free(f2);
    hyt_forest_free(f3);
}

/* The float quadratic form u' M u against the jackknife-after-bootstrap
 * computed the long way in double: (n-1)/n sum_i (tbar_{-i} - tbar)^2 over
 * rows i left out by some tree, minus (e-1) n/B^2 sum_b u_b^2 for the
 * bias-corrected form.  The bootstrap counts are replayed from the seed
 * (hyt_forest_fit draws them first from tree b's stream).  The points: 64
 * training rows, then new ones (some outside the training range or of an
 * unseen category) up to past one block of the prediction, so that a full
 * and a partial block are checked, and the trees' values against walks. */
static void test_jackknife_exact(hyt_forest_var_t kind)
{
    enum { N = 300, M = PREDICT_BLOCK + 40, NF = 3 };
    static double X[N * NF], y[N], P[M * NF], var[M], mean[M];
    static uint16_t cnt[100][N];
    hyt_rng_t r;
    hyt_rng_seed(&r, 9);
    for (int i = 0; i < N; i++) {
        X[i * NF] = 4 * hyt_rng_uniform(&r);
        X[i * NF + 1] = 6 * hyt_rng_uniform(&r);
        X[i * NF + 2] = (double)hyt_rng_below(&r, 4);
        y[i] = truth(X[i * NF], X[i * NF + 1], (int)X[i * NF + 2]) + 0.3 * (hyt_rng_uniform(&r) - 0.5);
    }
    hyt_forest_opts_t o;
    hyt_forest_opts_default(&o);
    o.var = kind;
    o.seed = 5;
    hyt_forest_t *f = hyt_forest_new(NF, 2, &o);
    CHECK(f && hyt_forest_fit(f, X, y, N) == 0, "fit");
    int B = o.ntrees;
    for (int b = 0; b < B; b++) {
        hyt_rng_t g;
        hyt_rng_seed(&g, o.seed * 0x100000001b3ull + (uint64_t)b);
        memset(cnt[b], 0, sizeof cnt[b]);
        for (int d = 0; d < N; d++)
            cnt[b][draw_below(&g, N)]++;
    }
    memcpy(P, X, 64 * NF * sizeof *P);
    for (int p = 64; p < M; p++) {
        P[p * NF] = 5 * hyt_rng_uniform(&r) - 0.5;
        P[p * NF + 1] = 7 * hyt_rng_uniform(&r) - 0.5;
        P[p * NF + 2] = (double)hyt_rng_below(&r, 6);
    }
    CHECK(hyt_forest_predict(f, P, M, mean, var) == 0, "predict");
    double worst = 0;
    for (int p = 0; p < M; p += p < 64 || p >= PREDICT_BLOCK - 8 ? 1 : 13) {
        double t[100], tbar = 0, ss = 0, vj = 0;
        for (int b = 0; b < B; b++) {
            t[b] = walk(f, &f->trees[b], &P[p * NF]);
            tbar += t[b] / B;
        }
        for (int b = 0; b < B; b++)
            ss += (t[b] - tbar) * (t[b] - tbar);
        for (int i = 0; i < N; i++) {
            double s = 0;
            int k = 0;
            for (int b = 0; b < B; b++)
                if (cnt[b][i] == 0) {
                    s += t[b];
                    k++;
                }
            if (k)
                vj += (s / k - tbar) * (s / k - tbar);
        }
        vj *= (N - 1.0) / N;
        double bias = (2.718281828459045 - 1) * N / ((double)B * B) * ss;
        double want = kind == HYT_FOREST_VAR_JACKKNIFE_U ? fmax(vj - bias, 0) : vj;
        /* float rounding of u and M: relative to the terms that are summed */
        double err = fabs(var[p] - want) / (vj + bias + 1e-12);
        worst = fmax(worst, err);
        CHECK(fabs(mean[p] - tbar) <= 1e-9 * (1 + fabs(tbar)), "mean %g != %g", mean[p], tbar);
    }
    printf("jackknife (%s): quadratic form vs direct sum over rows: worst error %.2e of the "
           "summed terms\n", kind == HYT_FOREST_VAR_JACKKNIFE_U ? "bias-corrected" : "plain",
           worst);
    CHECK(worst < 1e-4, "quadratic form off by %g", worst);
    hyt_forest_free(f);
}

static void test_bad_input(void)
{
    double X[2] = {0.5, 70}, y[1] = {1}; /* category 70 out of range */
    hyt_forest_t *f = hyt_forest_new(2, 1, NULL);
    CHECK(hyt_forest_fit(f, X, y, 1) == -1, "category out of range accepted");
    CHECK(hyt_forest_predict(f, X, 1, y, NULL) == -1, "predict before fit accepted");
    CHECK(hyt_forest_new(0, -1, NULL) == NULL, "zero features accepted");
    CHECK(hyt_forest_new(HYT_FOREST_MAX_FEAT + 1, -1, NULL) == NULL, "too many features");
    X[1] = 1;
    CHECK(hyt_forest_fit(f, X, y, 1) == 0, "single row");
    double m;
    hyt_forest_predict(f, X, 1, &m, NULL);
    CHECK(m == 1, "single-row prediction %g", m);
    hyt_forest_free(f);
}

int main(void)
{
    test_fit();
    test_variance(HYT_FOREST_VAR_JACKKNIFE);
    test_variance(HYT_FOREST_VAR_TREES);
    test_determinism();
    test_jackknife_exact(HYT_FOREST_VAR_JACKKNIFE);
    test_jackknife_exact(HYT_FOREST_VAR_JACKKNIFE_U);
    test_bad_input();
    return check_done("test_forest");
}
