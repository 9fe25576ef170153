/* Radix probing: multiplicative increase, subtractive decrease.
 *
 * Radix k of the k-ary algorithms is "transitive": if k=4 beats k=2, the
 * optimum likely lies at or above 4.  So the search
 *   1. measures the start k (table, prior or warm start), then, if a
 *      model's radix (hint) lies HINT_FAR times away or more (a cold start
 *      from a table at k_min), the hint: the loser bounds the search on its
 *      side and it goes on from the winner,
 *   2. UP:   doubles k while each step is faster by more than min_gain,
 *      When the climb ends on a plateau (its last step lost by at most
 *      BUMP) and a one-round radix was given (k = p of k-nomial and
 *      recursive multiplying), that radix is measured once before going
 *      on, and taken if it wins: one round can beat a plateau of
 *      two-round radixes the doubling never gets past,
 *   3. DOWN: if the very first doubling did not help, halves k instead,
 *      In both directions a step that lost by less than BUMP (but more than
 *      min_gain) is looked past once: real radix curves are rugged where
 *      the number of rounds or the fold-in of non-power ranks changes
 *      (recmult Allreduce of 64 KiB on 64 ranks: k=4 28% slower than k=2,
 *      k=8 and k=16 much faster), which pure local search would stop at.
 *   4. REFINE: the best k now sits in a bracket (lo, hi) of radixes known not
 *      to beat it; it steps from the best k by half the distance to one end
 *      (the end whose time is lower, where the optimum more likely is), and
 *      keeps halving the step (subtractive decrease) until no step is left
 *      at the resolution of a quarter of k, or both ends are within min_gain
 *      of the best (a flat curve: finer steps cannot win more than the noise
 *      guard); a side whose end is STEEP times slower is not refined,
 *   5. if a model's radix (hint) was given and never measured, measures it
 *      once and takes it if it wins (the climb cannot see a far optimum
 *      behind a plateau, e.g. k-nomial with one round at k = p),
 *   6. settles on the best k seen.
 * "Faster" and "level" are judged with a noise guard: min_gain, or on a key
 * whose windows scatter (the median of their relative spreads, fed with
 * hyt_probe_feed_noisy) HYT_PROBE_NOISE_MULT times that spread.
 * A budget of windows bounds the cost on any curve.  The function only sees
 * global times (the agreement step made them identical on every rank), so
 * all ranks walk the same radix sequence. */
#include "online/probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Refine a side only if its gap holds a radix at least best_k/RES away. */
#define REFINE_RES 4
/* A losing step within this relative excess is a bump worth looking past
 * (one extra window; a measured curve needed 28%, see the unit test). */
#define BUMP 0.5
/* A neighbour this much slower marks a step of the round count (stepped
 * curves: k-nomial's ceil(log_k p)): radixes between it and the best
 * rarely win, and each costs a window at up to this factor.  On a smooth
 * V-shaped curve a neighbour 1.5x slower leaves at most a few percent. */
#define STEEP 1.5
/* A hint this many times above or below the start k is measured right after
 * the start window (a cold start: a table at k_min, the prior near p); a
 * nearer one is left to the climb and measured at the end if it never got
 * there. */
#define HINT_FAR 4

static void settle(hyt_probe_t *p)
{
    p->phase = HYT_PROBE_SETTLED;
    p->k_next = p->best_k;
}

static int was_tested(const hyt_probe_t *p, int k)
{
    int n = p->ntested < 16 ? p->ntested : 16;
    for (int i = 0; i < n; i++)
        if (p->tested[i] == k)
            return 1;
    return 0;
}

/* The search is done: one window at the hint if it is new, else settle. */
static void finish(hyt_probe_t *p)
{
    int h = p->hint_k;
    if (p->phase != HYT_PROBE_HINT && h >= p->k_min && h <= p->k_max && h != p->best_k &&
        !was_tested(p, h) && p->windows < p->max_windows) {
        p->phase = HYT_PROBE_HINT;
        p->k_next = h;
        return;
    }
    settle(p);
}

void hyt_probe_hint(hyt_probe_t *p, int k_hint)
{
    p->hint_k = k_hint;
}

void hyt_probe_round_hint(hyt_probe_t *p, int k_round)
{
    p->round_k = k_round;
}

void hyt_probe_start(hyt_probe_t *p, int k0, int k_min, int k_max, double min_gain,
                     int max_windows)
{
    if (k_max < k_min)
        k_max = k_min;
    p->k_min = k_min;
    p->k_max = k_max;
    p->min_gain = min_gain;
    p->guard = min_gain;
    p->max_windows = max_windows > 0 ? max_windows : 1;
    p->windows = 0;
    p->phase = HYT_PROBE_UP;
    p->k_next = k0 < k_min ? k_min : k0 > k_max ? k_max : k0;
    p->best_k = p->k_next;
    p->best_t = -1;
    p->lo_k = k_min - 1;
    p->hi_k = k_max + 1;
    p->lo_t = p->hi_t = HUGE_VAL;
    p->look = 0;
    p->bump_k = 0;
    p->bump_t = HUGE_VAL;
    p->hint_k = 0;
    p->round_k = 0;
    p->ntested = 0;
}

static int beats_best(const hyt_probe_t *p, double t)
{
    return t < p->best_t * (1.0 - p->guard);
}

static int near_best(const hyt_probe_t *p, double t)
{
    return t <= p->best_t * (1.0 + p->guard);
}

/* Lost, but by less than BUMP and more than the noise guard. */
static int mild_loss(const hyt_probe_t *p, double t)
{
    return !near_best(p, t) && t <= p->best_t * (1.0 + BUMP);
}

/* A measured radix below best_k within a factor 2 of it (the climb's last
 * step); a farther one (a start k beaten by a far hint) bounds the search but
 * says nothing about the curve next to the best. */
static int lo_near(const hyt_probe_t *p)
{
    return p->lo_k >= p->k_min && 2L * p->lo_k >= p->best_k;
}

/* gap: distance to the end; near: that end is within a factor 2 of best_k */
static int side_open(const hyt_probe_t *p, int gap, int near, double neighbour_t)
{
    return gap >= 2 && gap * REFINE_RES > p->best_k &&
           !(near && neighbour_t < HUGE_VAL && neighbour_t >= STEEP * p->best_t);
}

static void refine_next(hyt_probe_t *p)
{
    int up = side_open(p, p->hi_k - p->best_k, p->hi_k <= 2L * p->best_k, p->hi_t);
    int down = side_open(p, p->best_k - p->lo_k, 2L * p->lo_k >= p->best_k, p->lo_t);
    int flat = near_best(p, p->lo_t) && near_best(p, p->hi_t);
    if ((!up && !down) || flat) {
        finish(p);
        return;
    }
    p->phase = HYT_PROBE_REFINE;
    if (up && (!down || p->hi_t <= p->lo_t))
        p->k_next = p->best_k + (p->hi_k - p->best_k) / 2;
    else
        p->k_next = p->best_k - (p->best_k - p->lo_k) / 2;
}

static void down_start(hyt_probe_t *p)
{
    if (p->best_k <= p->k_min || (p->lo_k >= p->k_min && p->best_k / 2 <= p->lo_k)) {
        refine_next(p);
        return;
    }
    p->phase = HYT_PROBE_DOWN;
    p->k_next = p->best_k / 2 < p->k_min ? p->k_min : p->best_k / 2;
}

/* A radix that lost to ref bounds the search on its side of ref. */
static void note_bound(hyt_probe_t *p, int k, double t, int ref)
{
    if (k > ref) {
        p->hi_k = k;
        p->hi_t = t;
    } else {
        p->lo_k = k;
        p->lo_t = t;
    }
}

static void up_next(hyt_probe_t *p)
{
    /* a measured radix above (a losing hint) caps the climb like k_max */
    if (p->best_k >= p->k_max || (p->hi_k <= p->k_max && 2L * p->best_k >= p->hi_k)) {
        /* nothing above: the lower side is all that is left */
        if (lo_near(p))
            refine_next(p);
        else
            down_start(p);
        return;
    }
    long k = 2L * p->best_k;
    p->phase = HYT_PROBE_UP;
    p->k_next = k > p->k_max ? p->k_max : (int)k;
}

static void feed_up(hyt_probe_t *p, int k, double t)
{
    if (beats_best(p, t)) {
        /* the nearest radix below the new best known not to beat it */
        p->lo_k = p->look ? p->bump_k : p->best_k;
        p->lo_t = p->look ? p->bump_t : p->best_t;
        p->look = 0;
        p->best_k = k;
        p->best_t = t;
        up_next(p);
        return;
    }
    if (!p->look && mild_loss(p, t) && k < p->k_max &&
        !(p->hi_k <= p->k_max && 2L * k >= p->hi_k)) {
        p->look = 1;
        p->bump_k = k;
        p->bump_t = t;
        p->k_next = 2L * k > p->k_max ? p->k_max : 2 * k;
        return;
    }
    p->hi_k = p->look ? p->bump_k : k;
    p->hi_t = p->look ? p->bump_t : t;
    p->look = 0;
    /* a plateau (the last step lost by at most BUMP): one window at the
     * one-round radix before going on */
    int r = p->round_k;
    if (r > p->hi_k && r <= p->k_max && t <= p->best_t * (1.0 + BUMP) && !was_tested(p, r) &&
        p->windows < p->max_windows) {
        p->phase = HYT_PROBE_ROUND;
        p->k_next = r;
        return;
    }
    if (lo_near(p)) /* we did climb: (lo, hi) brackets the best */
        refine_next(p);
    else
        down_start(p);
}

/* The one-round radix after a plateau: taken if it wins (the plateau
 * between is not worth refining), else the search goes on as after the
 * climb. */
static void feed_round(hyt_probe_t *p, int k, double t)
{
    if (beats_best(p, t)) {
        p->best_k = k;
        p->best_t = t;
        finish(p);
    } else if (lo_near(p)) {
        refine_next(p);
    } else {
        down_start(p);
    }
}

static void feed_down(hyt_probe_t *p, int k, double t)
{
    if (beats_best(p, t)) {
        p->hi_k = p->look ? p->bump_k : p->best_k;
        p->hi_t = p->look ? p->bump_t : p->best_t;
        p->look = 0;
        p->best_k = k;
        p->best_t = t;
        down_start(p);
        return;
    }
    if (!p->look && mild_loss(p, t) && k > p->k_min &&
        !(p->lo_k >= p->k_min && k / 2 <= p->lo_k)) {
        p->look = 1;
        p->bump_k = k;
        p->bump_t = t;
        p->k_next = k / 2 < p->k_min ? p->k_min : k / 2;
        return;
    }
    p->lo_k = p->look ? p->bump_k : k;
    p->lo_t = p->look ? p->bump_t : t;
    p->look = 0;
    refine_next(p);
}

/* The far hint was measured right after the start k: the loser of the two
 * bounds the search on its side, the winner is where it goes on. */
static void feed_hint_first(hyt_probe_t *p, int k, double t)
{
    int s_k = p->best_k;
    double s_t = p->best_t;
    if (beats_best(p, t)) {
        p->best_k = k;
        p->best_t = t;
        if (s_k < k) {
            p->lo_k = s_k;
            p->lo_t = s_t;
        } else {
            p->hi_k = s_k;
            p->hi_t = s_t;
        }
        up_next(p); /* from the hint as from a start: up, then down */
        return;
    }
    note_bound(p, k, t, s_k);
    up_next(p);
}

static int hint_far(const hyt_probe_t *p)
{
    long h = p->hint_k, k = p->best_k;
    return h >= p->k_min && h <= p->k_max && (h >= HINT_FAR * k || h * HINT_FAR <= k);
}

static void feed_refine(hyt_probe_t *p, int k, double t)
{
    if (beats_best(p, t)) {
        if (k > p->best_k) {
            p->lo_k = p->best_k;
            p->lo_t = p->best_t;
        } else {
            p->hi_k = p->best_k;
            p->hi_t = p->best_t;
        }
        p->best_k = k;
        p->best_t = t;
    } else {
        note_bound(p, k, t, p->best_k);
    }
    refine_next(p);
}

int hyt_probe_feed(hyt_probe_t *p, double t)
{
    return hyt_probe_feed_noisy(p, t, 0);
}

int hyt_probe_feed_noisy(hyt_probe_t *p, double t, double s)
{
    if (p->phase == HYT_PROBE_SETTLED)
        return p->best_k;
    int k = p->k_next;
    p->windows++;
    if (p->ntested < 16) {
        p->tested[p->ntested] = k;
        p->spread[p->ntested] = s > 0 ? s : 0;
    }
    p->ntested++;
    int n = p->ntested < 16 ? p->ntested : 16;
    double sp[16];
    memcpy(sp, p->spread, (size_t)n * sizeof sp[0]);
    double noise = HYT_PROBE_NOISE_MULT * hyt_probe_median(sp, n);
    p->guard = noise > p->min_gain ? noise : p->min_gain;
    if (p->phase == HYT_PROBE_HINT) {
        if (beats_best(p, t)) {
            p->best_k = k;
            p->best_t = t;
        }
        settle(p);
    } else if (p->best_t < 0) {
        p->best_t = t;
        if (hint_far(p)) {
            p->phase = HYT_PROBE_HINT_FIRST;
            p->k_next = p->hint_k;
        } else {
            up_next(p);
        }
    } else if (p->phase == HYT_PROBE_HINT_FIRST) {
        feed_hint_first(p, k, t);
    } else if (p->phase == HYT_PROBE_ROUND) {
        feed_round(p, k, t);
    } else if (p->phase == HYT_PROBE_UP) {
        feed_up(p, k, t);
    } else if (p->phase == HYT_PROBE_DOWN) {
        feed_down(p, k, t);
    } else {
        feed_refine(p, k, t);
    }
    if (p->phase != HYT_PROBE_SETTLED && p->windows >= p->max_windows)
        settle(p);
    return p->k_next;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double hyt_probe_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double hyt_probe_global(const double *local, int nranks, int n, double *work)
{
    for (int i = 0; i < n; i++) {
        work[i] = nranks > 0 ? local[i] : 0;
        for (int r = 1; r < nranks; r++)
            if (local[r * n + i] > work[i])
                work[i] = local[r * n + i];
    }
    return hyt_probe_median(work, n);
}

double hyt_probe_window_time(double *g, int n, int ends, double *spread)
{
    for (int i = n - 1; ends && i > 0; i--)
        g[i] -= g[i - 1];
    double m = hyt_probe_median(g, n);
    if (spread) {
        for (int i = 0; i < n; i++)
            g[i] = fabs(g[i] - m);
        *spread = m > 0 ? hyt_probe_median(g, n) / m : 0;
    }
    return m;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int hyt_probe_root_period(int d, int ppn)
{
    if (d <= 0 || ppn <= 1)
        return 1;
    return ppn / gcd(ppn, d % ppn);
}

int hyt_probe_root_rotation(int d, int p)
{
    if (d <= 0 || p <= 1)
        return 1;
    return p / gcd(p, d % p);
}

double hyt_probe_root_scale(const double *ref, int p, double ref_mean, const int *roots, int n)
{
    if (!ref || n < 1 || !(ref_mean > 0))
        return 1;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (roots[i] < 0 || roots[i] >= p || !(ref[roots[i]] > 0))
            return 1;
        sum += ref[roots[i]];
    }
    return ref_mean * n / sum;
}

double hyt_probe_root_shrink(double *ref, int p, double noise_var, int reps)
{
    double m = 0, v = 0;
    int n = 0;
    for (int r = 0; r < p; r++)
        if (ref[r] >= 0) {
            m += ref[r];
            n++;
        }
    if (n < 2 || !(noise_var > 0))
        return 1;
    m /= n;
    for (int r = 0; r < p; r++)
        if (ref[r] >= 0)
            v += (ref[r] - m) * (ref[r] - m);
    v /= n - 1;
    double lambda = v > 0 ? 1 - noise_var / (reps > 1 ? reps : 1) / v : 0;
    if (lambda < 0)
        lambda = 0;
    for (int r = 0; r < p; r++)
        if (ref[r] >= 0)
            ref[r] = m + lambda * (ref[r] - m);
    return lambda;
}

int hyt_probe_root_window(int w, int period, int fill)
{
    int want = fill ? w - 1 : w; /* calls the plain window measures */
    if (want < 1)
        want = 1;
    if (period <= 1)
        return w;
    int m = (want + period - 1) / period;
    /* the period must fit a window's cost: with one fill call (or none)
     * within twice the plain window */
    if ((fill ? 1 : 0) + m * period > 2 * (w > 1 ? w : 1))
        return 0;
    return fill + m * period;
}

int hyt_probe_noise_window(int len, int period, int fill, double noise, double guard, int cap)
{
    if (!(noise > 0) || !(guard > 0) || len < 1)
        return len;
    if (period < 1)
        period = 1;
    if (fill < 0 || fill >= len)
        fill = 0;
    double need = ceil((noise / guard) * (noise / guard) - 1e-9);
    if (need <= len - fill)
        return len;
    double m = ceil(need / period);
    double most = cap > fill ? floor((double)(cap - fill) / period) : 0;
    if (m > most)
        m = most;
    double n = fill + m * period;
    return n > len ? (int)n : len;
}

int hyt_probe_noise_extend(double t, double best, double noise, double guard, int measured,
                           int want)
{
    if (!(measured > 0 && measured < want && best > 0 && t > 0 && noise > 0))
        return 0;
    double d = t / best - 1;
    return d >= -guard && d < noise / sqrt((double)measured);
}

double hyt_probe_window_periodic(double *g, int n, int fill, int period, double *spread)
{
    if (fill > 0 && n > fill) {
        for (int i = n - 1; i >= fill; i--)
            g[i] -= g[i - 1];
        g += fill; /* the first fill calls' ends: the pipeline's fill */
        n -= fill;
    }
    if (spread)
        *spread = 0;
    if (n < 1)
        return 0;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += g[i];
    double m = sum / n;
    if (period < 1)
        period = 1;
    int reps = n / period;
    if (spread && reps >= 2 && m > 0) {
        double place[64];
        int np = period < 64 ? period : 64;
        for (int j = 0; j < np; j++) {
            place[j] = 0;
            for (int r = 0; r < reps; r++)
                place[j] += g[r * period + j];
            place[j] /= reps;
        }
        int k = 0;
        for (int r = 0; r < reps; r++)
            for (int j = 0; j < np; j++, k++)
                g[k] = fabs(g[r * period + j] - place[j]);
        *spread = hyt_probe_median(g, k) / m;
    }
    return m;
}

int hyt_probe_drifted(double settled_t, double now_t, double factor)
{
    return settled_t > 0 && now_t > settled_t * factor;
}

long hyt_probe_drift_calls(double check_s, double settled_t, unsigned long long stable)
{
    double d = settled_t > 0 && check_s > 0 ? ceil(check_s / (HYT_DRIFT_BUDGET * settled_t)) : 0;
    double grown = (double)(stable / HYT_DRIFT_STABLE_DIV);
    if (grown > d)
        d = grown;
    return d < HYT_DRIFT_MIN_CALLS ? HYT_DRIFT_MIN_CALLS
           : d > HYT_DRIFT_MAX_CALLS ? HYT_DRIFT_MAX_CALLS : (long)d;
}

int hyt_probe_window_barrier(int loop_timed, int first, int back_to_back,
                             unsigned long long agreed_n, unsigned long long n)
{
    if (!loop_timed)
        return 1;
    return first && !(back_to_back && agreed_n > 0 && agreed_n + 1 == n);
}

long hyt_probe_search_calls(int windows, int len, int plain)
{
    long w = windows > 1 ? windows : 1, n = w * (len > 1 ? len : 1);
    if (len <= plain)
        return n;
    long cap = w * (plain > 1 ? plain : 1);
    if (cap < HYT_SEARCH_MAX_CALLS)
        cap = HYT_SEARCH_MAX_CALLS;
    return n < cap ? n : cap;
}

int hyt_probe_window_budget(long calls_left, int len, int max_windows)
{
    long w = calls_left / (len > 1 ? len : 1);
    if (w > max_windows)
        w = max_windows;
    return w > 1 ? (int)w : 1;
}

long hyt_probe_hot_calls(long setting, long search_calls, int doubted)
{
    if (setting >= 1)
        return setting;
    if (doubted)
        return HYT_HOT_MIN_CALLS;
    long n = (long)HYT_HOT_REPAY * (search_calls > 1 ? search_calls : 1);
    return n > HYT_HOT_MIN_CALLS ? n : HYT_HOT_MIN_CALLS;
}
