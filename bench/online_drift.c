/* Benchmark driver: drift re-probing when the network changes mid-run
 * (bench/online_drift.sh).
 *
 *   online_drift COLL ALG BYTES CALLS T_CHANGE_US OUTDIR
 * Run under smpirun with HYTUNE_TABLE selecting ALG for COLL, on a platform
 * whose bandwidth changes at simulated time T_CHANGE_US (platforms/
 * tree-bwstep-64.xml: 10000).  Rank 0 writes
 *   OUTDIR/sweep.csv  phase,k,us: the radix sweep before the change
 *                     ("before") and after the hybrid loop ("after"):
 *                     for every k of a grid, ALG run directly 1 + 3 times,
 *                     the slowest rank's mean of the 3 timed calls;
 *   OUTDIR/calls.csv  call,t_start_us,us,k,state,reprobes: every call of the
 *                     hybrid loop (through MPI_<COLL>, table + online
 *                     tuning): simulated start time, rank 0's elapsed time,
 *                     the radix it ran and the key's state after it;
 * and prints "name value" lines: the call of the change (the first call
 * starting at or after T_CHANGE_US), the radix settled before it, the
 * re-probe's drift window and settle calls, the radix after, the sweeps'
 * best radixes and the settled radix's gap on the new bandwidth. */
#include "online/online.h"
#include "src/hyt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, p;

static void call_mpi(hyt_coll_t c, int *s, int *r, int count)
{
    switch (c) {
    case HYT_COLL_ALLREDUCE:
        MPI_Allreduce(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case HYT_COLL_BCAST:
        MPI_Bcast(r, count, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    case HYT_COLL_REDUCE:
        MPI_Reduce(s, r, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case HYT_COLL_ALLGATHER:
        MPI_Allgather(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD);
        break;
    default:
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Slowest rank's mean time of 3 calls of alg at k, after one warm-up call. */
static double latency(hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    double tmax = 0;
    for (int rep = 0; rep < 2; rep++) {
        int n = rep ? 3 : 1;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++)
            hyt_run_alg(a, alg, k, NULL);
        double t = (MPI_Wtime() - t0) / n;
        PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    return tmax;
}

/* Sweep grid: powers of two and three times powers of two, and k_max. */
static int next_k(int k, int kmax)
{
    int n = k + 1;
    while (n < kmax) {
        int m = n;
        while (m % 2 == 0)
            m /= 2;
        if (m == 1 || m == 3)
            break;
        n++;
    }
    return n;
}

/* Sweep into f (rank 0); returns the best k, its latency in *best. */
static int sweep(hyt_args_t *a, const hyt_alg_t *alg, const char *phase, FILE *f, double *best,
                 int extra_k, double *extra_t)
{
    int kmax = hyt_alg_k_max(alg, p), best_k = alg->k_min, extra_seen = 0;
    *best = 1e300;
    for (int k = alg->k_min; k <= kmax; k = next_k(k, kmax)) {
        double t = latency(a, alg, k);
        if (f)
            fprintf(f, "%s,%d,%.3f\n", phase, k, t * 1e6);
        if (t < *best) {
            *best = t;
            best_k = k;
        }
        if (k == extra_k) {
            *extra_t = t;
            extra_seen = 1;
        }
    }
    if (extra_k > 0 && !extra_seen) {
        *extra_t = latency(a, alg, extra_k);
        if (f)
            fprintf(f, "%s,%d,%.3f\n", phase, extra_k, *extra_t * 1e6);
    }
    return best_k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 7) {
        if (rank == 0)
            fprintf(stderr, "usage: online_drift COLL ALG BYTES CALLS T_CHANGE_US OUTDIR\n");
        MPI_Finalize();
        return 2;
    }
    int c = hyt_coll_from_name(argv[1]);
    const hyt_alg_t *alg = c >= 0 ? hyt_alg_find((hyt_coll_t)c, argv[2]) : NULL;
    if (!alg || !hyt_alg_has_radix(alg)) {
        if (rank == 0)
            fprintf(stderr, "online_drift: no radix algorithm %s for %s\n", argv[2], argv[1]);
        MPI_Finalize();
        return 2;
    }
    size_t bytes = (size_t)strtoull(argv[3], NULL, 10);
    long calls = atol(argv[4]);
    double t_change = atof(argv[5]) * 1e-6;
    int count = bytes < sizeof(int) ? 1 : (int)(bytes / sizeof(int));
    size_t n = (size_t)count * (size_t)p;
    int *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r);
    double *t_start = malloc((size_t)calls * sizeof *t_start);
    double *dur = malloc((size_t)calls * sizeof *dur);
    int *ks = malloc((size_t)calls * sizeof *ks), *reprobes = malloc((size_t)calls * sizeof *ks);
    const char **states = malloc((size_t)calls * sizeof *states);
    if (!s || !r || !t_start || !dur || !ks || !reprobes || !states)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < n; i++)
        s[i] = r[i] = rank + (int)i;
    hyt_args_t a;
    memset(&a, 0, sizeof a);
    a.coll = (hyt_coll_t)c;
    a.sbuf = s;
    a.rbuf = r;
    a.count = a.scount = count;
    a.type = a.stype = MPI_INT;
    a.op = MPI_SUM;
    a.comm = MPI_COMM_WORLD;
    a.ctx = hyt_comm_get(MPI_COMM_WORLD);
    a.bytes = hyt_selection_bytes(&a);

    FILE *fs = NULL, *fc = NULL;
    if (rank == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/sweep.csv", argv[6]);
        fs = fopen(path, "w");
        snprintf(path, sizeof path, "%s/calls.csv", argv[6]);
        fc = fopen(path, "w");
        if (!fs || !fc) {
            fprintf(stderr, "online_drift: cannot write into %s\n", argv[6]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fprintf(fs, "phase,k,us\n");
    }
    double best_before, best_after, unused, settled_after_t = 0;
    int best_k_before = sweep(&a, alg, "before", fs, &best_before, 0, &unused);
    double t_sweep_end = MPI_Wtime();

    /* the hybrid loop; the key exists after the first call */
    hyt_key_t *key = NULL;
    hyt_online_info_t info;
    for (long i = 0; i < calls; i++) {
        memset(&info, 0, sizeof info);
        if (!key)
            key = a.ctx->keys[c][hyt_bucket(a.bytes)];
        if (!key || hyt_online_key_info(key, &info) != 0)
            info.state = "new";
        ks[i] = key && info.k_now ? info.k_now : 0;
        t_start[i] = MPI_Wtime();
        call_mpi((hyt_coll_t)c, s, r, count);
        dur[i] = MPI_Wtime() - t_start[i];
        memset(&info, 0, sizeof info);
        if (!key)
            key = a.ctx->keys[c][hyt_bucket(a.bytes)];
        if (key && hyt_online_key_info(key, &info) == 0) {
            reprobes[i] = info.reprobes;
            states[i] = info.state;
        } else {
            reprobes[i] = 0;
            states[i] = "new";
        }
    }
    double t_loop_end = MPI_Wtime();
    memset(&info, 0, sizeof info);
    if (!key || hyt_online_key_info(key, &info) != 0) {
        if (rank == 0)
            fprintf(stderr, "online_drift: the key was never tuned (table? HYTUNE_MODE?)\n");
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    int best_k_after = sweep(&a, alg, "after", fs, &best_after, info.settled_k, &settled_after_t);

    if (rank == 0) {
        fprintf(fc, "call,t_start_us,us,k,state,reprobes\n");
        long change = -1, drift_from = -1, reprobe = -1, resettle = -1;
        for (long i = 0; i < calls; i++) {
            fprintf(fc, "%ld,%.3f,%.3f,%d,%s,%d\n", i + 1, t_start[i] * 1e6, dur[i] * 1e6, ks[i],
                    states[i], reprobes[i]);
            if (change < 0 && t_start[i] >= t_change)
                change = i;
        }
        /* after the change: the first drift window that led to a re-probe,
         * the call that restarted probing, the first settled call after it */
        if (change >= 0) {
            int r0 = change > 0 ? reprobes[change - 1] : 0;
            for (long i = change; i < calls && reprobe < 0; i++)
                if (reprobes[i] > r0)
                    reprobe = i;
            for (long i = reprobe - 1; reprobe >= 0 && i >= 0; i--) {
                if (strcmp(states[i], "drift check") != 0)
                    break;
                drift_from = i;
            }
            if (reprobe >= 0 && drift_from < 0)
                drift_from = reprobe; /* a window of one call */
            for (long i = reprobe + 1; reprobe >= 0 && i < calls && resettle < 0; i++)
                if (strcmp(states[i], "settled") == 0)
                    resettle = i;
        }
        long k_before = change > 0 ? ks[change - 1] : -1;
        printf("sweep_before_end_us %.1f\n", t_sweep_end * 1e6);
        printf("loop_end_us %.1f\n", t_loop_end * 1e6);
        printf("change_at_us %.1f\n", t_change * 1e6);
        printf("change_call %ld\n", change >= 0 ? change + 1 : -1);
        printf("state_before_change %s\n", change > 0 ? states[change - 1] : "-");
        printf("k_before %ld\n", k_before);
        printf("best_k_before %d %.3f\n", best_k_before, best_before * 1e6);
        printf("drift_window_call %ld\n", drift_from >= 0 ? drift_from + 1 : -1);
        printf("reprobe_call %ld\n", reprobe >= 0 ? reprobe + 1 : -1);
        printf("resettled_call %ld\n", resettle >= 0 ? resettle + 1 : -1);
        printf("calls_change_to_resettled %ld\n",
               resettle >= 0 && change >= 0 ? resettle - change : -1);
        printf("k_after %d\n", info.settled_k);
        printf("best_k_after %d %.3f\n", best_k_after, best_after * 1e6);
        printf("k_after_us_on_new_bandwidth %.3f\n", settled_after_t * 1e6);
        printf("k_after_gap_pct %.2f\n", 100 * (settled_after_t / best_after - 1));
        printf("reprobes %d\n", info.reprobes);
        if (t_sweep_end >= t_change)
            printf("warning the sweep before the change ended after it\n");
        if (t_loop_end < t_change)
            printf("warning the loop ended before the change: more calls\n");
        fclose(fs);
        fclose(fc);
    }
    free(s);
    free(r);
    free(t_start);
    free(dur);
    free(ks);
    free(reprobes);
    free(states);
    MPI_Finalize();
    return 0;
}
