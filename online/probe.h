/* Radix probing as a pure decision function (online/probe.c).
 *
 * The state machine sees only global (rank-agreed) window times and returns
 * the next radix to measure, so every rank that feeds it the same values
 * takes the same decisions.  No MPI, no clock, no allocation: unit-testable
 * with scripted latency curves (test/unit/test_online_probe.c). */
#ifndef HYT_ONLINE_PROBE_H
#define HYT_ONLINE_PROBE_H

typedef enum {
    HYT_PROBE_UP,      /* multiplicative increase: k *= 2 while it helps */
    HYT_PROBE_DOWN,    /* the start k was not beaten upwards: k /= 2 while it helps */
    HYT_PROBE_REFINE,  /* subtractive decrease inside the bracket around the best k */
    HYT_PROBE_HINT,    /* one window at the model's radix, if the search never measured it */
    HYT_PROBE_HINT_FIRST, /* the model's radix, far from the start k, measured right after it */
    HYT_PROBE_ROUND,   /* the one-round radix, after a climb that ended on a plateau */
    HYT_PROBE_SETTLED, /* best_k is final (until a drift restart) */
} hyt_probe_phase_t;

typedef struct hyt_probe {
    int k_min, k_max;   /* k never leaves [k_min, k_max] */
    double min_gain;    /* a radix must be this much faster (relative) to be taken */
    double guard;       /* the gain in force: min_gain, or more on noisy windows */
    int max_windows;    /* measurement budget, the start window included */
    int windows;        /* measurements fed so far */
    hyt_probe_phase_t phase;
    int k_next;         /* radix to measure next (best_k once settled) */
    int best_k;
    double best_t;      /* < 0 before the first measurement */
    /* Bracket of the refine phase: the nearest radixes below/above best_k
     * known not to beat it, or k_min-1 / k_max+1 when none was measured. */
    int lo_k, hi_k;
    double lo_t, hi_t;  /* their times (HUGE_VAL for the sentinels) */
    /* Look-ahead over a bump: a step that lost mildly is remembered here
     * while the step after it is measured (look = 1). */
    int look, bump_k;
    double bump_t;
    /* A model's radix (the topology prior) measured once before settling
     * if the local search did not get there: a second opinion against
     * optima the climb cannot see (k-nomial at k = p, one round). */
    int hint_k;
    /* The one-round radix (k = p of k-nomial and recursive multiplying,
     * 0: none): measured once when the climb ends on a plateau (its last
     * step lost by at most BUMP): a regime doubling does not reach. */
    int round_k;
    int ntested;
    int tested[16];    /* radixes measured (the first 16) */
    double spread[16]; /* their windows' relative spreads */
} hyt_probe_t;

/* Start probing at k0 (clamped into [k_min, k_max]).  The first window
 * measures k0 itself. */
void hyt_probe_start(hyt_probe_t *p, int k0, int k_min, int k_max, double min_gain,
                     int max_windows);
/* Set the model's radix (0: none); call right after hyt_probe_start. */
void hyt_probe_hint(hyt_probe_t *p, int k_hint);
/* Set the one-round radix (0: none); call right after hyt_probe_start. */
void hyt_probe_round_hint(hyt_probe_t *p, int k_round);
/* Feed the global time of the window run at p->k_next; returns the radix
 * for the next window (the settled radix when p->phase is SETTLED). */
int hyt_probe_feed(hyt_probe_t *p, double t);
/* The same with the window's relative spread s (hyt_probe_window_time).
 * The key's noise is the median spread of its windows so far (one window's
 * spread, from a few calls, is itself noisy); while it exceeds min_gain /
 * HYT_PROBE_NOISE_MULT, a radix must win (and a neighbour counts as level)
 * by HYT_PROBE_NOISE_MULT x that noise instead of min_gain, so noise does
 * not move the search.  Windows without noise (s = 0) give the plain
 * hyt_probe_feed. */
#define HYT_PROBE_NOISE_MULT 1.5
int hyt_probe_feed_noisy(hyt_probe_t *p, double t, double s);
static inline int hyt_probe_settled(const hyt_probe_t *p)
{
    return p->phase == HYT_PROBE_SETTLED;
}
/* Median of n values (sorts v in place); 0 for n == 0. */
double hyt_probe_median(double *v, int n);
/* The agreement step's combining rule.  A call takes as long as its slowest
 * rank, and which rank is slowest changes from call to call (the root of a
 * Reduce rotates, arrival skew moves), so the window's global time is the
 * median over its calls of the maximum over the ranks:
 *   local[r * n + i] = rank r's time of call i of the window.
 * online.c computes the per-call maxima with one MPI_MAX allreduce of the
 * window vector, then takes the median; this pure form lets tests simulate
 * many ranks.  work holds n doubles. */
double hyt_probe_global(const double *local, int nranks, int n, double *work);
/* The window time from the per-call maxima g[0..n) (overwritten): their
 * median, or with ends != 0 (rooted collectives, whose g[i] is when call i
 * ended everywhere, counted from the window's common start) the median of
 * the increments g[0], g[1] - g[0], ...: the per-call time of a pipelined
 * loop.  If spread is not NULL it receives the relative median absolute
 * deviation of those values (one outlier of three, e.g. a loop's fill in
 * its first increment, leaves it at 0). */
double hyt_probe_window_time(double *g, int n, int ends, double *spread);
/* Rooted collectives whose root rotates (root of call i = root of call
 * i-1 + d mod p, the same on every rank): a call's time depends on the
 * root's place in its node (a composition is cheap when the root leads
 * its node), so per-call times repeat with a period of
 * hyt_probe_root_period(d, ppn) calls on a communicator whose nodes hold
 * ppn consecutive ranks each (1: no period: d a multiple of ppn, ppn 1, or
 * no rotation, d <= 0).  A window whose measured calls span whole periods
 * sees every place of the root equally often, whatever call it starts at,
 * so candidates compared over such windows are measured on the same roots:
 * hyt_probe_root_window gives its calls for HYTUNE_PROBE_CALLS = w (fill:
 * the first calls not measured, 0 when timed per call; loop-timed, the
 * first call's end carries the pipeline's fill: 1; fill + m x period
 * calls, m the fewest whole periods that measure at least as many calls
 * as the plain window; 0 when m x period plus one fill call (if any) is
 * more than twice w: a period too long to span at a window's cost, whose
 * key keeps the plain windows), and hyt_probe_window_periodic its time
 * (fill > 0: of the increments of the ends after the first fill calls'):
 * the mean over the measured calls (what a loop pays over its periods; a median would pick
 * one place of the root).  Its spread: the relative median deviation of
 * each call from the mean of its place over the window's periods (0 with
 * one period: a place's difference is no noise). */
int hyt_probe_root_period(int d, int ppn);
int hyt_probe_root_window(int w, int period, int fill);
double hyt_probe_window_periodic(double *g, int n, int fill, int period, double *spread);
/* The place of the root in its node is not all a rotating root changes:
 * where the root's node sits in the network (under which switch, in which
 * group) changes what a call costs too, so per-call times repeat only over
 * the whole rotation, hyt_probe_root_rotation(d, p) = p / gcd(d, p) calls
 * (1 for d <= 0 or p <= 1); on 64 ranks of fattree-64 (16 x 4) a Reduce of
 * 64 KiB by the composition costs 11.9 us a call while the root is on the
 * first node and 19.8 on the eighth, a window of one node's roots reads
 * anything from 11.4 to 18.2 us, and two candidates' windows, which start
 * at different calls, compare different roots.  A key whose rotation is
 * longer than its windows therefore times one reference window over the
 * whole rotation (its last calls before it turns hot, which run the table's
 * choice anyway): ref[r], the increment of the call whose root was r (< 0:
 * not seen), and their mean.  Every later window of the key is scaled to
 * the whole rotation by hyt_probe_root_scale: ref_mean over the mean of
 * ref[] over the roots of the window's measured calls roots[0..n) (1 when
 * one of them was not seen or the reference is missing).  Candidates
 * compared so read their own cost relative to the reference's on the same
 * roots: on the fattree-64 loop above the composition beats k-nomial k=4 in
 * every pair of windows started at the same call, by 4-29%. */
#define HYT_ROOT_REF_MAX 256 /* the longest rotation a reference spans */
/* A reference times each root once, so under arrival noise each ref[r] is
 * one noisy call (dragonfly-64 Reduce 64 KiB, random arrival of up to
 * 25 us: increments of 19-31 us around a mean of 24.8), and a window
 * scaled by the roots it saw carries their draws, not where the roots
 * are.  A reference that spans the rotation twice sees each root twice:
 * their differences give the noise of one call (noise_var, the variance
 * of one call's time; 0 on a quiet platform, where a rotation repeats to
 * the last digit).  hyt_probe_root_shrink takes the noise out of a
 * profile ref[0..p) (roots with ref < 0 not seen; each ref[r] the mean of
 * reps calls): each root's deviation from the profile's mean is shrunk by
 * lambda = 1 - (noise_var / reps) / (the deviations' variance), at least
 * 0 (empirical Bayes: the share of the profile's spread the roots, not
 * the noise, make).  Returns lambda (1 and ref unchanged with noise_var
 * 0 or fewer than 2 roots seen). */
double hyt_probe_root_shrink(double *ref, int p, double noise_var, int reps);
/* A key whose reference measured a call's noise (ref_noise, relative to the
 * mean) well above the guard cannot rank radixes a few percent apart on
 * windows of a period's calls: under random arrival of up to 25 us,
 * dragonfly-64 Bcast 1 MiB by kring, a call's noise is 8.7% of its mean
 * (a window of four calls: 4.35%), a window of k 8 reads 56.78 us in one
 * run and 47.43 in another, a loop fixed at k 8 takes 51.5 a call, and
 * k 4's reference is 55.2: whether one window of k 8 beats it by the 2%
 * guard is a coin's throw.  hyt_probe_noise_window
 * gives the calls a radix window needs on such a key: the fewest whole
 * periods of measured calls (after fill) for which noise / sqrt(calls) is
 * at most the guard (the mean's standard error within the margin a radix
 * must win by), at least len, at most cap calls (the whole periods that
 * fit; the reference's length: a longer window would measure more than a
 * reference does); len when noise or guard is not positive, or len's
 * measured calls already suffice.  Only windows that need them pay them:
 * hyt_probe_noise_extend says whether a window of measured calls (fewer
 * than want) whose time t loses to the best's time best within the noise
 * (does not beat it by the guard, and is above it by less than one
 * standard error, noise / sqrt(measured)) goes on at the same radix until
 * it has want calls.  A clear loss is decided on the short window, as on a
 * quiet key, so a radix far slower than the best is rarely extended; a win
 * is not extended either: a key with a reference checks its first settle
 * against the fastest reference over the whole rotation (the rotation
 * check, online.c), which undoes a win the noise made, while nothing
 * looks at a radix again once it has lost.  Every input is agreed, so
 * every rank sizes the windows alike. */
int hyt_probe_noise_window(int len, int period, int fill, double noise, double guard, int cap);
int hyt_probe_noise_extend(double t, double best, double noise, double guard, int measured,
                           int want);
#define HYT_ROOT_REF_TWICE_MAX 64 /* the longest rotation the first reference spans twice */
int hyt_probe_root_rotation(int d, int p);
double hyt_probe_root_scale(const double *ref, int p, double ref_mean, const int *roots, int n);
/* Does the next timed call of a rooted key (Bcast, Reduce, Gather(v),
 * Scatter(v)) start after a barrier on the private duplicate (online.c)?
 * Timed per call (loop_timed 0): before each call.  Loop-timed (the calls
 * back to back, timed from the window's common start): before the window's
 * first call (first != 0) only, and not even there when the call directly
 * follows the agreement of the key's previous window: the key's previous
 * call, n - 1, closed a window (agreed_n, 0: none) and this call is the
 * communicator's next collective (back_to_back).  That agreement's
 * allreduce ended on every rank together, as a barrier would, so its end
 * is the window's common start: a search of w windows pays w - 1 barriers
 * fewer, each a pipeline break next to calls of a few us.  Every input is
 * the same on every rank (the timing mode, call counts, the communicator's
 * sequence of collectives), so every rank enters the barrier or none. */
int hyt_probe_window_barrier(int loop_timed, int first, int back_to_back,
                             unsigned long long agreed_n, unsigned long long n);
/* Has a settled key drifted: window time now_t clearly above settled_t? */
int hyt_probe_drifted(double settled_t, double now_t, double factor);
/* HYTUNE_DRIFT_INTERVAL=auto: calls between drift checks of a settled key
 * whose calls take settled_t seconds, when one check costs check_s seconds
 * (agreed over the ranks) and the key has run stable calls since its
 * latest settle: check_s / (HYT_DRIFT_BUDGET x settled_t), or, when
 * larger, stable / HYT_DRIFT_STABLE_DIV (the longer a key stays stable, the
 * rarer its checks: their cost falls towards nothing over a long run while
 * a change is still seen within 1/HYT_DRIFT_STABLE_DIV of the key's stable
 * life), within [HYT_DRIFT_MIN_CALLS, HYT_DRIFT_MAX_CALLS]. */
#define HYT_DRIFT_BUDGET 0.02
#define HYT_DRIFT_STABLE_DIV 8
#define HYT_DRIFT_MIN_CALLS 16
#define HYT_DRIFT_MAX_CALLS 1000
long hyt_probe_drift_calls(double check_s, double settled_t, unsigned long long stable);
/* The most calls a key's search can time: windows windows of len calls
 * (one per candidate of its shortlist, plus the radix probe's after the
 * winner's).  Windows longer than the plain ones (plain calls: whole
 * periods of a rotating root) bound the search instead at
 * HYT_SEARCH_MAX_CALLS, or at what the plain windows would time when that
 * is more: the radix probe then gets the windows the calls left after the
 * choice pay for (hyt_probe_window_budget). */
#define HYT_SEARCH_MAX_CALLS 40
long hyt_probe_search_calls(int windows, int len, int plain);
/* The windows (the start window included) a radix probe of windows of len
 * calls may take with calls_left calls: at most max_windows, at least 1. */
int hyt_probe_window_budget(long calls_left, int len, int max_windows);
/* HYTUNE_HOT_CALLS: the key's call after which it turns hot (its search
 * starts on the next call; the last window calls up to it are the start
 * window).  setting >= 1 (a number): that call, for every key.  auto
 * (setting < 0): HYT_HOT_REPAY x search_calls, the most calls the key's
 * search can time (hyt_probe_search_calls), at least HYT_HOT_MIN_CALLS.
 * A key's future calls are not known; taking the fraction of its life
 * already run as uniform, a key that has run n calls runs at least x more
 * with probability n / (n + x).  At n = 3 x search_calls the search
 * finishes with probability 3/4, and has as many calls again after it to
 * repay its cost with probability 3/5; a key called fewer times keeps the
 * table's choice.  Every input is the same on every rank (setting, table,
 * communicator, the roots of the key's calls). */
#define HYT_HOT_MIN_CALLS 16
#define HYT_HOT_REPAY 3
/* doubted: the key's rule has a candidate the table predicts faster than
 * the rule's own choice (hyt_choice_doubted).  There every call before
 * the search runs a choice the table itself expects to lose by more than
 * the guard, while the search's windows mostly run candidates predicted
 * faster: waiting for calls to repay the search only adds losing calls, so
 * auto gives HYT_HOT_MIN_CALLS. */
long hyt_probe_hot_calls(long setting, long search_calls, int doubted);

#endif
