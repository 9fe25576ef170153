/* Rule generation (offline/rules.c): from a run-time model to the minimal
 * ordered list of (bytes_max, algorithm, k) rules of one communicator shape,
 * and the writers of the hytune table and the MPICH selection file. */
#ifndef HYT_RULES_H
#define HYT_RULES_H

#include "offline/active.h"
#include "src/table.h"

#include <stddef.h>
#include <stdint.h>

/* Predicted time (us) of n points; 0 or -1.  hyt_rules_predict_al adapts a
 * fitted hyt_al_t (ctx). */
typedef int (*hyt_rules_predict_fn)(void *ctx, const hyt_al_point_t *pts, int n, double *us);
int hyt_rules_predict_al(void *ctx, const hyt_al_point_t *pts, int n, double *us);

/* The rule and table types the tuner builds (hyt_tune_rule_t ...) and the
 * table writer: src/table.h, the table file's module. */

/* Rules for one shape (nodes, ppn): the best of the ncand candidates (their
 * alg and k fields; shape and bytes ignored) at every power of two from
 * bytes_min to bytes_max; where the choice changes between s and 2s, the
 * midpoint (rounded to gran, not a power of two) decides whether the lower
 * choice extends to it.  Consecutive equal choices are merged; thresholds
 * are strictly increasing numbers.  Writes at most max rules to out and
 * returns the count (>= 1), or -1. */
int hyt_rules_build(hyt_rules_predict_fn predict, void *ctx, int nodes, int ppn,
                    const hyt_al_point_t *cands, int ncand, uint64_t bytes_min,
                    uint64_t bytes_max, uint64_t gran, hyt_tune_rule_t *out, int max);

/* ---- the native guard: a rule replaces the MPI library's own selection
 * ("native") only where both were measured and it wins beyond the noise ---- */

/* Sizes at which rule r of rules[0..nr) is checked, ascending: its edges,
 * the lowest size (the previous rule's bound + 1 rounded up to gran, or
 * gran) and the highest (its bound, or top for the last rule, top being the
 * largest size benchmarked), and between them the powers of two 2^(4i)
 * (16, 256, 4096, ...), or, where none lies between, the power of two
 * nearest the edges' geometric mean: a bounded number per rule (two edges
 * and one per factor 16 of its range), not a grid.  Returns the count (at
 * most max), 0 if the rule covers no size <= top. */
int hyt_rules_check_sizes(const hyt_tune_rule_t *rules, int nr, int r, uint64_t top,
                          uint64_t gran, uint64_t *out, int max);

/* The verdict at one check size from the median times (us, < 0: failed) and
 * the standard errors of their logs (sp) of the rule's candidate (c) and
 * native (n): 1 (the rule is kept) where native failed, or the candidate's
 * median is below native's by more than max(HYT_GUARD_MARGIN, two standard
 * errors of the difference); 0 where the candidate failed or does not win
 * so.  native_cut: native was raced against hyt_rules_guard_cut_us (cut after
 * its second call, us its time then): kept if us_n is above that time. */
#define HYT_GUARD_MARGIN 0.03
#define HYT_GUARD_CUT 1.25
int hyt_rules_guard_keep(double us_c, double sp_c, double us_n, double sp_n, int native_cut);

/* The time native races the candidate against: HYT_GUARD_CUT times the
 * candidate's median beyond the margin (native's standard error taken as the
 * candidate's); HUGE_VAL where the candidate failed or the margin is 1 or more. */
double hyt_rules_guard_cut_us(double us_c, double sp_c);

/* A rule's verdict at one check size: 1 where its candidate won against
 * native (kept), 0 where the candidate alg, k replaces it there (native,
 * k 0, in the guard; on the whole job, also a challenger from the rule's
 * shortlist). */
typedef struct hyt_rules_verdict {
    int rule;        /* index into the rules it was checked for */
    uint64_t bytes;  /* check size */
    int keep;
    int alg, k;      /* where not kept: the candidate written instead */
} hyt_rules_verdict_t;

/* Where the sizes between a kept verdict and a native one go. */
typedef enum {
    /* nearer one (arithmetic midpoint, rounded to gran): the new edge lies
     * between two measured sizes */
    HYT_SPLIT_MID = 0,
    /* native's: the kept rule ends (or starts) at its kept verdict's size,
     * so its new edge is a measured win */
    HYT_SPLIT_AT_KEEP = 1,
} hyt_rules_split_t;

/* Rewrite rules with the verdicts (ascending bytes within each rule):
 * within a checked rule's range, the sizes between two verdicts that differ
 * (kept, or the candidate written instead) are split as split says (with
 * HYT_SPLIT_AT_KEEP the replacement takes them, the kept side ending at its
 * verdict); a lost verdict's candidate (its alg, k; us -1, no gains) takes
 * its side; unchecked rules stay; equal neighbours are merged; a rule keeps
 * only the measured gains within its (new) sizes.  Writes at most max rules
 * to out (out may not alias rules); returns the count, or -1.  *changed:
 * the rules that lost at least one size. */
int hyt_rules_apply(const hyt_tune_rule_t *rules, int nr, const hyt_rules_verdict_t *v, int nv,
                    uint64_t gran, hyt_rules_split_t split, hyt_tune_rule_t *out, int max,
                    int *changed);


/* The model's standard deviation of n points (us), like hyt_rules_predict_fn;
 * hyt_rules_spread_al adapts a fitted hyt_al_t (ctx). */
typedef int (*hyt_rules_spread_fn)(void *ctx, const hyt_al_point_t *pts, int n, double *sd_us);
int hyt_rules_spread_al(void *ctx, const hyt_al_point_t *pts, int n, double *sd_us);

/* A candidate stays on a rule's shortlist when its predicted time is within
 * this fraction of the rule's choice, or when their one-deviation intervals
 * overlap. */
#define HYT_SHORTLIST_MARGIN 0.10
/* Fill the shortlists of nr rules built by hyt_rules_build (same predict,
 * ctx, shape and candidates; names: the table name of each candidate
 * category; bytes_top: the size the last rule was built up to).  Each rule
 * is looked at at the largest power of two of its range: the rule's own
 * candidate first, then per other algorithm name its fastest k,
 * if it passes the margin or the overlap test, by predicted time.  spread
 * may be NULL (no deviations: margin only).  native: the category of the
 * MPI library's own selection among cands (-1: none): a rule that chose
 * another gets its predicted time as native_us.  0, or -1. */
int hyt_rules_shortlist(hyt_rules_predict_fn predict, void *ctx, hyt_rules_spread_fn spread,
                        void *sctx, int nodes, int ppn, const hyt_al_point_t *cands, int ncand,
                        const char *const *names, int native, uint64_t bytes_top,
                        hyt_tune_rule_t *rules, int nr);

/* A shortlist entry (q >= 1) of a rule of the job's own set measured on
 * the whole job (--tune-nodes) next to the rule's own candidate at one
 * size: both medians (us) and the standard errors of their logs (sp). */
typedef struct hyt_rules_jobm {
    int q;
    uint64_t bytes;
    double us_r, sp_r; /* the rule's own candidate */
    double us_q, sp_q; /* the entry */
} hyt_rules_jobm_t;

/* Rule r of the job's own set (its shortlist from the model at the search's
 * shape, by hyt_rules_shortlist; lo its first size, bytes_top as there) with
 * the measurements m[0..n) of its entries on the whole job: an entry whose
 * median there is above the rule's times 1 + HYT_SHORTLIST_MARGIN by more
 * than the noise (hyt_rules_guard_keep) at every size it was measured
 * leaves the shortlist (the online choice never measures it); another entry
 * measured there carries the measurement at the size nearest the one the
 * shortlist predicts at: its predicted time the rule's own times the
 * measured ratio (the model's scale, as the other entries and the rule's
 * own), its spread that time times the standard error of the ratio's log;
 * entries stay sorted by predicted time.  Returns the entries dropped. */
int hyt_rules_shortlist_job(hyt_tune_rule_t *r, uint64_t lo, uint64_t bytes_top,
                            const hyt_rules_jobm_t *m, int n);

/* A new communicator's cost as a function of its size (docs/memory.md):
 * us[i] measured at ranks[i] (n points, ranks >= 1), fitted by least
 * squares as a + b x for x = ranks and for x = log2 ranks; out gets the form
 * with the smaller squared error among those whose slope b is >= 0 (ranks on
 * a tie), and the smallest and largest ranks.  Fewer than two distinct
 * sizes, or no form with b >= 0: out->x = HYT_SETUP_FIT_NONE (the cost
 * measured on the shape itself applies at every size).  out->x is returned. */
hyt_setup_x_t hyt_rules_setup_fit(const int *ranks, const double *us, int n,
                                  hyt_setup_fit_t *out);

/* Write text to path atomically (temp file in the same folder, fsync,
 * rename): a killed run leaves the previous file.  0, or -1 with err set. */
int hyt_tune_write_atomic(const char *path, const char *text, char *err, size_t errlen);

#endif
