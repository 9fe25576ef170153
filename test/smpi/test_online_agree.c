/* SMPI test of the online component's agreement under divergent timings.
 *
 * Drives hyt_online_before/after the way src/runtime.c does, on a test-only
 * radix algorithm whose cost is a scripted latency curve charged with
 * smpi_execute_flops, times a per-rank seeded noise factor (so every rank
 * measures a different local time), followed by a real PMPI_Allreduce.  Every
 * call's result is compared with the expected sum.  Checks that all ranks run
 * the same radix on every call (min and max over ranks agree), that the key
 * settles within 24 calls after turning hot and near the curve's optimum,
 * and that a change of the curve after settling (drift) is detected and
 * re-probed, again with one radix sequence on all ranks.
 * With "bcast" the key is a Bcast called back to back: its windows are
 * timed as a loop (one barrier, increments of the calls' ends).  With
 * "gap" it is such a Bcast at a quarter of the cost with 50 us of
 * computation after every call (no drift): the auto drift interval must
 * budget its checks against the calls alone, not the loop's time per call.
 * Run: smpirun -np 64 ... ./test_online_agree [calls [bcast|gap]] */
#include "online/online.h"
#include "src/hyt.h"
#include "test/check.h"

#include <math.h>
#include <smpi/smpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int fake_fn(const hyt_args_t *a, int k)
{
    (void)a;
    (void)k;
    return MPI_SUCCESS;
}

static const hyt_alg_t fake = {.name = "test-radix", .coll = HYT_COLL_ALLREDUCE, .fn = fake_fn,
                               .k_min = 2, .k_max = HYT_K_P, .desc = "test only"};
/* the same as a Bcast called back to back: its windows are loop-timed */
static const hyt_alg_t fake_bcast = {.name = "test-radix", .coll = HYT_COLL_BCAST, .fn = fake_fn,
                                     .k_min = 2, .k_max = HYT_K_P, .desc = "test only"};

/* k-nomial-like latency, seconds.  After the shift every round costs 3x
 * more and bandwidth matters less: the settled radix gets clearly slower
 * and the optimum moves to k = p. */
static double curve(int k, int p, int shifted)
{
    double alpha = shifted ? 60e-6 : 20e-6, beta = shifted ? 0.005 : 0.08;
    return alpha * log((double)p) / log((double)k) * (1.0 + beta * (k - 1));
}

static uint64_t rng;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int calls = argc > 1 ? atoi(argv[1]) : 1500, shift_at = calls / 2;
    int gap = argc > 2 && strcmp(argv[2], "gap") == 0;
    int bcast = gap || (argc > 2 && strcmp(argv[2], "bcast") == 0);
    double scale = gap ? 0.25 : 1;
    if (gap)
        shift_at = calls + 1;
    const hyt_alg_t *alg = bcast ? &fake_bcast : &fake;
    rng = 0x2545f4914f6cdd1dULL ^ ((uint64_t)rank * 0x9e3779b97f4a7c15ULL);
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    hyt_key_t *key = ctx ? hyt_key_get(ctx, alg->coll, HYT_NBUCKETS - 1) : NULL;
    CHECK(key != NULL, "no context");
    if (!key) {
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    int errors = 0, diverged = 0, out_of_range = 0, settled_call = 0, k_settled1 = 0;
    for (int i = 1; i <= calls; i++) {
        int k = 4; /* the "table" radix */
        key->calls++;
        ctx->seq++; /* as src/runtime.c counts each intercepted collective */
        const hyt_alg_t *ran = alg;
        int timed = hyt_online_before(ctx, key, NULL, bcast ? 0 : -1, &ran, &k);
        out_of_range += k < 2 || k > p;
        double t0 = MPI_Wtime();
        /* per-rank noise up to +-5%, and rank 5 always 30% slower */
        double cost = scale * curve(k, p, i > shift_at) * (1.0 + 0.1 * (urand() - 0.5));
        if (rank == 5)
            cost *= 1.3;
        smpi_execute_flops(cost * 1e9); /* hosts run 1 Gflop/s */
        int in = rank + i, out = 0;
        PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        errors += out != p * (p - 1) / 2 + p * i;
        if (timed)
            hyt_online_after(ctx, key, ran, k, MPI_Wtime() - t0, 0);
        int kk[2] = {k, -k}, r[2];
        PMPI_Allreduce(kk, r, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        diverged += r[0] != -r[1];
        if (gap)
            smpi_execute_flops(50e-6 * 1e9);
        int sk;
        if (!settled_call && hyt_online_key_settled(key, &sk) == 1) {
            settled_call = i;
            k_settled1 = sk;
        }
    }
    CHECK(errors == 0, "rank %d: %d wrong sums", rank, errors);
    CHECK(diverged == 0, "rank %d: ranks used different radixes on %d calls", rank, diverged);
    CHECK(out_of_range == 0, "rank %d: %d radixes out of [2, p]", rank, out_of_range);
    hyt_online_info_t hot_info;
    long long hot = hyt_online_key_info(key, &hot_info) == 0 ? hot_info.hot_calls : -1;
    CHECK(hot > 0 && settled_call > 0 && settled_call - hot <= 24,
          "settled at call %d (hot after %lld)", settled_call, hot);
    /* HYTUNE_HOT_CALLS=auto on this key (one algorithm, radix 2..p): three times
     * the probe's 9 windows of HYTUNE_PROBE_CALLS calls */
    if (hyt_cfg.hot_calls < 0)
        CHECK(hot == 3 * 9 * hyt_cfg.probe_calls, "auto: hot after %lld calls, want %ld", hot,
              3 * 9 * hyt_cfg.probe_calls);
    else
        CHECK(hot == hyt_cfg.hot_calls, "hot after %lld calls, HYTUNE_HOT_CALLS=%ld", hot,
              hyt_cfg.hot_calls);
    /* the optimum of the unshifted curve for p = 64 is k = 9..10 */
    int best = 2;
    for (int k = 2; k <= p; k++)
        if (curve(k, p, 0) < curve(best, p, 0))
            best = k;
    CHECK(curve(k_settled1, p, 0) <= curve(best, p, 0) * 1.03, "settled k=%d, optimum k=%d",
          k_settled1, best);
    int k_end = 0;
    CHECK(hyt_online_key_settled(key, &k_end) == 1, "not settled at the end");
    int best2 = 2;
    for (int k = 2; k <= p; k++)
        if (curve(k, p, 1) < curve(best2, p, 1))
            best2 = k;
    hyt_online_info_t info;
    CHECK(hyt_online_key_info(key, &info) == 0 && info.loop_timed == bcast,
          "windows %s, want %s", info.loop_timed ? "loop-timed" : "timed per call",
          bcast ? "loop-timed (back to back)" : "per call");
    if (hyt_cfg.drift_interval < 0 && !gap) /* auto: calls of ~60 us, checks of a few us */
        CHECK(info.drift_every >= 16 && info.drift_every <= 100, "auto drift interval %lld",
              info.drift_every);
    if (hyt_cfg.drift_interval < 0) {
        /* auto: the checks cost at most 2% of the calls' own time (or the
         * interval is at its largest); with the gap that time is the calls
         * alone, well below the loop's time per call */
        CHECK(info.drift_every == 1000 ||
                  info.drift_every * 0.02 * info.drift_call_us >= info.drift_check_us * (1 - 1e-9),
              "auto drift interval %lld: checks of %.2f us against calls of %.2f us", info.drift_every,
              info.drift_check_us, info.drift_call_us);
        if (gap)
            CHECK(info.drift_call_us > 0 && info.drift_call_us < 0.5 * info.settled_us,
                  "drift budgeted against %.2f us a call, the loop's time per call %.2f us",
                  info.drift_call_us, info.settled_us);
    }
    if (!gap && (hyt_cfg.drift_interval < 0 ||
                 (hyt_cfg.drift_interval > 0 && hyt_cfg.drift_interval < calls / 4))) {
        /* the shift makes the settled k 1.8x slower: drift must be seen and
         * re-probing must recover most of the gap (per-call noise is +-5%,
         * so the end k is only asked to be within 10% of the new optimum) */
        CHECK(hyt_online_key_info(key, &info) == 0 && info.reprobes >= 1, "no re-probe");
        CHECK(curve(k_end, p, 1) <= curve(best2, p, 1) * 1.10,
              "after the shift: k=%d (%.2f us), optimum k=%d (%.2f us)", k_end,
              curve(k_end, p, 1) * 1e6, best2, curve(best2, p, 1) * 1e6);
        CHECK(curve(k_end, p, 1) < 0.8 * curve(k_settled1, p, 1),
              "re-probing did not move off the old radix %d (now %d)", k_settled1, k_end);
    }
    if (rank == 0)
        printf("first settle: call %d k=%d (optimum %d); end k=%d (optimum after shift %d); "
               "drift check every %lld calls (%.2f us against %.2f us a call, loop %.2f us)\n",
               settled_call, k_settled1, best, k_end, best2, info.drift_every, info.drift_check_us,
               info.drift_call_us, info.settled_us);
    int rc = check_done("test_online_agree");
    MPI_Finalize();
    return rc;
}
