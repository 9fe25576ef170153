/* Exhaustive measurement tables (offline/oracle.c): the --oracle simulation
 * mode and --warm-start.  CSV with a header line naming the columns
 *   coll,nodes,ppn,bytes,algorithm,k,time_us
 * one row per measured point (k = 0 for algorithms without a radix; time_us
 * the benchmark's answer, median of the per-repetition maximum over ranks).
 * `hytune tune --dump FILE` and bench/tune_oracle.sh write this format. */
#ifndef HYT_ORACLE_H
#define HYT_ORACLE_H

#include "offline/active.h"
#include "src/hyt.h"

#include <stdint.h>
#include <stdio.h>

/* Benchmark cost model of one point in simulation: warm-up plus repetitions
 * of the collective (the harness's defaults). */
#define HYT_ORACLE_CALLS 12
/* ... of a point cut after its second call (racing, hyt_al_cut_us) */
#define HYT_ORACLE_CUT_CALLS 2

typedef struct hyt_oracle_row {
    char coll[32];
    char alg[48];
    int nodes, ppn, k;
    uint64_t bytes;
    double us;
} hyt_oracle_row_t;

typedef struct hyt_oracle {
    hyt_oracle_row_t *rows;
    int n;
} hyt_oracle_t;

/* Read a CSV; NULL with a message naming the file, line and fix in err. */
hyt_oracle_t *hyt_oracle_read(const char *path, char *err, size_t errlen);
void hyt_oracle_free(hyt_oracle_t *o);
/* Append one row to an open CSV (header written when the file is empty). */
void hyt_oracle_write_row(FILE *f, const char *coll, int nodes, int ppn, uint64_t bytes,
                          const char *alg, int k, double us);

/* A whole run's results over its collectives: every (shape, size) group of
 * every collective counts once.  Side 0: the tuner, 1: random sampling. */
typedef struct hyt_oracle_total {
    int colls, groups, points[2];
    double exhaustive_s, cost_s[2];
    double slow[2], bad[2]; /* sums over groups of slowdown, of mistakes (0/1) */
} hyt_oracle_total_t;

/* --oracle-noise: a noisy machine made from an exact oracle, reproducible by
 * seed.  Truth: the oracle with `steps` non-monotone steps per collective
 * (a (shape, candidate) series drawn at random, its times from a random
 * size upwards multiplied by a factor drawn in [0.6, 0.85]).  A measurement
 * of a point: HYT_ORACLE_NOISE_REPS repetitions, each the truth times
 * exp(sigma Z) (Z standard normal), its median; with probability `outliers`
 * the whole point is disturbed, times a factor in [1.5, 3]; its standard
 * error (from the repetitions' interquartile range) goes to
 * hyt_al_note_noise.  A point cut after its second call is one repetition.
 * sigma 0: off (exact replay). */
#define HYT_ORACLE_NOISE_REPS 10
typedef struct hyt_oracle_noise {
    double sigma, outliers;
    int steps;
    uint64_t seed;
} hyt_oracle_noise_t;
/* Parse "SIGMA[,outliers=P][,steps=N]" (defaults 0.02 and 3); 0, or -1
 * with a message in err. */
int hyt_oracle_noise_parse(const char *spec, hyt_oracle_noise_t *nz, char *err, size_t len);
/* Set the noise of the next hyt_oracle_simulate calls (NULL: exact). */
void hyt_oracle_set_noise(const hyt_oracle_noise_t *nz);

/* Run the tuner's loop on the oracle's data for collective coll and print
 * per iteration the FACT metrics (R^2, average slowdown vs the oracle's
 * best, accuracy, significant-mistake share, cumulative benchmark seconds)
 * for active learning until it converges, then for random sampling up to
 * the same benchmark cost (or on to random_to x the exhaustive cost, if
 * that is more), then one "summary" line comparing both at the tuner's
 * cost.  Adds that comparison to *tot unless tot is NULL.  Returns 0, or
 * -1 (message on stderr). */
int hyt_oracle_simulate(const hyt_oracle_t *o, const char *coll, const hyt_al_opts_t *opts,
                        double random_to, hyt_oracle_total_t *tot, FILE *out);
/* The "summary run" line: cost, slowdown and mistakes over all groups of
 * the collectives simulated (nothing when there were none). */
void hyt_oracle_print_total(const hyt_oracle_total_t *t, FILE *out);

/* Score a selection table against the oracle's rows of collective coll:
 * for every (nodes, ppn, power-of-two size) group, the candidate the
 * table's rules give for it (hyt_table_match, then the first rule covering
 * the size, as the runtime applies them) and its time over the group's
 * best.  Prints one "score" line (average slowdown, share > 10% slower,
 * groups whose choice the oracle did not measure).  Returns 0, or -1 when
 * no group could be scored (message on stderr). */
int hyt_oracle_score_table(const hyt_oracle_t *o, const char *coll, const hyt_table_t *t,
                           FILE *out);

#endif
