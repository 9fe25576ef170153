/* Cost of the online component on the per-call path (bench/online_cost.sh).
 *
 * Builds a one-rank context and a key (no MPI launch needed: a one-rank
 * context never communicates), drives it to settled with scripted window
 * times, then times N calls of hyt_online_before() on the settled key, and
 * the same loop without it (the core's own per-key counting only), and
 * with a call to an empty function of the same signature (the floor of any
 * hook), and prints nanoseconds per call. */
#include "online/online.h"
#include "src/hyt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fake_fn(const hyt_args_t *a, int k)
{
    (void)a;
    (void)k;
    return MPI_SUCCESS;
}

static const hyt_alg_t alg = {.name = "cost-test", .coll = HYT_COLL_ALLREDUCE, .fn = fake_fn,
                              .k_min = 2, .k_max = HYT_K_P, .desc = "benchmark only"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* volatile sink: keeps the compiler from dropping the loops */
static volatile int sink;

static double loop_online(hyt_comm_t *ctx, hyt_key_t *key, long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
        int k = 2;
        key->calls++;
        key->bytes += 8;
        const hyt_alg_t *a = &alg;
        if (hyt_online_before(ctx, key, NULL, -1, &a, &k)) /* a drift-check window */
            hyt_online_after(ctx, key, a, k, 1e-6, 0);
        sink += k;
    }
    return (now() - t0) / (double)n * 1e9;
}

/* Floor of any out-of-line hook: the same call to a function doing nothing. */
static __attribute__((noinline)) int empty_hook(hyt_comm_t *ctx, hyt_key_t *key,
                                                const hyt_alg_t *a, int *k)
{
    (void)ctx;
    (void)a;
    if (key->ext)
        *k = 3;
    return 0;
}

static double loop_empty(hyt_comm_t *ctx, hyt_key_t *key, long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
        int k = 2;
        key->calls++;
        key->bytes += 8;
        if (empty_hook(ctx, key, &alg, &k))
            hyt_online_after(ctx, key, &alg, k, 1e-6, 0);
        sink += k;
    }
    return (now() - t0) / (double)n * 1e9;
}

static double loop_plain(hyt_key_t *key, long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
        int k = 2;
        key->calls++;
        key->bytes += 8;
        sink += k;
    }
    return (now() - t0) / (double)n * 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000000L;
    /* the online component reads MPI's clock: MPI itself, without hytune's
     * MPI_Init (this program drives the component by hand) */
    PMPI_Init(&argc, &argv);
    hyt_cfg.mode = HYT_MODE_HYBRID;
    hyt_cfg.drift_interval = 1000;
    hyt_comm_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.size = 64; /* k range 2..64; agreement skipped below by size 1 */
    hyt_key_t key;
    memset(&key, 0, sizeof key);
    key.coll = HYT_COLL_ALLREDUCE;
    key.bucket = 4;
    /* drive to settled: k-nomial-like window times */
    int k = 2, settled = 0;
    for (int i = 0; i < 10000 && !settled; i++) {
        k = 2;
        key.calls++;
        const hyt_alg_t *a = &alg;
        int timed = hyt_online_before(&ctx, &key, NULL, -1, &a, &k);
        ctx.size = 1; /* one rank: the agreement step needs no communication */
        if (timed)
            hyt_online_after(&ctx, &key, a, k, 1e-6 * (6.0 / k + 0.1 * k), 0);
        ctx.size = 64;
        settled = hyt_online_key_settled(&key, &k) == 1;
    }
    if (!settled) {
        fprintf(stderr, "online_cost: key did not settle\n");
        PMPI_Finalize();
        return 1;
    }
    ctx.size = 1;
    double plain = loop_plain(&key, n);
    double online = loop_online(&ctx, &key, n);
    double plain2 = loop_plain(&key, n);
    double empty = loop_empty(&ctx, &key, n);
    int still = hyt_online_key_settled(&key, &k);
    printf("settled k=%d (still settled after the loop: %s)\n", k, still == 1 ? "yes" : "no");
    printf("per call, core counting only:        %.2f ns (second run %.2f ns)\n", plain, plain2);
    printf("per call, plus hyt_online_before:    %.2f ns\n", online);
    printf("per call, plus an empty hook call:   %.2f ns (floor of any out-of-line hook)\n", empty);
    printf("added by the online component:       %.2f ns per call over no hook, %.2f ns over an "
           "empty hook (settled key, drift check every %ld calls)\n",
           online - (plain < plain2 ? plain : plain2), online - empty, hyt_cfg.drift_interval);
    hyt_online_key_free(&key);
    PMPI_Finalize();
    return 0;
}
