/* Micro-benchmark of the tuner's inner step: refit a 100-tree forest on 2,000
 * points and predict mean + jackknife variance over 20,000 candidates, on
 * data shaped like the tuner's (log2 nodes+1, ppn, log2 bytes+1, algorithm,
 * log2 k+1 -> log time).  Prints wall times; checks only that the answers
 * are sane (timings on a shared machine are not asserted).  Times are CPU
 * seconds of the process (one thread).
 *   test_forest_speed [REPS [jackknife|trees|both [MAX_DEPTH [MIN_LEAF]]]]   (default 3 both)
 * `test_forest_speed 1 jackknife` under callgrind counts one refit + predict. */
#include "offline/forest.c"
#include "test/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NTRAIN = 2000, NCAND = 20000, NF = 5 };

/* CPU time of this process: on a shared machine wall time mostly measures
 * the other jobs (the wall time of the whole run is printed too). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A LogGP-like synthetic cost: latency terms in log(p)/log(k), bandwidth terms. */
static double synth(const double *x)
{
    double nodes = exp2(x[0] - 1), ppn = x[1], bytes = exp2(x[2] - 1), k = exp2(x[4] - 1);
    int alg = (int)x[3];
    double p = nodes * ppn, lat = 2 + alg % 3, bw = 1e-3 * (1 + alg % 4);
    double steps = log2(p) / log2(k + 1) * (k < 2 ? 2 : k / 2.0);
    return log(lat * steps + bw * bytes * (1 + (alg % 2) * log2(p)));
}

static void random_point(hyt_rng_t *r, double *x)
{
    x[0] = 1 + (double)hyt_rng_below(r, 7);                  /* 1..64 nodes */
    x[1] = (double)(1u << hyt_rng_below(r, 4));               /* ppn 1..8 */
    x[2] = 1 + (double)hyt_rng_below(r, 21) + (hyt_rng_below(r, 5) == 0 ? 0.5 : 0); /* 1 B..1 MiB */
    x[3] = (double)hyt_rng_below(r, 12);                      /* algorithm */
    x[4] = 1 + (double)hyt_rng_below(r, 7);                   /* k 1..64 */
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    const char *which = argc > 2 ? argv[2] : "both";
    if (reps < 1)
        reps = 1;
    static double X[NTRAIN * NF], y[NTRAIN], C[NCAND * NF], mu[NCAND], var[NCAND];
    hyt_rng_t r;
    hyt_rng_seed(&r, 5);
    for (int i = 0; i < NTRAIN; i++) {
        random_point(&r, &X[i * NF]);
        y[i] = synth(&X[i * NF]) + 0.02 * (hyt_rng_uniform(&r) - 0.5);
    }
    for (int i = 0; i < NCAND; i++)
        random_point(&r, &C[i * NF]);
    for (int kind = 0; kind < 2; kind++) {
        if ((kind == 0 && !strcmp(which, "trees")) || (kind == 1 && !strcmp(which, "jackknife")))
            continue;
        hyt_forest_opts_t o;
        hyt_forest_opts_default(&o);
        o.var = kind ? HYT_FOREST_VAR_TREES : HYT_FOREST_VAR_JACKKNIFE;
        if (argc > 3) /* optional: max depth, min leaf (0: default) */
            o.max_depth = atoi(argv[3]) > 0 ? atoi(argv[3]) : o.max_depth;
        if (argc > 4)
            o.min_leaf = atoi(argv[4]) > 0 ? atoi(argv[4]) : o.min_leaf;
        hyt_forest_t *f = hyt_forest_new(NF, 3, &o);
        double best_fit = 1e9, best_pred = 1e9, w0 = wall();
        for (int rep = 0; rep < reps; rep++) {
            double t0 = now();
            CHECK(hyt_forest_fit(f, X, y, NTRAIN) == 0, "fit");
            double t1 = now();
            CHECK(hyt_forest_predict(f, C, NCAND, mu, var) == 0, "predict");
            double t2 = now();
            best_fit = fmin(best_fit, t1 - t0);
            best_pred = fmin(best_pred, t2 - t1);
        }
        double se = 0;
        int bad = 0;
        for (int i = 0; i < NCAND; i++) {
            double d = mu[i] - synth(&C[i * NF]);
            se += d * d;
            bad += !isfinite(mu[i]) || !(var[i] >= 0);
        }
        CHECK(bad == 0, "%d non-finite predictions", bad);
        printf("forest_speed: %s variance: %d trees, %d points, %d candidates: refit %.1f ms, "
               "predict+variance %.1f ms, total %.1f ms CPU (best of %d; wall of all %.1f ms); "
               "%ld nodes; candidate rmse %.3f (log time)\n", kind ? "across-tree" : "jackknife", o.ntrees, NTRAIN,
               NCAND, 1e3 * best_fit, 1e3 * best_pred, 1e3 * (best_fit + best_pred), reps, 1e3 * (wall() - w0),
               hyt_forest_nodes(f), sqrt(se / NCAND));
        hyt_forest_free(f);
    }
    return check_done("test_forest_speed");
}
