/* Rules (see rules.h).
 *
 * Rule generation after ACCLAiM: predict every candidate at each power of
 * two, keep the argmin, and settle each change between s and 2s by one more
 * prediction at the midpoint 1.5 s.  Thresholds are integers compared as
 * numbers (the prototype's string sort put "<=32" before "<=4").  The table
 * they make is written by src/table.c (hyt_table_json), the file by
 * hyt_tune_write_atomic with src/file.c (temporary file, rename). */
#include "offline/rules.h"
#include "src/file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hyt_rules_predict_al(void *ctx, const hyt_al_point_t *pts, int n, double *us)
{
    return hyt_al_predict((const hyt_al_t *)ctx, pts, n, us);
}

/* Index of the fastest candidate at this size, its time in *us; -1 on error. */
static int best_at(hyt_rules_predict_fn predict, void *ctx, hyt_al_point_t *pts,
                   const hyt_al_point_t *cands, int ncand, int nodes, int ppn, uint64_t bytes,
                   double *t, double *us)
{
    for (int c = 0; c < ncand; c++) {
        pts[c] = cands[c];
        pts[c].nodes = nodes;
        pts[c].ppn = ppn;
        pts[c].bytes = bytes;
    }
    if (predict(ctx, pts, ncand, t) != 0)
        return -1;
    int best = 0;
    for (int c = 1; c < ncand; c++)
        if (t[c] < t[best])
            best = c;
    *us = t[best];
    return best;
}

static uint64_t round_gran(uint64_t v, uint64_t gran)
{
    v = (v + gran / 2) / gran * gran;
    return v ? v : gran;
}

int hyt_rules_build(hyt_rules_predict_fn predict, void *ctx, int nodes, int ppn,
                    const hyt_al_point_t *cands, int ncand, uint64_t bytes_min,
                    uint64_t bytes_max, uint64_t gran, hyt_tune_rule_t *out, int max)
{
    if (ncand < 1 || max < 1 || gran < 1)
        return -1;
    hyt_al_point_t *pts = malloc((size_t)ncand * sizeof *pts);
    double *t = malloc((size_t)ncand * sizeof *t);
    int nr = -1;
    if (!pts || !t)
        goto out;
    uint64_t s = bytes_min < gran ? gran : bytes_min;
    double us, us_next, us_mid;
    int cur = best_at(predict, ctx, pts, cands, ncand, nodes, ppn, s, t, &us);
    if (cur < 0)
        goto out;
    nr = 0;
    while (s < bytes_max) {
        uint64_t s2 = 2 * s;
        int nxt = best_at(predict, ctx, pts, cands, ncand, nodes, ppn, s2, t, &us_next);
        if (nxt < 0) {
            nr = -1;
            goto out;
        }
        if (nxt != cur) {
            uint64_t mid = round_gran(s + s / 2, gran);
            int m = mid > s && mid < s2
                        ? best_at(predict, ctx, pts, cands, ncand, nodes, ppn, mid, t, &us_mid)
                        : nxt;
            if (nr == max - 1) {
                nr = -1;
                goto out;
            }
            out[nr++] = (hyt_tune_rule_t){.bytes_max = m == cur ? mid : s, .alg = cands[cur].alg,
                                          .k = cands[cur].k, .us = us};
            cur = nxt;
        }
        us = us_next;
        s = s2;
    }
    out[nr++] = (hyt_tune_rule_t){.bytes_max = UINT64_MAX, .alg = cands[cur].alg, .k = cands[cur].k,
                                  .us = us};
out:
    free(pts);
    free(t);
    return nr;
}

/* ---- the native guard ---- */
int hyt_rules_check_sizes(const hyt_tune_rule_t *rules, int nr, int r, uint64_t top,
                          uint64_t gran, uint64_t *out, int max)
{
    if (r < 0 || r >= nr)
        return 0;
    uint64_t lo = r == 0 ? gran : (rules[r - 1].bytes_max / gran + 1) * gran;
    uint64_t hi = rules[r].bytes_max < top ? rules[r].bytes_max : top;
    if (lo > hi || max < 2)
        return 0;
    int n = 0;
    out[n++] = lo;
    /* inside: the powers of two 16^i apart (2^(4i)), or else the one nearest
     * the geometric mean of the edges */
    uint64_t near = 0;
    double gm = log2((double)lo) / 2 + log2((double)hi) / 2;
    for (int e = 0; e < 64 && (1ull << e) < hi; e++) {
        uint64_t p = 1ull << e;
        if (p <= lo)
            continue;
        if (e % 4 == 0 && n < max - 1)
            out[n++] = p;
        if (!near || fabs(e - gm) < fabs(log2((double)near) - gm))
            near = p;
    }
    if (n == 1 && near && n < max - 1)
        out[n++] = near;
    if (hi != lo)
        out[n++] = hi;
    return n;
}

static double guard_margin(double sp_c, double sp_n)
{
    return fmax(HYT_GUARD_MARGIN, 2 * sqrt(sp_c * sp_c + sp_n * sp_n));
}

double hyt_rules_guard_cut_us(double us_c, double sp_c)
{
    double m = guard_margin(sp_c, sp_c);
    return us_c < 0 || m >= 1 ? HUGE_VAL : HYT_GUARD_CUT * us_c / (1 - m);
}

int hyt_rules_guard_keep(double us_c, double sp_c, double us_n, double sp_n, int native_cut)
{
    if (us_n < 0)
        return 1;
    if (us_c < 0)
        return 0;
    if (native_cut)
        return us_n > hyt_rules_guard_cut_us(us_c, sp_c);
    return us_c < us_n * (1 - guard_margin(sp_c, sp_n));
}

static int push_rule(hyt_tune_rule_t *out, int n, int max, hyt_tune_rule_t r)
{
    if (n > 0 && out[n - 1].alg == r.alg && out[n - 1].k == r.k) { /* merge */
        out[n - 1].bytes_max = r.bytes_max;
        out[n - 1].us = r.us;
        return n;
    }
    if (n >= max)
        return -1;
    out[n] = r;
    return n + 1;
}

/* Two verdicts that write the same thing. */
static int same_verdict(const hyt_rules_verdict_t *a, const hyt_rules_verdict_t *b)
{
    return a->keep == b->keep && (a->keep || (a->alg == b->alg && a->k == b->k));
}

int hyt_rules_apply(const hyt_tune_rule_t *rules, int nr, const hyt_rules_verdict_t *v, int nv,
                    uint64_t gran, hyt_rules_split_t split, hyt_tune_rule_t *out, int max,
                    int *changed)
{
    int n = 0;
    *changed = 0;
    for (int r = 0; r < nr && n >= 0; r++) {
        int first = -1, last = -1, lost = 0;
        for (int i = 0; i < nv; i++)
            if (v[i].rule == r) {
                if (first < 0)
                    first = i;
                last = i;
                lost |= !v[i].keep;
            }
        if (!lost) {
            n = push_rule(out, n, max, rules[r]);
            continue;
        }
        ++*changed;
        for (int i = first; i <= last && n >= 0; i++) {
            if (v[i].rule != r)
                continue;
            int j = i + 1; /* the next verdict of this rule */
            while (j <= last && v[j].rule != r)
                j++;
            if (j <= last && same_verdict(&v[j], &v[i]))
                continue;
            hyt_tune_rule_t seg = rules[r];
            if (!v[i].keep)
                seg = (hyt_tune_rule_t){.alg = v[i].alg, .k = v[i].k, .us = -1};
            if (j > last) { /* the rule's last verdict: up to its own bound */
                seg.bytes_max = rules[r].bytes_max;
            } else if (split == HYT_SPLIT_AT_KEEP) { /* the kept side ends at its verdict */
                seg.bytes_max = v[i].keep ? v[i].bytes : v[j].bytes - gran;
            } else { /* the verdict changes between two check sizes */
                uint64_t mid = round_gran(v[i].bytes + (v[j].bytes - v[i].bytes) / 2, gran);
                if (mid < v[i].bytes)
                    mid = v[i].bytes;
                if (mid >= v[j].bytes)
                    mid = v[j].bytes - gran;
                seg.bytes_max = mid;
            }
            n = push_rule(out, n, max, seg);
        }
    }
    for (int r = 0; r < n; r++) { /* a rule cut short keeps the gains in its own sizes */
        uint64_t lo = r ? out[r - 1].bytes_max + 1 : 0;
        int k = 0;
        for (int q = 0; q < out[r].ngains; q++)
            if (out[r].gains[q].bytes >= lo && out[r].gains[q].bytes <= out[r].bytes_max)
                out[r].gains[k++] = out[r].gains[q];
        out[r].ngains = k;
    }
    return n;
}

int hyt_rules_spread_al(void *ctx, const hyt_al_point_t *pts, int n, double *sd_us)
{
    return hyt_al_spread((const hyt_al_t *)ctx, pts, n, sd_us);
}

static int cmp_cand_us(const void *x, const void *y)
{
    const hyt_tune_cand_t *a = x, *b = y;
    return (a->us > b->us) - (a->us < b->us);
}

/* The largest power of two in [lo, hi], or hi if there is none. */
static uint64_t rule_size(uint64_t lo, uint64_t hi)
{
    uint64_t p = 1;
    while (p <= hi / 2)
        p *= 2;
    return p >= lo ? p : hi;
}

static int shortlist_one(const hyt_al_point_t *pts, const double *t, const double *sd,
                         int ncand, const char *const *names, int native, hyt_tune_rule_t *r)
{
    int own = -1;
    r->native_us = -1;
    for (int c = 0; c < ncand; c++) {
        if (pts[c].alg == r->alg && pts[c].k == r->k)
            own = c;
        if (pts[c].alg == native && strcmp(names[r->alg], names[native]) && t[c] > 0 &&
            t[c] < HYT_AL_FAILED_US)
            r->native_us = t[c];
    }
    r->nshort = 0;
    if (own < 0) /* not a candidate here (a rule the native guard wrote): no shortlist */
        return 0;
    double t0 = t[own], s0 = sd ? sd[own] : 0;
    r->us = t0; /* the rule's own entry: the same size as the others */
    r->shortlist[0] = (hyt_tune_cand_t){r->alg, r->k, t0, sd ? s0 : -1};
    r->nshort = 1;
    hyt_tune_cand_t more[64];
    int nmore = 0;
    for (int c = 0; c < ncand; c++) {
        /* one entry per algorithm name (the MPI library's algorithms are
         * all "native" in the table): its fastest k */
        if (!strcmp(names[pts[c].alg], names[r->alg]) || t[c] >= HYT_AL_FAILED_US ||
            !(t[c] > 0))
            continue;
        int j = 0;
        while (j < nmore && strcmp(names[more[j].alg], names[pts[c].alg]))
            j++;
        if (j < nmore && more[j].us <= t[c])
            continue;
        double s = sd ? sd[c] : 0;
        int near = t[c] <= t0 * (1 + HYT_SHORTLIST_MARGIN) || t[c] - s <= t0 + s0;
        if (!near || (j == nmore && nmore == 64))
            continue;
        more[j] = (hyt_tune_cand_t){pts[c].alg, pts[c].k, t[c], sd ? s : -1};
        if (j == nmore)
            nmore++;
    }
    qsort(more, (size_t)nmore, sizeof *more, cmp_cand_us);
    for (int j = 0; j < nmore && r->nshort < HYT_TUNE_SHORTLIST; j++)
        r->shortlist[r->nshort++] = more[j];
    return 0;
}

int hyt_rules_shortlist(hyt_rules_predict_fn predict, void *ctx, hyt_rules_spread_fn spread,
                        void *sctx, int nodes, int ppn, const hyt_al_point_t *cands, int ncand,
                        const char *const *names, int native, uint64_t bytes_top,
                        hyt_tune_rule_t *rules, int nr)
{
    hyt_al_point_t *pts = malloc((size_t)ncand * sizeof *pts);
    double *t = malloc((size_t)ncand * sizeof *t), *sd = malloc((size_t)ncand * sizeof *sd);
    int rc = pts && t && sd ? 0 : -1;
    for (int i = 0; rc == 0 && i < nr; i++) {
        uint64_t lo = i ? rules[i - 1].bytes_max + 1 : 1;
        uint64_t hi = rules[i].bytes_max < bytes_top ? rules[i].bytes_max : bytes_top;
        uint64_t size = rule_size(lo, hi < lo ? lo : hi);
        for (int c = 0; c < ncand; c++) {
            pts[c] = cands[c];
            pts[c].nodes = nodes;
            pts[c].ppn = ppn;
            pts[c].bytes = size;
        }
        if (predict(ctx, pts, ncand, t) != 0 ||
            (spread && spread(sctx, pts, ncand, sd) != 0) ||
            shortlist_one(pts, t, spread ? sd : NULL, ncand, names, native, &rules[i]) != 0)
            rc = -1;
    }
    free(pts);
    free(t);
    free(sd);
    return rc;
}

int hyt_rules_shortlist_job(hyt_tune_rule_t *r, uint64_t lo, uint64_t bytes_top,
                            const hyt_rules_jobm_t *m, int n)
{
    uint64_t hi = r->bytes_max < bytes_top ? r->bytes_max : bytes_top;
    double at = log2((double)rule_size(lo, hi < lo ? lo : hi));
    int keep = 1, dropped = 0;
    for (int q = 1; q < r->nshort; q++) {
        int measured = 0, slower = 1, near = -1;
        for (int i = 0; i < n; i++) {
            if (m[i].q != q || !(m[i].us_r > 0) || !(m[i].us_q > 0))
                continue;
            measured = 1;
            slower &= hyt_rules_guard_keep(m[i].us_r * (1 + HYT_SHORTLIST_MARGIN), m[i].sp_r,
                                           m[i].us_q, m[i].sp_q, 0);
            if (near < 0 || fabs(log2((double)m[i].bytes) - at) <
                                fabs(log2((double)m[near].bytes) - at))
                near = i;
        }
        if (measured && slower) {
            dropped++;
            continue;
        }
        hyt_tune_cand_t e = r->shortlist[q];
        if (near >= 0 && r->us > 0) {
            const hyt_rules_jobm_t *b = &m[near];
            e.us = r->us * b->us_q / b->us_r;
            e.sd = e.us * sqrt(b->sp_r * b->sp_r + b->sp_q * b->sp_q);
        }
        r->shortlist[keep++] = e;
    }
    r->nshort = r->nshort < 1 ? r->nshort : keep;
    if (r->nshort > 2)
        qsort(r->shortlist + 1, (size_t)r->nshort - 1, sizeof *r->shortlist, cmp_cand_us);
    return dropped;
}

int hyt_tune_write_atomic(const char *path, const char *text, char *err, size_t errlen)
{
    hyt_file_out_t out;
    if (hyt_file_begin(&out, path) != 0) {
        snprintf(err, errlen, "cannot create %s.tmp.* (%s); choose a writable -o path", path,
                 strerror(errno));
        return -1;
    }
    if (fputs(text, out.f) < 0 || fputc('\n', out.f) == EOF) {
        hyt_file_abort(&out);
        errno = errno ? errno : EIO;
    } else if (hyt_file_commit(&out) == 0) {
        return 0;
    }
    snprintf(err, errlen, "cannot write %s (%s); the previous file is unchanged", path,
             strerror(errno));
    return -1;
}

/* Least squares of y on x: slope, intercept, squared error; -1 if every x is the same. */
static int fit_line(const double *x, const double *y, int n, double *a, double *b, double *sse)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0))
        return -1;
    *b = sxy / sxx;
    *a = my - *b * mx;
    *sse = 0;
    for (int i = 0; i < n; i++)
        *sse += (y[i] - *a - *b * x[i]) * (y[i] - *a - *b * x[i]);
    return 0;
}

hyt_setup_x_t hyt_rules_setup_fit(const int *ranks, const double *us, int n,
                                  hyt_setup_fit_t *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return out->x;
    double *x = malloc(2 * (size_t)n * sizeof *x), best = HUGE_VAL;
    if (!x)
        return out->x;
    out->ranks_min = out->ranks_max = ranks[0];
    for (int i = 0; i < n; i++) {
        x[i] = ranks[i];
        x[n + i] = log2(ranks[i]);
        out->ranks_min = ranks[i] < out->ranks_min ? ranks[i] : out->ranks_min;
        out->ranks_max = ranks[i] > out->ranks_max ? ranks[i] : out->ranks_max;
    }
    static const hyt_setup_x_t forms[2] = {HYT_SETUP_FIT_RANKS, HYT_SETUP_FIT_LOG2};
    for (int f = 0; f < 2; f++) {
        double a, b, sse;
        if (fit_line(x + f * n, us, n, &a, &b, &sse) == 0 && b >= 0 && sse < best) {
            best = sse;
            out->x = forms[f];
            out->a_us = a;
            out->b_us = b;
        }
    }
    free(x);
    return out->x;
}
