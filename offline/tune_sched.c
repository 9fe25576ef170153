/* `hytune tune`: the search of one collective (learning loop, progress,
 * rules, native guard). */
#include "offline/tune_sched.h"
#include "offline/memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY_S 2.0 /* the rewritten line's period */

/* Rank 0: keep a measured point (the native guard reuses it). */
static void meas_add(coll_state_t *cs, const hyt_al_point_t *pt, double us, double sp, int cut)
{
    if (us < 0) /* failed: no time */
        return;
    if (cs->nmeas == cs->capmeas) {
        int cap = cs->capmeas ? 2 * cs->capmeas : 256;
        meas_t *q = realloc(cs->meas, (size_t)cap * sizeof *q);
        if (!q)
            return; /* not kept: the guard measures it again */
        cs->meas = q;
        cs->capmeas = cap;
    }
    cs->meas[cs->nmeas++] = (meas_t){*pt, us, sp, cut};
}

static int same_point(const hyt_al_point_t *a, const hyt_al_point_t *b)
{
    return a->nodes == b->nodes && a->ppn == b->ppn && a->bytes == b->bytes && a->alg == b->alg &&
           a->k == b->k;
}

/* The measurement of exactly this point into *out, an uncut one before a cut
 * one; a point measured in full more than once (the model's re-measure rule,
 * hyt_al_note_noise) answers the median of those times (mean of the middle
 * two), as the model counts it.  NULL if none. */
static const meas_t *meas_find(const coll_state_t *cs, const hyt_al_point_t *pt, meas_t *out)
{
    const meas_t *found = NULL;
    double us[8];
    int n = 0;
    for (int i = 0; i < cs->nmeas; i++) {
        const meas_t *m = &cs->meas[i];
        if (!same_point(&m->pt, pt))
            continue;
        if (!found || found->cut)
            found = m;
        if (!m->cut && n < 8)
            us[n++] = m->us;
    }
    if (!found)
        return NULL;
    *out = *found;
    if (n > 1)
        out->us = hyt_tune_median(us, n);
    return out;
}

/* The line: collective, points, benchmark seconds, expected gain left (or,
 * --select variance, the variance left); points and cost of the iteration
 * under way are added.  final: the collective is done, end the line. */
static void progress_line(tune_ctx_t *x, const coll_state_t *cs, double t0, int points,
                          double cost_s, int final)
{
    const tune_opts_t *t = x->opts;
    double now = PMPI_Wtime();
    if (!final && x->progress_shown > 0 && now - x->progress_shown < PROGRESS_EVERY_S)
        return;
    hyt_al_status_t st;
    hyt_al_status(cs->al, &st);
    char left[96];
    if (!st.iterations)
        snprintf(left, sizeof left, "first batch");
    else if (t->select_variance)
        snprintf(left, sizeof left, "variance %.3f of start", st.cumvar_rel);
    else
        snprintf(left, sizeof left, "expected gain left %.4g (stop below %.4g)", st.expected,
                 t->threshold);
    fprintf(stderr, "\r\033[Ktune: %s: %d points, benchmark %.1f s, %s, elapsed %.0f s%s",
            hyt_coll_name((hyt_coll_t)cs->c), st.points + points, st.cost_s + cost_s, left,
            now - t0, final ? "\n" : "");
    fflush(stderr);
    x->progress_shown = final ? 0 : now;
}

/* Clear the rewritten line before another message. */
static void progress_clear(tune_ctx_t *x)
{
    if (x->progress_shown > 0)
        fprintf(stderr, "\r\033[K");
    x->progress_shown = 0;
}

/* Rank 0: say which points needed their retry, and which failed twice. */
static void report_faults(tune_ctx_t *x, coll_state_t *cs, const hyt_al_point_t *pts, const double *us,
                          const int *tries, int n)
{
    for (int i = 0; i < n; i++) {
        if (tries[i] < 2)
            continue;
        progress_clear(x);
        const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand, &pts[i]);
        char k[24] = "";
        if (cd && cd->k)
            snprintf(k, sizeof k, " k=%d", cd->k);
        cs->retried += us[i] >= 0;
        fprintf(stderr, "tune: %s: %s%s at %d x %d, %llu B: %s\n",
                hyt_coll_name((hyt_coll_t)cs->c), cd ? cd->label : "?", k, pts[i].nodes,
                pts[i].ppn, (unsigned long long)pts[i].bytes,
                us[i] >= 0 ? "failed once, the retry succeeded"
                           : "failed twice, skipped (never chosen within a factor of 2 of this "
                             "size at this shape, nor at any size there until one works)");
    }
}

static void progress(tune_ctx_t *x, const coll_state_t *cs, double t0, double deadline)
{
    if (x->opts->progress == PROGRESS_LINE) {
        progress_line(x, cs, t0, 0, 0, 0);
        return;
    }
    hyt_al_status_t st;
    hyt_al_status(cs->al, &st);
    double el = PMPI_Wtime() - t0, per = st.iterations ? el / st.iterations : 0;
    fprintf(stderr, "tune: %s iter %d: %d points, cumulative variance %.4g (%.3f of start), "
            "elapsed %.2f s, to go <= %.2f s%s\n", hyt_coll_name((hyt_coll_t)cs->c),
            st.iterations, st.points, st.cumvar, st.cumvar_rel, el,
            fmax(0, fmin(deadline - PMPI_Wtime(), per * 20)), st.converged ? " (converged)" : "");
}

static void dump_batch(FILE *f, const coll_state_t *cs, const hyt_al_point_t *pts,
                       const double *us, int n)
{
    for (int i = 0; f && i < n; i++) {
        const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand, &pts[i]);
        if (cd && us[i] >= 0) /* a failed point has no time */
            hyt_oracle_write_row(f, hyt_coll_name((hyt_coll_t)cs->c), pts[i].nodes, pts[i].ppn,
                             pts[i].bytes, cd->label, cd->k, us[i]);
    }
}

/* Warm start: rows of this collective whose candidate exists here. */
void hyt_tune_warm_start(coll_state_t *cs, const hyt_oracle_t *o)
{
    for (int i = 0; o && i < o->n; i++) {
        const hyt_oracle_row_t *r = &o->rows[i];
        if (strcmp(r->coll, hyt_coll_name((hyt_coll_t)cs->c)))
            continue;
        for (int q = 0; q < cs->ncand; q++)
            if (!strcmp(cs->cands[q].label, r->alg) && cs->cands[q].k == r->k) {
                hyt_al_point_t p = {r->nodes, r->ppn, r->bytes, cs->cands[q].cat, r->k};
                hyt_al_add(cs->al, &p, &r->us, 1);
            }
    }
}

static int build_rules(const job_t *j, coll_state_t *cs, uint64_t max_bytes);
static void native_guard(tune_ctx_t *x, coll_state_t *cs, FILE *dump);
static void measure_gains(tune_ctx_t *x, coll_state_t *cs, double deadline, FILE *dump);

/* Rank 0's loop for one collective; other ranks follow in hyt_tune_run_round.  Then
 * the rules, checked against native (native_guard). */
int hyt_tune_coll_root(tune_ctx_t *x, coll_state_t *cs, double deadline, FILE *dump)
{
    const tune_opts_t *t = x->opts;
    const job_t *j = &x->job;
    hyt_al_point_t pts[1024];
    round_pt_t rp[1024];
    int round_end[1024];
    double us[1024], cost[1024], sigma[1024];
    int tries[1024], cut[1024];
    double t0 = PMPI_Wtime();
    int max = 2 * t->batch; /* the initial random points come in one batch */
    if (max > 1024)
        max = 1024;
    /* the first batch runs even past the deadline: the rules need a fitted model */
    for (int iter = 0;; iter++) {
        int n = iter == 0 || PMPI_Wtime() < deadline ? hyt_al_next(cs->al, pts, max) : 0;
        if (n == 0) {
            if (iter == 0) /* --warm-start gave every grid point: the model is fitted on them */
                hyt_al_update(cs->al, pts, us, NULL, 0);
            break;
        }
        int nr = hyt_tune_plan_rounds(j, cs->al, pts, n, rp, round_end), done = 0;
        for (int r = 0; r < nr; r++) {
            int m = round_end[r] - done;
            hyt_tune_run_round(&x->bench, j, cs->cands, cs->ncand, rp + done, m, t->point_budget,
                               us + done, cost + done, tries + done, cut + done, sigma + done);
            done = round_end[r];
            if (t->progress == PROGRESS_LINE) {
                double c = 0;
                for (int q = 0; q < done; q++)
                    c += cost[q];
                progress_line(x, cs, t0, done, c, 0);
            }
        }
        for (int i = 0; i < n; i++)
            pts[i] = rp[i].pt; /* same order as planned */
        report_faults(x, cs, pts, us, tries, n);
        for (int i = 0; i < n; i++) {
            cs->cut += cut[i];
            meas_add(cs, &pts[i], us[i], sigma[i], cut[i]);
        }
        dump_batch(dump, cs, pts, us, n);
        hyt_al_note_noise(cs->al, sigma, n);
        int rc = hyt_al_update(cs->al, pts, us, cost, n);
        progress(x, cs, t0, deadline);
        if (rc < 0 || (rc == 1 && !t->exhaustive))
            break;
    }
    if (t->progress == PROGRESS_LINE)
        progress_line(x, cs, t0, 0, 0, 1);
    if (build_rules(j, cs, t->max_bytes) == 0 && !t->no_guard) {
        native_guard(x, cs, t->exhaustive ? NULL : dump); /* a sweep's dump: the oracle */
        /* job-scale points are no shape of the oracle */
        measure_gains(x, cs, deadline, NULL);
    }
    int zero = 0;
    PMPI_Bcast(&zero, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return 0;
}

void hyt_tune_coll_follow(tune_ctx_t *x, coll_state_t *cs)
{
    round_pt_t rp[1024];
    while (hyt_tune_run_round(&x->bench, &x->job, cs->cands, cs->ncand, rp, 0, x->opts->point_budget,
                              NULL, NULL, NULL, NULL, NULL) > 0)
        ;
}

/* The largest size of the grid at a shape (the memory limit may cut it). */
static uint64_t shape_top(const coll_state_t *cs, int nodes, int ppn)
{
    uint64_t top = coll_gran(cs->c);
    for (int g = 0; g < cs->ngrid; g++)
        if (cs->grid[g].nodes == nodes && cs->grid[g].ppn == ppn && cs->grid[g].bytes > top)
            top = cs->grid[g].bytes;
    return top;
}

/* The model's prediction, with candidates that cannot run at a point's shape
 * and size (MPICH algorithms with restrictions) made never best. */
static int predict_valid(void *ctx, const hyt_al_point_t *pts, int n, double *us)
{
    coll_state_t *cs = ctx;
    int rc = hyt_rules_predict_al(cs->al, pts, n, us);
    for (int i = 0; rc == 0 && i < n; i++) {
        const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand, &pts[i]);
        uint64_t g = 1; /* the power of two of the point's group */
        while (2 * g <= pts[i].bytes)
            g *= 2;
        if (cd && (!hyt_tune_cand_ok(cd, cs->c, pts[i].nodes, pts[i].ppn, pts[i].bytes) ||
                   !hyt_tune_point_fits(cs->mem, cs->c, cd, pts[i].nodes * pts[i].ppn, g)))
            us[i] = 1e30; /* not benchmarked */
    }
    return rc;
}

/* Rank 0: the rules of every shape from the model, up to the largest size
 * benchmarked at that shape (the memory limit may stop below --max-bytes;
 * the last rule has no bound).  0, or -1. */
static int build_rules(const job_t *j, coll_state_t *cs, uint64_t max_bytes)
{
    if (!cs->rules && !(cs->rules = calloc(64, sizeof *cs->rules)))
        return -1;
    hyt_al_point_t cp[256];
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1], nc = 0;
        for (int q = 0; q < cs->ncand; q++)
            if (hyt_tune_cand_ok(&cs->cands[q], cs->c, nodes, ppn, max_bytes))
                cp[nc++] = (hyt_al_point_t){.alg = cs->cands[q].cat, .k = cs->cands[q].k};
        cs->nrules[s] = hyt_rules_build(predict_valid, cs, nodes, ppn, cp, nc, coll_gran(cs->c),
                                        shape_top(cs, nodes, ppn), coll_gran(cs->c),
                                        cs->rules[s], MAX_RULES);
        if (cs->nrules[s] < 1)
            return -1;
    }
    return 0;
}

/* The native guard: a rule that replaces "native" (the MPI library's own
 * selection) is kept only where both were measured, at the rule's sizes
 * (hyt_rules_check_sizes: its edges and a few powers of two between), and
 * it wins by more than the noise: its median below native's by more than
 * max(HYT_GUARD_MARGIN, two standard errors of the difference of both
 * medians' logs); elsewhere native is written.  A point already measured
 * uncut (by the model's iterations, or for another rule) is not measured
 * again.  The rule's candidate is measured in full first; native then races
 * it: a native point whose second call is slower than HYT_GUARD_CUT times
 * the candidate's median beyond the margin is cut there and the rule kept
 * (the candidate wins by far more than the noise).  A size where the rule's
 * candidate or native does not fit the memory limit (check sizes lie up to 2x
 * a benchmarked power of two, and a candidate's grid may reach further than
 * native's) is not measured there: native is written where the candidate
 * does not fit, the rule is kept where only native does not.  All ranks run
 * the rounds (hyt_tune_coll_follow). */
#define GUARD_MAX 4096

/* Rank 0: measure n points (rounds of at most 1024), racing each against
 * cut_us[i] (HUGE_VAL: never cut); each is kept (meas_add) and dumped.
 * min_reps: the fewest calls, a first call slower than stop_s seconds
 * ending the point cut (round_pt_t).  The number of points cut. */
static int guard_measure(tune_ctx_t *x, coll_state_t *cs, round_pt_t *rp, const hyt_al_point_t *pts,
                         const double *cut_us, int n, int min_reps, double stop_s, FILE *dump)
{
    int ncut = 0;
    double us[1024], cost[1024], sp[1024];
    int round_end[1024], tries[1024], cut[1024];
    for (int done = 0; done < n;) {
        int m = n - done < 1024 ? n - done : 1024;
        int nr = hyt_tune_plan_rounds(&x->job, cs->al, pts + done, m, rp, round_end), at = 0;
        for (int i = 0; i < m; i++) { /* hyt_tune_plan_rounds keeps the order */
            rp[i].cut_us = cut_us[done + i];
            rp[i].min_reps = min_reps;
            rp[i].stop_s = stop_s;
        }
        for (int r = 0; r < nr; r++) {
            hyt_tune_run_round(&x->bench, &x->job, cs->cands, cs->ncand, rp + at, round_end[r] - at,
                               x->opts->point_budget, us + at, cost + at, tries + at, cut + at, sp + at);
            at = round_end[r];
        }
        for (int i = 0; i < m; i++) {
            meas_add(cs, &rp[i].pt, us[i], sp[i], cut[i]);
            cs->guard_cost += cost[i];
            ncut += cut[i] && us[i] >= 0;
            dump_batch(dump, cs, &rp[i].pt, &us[i], 1);
        }
        done += m;
    }
    return ncut;
}

/* Native's cut time against a measured candidate (HUGE_VAL: none). */
static double guard_cut_us(const meas_t *mc)
{
    return !mc || mc->cut ? HUGE_VAL : hyt_rules_guard_cut_us(mc->us, mc->sp);
}

/* The category of "native" (the MPI library's own selection), or -1. */
static int native_cat(const coll_state_t *cs)
{
    int nat = -1;
    for (int q = 0; q < cs->ncand; q++)
        if ((cs->cands[q].alg->flags & HYT_ALG_NATIVE) && cs->cands[q].mpich < 0)
            nat = cs->cands[q].cat;
    return nat;
}

/* One pass of the guard over the current rules: every size of every rule
 * that replaces native is checked (hyt_rules_check_sizes); the points not
 * measured uncut yet are measured; the rules are rewritten with the verdicts
 * (split: hyt_rules_apply_native).  Counts go to *p.  0, or -1 (out of
 * memory). */
typedef struct guard_pass {
    int checked;      /* rules checked */
    int sizes;        /* check sizes measured (or reused) within the memory limit */
    int fresh;        /* of them, sizes no earlier pass checked */
    int npts, reused; /* points those sizes take, and of them reused */
    int native_sizes; /* sizes where native is kept */
    int new_native;   /* of them, sizes no earlier pass checked */
    int changed;      /* rules that lost sizes to native */
    int over;         /* sizes above the memory limit */
} guard_pass_t;

typedef struct guard_buf {
    hyt_al_point_t *pts, *todo;
    int *owner;       /* shape * MAX_RULES + rule */
    char *nofit;      /* above the memory limit: 1 the rule's candidate, 2 native */
    round_pt_t *rp;
    double *cut_us;
    hyt_rules_verdict_t *v;
    hyt_tune_rule_t *tmp;
} guard_buf_t;

/* A check (nodes, ppn, bytes of the candidate point p) made by an earlier pass. */
static int guard_seen(const coll_state_t *cs, const hyt_al_point_t *p, int nat)
{
    hyt_al_point_t pn = *p;
    pn.alg = nat;
    pn.k = 0;
    meas_t m1, m2;
    return meas_find(cs, p, &m1) && meas_find(cs, &pn, &m2);
}

static int guard_pass(tune_ctx_t *x, coll_state_t *cs, guard_buf_t *b, int nat,
                      hyt_rules_split_t split, FILE *dump, guard_pass_t *p)
{
    const job_t *j = &x->job;
    uint64_t gran = coll_gran(cs->c), sz[64];
    int n = 0;
    char *seen = malloc(GUARD_MAX / 2);
    if (!seen)
        return -1;
    *p = (guard_pass_t){0};
    /* check i: pts[2i] the rule's candidate, pts[2i + 1] native */
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1];
        for (int r = 0; r < cs->nrules[s]; r++) {
            const hyt_tune_rule_t *ru = &cs->rules[s][r];
            if (ru->alg == nat)
                continue;
            int m = hyt_rules_check_sizes(cs->rules[s], cs->nrules[s], r,
                                          shape_top(cs, nodes, ppn), gran, sz, 64);
            p->checked += m > 0;
            for (int i = 0; i < m && n < GUARD_MAX / 2; i++) {
                b->owner[n] = s * MAX_RULES + r;
                b->pts[2 * n] = (hyt_al_point_t){nodes, ppn, sz[i], ru->alg, ru->k};
                b->pts[2 * n + 1] = (hyt_al_point_t){nodes, ppn, sz[i], nat, 0};
                const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand, &b->pts[2 * n]);
                const cand_t *cn = hyt_tune_find_cand(cs->cands, cs->ncand, &b->pts[2 * n + 1]);
                b->nofit[n] = (char)((!cd || !hyt_tune_size_fits(cs->mem, cs->c, cd, nodes * ppn, sz[i])) |
                                     (!cn || !hyt_tune_size_fits(cs->mem, cs->c, cn, nodes * ppn, sz[i])) << 1);
                seen[n] = (char)guard_seen(cs, &b->pts[2 * n], nat);
                p->over += b->nofit[n] != 0;
                p->npts += b->nofit[n] & 1 ? 0 : b->nofit[n] & 2 ? 1 : 2;
                p->fresh += !b->nofit[n] && !seen[n];
                n++;
            }
        }
    }
    p->sizes = n - p->over;
    /* 1: the candidates not measured uncut yet, in full; 2: native, racing them */
    for (int phase = 0; phase < 2; phase++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (b->nofit[i] & (phase ? 3 : 1))
                continue;
            const hyt_al_point_t *pt = &b->pts[2 * i + phase];
            meas_t mh, mc;
            const meas_t *had = meas_find(cs, pt, &mh);
            double cu = phase ? guard_cut_us(meas_find(cs, &b->pts[2 * i], &mc)) : HUGE_VAL;
            if (had && (!had->cut || had->us > cu)) { /* a cut native point slower than cu serves */
                p->reused++;
                continue;
            }
            b->todo[m] = *pt;
            b->cut_us[m++] = cu;
        }
        guard_measure(x, cs, b->rp, b->todo, b->cut_us, m, 0, HUGE_VAL, dump);
    }
    /* verdicts per shape, then the rules rewritten */
    for (int s = 0; s < j->nshapes; s++) {
        int nv = 0, ch = 0;
        for (int i = 0; i < n; i++) {
            if (b->owner[i] / MAX_RULES != s)
                continue;
            meas_t bc, bn;
            const meas_t *mc = meas_find(cs, &b->pts[2 * i], &bc),
                         *mn = meas_find(cs, &b->pts[2 * i + 1], &bn);
            /* a failed point has no measurement; a cut candidate is never used */
            int keep = !(b->nofit[i] & 1) &&
                       hyt_rules_guard_keep(mc && !mc->cut ? mc->us : -1, mc ? mc->sp : 0,
                                            mn ? mn->us : -1, mn ? mn->sp : 0, mn && mn->cut);
            b->v[nv++] = (hyt_rules_verdict_t){b->owner[i] % MAX_RULES, b->pts[2 * i].bytes, keep,
                                               nat, 0};
            p->native_sizes += !keep;
            p->new_native += !keep && !seen[i];
        }
        int nr = hyt_rules_apply(cs->rules[s], cs->nrules[s], b->v, nv, gran, split, b->tmp,
                                 MAX_RULES, &ch);
        if (nr > 0) {
            memcpy(cs->rules[s], b->tmp, (size_t)nr * sizeof *b->tmp);
            cs->nrules[s] = nr;
            p->changed += ch;
        }
    }
    free(seen);
    return 0;
}

/* A rule that replaces native, as the table states it. */
typedef struct rule_span {
    int s, alg, k;
    uint64_t lo, hi;
} rule_span_t;

/* Every rule of every shape that replaces native (malloc'd, *n of them). */
static rule_span_t *rule_spans(const tune_ctx_t *x, const coll_state_t *cs, int nat, int *n)
{
    int tot = 0;
    for (int s = 0; s < x->job.nshapes; s++)
        tot += cs->nrules[s];
    rule_span_t *sp = malloc((size_t)(tot > 0 ? tot : 1) * sizeof *sp);
    *n = 0;
    for (int s = 0; sp && s < x->job.nshapes; s++)
        for (int r = 0; r < cs->nrules[s]; r++)
            if (cs->rules[s][r].alg != nat) {
                memset(&sp[*n], 0, sizeof *sp); /* compared with memcmp */
                sp[*n].s = s;
                sp[*n].alg = cs->rules[s][r].alg;
                sp[*n].k = cs->rules[s][r].k;
                sp[*n].lo = r ? cs->rules[s][r - 1].bytes_max + 1 : 0;
                sp[(*n)++].hi = cs->rules[s][r].bytes_max;
            }
    return sp;
}

/* Passes of the guard: the first checks the model's rules; a rule it cut
 * short has a new edge between two measured sizes (the midpoint between a
 * kept verdict and a native one), so each further pass checks the rewritten
 * rules again, measuring only what no pass measured (the new edges and
 * sizes between): up to GUARD_PASSES - 1 bisections of a lost range, and a
 * last pass that ends a kept rule at its kept verdict's size instead of a
 * midpoint, so that every edge written was measured a win. */
#define GUARD_PASSES 6

static void native_guard(tune_ctx_t *x, coll_state_t *cs, FILE *dump)
{
    int nat = native_cat(cs);
    if (nat < 0)
        return;
    guard_buf_t b = {
        .pts = malloc(GUARD_MAX * sizeof *b.pts), .todo = malloc(GUARD_MAX / 2 * sizeof *b.todo),
        .owner = malloc(GUARD_MAX / 2 * sizeof *b.owner), .nofit = malloc(GUARD_MAX / 2),
        .rp = malloc(1024 * sizeof *b.rp), .cut_us = malloc(GUARD_MAX / 2 * sizeof *b.cut_us),
        .v = malloc(GUARD_MAX / 2 * sizeof *b.v), .tmp = malloc(MAX_RULES * sizeof *b.tmp)};
    guard_pass_t first, p;
    int passes = 1, again = 0, again_pts = 0, again_native = 0, again_changed = 0;
    if (!b.pts || !b.todo || !b.owner || !b.nofit || !b.rp || !b.cut_us || !b.v || !b.tmp ||
        guard_pass(x, cs, &b, nat, HYT_SPLIT_MID, dump, &first) != 0)
        goto out;
    double cost0 = cs->guard_cost;
    /* the first pass's rules that replace native: those the later passes
     * change are counted once each */
    int nspan = 0;
    rule_span_t *span = first.changed ? rule_spans(x, cs, nat, &nspan) : NULL;
    for (int ch = first.changed; ch > 0 && passes < GUARD_PASSES; passes++) {
        int last = passes == GUARD_PASSES - 1;
        if (guard_pass(x, cs, &b, nat, last ? HYT_SPLIT_AT_KEEP : HYT_SPLIT_MID, dump, &p) != 0)
            goto out;
        again += p.fresh;
        again_pts += p.npts - p.reused;
        again_native += p.new_native;
        ch = p.changed;
    }
    if (span) {
        int nfin = 0;
        rule_span_t *fin = rule_spans(x, cs, nat, &nfin);
        for (int i = 0; i < nspan; i++) {
            int same = 0;
            for (int q = 0; fin && q < nfin && !same; q++)
                same = !memcmp(&span[i], &fin[q], sizeof *fin);
            again_changed += !same;
        }
        free(fin);
        free(span);
    }
    char why[160] = "";
    if (first.over)
        snprintf(why, sizeof why, "; %d sizes above the memory limit not measured (native kept "
                 "where the rule's candidate does not fit, the rule where native does not)",
                 first.over);
    fprintf(stderr, "tune: %s: native guard: %d rules replace native, measured against it at %d "
            "sizes (%d points, %d of them reused, %.3f s); native kept at %d sizes, %d rules "
            "changed%s\n", hyt_coll_name((hyt_coll_t)cs->c), first.checked, first.sizes,
            first.npts, first.reused, cost0, first.native_sizes, first.changed, why);
    if (first.changed)
        fprintf(stderr, "tune: %s: native guard: the rewritten rules' new edges measured at %d "
                "sizes (%d points, %.3f s, %d passes); native kept at %d of them, %d rules "
                "changed\n", hyt_coll_name((hyt_coll_t)cs->c), again, again_pts,
                cs->guard_cost - cost0, passes - 1, again_native, again_changed);
out:
    free(b.pts);
    free(b.todo);
    free(b.owner);
    free(b.nofit);
    free(b.rp);
    free(b.cut_us);
    free(b.v);
    free(b.tmp);
}

/* The gains of the final rules (table format 2, "gains"; the private
 * duplicate's set-up rule credits them, docs/memory.md): native's time
 * minus the rule's choice's, both measured in full, at the rule's check
 * sizes (hyt_rules_check_sizes, at most GAIN_SIZES) on the shape's
 * communicator, and for the largest shape's rules, which serve the job's
 * larger communicators, at the first, middle and last of them on all the
 * job's nodes too (--tune-nodes).  Points the guard measured uncut serve.
 * The job's points, whose calls cost what the job's size costs, are
 * measured one at a time within the collective's time budget (deadline):
 * none is started once it is spent, or where the same candidate's previous
 * point on the job took longer than what is left, and one whose first call
 * takes longer than what is left ends there (cut); the rest are left
 * unmeasured, said on one line, and their rules keep the gains measured
 * on the shape.  All ranks run the rounds (hyt_tune_coll_follow). */
#define GAIN_SIZES 8

typedef struct gain_pt {
    int s, r;     /* shape, rule */
    int nodes;    /* where measured */
    uint64_t bytes;
    int halg, hk; /* on the whole job: the rule's challenger (halg -1: none) */
} gain_pt_t;

static int cmp_gain(const void *pa, const void *pb)
{
    const hyt_gain_t *a = pa, *b = pb;
    if (a->ranks != b->ranks)
        return a->ranks < b->ranks ? -1 : 1;
    return (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

/* The gains of rules[0..nr), shape s's own or the job's set made from them:
 * native's median minus the rule's candidate's at the points g[0..n) of
 * shape s within the rule's sizes where both were measured in full, by
 * ranks then bytes; none for a rule that runs MPI's own code.  A rule of
 * the job's set that merged several may have more than HYT_GAINS_MAX: the
 * scale with the most loses, one at a time, the size between its ends whose
 * neighbours are nearest. */
static void rule_gains(coll_state_t *cs, int s, int ppn, hyt_tune_rule_t *rules, int nr,
                       const gain_pt_t *g, int n, int nat)
{
    hyt_gain_t ga[4 * HYT_GAINS_MAX];
    for (int r = 0; r < nr; r++) {
        hyt_tune_rule_t *ru = &rules[r];
        uint64_t lo = r ? rules[r - 1].bytes_max + 1 : 0;
        int na = 0;
        ru->ngains = 0;
        const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand,
                                              &(hyt_al_point_t){.alg = ru->alg, .k = ru->k});
        if (!cd || (cd->alg->flags & HYT_ALG_NATIVE))
            continue;
        for (int i = 0; i < n && na < 4 * HYT_GAINS_MAX; i++) {
            if (g[i].s != s || g[i].bytes < lo || g[i].bytes > ru->bytes_max)
                continue;
            hyt_al_point_t pc = {g[i].nodes, ppn, g[i].bytes, ru->alg, ru->k},
                           pn = {g[i].nodes, ppn, g[i].bytes, nat, 0};
            meas_t bc, bn;
            const meas_t *mc = meas_find(cs, &pc, &bc), *mn = meas_find(cs, &pn, &bn);
            if (mc && mn && !mc->cut && !mn->cut) /* else failed: no gain there */
                ga[na++] = (hyt_gain_t){g[i].nodes * ppn, g[i].bytes, mn->us - mc->us};
        }
        qsort(ga, (size_t)na, sizeof *ga, cmp_gain);
        while (na > HYT_GAINS_MAX) {
            int at = 0, len = 0; /* the longest run of one scale */
            for (int i = 0, j; i < na; i = j) {
                for (j = i; j < na && ga[j].ranks == ga[i].ranks;)
                    j++;
                if (j - i > len) {
                    at = i;
                    len = j - i;
                }
            }
            if (len < 3) {
                na = HYT_GAINS_MAX; /* more scales than the table holds: the largest go */
                break;
            }
            int drop = at + 1; /* the size whose neighbours are nearest (ratio of bytes) */
            for (int i = at + 2; i < at + len - 1; i++)
                if ((double)ga[i + 1].bytes / ga[i - 1].bytes <
                    (double)ga[drop + 1].bytes / ga[drop - 1].bytes)
                    drop = i;
            memmove(&ga[drop], &ga[drop + 1], (size_t)(na - drop - 1) * sizeof *ga);
            na--;
        }
        memcpy(ru->gains, ga, (size_t)na * sizeof *ga);
        ru->ngains = na;
    }
}

void hyt_tune_cand_names(const coll_state_t *cs, const char **names)
{
    for (int q = 0; q < cs->ncand; q++)
        names[cs->cands[q].cat] = cs->cands[q].alg->name;
}

/* Rank 0: the challenger of each of shape s's rules on the whole job: the
 * first entry of its shortlist after its own that is not native (native is
 * measured against the rule anyway), the algorithm the model predicts next
 * there (ch[r].alg -1: none).  0, or -1 (out of memory). */
static int rule_challengers(const tune_ctx_t *x, coll_state_t *cs, int s, int nat,
                            hyt_al_point_t *ch)
{
    const char *names[256] = {NULL};
    hyt_tune_cand_names(cs, names);
    int nr = cs->nrules[s];
    hyt_tune_rule_t *sl = malloc((size_t)nr * sizeof *sl);
    if (!sl)
        return -1;
    memcpy(sl, cs->rules[s], (size_t)nr * sizeof *sl);
    int rc = hyt_tune_shortlist(&x->job, cs, s, x->opts->max_bytes, names, sl, nr);
    for (int r = 0; r < nr; r++) {
        ch[r] = (hyt_al_point_t){.alg = -1};
        for (int i = 1; rc == 0 && i < sl[r].nshort && ch[r].alg < 0; i++)
            if (sl[r].shortlist[i].alg != nat)
                ch[r] = (hyt_al_point_t){.alg = sl[r].shortlist[i].alg, .k = sl[r].shortlist[i].k};
    }
    free(sl);
    return rc;
}

/* --tune-nodes: the largest shape's rules serve the job's larger
 * communicators.  At each size measured there, the rule's challenger
 * (rule_challengers) takes the size where its median is below the rule's
 * candidate's by more than the noise (hyt_rules_guard_keep: max(
 * HYT_GUARD_MARGIN, two standard errors of the difference of both medians'
 * logs)), and native takes it where its median is so below the better of
 * the two.  Where either took a size, a copy of those rules with them there
 * (hyt_rules_apply: the midpoint decides between two sizes that differ),
 * its gains those of the candidates it writes, becomes the job's own rule
 * set, cs->job_rules; the largest shape's set then serves up to its own
 * nodes.  g[0..n): the gain points (measure_gains). */
static void job_rules(tune_ctx_t *x, coll_state_t *cs, const gain_pt_t *g, int n, int nat)
{
    const job_t *j = &x->job;
    hyt_rules_verdict_t *v = malloc((size_t)n * sizeof *v);
    hyt_tune_rule_t *out = malloc(MAX_RULES * sizeof *out);
    char took[MAX_RULES] = {0}; /* 1: native took a size of the rule, 2: its challenger */
    int nv = 0, lost = 0, tried = 0, won = 0, s = -1, ppn = 0, changed = 0;
    if (!v || !out)
        goto out;
    for (int i = 0; i < n; i++) {
        if (g[i].nodes != j->all_nodes)
            continue;
        s = g[i].s; /* the largest shape: the only one measured on the whole job */
        ppn = j->shapes[s][1];
        const hyt_tune_rule_t *ru = &cs->rules[s][g[i].r];
        hyt_al_point_t pc = {g[i].nodes, ppn, g[i].bytes, ru->alg, ru->k},
                       pn = {g[i].nodes, ppn, g[i].bytes, nat, 0},
                       ph = {g[i].nodes, ppn, g[i].bytes, g[i].halg, g[i].hk};
        meas_t bc, bn, bh;
        const meas_t *mc = meas_find(cs, &pc, &bc), *mn = meas_find(cs, &pn, &bn),
                     *mh = g[i].halg >= 0 ? meas_find(cs, &ph, &bh) : NULL;
        if (!mc || !mn || mc->cut || mn->cut)
            continue; /* failed: no verdict, the rule stays there */
        if (mh && mh->cut)
            mh = NULL; /* left unmeasured (the budget) */
        int better = mh && hyt_rules_guard_keep(mh->us, mh->sp, mc->us, mc->sp, 0);
        const meas_t *mw = better ? mh : mc;
        int slower = hyt_rules_guard_keep(mn->us, mn->sp, mw->us, mw->sp, 0);
        v[nv++] = (hyt_rules_verdict_t){g[i].r, g[i].bytes, !slower && !better,
                                        slower ? nat : g[i].halg, slower ? 0 : g[i].hk};
        took[g[i].r] |= slower ? 1 : better ? 2 : 0;
        lost += slower;
        tried += mh != NULL;
        won += better;
    }
    int nr = 0, nat_rules = 0, ch_rules = 0;
    if (s >= 0 && nv > 0 && (lost || won))
        nr = hyt_rules_apply(cs->rules[s], cs->nrules[s], v, nv, coll_gran(cs->c), HYT_SPLIT_MID,
                             out, MAX_RULES, &changed);
    for (int r = 0; nr > 0 && r < MAX_RULES; r++) {
        nat_rules += (took[r] & 1) != 0;
        ch_rules += (took[r] & 2) != 0;
    }
    cs->job_measured = nv;
    cs->job_sizes = lost;
    cs->job_changed = nat_rules;
    if (nr > 0) {
        rule_gains(cs, s, ppn, out, nr, g, n, nat); /* of the candidates written */
        cs->job_rules = out;
        cs->njob_rules = nr;
        cs->job_shape = s;
        out = NULL;
    }
    char also[2][160] = {"", ""};
    for (int w = 0; w < 2 && cs->job_rules; w++)
        if (w ? ch_rules : nat_rules)
            snprintf(also[w], sizeof also[w], ": the job's own rule set, %s there, serves its "
                     "communicators above %d nodes", w ? "the challenger" : "native",
                     j->shapes[s][0]);
    fprintf(stderr, "tune: %s: on the job's %d nodes native is faster beyond the noise at %d of "
            "%d sizes, %d rules changed%s\n", hyt_coll_name((hyt_coll_t)cs->c), j->all_nodes,
            lost, nv, nat_rules, also[0]);
    fprintf(stderr, "tune: %s: on the job's %d nodes a shortlist challenger is faster beyond the "
            "noise at %d of %d sizes, %d rules changed%s\n", hyt_coll_name((hyt_coll_t)cs->c),
            j->all_nodes, won, tried, ch_rules, also[1]);
out:
    free(v);
    free(out);
}

/* Rank 0: the line saying which of the job's points jpts[0..mjob) were left
 * (from mdone on) and why. */
static void gains_left_line(const tune_ctx_t *x, const coll_state_t *cs,
                            const hyt_al_point_t *jpts, int mjob, int mdone, const char *why)
{
    char left[256] = "";
    size_t len = 0;
    for (int q = mdone; q < mjob && len < sizeof left; q++) {
        const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand, &jpts[q]);
        char k[16] = "";
        if (cd && cd->k)
            snprintf(k, sizeof k, " k %d", cd->k);
        int w = snprintf(left + len, sizeof left - len, "%s%s%s at %llu B", q > mdone ? ", " : "",
                         cd ? cd->label : "?", k, (unsigned long long)jpts[q].bytes);
        if (w < 0 || (size_t)w >= sizeof left - len) { /* cut at the last whole entry */
            left[len] = '\0';
            snprintf(left + len, sizeof left - len, ", ...");
            break;
        }
        len += (size_t)w;
    }
    const tune_opts_t *t = x->opts;
    char budget[96];
    snprintf(budget, sizeof budget, "%s--timeout %g s",
             t->ncolls + (t->nonblocking != 0) > 1 ? "this collective's share of " : "", t->timeout);
    fprintf(stderr, "tune: %s: gains on the job's %d ranks: %d of %d points measured, left %s: "
            "%s%s %s; those rules keep the gains measured on %d nodes\n",
            hyt_coll_name((hyt_coll_t)cs->c), x->job.all_nodes * jpts[0].ppn, mdone, mjob, left,
            why, budget, *why ? "left" : "spent", x->job.nodes);
}

static void measure_gains(tune_ctx_t *x, coll_state_t *cs, double deadline, FILE *dump)
{
    const job_t *j = &x->job;
    int nat = native_cat(cs);
    if (nat < 0)
        return;
    const cand_t *cn = hyt_tune_find_cand(cs->cands, cs->ncand, &(hyt_al_point_t){.alg = nat});
    if (!cn)
        return;
    uint64_t gran = coll_gran(cs->c), sz[GAIN_SIZES];
    hyt_al_point_t ch[MAX_RULES]; /* the largest shape's rules' challengers */
    gain_pt_t *g = malloc(GUARD_MAX / 2 * sizeof *g);
    hyt_al_point_t *todo = malloc(GUARD_MAX * sizeof *todo);
    double *cut_us = malloc(GUARD_MAX * sizeof *cut_us);
    round_pt_t *rp = malloc(1024 * sizeof *rp);
    int n = 0, m = 0, njob = 0, mjob = 0;
    double cost0 = cs->guard_cost;
    if (!g || !todo || !cut_us || !rp)
        goto out;
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1];
        int big = nodes == j->nodes && ppn == j->ppn && j->all_nodes > nodes;
        if (big && rule_challengers(x, cs, s, nat, ch) != 0)
            goto out;
        for (int r = 0; r < cs->nrules[s]; r++) {
            hyt_tune_rule_t *ru = &cs->rules[s][r];
            /* MPI's own code (native, or an MPICH algorithm by MPI_T) needs
             * no private duplicate: nothing to credit */
            const cand_t *cd = hyt_tune_find_cand(cs->cands, cs->ncand,
                                                  &(hyt_al_point_t){.alg = ru->alg, .k = ru->k});
            if (!cd || (cd->alg->flags & HYT_ALG_NATIVE))
                continue;
            int ns = hyt_rules_check_sizes(cs->rules[s], cs->nrules[s], r,
                                           shape_top(cs, nodes, ppn), gran, sz, GAIN_SIZES);
            for (int scale = 0; scale < 1 + big; scale++) {
                int at = scale ? j->all_nodes : nodes;
                for (int i = 0; i < ns && n < GUARD_MAX / 2 && m + mjob + 3 <= GUARD_MAX; i++) {
                    /* on the whole job: the first, middle and last sizes;
                     * at those, the rule's challenger too, on both scales
                     * (the gains of the job's set where it takes them) */
                    int three = i == 0 || i == ns - 1 || i == ns / 2;
                    if (scale && !three)
                        continue;
                    hyt_al_point_t pc = {at, ppn, sz[i], ru->alg, ru->k}, pn = {at, ppn, sz[i], nat, 0},
                                   ph = {at, ppn, sz[i], big && three ? ch[r].alg : -1,
                                         big && three ? ch[r].k : 0};
                    if (!hyt_tune_cand_ok(cd, cs->c, at, ppn, sz[i]) ||
                        !hyt_tune_size_fits(cs->mem, cs->c, cd, at * ppn, sz[i]) ||
                        !hyt_tune_size_fits(cs->mem, cs->c, cn, at * ppn, sz[i]))
                        continue;
                    const cand_t *chd = ph.alg >= 0 ? hyt_tune_find_cand(cs->cands, cs->ncand, &ph) : NULL;
                    if (!chd || !hyt_tune_cand_ok(chd, cs->c, at, ppn, sz[i]) ||
                        !hyt_tune_size_fits(cs->mem, cs->c, chd, at * ppn, sz[i]))
                        ph.alg = -1;
                    g[n++] = (gain_pt_t){s, r, at, sz[i], ph.alg, ph.k};
                    njob += scale;
                    /* the rule's candidate, native, its challenger */
                    for (int side = 0; side < 2 + (ph.alg >= 0); side++) {
                        meas_t mh;
                        const hyt_al_point_t *p = side == 2 ? &ph : side ? &pn : &pc;
                        const meas_t *had = meas_find(cs, p, &mh);
                        int dup = 0; /* already asked for here */
                        for (int q = 0; q < m + mjob && !dup; q++)
                            dup = same_point(&todo[q < m ? q : GUARD_MAX - 1 - (q - m)], p);
                        if ((had && !had->cut) || dup)
                            continue;
                        /* the job's points after the shape's (measured apart, below) */
                        int at_q = scale ? GUARD_MAX - 1 - mjob++ : m++;
                        todo[at_q] = *p;
                        cut_us[at_q] = HUGE_VAL; /* in full: the gain needs both times */
                    }
                }
            }
        }
    }
    guard_measure(x, cs, rp, todo, cut_us, m, 0, HUGE_VAL, dump);
    /* on the whole job: the fewest calls (round_pt_t.min_reps), each call
     * there costs what the job's size costs (under SimGrid, MPI's own Scan
     * at 256 ranks: 8 minutes of CPU a call), one point at a time within
     * the budget; jpts: in the order asked for */
    long calls0 = x->bench.calls;
    hyt_al_point_t *jpts = todo + GUARD_MAX - mjob;
    for (int q = 0; q < mjob / 2; q++) {
        hyt_al_point_t tp = jpts[q];
        jpts[q] = jpts[mjob - 1 - q];
        jpts[mjob - 1 - q] = tp;
    }
    double *jcost = cut_us + GUARD_MAX - mjob; /* each point's cost, once measured */
    int mdone = 0;
    char why[160] = "";
    for (; mdone < mjob; mdone++) {
        double now = PMPI_Wtime(), est = 0;
        for (int q = 0; q < mdone; q++) /* the same candidate's previous point */
            if (jpts[q].alg == jpts[mdone].alg && jpts[q].k == jpts[mdone].k)
                est = jcost[q];
        if (now >= deadline)
            break;
        if (now + est > deadline) {
            snprintf(why, sizeof why, "the next one would take about %.3g s (its candidate's "
                     "previous point on the job), more than the %.3g s of ", est, deadline - now);
            break;
        }
        double c0 = cs->guard_cost, full = HUGE_VAL;
        int stopped = guard_measure(x, cs, rp, &jpts[mdone], &full, 1, 1, deadline - now, dump);
        jcost[mdone] = cs->guard_cost - c0;
        if (stopped) {
            meas_t mh;
            const meas_t *mf = meas_find(cs, &jpts[mdone], &mh);
            snprintf(why, sizeof why, "the first call of the next one took %.3g s, more than "
                     "the %.3g s of ", mf ? mf->us * 1e-6 : 0.0, deadline - now);
            break;
        }
    }
    for (int s = 0; s < j->nshapes; s++)
        rule_gains(cs, s, j->shapes[s][1], cs->rules[s], cs->nrules[s], g, n, nat);
    fprintf(stderr, "tune: %s: gains over native: %d sizes (%d of them on the job's %d nodes), "
            "%d points measured (%.3f s; %d on the job's nodes, %ld calls)\n",
            hyt_coll_name((hyt_coll_t)cs->c), n, njob, j->all_nodes, m + mdone,
            cs->guard_cost - cost0, mdone, x->bench.calls - calls0);
    if (mdone < mjob)
        gains_left_line(x, cs, jpts, mjob, mdone, why);
    if (njob > 0)
        job_rules(x, cs, g, n, nat);
out:
    free(g);
    free(todo);
    free(cut_us);
    free(rp);
}

/* The shortlists of shape s's final rules (table format 2): the candidates
 * the model cannot rule out next to each rule's choice.  0, or -1. */
int hyt_tune_shortlist(const job_t *j, coll_state_t *cs, int s, uint64_t max_bytes,
                       const char *const *names, hyt_tune_rule_t *rules, int nr)
{
    hyt_al_point_t cp[256];
    int nodes = j->shapes[s][0], ppn = j->shapes[s][1], nc = 0, nat = -1;
    for (int q = 0; q < cs->ncand; q++) {
        if (hyt_tune_cand_ok(&cs->cands[q], cs->c, nodes, ppn, max_bytes))
            cp[nc++] = (hyt_al_point_t){.alg = cs->cands[q].cat, .k = cs->cands[q].k};
        if ((cs->cands[q].alg->flags & HYT_ALG_NATIVE) && cs->cands[q].mpich < 0)
            nat = cs->cands[q].cat;
    }
    return hyt_rules_shortlist(predict_valid, cs, hyt_rules_spread_al, cs->al, nodes, ppn, cp, nc,
                               names, nat, shape_top(cs, nodes, ppn), rules, nr);
}

int hyt_tune_job_shortlist(const job_t *j, coll_state_t *cs, uint64_t max_bytes,
                           const char *const *names, int *dropped)
{
    int s = cs->job_shape, ppn = j->shapes[s][1], nr = cs->njob_rules;
    hyt_tune_rule_t *rules = cs->job_rules;
    *dropped = 0;
    if (hyt_tune_shortlist(j, cs, s, max_bytes, names, rules, nr) != 0)
        return -1;
    uint64_t top = shape_top(cs, j->shapes[s][0], ppn);
    hyt_rules_jobm_t m[256];
    for (int r = 0; r < nr; r++) {
        hyt_tune_rule_t *ru = &rules[r];
        uint64_t lo = r ? rules[r - 1].bytes_max + 1 : 1;
        int n = 0;
        /* the sizes the rule's own candidate was measured at on the whole
         * job (measure_gains), each entry measured there too */
        for (int i = 0; i < cs->nmeas && n + HYT_TUNE_SHORTLIST <= 256; i++) {
            const hyt_al_point_t *p = &cs->meas[i].pt;
            if (p->nodes != j->all_nodes || p->ppn != ppn || p->alg != ru->alg || p->k != ru->k ||
                p->bytes < lo || p->bytes > ru->bytes_max)
                continue;
            meas_t br, bq;
            const meas_t *mr = meas_find(cs, p, &br);
            for (int q = 1; q < ru->nshort && mr && !mr->cut; q++) {
                hyt_al_point_t pq = {p->nodes, ppn, p->bytes, ru->shortlist[q].alg,
                                     ru->shortlist[q].k};
                const meas_t *mq = meas_find(cs, &pq, &bq);
                int dup = 0; /* a point measured more than once: one size */
                for (int e = 0; e < n && !dup; e++)
                    dup = m[e].q == q && m[e].bytes == p->bytes;
                if (mq && !mq->cut && !dup)
                    m[n++] = (hyt_rules_jobm_t){q, p->bytes, mr->us, mr->sp, mq->us, mq->sp};
            }
        }
        *dropped += hyt_rules_shortlist_job(ru, lo, top, m, n);
    }
    return 0;
}

int hyt_tune_setup_coll(tune_ctx_t *x, coll_state_t *cs, int c)
{
    const tune_opts_t *t = x->opts;
    const job_t *j = &x->job;
    cs->c = c;
    cs->mem = &x->mem;
    cs->ncand = hyt_tune_make_cands(c, j, t->k_max, x->use_mpich, cs->cands, 256);
    uint64_t top[256];
    /* a collective that moves no data (Barrier) has one size to learn */
    uint64_t max_bytes = hyt_coll_props((hyt_coll_t)c) & HYT_CP_NO_COUNT ? coll_gran(c)
                                                                        : t->max_bytes;
    cs->ngrid = hyt_tune_make_grid(&x->mem, c, j, cs->cands, cs->ncand, max_bytes, &cs->grid,
                                   top);
    if (cs->ngrid == 0 && hyt_world_rank == 0) { /* the limit leaves nothing: say so, stop */
        uint64_t need = UINT64_MAX;
        for (int q = 0; q < cs->ncand; q++) {
            uint64_t v = hyt_tune_point_need(&x->mem, c, &cs->cands[q], 2, coll_gran(c));
            need = v < need ? v : need;
        }
        char a[32], b[32];
        fprintf(stderr, "hytune tune: --mem-limit %s: %s needs %s for %d ranks at its smallest "
                "size; give a larger --mem-limit or run fewer ranks per node\n",
                hyt_mem_fmt(x->mem.limit, a, sizeof a), hyt_coll_name((hyt_coll_t)c),
                hyt_mem_fmt(need, b, sizeof b), x->mem.count);
    }
    if (cs->ngrid < 1)
        return -1;
    if (hyt_world_rank == 0)
        hyt_tune_report_mem(&x->mem, c, j, cs->cands, cs->ncand, top, max_bytes);
    hyt_al_opts_t ao;
    hyt_tune_al_opts(t, coll_gran(c), &ao);
    cs->al = hyt_al_new(cs->grid, cs->ngrid, &ao);
    return cs->al ? 0 : -1;
}
