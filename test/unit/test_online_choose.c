/* Unit test of the choice among a rule's shortlist (online/choose.c) as a
 * pure function of agreed window times: the measuring order (own choice,
 * then by prediction), ties and small wins keeping the incumbent, a window
 * noise that widens the guard, an unsupported candidate, every candidate
 * unsupported, early stop on predictions, a shortlist of one (no window),
 * and the composition with the radix probe (the winner's window is the
 * probe's start window; the whole search stays within the call budget);
 * for a rotating root, the rotation check of the references, and the
 * table's doubt that starts a key's search early from the candidate it
 * predicts fastest; the radix headroom (a challenger seen at its radix
 * probe's first step too, never skipped on a prediction at one radix that
 * headroom could beat); the set-up gate (a candidate that would make
 * communicators waits until the key's calls could have repaid them); the
 * incumbent's time of a reopened choice (the settled reference, or a
 * confirmed drift's two windows). */
#include "online/choose.h"
#include "online/probe.h"
#include "test/check.h"

#include <math.h>
#include <string.h>

#define GAIN 0.02
#define WINDOW 3      /* calls per window (HYTUNE_PROBE_CALLS default) */
#define MAX_WINDOWS 9 /* online.c's radix budget */

/* Run the choice against true times tt[] (< 0: unsupported); returns the
 * winner, the measured sequence in seq[] (its length in *nseq). */
static int run(hyt_choice_t *c, int n, const double *pred, const double *sd, const double *tt,
               int *seq, int *nseq)
{
    hyt_choice_start(c, n, pred, sd, GAIN);
    *nseq = 0;
    for (int j = c->next; j >= 0;) {
        seq[(*nseq)++] = j;
        j = tt[j] < 0 ? hyt_choice_unsupported(c) : hyt_choice_feed(c, tt[j], 0);
    }
    return c->best;
}

static void test_order_and_winner(void)
{
    hyt_choice_t c;
    int seq[8], ns;
    /* own choice first, then by prediction (unknown last) */
    double pred[4] = {10, 12, -1, 11}, sd[4] = {1, 3, -1, 3}, tt[4] = {10, 8, 9.5, 9};
    int w = run(&c, 4, pred, sd, tt, seq, &ns);
    CHECK(ns == 4 && seq[0] == 0 && seq[1] == 3 && seq[2] == 1 && seq[3] == 2,
          "order: %d %d %d %d (n %d)", seq[0], seq[1], seq[2], seq[3], ns);
    CHECK(w == 1 && c.best_t == 8, "winner %d", w);
    /* a tie, and a win below the guard, keep the incumbent */
    double tie[3] = {10, 10, 9.9};
    w = run(&c, 3, NULL, NULL, tie, seq, &ns);
    CHECK(w == 0 && ns == 3, "tie: winner %d after %d windows", w, ns);
    /* a later candidate must beat the best so far, not the incumbent */
    double chain[3] = {10, 9, 8.95};
    w = run(&c, 3, NULL, NULL, chain, seq, &ns);
    CHECK(w == 1, "chain: winner %d", w);
    /* a shortlist of one: chosen at once, no window */
    hyt_choice_start(&c, 1, NULL, NULL, GAIN);
    CHECK(hyt_choice_done(&c) && c.best == 0 && c.windows == 0, "shortlist of one");
}

static void test_noise(void)
{
    /* windows that scatter by 10%: a 5% win is noise, a 30% win is not */
    hyt_choice_t c;
    hyt_choice_start(&c, 3, NULL, NULL, GAIN);
    hyt_choice_feed(&c, 10, 0.10);
    hyt_choice_feed(&c, 9.5, 0.10);
    CHECK(c.best == 0 && c.guard >= 0.15 - 1e-12, "noisy 5%% win taken (guard %.3f)", c.guard);
    hyt_choice_feed(&c, 7, 0.10);
    CHECK(hyt_choice_done(&c) && c.best == 2, "30%% win not taken: best %d", c.best);
    /* noise-free: the 5% win counts */
    hyt_choice_start(&c, 2, NULL, NULL, GAIN);
    hyt_choice_feed(&c, 10, 0);
    hyt_choice_feed(&c, 9.5, 0);
    CHECK(c.best == 1, "noise-free 5%% win not taken");
}

static void test_unsupported(void)
{
    hyt_choice_t c;
    int seq[8], ns;
    /* the second candidate falls back: skipped, the third still measured */
    double tt[3] = {10, -1, 8};
    int w = run(&c, 3, NULL, NULL, tt, seq, &ns);
    CHECK(w == 2 && ns == 3 && c.status[1] == HYT_CAND_UNSUPPORTED, "unsupported middle: %d", w);
    /* the rule's own choice falls back: the next supported one is the incumbent */
    double t0[3] = {-1, 12, 11.9};
    w = run(&c, 3, NULL, NULL, t0, seq, &ns);
    CHECK(w == 1 && c.best_t == 12, "unsupported own choice: winner %d", w);
    /* none runs: no winner */
    double none[2] = {-1, -1};
    w = run(&c, 2, NULL, NULL, none, seq, &ns);
    CHECK(w == -1 && hyt_choice_done(&c), "all unsupported: winner %d", w);
}

static void test_early_stop(void)
{
    hyt_choice_t c;
    int seq[8], ns;
    /* the model reads 2x too high here (10 predicted, 5 measured); the
     * others are predicted 30% and 60% slower with tight deviations: they
     * cannot win even at the model's best ratio, and are not measured */
    double pred[3] = {10, 13, 16}, sd[3] = {0.5, 0.5, 0.5}, tt[3] = {5, 4, 3};
    int w = run(&c, 3, pred, sd, tt, seq, &ns);
    CHECK(ns == 1 && w == 0 && c.status[1] == HYT_CAND_SKIPPED &&
              c.status[2] == HYT_CAND_SKIPPED,
          "early stop: %d windows, winner %d", ns, w);
    /* a wide deviation keeps a candidate in the race */
    double sdw[3] = {0.5, 3, 0.5};
    w = run(&c, 3, pred, sdw, tt, seq, &ns);
    CHECK(ns == 2 && seq[1] == 1 && w == 1 && c.status[2] == HYT_CAND_SKIPPED,
          "wide deviation: %d windows, winner %d", ns, w);
    /* a candidate measured slower than predicted does not make the others
     * look hopeless: the lowest ratio is kept */
    double p2[3] = {10, 10.5, 10.8}, s2[3] = {1, 1, 1}, t2[3] = {10, 20, 9};
    w = run(&c, 3, p2, s2, t2, seq, &ns);
    CHECK(ns == 3 && w == 2, "lowest ratio: %d windows, winner %d", ns, w);
    /* without deviations, candidates predicted slower than the measured
     * incumbent by more than the guard are not measured */
    w = run(&c, 3, p2, NULL, t2, seq, &ns);
    CHECK(ns == 1 && w == 0, "no deviations: %d windows", ns);

    /* a tie the model is sure of (spread 0, the same prediction) is still
     * measured: under arrival skew the measured times share a large common
     * part (reduce 64 KiB, 64 ranks, linear arrival of 25 us: both predicted
     * 5.98 us, measured 27.26 / 26.69 us, 2.1% apart) */
    double p4[2] = {5.98, 5.98}, s4[2] = {1.24, 0}, t4[2] = {27.26, 26.69};
    w = run(&c, 2, p4, s4, t4, seq, &ns);
    CHECK(ns == 2 && w == 1, "sure tie measured: %d windows, winner %d", ns, w);
    /* one predicted clearly slower with spread 0 is still skipped */
    double p5[2] = {5.98, 6.5};
    w = run(&c, 2, p5, s4, t4, seq, &ns);
    CHECK(ns == 1 && w == 0 && c.status[1] == HYT_CAND_SKIPPED,
          "sure and slower skipped: %d windows", ns);

    /* unknown predictions are always measured */
    double p3[3] = {10, -1, 30}, t3[3] = {10, 9, 1};
    w = run(&c, 3, p3, sd, t3, seq, &ns);
    CHECK(ns == 2 && seq[1] == 1 && w == 1, "unknown prediction measured: %d windows", ns);
}

/* k-nomial-like curve of the winner: optimum at k = 8 */
static double curve(int k)
{
    return 4.0 + fabs(log2((double)k) - 3.0);
}

static void test_with_probe(void)
{
    hyt_choice_t c;
    int seq[8], ns;
    double tt[3] = {9, curve(2), 8.5}; /* candidate 1 (radix, start k 2) wins */
    int w = run(&c, 3, NULL, NULL, tt, seq, &ns);
    CHECK(w == 1, "winner %d", w);
    hyt_probe_t p;
    int k = hyt_choice_probe_start(&c, &p, 2, 2, 64, GAIN, MAX_WINDOWS, 0, 0);
    CHECK(p.windows == 1 && p.best_k == 2 && p.best_t == curve(2) && k != 2,
          "the winner's window is the probe's start: windows %d, next k %d", p.windows, k);
    while (!hyt_probe_settled(&p))
        k = hyt_probe_feed(&p, curve(k));
    CHECK(p.best_k == 8, "composed search settles at k %d", p.best_k);
    int calls = WINDOW * (ns + p.windows - 1);
    CHECK(calls <= 40, "calls spent choosing and probing: %d", calls);
}

/* The choice between two candidates of a rooted collective called back to
 * back with its root rotating (root = call mod rot), candidate j adding
 * inc[j * rot + root] to the loop per call.  A loop-timed window: after its
 * barrier the first call's end carries the pipeline's fill, then one
 * increment a call; consecutive windows start at consecutive calls, the
 * incumbent's at call `start`; windows of `len` calls timed as online.c
 * times them (period > 1: hyt_probe_window_periodic, else the median of
 * the increments).  With use_ref, the incumbent's time is its reference
 * over the whole rotation (its mean) and every other window is scaled by
 * it (hyt_probe_root_scale). */
static int window_choice(const double *inc, int rot, int start, int len, int period, int use_ref)
{
    double ref[64], mean = 0;
    for (int r = 0; r < rot; r++)
        mean += (ref[r] = inc[r]) / rot;
    hyt_choice_t c;
    hyt_choice_start(&c, 2, NULL, NULL, GAIN);
    for (int call = start; c.next >= 0; call += len) {
        double g[16], s;
        int roots[16];
        g[0] = 12.0; /* fill: one call's latency */
        for (int i = 1; i < len; i++) {
            roots[i] = (call + i) % rot;
            g[i] = g[i - 1] + inc[c.next * rot + roots[i]];
        }
        double t = period > 1 ? hyt_probe_window_periodic(g, len, 1, period, &s)
                              : hyt_probe_window_time(g, len, 1, &s);
        if (use_ref && c.next == 0)
            t = mean, s = 0;
        else if (use_ref)
            t *= hyt_probe_root_scale(ref, rot, mean, roots + 1, len - 1);
        hyt_choice_feed(&c, t, s);
    }
    return c.best;
}

/* 4 ranks a node: per-call times follow the root's place in its node.  One
 * period of each, measured on 64 ranks of dragonfly-64, Reduce 64 KiB:
 * k-nomial k=4 6.30 us a call on average, the composition 5.77 us, 1.93 us
 * of it when the root leads its node. */
static int rooted_choice(int start, int len, int period)
{
    static const double inc[2][4] = {{4.48, 7.63, 6.60, 6.49}, {1.93, 7.32, 6.52, 7.32}};
    return window_choice(&inc[0][0], 4, start, len, period, 0);
}

static void test_rooted_rotation(void)
{
    /* the period of the root's place: ppn / gcd(step, ppn) */
    CHECK(hyt_probe_root_period(1, 4) == 4 && hyt_probe_root_period(63, 4) == 4 &&
              hyt_probe_root_period(2, 4) == 2 && hyt_probe_root_period(4, 4) == 1 &&
              hyt_probe_root_period(0, 4) == 1 && hyt_probe_root_period(1, 1) == 1 &&
              hyt_probe_root_period(3, 6) == 2,
          "root periods");
    /* windows: whole periods measured, at least as many calls as the plain
     * one, at most twice its calls (else 0: the plain windows) */
    CHECK(hyt_probe_root_window(3, 4, 1) == 5 && hyt_probe_root_window(3, 4, 0) == 4 &&
              hyt_probe_root_window(3, 2, 1) == 3 && hyt_probe_root_window(3, 2, 0) == 4 &&
              hyt_probe_root_window(3, 1, 1) == 3 && hyt_probe_root_window(9, 4, 1) == 9 &&
              hyt_probe_root_window(1, 4, 1) == 0 && hyt_probe_root_window(3, 8, 1) == 0 &&
              hyt_probe_root_window(3, 6, 0) == 6 && hyt_probe_root_window(3, 7, 0) == 0 &&
              hyt_probe_root_window(5, 8, 1) == 9,
          "root windows: %d %d %d %d", hyt_probe_root_window(3, 4, 1),
          hyt_probe_root_window(3, 4, 0), hyt_probe_root_window(3, 2, 1),
          hyt_probe_root_window(3, 2, 0));
    /* their time: the mean past the fill, and a spread of 0 over one period */
    double g[] = {12.0, 13.93, 21.25, 27.77, 35.09}, s = -1;
    double t = hyt_probe_window_periodic(g, 5, 1, 4, &s);
    CHECK(fabs(t - 5.7725) < 1e-9 && s == 0, "periodic window %g spread %g", t, s);
    /* more fill calls: the increments after them (a window that lets the
     * pipeline run a period before it measures) */
    double f[] = {10.0, 20.0, 21.0, 23.0, 26.0, 30.0};
    double tf = hyt_probe_window_periodic(f, 6, 2, 4, NULL);
    CHECK(fabs(tf - 2.5) < 1e-9 && hyt_probe_root_window(3, 4, 2) == 6 &&
              hyt_probe_root_window(3, 4, 4) == 8 && hyt_probe_root_window(3, 8, 4) == 0,
          "fill 2: %g, windows %d %d", tf, hyt_probe_root_window(3, 4, 2),
          hyt_probe_root_window(3, 4, 4));
    /* two periods: each call against the mean of its place */
    double h[] = {2.0, 7.0, 2.2, 7.4}, s2 = -1;
    double t2 = hyt_probe_window_periodic(h, 4, 0, 2, &s2);
    CHECK(fabs(t2 - 4.65) < 1e-9 && fabs(s2 - 0.15 / 4.65) < 1e-9, "two periods %g spread %g",
          t2, s2);
    /* the composition, 8% faster over the loop, wins wherever the windows
     * start when they span a period */
    for (int start = 0; start < 4; start++)
        CHECK(rooted_choice(start, hyt_probe_root_window(3, 4, 1), 4) == 1,
              "rooted loop, whole-period windows from call %d: winner %d", start,
              rooted_choice(start, hyt_probe_root_window(3, 4, 1), 4));
    /* the plain 3-call windows see two places of the root: the choice follows them */
    int wrong = 0;
    for (int start = 0; start < 4; start++)
        wrong += rooted_choice(start, 3, 1) != 1;
    CHECK(wrong > 0, "rooted loop, 3-call windows: always right (%d wrong)", wrong);
}


/* Per root (root = call mod 64), the increment a call adds to a Reduce of
 * 64 KiB called back to back on 64 ranks of fattree-64 (16 nodes x 4),
 * measured in a steady loop, microseconds: k-nomial k=4 (16.30 us a call
 * over the rotation) and the composition k=4 (14.24).  Both depend on the
 * root's node far more than on its place in the node. */
static const double ft_inc[2][64] = {
    {15.10, 17.13, 14.65, 14.50, 12.13, 17.25, 16.48, 16.78, 13.67, 17.32, 15.71, 16.31, 14.55,
     15.59, 16.39, 16.49, 13.04, 17.11, 17.23, 17.12, 14.03, 17.21, 17.21, 17.12, 15.65, 18.83,
     18.83, 17.12, 20.50, 21.55, 20.44, 17.12, 15.10, 16.22, 14.65, 14.50, 11.41, 14.63, 14.63,
     14.50, 12.93, 17.28, 16.14, 16.77, 14.31, 15.61, 16.84, 16.49, 13.92, 17.13, 17.23, 17.12,
     13.13, 17.21, 17.21, 17.12, 15.65, 18.83, 18.83, 17.12, 20.50, 21.55, 20.44, 17.12},
    {12.42, 11.95, 11.95, 11.95, 12.49, 13.57, 13.57, 13.57, 13.34, 13.91, 13.57, 13.57, 12.04,
     15.57, 15.04, 15.04, 10.42, 13.57, 13.57, 13.57, 13.50, 14.57, 14.57, 14.57, 13.50, 17.19,
     17.19, 17.19, 13.50, 19.82, 19.82, 19.82, 11.34, 11.95, 11.95, 11.95, 10.41, 11.41, 11.95,
     11.95, 13.57, 13.06, 13.57, 13.57, 12.57, 15.04, 15.04, 15.04, 10.95, 14.04, 13.57, 13.57,
     13.03, 14.04, 14.57, 14.57, 14.04, 16.66, 17.19, 17.19, 14.04, 19.28, 19.82, 19.82}};

/* The choice between them (k-nomial the incumbent) in that loop, with
 * windows of 5 calls (one fill, one period of the root's place); the
 * incumbent's window ends at call `start` - 1.  With a reference, its time
 * is its reference over the rotation (its last 65 calls before the key
 * turns hot); without, both read their own 4 roots. */
static int ft_choice(int start, int use_ref)
{
    return window_choice(&ft_inc[0][0], 64, start - 5, 5, 4, use_ref);
}

static void test_rooted_reference(void)
{
    /* calls until the root comes back: p / gcd(step, p) */
    CHECK(hyt_probe_root_rotation(1, 64) == 64 && hyt_probe_root_rotation(63, 64) == 64 &&
              hyt_probe_root_rotation(2, 64) == 32 && hyt_probe_root_rotation(48, 64) == 4 &&
              hyt_probe_root_rotation(64, 64) == 1 && hyt_probe_root_rotation(0, 64) == 1 &&
              hyt_probe_root_rotation(4, 6) == 3 && hyt_probe_root_rotation(1, 1) == 1,
          "root rotations");
    /* the scale: the reference's mean over its mean on the window's roots;
     * 1 without a reference, or with a root it did not see */
    double ref[4] = {1.0, 3.0, -1, 2.0};
    int both[2] = {0, 1}, unseen[2] = {1, 2}, out[1] = {4};
    CHECK(fabs(hyt_probe_root_scale(ref, 4, 2.0, both, 2) - 1.0) < 1e-12 &&
              fabs(hyt_probe_root_scale(ref, 4, 2.0, both + 1, 1) - 2.0 / 3) < 1e-12 &&
              hyt_probe_root_scale(ref, 4, 2.0, unseen, 2) == 1 &&
              hyt_probe_root_scale(ref, 4, 2.0, out, 1) == 1 &&
              hyt_probe_root_scale(NULL, 4, 2.0, both, 2) == 1 &&
              hyt_probe_root_scale(ref, 4, 0, both, 2) == 1,
          "root scale");
    /* the fattree loop: one node's roots per window, the raw windows choose
     * by where they start; scaled by the incumbent's reference the
     * composition (12.6% faster over the rotation) wins from every start */
    int raw_wrong = 0, ref_wrong = 0;
    for (int start = 64; start < 128; start++) {
        raw_wrong += ft_choice(start, 0) != 1;
        ref_wrong += ft_choice(start, 1) != 1;
    }
    CHECK(raw_wrong > 0 && ref_wrong == 0,
          "fattree rotating root: %d of 64 starts wrong on raw windows, %d with the reference",
          raw_wrong, ref_wrong);
}

/* A deterministic uniform draw in [-1, 1) (LCG). */
static double draw(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1;
}

/* The fattree loop above under arrival noise: each call's increment off by
 * up to +-noise us at random (the loop with each rank late by a random
 * delay before every call).  The incumbent is the composition (12.6%
 * faster over the rotation), k-nomial the other candidate; the incumbent's
 * time is its noisy reference, k-nomial's window one period of its own
 * noisy calls scaled by that reference on its roots.  Returns the winner of
 * the windows (*final: after the rotation check, k-nomial's own reference
 * against the incumbent's). */
static int noisy_choice(unsigned seed, double noise, int start, int *final)
{
    double ref[2][64], mean[2] = {0, 0};
    for (int j = 0; j < 2; j++)
        for (int r = 0; r < 64; r++)
            mean[j] += (ref[j][r] = ft_inc[1 - j][r] + noise * draw(&seed)) / 64;
    hyt_choice_t c;
    hyt_choice_start(&c, 2, NULL, NULL, GAIN);
    hyt_choice_feed(&c, mean[0], 0); /* the incumbent's reference */
    double g[5], s;
    int roots[5];
    g[0] = 12.0;
    for (int i = 1; i < 5; i++) {
        roots[i] = (start + i) % 64;
        g[i] = g[i - 1] + ft_inc[0][roots[i]] + noise * draw(&seed);
    }
    double t = hyt_probe_window_periodic(g, 5, 1, 4, &s) *
               hyt_probe_root_scale(ref[0], 64, mean[0], roots + 1, 4);
    hyt_choice_feed(&c, t, s);
    *final = c.best == 1 && !hyt_choice_rotation_back(mean[1], mean[0], GAIN) ? 1 : 0;
    return c.best;
}

static void test_rotation_check(void)
{
    /* back to an earlier reference only when it is faster by the guard */
    CHECK(hyt_choice_rotation_back(1.0, 0.97, GAIN) &&
              !hyt_choice_rotation_back(1.0, 0.99, GAIN) &&
              !hyt_choice_rotation_back(1.0, 1.0, GAIN) &&
              !hyt_choice_rotation_back(1.0, 1.2, GAIN) &&
              !hyt_choice_rotation_back(1.0, -1, GAIN) && !hyt_choice_rotation_back(-1, 1.0, GAIN),
          "rotation back");
    /* windows of one period under +-6 us of arrival noise a call (one
     * window's spread reads 0, so the guard stays at its floor) choose the
     * slower k-nomial from some starts; the references over the whole
     * rotation never keep it */
    int win_wrong = 0, final_wrong = 0;
    for (unsigned seed = 1; seed <= 256; seed++) {
        int final;
        win_wrong += noisy_choice(seed, 6.0, (int)(seed * 7) % 64, &final) != 0;
        final_wrong += final != 0;
    }
    CHECK(win_wrong > 0 && final_wrong == 0,
          "noisy rotation: %d of 256 choices wrong on windows, %d after the rotation check",
          win_wrong, final_wrong);
    /* without noise the windows are right already and the check agrees */
    int final;
    CHECK(noisy_choice(1, 0, 10, &final) == 0 && final == 0, "quiet rotation");
}

/* A reference under arrival noise (dragonfly-64 Bcast 64 KiB, random
 * arrival of up to 25 us: each root's increment one noisy call).  The
 * incumbent runs at 26 us a call on every root but the one leading its
 * node (22 us), the challenger 8% faster on each; each call is off by up
 * to +-noise us.  The incumbent's reference spans the rotation (64 roots)
 * once, or twice when shrink is set: then the noise of a call comes from
 * the roots' two calls and the profile is shrunk by it
 * (hyt_probe_root_shrink).  The challenger's window (one fill, one period
 * of 4 roots from call start) is scaled by the reference; returns the
 * winner. */
static int shrunk_choice(unsigned seed, double noise, int start, int shrink)
{
    double ref[64], mean = 0, dd = 0;
    for (int r = 0; r < 64; r++) {
        double base = r % 4 ? 26.0 : 22.0;
        ref[r] = base + noise * draw(&seed);
        if (shrink) {
            double again = base + noise * draw(&seed);
            dd += (again - ref[r]) * (again - ref[r]);
            ref[r] = 0.5 * (ref[r] + again);
        }
        mean += ref[r] / 64;
    }
    if (shrink)
        hyt_probe_root_shrink(ref, 64, dd / (2.0 * 64), 2);
    hyt_choice_t c;
    hyt_choice_start(&c, 2, NULL, NULL, GAIN);
    hyt_choice_feed(&c, mean, 0);
    double g[5], s;
    int roots[5];
    g[0] = 30.0;
    for (int i = 1; i < 5; i++) {
        roots[i] = (start + i) % 64;
        g[i] = g[i - 1] + 0.92 * (roots[i] % 4 ? 26.0 : 22.0) + noise * draw(&seed);
    }
    double t = hyt_probe_window_periodic(g, 5, 1, 4, &s) *
               hyt_probe_root_scale(ref, 64, mean, roots + 1, 4);
    hyt_choice_feed(&c, t, s);
    return c.best;
}

static void test_root_shrink(void)
{
    /* no noise: the profile is kept (a quiet rotation repeats exactly) */
    double q[4] = {1.0, 3.0, -1, 2.0};
    CHECK(hyt_probe_root_shrink(q, 4, 0, 2) == 1 && q[0] == 1.0 && q[1] == 3.0 && q[2] == -1 &&
              q[3] == 2.0,
          "quiet profile kept: %g %g %g %g", q[0], q[1], q[2], q[3]);
    /* deviations -1, 1, 0 from the mean 2 (variance 1), a call's noise
     * variance 1 over 2 calls a root: half of the spread is the roots' */
    double lam = hyt_probe_root_shrink(q, 4, 1.0, 2);
    CHECK(fabs(lam - 0.5) < 1e-12 && fabs(q[0] - 1.5) < 1e-12 && fabs(q[1] - 2.5) < 1e-12 &&
              q[2] == -1 && fabs(q[3] - 2.0) < 1e-12,
          "shrunk profile: lambda %g, %g %g %g %g", lam, q[0], q[1], q[2], q[3]);
    /* noise larger than the spread: every seen root at the mean */
    double z[3] = {1.0, 3.0, 2.0};
    CHECK(hyt_probe_root_shrink(z, 3, 4.0, 1) == 0 && z[0] == 2.0 && z[1] == 2.0 && z[2] == 2.0,
          "all noise: %g %g %g", z[0], z[1], z[2]);
    double one[2] = {1.0, -1};
    CHECK(hyt_probe_root_shrink(one, 2, 1.0, 1) == 1 && one[0] == 1.0, "one root seen");
    /* the challenger is 8% faster; under +-4 us of noise a call the
     * windows scaled by a one-draw-per-root reference choose it less often
     * than those scaled by the shrunk profile of a twice-spanned one (413
     * and 454 of 512 draws) */
    int raw_right = 0, shrunk_right = 0;
    for (unsigned seed = 1; seed <= 512; seed++) {
        raw_right += shrunk_choice(seed, 4.0, (int)(seed * 7) % 64, 0) == 1;
        shrunk_right += shrunk_choice(seed, 4.0, (int)(seed * 7) % 64, 1) == 1;
    }
    CHECK(shrunk_right > raw_right + 20,
          "noisy reference: the challenger chosen in %d of 512 draws scaled by the raw "
          "profile, %d by the shrunk one", raw_right, shrunk_right);
    /* without noise both choose it */
    CHECK(shrunk_choice(1, 0, 10, 0) == 1 && shrunk_choice(1, 0, 10, 1) == 1, "quiet choice");
}

/* The table doubts its rule's choice when another candidate is predicted
 * faster by more than the guard. */
static void test_doubted(void)
{
    double native_first[4] = {49.2, 33.2, 38.8, 40.0}, tie[2] = {5.98, 6.17},
           close[2] = {10, 9.9}, unknown[3] = {-1, 1, 2}, later[3] = {10, -1, 9.5};
    CHECK(hyt_choice_doubted(4, native_first, GAIN) && !hyt_choice_doubted(2, tie, GAIN) &&
              !hyt_choice_doubted(2, close, GAIN) && !hyt_choice_doubted(3, unknown, GAIN) &&
              hyt_choice_doubted(3, later, GAIN) && !hyt_choice_doubted(1, native_first, GAIN) &&
              !hyt_choice_doubted(4, NULL, GAIN),
          "doubted");
    /* the incumbent: the rule's own unless doubted, else the fastest
     * predicted (the first of equal ones; unknown predictions never) */
    double twice[4] = {49.2, 38.8, 33.2, 33.2};
    CHECK(hyt_choice_incumbent(4, native_first, GAIN) == 1 &&
              hyt_choice_incumbent(4, twice, GAIN) == 2 &&
              hyt_choice_incumbent(3, later, GAIN) == 2 &&
              hyt_choice_incumbent(2, tie, GAIN) == 0 && hyt_choice_incumbent(2, close, GAIN) == 0 &&
              hyt_choice_incumbent(3, unknown, GAIN) == 0 &&
              hyt_choice_incumbent(1, native_first, GAIN) == 0 &&
              hyt_choice_incumbent(4, NULL, GAIN) == 0,
          "incumbent: %d %d %d", hyt_choice_incumbent(4, native_first, GAIN),
          hyt_choice_incumbent(4, twice, GAIN), hyt_choice_incumbent(3, later, GAIN));
    /* the same windows, two incumbents: on the dragonfly-64 Bcast 64 KiB
     * loop under random arrival (the table's rule native, the statistics'
     * windows in us) k-nomial's is 1.1% faster than native's, within the
     * guard: from native the tie keeps native, while from recmult:8, the
     * fastest predicted, k-nomial wins by the guard and native does not
     * beat it (over the loop, fixed: native 28.13, knomial:4 25.92) */
    double rnd_t[4] = {28.18, 28.60, 27.87, 32.18}, sd4[4] = {18.0, 9.7, 10.0, 15.8};
    int inc = hyt_choice_incumbent(4, native_first, GAIN), seq[8], nseq;
    double p2[4], s2[4], t2[4];
    int map[4];
    for (int i = 0, j = 1; i < 4; i++) {
        int c = i == inc ? 0 : j++;
        map[c] = i;
        p2[c] = native_first[i];
        s2[c] = sd4[i];
        t2[c] = rnd_t[i];
    }
    hyt_choice_t c;
    int w = run(&c, 4, p2, s2, t2, seq, &nseq);
    CHECK(w >= 0 && map[w] == 2 && nseq == 4 && map[seq[0]] == 1 && map[seq[3]] == 0,
          "doubted choice: winner %d after %d windows", w >= 0 ? map[w] : -1, nseq);
    w = run(&c, 4, native_first, sd4, rnd_t, seq, &nseq);
    CHECK(w == 0, "undoubted order keeps native: %d", w);
    /* a doubted key turns hot at the minimum with auto; a number stays */
    CHECK(hyt_probe_hot_calls(-1, 40, 1) == HYT_HOT_MIN_CALLS &&
              hyt_probe_hot_calls(-1, 40, 0) == 120 && hyt_probe_hot_calls(90, 40, 1) == 90,
          "doubted hot calls");
}

/* Radix headroom (hyt_choice_steps): a family is not judged at one radix
 * alone.  The fattree-64 Reduce 64 KiB loop (a rotating root, 16 x 4; the
 * table's rule knomial:4 predicted 5.98 us, spread 1.62, its shortlist
 * composition:2 predicted 6.17, spread 0; over the 1000-call loop fixed:
 * knomial:4 16.60, composition:2 17.62, composition:4 14.51 us a call). */
static void test_headroom(void)
{
    /* the radix a probe takes first: doubling, halving at k_max, a far
     * hint; none with one radix in range */
    CHECK(hyt_choice_first_step(2, 2, 8, 0, 0) == 4 && hyt_choice_first_step(8, 2, 8, 0, 0) == 4 &&
              hyt_choice_first_step(4, 2, 8, 2, 0) == 8 &&
              hyt_choice_first_step(2, 2, 64, 16, 0) == 16 &&
              hyt_choice_first_step(4, 4, 4, 0, 0) == 0 && hyt_choice_first_step(0, 0, 0, 0, 0) == 0,
          "first steps: %d %d %d %d %d", hyt_choice_first_step(2, 2, 8, 0, 0),
          hyt_choice_first_step(8, 2, 8, 0, 0), hyt_choice_first_step(4, 2, 8, 2, 0),
          hyt_choice_first_step(2, 2, 64, 16, 0), hyt_choice_first_step(4, 4, 4, 0, 0));
    double pred[2] = {5.98, 6.169}, sd[2] = {1.62, 0};
    int step[2] = {8, 4};
    hyt_choice_t c;
    /* without the headroom the prediction skips the composition */
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_feed(&c, 16.60, 0);
    CHECK(hyt_choice_done(&c) && c.best == 0 && c.status[1] == HYT_CAND_SKIPPED,
          "no headroom: composition %d", (int)c.status[1]);
    /* with it, the composition is measured at k 2, loses by 6%, is
     * measured at its step, k 4, and wins there; the incumbent's own step
     * is left to its radix probe */
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_steps(&c, step);
    int j = hyt_choice_feed(&c, 16.60, 0);
    CHECK(j == 1 && !c.stepping, "composition measured at its k: next %d stepping %d", j,
          c.stepping);
    j = hyt_choice_feed(&c, 17.62, 0);
    CHECK(j == 1 && c.stepping && c.best == 0, "composition at its step: next %d stepping %d", j,
          c.stepping);
    j = hyt_choice_feed(&c, 14.51, 0);
    CHECK(j == -1 && c.best == 1 && c.stepped[1] && c.best_t == 14.51 && c.t[1] == 17.62 &&
              hyt_choice_radix(&c, 1, 2) == 4 && hyt_choice_radix(&c, 0, 4) == 4 && c.windows == 3,
          "the step wins: best %d at k %d (%g us), %d windows", c.best, hyt_choice_radix(&c, 1, 2),
          c.best_t, c.windows);
    /* its radix probe starts at k 4 from that window: next k 8 */
    hyt_probe_t p;
    int k = hyt_choice_probe_start(&c, &p, hyt_choice_radix(&c, 1, 2), 2, 8, GAIN, MAX_WINDOWS, 0, 0);
    CHECK(k == 8 && p.best_k == 4 && p.windows == 1, "probe after the step: next %d", k);
    /* a step that does not win by the guard leaves the candidate at its k */
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_feed(&c, 16.60, 0);
    hyt_choice_feed(&c, 16.00, 0);
    j = hyt_choice_feed(&c, 15.90, 0);
    CHECK(j == -1 && c.best == 1 && !c.stepped[1] && c.best_t == 16.00 &&
              hyt_choice_radix(&c, 1, 2) == 2,
          "a tied step: best %d stepped %d", c.best, c.stepped[1]);
    /* a challenger beyond the headroom gets no step window */
    hyt_choice_start(&c, 2, NULL, NULL, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_feed(&c, 10, 0);
    j = hyt_choice_feed(&c, 15.5, 0);
    CHECK(j == -1 && c.best == 0 && c.windows == 2, "beyond the headroom: next %d", j);
    /* a step whose calls fell back to PMPI: the candidate stands at its k */
    hyt_choice_start(&c, 2, NULL, NULL, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_feed(&c, 10, 0);
    hyt_choice_feed(&c, 9, 0);
    j = hyt_choice_unsupported(&c);
    CHECK(j == -1 && c.best == 1 && !c.stepped[1] && c.status[1] == HYT_CAND_MEASURED,
          "unsupported step: best %d status %d", c.best, (int)c.status[1]);
    /* the headroom does not keep a candidate predicted far slower: 2x the
     * incumbent is skipped with or without a step, 1.1x only without */
    double far[2] = {10, 20}, near[2] = {10, 11}, sd0[2] = {0, 0};
    hyt_choice_start(&c, 2, far, sd0, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_feed(&c, 10, 0);
    CHECK(hyt_choice_done(&c) && c.status[1] == HYT_CAND_SKIPPED, "far prediction measured");
    hyt_choice_start(&c, 2, near, sd0, GAIN);
    hyt_choice_steps(&c, step);
    j = hyt_choice_feed(&c, 10, 0);
    CHECK(j == 1, "near prediction with headroom skipped");
    hyt_choice_start(&c, 2, near, sd0, GAIN);
    hyt_choice_feed(&c, 10, 0);
    CHECK(hyt_choice_done(&c) && c.status[1] == HYT_CAND_SKIPPED,
          "near prediction without a radix measured");
}

/* The set-up gate, on dragonfly-256 Bcast 2 KiB back to back (64 x 4, the
 * 16 x 4 dragonfly table): the rule's knomial:8 predicted 3.9165 us
 * (spread 0.113), its shortlist's composition:4 4.061 (0.113); the
 * incumbent's window 1.49 us a call; the table prices a communicator at
 * 1.2613 x ranks - 3.5657 us, so the node (4 ranks) and leader (64)
 * communicators at 78.63 us.  The optimistic gain is 1.49 x (3.9165 -
 * (4.061 - 2 x 0.113)) / 3.9165 = 0.0310 us a call: the rent reaches the
 * price after 2536 calls, 100 x the price after 5277 calls of 1.49 us. */
static void test_setup_gate(void)
{
    double pred[2] = {3.9165, 4.061}, sd[2] = {0.113, 0.113};
    double setup[2] = {0, 78.63e-6}, t0 = 1.49e-6;
    int step[2] = {4, 8};
    hyt_choice_t c;
    /* at the key's hot call (260) the composition is not measured */
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_setup(&c, setup, 100);
    c.calls = 260;
    int j = hyt_choice_feed(&c, t0, 0);
    double gain = hyt_choice_gain(&c, 1), when = hyt_choice_setup_calls(&c, 1);
    CHECK(j == -1 && c.best == 0 && c.windows == 1 && c.status[1] == HYT_CAND_SETUP,
          "gated at 260 calls: next %d status %d", j, (int)c.status[1]);
    CHECK(fabs(gain - 3.10e-8) < 0.01e-8 && fabs(when - 100 * 78.63 / 1.49) < 1 &&
              !hyt_choice_setup_repaid(&c, 1, 5000) && hyt_choice_setup_repaid(&c, 1, 5300),
          "gain %g us, open from call %g", gain * 1e6, when);
    /* without the 1%-of-the-key's-time bound the rent alone opens it at
     * 78.63 / 0.0310 = 2536 calls */
    hyt_choice_setup(&c, setup, 0);
    when = hyt_choice_setup_calls(&c, 1);
    CHECK(fabs(when - 78.63e-6 / gain) < 1e-6 && fabs(when - 2536) < 2, "rent alone: %g", when);
    /* a key that has seen enough calls measures it, at its step too */
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_setup(&c, setup, 100);
    c.calls = 5300;
    j = hyt_choice_feed(&c, t0, 0);
    CHECK(j == 1 && c.status[1] == HYT_CAND_PENDING, "repaid: next %d", j);
    /* no price (a table without set-up fields, or the communicators made
     * already): measured at once, as without the gate */
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_steps(&c, step);
    hyt_choice_setup(&c, NULL, 100);
    c.calls = 260;
    CHECK(hyt_choice_feed(&c, t0, 0) == 1 && hyt_choice_setup_calls(&c, 1) == 0, "no price");
    /* an unpriced gain (no prediction) is measured */
    hyt_choice_start(&c, 2, (const double[]){3.9165, -1}, NULL, GAIN);
    hyt_choice_setup(&c, setup, 100);
    c.calls = 260;
    CHECK(hyt_choice_feed(&c, t0, 0) == 1 && hyt_choice_gain(&c, 1) < 0, "unpriced measured");
    /* the rent binds when the optimistic gain is under 1% of a call:
     * predicted 3.8% slower with spread 0, the guard's 2% makes its
     * optimistic time 99.65% of the incumbent's */
    double p2[2] = {10, 10.38}, s2[2] = {0, 0}, set2[2] = {0, 1};
    hyt_choice_start(&c, 2, p2, s2, GAIN);
    hyt_choice_steps(&c, (const int[]){0, 4});
    hyt_choice_setup(&c, set2, 100);
    c.calls = 20;
    j = hyt_choice_feed(&c, 10, 0);
    gain = hyt_choice_gain(&c, 1);
    when = hyt_choice_setup_calls(&c, 1);
    CHECK(j == -1 && c.status[1] == HYT_CAND_SETUP && fabs(gain - 0.0352) < 1e-9 &&
              fabs(when - 1 / 0.0352) < 1e-6,
          "rent binds: gain %g, from call %g", gain, when);
    /* one that only its radix headroom keeps in the race gains nothing at
     * its table radix: it never repays a set-up */
    double p3[2] = {10, 12};
    hyt_choice_start(&c, 2, p3, s2, GAIN);
    hyt_choice_steps(&c, (const int[]){0, 4});
    hyt_choice_setup(&c, set2, 100);
    c.calls = 1e9;
    j = hyt_choice_feed(&c, 10, 0);
    CHECK(j == -1 && c.status[1] == HYT_CAND_SETUP && hyt_choice_gain(&c, 1) == 0 &&
              isinf(hyt_choice_setup_calls(&c, 1)),
          "gains nothing: status %d", (int)c.status[1]);
    /* the prediction skips first (its status says so) */
    double p4[2] = {10, 20}, set4[2] = {0, 1};
    hyt_choice_start(&c, 2, p4, s2, GAIN);
    hyt_choice_setup(&c, set4, 100);
    c.calls = 1;
    j = hyt_choice_feed(&c, 10, 0);
    CHECK(j == -1 && c.status[1] == HYT_CAND_SKIPPED, "skip first: status %d", (int)c.status[1]);
    /* a gated candidate does not stop the next one: at 50 calls of 10 the
     * second's price of 10 is short of 100 x 10 */
    double p5[3] = {10, 10.1, 10.2}, s5[3] = {0, 0.5, 0.5}, set5[3] = {0, 10, 0};
    hyt_choice_start(&c, 3, p5, s5, GAIN);
    hyt_choice_setup(&c, set5, 100);
    c.calls = 50;
    j = hyt_choice_feed(&c, 10, 0);
    CHECK(j == 2 && c.status[1] == HYT_CAND_SETUP && hyt_choice_setup_calls(&c, 1) == 100,
          "next after a gated one: %d", j);
    j = hyt_choice_feed(&c, 9, 0);
    CHECK(j == -1 && c.best == 2, "the third wins: %d", c.best);
}

/* A reopened choice's incumbent time (hyt_choice_reopen_time), and what it
 * decides: the dragonfly-64 Reduce 64 KiB loop's numbers (k-nomial k 7
 * settled on its reference of 6.48 us, a passing drift window of 6.03;
 * composition:2 7.19 us, at its step, k 4, 6.09). */
static void test_reopen_time(void)
{
    CHECK(hyt_choice_reopen_time(6.48, 6.03, -1) == 6.48, "set-up reopening: the reference: %g",
          hyt_choice_reopen_time(6.48, 6.03, -1));
    CHECK(hyt_choice_reopen_time(-1, 6.03, -1) == 6.03 && hyt_choice_reopen_time(0, 6.03, 0) == 6.03,
          "no reference: the window");
    CHECK(hyt_choice_reopen_time(6.48, 10, 8) == 9 && hyt_choice_reopen_time(-1, 10, 8) == 9,
          "confirmed drift: the mean of its two windows (the level is stale): %g",
          hyt_choice_reopen_time(6.48, 10, 8));
    /* the choice with each incumbent time: the challenger at its step (k 4)
     * beats the reference by more than the guard, not the low window */
    double pred[2] = {5.98, 6.17}, sd[2] = {1.62, 0};
    int step[2] = {8, 4};
    for (int ref = 0; ref < 2; ref++) {
        hyt_choice_t c;
        hyt_choice_start(&c, 2, pred, sd, GAIN);
        hyt_choice_steps(&c, step);
        int j = hyt_choice_feed(&c, hyt_choice_reopen_time(ref ? 6.48 : -1, 6.03, -1), 0);
        CHECK(j == 1, "the composition is measured: %d", j);
        j = hyt_choice_feed(&c, 7.19, 0);
        CHECK(j == 1 && c.stepping, "and at its step: %d", j);
        j = hyt_choice_feed(&c, 6.09, 0);
        CHECK(j == -1 && c.best == (ref ? 1 : 0) && c.stepped[1] &&
                  hyt_choice_radix(&c, c.best, 7) == (ref ? 4 : 7),
              "against %s: winner %d", ref ? "the reference 6.48" : "the window 6.03", c.best);
    }
    /* a challenger within the guard of the reference keeps the incumbent */
    hyt_choice_t c;
    hyt_choice_start(&c, 2, pred, sd, GAIN);
    hyt_choice_feed(&c, hyt_choice_reopen_time(6.48, 6.03, -1), 0);
    hyt_choice_feed(&c, 6.40, 0);
    CHECK(c.best == 0, "a tie with the reference keeps the incumbent: %d", c.best);
}

/* The radix probe's windows on a noisy key (hyt_probe_noise_window,
 * hyt_probe_noise_extend): whole periods until the mean's standard error is
 * within the guard, capped at a reference's calls, paid only by a window
 * that loses to the best by less than one standard error; with them a radix 4.7% faster
 * than the reference (dragonfly-64 Bcast 1 MiB under random arrival: kring
 * k 8 about 52.6 us a call against k 4's reference 55.2, a call's noise
 * 8.7% of its mean) wins by the 2% guard far more often than on one
 * period's calls, while a clear loser is rarely extended. */
static unsigned long long nw_rng = 88172645463325252ULL;
static double nw_urand(void)
{
    nw_rng ^= nw_rng << 13;
    nw_rng ^= nw_rng >> 7;
    nw_rng ^= nw_rng << 17;
    return (double)(nw_rng >> 11) / 9007199254740992.0;
}

/* The mean of n calls of a radix at true time t, each off by uniform noise
 * of relative standard deviation sd. */
static double nw_mean(int n, double t, double sd)
{
    double sum = 0, half = sd * sqrt(3.0); /* uniform on [-half, half]: deviation sd */
    for (int c = 0; c < n; c++)
        sum += t * (1 + half * (2 * nw_urand() - 1));
    return sum / n;
}

/* Of trials windows (measured calls, extended as online.c does to want
 * when within the noise of ref) of a radix at true time t: how many beat
 * ref by the guard; *ext: how many were extended. */
static int noisy_wins(int measured, int want, double t, double sd, double ref, int trials,
                      int *ext)
{
    int wins = 0;
    *ext = 0;
    for (int i = 0; i < trials; i++) {
        double m = nw_mean(measured, t, sd);
        if (hyt_probe_noise_extend(m, ref, sd, GAIN, measured, want)) {
            m = (m * measured + nw_mean(want - measured, t, sd) * (want - measured)) / want;
            ++*ext;
        }
        wins += m < ref * (1 - GAIN);
    }
    return wins;
}

static void test_noise_window(void)
{
    /* 5-call windows (a fill call and one period of 4): 8.7% needs
     * (0.087 / 0.02)^2 = 18.9 calls, five periods: 21 calls */
    CHECK(hyt_probe_noise_window(5, 4, 1, 0.087, GAIN, 65) == 21, "noise 8.7%%: %d calls",
          hyt_probe_noise_window(5, 4, 1, 0.087, GAIN, 65));
    /* quiet (1.1%: Reduce 64 KiB's reference) or no noise: the window as is */
    CHECK(hyt_probe_noise_window(5, 4, 1, 0.011, GAIN, 65) == 5 &&
              hyt_probe_noise_window(5, 4, 1, 0, GAIN, 65) == 5 &&
              hyt_probe_noise_window(5, 4, 1, 0.087, 0, 65) == 5,
          "quiet keys keep their windows");
    /* exactly at the guard: 4 calls of 4% noise are enough (no longer window) */
    CHECK(hyt_probe_noise_window(5, 4, 1, 0.04, GAIN, 65) == 5, "4%% noise, 4 calls: %d",
          hyt_probe_noise_window(5, 4, 1, 0.04, GAIN, 65));
    /* very noisy: the cap (a reference of 65 calls: one fill, 16 periods),
     * or the whole periods that fit under it */
    CHECK(hyt_probe_noise_window(5, 4, 1, 0.3, GAIN, 65) == 65 &&
              hyt_probe_noise_window(5, 4, 1, 0.3, GAIN, 63) == 61,
          "cap: %d %d", hyt_probe_noise_window(5, 4, 1, 0.3, GAIN, 65),
          hyt_probe_noise_window(5, 4, 1, 0.3, GAIN, 63));
    /* a cap below the window keeps the window; no period: calls one by one */
    CHECK(hyt_probe_noise_window(5, 4, 1, 0.3, GAIN, 3) == 5 &&
              hyt_probe_noise_window(3, 1, 0, 0.05, GAIN, 65) == 7 &&
              hyt_probe_noise_window(4, 1, 1, 0.05, GAIN, 65) == 8,
          "no period: %d %d", hyt_probe_noise_window(3, 1, 0, 0.05, GAIN, 65),
          hyt_probe_noise_window(4, 1, 1, 0.05, GAIN, 65));
    /* extended only when it loses by less than one standard error (8.7% / 2
     * on 4 calls): not below the best by the guard (54.12 us against 55.22),
     * not above it by 4.35% (57.62), and only short of the calls wanted */
    CHECK(hyt_probe_noise_extend(56.78, 55.22, 0.087, GAIN, 4, 20) &&
              hyt_probe_noise_extend(54.2, 55.22, 0.087, GAIN, 4, 20) &&
              !hyt_probe_noise_extend(54.0, 55.22, 0.087, GAIN, 4, 20) &&
              !hyt_probe_noise_extend(57.8, 55.22, 0.087, GAIN, 4, 20) &&
              !hyt_probe_noise_extend(62.68, 55.22, 0.087, GAIN, 4, 20) &&
              !hyt_probe_noise_extend(56.78, 55.22, 0.087, GAIN, 20, 20) &&
              !hyt_probe_noise_extend(56.78, 55.22, 0, GAIN, 4, 20) &&
              !hyt_probe_noise_extend(56.78, -1, 0.087, GAIN, 4, 20),
          "extension band");
    /* the faster radix: one period against windows extended in the noise */
    int trials = 2000, want = hyt_probe_noise_window(5, 4, 1, 0.087, GAIN, 65) - 1, ext, ext0;
    int plain = noisy_wins(4, 4, 52.6, 0.087, 55.2, trials, &ext0);
    int sized = noisy_wins(4, want, 52.6, 0.087, 55.2, trials, &ext);
    CHECK(ext0 == 0 && sized >= 0.85 * trials && sized > plain + trials / 10,
          "k 8 wins %d of %d windows extended in the noise (%d extended), %d of one-period "
          "windows", sized, trials, ext, plain);
    /* a radix as fast as the reference: the extension adds few wins by the
     * guard to the short windows' (which the rotation check's reference
     * undoes online) */
    int tie0 = noisy_wins(4, 4, 55.2, 0.087, 55.2, trials, &ext0);
    int tie = noisy_wins(4, want, 55.2, 0.087, 55.2, trials, &ext);
    CHECK(tie < tie0 + trials / 20, "a tie wins %d of %d extended windows, %d of one-period "
          "windows", tie, trials, tie0);
    /* a clear loser (k 2: 62.7 us, 13.5% slower) is rarely extended */
    int lose = noisy_wins(4, want, 62.7, 0.087, 55.2, trials, &ext);
    CHECK(lose == 0 && ext < 0.1 * trials, "a loser 13.5%% slower: %d wins, %d of %d extended",
          lose, ext, trials);
}

int main(void)
{
    test_noise_window();
    test_reopen_time();
    test_setup_gate();
    test_headroom();
    test_root_shrink();
    test_rotation_check();
    test_doubted();
    test_rooted_rotation();
    test_rooted_reference();
    test_order_and_winner();
    test_noise();
    test_unsupported();
    test_early_stop();
    test_with_probe();
    return check_done("test_online_choose");
}
