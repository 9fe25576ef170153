/* Active learning, rule generation and table output (offline/active.c,
 * offline/rules.c) on a synthetic cost model with a known answer; the table
 * written must load with src/table.c's hyt_table_load. */
#include "offline/active.c"
#include "offline/forest.c"
#include "offline/oracle.h"
#include "offline/rules.c"
#include "src/hyt.h"
#include "src/nbsel.h"
#include "test/check.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* alg 0: latency-bound tree, alg 1: bandwidth-optimal, alg 2: radix k helps
 * small messages; time in us. */
static double model(const hyt_al_point_t *p)
{
    double L = log2((double)p->nodes * p->ppn + 1), b = (double)p->bytes;
    switch (p->alg) {
    case 0:
        return 2 * L + 0.001 * b * L;
    case 1:
        return 6 * L + 0.002 * b;
    default:
        return 3 * L / log2(p->k) + 0.2 * (p->k - 1) + 0.0008 * b * L * (1 + 0.3 * (p->k - 1));
    }
}

static int measure(void *ctx, const hyt_al_point_t *pts, int n, const double *cut, double *us,
                   double *cost)
{
    int *calls = ctx;
    for (int i = 0; i < n; i++) {
        us[i] = model(&pts[i]);
        /* the oracle replay's cost model: a cut point pays its two calls */
        cost[i] = (us[i] > cut[i] ? HYT_ORACLE_CUT_CALLS : HYT_ORACLE_CALLS) * 1e-6 * us[i];
        calls[0]++;
        calls[1] += (pts[i].bytes & (pts[i].bytes - 1)) != 0; /* not a power of two */
    }
    return 0;
}

static int predict_exact(void *ctx, const hyt_al_point_t *pts, int n, double *us)
{
    (void)ctx;
    for (int i = 0; i < n; i++)
        us[i] = model(&pts[i]);
    return 0;
}

static const hyt_al_point_t cands[] = {{.alg = 0}, {.alg = 1}, {.alg = 2, .k = 2},
                                       {.alg = 2, .k = 4}, {.alg = 2, .k = 8}};
enum { NCAND = 5 };

static int make_grid(hyt_al_point_t *g)
{
    int n = 0;
    for (int nodes = 1; nodes <= 8; nodes *= 2)
        for (int ppn = 1; ppn <= 4; ppn *= 2)
            for (uint64_t b = 4; b <= 65536; b *= 2)
                for (int c = 0; c < NCAND; c++) {
                    g[n] = cands[c];
                    g[n].nodes = nodes;
                    g[n].ppn = ppn;
                    g[n++].bytes = b;
                }
    return n;
}

/* Average slowdown of the model's choices over the grid's shapes and sizes. */
static double slowdown(const hyt_al_t *a, int *mistakes, int *cases)
{
    double sum = 0;
    *mistakes = *cases = 0;
    for (int nodes = 1; nodes <= 8; nodes *= 2)
        for (int ppn = 1; ppn <= 4; ppn *= 2)
            for (uint64_t b = 4; b <= 65536; b *= 2) {
                hyt_al_point_t p[NCAND];
                double pred[NCAND];
                for (int c = 0; c < NCAND; c++) {
                    p[c] = cands[c];
                    p[c].nodes = nodes;
                    p[c].ppn = ppn;
                    p[c].bytes = b;
                }
                hyt_al_predict(a, p, NCAND, pred);
                int pick = 0, best = 0;
                for (int c = 1; c < NCAND; c++) {
                    if (pred[c] < pred[pick])
                        pick = c;
                    if (model(&p[c]) < model(&p[best]))
                        best = c;
                }
                double s = model(&p[pick]) / model(&p[best]);
                sum += s;
                *mistakes += s > 1.1;
                (*cases)++;
            }
    return sum / *cases;
}

/* The model's whole grid and the default options for it (MPI_INT sizes). */
static int setup(hyt_al_point_t **grid, hyt_al_opts_t *o)
{
    static hyt_al_point_t g[4 * 3 * 15 * NCAND];
    hyt_al_opts_default(o);
    o->bytes_gran = 4;
    *grid = g;
    return make_grid(g);
}

static void test_active(void)
{
    hyt_al_point_t *grid;
    hyt_al_opts_t o;
    int ng = setup(&grid, &o);
    if (getenv("VAR")) o.forest.var = (hyt_forest_var_t)atoi(getenv("VAR"));
    hyt_al_t *a = hyt_al_new(grid, ng, &o);
    CHECK(a != NULL, "al_new");
    int calls[2] = {0, 0}, rc = 0, it = 0;
    while (rc == 0 && it < 200) {
        rc = hyt_al_step(a, measure, calls);
        it++;
    }
    hyt_al_status_t st;
    hyt_al_status(a, &st);
    int mist, cases;
    double sd = slowdown(a, &mist, &cases);
    printf("active: %d iterations, %d of %d grid points measured (%d off-grid), converged %d, "
           "cumvar rel %.3f, slowdown %.4f, mistakes %d/%d\n", st.iterations, st.points, ng,
           calls[1], st.converged, st.cumvar_rel, sd, mist, cases);
    CHECK(rc == 1 && st.converged, "did not converge (rc %d)", rc);
    CHECK(st.points < ng * 3 / 4, "converged only after %d of %d points", st.points, ng);
    /* one in five is moved, except at the smallest sizes where no other
     * multiple of 4 lies within 0.7x..1.4x */
    CHECK(calls[1] >= calls[0] / 7 && calls[1] <= calls[0] / 5 + 1,
          "%d of %d points off the power-of-two grid, want about one in five", calls[1], calls[0]);
    CHECK(sd < 1.03 && mist < cases / 10, "average slowdown %g, %d/%d mistakes", sd, mist, cases);
    CHECK(st.cost_s > 0, "cost not accumulated");

    /* the same seed takes the same path */
    hyt_al_t *b = hyt_al_new(grid, ng, &o);
    int calls2[2] = {0, 0};
    for (int i = 0; i < it; i++)
        hyt_al_step(b, measure, calls2);
    hyt_al_status_t st2;
    hyt_al_status(b, &st2);
    CHECK(st2.points == st.points && st2.cumvar == st.cumvar, "not deterministic");
    hyt_al_free(a);
    hyt_al_free(b);
}

static void test_rules_exact(void)
{
    /* two candidates crossing between 1024 and 2048: A = 10 + b/100, B = 25 + b/1000;
     * crossover 1666, midpoint 1536 still A, so A covers <= 1536 */
    hyt_tune_rule_t r[8];
    int n = hyt_rules_build(predict_exact, NULL, 8, 4, cands, NCAND, 4, 65536, 4, r, 8);
    CHECK(n >= 2, "rules %d", n);
    for (int i = 1; i < n; i++)
        CHECK(r[i].bytes_max > r[i - 1].bytes_max, "rule %d threshold %llu not above %llu", i,
              (unsigned long long)r[i].bytes_max, (unsigned long long)r[i - 1].bytes_max);
    CHECK(r[n - 1].bytes_max == UINT64_MAX, "last rule bounded");
    for (int i = 0; i + 1 < n; i++)
        CHECK(r[i].alg != r[i + 1].alg || r[i].k != r[i + 1].k, "rules %d and %d not merged", i,
              i + 1);
    /* exact at powers of two; in between the midpoint check keeps every
     * size within 5% of the best (the rule is linear-in-size approximate) */
    int bad = 0, off_pow2 = 0;
    for (uint64_t b = 4; b <= 65536; b += b < 512 ? 4 : 97) {
        int j = 0;
        while (b > r[j].bytes_max)
            j++;
        hyt_al_point_t p = {.nodes = 8, .ppn = 4, .bytes = b, .alg = r[j].alg, .k = r[j].k};
        double best = 1e300;
        for (int c = 0; c < NCAND; c++) {
            hyt_al_point_t q = cands[c];
            q.nodes = 8, q.ppn = 4, q.bytes = b;
            best = fmin(best, model(&q));
        }
        bad += model(&p) > 1.05 * best;
        off_pow2 += (b & (b - 1)) == 0 && model(&p) > best * (1 + 1e-12);
    }
    CHECK(bad == 0, "%d sizes more than 5%% off the best", bad);
    CHECK(off_pow2 == 0, "%d powers of two not at the best", off_pow2);
    for (int i = 0; i < n; i++)
        printf("rule: <= %llu: alg %d k %d (%.2f us)\n", (unsigned long long)r[i].bytes_max,
               r[i].alg, r[i].k, r[i].us);
}

static int two_alg(void *ctx, const hyt_al_point_t *pts, int n, double *us)
{
    (void)ctx;
    for (int i = 0; i < n; i++)
        us[i] = pts[i].alg == 0 ? 10 + pts[i].bytes / 100.0 : 25 + pts[i].bytes / 1000.0;
    return 0;
}

static void test_midpoint(void)
{
    hyt_al_point_t c2[2] = {{.alg = 0}, {.alg = 1}};
    hyt_tune_rule_t r[4];
    int n = hyt_rules_build(two_alg, NULL, 1, 1, c2, 2, 1, 1 << 20, 1, r, 4);
    CHECK(n == 2 && r[0].alg == 0 && r[0].bytes_max == 1536 && r[1].alg == 1,
          "midpoint rule: n %d, first <= %llu alg %d", n, (unsigned long long)r[0].bytes_max,
          r[0].alg);
    CHECK(hyt_rules_build(two_alg, NULL, 1, 1, c2, 2, 1, 1 << 20, 1, r, 1) == -1,
          "overflow of the rule array not reported");
}

/* Names for categories 0..2 from the registry (as many distinct ones as exist). */
static void pick_names(const char **names)
{
    int n = 0;
    for (int i = 0; i < hyt_nalgs && n < 3; i++)
        if (hyt_algs[i].coll == HYT_COLL_ALLREDUCE && !hyt_alg_has_radix(&hyt_algs[i]))
            names[n++] = hyt_algs[i].name;
    for (; n < 3; n++)
        names[n] = names[0];
}

static void test_table(void)
{
    const char *names[3];
    pick_names(names);
    hyt_al_point_t c2[2] = {{.alg = 0}, {.alg = 1}};
    hyt_tune_rule_t r1[4], r2[4];
    int n1 = hyt_rules_build(two_alg, NULL, 1, 1, c2, 2, 1, 1 << 20, 1, r1, 4);
    int n2 = hyt_rules_build(two_alg, NULL, 4, 2, c2, 2, 1, 1 << 20, 1, r2, 4);
    hyt_tune_set_t sets[2] = {{4, 2, n2, r2, names, -1, {0}}, {1, 1, n1, r1, names, -1, {0}}};
    hyt_tune_coll_t coll = {"allreduce", 2, sets};
    char *txt = hyt_table_json(4, 2, "test", "sync", 16, NULL, NULL, &coll, 1, NULL);
    CHECK(txt != NULL, "json");
    char path[] = "/tmp/hyt-test-rules-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[512];
    CHECK(hyt_tune_write_atomic(path, "previous", err, sizeof err) == 0, "write: %s", err);
    CHECK(hyt_tune_write_atomic(path, txt, err, sizeof err) == 0, "write: %s", err);
    hyt_table_t *t = hyt_table_load(path, err, sizeof err);
    CHECK(t != NULL, "written table does not load: %s", err);
    if (t) {
        CHECK(t->k_max == 16, "the tuner's k_max read back as %d", t->k_max);
        const hyt_rule_set_t *s = hyt_table_match(t, HYT_COLL_ALLREDUCE, 1, 1);
        CHECK(s && s->nodes_max == 1 && s->ppn_max == 1 && s->nrules == 2 && s->setup_us < 0,
              "set for 1x1 (no set-up cost measured: none written)");
        if (s) {
            CHECK(s->rules[0].bytes_max == 1536, "threshold %llu",
                  (unsigned long long)s->rules[0].bytes_max);
            CHECK(strcmp(hyt_rules_lookup(s, 1536)->alg->name, names[0]) == 0, "lookup 1536");
            CHECK(strcmp(hyt_rules_lookup(s, 1537)->alg->name, names[1]) == 0, "lookup 1537");
        }
        s = hyt_table_match(t, HYT_COLL_ALLREDUCE, 3, 2); /* 3 nodes: the 4-node shape */
        CHECK(s && s->nodes_max == INT32_MAX && s->ppn_max == INT32_MAX, "largest shape unbounded");
        hyt_table_free(t);
    }
    /* a write that cannot happen leaves the file as it was */
    CHECK(hyt_tune_write_atomic("/nonexistent-dir/t.json", txt, err, sizeof err) == -1 &&
              strstr(err, "/nonexistent-dir/t.json") != NULL, "bad path: %s", err);
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s.tmp.*", path);
    glob_t g;
    CHECK(glob(tmp, 0, NULL, &g) == GLOB_NOMATCH, "temporary file left behind: %s",
          g.gl_pathc ? g.gl_pathv[0] : "?");
    globfree(&g);
    unlink(path);
    free(txt);
}

/* Shortlists: scripted predictions and deviations per (alg, k), the same at
 * every size.  Categories: 0 native, 1 knomial, 2 recmult, 3 rabenseifner,
 * 4 kring. */
static const struct {
    int alg, k;
    double us, sd;
} sl_model[] = {
    {1, 2, 10.0, 0.2}, /* the choice */
    {1, 4, 10.5, 0.1}, /* the choice's own algorithm: never listed (k is probed) */
    {2, 2, 12.0, 0.1}, /* recmult k=2: 20% slower, but ... */
    {2, 4, 10.8, 0.1}, /* ... k=4 within the margin: recmult listed once, at k=4 */
    {0, 0, 12.5, 2.0}, /* native: outside the margin, interval 10.5 > 10.2: not listed */
    {3, 0, 11.5, 1.4}, /* rabenseifner: outside the margin, interval 10.1 <= 10.2: listed */
    {4, 1, 30.0, 5.0}, /* kring: far and sure: not listed */
};
#define SL_N ((int)(sizeof sl_model / sizeof sl_model[0]))

static int sl_find(const hyt_al_point_t *p)
{
    for (int i = 0; i < SL_N; i++)
        if (sl_model[i].alg == p->alg && sl_model[i].k == p->k)
            return i;
    return -1;
}

static int sl_predict(void *ctx, const hyt_al_point_t *pts, int n, double *us)
{
    (void)ctx;
    for (int i = 0; i < n; i++)
        us[i] = sl_find(&pts[i]) >= 0 ? sl_model[sl_find(&pts[i])].us : 1e30;
    return 0;
}

static int sl_spread(void *ctx, const hyt_al_point_t *pts, int n, double *sd)
{
    (void)ctx;
    for (int i = 0; i < n; i++)
        sd[i] = sl_find(&pts[i]) >= 0 ? sl_model[sl_find(&pts[i])].sd : 0;
    return 0;
}

static void test_shortlist(void)
{
    hyt_al_point_t c[SL_N];
    for (int i = 0; i < SL_N; i++)
        c[i] = (hyt_al_point_t){.alg = sl_model[i].alg, .k = sl_model[i].k};
    const char *names[5] = {"native", "knomial", "recmult", "rabenseifner", "kring"};
    hyt_tune_rule_t r[4];
    int n = hyt_rules_build(sl_predict, NULL, 2, 2, c, SL_N, 8, 1 << 16, 8, r, 4);
    CHECK(n == 1 && r[0].alg == 1 && r[0].k == 2, "one rule, knomial:2: n %d", n);
    CHECK(hyt_rules_shortlist(sl_predict, NULL, sl_spread, NULL, 2, 2, c, SL_N, names, 0, 1 << 16, r,
                              n) == 0 && r[0].native_us == 12.5,
          "shortlist, native's time %g", r[0].native_us);
    CHECK(r[0].nshort == 3 && r[0].shortlist[0].alg == 1 && r[0].shortlist[0].k == 2 &&
              r[0].shortlist[0].us == 10.0 && r[0].shortlist[0].sd == 0.2 &&
              r[0].shortlist[1].alg == 2 && r[0].shortlist[1].k == 4 &&
              r[0].shortlist[1].us == 10.8 && r[0].shortlist[2].alg == 3 &&
              r[0].shortlist[2].sd == 1.4,
          "shortlist: %d entries, [1] alg %d k %d, [2] alg %d", r[0].nshort,
          r[0].shortlist[1].alg, r[0].shortlist[1].k, r[0].shortlist[2].alg);
    /* no deviations: the margin alone (rabenseifner at 15% drops out) */
    hyt_tune_rule_t r2[4];
    hyt_rules_build(sl_predict, NULL, 2, 2, c, SL_N, 8, 1 << 16, 8, r2, 4);
    CHECK(hyt_rules_shortlist(sl_predict, NULL, NULL, NULL, 2, 2, c, SL_N, names, -1, 1 << 16, r2,
                              1) == 0 && r2[0].native_us < 0 &&
              r2[0].nshort == 2 && r2[0].shortlist[1].alg == 2 && r2[0].shortlist[0].sd < 0,
          "margin only: %d entries", r2[0].nshort);
    /* the table carries it (format 2) and loads back */
    for (int i = 0; i < 5; i++)
        if (!hyt_alg_find(HYT_COLL_ALLREDUCE, names[i])) {
            printf("test_rules: allreduce %s not registered; shortlist round trip skipped\n",
                   names[i]);
            return;
        }
    hyt_tune_set_t set = {2, 2, n, r, names, 131.5, {HYT_SETUP_FIT_LOG2, -3.5, 2.25, 2, 16, 0, -1}};
    hyt_tune_coll_t coll = {"allreduce", 1, &set};
    hyt_setup_world_t world = {16, 145.25, 141.125};
    char *txt = hyt_table_json(2, 2, "test", "sync", 0, NULL, &world, &coll, 1, NULL);
    char path[] = "/tmp/hyt-test-rules-XXXXXX", err[512];
    int fd = mkstemp(path);
    close(fd);
    CHECK(txt && hyt_tune_write_atomic(path, txt, err, sizeof err) == 0, "write");
    hyt_table_t *t = hyt_table_load(path, err, sizeof err);
    CHECK(t != NULL, "table with shortlists does not load: %s", err);
    const hyt_rule_set_t *s = t ? hyt_table_match(t, HYT_COLL_ALLREDUCE, 2, 2) : NULL;
    const hyt_rule_t *ru = s ? hyt_rules_lookup(s, 64) : NULL;
    CHECK(ru && ru->nshort == 3 && !strcmp(ru->shortlist[0].alg->name, "knomial") &&
              ru->shortlist[0].spread_us == 0.2 && !strcmp(ru->shortlist[1].alg->name, "recmult") &&
              ru->shortlist[1].k == 4 && ru->shortlist[1].predicted_us == 10.8 &&
              !strcmp(ru->shortlist[2].alg->name, "rabenseifner") && ru->shortlist[2].k == 0,
          "loaded shortlist: %d entries", ru ? ru->nshort : -1);
    CHECK(s && s->setup_us == 131.5 && ru && ru->native_us == 12.5 && ru->predicted_us == 10.0,
          "setup_us and native_us read back: %g, %g", s ? s->setup_us : -2, ru ? ru->native_us : -2);
    CHECK(s && s->setup_fit.x == HYT_SETUP_FIT_LOG2 && s->setup_fit.a_us == -3.5 &&
              s->setup_fit.b_us == 2.25 && s->setup_fit.ranks_min == 2 &&
              s->setup_fit.ranks_max == 16,
          "setup_fit read back: x %d, a %g, b %g, ranks %d..%d", s ? (int)s->setup_fit.x : -1,
          s ? s->setup_fit.a_us : 0, s ? s->setup_fit.b_us : 0, s ? s->setup_fit.ranks_min : 0,
          s ? s->setup_fit.ranks_max : 0);
    CHECK(t && t->k_max == 0, "no k_max given, one read back: %d", t ? t->k_max : -1);
    CHECK(t && t->world.ranks == 16 && t->world.dup_us == 145.25 && t->world.first_us == 141.125,
          "setup_world read back: %d ranks, %g, %g", t ? t->world.ranks : -1,
          t ? t->world.dup_us : 0, t ? t->world.first_us : 0);
    hyt_table_free(t);
    unlink(path);
    free(txt);
}

/* The job's own set's shortlist with the whole job's measurements: an
 * entry slower than the rule beyond the noise and the margin at each size
 * measured leaves it; one measured otherwise carries the ratio at the size
 * nearest the one predicted at (here 2048 of 1-3000 B), re-sorted; an entry
 * not measured keeps the model's time. */
static void test_shortlist_job(void)
{
    hyt_tune_rule_t r = {.bytes_max = 3000, .alg = 1, .k = 2, .us = 10, .nshort = 4};
    r.shortlist[0] = (hyt_tune_cand_t){1, 2, 10, 0.5};
    r.shortlist[1] = (hyt_tune_cand_t){2, 4, 10.5, 1};   /* 1.5x at 64 B, 0.95x at 1024 B */
    r.shortlist[2] = (hyt_tune_cand_t){0, 0, 11, 2};     /* 1.3x and 20x: dropped */
    r.shortlist[3] = (hyt_tune_cand_t){3, 0, 10.8, 0.7}; /* not measured */
    hyt_rules_jobm_t m[] = {{1, 64, 8, 0.01, 12, 0.01},   {1, 1024, 20, 0.01, 19, 0.02},
                            {2, 64, 8, 0.01, 10.4, 0.01}, {2, 1024, 20, 0.01, 400, 0.01},
                            {1, 16, 4, 0.01, -1, 0}};
    int dropped = hyt_rules_shortlist_job(&r, 1, 4096, m, 5);
    CHECK(dropped == 1 && r.nshort == 3 && r.shortlist[0].alg == 1 && r.shortlist[0].us == 10 &&
              r.shortlist[1].alg == 2 && fabs(r.shortlist[1].us - 9.5) < 1e-9 &&
              fabs(r.shortlist[1].sd - 9.5 * sqrt(0.0005)) < 1e-9 && r.shortlist[2].alg == 3 &&
              r.shortlist[2].us == 10.8 && r.shortlist[2].sd == 0.7,
          "job shortlist: %d dropped, %d entries, [1] alg %d us %g sd %g, [2] alg %d", dropped,
          r.nshort, r.shortlist[1].alg, r.shortlist[1].us, r.shortlist[1].sd, r.shortlist[2].alg);
    /* within the margin (1.08x) or the noise (1.15x, standard errors 0.05):
     * kept, carrying its ratio */
    r.nshort = 2;
    r.shortlist[1] = (hyt_tune_cand_t){0, 0, 11, 2};
    hyt_rules_jobm_t w[] = {{1, 2048, 10, 0.05, 11.5, 0.05}};
    CHECK(hyt_rules_shortlist_job(&r, 1, 4096, w, 1) == 0 && r.nshort == 2 &&
              fabs(r.shortlist[1].us - 11.5) < 1e-9,
          "within the noise: %d entries, %g us", r.nshort, r.shortlist[1].us);
    w[0].us_q = 10.8;
    w[0].sp_r = w[0].sp_q = 0.001;
    CHECK(hyt_rules_shortlist_job(&r, 1, 4096, w, 1) == 0 && r.nshort == 2,
          "within the margin: %d entries", r.nshort);
    /* a rule without a shortlist (the native guard's) stays without one */
    r.nshort = 0;
    CHECK(hyt_rules_shortlist_job(&r, 1, 4096, m, 5) == 0 && r.nshort == 0, "no shortlist: %d",
          r.nshort);
}

/* The nonblocking section written with the table (src/table.c) reads back
 * as written: sets, bounds, rules, radixes and times. */
static void test_table_nb(void)
{
    const char *names[3];
    pick_names(names);
    hyt_tune_rule_t r = {.bytes_max = UINT64_MAX, .alg = 0, .us = -1};
    hyt_tune_set_t set = {2, 2, 1, &r, names, -1, {0}};
    hyt_tune_coll_t coll = {"allreduce", 1, &set};
    hyt_nb_rule_t r0[2] = {{.bytes_max = 1024, .alg = "tsp_recexch_single_buffer", .k = 4,
                            .predicted_us = 1.25, .native_us = 2.5},
                           {.bytes_max = UINT64_MAX, .alg = "auto", .predicted_us = -1,
                            .native_us = -1}},
                  r1[1] = {{.bytes_max = UINT64_MAX, .alg = "tsp_tree", .k = 3,
                            .predicted_us = 7.125, .native_us = -1}};
    hyt_nb_table_t nb = {0};
    hyt_nb_set_t sets[2] = {{2, 2, 2, r0}, {INT32_MAX, INT32_MAX, 1, r1}};
    nb.nsets[HYT_NB_IALLREDUCE] = 2;
    nb.sets[HYT_NB_IALLREDUCE] = sets;
    char *txt = hyt_table_json(2, 2, "test", "sync", 0, NULL, NULL, &coll, 1, &nb);
    char path[] = "/tmp/hyt-test-rules-XXXXXX", err[512];
    int fd = mkstemp(path);
    close(fd);
    CHECK(txt && hyt_tune_write_atomic(path, txt, err, sizeof err) == 0, "write with nb");
    hyt_table_t *t = hyt_table_load(path, err, sizeof err);
    CHECK(t && t->nb, "table with a nonblocking section does not load: %s", t ? "no section" : err);
    if (t && t->nb) {
        const hyt_nb_table_t *b = t->nb;
        CHECK(b->nsets[HYT_NB_IALLREDUCE] == 2 && b->nsets[HYT_NB_IBCAST] == 0, "nb sets %d",
              b->nsets[HYT_NB_IALLREDUCE]);
        const hyt_nb_set_t *s0 = &b->sets[HYT_NB_IALLREDUCE][0], *s1 = s0 + 1;
        CHECK(s0->nodes_max == 2 && s0->ppn_max == 2 && s0->nrules == 2 &&
                  s1->nodes_max == INT32_MAX && s1->ppn_max == INT32_MAX && s1->nrules == 1,
              "nb set bounds");
        const hyt_nb_rule_t *a = s0->rules, *c = s1->rules;
        CHECK(a[0].bytes_max == 1024 && !strcmp(a[0].alg, "tsp_recexch_single_buffer") &&
                  a[0].k == 4 && a[0].predicted_us == 1.25 && a[0].native_us == 2.5,
              "nb rule 0: %s k=%d %g %g", a[0].alg, a[0].k, a[0].predicted_us, a[0].native_us);
        CHECK(a[1].bytes_max == UINT64_MAX && !strcmp(a[1].alg, "auto") && a[1].k == 0 &&
                  a[1].predicted_us < 0 && a[1].native_us < 0,
              "nb rule 1: %s", a[1].alg);
        CHECK(c[0].bytes_max == UINT64_MAX && !strcmp(c[0].alg, "tsp_tree") && c[0].k == 3 &&
                  c[0].predicted_us == 7.125 && c[0].native_us < 0,
              "nb set 1 rule: %s k=%d %g", c[0].alg, c[0].k, c[0].predicted_us);
    }
    hyt_table_free(t);
    unlink(path);
    free(txt);
}

/* A failed benchmark (negative time): no training row, never chosen again,
 * predicted HYT_AL_FAILED_US within a factor of two of its size only. */
static int measure_failing(void *ctx, const hyt_al_point_t *pts, int n, const double *cut,
                           double *us, double *cost)
{
    int *failed = ctx;
    (void)cut;
    for (int i = 0; i < n; i++) {
        int fail = pts[i].alg == 0 && pts[i].nodes == 2 && pts[i].ppn == 2 && pts[i].bytes == 1024;
        us[i] = fail ? -1 : model(&pts[i]);
        cost[i] = HYT_ORACLE_CALLS * 1e-6 * model(&pts[i]);
        *failed += fail;
    }
    return 0;
}

static void test_failed_points(void)
{
    static hyt_al_point_t grid[4 * 3 * 15 * NCAND];
    int ng = make_grid(grid);
    hyt_al_opts_t o;
    hyt_al_opts_default(&o);
    o.bytes_gran = 4;
    o.offgrid_every = 0; /* the failing grid point is measured at its own size */
    hyt_al_t *a = hyt_al_new(grid, ng, &o);
    CHECK(a != NULL, "al_new");

    /* a first batch where everything fails fits nothing and is no error */
    hyt_al_point_t f0 = {.nodes = 8, .ppn = 4, .bytes = 4, .alg = 1};
    double bad = -1, c0 = 1e-3;
    CHECK(hyt_al_update(a, &f0, &bad, &c0, 1) == 0, "all-failed batch is an error");
    hyt_al_status_t st;
    hyt_al_status(a, &st);
    CHECK(st.points == 0 && st.failed == 1 && st.cost_s > 0, "all-failed batch: %d points, %d "
          "failed, cost %g", st.points, st.failed, st.cost_s);

    int failed = 0, rc = 0, it = 0;
    while (rc == 0 && it < 400) { /* with --exhaustive: every grid point once */
        rc = hyt_al_step(a, measure_failing, &failed);
        it++;
    }
    CHECK(rc == 1 || rc == 2, "loop ended with %d", rc);
    while (rc != 2 && it < 400) {
        rc = hyt_al_step(a, measure_failing, &failed);
        it++;
    }
    CHECK(rc == 2, "grid not exhausted (%d)", rc);
    CHECK(failed == 1, "failing point measured %d times, want once", failed);
    hyt_al_status(a, &st);
    CHECK(st.failed == 2 && st.points == ng - 2, "%d failed, %d of %d points trained", st.failed,
          st.points, ng);

    /* alg 0 is the fastest at 2 x 2, 1 KiB in the model: now never chosen there
     * nor strictly within a factor of two; its neighbours 512 B and 2 KiB are
     * measured and keep their times */
    hyt_al_point_t q = {.nodes = 2, .ppn = 2, .alg = 0};
    uint64_t sizes[] = {512, 516, 1024, 1500, 2044, 2048};
    int want_failed[] = {0, 1, 1, 1, 1, 0};
    for (int i = 0; i < 6; i++) {
        q.bytes = sizes[i];
        double us;
        CHECK(hyt_al_predict(a, &q, 1, &us) == 0, "predict");
        CHECK((us == HYT_AL_FAILED_US) == want_failed[i], "%llu B: predicted %g",
              (unsigned long long)sizes[i], us);
    }
    q.ppn = 4; /* another shape is not affected */
    q.bytes = 1024;
    double us;
    hyt_al_predict(a, &q, 1, &us);
    CHECK(fabs(us - model(&q)) < 1e-9 * us, "other shape: %g, measured %g", us, model(&q));
    hyt_al_free(a);
}

/* alg 1 fails at every size of shape 8 x 4 and works elsewhere. */
static int measure_failing_shape(void *ctx, const hyt_al_point_t *pts, int n, const double *cut,
                                 double *us, double *cost)
{
    int *failed = ctx;
    (void)cut;
    for (int i = 0; i < n; i++) {
        int fail = pts[i].alg == 1 && pts[i].nodes == 8 && pts[i].ppn == 4;
        us[i] = fail ? -1 : model(&pts[i]);
        cost[i] = HYT_ORACLE_CALLS * 1e-6 * model(&pts[i]);
        *failed += fail;
    }
    return 0;
}

/* A candidate that failed at a shape and was never measured there is
 * predicted HYT_AL_FAILED_US at every size of that shape, not only near its
 * failures (a search cut short leaves most of its sizes untried); once one
 * of its points there works, only the failures' neighbourhoods stay out. */
static void test_failed_shape(void)
{
    static hyt_al_point_t grid[4 * 3 * 15 * NCAND];
    int ng = make_grid(grid);
    hyt_al_opts_t o;
    hyt_al_opts_default(&o);
    o.bytes_gran = 4;
    o.offgrid_every = 0;
    hyt_al_t *a = hyt_al_new(grid, ng, &o);
    CHECK(a != NULL, "al_new");
    int failed = 0, rc = 0, it = 0;
    while (rc == 0 && failed == 0 && it < 400) {
        rc = hyt_al_step(a, measure_failing_shape, &failed);
        it++;
    }
    CHECK(failed > 0, "no point of alg 1 at 8 x 4 chosen in %d iterations", it);
    hyt_al_point_t q = {.nodes = 8, .ppn = 4, .alg = 1};
    int far = 0;
    for (uint64_t b = 4; b <= 65536; b *= 2) {
        q.bytes = b;
        double us;
        CHECK(hyt_al_predict(a, &q, 1, &us) == 0, "predict");
        CHECK(us == HYT_AL_FAILED_US, "8 x 4, %llu B: predicted %g", (unsigned long long)b, us);
        far += us == HYT_AL_FAILED_US;
    }
    CHECK(far == 15, "%d of 15 sizes out", far);
    q.nodes = 4; /* another shape is not affected */
    double us;
    hyt_al_predict(a, &q, 1, &us);
    CHECK(us < HYT_AL_FAILED_US, "4 x 4: predicted %g", us);
    /* one success at the shape: sizes away from the failures come back */
    hyt_al_point_t ok = {.nodes = 8, .ppn = 4, .alg = 1, .bytes = 65536};
    hyt_al_point_t f = {.nodes = 8, .ppn = 4, .alg = 1, .bytes = 4};
    double t[2] = {model(&ok), -1}, c[2] = {1e-3, 1e-3};
    hyt_al_point_t two[2] = {ok, f};
    CHECK(hyt_al_update(a, two, t, c, 2) >= 0, "update");
    q.nodes = 8;
    q.bytes = 4;
    hyt_al_predict(a, &q, 1, &us);
    CHECK(us == HYT_AL_FAILED_US, "8 x 4, 4 B after a success elsewhere: %g", us);
    q.bytes = 65536;
    hyt_al_predict(a, &q, 1, &us);
    CHECK(fabs(us - model(&q)) < 1e-9 * us, "8 x 4, 64 KiB measured: %g, want %g", us, model(&q));
    hyt_al_free(a);
}

/* Racing: the cut is cut x the best measured time of the point's own group
 * (shape and size), and infinite without a measurement there or with the
 * option 0.  With the model's exact times the cut changes no
 * choice, only the cost: the same run costs less and measures the same. */
static void test_cut(void)
{
    hyt_al_point_t *grid;
    hyt_al_opts_t o;
    int ng = setup(&grid, &o);
    CHECK(o.cut == 1.25, "default cut %g", o.cut);
    hyt_al_t *a = hyt_al_new(grid, ng, &o);
    CHECK(a != NULL, "al_new");
    hyt_al_point_t p = grid[0], q = grid[0], other = grid[0];
    q.alg = (p.alg + 1) % NCAND;
    q.k = q.alg == 2 ? 2 : 0;
    other.bytes *= 2;
    CHECK(isinf(hyt_al_cut_us(a, &p)), "cut before any measurement");
    double t[2] = {20, 8};
    hyt_al_point_t two[2] = {p, q};
    hyt_al_add(a, two, t, 2);
    double c = hyt_al_cut_us(a, &p);
    CHECK(fabs(c - 10) < 1e-9, "cut %g, want 1.25 x 8", c);
    CHECK(isinf(hyt_al_cut_us(a, &other)), "cut %g at another size", hyt_al_cut_us(a, &other));
    /* off the grid: the nearest power of two's group, scaled up by the size
     * ratio where larger (5 B: 4 B's best x 1.25; 3 B: 4 B's best as is;
     * 12 B: 16 B's group, nothing measured there) */
    hyt_al_point_t off = p;
    off.bytes = 5;
    c = hyt_al_cut_us(a, &off);
    CHECK(fabs(c - 12.5) < 1e-9, "cut %g at 5 B, want 1.25 x 8 x 5/4", c);
    off.bytes = 3;
    c = hyt_al_cut_us(a, &off);
    CHECK(fabs(c - 10) < 1e-9, "cut %g at 3 B, want 1.25 x 8", c);
    off.bytes = 12;
    CHECK(isinf(hyt_al_cut_us(a, &off)), "cut %g at 12 B", hyt_al_cut_us(a, &off));
    hyt_al_free(a);
    o.cut = 0;
    a = hyt_al_new(grid, ng, &o);
    hyt_al_add(a, two, t, 2);
    CHECK(isinf(hyt_al_cut_us(a, &p)), "cut with the option 0");
    hyt_al_free(a);

    hyt_al_t *run[2];
    hyt_al_status_t st[2];
    for (int r = 0; r < 2; r++) {
        o.cut = r ? 1.25 : 0;
        run[r] = hyt_al_new(grid, ng, &o);
        int calls[2] = {0, 0};
        for (int i = 0; i < 30; i++)
            hyt_al_step(run[r], measure, calls);
        hyt_al_status(run[r], &st[r]);
    }
    printf("cut: 30 iterations cost %.6f s with cut 1.25, %.6f s without\n", st[1].cost_s,
           st[0].cost_s);
    CHECK(st[1].points == st[0].points && st[1].cumvar == st[0].cumvar,
          "the cut changed the points measured");
    CHECK(st[1].cost_s < st[0].cost_s, "cost %g with the cut, %g without (nothing cut)", st[1].cost_s,
          st[0].cost_s);
    hyt_al_free(run[0]);
    hyt_al_free(run[1]);
}

/* The native guard's pieces: the sizes a rule is checked at, and the rules
 * rewritten from the verdicts. */

/* Rules equal in what the table says (bytes_max, algorithm, k, time). */
static int same_rules(const hyt_tune_rule_t *a, const hyt_tune_rule_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].bytes_max != b[i].bytes_max || a[i].alg != b[i].alg || a[i].k != b[i].k ||
            a[i].us != b[i].us)
            return 0;
    return 1;
}

static void test_native_guard(void)
{
    /* native (alg 0) up to 1024, then alg 3 k 4 up to 6144, then alg 5 */
    hyt_tune_rule_t r[3] = {{.bytes_max = 1024, .alg = 0, .k = 0, .us = 1},
                            {.bytes_max = 6144, .alg = 3, .k = 4, .us = 2},
                            {.bytes_max = UINT64_MAX, .alg = 5, .k = 0, .us = 3}};
    uint64_t sz[64];
    int n = hyt_rules_check_sizes(r, 3, 1, 1 << 20, 4, sz, 64);
    /* edges 1028 and 6144, and 4096 (2^12) between */
    uint64_t want[] = {1028, 4096, 6144};
    CHECK(n == 3, "check sizes: %d", n);
    for (int i = 0; i < n && i < 3; i++)
        CHECK(sz[i] == want[i], "check size %d: %llu, want %llu", i, (unsigned long long)sz[i],
              (unsigned long long)want[i]);
    /* no 2^(4i) between 6148 and 16384: the power of two nearest their
     * geometric mean (10036), 8192 */
    n = hyt_rules_check_sizes(r, 3, 2, 16384, 4, sz, 64);
    CHECK(n == 3 && sz[0] == 6148 && sz[1] == 8192 && sz[2] == 16384, "last rule: %d sizes, %llu %llu %llu",
          n, (unsigned long long)sz[0], (unsigned long long)sz[n > 1 ? 1 : 0],
          (unsigned long long)sz[n ? n - 1 : 0]);
    /* a rule over 4 B .. 1 MiB: its edges and 16, 256, 4096, 65536: a bounded
     * number, not every power of two */
    hyt_tune_rule_t wide[1] = {{.bytes_max = UINT64_MAX, .alg = 3, .k = 2, .us = 1}};
    uint64_t want_wide[] = {4, 16, 256, 4096, 65536, 1 << 20};
    n = hyt_rules_check_sizes(wide, 1, 0, 1 << 20, 4, sz, 64);
    CHECK(n == 6, "wide rule: %d sizes", n);
    for (int i = 0; i < n && i < 6; i++)
        CHECK(sz[i] == want_wide[i], "wide rule size %d: %llu, want %llu", i,
              (unsigned long long)sz[i], (unsigned long long)want_wide[i]);
    /* a rule of one size is checked once */
    hyt_tune_rule_t one[2] = {{.bytes_max = 1024, .alg = 3, .k = 2, .us = 1},
                              {.bytes_max = UINT64_MAX, .alg = 0, .k = 0, .us = 2}};
    n = hyt_rules_check_sizes(one, 2, 1, 1028, 4, sz, 64);
    CHECK(n == 1 && sz[0] == 1028, "one size: %d", n);
    CHECK(hyt_rules_check_sizes(r, 3, 2, 4096, 4, sz, 64) == 0, "a rule above top is not checked");
    /* rule 1 loses at its two smallest sizes, rule 2 everywhere: native up to the
     * midpoint between 1452 and 2048 (1752), rule 1 to 6144, native beyond */
    hyt_rules_verdict_t v[] = {{1, 1028, 0, 0, 0}, {1, 1452, 0, 0, 0}, {1, 2048, 1, 0, 0},
                               {1, 6144, 1, 0, 0}, {2, 6148, 0, 0, 0}, {2, 16384, 0, 0, 0}};
    hyt_tune_rule_t out[8];
    int changed = -1;
    n = hyt_rules_apply(r, 3, v, 6, 4, HYT_SPLIT_MID, out, 8, &changed);
    CHECK(n == 3 && changed == 2, "rewritten: %d rules, %d changed", n, changed);
    CHECK(n == 3 && out[0].alg == 0 && out[0].bytes_max == 1752 && out[1].alg == 3 &&
              out[1].k == 4 && out[1].bytes_max == 6144 && out[2].alg == 0 &&
              out[2].bytes_max == UINT64_MAX,
          "rules: %llu/%d %llu/%d %llu/%d", (unsigned long long)out[0].bytes_max, out[0].alg,
          (unsigned long long)out[1].bytes_max, out[1].alg, (unsigned long long)out[2].bytes_max,
          out[2].alg);
    /* split at the kept verdicts: native up to 2044 (rule 1's first kept
     * size is 2048), rule 1 to 6144, native beyond; every edge of rule 1 a
     * measured win */
    n = hyt_rules_apply(r, 3, v, 6, 4, HYT_SPLIT_AT_KEEP, out, 8, &changed);
    CHECK(n == 3 && changed == 2 && out[0].alg == 0 && out[0].bytes_max == 2044 &&
              out[1].alg == 3 && out[1].bytes_max == 6144 && out[2].alg == 0 &&
              out[2].bytes_max == UINT64_MAX,
          "split at the kept verdicts: %d rules, %llu/%d %llu/%d", n,
          (unsigned long long)out[0].bytes_max, out[0].alg, (unsigned long long)out[1].bytes_max,
          out[1].alg);
    /* a rule kept at its low edge and lost at its high one ends at its kept
     * size: rule 1 kept at 1028 and 4096, lost at 6144 */
    hyt_rules_verdict_t vh[] = {{1, 1028, 1, 0, 0}, {1, 4096, 1, 0, 0}, {1, 6144, 0, 0, 0}};
    n = hyt_rules_apply(r, 3, vh, 3, 4, HYT_SPLIT_AT_KEEP, out, 8, &changed);
    CHECK(n == 4 && changed == 1 && out[1].alg == 3 && out[1].bytes_max == 4096 &&
              out[2].alg == 0 && out[2].bytes_max == 6144,
          "high edge lost, split at the kept verdict: %d rules, %llu", n,
          (unsigned long long)out[1].bytes_max);
    n = hyt_rules_apply(r, 3, vh, 3, 4, HYT_SPLIT_MID, out, 8, &changed);
    CHECK(n == 4 && changed == 1 && out[1].bytes_max == 5120 && out[2].alg == 0 &&
              out[2].bytes_max == 6144,
          "high edge lost, midpoint: %d rules, %llu", n, (unsigned long long)out[1].bytes_max);
    /* a rule cut short keeps only the gains within its new sizes: rule 1's
     * gains at 1028 and 4096 B, it now starts at 1753 B */
    hyt_tune_rule_t rg[3];
    memcpy(rg, r, sizeof rg);
    rg[1].ngains = 2;
    rg[1].gains[0] = (hyt_gain_t){64, 1028, 2.0};
    rg[1].gains[1] = (hyt_gain_t){64, 4096, 3.0};
    n = hyt_rules_apply(rg, 3, v, 6, 4, HYT_SPLIT_MID, out, 8, &changed);
    CHECK(n == 3 && out[1].ngains == 1 && out[1].gains[0].bytes == 4096 && out[0].ngains == 0,
          "gains of the cut rule: %d", n == 3 ? out[1].ngains : -1);
    /* every verdict kept: the rules are unchanged */
    for (int i = 0; i < 6; i++)
        v[i].keep = 1;
    n = hyt_rules_apply(r, 3, v, 6, 4, HYT_SPLIT_MID, out, 8, &changed);
    CHECK(n == 3 && changed == 0 && same_rules(out, r, 3), "all kept: %d rules", n);
    /* on the whole job a lost size goes to its verdict's candidate: rule 1
     * loses 1028 and 4096 B to its challenger (alg 7 k 2), which takes up to
     * the midpoint 5120 (one segment), kept at 6144; rule 2 loses 6148 B to
     * native and 16384 to alg 3 k 4: two replacements, split at their
     * midpoint (11268) */
    hyt_rules_verdict_t vc[] = {{1, 1028, 0, 7, 2}, {1, 4096, 0, 7, 2}, {1, 6144, 1, 0, 0},
                                {2, 6148, 0, 0, 0}, {2, 16384, 0, 3, 4}};
    n = hyt_rules_apply(r, 3, vc, 5, 4, HYT_SPLIT_MID, out, 8, &changed);
    CHECK(n == 5 && changed == 2 && out[0].alg == 0 && out[0].bytes_max == 1024 &&
              out[1].alg == 7 && out[1].k == 2 && out[1].bytes_max == 5120 && out[1].us < 0 &&
              out[2].alg == 3 && out[2].k == 4 && out[2].bytes_max == 6144 && out[2].us == 2 &&
              out[3].alg == 0 && out[3].bytes_max == 11268 && out[4].alg == 3 && out[4].k == 4 &&
              out[4].bytes_max == UINT64_MAX,
          "challengers and native: %d rules, %d changed, %llu/%d %llu/%d %llu/%d", n, changed,
          (unsigned long long)out[1].bytes_max, out[1].alg, (unsigned long long)out[2].bytes_max,
          out[2].alg, (unsigned long long)out[3].bytes_max, out[3].alg);
    /* verdicts: a win beyond 3% is kept, within it native stays */
    CHECK(hyt_rules_guard_keep(96, 0, 100, 0, 0) == 1, "4%% faster: kept");
    CHECK(hyt_rules_guard_keep(98, 0, 100, 0, 0) == 0, "2%% faster: native");
    CHECK(hyt_rules_guard_keep(101, 0, 100, 0, 0) == 0, "slower: native");
    /* noise widens the margin: standard errors 0.03 and 0.04 -> 10% */
    CHECK(hyt_rules_guard_keep(92, 0.03, 100, 0.04, 0) == 0, "8%% faster in noise: native");
    CHECK(hyt_rules_guard_keep(89, 0.03, 100, 0.04, 0) == 1, "11%% faster in noise: kept");
    /* failures: the candidate's loses, native's keeps the rule */
    CHECK(hyt_rules_guard_keep(-1, 0, 100, 0, 0) == 0, "candidate failed: native");
    CHECK(hyt_rules_guard_keep(100, 0, -1, 0, 0) == 1, "native failed: kept");
    /* racing: native cut above 1.25 x the candidate / (1 - 3%) keeps the rule */
    double cu = hyt_rules_guard_cut_us(100, 0);
    CHECK(cu > 128.8 && cu < 128.9, "cut time %g", cu);
    CHECK(hyt_rules_guard_keep(100, 0, 130, 0, 1) == 1, "native cut slower: kept");
    CHECK(hyt_rules_guard_keep(100, 0, 120, 0, 1) == 0, "native cut below the cut time: native");
    CHECK(isinf(hyt_rules_guard_cut_us(-1, 0)) && isinf(hyt_rules_guard_cut_us(100, 0.5)),
          "no race against a failed or too noisy candidate");
}

/* Measurement noise (hyt_al_note_noise) shifts the choice of points, not the
 * stop signal: the same measurements give the same expected gain left with
 * and without noted noise, while the scores (and so the next batch) count
 * only gains beyond the noise; with noise noted every chosen point stays on
 * the grid (powers of two), without it every fifth moves off. */
static void test_noise_stop(void)
{
    hyt_al_point_t *grid;
    hyt_al_opts_t o;
    int ng = setup(&grid, &o);
    hyt_al_t *a = hyt_al_new(grid, ng, &o), *b = hyt_al_new(grid, ng, &o);
    CHECK(a && b, "al_new");
    hyt_al_point_t pa[64], pb[64];
    double us[64], cost[64], sigma[64];
    int calls[2] = {0, 0};
    /* the initial design does not depend on the noise: both take the same points */
    int na = hyt_al_next(a, pa, 64), nb = hyt_al_next(b, pb, 64);
    CHECK(na == nb && na > 0 && !memcmp(pa, pb, (size_t)na * sizeof *pa), "initial designs differ");
    double cut[64];
    for (int i = 0; i < na; i++) {
        cut[i] = INFINITY;
        sigma[i] = 0.05;
    }
    measure(calls, pa, na, cut, us, cost);
    hyt_al_note_noise(b, sigma, na);
    CHECK(hyt_al_noise_delta(b) > 0.1 && hyt_al_noise_delta(a) == 0, "delta %g / %g",
          hyt_al_noise_delta(b), hyt_al_noise_delta(a));
    hyt_al_update(a, pa, us, cost, na);
    hyt_al_update(b, pb, us, cost, nb);
    hyt_al_status_t sa, sb;
    hyt_al_status(a, &sa);
    hyt_al_status(b, &sb);
    CHECK(sa.expected > 0 && sb.expected == sa.expected,
          "expected gain left %g with noise, %g without: the stop signal must not shift",
          sb.expected, sa.expected);
    na = hyt_al_next(a, pa, o.batch);
    nb = hyt_al_next(b, pb, o.batch);
    CHECK(na == nb && memcmp(pa, pb, (size_t)na * sizeof *pa) != 0,
          "the noise did not change the choice of points");
    int offa = 0, offb = 0;
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < na; i++)
            offa += (pa[i].bytes & (pa[i].bytes - 1)) != 0;
        for (int i = 0; i < nb; i++)
            offb += (pb[i].bytes & (pb[i].bytes - 1)) != 0;
        measure(calls, pa, na, cut, us, cost);
        hyt_al_update(a, pa, us, cost, na);
        measure(calls, pb, nb, cut, us, cost);
        hyt_al_note_noise(b, sigma, nb);
        hyt_al_update(b, pb, us, cost, nb);
        na = hyt_al_next(a, pa, o.batch);
        nb = hyt_al_next(b, pb, o.batch);
    }
    CHECK(offa > 0 && offb == 0, "points off the grid: %d without noise, %d with noise noted (want 0)",
          offa, offb);
    /* the stop threshold: unchanged without noise and with quiet noise
     * (sigma 0.05: delta 0.141), scaled by HYT_AL_LOUD / delta in loud noise */
    CHECK(hyt_al_stop_threshold(a) == o.threshold && hyt_al_stop_threshold(b) == o.threshold,
          "threshold %g / %g, want %g", hyt_al_stop_threshold(a), hyt_al_stop_threshold(b),
          o.threshold);
    for (int i = 0; i < na; i++)
        sigma[i] = 0.1; /* most measurements now: the median 0.1, delta 0.283 */
    for (int r = 0; r < 8; r++)
        hyt_al_note_noise(b, sigma, na);
    double d = hyt_al_noise_delta(b), th = hyt_al_stop_threshold(b);
    CHECK(d > 0.28 && d < 0.29 && fabs(th - o.threshold * HYT_AL_LOUD / d) < 1e-12 &&
              th < 0.6 * o.threshold,
          "loud noise: delta %g, threshold %g (want %g)", d, th, o.threshold * HYT_AL_LOUD / d);
    hyt_al_free(a);
    hyt_al_free(b);
}

/* The re-measure rule (hyt_al_note_noise): with noise noted, a group's true
 * best candidate measured 2.5 times too slow (a disturbed run) is measured
 * again, first in the next batch, and once more when the two disagree; its
 * robust value (median of three) is then its true time and the group's
 * choice is right.  Two agreeing measurements end it; with no noise noted it
 * is never measured again; the same seed gives the same batches. */
static void test_remeasure(void)
{
    hyt_al_point_t *grid;
    hyt_al_opts_t o;
    int ng = setup(&grid, &o);
    /* the disturbed point: the best candidate of a group (not at the grid's
     * edges) that wins by a clear margin below 1.5, so that the mean of a
     * disturbed and a right measurement (1.58 x) still loses */
    int pick = -1;
    double margin = 0;
    for (int i = 0; i < ng; i += NCAND) {
        if (grid[i].bytes <= 4 || grid[i].bytes >= 65536)
            continue;
        int b = i;
        for (int c = i; c < i + NCAND; c++)
            if (model(&grid[c]) < model(&grid[b]))
                b = c;
        double second = INFINITY;
        for (int c = i; c < i + NCAND; c++)
            if (c != b)
                second = fmin(second, model(&grid[c]));
        if (second / model(&grid[b]) > margin && second / model(&grid[b]) < 1.5) {
            margin = second / model(&grid[b]);
            pick = b;
        }
    }
    CHECK(pick >= 0 && margin > 1.2, "no group with a clear winner (%g)", margin);
    hyt_al_point_t p = grid[pick];
    double truth = model(&p), slow = 2.5 * truth, cost = 1e-6, sigma = 0.02;
    hyt_al_t *run[4];
    hyt_al_point_t out[4][64];
    int got[4];
    for (int r = 0; r < 4; r++) { /* 0, 1: noise noted (same seed), 2: exact, 3: agreeing */
        run[r] = hyt_al_new(grid, ng, &o);
        CHECK(run[r] != NULL, "al_new");
        for (int i = 0; i < ng; i++)
            if (i != pick)
                hyt_al_add(run[r], &grid[i], &(double){model(&grid[i])}, 1);
        if (r != 2)
            hyt_al_note_noise(run[r], &sigma, 1);
        hyt_al_update(run[r], &p, &slow, &cost, 1);
        got[r] = hyt_al_next(run[r], out[r], 64);
    }
    CHECK(got[0] == 1 && !memcmp(&out[0][0], &p, sizeof p),
          "the disturbed point is not measured again (%d points)", got[0]);
    CHECK(got[1] == got[0] && !memcmp(out[1], out[0], sizeof out[0][0] * (size_t)got[0]),
          "the same seed gave another batch");
    CHECK(got[2] == 0, "measured again with no noise noted (%d points)", got[2]);
    /* two agreeing slow measurements: slow in truth, no third */
    hyt_al_update(run[3], &p, &slow, &cost, 1);
    CHECK(hyt_al_next(run[3], out[3], 64) == 0, "a third measurement of two agreeing ones");
    /* the second measurement is right: they disagree, a third decides */
    hyt_al_update(run[0], &p, &truth, &cost, 1);
    CHECK(hyt_al_next(run[0], out[0], 64) == 1 && !memcmp(&out[0][0], &p, sizeof p),
          "no third measurement of two that disagree");
    double third = 1.01 * truth, pred[NCAND];
    hyt_al_update(run[0], &p, &third, &cost, 1);
    hyt_al_predict(run[0], &grid[pick - pick % NCAND], NCAND, pred);
    CHECK(fabs(pred[pick % NCAND] - third) < 1e-9 * truth,
          "robust value %g, want the median of %g, %g, %g", pred[pick % NCAND], slow, truth, third);
    for (int c = 0; c < NCAND; c++)
        CHECK(c == pick % NCAND || pred[c] > pred[pick % NCAND], "candidate %d chosen over the best", c);
    CHECK(hyt_al_next(run[0], out[0], 64) == 0, "a fourth measurement");
    hyt_al_status_t st;
    hyt_al_status(run[0], &st);
    CHECK(st.remeasured == 2, "remeasured %d, want 2", st.remeasured);
    for (int r = 0; r < 4; r++)
        hyt_al_free(run[r]);
}

/* The set-up cost's growth with the communicator (hyt_rules_setup_fit,
 * hyt_setup_cost): costs made by a known model are fitted back in the
 * model's form; a falling cost, or a single size, gives no fit; the cost is
 * evaluated at a communicator's size, beyond the sizes measured too. */
static void test_setup_fit(void)
{
    int ranks[6] = {2, 4, 8, 16, 32, 64};
    double lin[6], lg[6], noisy[6], fall[6];
    for (int i = 0; i < 6; i++) {
        lin[i] = 5 + 3.0 * ranks[i];
        lg[i] = 10 + 7 * log2(ranks[i]);
        noisy[i] = lin[i] * (i % 2 ? 1.02 : 0.98); /* +-2%: still linear */
        fall[i] = 100 - ranks[i];
    }
    hyt_setup_fit_t f;
    CHECK(hyt_rules_setup_fit(ranks, lin, 4, &f) == HYT_SETUP_FIT_RANKS && fabs(f.a_us - 5) < 1e-9 &&
              fabs(f.b_us - 3) < 1e-9 && f.ranks_min == 2 && f.ranks_max == 16,
          "5 + 3 p: fitted x %d, %g + %g, ranks %d..%d", (int)f.x, f.a_us, f.b_us, f.ranks_min,
          f.ranks_max);
    CHECK(hyt_rules_setup_fit(ranks, lg, 6, &f) == HYT_SETUP_FIT_LOG2 && fabs(f.a_us - 10) < 1e-9 &&
              fabs(f.b_us - 7) < 1e-9 && f.ranks_max == 64,
          "10 + 7 log2 p: fitted x %d, %g + %g", (int)f.x, f.a_us, f.b_us);
    CHECK(hyt_rules_setup_fit(ranks, noisy, 6, &f) == HYT_SETUP_FIT_RANKS && fabs(f.b_us - 3) < 0.2,
          "5 + 3 p +-2%%: fitted x %d, %g + %g", (int)f.x, f.a_us, f.b_us);
    CHECK(hyt_rules_setup_fit(ranks, fall, 6, &f) == HYT_SETUP_FIT_NONE, "100 - p: x %d", (int)f.x);
    CHECK(hyt_rules_setup_fit(ranks, lin, 1, &f) == HYT_SETUP_FIT_NONE, "one size: x %d", (int)f.x);
    int same[2] = {8, 8};
    CHECK(hyt_rules_setup_fit(same, lin, 2, &f) == HYT_SETUP_FIT_NONE, "one size twice: x %d",
          (int)f.x);
    /* evaluated at the communicator's size, 0 where the line is below 0 */
    hyt_rule_set_t s = {.setup_us = 40, .setup_fit = {HYT_SETUP_FIT_RANKS, -2, 2, 2, 16}};
    CHECK(hyt_setup_cost(&s, 256) == 510 && hyt_setup_cost(&s, 16) == 30 &&
              hyt_setup_cost(&s, 1) == 0,
          "-2 + 2 p at 256, 16, 1: %g, %g, %g", hyt_setup_cost(&s, 256), hyt_setup_cost(&s, 16),
          hyt_setup_cost(&s, 1));
    s.setup_fit = (hyt_setup_fit_t){HYT_SETUP_FIT_LOG2, 1, 2, 2, 16, 0, -1};
    CHECK(hyt_setup_cost(&s, 8) == 7 && hyt_setup_cost(&s, 1024) == 21, "1 + 2 log2 p at 8, 1024: "
          "%g, %g", hyt_setup_cost(&s, 8), hyt_setup_cost(&s, 1024));
    s.setup_fit.x = HYT_SETUP_FIT_NONE;
    CHECK(hyt_setup_cost(&s, 1024) == 40, "no fit: setup_us at any size: %g",
          hyt_setup_cost(&s, 1024));
}

int main(void)
{
    test_active();
    test_noise_stop();
    test_remeasure();
    test_cut();
    test_failed_points();
    test_failed_shape();
    test_rules_exact();
    test_midpoint();
    test_native_guard();
    test_table();
    test_table_nb();
    test_shortlist();
    test_shortlist_job();
    test_setup_fit();
    return check_done("test_rules");
}
