/* Active learning (see active.h), after ACCLAiM.
 *
 * Loop: a few random grid points; fit the forest on log(time); predict the
 * variance of every grid point; benchmark the batch of unmeasured points with
 * the largest variance; refit.  Every offgrid_every-th chosen point is moved
 * to a random non-power-of-two size near its power of two (0.7x..1.4x), so
 * the model also learns sizes between the grid's.  The convergence signal
 * replaces a test set: the cumulative variance (mean over the grid) relative
 * to its level after the initial points; converged when it moves by less than
 * threshold for patience iterations in a row.  The random mode picks
 * unmeasured points uniformly instead: the baseline the oracle compares to. */
#include "offline/active.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct hyt_al {
    hyt_al_opts_t o;
    hyt_al_point_t *grid;
    double *gx;       /* grid features */
    double *gvar;     /* grid variance of the last fit */
    char *taken;      /* grid point already chosen */
    int ngrid, ntaken;
    double *x, *y;    /* training rows, log(time) */
    int n, cap;
    hyt_forest_t *forest;
    hyt_rng_t rng;
    long picked;      /* points chosen so far (off-grid counter) */
    int iterations, stable, converged, fitted;
    double cost, cumvar, cumvar0, rel, prev_rel;
};

void hyt_al_opts_default(hyt_al_opts_t *o)
{
    o->batch = 8;
    o->init_points = 16;
    o->offgrid_every = 5;
    o->bytes_gran = 1;
    o->threshold = 0.01;
    o->patience = 3;
    o->random = 0;
    o->seed = 1;
    hyt_forest_opts_default(&o->forest);
    /* the uncorrected jackknife grows with the number of points at fixed B
     * and never settles; the bias-corrected one does */
    o->forest.var = HYT_FOREST_VAR_JACKKNIFE_U;
}

void hyt_al_features(const hyt_al_point_t *p, double *x)
{
    x[0] = log2((double)p->nodes) + 1;
    x[1] = p->ppn;
    x[2] = p->bytes ? log2((double)p->bytes) + 1 : 0;
    x[3] = p->alg;
    x[4] = p->k > 0 ? log2((double)p->k) + 1 : 0;
}

hyt_al_t *hyt_al_new(const hyt_al_point_t *grid, int ngrid, const hyt_al_opts_t *o)
{
    if (ngrid < 1)
        return NULL;
    hyt_al_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    hyt_al_opts_default(&a->o);
    if (o)
        a->o = *o;
    if (a->o.batch < 1)
        a->o.batch = 1;
    if (a->o.bytes_gran < 1)
        a->o.bytes_gran = 1;
    a->ngrid = ngrid;
    a->grid = malloc((size_t)ngrid * sizeof *a->grid);
    a->gx = malloc((size_t)ngrid * HYT_AL_NFEAT * sizeof *a->gx);
    a->gvar = calloc((size_t)ngrid, sizeof *a->gvar);
    a->taken = calloc((size_t)ngrid, 1);
    a->forest = hyt_forest_new(HYT_AL_NFEAT, 3, &a->o.forest);
    if (!a->grid || !a->gx || !a->gvar || !a->taken || !a->forest) {
        hyt_al_free(a);
        return NULL;
    }
    memcpy(a->grid, grid, (size_t)ngrid * sizeof *grid);
    for (int i = 0; i < ngrid; i++)
        hyt_al_features(&grid[i], a->gx + (size_t)i * HYT_AL_NFEAT);
    hyt_rng_seed(&a->rng, a->o.seed ^ 0xa11ce5ull);
    a->rel = a->prev_rel = 1;
    return a;
}

void hyt_al_free(hyt_al_t *a)
{
    if (!a)
        return;
    free(a->grid);
    free(a->gx);
    free(a->gvar);
    free(a->taken);
    free(a->x);
    free(a->y);
    hyt_forest_free(a->forest);
    free(a);
}

static int push_row(hyt_al_t *a, const hyt_al_point_t *p, double time_us)
{
    if (a->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 256;
        double *x = realloc(a->x, (size_t)cap * HYT_AL_NFEAT * sizeof *x);
        if (!x)
            return -1;
        a->x = x;
        double *y = realloc(a->y, (size_t)cap * sizeof *y);
        if (!y)
            return -1;
        a->y = y;
        a->cap = cap;
    }
    hyt_al_features(p, a->x + (size_t)a->n * HYT_AL_NFEAT);
    /* a failed or zero reading must not become -inf */
    a->y[a->n++] = log(time_us > 1e-3 ? time_us : 1e-3);
    return 0;
}

int hyt_al_add(hyt_al_t *a, const hyt_al_point_t *pts, const double *time_us, int n)
{
    for (int i = 0; i < n; i++)
        if (push_row(a, &pts[i], time_us[i]) != 0)
            return -1;
    return 0;
}

static int is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* A random non-power-of-two multiple of gran in [0.7 b, 1.4 b], or b. */
static uint64_t offgrid_bytes(hyt_al_t *a, uint64_t b)
{
    uint64_t g = a->o.bytes_gran;
    uint64_t lo = (uint64_t)ceil(0.7 * (double)b / (double)g), hi = (uint64_t)(1.4 * (double)b / (double)g);
    if (lo < 1)
        lo = 1;
    for (int tries = 0; hi >= lo && tries < 16; tries++) {
        uint64_t v = (lo + hyt_rng_below(&a->rng, hi - lo + 1)) * g;
        if (!is_pow2(v))
            return v;
    }
    return b;
}

/* Index of the untaken grid point with the largest variance, or -1. */
static int argmax_var(const hyt_al_t *a)
{
    int best = -1;
    for (int i = 0; i < a->ngrid; i++)
        if (!a->taken[i] && (best < 0 || a->gvar[i] > a->gvar[best]))
            best = i;
    return best;
}

static int random_untaken(hyt_al_t *a)
{
    int left = a->ngrid - a->ntaken;
    if (left <= 0)
        return -1;
    long r = (long)hyt_rng_below(&a->rng, (uint64_t)left);
    for (int i = 0; i < a->ngrid; i++)
        if (!a->taken[i] && r-- == 0)
            return i;
    return -1;
}

int hyt_al_next(hyt_al_t *a, hyt_al_point_t *out, int max)
{
    int want = a->o.batch;
    if (a->n < a->o.init_points && a->o.init_points - a->n > want)
        want = a->o.init_points - a->n;
    if (want > max)
        want = max;
    int got = 0;
    while (got < want) {
        int i = a->fitted && !a->o.random ? argmax_var(a) : random_untaken(a);
        if (i < 0)
            break;
        a->taken[i] = 1;
        a->ntaken++;
        out[got] = a->grid[i];
        if (a->o.offgrid_every > 0 && ++a->picked % a->o.offgrid_every == 0)
            out[got].bytes = offgrid_bytes(a, out[got].bytes);
        got++;
    }
    return got;
}

static int refit(hyt_al_t *a)
{
    if (hyt_forest_fit(a->forest, a->x, a->y, a->n) != 0)
        return -1;
    a->fitted = 1;
    if (hyt_forest_predict(a->forest, a->gx, a->ngrid, NULL, a->gvar) != 0)
        return -1;
    double s = 0;
    for (int i = 0; i < a->ngrid; i++)
        s += a->gvar[i];
    a->cumvar = s / a->ngrid;
    return 0;
}

/* Convergence bookkeeping, counted from the first fit with the initial points. */
static void track(hyt_al_t *a)
{
    if (a->n < a->o.init_points)
        return;
    if (a->cumvar0 <= 0) {
        a->cumvar0 = a->cumvar > 0 ? a->cumvar : 1e-300;
        a->rel = a->prev_rel = 1;
        return;
    }
    a->prev_rel = a->rel;
    a->rel = a->cumvar / a->cumvar0;
    if (fabs(a->rel - a->prev_rel) < a->o.threshold)
        a->stable++;
    else
        a->stable = 0;
    if (a->stable >= a->o.patience)
        a->converged = 1;
}

int hyt_al_update(hyt_al_t *a, const hyt_al_point_t *pts, const double *time_us,
                  const double *cost_s, int n)
{
    if (hyt_al_add(a, pts, time_us, n) != 0)
        return -1;
    for (int i = 0; cost_s && i < n; i++)
        a->cost += cost_s[i];
    a->iterations++;
    if (refit(a) != 0)
        return -1;
    track(a);
    return a->converged;
}

int hyt_al_step(hyt_al_t *a, hyt_al_measure_fn measure, void *ctx)
{
    int max = a->o.batch > a->o.init_points ? a->o.batch : a->o.init_points;
    hyt_al_point_t *pts = malloc((size_t)max * sizeof *pts);
    double *t = malloc((size_t)max * sizeof *t), *c = malloc((size_t)max * sizeof *c);
    int rc = -1;
    if (!pts || !t || !c)
        goto out;
    int n = hyt_al_next(a, pts, max);
    if (n == 0) {
        rc = 2;
        goto out;
    }
    for (int i = 0; i < n; i++)
        c[i] = 0;
    if (measure(ctx, pts, n, t, c) != 0)
        goto out;
    rc = hyt_al_update(a, pts, t, c, n);
out:
    free(pts);
    free(t);
    free(c);
    return rc;
}

int hyt_al_predict(const hyt_al_t *a, const hyt_al_point_t *pts, int n, double *time_us)
{
    if (!a->fitted || n < 1)
        return n == 0 ? 0 : -1;
    double *x = calloc((size_t)n * HYT_AL_NFEAT, sizeof *x);
    if (!x)
        return -1;
    for (int i = 0; i < n; i++)
        hyt_al_features(&pts[i], x + (size_t)i * HYT_AL_NFEAT);
    int rc = hyt_forest_predict(a->forest, x, n, time_us, NULL);
    for (int i = 0; rc == 0 && i < n; i++)
        time_us[i] = exp(time_us[i]);
    free(x);
    return rc;
}

void hyt_al_status(const hyt_al_t *a, hyt_al_status_t *s)
{
    s->iterations = a->iterations;
    s->points = a->n;
    s->cost_s = a->cost;
    s->cumvar = a->cumvar;
    s->cumvar_rel = a->rel;
    s->converged = a->converged;
}
