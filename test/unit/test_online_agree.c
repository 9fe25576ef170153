/* Unit test of the agreement step: R simulated ranks see divergent local
 * timings of the same windows (a per-rank bias, per-call noise from a
 * per-rank seeded generator, one rank much slower, and a rotating root that
 * alone pays the full latency of its call, as in MPI_Reduce).  The global
 * value is hyt_probe_global() of all ranks' window times (the per-call
 * maximum that online.c's MPI_MAX allreduce computes, then the median), and
 * each rank feeds its own probe state machine.  Asserts that all ranks walk the same
 * radix sequence and settle on the same radix, for many seeds and rank
 * counts; and, as a control that the test can fail, that feeding the local
 * medians directly does make ranks diverge. */
#include "online/probe.h"
#include "test/check.h"

#include <math.h>
#include <stdint.h>

#define MAXR 64
#define WINDOW 3

typedef struct {
    uint64_t s;
} rng_t;

static double urand(rng_t *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(r->s >> 11) / 9007199254740992.0;
}

/* k-nomial-like latency of radix k (us) */
static double curve(int k, int p)
{
    return log((double)p) / log((double)k) * (1.0 + 0.08 * (k - 1));
}

/* rank r's local time for call `call` at radix k */
static double local_time(int r, int R, int call, int k, int p, rng_t *g)
{
    double bias = 1.0 + 0.03 * (r % 5);           /* arrival skew: later ranks wait less */
    if (r == 3)
        bias *= 1.4;                               /* one slow rank */
    if (call % R != r)
        bias *= 0.2;                               /* not the root: leaves early */
    return curve(k, p) * bias * (1.0 + 0.2 * (urand(g) - 0.5));
}

/* Run R ranks; agreed=1 uses the global value, 0 each rank's own median.
 * Returns 1 if all ranks took identical sequences and settled alike. */
static int simulate(int R, int p, uint64_t seed, int agreed, int *settled_k, int *steps)
{
    hyt_probe_t pr[MAXR] = {0};
    rng_t g[MAXR];
    if (R < 1 || R > MAXR)
        return 0;
    for (int r = 0; r < R; r++) {
        hyt_probe_start(&pr[r], 2, 2, p, 0.02, 9);
        g[r].s = seed * 1000003u + (uint64_t)r * 7919u + 1;
    }
    int same = 1, call = 0;
    *steps = 0;
    while (!hyt_probe_settled(&pr[0])) {
        double med[MAXR], all[MAXR * WINDOW], work[WINDOW];
        for (int r = 0; r < R; r++) {
            if (pr[r].k_next != pr[0].k_next || hyt_probe_settled(&pr[r]))
                same = 0;
            /* a rank that diverged still measures the radix it would run */
            for (int i = 0; i < WINDOW; i++)
                all[r * WINDOW + i] = local_time(r, R, call + i, pr[r].k_next, p, &g[r]);
            double w[WINDOW];
            for (int i = 0; i < WINDOW; i++)
                w[i] = all[r * WINDOW + i];
            med[r] = hyt_probe_median(w, WINDOW);
        }
        call += WINDOW;
        double glob = hyt_probe_global(all, R, WINDOW, work);
        for (int r = 0; r < R; r++)
            hyt_probe_feed(&pr[r], agreed ? glob : med[r]);
        if (++*steps > 100)
            return 0;
    }
    for (int r = 1; r < R; r++)
        if (!hyt_probe_settled(&pr[r]) || pr[r].best_k != pr[0].best_k)
            same = 0;
    *settled_k = pr[0].best_k;
    return same;
}

int main(void)
{
    static const int ranks[] = {2, 4, 7, 16, 64};
    int diverged = 0;
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
        for (uint64_t seed = 1; seed <= 40; seed++) {
            int R = ranks[i], p = R < 8 ? 64 : 4 * R, k, steps;
            int ok = simulate(R, p, seed, 1, &k, &steps);
            CHECK(ok, "R=%d seed=%llu: ranks took different radixes with agreement", R,
                  (unsigned long long)seed);
            CHECK(k >= 2 && k <= p, "R=%d: settled k=%d out of range", R, k);
            CHECK(steps <= 9, "R=%d: %d windows", R, steps);
            int k2, steps2;
            diverged += !simulate(R, p, seed, 0, &k2, &steps2);
        }
    /* control: without the agreement step the same timings split the ranks */
    CHECK(diverged > 0, "local decisions never diverged: the test cannot tell");
    printf("without agreement %d of %d runs diverged\n", diverged, 5 * 40);

    /* the global value does not depend on the order of the ranks, and a
     * rotating root's full-latency calls dominate: 2 ranks x 3 calls */
    double a[] = {9.0, 0.1, 8.0, 0.2, 7.0, 0.1}, b[] = {0.2, 7.0, 0.1, 9.0, 0.1, 8.0}, w[3];
    CHECK(hyt_probe_global(a, 2, 3, w) == 8.0 && hyt_probe_global(b, 2, 3, w) == 8.0,
          "median of per-call maxima, order-free");
    return check_done("test_online_agree");
}
