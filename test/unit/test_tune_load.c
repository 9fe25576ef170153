/* Check a table written by `hytune tune`: hyt_table_load accepts it, and
 * every named collective has rule sets with numerically increasing
 * thresholds and a last unbounded rule, each set its measured set-up cost
 * (setup_us) and its fit over the sizes measured (setup_fit, if any), and native's predicted time (native_us) on rules that chose a
 * hytune algorithm only (on at least one of them), and measured gains
 * (gains) on such rules only.  With -j RANKS (a table tuned with
 * --tune-nodes on a job of RANKS ranks) at least one such rule has gains,
 * the unbounded set has the job's set-up cost (setup_job at RANKS) and each
 * of its rules that has gains has them at its shape's ranks and at RANKS.
 * With -n too (the tuner found native faster on the whole job than some of
 * the largest shape's rules, docs/tuner.md item 8): the unbounded set is
 * the job's own, after a set bounded at the shape's nodes; at every size
 * where a rule of that bounded set has a gain at RANKS, the unbounded set
 * chooses that rule's own algorithm where the gain is >= 0, and native or
 * that algorithm where it is negative, or the rule's challenger (the first
 * entry of its shortlist after its own that is not native) where that was
 * measured faster: its gain at RANKS there above the rule's, the rule's
 * algorithm in its shortlist; native at least once, where the bounded set
 * keeps its kernel (its own communicators keep their win).  With -c: the
 * same, a challenger at least once (-n -c: both).  The rule a challenger
 * replaced stays in the job's rule's shortlist, or has left it where its
 * algorithm was measured slower than the job's rule at each size of it on
 * RANKS ranks; with -d it has left at least once.
 * Usage: test_tune_load [-j RANKS [-n] [-c] [-d]] FILE COLL... */
#include "src/hyt.h"
#include "test/check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The challenger the tuner measures a rule against on the whole job: the
 * first entry of its shortlist after its own that is not native (NULL:
 * none). */
static const hyt_cand_t *challenger(const hyt_rule_t *ru)
{
    for (int q = 1; q < ru->nshort; q++)
        if (!(ru->shortlist[q].alg->flags & HYT_ALG_NATIVE))
            return &ru->shortlist[q];
    return NULL;
}

/* The gain of rule ru measured at (ranks, bytes), or NAN. */
static double gain_at(const hyt_rule_t *ru, int ranks, uint64_t bytes)
{
    for (int g = 0; g < ru->ngains; g++)
        if (ru->gains[g].ranks == ranks && ru->gains[g].bytes == bytes)
            return ru->gains[g].us;
    return NAN;
}

/* 1 if the shape's rules choosing alg were measured on ranks ranks slower
 * than jr, the job's own set's (own) rule there, at each size within jr's
 * sizes where both have a gain (at least one). */
static int slower_within(const hyt_rule_set_t *shape, const hyt_rule_set_t *own,
                         const hyt_rule_t *jr, const hyt_alg_t *alg, int ranks)
{
    int n = 0;
    for (int r = 0; r < shape->nrules; r++)
        for (int g = 0; shape->rules[r].alg == alg && g < shape->rules[r].ngains; g++) {
            const hyt_gain_t *ga = &shape->rules[r].gains[g];
            double gj = ga->ranks == ranks && hyt_rules_lookup(own, ga->bytes) == jr
                            ? gain_at(jr, ranks, ga->bytes)
                            : NAN;
            if (isnan(gj))
                continue;
            if (!(gj > ga->us))
                return 0;
            n++;
        }
    return n > 0;
}

/* -n, -c, -d: the job's own set against the set bounded at the tuned shape. */
static void check_job_set(const hyt_table_t *t, hyt_coll_t c, int job, int want_native,
                          int want_chal, int want_drop, const char *name)
{
    int n = t->nsets[c];
    CHECK(n >= 2, "%s: %d rule sets, want the tuned shape's and the job's own", name, n);
    if (n < 2)
        return;
    const hyt_rule_set_t *own = &t->sets[c][n - 1], *shape = &t->sets[c][n - 2];
    CHECK(own->nodes_max == INT32_MAX && shape->nodes_max < t->platform_nodes,
          "%s: sets bounded at %d and %d nodes, want the shape's nodes then none", name,
          shape->nodes_max, own->nodes_max);
    int lost = 0, taken = 0, compared = 0, dropped = 0, points = 0;
    for (int r = 0; r < shape->nrules; r++) {
        const hyt_rule_t *ru = &shape->rules[r];
        const hyt_cand_t *ch = challenger(ru);
        for (int g = 0; g < ru->ngains; g++) {
            const hyt_gain_t *ga = &ru->gains[g];
            if (ga->ranks != job)
                continue;
            const hyt_rule_t *jr = hyt_rules_lookup(own, ga->bytes);
            int same = jr->alg == ru->alg && jr->k == ru->k,
                native = (jr->alg->flags & HYT_ALG_NATIVE) != 0,
                chal = !same && ch && jr->alg == ch->alg && jr->k == ch->k;
            points++;
            CHECK(same || (ga->us < 0 && native) || chal, "%s: %llu B: the job's set chooses "
                  "%s, the shape's %s with a gain of %g us on %d ranks", name,
                  (unsigned long long)ga->bytes, jr->alg->name, ru->alg->name, ga->us, job);
            if (chal) { /* measured faster there (where the table kept that gain), the
                         * rule kept in its shortlist unless measured slower */
                double gj = gain_at(jr, job, ga->bytes);
                int listed = 0;
                for (int q = 1; q < jr->nshort; q++)
                    listed |= jr->shortlist[q].alg == ru->alg;
                int slower = !listed && slower_within(shape, own, jr, ru->alg, job);
                CHECK((isnan(gj) || gj > ga->us) && (listed || slower), "%s: %llu B: the job's "
                      "set's %s has a gain of %g us on %d ranks against the shape's %s's %g, %s "
                      "in its shortlist", name, (unsigned long long)ga->bytes, jr->alg->name, gj,
                      job, ru->alg->name, ga->us, listed ? "that" : "not, nor slower at each size");
                compared += !isnan(gj);
                dropped += slower;
            }
            int shape_rule = hyt_rules_lookup(shape, ga->bytes) == ru;
            lost += native && !same && shape_rule;
            taken += chal && shape_rule;
        }
    }
    CHECK(points > 0 && (!want_native || lost > 0) && (!want_chal || (taken > 0 && compared > 0)),
          "%s: native at %d and a challenger at %d of the %d sizes measured on %d ranks (%d with "
          "its gain), want %s at least once", name, lost, taken, points, job, compared,
          want_native && want_chal ? "each" : want_native ? "native" : "a challenger");
    CHECK(!want_drop || dropped > 0, "%s: the replaced rule, measured slower on %d ranks at each "
          "size, left the job's rule's shortlist at %d of the %d sizes its challenger took, want "
          "at least one", name, job, dropped, taken);
}

int main(int argc, char **argv)
{
    int job = 0, job_native = 0, job_chal = 0, job_drop = 0;
    if (argc > 2 && !strcmp(argv[1], "-j")) {
        job = atoi(argv[2]);
        argv += 2;
        argc -= 2;
        for (; argc > 1 && (!strcmp(argv[1], "-n") || !strcmp(argv[1], "-c") ||
                            !strcmp(argv[1], "-d"));
             argv++, argc--)
            *(argv[1][1] == 'n' ? &job_native : argv[1][1] == 'c' ? &job_chal : &job_drop) = 1;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s [-j RANKS [-n] [-c] [-d]] TABLE COLLECTIVE...\n", argv[0]);
        return 2;
    }
    char err[1024];
    hyt_table_t *t = hyt_table_load(argv[1], err, sizeof err);
    CHECK(t != NULL, "%s", err);
    for (int i = 2; t && i < argc; i++) {
        int c = hyt_coll_from_name(argv[i]), kernel_rules = 0, with_native = 0, with_gains = 0;
        CHECK(c >= 0 && t->nsets[c] > 0, "no rule sets for %s", argv[i]);
        for (int s = 0; c >= 0 && s < t->nsets[c]; s++) {
            const hyt_rule_set_t *rs = &t->sets[c][s];
            for (int r = 1; r < rs->nrules; r++)
                CHECK(rs->rules[r].bytes_max > rs->rules[r - 1].bytes_max, "%s set %d rule %d",
                      argv[i], s, r);
            CHECK(rs->rules[rs->nrules - 1].bytes_max == UINT64_MAX, "%s set %d last rule bounded",
                  argv[i], s);
            CHECK(rs->setup_us > 0, "%s set %d: setup_us %g", argv[i], s, rs->setup_us);
            /* a fit, when written, spans the sizes measured up to the set's shape */
            const hyt_setup_fit_t *f = &rs->setup_fit;
            CHECK(f->x == HYT_SETUP_FIT_NONE ||
                      (f->ranks_min >= 1 && f->ranks_min < f->ranks_max &&
                       (rs->nodes_max == INT32_MAX || rs->ppn_max == INT32_MAX ||
                        f->ranks_max == rs->nodes_max * rs->ppn_max)),
                  "%s set %d: setup_fit over %d..%d ranks", argv[i], s, f->ranks_min,
                  f->ranks_max);
            /* native_us: never on native's rules; on the others unless native
             * could not be benchmarked there (the memory limit) */
            for (int r = 0; r < rs->nrules; r++) {
                int native = (rs->rules[r].alg->flags & HYT_ALG_NATIVE) != 0;
                kernel_rules += !native;
                with_native += !native && rs->rules[r].native_us > 0;
                CHECK(!native || rs->rules[r].native_us < 0, "%s set %d rule %d (native): "
                      "native_us %g", argv[i], s, r, rs->rules[r].native_us);
                const hyt_rule_t *ru = &rs->rules[r];
                with_gains += ru->ngains > 0;
                CHECK(!native || ru->ngains == 0, "%s set %d rule %d (native): %d gains", argv[i],
                      s, r, ru->ngains);
                if (!job || rs->nodes_max != INT32_MAX || !ru->ngains)
                    continue;
                CHECK(ru->gains[0].ranks < job && ru->gains[ru->ngains - 1].ranks == job,
                      "%s set %d rule %d: gains at %d..%d ranks, want the shape's and the job's %d",
                      argv[i], s, r, ru->gains[0].ranks, ru->gains[ru->ngains - 1].ranks, job);
            }
            CHECK(!job || rs->nodes_max != INT32_MAX ||
                      (f->job_ranks == job && f->job_us > 0 && f->job_ranks > f->ranks_max),
                  "%s set %d: setup_job at %d ranks (%g us), want the job's %d", argv[i], s,
                  f->job_ranks, f->job_us, job);
        }
        CHECK(!kernel_rules || with_native, "%s: none of its %d rules choosing a hytune "
              "algorithm has native_us", argv[i], kernel_rules);
        CHECK(!job || !kernel_rules || with_gains, "%s: none of its %d rules choosing a "
              "hytune algorithm has gains", argv[i], kernel_rules);
        if ((job_native || job_chal || job_drop) && c >= 0)
            check_job_set(t, (hyt_coll_t)c, job, job_native, job_chal, job_drop, argv[i]);
        /* the whole job's shape must be covered */
        CHECK(c >= 0 && hyt_table_match(t, (hyt_coll_t)c, t->platform_nodes, t->platform_ppn),
              "%s: no set for the job's own shape", argv[i]);
    }
    hyt_table_free(t);
    return check_done("test_tune_load");
}
