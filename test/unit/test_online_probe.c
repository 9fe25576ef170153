/* Unit test of the radix probing state machine (online/probe.c) on scripted
 * latency curves: optimum at k_min, at k_max (= p), in the middle (smooth
 * k-nomial model, V shape, stepped k-nomial), flat, U with a plateau, and a
 * noisy curve with a seeded generator.  For every curve, start radix and k
 * range it asserts: every probed k is inside [k_min, k_max]; the search
 * settles within the budget (<= 24 calls after the key turned hot, the
 * start window being measured before); and on the noise-free curves the
 * settled k's latency is within 3% of the true optimum over all k.  The
 * noise guard (hyt_probe_feed_noisy): on a nearly flat curve under +-15%
 * window noise the search keeps a radix as good as its start on >= 85% of
 * seeds (5 points more than without the guard), still finds a real optimum
 * through 10% noise, and with noise-free windows walks the plain sequence. */
#include "online/probe.h"
#include "test/check.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define PROBE_CALLS 3
#define MAX_WINDOWS 9 /* the budget online.c uses: 8 windows after the start one */
#define MIN_GAIN 0.02

typedef double (*curve_fn)(int k, int p);

static double c_at_min(int k, int p)
{
    (void)p;
    return 1.0 + 0.05 * k;
}
static double c_at_max(int k, int p)
{
    (void)p;
    return 1.0 + 8.0 / k;
}
/* k-nomial-like: log_k(p) rounds of (alpha + beta (k-1)) */
static double c_knomial(int k, int p)
{
    if (k < 2)
        return 1e9;
    return log((double)p) / log((double)k) * (1.0 + 0.08 * (k - 1));
}
static double c_knomial_wide(int k, int p)
{
    if (k < 2)
        return 1e9;
    return log((double)p) / log((double)k) * (1.0 + 0.01 * (k - 1));
}
/* the real rounds are an integer: a stepped curve with several local minima */
static double c_knomial_steps(int k, int p)
{
    if (k < 2)
        return 1e9;
    int rounds = 0;
    for (long r = 1; r < p; r *= k)
        rounds++;
    return rounds * (1.0 + 0.08 * (k - 1));
}
static double c_flat(int k, int p)
{
    (void)k;
    (void)p;
    return 1.0;
}
static double c_plateau(int k, int p)
{
    (void)p;
    double x = log2((double)k);
    return 1.0 + 0.1 * fmax(0, 4 - x) + 0.1 * fmax(0, x - 6); /* flat on [16, 64] */
}
static double c_vee(int k, int p)
{
    double c = sqrt((double)p) * 0.75; /* between grid points */
    return 1.0 + 0.3 * fabs(log2(k / c));
}

/* seeded generator (no rand(): the same code runs inside SimGrid) */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct {
    int k, windows, out_of_range;
    double t_settled, t_opt;
} result_t;

/* Drive the machine the way online.c does: a window of PROBE_CALLS calls,
 * median of the window, fed as the global time. */
static int g_hint;  /* model radix given to the machine (0: none) */
static int g_round; /* one-round radix given to the machine (0: none) */
static int g_spread; /* feed the window's spread too (hyt_probe_feed_noisy) */

static result_t run(curve_fn f, int p, int k0, int kmin, int kmax, double noise)
{
    hyt_probe_t pr;
    result_t r = {0};
    hyt_probe_start(&pr, k0, kmin, kmax, MIN_GAIN, MAX_WINDOWS);
    hyt_probe_hint(&pr, g_hint);
    hyt_probe_round_hint(&pr, g_round);
    int guard = 0;
    while (!hyt_probe_settled(&pr) && guard++ < 1000) {
        int k = pr.k_next;
        if (k < kmin || k > kmax)
            r.out_of_range++;
        double w[PROBE_CALLS];
        for (int i = 0; i < PROBE_CALLS; i++)
            w[i] = f(k, p) * (1.0 + noise * (urand() - 0.5));
        double spread = 0, t = hyt_probe_window_time(w, PROBE_CALLS, 0, &spread);
        if (g_spread)
            hyt_probe_feed_noisy(&pr, t, spread);
        else
            hyt_probe_feed(&pr, t);
        r.windows++;
    }
    r.k = pr.best_k;
    if (r.k < kmin || r.k > kmax)
        r.out_of_range++;
    r.t_settled = f(r.k, p);
    r.t_opt = HUGE_VAL;
    for (int k = kmin; k <= kmax; k++)
        r.t_opt = fmin(r.t_opt, f(k, p));
    return r;
}

typedef struct {
    const char *name;
    curve_fn f;
    int kmin_ok; /* smallest k_min the curve is defined for */
} curve_t;

static const curve_t curves[] = {
    {"optimum at k_min", c_at_min, 1},   {"optimum at p", c_at_max, 1},
    {"k-nomial", c_knomial, 2},          {"k-nomial wide", c_knomial_wide, 2},
    {"flat", c_flat, 1},
    {"U with plateau", c_plateau, 1},
};

/* Radix with the lowest latency (the first one on ties). */
static int k_opt(curve_fn f, int p, int kmin, int kmax)
{
    int best = kmin;
    for (int k = kmin; k <= kmax; k++)
        if (f(k, p) < f(best, p))
            best = k;
    return best;
}

static void check_run(const char *name, result_t r, int p, int k0, int kmin, int kmax,
                      double tol)
{
    int after_hot = (r.windows - 1) * PROBE_CALLS;
    CHECK(r.out_of_range == 0, "%s p=%d k0=%d [%d,%d]: %d radixes out of range", name, p, k0,
          kmin, kmax, r.out_of_range);
    CHECK(after_hot <= 24, "%s p=%d k0=%d: %d calls after hot", name, p, k0, after_hot);
    CHECK(r.t_settled <= r.t_opt * (1 + tol), "%s p=%d k0=%d [%d,%d]: settled k=%d at %.4f, "
          "optimum %.4f (+%.1f%%)", name, p, k0, kmin, kmax, r.k, r.t_settled, r.t_opt,
          100 * (r.t_settled / r.t_opt - 1));
}

static void smooth_curves(void)
{
    static const int ranges[][2] = {{2, 256}, {2, 64}, {2, 8}, {1, 8}, {2, 1024}, {3, 100}};
    for (size_t c = 0; c < sizeof curves / sizeof curves[0]; c++)
        for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
            int kmin = ranges[r][0], kmax = ranges[r][1], p = kmax;
            if (kmin < curves[c].kmin_ok)
                continue;
            int starts[] = {kmin, kmin + 2, (kmin + kmax) / 3, kmax / 2, kmax};
            int ko = k_opt(curves[c].f, p, kmin, kmax);
            for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
                result_t res = run(curves[c].f, p, starts[s], kmin, kmax, 0);
                /* the budget covers 6 doublings between start and optimum
                 * plus refining; farther starts must still improve */
                double dist = fabs(log2((double)starts[s] / ko));
                double tol = dist <= 6 ? 0.03 : curves[c].f(starts[s], p) / res.t_opt - 1;
                check_run(curves[c].name, res, p, starts[s], kmin, kmax, tol);
                if (dist > 6)
                    CHECK(res.t_settled < curves[c].f(starts[s], p) || res.k == starts[s],
                          "%s: far start %d did not improve", curves[c].name, starts[s]);
            }
        }
}

/* Non-smooth curves: the real stepped k-nomial round count (several local
 * minima) and a V whose tip lies between grid points.  From small starts
 * the search finds the optimum region; from any start it stays in range and
 * in budget.  The refine resolution is k/4, so on the V (0.3 per doubling)
 * the error bound is 0.3 * log2(1 + 1/8) = 5.1%. */
static void rough_curves(void)
{
    int ps[] = {8, 64, 100, 256};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        int p = ps[i];
        for (int k0 = 2; k0 <= p; k0 *= 2) {
            result_t r = run(c_knomial_steps, p, k0, 2, p, 0);
            check_run("k-nomial steps", r, p, k0, 2, p, k0 <= 4 ? 0.03 : 1e9);
            r = run(c_vee, p, k0, 2, p, 0);
            check_run("V", r, p, k0, 2, p, 0.052);
        }
    }
}

/* A bump where the round count changes (seen with k-nomial Allreduce of
 * 64 KiB on 64 ranks: k=4 4% slower than k=2, k=8 twice as fast): the
 * search must look past the mildly losing step. */
static double c_bump(int k, int p)
{
    (void)p;
    if (k >= 3 && k <= 5)
        return 1.25;
    return 1.0 + 0.1 * fabs(log2(k / 8.0));
}

/* Measured: recmult Allreduce of 64 KiB on 64 ranks (fattree-64.xml, 8 per
 * node, HYTUNE_FORCE_ALLREDUCE=recmult:K, mean of 10 calls, us).  Rugged:
 * k=4 is the worst small radix, k=16 the best.  Radixes between the
 * measured ones take the nearest measured value (in log k). */
static double c_recmult_64k(int k, int p)
{
    static const int ks[] = {2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64};
    static const double us[] = {71.0, 34.1, 91.0, 35.1, 53.3, 45.9,
                                41.2, 24.4, 79.4, 90.5, 265.7, 353.7};
    (void)p;
    int best = 0;
    for (int i = 1; i < 12; i++)
        if (fabs(log((double)k / ks[i])) < fabs(log((double)k / ks[best])))
            best = i;
    return us[best];
}

static void bump_curve(void)
{
    result_t m = run(c_recmult_64k, 64, 2, 2, 64, 0);
    check_run("measured recmult 64 KiB", m, 64, 2, 2, 64, 0.03);
    result_t r = run(c_bump, 64, 2, 2, 64, 0);
    check_run("bump", r, 64, 2, 2, 64, 0.03);
    r = run(c_bump, 64, 64, 2, 64, 0);
    check_run("bump from above", r, 64, 64, 2, 64, 0.03);
}

/* Small-message k-nomial: latency-bound rounds, one round at k = p wins,
 * behind a plateau of two-round radixes the climb cannot see past.  The
 * model's hint (k = p) is measured once before settling. */
static double c_one_round(int k, int p)
{
    if (k < 2)
        return 1e9;
    int rounds = 0;
    for (long r = 1; r < p; r *= k)
        rounds++;
    return rounds * (1.0 + 0.002 * (k - 1));
}

static void hint_curve(void)
{
    g_hint = 0;
    result_t r = run(c_one_round, 64, 2, 2, 64, 0);
    CHECK(r.k != 64, "without a hint the climb was expected to stop on the plateau (k=%d)", r.k);
    g_hint = 64;
    r = run(c_one_round, 64, 2, 2, 64, 0);
    check_run("one round at p, hint p", r, 64, 2, 2, 64, 0.0);
    CHECK(r.k == 64, "hint p not taken: k=%d", r.k);
    g_hint = 2; /* a wrong hint costs one window and is not taken */
    r = run(c_knomial, 256, 4, 2, 256, 0);
    check_run("k-nomial, wrong hint", r, 256, 4, 2, 256, 0.03);
    /* every smooth curve still lands within 3% with a hint at p */
    g_hint = 256;
    r = run(c_knomial_wide, 256, 2, 2, 256, 0);
    check_run("k-nomial wide, hint p", r, 256, 2, 2, 256, 0.03);
    g_hint = 0;
}

/* A cold start (k_min) with a hint at least 4x away: the hint is measured
 * right after the start.  Right or wrong, every curve still settles within
 * 3% and in budget; a right one at p is reached in 5 windows. */
/* The one-round radix, measured when the climb ends on a plateau: k-nomial
 * with one round at p behind two-round radixes (the prior pointing at 16,
 * as for 8 B on 256 ranks) is found; on every curve and start the search
 * stays in range, in budget and within 3% from k_min. */
static void round_hint_curves(void)
{
    g_hint = 16;
    g_round = 256;
    result_t r = run(c_one_round, 256, 2, 2, 256, 0);
    check_run("one round at p, prior 16, round hint p", r, 256, 2, 2, 256, 0.0);
    CHECK(r.k == 256, "round hint p not taken: k=%d after %d windows", r.k, r.windows);
    g_hint = 0;
    g_round = 64;
    r = run(c_one_round, 64, 2, 2, 64, 0);
    check_run("one round at p, round hint p", r, 64, 2, 2, 64, 0.0);
    CHECK(r.k == 64, "round hint p not taken: k=%d", r.k);
    static const int ps[] = {64, 256};
    for (size_t c = 0; c < sizeof curves / sizeof curves[0]; c++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            int p = ps[i], kmin = curves[c].kmin_ok < 2 ? 2 : curves[c].kmin_ok;
            int hints[] = {0, p / 16, p};
            for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
                g_hint = hints[h];
                g_round = p;
                r = run(curves[c].f, p, kmin, kmin, p, 0);
                check_run(curves[c].name, r, p, kmin, kmin, p, 0.03);
                r = run(curves[c].f, p, p / 2, kmin, p, 0);
                check_run(curves[c].name, r, p, p / 2, kmin, p, 0.03);
            }
        }
    for (int k0 = 2; k0 <= 256; k0 *= 2) {
        g_hint = 0;
        g_round = 256;
        r = run(c_knomial_steps, 256, k0, 2, 256, 0);
        check_run("k-nomial steps, round hint", r, 256, k0, 2, 256, k0 <= 4 ? 0.03 : 1e9);
        r = run(c_vee, 256, k0, 2, 256, 0);
        check_run("V, round hint", r, 256, k0, 2, 256, 0.052);
    }
    g_hint = 0;
    g_round = 0;
}

static void far_hint_curves(void)
{
    static const int ps[] = {64, 256};
    for (size_t c = 0; c < sizeof curves / sizeof curves[0]; c++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            int p = ps[i], kmin = curves[c].kmin_ok < 2 ? 2 : curves[c].kmin_ok;
            int hints[] = {p, p / 4, kmin * 4};
            for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
                g_hint = hints[h];
                result_t r = run(curves[c].f, p, kmin, kmin, p, 0);
                check_run(curves[c].name, r, p, kmin, kmin, p, 0.03);
            }
            /* and from the top, hint at the bottom */
            g_hint = kmin;
            result_t r = run(curves[c].f, p, p, kmin, p, 0);
            check_run(curves[c].name, r, p, p, kmin, p, 0.03);
        }
    g_hint = 256;
    result_t r = run(c_at_max, 256, 2, 2, 256, 0);
    CHECK(r.k == 256 && r.windows <= 5, "far hint at the optimum p: k=%d after %d windows", r.k,
          r.windows);
    g_hint = 64;
    r = run(c_one_round, 64, 2, 2, 64, 0);
    CHECK(r.k == 64 && r.windows <= 5, "one round at p, far hint: k=%d after %d windows", r.k,
          r.windows);
    g_hint = 0;
}

/* a key already best at its start radix settles after a few calls */
static void settles_fast_when_best(void)
{
    result_t r = run(c_flat, 256, 8, 2, 256, 0);
    CHECK(r.k == 8 && r.windows <= 3, "flat from 8: k=%d after %d windows", r.k, r.windows);
    r = run(c_at_min, 256, 2, 2, 256, 0);
    CHECK(r.k == 2 && r.windows <= 4, "optimum at start k_min: k=%d after %d windows", r.k,
          r.windows);
    r = run(c_at_max, 256, 256, 2, 256, 0);
    CHECK(r.k == 256 && r.windows <= 4, "optimum at start k_max: k=%d after %d windows", r.k,
          r.windows);
    r = run(c_flat, 64, 5, 5, 5, 0);
    CHECK(r.k == 5 && r.windows == 1, "single radix: k=%d after %d windows", r.k, r.windows);
}

/* +-3% multiplicative noise per call, seeded: stays in range, within budget,
 * and lands near the optimum (the noise guard is 2%, the median of 3 calls) */
static void noisy_curves(void)
{
    int near = 0, total = 0;
    for (int seed = 1; seed <= 50; seed++) {
        rng = 0x9e3779b97f4a7c15ULL * (uint64_t)seed;
        result_t r = run(c_knomial, 256, 2 + seed % 7, 2, 256, 0.06);
        check_run("noisy k-nomial", r, 256, 2 + seed % 7, 2, 256, 0.10);
        near += r.t_settled <= r.t_opt * 1.05;
        total++;
    }
    CHECK(near * 10 >= total * 9, "noisy: only %d of %d seeds within 5%% of the optimum", near,
          total);
}

/* nearly flat: 1% per doubling, far below the noise of the windows below */
static double c_gentle(int k, int p)
{
    (void)p;
    return 1.0 + 0.01 * fabs(log2(k / 32.0));
}

/* The noise guard (hyt_probe_feed_noisy): windows whose calls scatter by
 * +-15% on a curve that changes 1% per doubling.  With the fixed 2% gain the
 * search follows the noise; with the guard it must keep the start k (or a
 * radix as good) on most seeds, and clearly more often than without it
 * (measured: 359 and 319 of 400). */
static void noise_guard(void)
{
    int stay[2] = {0, 0}, total = 0;
    for (int seed = 1; seed <= 400; seed++, total++)
        for (int g = 0; g < 2; g++) {
            rng = 0x9e3779b97f4a7c15ULL * (uint64_t)seed;
            g_spread = g;
            result_t r = run(c_gentle, 256, 16, 2, 256, 0.3);
            check_run("gentle, noisy windows", r, 256, 16, 2, 256, 1.0);
            stay[g] += r.t_settled <= c_gentle(16, 256) * 1.005;
        }
    CHECK(stay[1] * 20 >= total * 17, "guard: only %d of %d seeds kept a radix as good as the start",
          stay[1], total);
    CHECK(stay[1] * 20 >= stay[0] * 20 + total, "guard: %d of %d seeds kept it, without the guard %d",
          stay[1], total, stay[0]);
    /* a real gain (the optimum at p, 8x the start's time at k=2) is still found */
    int near = 0;
    for (int seed = 1; seed <= 50; seed++) {
        rng = 0x9e3779b97f4a7c15ULL * (uint64_t)seed;
        result_t r = run(c_at_max, 256, 2, 2, 256, 0.1);
        check_run("optimum at p, noisy windows", r, 256, 2, 2, 256, 0.15);
        near += r.t_settled <= r.t_opt * 1.10;
    }
    CHECK(near * 10 >= 50 * 9, "guard: only %d of 50 seeds within 10%% of the optimum", near);
    g_spread = 0;
    /* noise-free windows (spread 0): the very sequence of the plain feed */
    for (int c = 0; c < (int)(sizeof curves / sizeof curves[0]); c++) {
        hyt_probe_t a, b;
        int k0 = curves[c].kmin_ok > 2 ? curves[c].kmin_ok : 2;
        hyt_probe_start(&a, k0, k0, 128, MIN_GAIN, MAX_WINDOWS);
        hyt_probe_start(&b, k0, k0, 128, MIN_GAIN, MAX_WINDOWS);
        while (!hyt_probe_settled(&a)) {
            CHECK(a.k_next == b.k_next, "%s: spread 0 changed the sequence", curves[c].name);
            double t = curves[c].f(a.k_next, 128);
            hyt_probe_feed(&a, t);
            hyt_probe_feed_noisy(&b, t, 0);
        }
        CHECK(hyt_probe_settled(&b) && a.best_k == b.best_k, "%s: spread 0 settled differently",
              curves[c].name);
    }
}

/* the machine is a pure function: the same inputs give the same sequence */
static void deterministic(void)
{
    hyt_probe_t a, b;
    hyt_probe_start(&a, 4, 2, 128, MIN_GAIN, MAX_WINDOWS);
    hyt_probe_start(&b, 4, 2, 128, MIN_GAIN, MAX_WINDOWS);
    while (!hyt_probe_settled(&a)) {
        CHECK(a.k_next == b.k_next, "sequences differ: %d vs %d", a.k_next, b.k_next);
        double t = c_knomial(a.k_next, 128);
        hyt_probe_feed(&a, t);
        hyt_probe_feed(&b, t);
    }
    CHECK(hyt_probe_settled(&b) && a.best_k == b.best_k, "settled differently");
    CHECK(hyt_probe_feed(&a, 99.0) == a.best_k, "a settled machine must ignore input");
}

static void helpers(void)
{
    double v[] = {5, 1, 3};
    CHECK(hyt_probe_median(v, 3) == 3, "median of 3");
    double w[] = {4, 1, 3, 2};
    CHECK(hyt_probe_median(w, 4) == 2.5, "median of 4");
    /* 3 ranks x 3 calls: per-call maxima 4, 9, 2 -> median 4 */
    double g[] = {1.0, 9.0, 2.0, 4.0, 0.5, 1.0, 3.0, 0.1, 0.2}, work[3];
    CHECK(hyt_probe_global(g, 3, 3, work) == 4.0, "global: median of per-call maxima");
    CHECK(hyt_probe_drifted(1.0, 1.3, 1.25) && !hyt_probe_drifted(1.0, 1.2, 1.25), "drift");
    /* rooted windows: ends of the calls since the common start, the first
     * with the pipeline's fill (8), then 1.25 per call: the median increment */
    double ends[] = {8.0, 9.25, 10.5, 11.75, 13.0};
    CHECK(hyt_probe_window_time(ends, 5, 1, NULL) == 1.25, "rooted: median increment");
    double plain[] = {8.0, 1.0, 2.0}, sp = -1;
    CHECK(hyt_probe_window_time(plain, 3, 0, &sp) == 2.0, "per-call times: median");
    CHECK(sp == 0.5, "spread: median deviation 1 over median 2: %g", sp);
    double fill[] = {8.0, 9.25, 10.5, 11.75, 13.0};
    CHECK(hyt_probe_window_time(fill, 5, 1, &sp) == 1.25 && sp == 0,
          "spread: a loop's fill in the first increment is not noise: %g", sp);
    /* auto drift interval: 2% of the key's time goes to checks, in [16, 1000] */
    CHECK(hyt_probe_drift_calls(8e-6, 19.8e-6, 0) == 21, "auto: %ld",
          hyt_probe_drift_calls(8e-6, 19.8e-6, 0));
    CHECK(hyt_probe_drift_calls(1e-6, 1e-3, 0) == HYT_DRIFT_MIN_CALLS, "auto: big calls");
    CHECK(hyt_probe_drift_calls(1e-3, 1e-6, 0) == HYT_DRIFT_MAX_CALLS, "auto: cheap calls");
    CHECK(hyt_probe_drift_calls(0, 1e-6, 0) == HYT_DRIFT_MIN_CALLS &&
          hyt_probe_drift_calls(1e-6, 0, 0) == HYT_DRIFT_MIN_CALLS, "auto: nothing measured");
    /* a key stable for s calls is checked every s/8 calls once that is
     * longer than the budget's interval, never rarer than every 1000 */
    CHECK(hyt_probe_drift_calls(8e-6, 19.8e-6, 100) == 21, "stable 100: budget's 21 stays");
    CHECK(hyt_probe_drift_calls(8e-6, 19.8e-6, 800) == 100, "stable 800: %ld",
          hyt_probe_drift_calls(8e-6, 19.8e-6, 800));
    CHECK(hyt_probe_drift_calls(8e-6, 19.8e-6, 100000) == HYT_DRIFT_MAX_CALLS,
          "stable 100000: capped");
    CHECK(hyt_probe_drift_calls(0, 0, 400) == 50, "stable 400, nothing measured: %ld",
          hyt_probe_drift_calls(0, 0, 400));
    {
        /* checks over 10,000 stable calls at a budget interval of 100:
         * without the growth 100, with it a few tens, and the gap after
         * call c never above max(100, c/8) + 1 */
        unsigned long long n = 0, checks = 0;
        int late = 0;
        while (n < 10000) {
            long d = hyt_probe_drift_calls(2e-6, 1e-3 * 1e-3, n);
            late |= (unsigned long long)d > (n / 8 > 100 ? n / 8 : 100) + 1;
            n += (unsigned long long)d;
            checks++;
        }
        CHECK(checks >= 20 && checks <= 40 && !late, "10,000 stable calls: %llu checks%s", checks,
              late ? ", one gap too long" : "");
    }
    /* HYTUNE_HOT_CALLS: a number is kept for every key; auto is three
     * times the calls the key's search can time, at least 16 */
    CHECK(hyt_probe_hot_calls(16, 36, 0) == 16 && hyt_probe_hot_calls(1, 297, 0) == 1 &&
              hyt_probe_hot_calls(500, 1, 0) == 500, "a number is the threshold");
    CHECK(hyt_probe_search_calls(9, 3, 3) == 27 && hyt_probe_hot_calls(-1, 27, 0) == 81,
          "auto, radix probe alone (9 windows of 3): %ld calls, hot after %ld",
          hyt_probe_search_calls(9, 3, 3), hyt_probe_hot_calls(-1, 27, 0));
    CHECK(hyt_probe_search_calls(4 + 8, 3, 3) == 36 && hyt_probe_hot_calls(-1, 36, 0) == 108,
          "auto, four candidates and the probe: %ld", hyt_probe_hot_calls(-1, 36, 0));
    CHECK(hyt_probe_hot_calls(-1, hyt_probe_search_calls(1, 3, 3), 0) == HYT_HOT_MIN_CALLS &&
              hyt_probe_hot_calls(-1, hyt_probe_search_calls(2, 1, 1), 0) == HYT_HOT_MIN_CALLS,
          "auto, a warm start's one window or a choice of two 1-call windows: at least 16");
    CHECK(hyt_probe_hot_calls(-1, hyt_probe_search_calls(9, 5, 5), 0) == 135 &&
              hyt_probe_hot_calls(-1, hyt_probe_search_calls(9, 1, 1), 0) == 27,
          "auto follows HYTUNE_PROBE_CALLS");
    CHECK(hyt_probe_hot_calls(-1, 0, 0) == HYT_HOT_MIN_CALLS, "auto, nothing to time");
    /* windows spanning a rotating root's period (5 calls where the plain
     * ones take 3) are counted, up to HYT_SEARCH_MAX_CALLS or the plain
     * search's calls when those are more */
    CHECK(hyt_probe_search_calls(2 + 8, 5, 3) == HYT_SEARCH_MAX_CALLS &&
              hyt_probe_hot_calls(-1, hyt_probe_search_calls(10, 5, 3), 0) == 3 * 40,
          "periodic windows, two candidates: %ld calls", hyt_probe_search_calls(10, 5, 3));
    CHECK(hyt_probe_search_calls(1, 5, 3) == 5 && hyt_probe_search_calls(6, 4, 3) == 24 &&
              hyt_probe_search_calls(9, 9, 5) == 45 && hyt_probe_search_calls(9, 7, 5) == 45,
          "periodic windows under the cap, or above it when the plain search is longer: %ld %ld",
          hyt_probe_search_calls(6, 4, 3), hyt_probe_search_calls(9, 7, 5));
    /* a rooted key's barriers: before every call timed per call; loop-timed,
     * before a window's first call, unless the key's previous call closed
     * the previous window and this call follows it back to back (the
     * agreement's allreduce is the common start); a search of windows that
     * follow one another pays one barrier, its first */
    CHECK(hyt_probe_window_barrier(0, 0, 1, 9, 10) && hyt_probe_window_barrier(0, 1, 1, 9, 10),
          "timed per call: a barrier before every call");
    CHECK(!hyt_probe_window_barrier(1, 0, 0, 0, 10) && !hyt_probe_window_barrier(1, 0, 1, 9, 10),
          "loop-timed: no barrier inside a window");
    CHECK(hyt_probe_window_barrier(1, 1, 1, 0, 10) && hyt_probe_window_barrier(1, 1, 1, 8, 10) &&
              hyt_probe_window_barrier(1, 1, 0, 9, 10) && hyt_probe_window_barrier(1, 1, 1, 0, 1),
          "loop-timed: a barrier at a window's first call without an agreement just before "
          "(none yet, an earlier call's, another collective in between)");
    CHECK(!hyt_probe_window_barrier(1, 1, 1, 9, 10),
          "loop-timed: the agreement that closed the previous window starts the next");
    {
        int barriers = 0;
        unsigned long long agreed = 0;
        for (unsigned long long n = 21; n <= 20 + 8 * 5; n++) { /* 8 windows of 5 */
            barriers += hyt_probe_window_barrier(1, (n - 21) % 5 == 0, 1, agreed, n);
            if ((n - 20) % 5 == 0)
                agreed = n;
        }
        CHECK(barriers == 1, "8 windows back to back: %d barriers", barriers);
    }
    /* the radix probe's windows from the calls the search has left */
    CHECK(hyt_probe_window_budget(40, 5, 9) == 8 && hyt_probe_window_budget(100, 5, 9) == 9 &&
              hyt_probe_window_budget(3, 5, 9) == 1 && hyt_probe_window_budget(-7, 5, 9) == 1 &&
              hyt_probe_window_budget(27, 3, 9) == 9 && hyt_probe_window_budget(26, 3, 9) == 8,
          "window budget: %d %d %d", hyt_probe_window_budget(40, 5, 9),
          hyt_probe_window_budget(3, 5, 9), hyt_probe_window_budget(26, 3, 9));
    {
        /* the point of auto: the search (its calls at up to the slowest
         * candidate's time) starts only when the calls so far number at
         * least three times its calls: taking the elapsed fraction of the
         * key's life as uniform, it then finishes with probability >= 3/4
         * (n / (n + S)) and has S more calls to repay it with >= 3/5 */
        for (int w = 1; w <= 8 + 8; w++) {
            long s = hyt_probe_search_calls(w, 3, 3), n = hyt_probe_hot_calls(-1, s, 0);
            CHECK(n >= 3 * s && (n == HYT_HOT_MIN_CALLS || n == 3 * s) &&
                      (double)n / (double)(n + s) >= 0.75 && (double)n / (double)(n + 2 * s) >= 0.6,
                  "auto, %d windows: %ld", w, n);
        }
    }
    hyt_probe_t p;
    hyt_probe_start(&p, 999, 2, 16, MIN_GAIN, MAX_WINDOWS);
    CHECK(p.k_next == 16, "start clamps to k_max: %d", p.k_next);
    hyt_probe_start(&p, 0, 2, 16, MIN_GAIN, MAX_WINDOWS);
    CHECK(p.k_next == 2, "start clamps to k_min: %d", p.k_next);
    hyt_probe_start(&p, 8, 2, 64, MIN_GAIN, 1);
    hyt_probe_feed(&p, 1.0);
    CHECK(hyt_probe_settled(&p) && p.best_k == 8, "budget of one window verifies only");
}

int main(void)
{
    smooth_curves();
    rough_curves();
    bump_curve();
    hint_curve();
    far_hint_curves();
    round_hint_curves();
    settles_fast_when_best();
    noisy_curves();
    noise_guard();
    deterministic();
    helpers();
    return check_done("test_online_probe");
}
