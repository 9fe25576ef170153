/* Oracle tables and the --oracle simulation (see oracle.h).
 *
 * A collective's rows become a dense cube time[shape][log2 size][candidate];
 * the tuner's measure callback reads it (sizes between powers of two are
 * interpolated linearly in log-log, as the off-grid points need), so the
 * whole active-learning loop runs in seconds and its choices can be scored
 * against the best measured candidate of every (shape, size). */
#include "offline/oracle.h"
#include "src/file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 64
#define MAX_SHAPES 256
#define MAX_CANDS 1024

hyt_oracle_t *hyt_oracle_read(const char *path, char *err, size_t errlen)
{
    char why[256];
    FILE *f = hyt_file_open(path, HYT_FILE_MAX_BYTES, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "oracle %s: cannot open (%s); give a CSV written by "
                 "bench/tune_oracle.sh or `hytune tune --dump`", path, why);
        return NULL;
    }
    hyt_oracle_t *o = calloc(1, sizeof *o);
    int cap = 0, line = 0;
    char buf[512];
    while (o && fgets(buf, sizeof buf, f)) {
        line++;
        if (line == 1 && strncmp(buf, "coll,", 5) == 0)
            continue;
        if (buf[0] == '\n' || buf[0] == '#')
            continue;
        if (o->n == cap) {
            cap = cap ? 2 * cap : 1024;
            hyt_oracle_row_t *r = realloc(o->rows, (size_t)cap * sizeof *r);
            if (!r) {
                hyt_oracle_free(o);
                o = NULL;
                break;
            }
            o->rows = r;
        }
        hyt_oracle_row_t *r = &o->rows[o->n];
        unsigned long long b;
        if (sscanf(buf, "%31[^,],%d,%d,%llu,%47[^,],%d,%lf", r->coll, &r->nodes, &r->ppn, &b,
                   r->alg, &r->k, &r->us) != 7 || r->nodes < 1 || r->ppn < 1 || !(r->us > 0)) {
            snprintf(err, errlen, "oracle %s line %d: expected coll,nodes,ppn,bytes,algorithm,"
                     "k,time_us with positive numbers; fix or remove the line", path, line);
            hyt_oracle_free(o);
            o = NULL;
            break;
        }
        r->bytes = b;
        o->n++;
    }
    fclose(f);
    if (o && o->n == 0) {
        snprintf(err, errlen, "oracle %s: no data rows", path);
        hyt_oracle_free(o);
        o = NULL;
    }
    return o;
}

void hyt_oracle_free(hyt_oracle_t *o)
{
    if (o)
        free(o->rows);
    free(o);
}

void hyt_oracle_write_row(FILE *f, const char *coll, int nodes, int ppn, uint64_t bytes,
                          const char *alg, int k, double us)
{
    if (ftell(f) == 0)
        fprintf(f, "coll,nodes,ppn,bytes,algorithm,k,time_us\n");
    fprintf(f, "%s,%d,%d,%llu,%s,%d,%.4f\n", coll, nodes, ppn, (unsigned long long)bytes, alg, k,
            us);
}

/* ---- one collective's cube ---- */
typedef struct view {
    const char *names[MAX_NAMES];
    int nnames;
    hyt_al_point_t cand[MAX_CANDS]; /* alg, k */
    int ncand;
    int shape[MAX_SHAPES][2];
    int nshape;
    double *t; /* [shape][64][cand], NAN if missing */
    double exhaustive_s;
    int ncut;         /* points of the current run cut after their second call */
    hyt_al_t *al;     /* the run's loop (measurement noise goes to it) */
    uint64_t draws;   /* noise stream position */
} view_t;

/* ---- --oracle-noise ---- */
static hyt_oracle_noise_t noise;

int hyt_oracle_noise_parse(const char *spec, hyt_oracle_noise_t *nz, char *err, size_t len)
{
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec ? spec : "");
    *nz = (hyt_oracle_noise_t){0, 0.02, 3, 0};
    int first = 1;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), first = 0) {
        char *end = NULL;
        if (first) {
            nz->sigma = strtod(t, &end);
            if (end == t || *end || !(nz->sigma >= 0 && nz->sigma <= 2))
                goto bad;
        } else if (!strncmp(t, "outliers=", 9)) {
            nz->outliers = strtod(t + 9, &end);
            if (end == t + 9 || *end || !(nz->outliers >= 0 && nz->outliers <= 1))
                goto bad;
        } else if (!strncmp(t, "steps=", 6)) {
            long v = strtol(t + 6, &end, 10);
            if (end == t + 6 || *end || v < 0 || v > 1000)
                goto bad;
            nz->steps = (int)v;
        } else {
            goto bad;
        }
    }
    if (!first)
        return 0;
bad:
    snprintf(err, len, "--oracle-noise %s: give SIGMA[,outliers=P][,steps=N], e.g. 0.05 or "
             "0.05,outliers=0.02,steps=3 (SIGMA in 0..2: log-normal spread of one call; P in "
             "0..1; N >= 0)", spec ? spec : "");
    return -1;
}

void hyt_oracle_set_noise(const hyt_oracle_noise_t *nz)
{
    noise = nz ? *nz : (hyt_oracle_noise_t){0};
}

/* splitmix64 of (seed, stream, i): reproducible draws without state */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static double unif(uint64_t stream, uint64_t i)
{
    return ((double)(mix(mix(noise.seed ^ stream) + i) >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(uint64_t stream, uint64_t i)
{
    return sqrt(-2 * log(unif(stream, 2 * i))) * cos(6.283185307179586 * unif(stream, 2 * i + 1));
}
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static double *cell(view_t *v, int s, int lg, int c)
{
    return &v->t[((size_t)s * 64 + (size_t)lg) * (size_t)v->ncand + (size_t)c];
}

static int find_shape(const view_t *v, int nodes, int ppn)
{
    for (int s = 0; s < v->nshape; s++)
        if (v->shape[s][0] == nodes && v->shape[s][1] == ppn)
            return s;
    return -1;
}

static int find_cand(const view_t *v, int alg, int k)
{
    for (int c = 0; c < v->ncand; c++)
        if (v->cand[c].alg == alg && v->cand[c].k == k)
            return c;
    return -1;
}

static int name_id(view_t *v, const char *name)
{
    for (int i = 0; i < v->nnames; i++)
        if (strcmp(v->names[i], name) == 0)
            return i;
    if (v->nnames == MAX_NAMES)
        return -1;
    v->names[v->nnames] = name;
    return v->nnames++;
}

static int lg2(uint64_t b)
{
    return 63 - __builtin_clzll(b);
}

static int build_view(const hyt_oracle_t *o, const char *coll, view_t *v)
{
    memset(v, 0, sizeof *v);
    for (int i = 0; i < o->n; i++) {
        const hyt_oracle_row_t *r = &o->rows[i];
        if (strcmp(r->coll, coll) != 0 || !r->bytes || (r->bytes & (r->bytes - 1)))
            continue;
        int a = name_id(v, r->alg);
        if (a < 0)
            return -1;
        if (find_cand(v, a, r->k) < 0) {
            if (v->ncand == MAX_CANDS)
                return -1;
            v->cand[v->ncand++] = (hyt_al_point_t){.alg = a, .k = r->k};
        }
        if (find_shape(v, r->nodes, r->ppn) < 0) {
            if (v->nshape == MAX_SHAPES)
                return -1;
            v->shape[v->nshape][0] = r->nodes;
            v->shape[v->nshape++][1] = r->ppn;
        }
    }
    if (v->ncand == 0)
        return -1;
    size_t n = (size_t)v->nshape * 64 * (size_t)v->ncand;
    v->t = malloc(n * sizeof *v->t);
    if (!v->t)
        return -1;
    for (size_t i = 0; i < n; i++)
        v->t[i] = NAN;
    for (int i = 0; i < o->n; i++) {
        const hyt_oracle_row_t *r = &o->rows[i];
        if (strcmp(r->coll, coll) != 0 || !r->bytes || (r->bytes & (r->bytes - 1)))
            continue;
        int c = find_cand(v, name_id(v, r->alg), r->k);
        double *t = cell(v, find_shape(v, r->nodes, r->ppn), lg2(r->bytes), c);
        if (!isnan(*t)) /* measured again (the native guard's points): the first counts */
            continue;
        *t = r->us;
        v->exhaustive_s += r->us * 1e-6 * HYT_ORACLE_CALLS;
    }
    return 0;
}

/* Time of any size: exact at powers of two, log-log interpolation between. */
static double lookup(view_t *v, const hyt_al_point_t *p)
{
    int s = find_shape(v, p->nodes, p->ppn), c = find_cand(v, p->alg, p->k);
    if (s < 0 || c < 0)
        return NAN;
    int lo = lg2(p->bytes);
    double tlo = *cell(v, s, lo, c);
    if ((p->bytes & (p->bytes - 1)) == 0 || lo == 63)
        return tlo;
    double thi = *cell(v, s, lo + 1, c);
    if (isnan(thi))
        return tlo;
    if (isnan(tlo))
        return thi;
    double w = log2((double)p->bytes) - lo;
    return exp((1 - w) * log(tlo) + w * log(thi));
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One noisy measurement of truth t (see hyt_oracle_noise_t): the measured
 * time, and in *sigma the standard error of its log (0 for one call). */
static double noisy(view_t *v, double t, double cut, int *was_cut, double *sigma)
{
    uint64_t i = v->draws++, st = 0x6e6f697365ull; /* "noise" */
    double out = unif(st, 32 * i) < noise.outliers ? 1.5 + 1.5 * unif(st, 32 * i + 1) : 1;
    double first = t * out * exp(noise.sigma * gauss(st, 16 * i + 1));
    *sigma = 0;
    if ((*was_cut = first > cut))
        return first;
    double lr[HYT_ORACLE_NOISE_REPS];
    for (int r = 0; r < HYT_ORACLE_NOISE_REPS; r++)
        lr[r] = log(t * out) + noise.sigma * gauss(st, 16 * i + 2 + r);
    qsort(lr, HYT_ORACLE_NOISE_REPS, sizeof *lr, cmp_double);
    int n = HYT_ORACLE_NOISE_REPS;
    /* interquartile range / 1.349: one call's sigma; the median's is 1.2533 / sqrt(n) of it */
    *sigma = 1.2533 * (lr[(3 * n) / 4] - lr[n / 4]) / 1.349 / sqrt((double)n);
    return exp(0.5 * (lr[n / 2 - 1] + lr[n / 2]));
}

/* The non-monotone steps of --oracle-noise, applied to the truth. */
static void add_steps(view_t *v, const char *coll)
{
    uint64_t st = name_hash(coll);
    for (int k = 0; k < noise.steps; k++) {
        int s = (int)(unif(st, 4 * (uint64_t)k) * v->nshape);
        int c = (int)(unif(st, 4 * (uint64_t)k + 1) * v->ncand);
        int have[64], nh = 0;
        for (int lg = 0; lg < 64; lg++)
            if (!isnan(*cell(v, s, lg, c)))
                have[nh++] = lg;
        if (nh < 2)
            continue;
        int from = 1 + (int)(unif(st, 4 * (uint64_t)k + 2) * (nh - 1));
        double f = 0.6 + 0.25 * unif(st, 4 * (uint64_t)k + 3);
        for (int h = from; h < nh; h++)
            *cell(v, s, have[h], c) *= f;
    }
    v->exhaustive_s = 0;
    for (size_t i = 0; i < (size_t)v->nshape * 64 * (size_t)v->ncand; i++)
        if (!isnan(v->t[i]))
            v->exhaustive_s += v->t[i] * 1e-6 * HYT_ORACLE_CALLS;
}

static int measure(void *ctx, const hyt_al_point_t *pts, int n, const double *cut, double *us,
                   double *cost)
{
    view_t *v = ctx;
    if (noise.sigma > 0) {
        double *sig = calloc((size_t)(n > 0 ? n : 1), sizeof *sig);
        for (int i = 0; i < n; i++) {
            double t = lookup(v, &pts[i]);
            int was_cut = 0;
            us[i] = isnan(t) ? -1 : noisy(v, t, cut[i], &was_cut, sig ? &sig[i] : &(double){0});
            cost[i] = isnan(t) ? 0
                               : t * 1e-6 * (was_cut ? HYT_ORACLE_CUT_CALLS : HYT_ORACLE_CALLS);
            v->ncut += was_cut;
        }
        if (sig && v->al)
            hyt_al_note_noise(v->al, sig, n);
        free(sig);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        double t = lookup(v, &pts[i]);
        us[i] = isnan(t) ? -1 : t; /* not in the sweep: a failed benchmark */
        cost[i] = isnan(t) ? 0 : t * 1e-6 * (t > cut[i] ? HYT_ORACLE_CUT_CALLS : HYT_ORACLE_CALLS);
        v->ncut += t > cut[i];
    }
    return 0;
}

/* Grid: every measured power-of-two point, ordered by shape, size, candidate. */
static int make_grid(view_t *v, hyt_al_point_t **out)
{
    hyt_al_point_t *g = malloc((size_t)v->nshape * 64 * (size_t)v->ncand * sizeof *g);
    int n = 0;
    for (int s = 0; g && s < v->nshape; s++)
        for (int lg = 0; lg < 64; lg++)
            for (int c = 0; c < v->ncand; c++)
                if (!isnan(*cell(v, s, lg, c))) {
                    g[n] = v->cand[c];
                    g[n].nodes = v->shape[s][0];
                    g[n].ppn = v->shape[s][1];
                    g[n++].bytes = 1ull << lg;
                }
    *out = g;
    return g ? n : -1;
}

/* Best time of group (shape s, size 2^lg) over its measured candidates;
 * INFINITY when it has none (no group at that size). */
static double group_best(view_t *v, int s, int lg)
{
    double best = INFINITY; /* fmin skips the candidates not measured */
    for (int q = 0; q < v->ncand; q++)
        best = fmin(best, *cell(v, s, lg, q));
    return best;
}

/* Groups: shapes and power-of-two sizes with at least one measured candidate. */
static int count_groups(view_t *v)
{
    int n = 0;
    for (int s = 0; s < v->nshape; s++)
        for (int lg = 0; lg < 64; lg++)
            n += !isinf(group_best(v, s, lg));
    return n;
}

typedef struct metrics {
    double r2, slowdown, accuracy, mistakes;
    int groups;
} metrics_t;

/* FACT metrics of the model over the grid (grouped by shape and size). */
static void score(view_t *v, const hyt_al_t *al, const hyt_al_point_t *g, int ng, double *pred,
                  metrics_t *m)
{
    hyt_al_predict(al, g, ng, pred);
    double mean = 0, sst = 0, sse = 0;
    for (int i = 0; i < ng; i++)
        mean += log(lookup(v, &g[i])) / ng;
    int cases = 0, right = 0, bad = 0;
    double slow = 0;
    for (int i = 0; i < ng;) {
        int j = i, pick = i, best = i;
        for (; j < ng && g[j].nodes == g[i].nodes && g[j].ppn == g[i].ppn &&
               g[j].bytes == g[i].bytes;
             j++) {
            double t = lookup(v, &g[j]), lt = log(t), lp = log(pred[j]);
            sse += (lt - lp) * (lt - lp);
            sst += (lt - mean) * (lt - mean);
            if (pred[j] < pred[pick])
                pick = j;
            if (t < lookup(v, &g[best]))
                best = j;
        }
        double s = lookup(v, &g[pick]) / lookup(v, &g[best]);
        slow += s;
        right += s <= 1.0;
        bad += s > 1.1;
        cases++;
        i = j;
    }
    m->r2 = sst > 0 ? 1 - sse / sst : 1;
    m->slowdown = slow / cases;
    m->accuracy = (double)right / cases;
    m->mistakes = (double)bad / cases;
    m->groups = cases;
}

static void print_iter(FILE *out, const char *mode, const char *coll, const hyt_al_t *al,
                       const metrics_t *m, double exhaustive)
{
    hyt_al_status_t st;
    hyt_al_status(al, &st);
    fprintf(out, "%-6s %-10s %4d %6d %10.4f %7.2f%% %8.4f %8.5f %7.4f %8.4f %7.4f %7.4f\n", mode,
            coll, st.iterations, st.points, st.cost_s, 100 * st.cost_s / exhaustive, st.cumvar_rel,
            st.expected, m->r2, m->slowdown, m->accuracy, m->mistakes);
}

/* A loop's state at some iteration: metrics, status, points cut so far. */
typedef struct snap {
    metrics_t m;
    hyt_al_status_t st;
    int ncut, set;
} snap_t;

/* Run one loop; stop at convergence (tuner) or once cost reaches budget.
 * *end: the last iteration; *at: the first iteration costing at least
 * at_cost (the last one if none does). */
static int run(view_t *v, const char *coll, const hyt_al_opts_t *opts, const char *mode,
               const hyt_al_point_t *g, int ng, double *pred, double budget, FILE *out,
               snap_t *end, double at_cost, snap_t *at)
{
    hyt_al_t *al = hyt_al_new(g, ng, opts);
    if (!al)
        return -1;
    int rc = 0;
    v->ncut = 0;
    v->al = al;
    v->draws = 0;
    *end = *at = (snap_t){0};
    for (;;) {
        rc = hyt_al_step(al, measure, v);
        if (rc < 0 || rc == 2)
            break;
        hyt_al_status(al, &end->st);
        end->ncut = v->ncut;
        if (end->st.points >= 2) {
            score(v, al, g, ng, pred, &end->m);
            print_iter(out, mode, coll, al, &end->m, v->exhaustive_s);
        }
        if (!at->set && end->st.cost_s >= at_cost) {
            *at = *end;
            at->set = 1;
        }
        if ((!opts->random && rc == 1) || end->st.cost_s >= budget)
            break;
    }
    hyt_al_status(al, &end->st);
    if (!at->set)
        *at = *end;
    v->al = NULL;
    hyt_al_free(al);
    return rc < 0 ? -1 : 0;
}

/* Adds one collective's tuner (side 0) or random (side 1) result to the run's totals. */
static void add_total(hyt_oracle_total_t *tot, int side, const snap_t *r)
{
    tot->points[side] += r->st.points;
    tot->cost_s[side] += r->st.cost_s;
    tot->slow[side] += r->m.slowdown * r->m.groups;
    tot->bad[side] += r->m.mistakes * r->m.groups;
}

int hyt_oracle_simulate(const hyt_oracle_t *o, const char *coll, const hyt_al_opts_t *opts,
                        double random_to, hyt_oracle_total_t *tot, FILE *out)
{
    view_t *v = malloc(sizeof *v);
    hyt_al_point_t *g = NULL;
    double *pred = NULL;
    int rc = -1;
    if (!v || build_view(o, coll, v) != 0) {
        fprintf(stderr, "hytune tune: the oracle has no power-of-two rows for %s (or more than "
                "%d algorithms / %d candidates / %d shapes)\n", coll, MAX_NAMES, MAX_CANDS,
                MAX_SHAPES);
        free(v);
        return -1;
    }
    if (noise.sigma > 0)
        add_steps(v, coll);
    int ng = make_grid(v, &g);
    pred = malloc((size_t)(ng > 0 ? ng : 1) * sizeof *pred);
    if (ng < 2 || !pred)
        goto out;
    fprintf(out, "# %s: %d shapes, %d candidates, %d grid points, %d groups, exhaustive benchmark "
            "%.3f s (%d calls per point)\n", coll, v->nshape, v->ncand, ng, count_groups(v),
            v->exhaustive_s, HYT_ORACLE_CALLS);
    fprintf(out, "# mode   coll       iter points     cost_s   cost%%   cumvar  expgain      R2 "
            "slowdown accuracy mistakes\n");
    snap_t t, tat, r, rat;
    if (run(v, coll, opts, "tuner", g, ng, pred, INFINITY, out, &t, INFINITY, &tat) != 0)
        goto out;
    hyt_al_opts_t ro = *opts;
    ro.random = 1;
    /* random sampling is compared at the tuner's cost, and may go on to random_to */
    if (run(v, coll, &ro, "random", g, ng, pred, fmax(t.st.cost_s, random_to * v->exhaustive_s),
            out, &r, t.st.cost_s, &rat) != 0)
        goto out;
    fprintf(out, "summary %s: tuner %d points %.3f s (%.1f%% of exhaustive) slowdown %.4f "
            "mistakes %.1f%% R2 %.3f | random %d points %.3f s slowdown %.4f mistakes %.1f%% "
            "R2 %.3f | cut after two calls: tuner %d, random %d points | measured again: %d\n", coll, t.st.points,
            t.st.cost_s, 100 * t.st.cost_s / v->exhaustive_s, t.m.slowdown, 100 * t.m.mistakes,
            t.m.r2, rat.st.points, rat.st.cost_s, rat.m.slowdown, 100 * rat.m.mistakes, rat.m.r2,
            t.ncut, rat.ncut, t.st.remeasured);
    if (tot) {
        tot->colls++;
        tot->groups += t.m.groups;
        tot->exhaustive_s += v->exhaustive_s;
        add_total(tot, 0, &t);
        add_total(tot, 1, &rat);
    }
    rc = 0;
out:
    free(g);
    free(pred);
    free(v->t);
    free(v);
    return rc;
}

void hyt_oracle_print_total(const hyt_oracle_total_t *t, FILE *out)
{
    if (t->groups == 0)
        return;
    fprintf(out, "summary run (%d collectives, %d groups): tuner %d points %.3f s (%.1f%% of the "
            "exhaustive %.3f s) slowdown %.4f mistakes %.1f%% | random %d points %.3f s slowdown "
            "%.4f mistakes %.1f%%\n", t->colls, t->groups, t->points[0], t->cost_s[0],
            100 * t->cost_s[0] / t->exhaustive_s, t->exhaustive_s, t->slow[0] / t->groups,
            100 * t->bad[0] / t->groups, t->points[1], t->cost_s[1], t->slow[1] / t->groups,
            100 * t->bad[1] / t->groups);
}

int hyt_oracle_score_table(const hyt_oracle_t *o, const char *coll, const hyt_table_t *t,
                           FILE *out)
{
    int c = hyt_coll_from_name(coll), groups = 0, bad = 0, missing = 0;
    double slow = 0;
    view_t *v = malloc(sizeof *v);
    if (v && c >= 0 && build_view(o, coll, v) == 0) {
        for (int s = 0; s < v->nshape; s++) {
            const hyt_rule_set_t *set =
                hyt_table_match(t, (hyt_coll_t)c, v->shape[s][0], v->shape[s][1]);
            for (int lg = 0; lg < 64; lg++) {
                double best = group_best(v, s, lg);
                if (isinf(best)) /* no group at this size */
                    continue;
                const hyt_rule_t *r = set ? hyt_rules_lookup(set, (size_t)1 << lg) : NULL;
                int q = r ? find_cand(v, name_id(v, r->alg->name), r->k) : -1;
                double chosen = q >= 0 ? *cell(v, s, lg, q) : NAN;
                if (isnan(chosen)) {
                    missing++;
                    continue;
                }
                slow += chosen / best;
                bad += chosen > 1.1 * best;
                groups++;
            }
        }
    }
    if (v)
        free(v->t);
    free(v);
    if (groups == 0) {
        fprintf(stderr, "hytune tune: --score: no group of %s in the oracle could be scored "
                "(does the table cover %s, and the oracle the table's algorithms?)\n", coll,
                coll);
        return -1;
    }
    fprintf(out, "score %s: %d groups, slowdown %.4f, mistakes %.1f%% (> 10%% slower), %d groups "
            "whose choice the oracle did not measure\n", coll, groups, slow / groups,
            100.0 * bad / groups, missing);
    return 0;
}
