/* Active learning of one collective's run time (offline/active.c), with no
 * MPI inside: the caller supplies the candidate grid and a measure callback
 * (real benchmarks in `hytune tune`, table look-ups in --oracle mode, a
 * formula in the unit tests). */
#ifndef HYT_ACTIVE_H
#define HYT_ACTIVE_H

#include "offline/forest.h"

#include <stdint.h>

/* One benchmark point: a communicator shape, a message size and a candidate
 * (alg: a small category number chosen by the caller, k: radix or 0). */
typedef struct hyt_al_point {
    int nodes, ppn;
    uint64_t bytes;
    int alg, k;
} hyt_al_point_t;

/* Measure n points: time_us[i] (the benchmark's answer, > 0; < 0: the
 * benchmark failed) and cost_s[i] (seconds the benchmark of that point took).
 * cut_us[i] (hyt_al_cut_us): a point whose second call is slower may be
 * recorded with that one time instead of repeated.  Returns 0, or -1
 * to stop. */
typedef int (*hyt_al_measure_fn)(void *ctx, const hyt_al_point_t *pts, int n,
                                 const double *cut_us, double *time_us, double *cost_s);

/* How the next points are chosen once a model exists. */
typedef enum {
    /* Decision-focused (default): per group of candidates (one shape and
     * size), the expected improvement of the group's choice over its best
     * measured candidate, per benchmark second (see active.c). */
    HYT_AL_SELECT_DECISION = 0,
    /* Largest forest variance anywhere (ACCLAiM). */
    HYT_AL_SELECT_VARIANCE = 1,
} hyt_al_select_t;

typedef struct hyt_al_opts {
    int batch;          /* points per iteration; default 8 */
    int init_points;    /* random points before the first fit; default 16 */
    int offgrid_every;  /* every n-th point moves to a non-power-of-two size while no
                         * noise is noted (hyt_al_note_noise); default 5 */
    uint64_t bytes_gran;/* sizes are multiples of this (4 for MPI_INT reductions); default 1 */
    double threshold;   /* convergence, decision mode: expected gain left (mean over groups
                         * of the best expected improvement, log units) below this;
                         * variance mode: change of relative cumulative variance below
                         * this; default 0.02 */
    int patience;       /* ... this many iterations in a row; default 3 */
    int random;         /* 1: pick points at random (the baseline), not by the model */
    double cut;         /* racing: see hyt_al_cut_us; 0: never cut; default 1.25 */
    hyt_al_select_t select; /* default HYT_AL_SELECT_DECISION */
    uint64_t seed;      /* default 1 */
    hyt_forest_opts_t forest;
} hyt_al_opts_t;

void hyt_al_opts_default(hyt_al_opts_t *o);

typedef struct hyt_al hyt_al_t;

/* grid: every candidate point (power-of-two sizes); copied. */
hyt_al_t *hyt_al_new(const hyt_al_point_t *grid, int ngrid, const hyt_al_opts_t *o);
void hyt_al_free(hyt_al_t *a);

/* Add already known measurements (warm start); they count as training data.
 * A negative time marks a failed benchmark: no training row, the point is
 * not chosen again, and its candidate is predicted HYT_AL_FAILED_US at sizes
 * within a factor of two of it (same shape), and at every size of that shape
 * while none of its points there was measured, so no rule selects it there. */
int hyt_al_add(hyt_al_t *a, const hyt_al_point_t *pts, const double *time_us, int n);
/* Choose the next batch (at most max points) into out; returns the count
 * (0: grid exhausted).  Pure function of the state and seed. */
int hyt_al_next(hyt_al_t *a, hyt_al_point_t *out, int max);
/* Record the batch's answers, refit, update the convergence signal.
 * Returns 1 when converged, 0 if not, -1 on error. */
int hyt_al_update(hyt_al_t *a, const hyt_al_point_t *pts, const double *time_us,
                  const double *cost_s, int n);
/* One iteration: next + measure + update.  Same return as update; 2 when
 * the grid is exhausted. */
int hyt_al_step(hyt_al_t *a, hyt_al_measure_fn measure, void *ctx);

#define HYT_AL_FAILED_US 1e30
/* The model's jackknife standard deviation (us) of n points; 0 or -1. */
int hyt_al_spread(const hyt_al_t *a, const hyt_al_point_t *pts, int n, double *sd_us);

/* Measurement noise of points just measured (before hyt_al_update):
 * sigma[i] is the standard error of point i's log time, from the spread of
 * its repetitions (0: unknown, e.g. a point cut after one timed call, or
 * exact).  The decision mode then chooses points by their gain beyond the
 * noise: delta = 2 sqrt(2) x the median sigma seen (two standard errors of
 * the difference of two measurements) is subtracted from every candidate's
 * improvement over its group's incumbent.  The expected gain left (the stop
 * signal) is not shifted.  Chosen points stay on the grid (no
 * opts.offgrid_every move): a point measured once must settle its group's
 * choice, and only grid points can be measured again (below).  With no
 * noise noted, delta = 0 and nothing changes.
 *
 * Once noise has been noted, a point measured far from the model may have
 * been disturbed as a whole (a slow run on a busy machine, which the spread
 * of its own repetitions does not show), so the decision mode measures it
 * again: a point measured once more than far = max(HYT_AL_FAR, 2 delta)
 * (log units) slower than the forest's out-of-bag prediction for it, where
 * that prediction beats its group's incumbent, goes first into the next
 * batch; if its two times differ by more than far, a third decides.  A
 * point measured more than once counts with a robust value, the mean of two
 * or the median of three (more repeats, e.g. a warm start's, count their
 * first three).  At most half a batch per iteration; the run does not stop
 * while such points wait. */
#define HYT_AL_FAR 0.25
#define HYT_AL_REPEATS 3
#define HYT_AL_MAX_AGAIN 512 /* cap on a batch's re-measures (batch / 2) */
void hyt_al_note_noise(hyt_al_t *a, const double *sigma, int n);
double hyt_al_noise_delta(const hyt_al_t *a);

/* The decision mode's stop threshold: opts.threshold, scaled down by
 * HYT_AL_LOUD / delta where the noise noted is louder than HYT_AL_LOUD.
 * There two candidates measured once each swap their order, and a group's
 * incumbent (its best of several noisy times) is biased low, so candidates
 * predicted a little slower than it are faster in truth more often: the
 * expected gain left must fall further before the choices are right (on the
 * noisy oracle of docs/tuner-quality.md, "Noisy machines").  Below it
 * (quieter machines, exact data) nothing changes. */
#define HYT_AL_LOUD 0.15
double hyt_al_stop_threshold(const hyt_al_t *a);

/* Racing: a point slower than cut x the best measured time of its group
 * (same shape and size) cannot be that group's choice, so one warm call is
 * enough to know it; the harness records it after its second call.
 * A non-power-of-two size takes the group of the nearest power of two, its
 * limit scaled up by the size ratio where larger.  Returns that time in us;
 * INFINITY when the option is 0 or the group has no measurement. */
double hyt_al_cut_us(const hyt_al_t *a, const hyt_al_point_t *p);

/* Predicted time (us) of any points (sizes need not be on the grid); a grid
 * point that was measured answers its measurement (its robust value: see
 * hyt_al_note_noise). */
int hyt_al_predict(const hyt_al_t *a, const hyt_al_point_t *pts, int n, double *time_us);

typedef struct hyt_al_status {
    int iterations, points;
    double cost_s;      /* cumulative benchmark seconds */
    double cumvar;      /* mean variance over the grid (log-time units) */
    double cumvar_rel;  /* cumvar / its first value */
    double expected;    /* decision mode: expected gain left (see threshold) */
    int converged;
    int failed;         /* points recorded as failed */
    int remeasured;     /* measurements of points measured again (hyt_al_note_noise) */
} hyt_al_status_t;
void hyt_al_status(const hyt_al_t *a, hyt_al_status_t *s);

/* Features of a point: log2(nodes)+1, ppn, log2(bytes)+1, alg, log2(k)+1 (0 if no k). */
#define HYT_AL_NFEAT 5
void hyt_al_features(const hyt_al_point_t *p, double *x);

#endif
