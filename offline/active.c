/* Active learning (see active.h), after ACCLAiM.
 *
 * Loop: a few random grid points; fit the forest on log(time); predict the
 * variance of every grid point; benchmark the batch of unmeasured points with
 * the largest variance; refit.  Every offgrid_every-th chosen point is moved
 * to a random non-power-of-two size near its power of two (0.7x..1.4x), so
 * the model also learns sizes between the grid's (on exact data only: see
 * hyt_al_note_noise).  The convergence signal
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
    double *gmu;      /* grid mean (log time) of the last fit */
    double *meas;     /* measured log time of a grid point (robust value), NAN if none */
    int *nmeas;
    double *rep;      /* a grid point's first HYT_AL_REPEATS measured log times */
    int *row;         /* a grid point's training row (holding meas), -1 if none */
    int *again;       /* grid points to measure again (plan_again), first of the next batch */
    int nagain, remeasured;
    int *order;       /* grid indices sorted by (nodes, ppn, bytes, alg, k) */
    int *gstart;      /* group g (one shape and size) is order[gstart[g]..gstart[g+1]) */
    int ngroups;
    double *score;    /* acquisition score of the last fit; < 0: not selectable */
    int *gid;         /* group of a grid point */
    hyt_al_point_t cand[256]; /* distinct candidates (alg, k) of the grid */
    int ncand;
    double expected;  /* expected gain left (mean over groups, log units) */
    char *taken;      /* grid point already chosen */
    int ngrid, ntaken;
    hyt_al_point_t *failed; /* points whose benchmark failed (rare) */
    int nfailed, capfailed;
    double *x, *y;    /* training rows, log(time) */
    int n, cap;
    hyt_forest_t *forest;
    hyt_rng_t rng;
    long picked;      /* points chosen so far (off-grid counter) */
    int iterations, stable, converged, fitted;
    double cost, cumvar, cumvar0, rel, prev_rel;
    double *noise;    /* standard errors of measured log times (> 0 only) */
    int nnoise, capnoise;
    double delta;     /* gains below this are noise (hyt_al_note_noise) */
};

void hyt_al_opts_default(hyt_al_opts_t *o)
{
    o->batch = 8;
    o->init_points = 16;
    o->offgrid_every = 5;
    o->bytes_gran = 1;
    o->threshold = 0.02; /* decision mode; measured on the oracle in docs/tuner.md */
    o->patience = 3;
    o->random = 0;
    o->cut = 1.25;
    o->select = HYT_AL_SELECT_DECISION;
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

static int cmp_point(const hyt_al_point_t *x, const hyt_al_point_t *y, int with_cand)
{
    if (x->nodes != y->nodes)
        return x->nodes < y->nodes ? -1 : 1;
    if (x->ppn != y->ppn)
        return x->ppn < y->ppn ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    if (!with_cand)
        return 0;
    if (x->alg != y->alg)
        return x->alg < y->alg ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Insertion-free merge sort of grid indices by point (qsort has no context). */
static void sort_idx(const hyt_al_point_t *g, int *v, int *tmp, int n)
{
    if (n < 2)
        return;
    int h = n / 2;
    sort_idx(g, v, tmp, h);
    sort_idx(g, v + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h || j < n)
        tmp[k++] = j >= n || (i < h && cmp_point(&g[v[i]], &g[v[j]], 1) <= 0) ? v[i++] : v[j++];
    memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* Groups: grid points of one shape and size (the candidates a decision is
 * taken among). */
static void make_groups(hyt_al_t *a)
{
    int *tmp = malloc((size_t)a->ngrid * sizeof *tmp);
    for (int i = 0; i < a->ngrid; i++) {
        a->order[i] = i;
        a->meas[i] = NAN;
        a->row[i] = -1;
    }
    if (tmp)
        sort_idx(a->grid, a->order, tmp, a->ngrid);
    free(tmp);
    a->ngroups = 0;
    for (int q = 0; q < a->ngrid; q++)
        if (q == 0 || cmp_point(&a->grid[a->order[q]], &a->grid[a->order[q - 1]], 0) != 0)
            a->gstart[a->ngroups++] = q;
    a->gstart[a->ngroups] = a->ngrid;
    for (int g = 0; g < a->ngroups; g++)
        for (int q = a->gstart[g]; q < a->gstart[g + 1]; q++)
            a->gid[a->order[q]] = g;
    a->ncand = 0;
    for (int i = 0; i < a->ngrid; i++) {
        int c = 0;
        while (c < a->ncand && (a->cand[c].alg != a->grid[i].alg || a->cand[c].k != a->grid[i].k))
            c++;
        if (c == a->ncand && a->ncand < 256)
            a->cand[a->ncand++] = a->grid[i];
    }
}

/* Grid index of a point, or -1. */
static int grid_index(const hyt_al_t *a, const hyt_al_point_t *p)
{
    int lo = 0, hi = a->ngrid - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = cmp_point(&a->grid[a->order[mid]], p, 1);
        if (c == 0)
            return a->order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
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
    a->gmu = calloc((size_t)ngrid, sizeof *a->gmu);
    a->meas = malloc((size_t)ngrid * sizeof *a->meas);
    a->nmeas = calloc((size_t)ngrid, sizeof *a->nmeas);
    a->rep = malloc((size_t)ngrid * HYT_AL_REPEATS * sizeof *a->rep);
    a->row = malloc((size_t)ngrid * sizeof *a->row);
    a->again = malloc((size_t)ngrid * sizeof *a->again);
    a->order = malloc((size_t)ngrid * sizeof *a->order);
    a->gstart = malloc((size_t)(ngrid + 1) * sizeof *a->gstart);
    a->score = calloc((size_t)ngrid, sizeof *a->score);
    a->gid = malloc((size_t)ngrid * sizeof *a->gid);
    a->forest = hyt_forest_new(HYT_AL_NFEAT, 3, &a->o.forest);
    if (!a->grid || !a->gx || !a->gvar || !a->taken || !a->gmu || !a->meas || !a->nmeas ||
        !a->rep || !a->row || !a->again || !a->order || !a->gstart || !a->score || !a->gid ||
        !a->forest) {
        hyt_al_free(a);
        return NULL;
    }
    memcpy(a->grid, grid, (size_t)ngrid * sizeof *grid);
    make_groups(a);
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
    free(a->failed);
    free(a->gmu);
    free(a->noise);
    free(a->meas);
    free(a->nmeas);
    free(a->rep);
    free(a->row);
    free(a->again);
    free(a->order);
    free(a->gstart);
    free(a->score);
    free(a->gid);
    free(a->x);
    free(a->y);
    hyt_forest_free(a->forest);
    free(a);
}

/* The robust value of n >= 1 measured log times of one point: the value,
 * the mean of two, the median of three (one disturbed measurement of three
 * does not move it). */
static double robust(const double *r, int n)
{
    if (n == 1)
        return r[0];
    if (n == 2)
        return 0.5 * (r[0] + r[1]);
    return fmax(fmin(r[0], r[1]), fmin(fmax(r[0], r[1]), r[2]));
}

static int push_row(hyt_al_t *a, const hyt_al_point_t *p, double time_us)
{
    /* a failed or zero reading must not become -inf */
    double y = log(time_us > 1e-3 ? time_us : 1e-3);
    int g = grid_index(a, p);
    if (g >= 0 && a->row[g] >= 0) { /* measured again: one row, the robust value */
        if (a->nmeas[g] < HYT_AL_REPEATS)
            a->rep[(size_t)g * HYT_AL_REPEATS + a->nmeas[g]] = y;
        a->nmeas[g]++;
        int k = a->nmeas[g] < HYT_AL_REPEATS ? a->nmeas[g] : HYT_AL_REPEATS;
        a->meas[g] = a->y[a->row[g]] = robust(a->rep + (size_t)g * HYT_AL_REPEATS, k);
        return 0;
    }
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
    a->y[a->n++] = y;
    if (g >= 0) { /* a grid point's own measurement */
        a->row[g] = a->n - 1;
        a->rep[(size_t)g * HYT_AL_REPEATS] = a->meas[g] = y;
        a->nmeas[g] = 1;
        if (!a->taken[g]) {
            a->taken[g] = 1;
            a->ntaken++;
        }
    }
    return 0;
}

/* A failed point is no training row: it is remembered so that its candidate
 * is never predicted best near its size (see near_failed). */
static int push_failed(hyt_al_t *a, const hyt_al_point_t *p)
{
    if (a->nfailed == a->capfailed) {
        int cap = a->capfailed ? 2 * a->capfailed : 16;
        hyt_al_point_t *f = realloc(a->failed, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        a->failed = f;
        a->capfailed = cap;
    }
    a->failed[a->nfailed++] = *p;
    int g = grid_index(a, p);
    if (g >= 0 && !a->taken[g]) {
        a->taken[g] = 1;
        a->ntaken++;
    }
    return 0;
}

/* Some grid point of p's shape and candidate was measured. */
static int worked_at_shape(const hyt_al_t *a, const hyt_al_point_t *p)
{
    for (int g = 0; g < a->ngrid; g++) {
        const hyt_al_point_t *q = &a->grid[g];
        if (a->nmeas[g] && q->nodes == p->nodes && q->ppn == p->ppn && q->alg == p->alg &&
            q->k == p->k)
            return 1;
    }
    return 0;
}

/* A size strictly within a factor of two of a failed point of the same
 * shape and candidate; or any size of a shape where the candidate failed
 * and never worked (the points a budget cut left untried would otherwise
 * be the model's guesses for a candidate that may fail everywhere there). */
static int near_failed(const hyt_al_t *a, const hyt_al_point_t *p)
{
    int here = 0;
    for (int i = 0; i < a->nfailed; i++) {
        const hyt_al_point_t *f = &a->failed[i];
        if (f->nodes != p->nodes || f->ppn != p->ppn || f->alg != p->alg || f->k != p->k)
            continue;
        if (p->bytes < 2 * f->bytes && 2 * p->bytes > f->bytes)
            return 1;
        here = 1;
    }
    return here && !worked_at_shape(a, p);
}

int hyt_al_add(hyt_al_t *a, const hyt_al_point_t *pts, const double *time_us, int n)
{
    for (int i = 0; i < n; i++)
        if ((time_us[i] < 0 ? push_failed(a, &pts[i]) : push_row(a, &pts[i], time_us[i])) != 0)
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

/* Untaken grid point of best score whose group has no point in this batch
 * yet (the second candidate of a group is worth less once the first is
 * known); any untaken point of best score when every group has one. */
static int argmax_score(const hyt_al_t *a, const char *used)
{
    int best = -1, any = -1;
    for (int i = 0; i < a->ngrid; i++) {
        if (a->taken[i] || a->score[i] < 0)
            continue;
        if (!used[a->gid[i]] && (best < 0 || a->score[i] > a->score[best]))
            best = i;
        if (any < 0 || a->score[i] > a->score[any])
            any = i;
    }
    return best >= 0 ? best : any;
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

/* Initial design of the decision mode: candidate j % ncand at a random
 * untaken grid point of its own, so every algorithm and radix is seen once
 * before the first fit (random points may miss a rare one). */
static int design_point(hyt_al_t *a, int j)
{
    const hyt_al_point_t *c = &a->cand[j % (a->ncand ? a->ncand : 1)];
    int left = 0;
    for (int i = 0; i < a->ngrid; i++)
        left += !a->taken[i] && a->grid[i].alg == c->alg && a->grid[i].k == c->k;
    if (left == 0)
        return random_untaken(a);
    long r = (long)hyt_rng_below(&a->rng, (uint64_t)left);
    for (int i = 0; i < a->ngrid; i++)
        if (!a->taken[i] && a->grid[i].alg == c->alg && a->grid[i].k == c->k && r-- == 0)
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
    char *used = calloc((size_t)a->ngroups + 1, 1);
    if (!used)
        return 0;
    int got = 0;
    /* points measured again (plan_again) first, as they were: on the grid */
    for (int q = 0; q < a->nagain && got < want; q++) {
        out[got++] = a->grid[a->again[q]];
        a->remeasured++;
    }
    a->nagain = 0;
    while (got < want) {
        int i;
        if (a->o.random)
            i = random_untaken(a);
        else if (!a->fitted)
            i = a->o.select == HYT_AL_SELECT_DECISION ? design_point(a, a->ntaken)
                                                      : random_untaken(a);
        else
            i = a->o.select == HYT_AL_SELECT_DECISION ? argmax_score(a, used) : argmax_var(a);
        if (i < 0)
            break;
        used[a->gid[i]] = 1;
        a->taken[i] = 1;
        a->ntaken++;
        out[got] = a->grid[i];
        /* off the grid only on exact data: once noise is noted, a point's
         * one noisy measurement must settle a group's choice, and only grid
         * points are measured again (plan_again) */
        if (a->o.offgrid_every > 0 && !(a->delta > 0) && ++a->picked % a->o.offgrid_every == 0)
            out[got].bytes = offgrid_bytes(a, out[got].bytes);
        got++;
    }
    free(used);
    return got;
}

/* Best measured log time of group g (INFINITY: nothing measured yet). */
static double group_best(const hyt_al_t *a, int g)
{
    double inc = INFINITY;
    for (int q = a->gstart[g]; q < a->gstart[g + 1]; q++)
        if (a->nmeas[a->order[q]])
            inc = fmin(inc, a->meas[a->order[q]]);
    return inc;
}

/* E[max(0, m - T)] for T ~ N(mu, s^2), d = m - mu. */
static double expected_improvement(double d, double s)
{
    double z = d / s;
    return s * (z * 0.5 * erfc(-z / sqrt(2.0)) + exp(-0.5 * z * z) / 2.5066282746310002);
}

/* Decision-focused scores (HYT_AL_SELECT_DECISION).  In a group (one shape
 * and size) the incumbent is the best measured candidate, log time m (the
 * best predicted one while none is measured).  An unmeasured candidate with
 * predicted log time mu and standard deviation s (the forest's variance,
 * floored at 1%: measurements are not exact) may beat it; the expected
 * improvement EI = E[max(0, m - T)] = s (z Phi(z) + phi(z)), z = (m - mu)/s,
 * is the expected drop of the group's log slowdown if it were measured.
 * Score = EI / exp(mu): gain per benchmark second (a point's cost grows
 * with its time), so cheap small-message decisions are settled first and
 * expensive points are bought only where they may change a choice.  The
 * score counts only a gain beyond the measurement noise (m - mu - delta,
 * hyt_al_note_noise).  The expected gain left (the stop signal) is the mean
 * over groups of their largest EI without that shift: on noisy data the
 * shifted signal fell below the threshold while 5-11% of the choices were
 * still wrong (candidates the forest predicted a little slower than the
 * incumbent, with little spread, were in truth faster). */
static void score_points(hyt_al_t *a)
{
    double tot = 0;
    for (int g = 0; g < a->ngroups; g++) {
        int q0 = a->gstart[g], q1 = a->gstart[g + 1];
        double inc = group_best(a, g), best = 0;
        if (isinf(inc)) /* none measured: the best predicted */
            for (int q = q0; q < q1; q++)
                inc = fmin(inc, a->gmu[a->order[q]]);
        for (int q = q0; q < q1; q++) {
            int i = a->order[q];
            if (a->taken[i]) {
                a->score[i] = -1;
                continue;
            }
            /* the choice of points counts only a gain beyond the measurement
             * noise (delta); the stop signal counts the whole expected gain */
            double s = sqrt(fmax(a->gvar[i], 1e-4)), d = inc - a->gmu[i];
            a->score[i] = expected_improvement(d - a->delta, s) / exp(a->gmu[i]);
            best = fmax(best, expected_improvement(d, s));
        }
        tot += best;
    }
    a->expected = tot / (a->ngroups ? a->ngroups : 1);
}

/* The re-measure rule (see hyt_al_note_noise): after a fit, a grid point
 * measured once whose log time lies more than `far` above the model's
 * out-of-bag prediction (the forest without that point), where that
 * prediction would beat its group's incumbent, is measured again; so is one
 * measured twice whose two times differ by more than `far` and whose lower
 * one would beat the incumbent (the third measurement decides: median).
 * far = max(HYT_AL_FAR, 2 delta).  At most half a batch per iteration, the
 * largest deviations first.  Only once noise has been noted (delta > 0): on
 * exact measurements a deviation is the model's error, not the point's. */
static void plan_again(hyt_al_t *a)
{
    a->nagain = 0;
    const double *oob = hyt_forest_oob(a->forest);
    if (a->o.random || a->o.select != HYT_AL_SELECT_DECISION || !(a->delta > 0) || !oob)
        return;
    double far = fmax(HYT_AL_FAR, 2 * a->delta);
    int cap = a->o.batch / 2 > 0 ? a->o.batch / 2 : 1;
    if (cap > HYT_AL_MAX_AGAIN)
        cap = HYT_AL_MAX_AGAIN;
    double dev[HYT_AL_MAX_AGAIN];
    for (int g = 0; g < a->ngroups; g++) {
        double inc = group_best(a, g);
        for (int q = a->gstart[g]; q < a->gstart[g + 1]; q++) {
            int i = a->order[q], m = a->nmeas[i];
            if (m == 0 || m >= HYT_AL_REPEATS || a->row[i] < 0 || !(a->meas[i] > inc))
                continue;
            const double *r = a->rep + (size_t)i * HYT_AL_REPEATS;
            double d = m == 1 ? r[0] - oob[a->row[i]] : fabs(r[0] - r[1]);
            double lo = m == 1 ? oob[a->row[i]] : fmin(r[0], r[1]);
            if (!(d > far) || !(lo < inc))
                continue;
            /* keep the cap largest deviations, in order */
            int at = a->nagain < cap ? a->nagain++ : cap;
            if (at == cap && !(d > dev[cap - 1]))
                continue;
            if (at == cap)
                at = cap - 1;
            while (at > 0 && dev[at - 1] < d) {
                dev[at] = dev[at - 1];
                a->again[at] = a->again[at - 1];
                at--;
            }
            dev[at] = d;
            a->again[at] = i;
        }
    }
}

static int refit(hyt_al_t *a)
{
    if (hyt_forest_fit(a->forest, a->x, a->y, a->n) != 0)
        return -1;
    a->fitted = 1;
    if (hyt_forest_predict(a->forest, a->gx, a->ngrid, a->gmu, a->gvar) != 0)
        return -1;
    double s = 0;
    for (int i = 0; i < a->ngrid; i++)
        s += a->gvar[i];
    a->cumvar = s / a->ngrid;
    if (a->o.select == HYT_AL_SELECT_DECISION)
        score_points(a);
    plan_again(a);
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
    if (a->o.select == HYT_AL_SELECT_DECISION ? a->expected < hyt_al_stop_threshold(a)
                                              : fabs(a->rel - a->prev_rel) < a->o.threshold)
        a->stable++;
    else
        a->stable = 0;
    if (a->stable >= a->o.patience && a->nagain == 0) /* nothing left to measure again */
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
    if (a->n == 0) /* every point so far failed: nothing to fit yet */
        return 0;
    if (refit(a) != 0)
        return -1;
    track(a);
    return a->converged;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void hyt_al_note_noise(hyt_al_t *a, const double *sigma, int n)
{
    for (int i = 0; i < n; i++) {
        if (!(sigma[i] > 0))
            continue;
        if (a->nnoise == a->capnoise) {
            int cap = a->capnoise ? 2 * a->capnoise : 256;
            double *q = realloc(a->noise, (size_t)cap * sizeof *q);
            if (!q)
                return;
            a->noise = q;
            a->capnoise = cap;
        }
        a->noise[a->nnoise++] = sigma[i];
    }
    if (a->nnoise == 0)
        return;
    double *tmp = malloc((size_t)a->nnoise * sizeof *tmp);
    if (!tmp)
        return;
    memcpy(tmp, a->noise, (size_t)a->nnoise * sizeof *tmp);
    qsort(tmp, (size_t)a->nnoise, sizeof *tmp, cmp_dbl);
    /* two standard errors of a difference of two medians */
    a->delta = 2 * sqrt(2.0) * tmp[a->nnoise / 2];
    free(tmp);
}

double hyt_al_noise_delta(const hyt_al_t *a)
{
    return a->delta;
}

double hyt_al_stop_threshold(const hyt_al_t *a)
{
    return a->delta > HYT_AL_LOUD ? a->o.threshold * HYT_AL_LOUD / a->delta : a->o.threshold;
}

double hyt_al_cut_us(const hyt_al_t *a, const hyt_al_point_t *p)
{
    if (a->o.cut <= 0 || p->bytes == 0)
        return INFINITY;
    /* A size off the grid is compared with the group of the nearest power of
     * two, scaled up by the size ratio where it is larger: a time does not
     * shrink as the size grows, nor grow faster than the size (alpha + beta
     * b), so the limit is never below what the point's own group would give. */
    hyt_al_point_t g = *p;
    double scale = 1;
    if (p->bytes & (p->bytes - 1)) {
        g.bytes = 1ull << (int)lround(log2((double)p->bytes));
        scale = fmax(1, (double)p->bytes / (double)g.bytes);
    }
    int i = grid_index(a, &g);
    return i < 0 ? INFINITY : a->o.cut * scale * exp(group_best(a, a->gid[i]));
}

int hyt_al_step(hyt_al_t *a, hyt_al_measure_fn measure, void *ctx)
{
    int max = a->o.batch > a->o.init_points ? a->o.batch : a->o.init_points;
    hyt_al_point_t *pts = malloc((size_t)max * sizeof *pts);
    double *t = malloc((size_t)max * sizeof *t), *c = malloc((size_t)max * sizeof *c);
    double *cut = malloc((size_t)max * sizeof *cut);
    int rc = -1;
    if (!pts || !t || !c || !cut)
        goto out;
    int n = hyt_al_next(a, pts, max);
    if (n == 0) {
        rc = 2;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        c[i] = 0;
        cut[i] = hyt_al_cut_us(a, &pts[i]);
    }
    if (measure(ctx, pts, n, cut, t, c) != 0)
        goto out;
    rc = hyt_al_update(a, pts, t, c, n);
out:
    free(pts);
    free(t);
    free(c);
    free(cut);
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
    for (int i = 0; rc == 0 && i < n; i++) {
        int g = grid_index(a, &pts[i]);
        time_us[i] = near_failed(a, &pts[i]) ? HYT_AL_FAILED_US
                     : exp(g >= 0 && a->nmeas[g] ? a->meas[g] : time_us[i]);
    }
    free(x);
    return rc;
}

int hyt_al_spread(const hyt_al_t *a, const hyt_al_point_t *pts, int n, double *sd_us)
{
    if (!a->fitted || n < 1)
        return n == 0 ? 0 : -1;
    double *x = calloc((size_t)n * HYT_AL_NFEAT, sizeof *x),
           *mu = malloc((size_t)n * sizeof *mu), *var = malloc((size_t)n * sizeof *var);
    int rc = -1;
    if (x && mu && var) {
        for (int i = 0; i < n; i++)
            hyt_al_features(&pts[i], x + (size_t)i * HYT_AL_NFEAT);
        rc = hyt_forest_predict(a->forest, x, n, mu, var);
        /* the model is of log time: a standard deviation s there is a
         * relative one, exp(mu) * s microseconds */
        for (int i = 0; rc == 0 && i < n; i++)
            sd_us[i] = exp(mu[i]) * sqrt(var[i] > 0 ? var[i] : 0);
    }
    free(x);
    free(mu);
    free(var);
    return rc;
}

void hyt_al_status(const hyt_al_t *a, hyt_al_status_t *s)
{
    s->iterations = a->iterations;
    s->points = a->n;
    s->cost_s = a->cost;
    s->cumvar = a->cumvar;
    s->cumvar_rel = a->rel;
    s->expected = a->expected;
    s->converged = a->converged;
    s->failed = a->nfailed;
    s->remeasured = a->remeasured;
}
