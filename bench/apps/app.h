/* Shared helpers of the proxy applications in bench/apps/ (plain MPI C).
 *
 * Options are "--name value" pairs parsed by hand: getopt keeps its state in
 * libc globals, which all ranks share under SimGrid SMPI.  Local work is
 * charged to the simulated clock with smpi_execute_flops (the runs use
 * smpi/simulate-computation:no, so host time is free); on a real MPI the
 * work itself takes the time.  Every application ends with app_finish(),
 * which prints one line
 *     APP name ranks P time_s T verified yes|no [extra]
 * (T = the largest simulated/wall time over ranks) and returns the exit
 * status: 0 when every rank verified its result, 1 otherwise. */
#ifndef HYT_BENCH_APP_H
#define HYT_BENCH_APP_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct app_opt {
    const char *name; /* "--iters" */
    long *value;
    long min, max;
    const char *help;
} app_opt_t;

static inline void app_usage(const char *prog, const app_opt_t *opts, int n, FILE *out)
{
    fprintf(out, "usage: %s [OPTIONS]\n", prog);
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-14s %s (default %ld, %ld..%ld)\n", opts[i].name, opts[i].help,
                *opts[i].value, opts[i].min, opts[i].max);
}

/* Parse argv into opts; on a bad option rank 0 explains and every rank
 * returns -1 (the decision depends on argv only, identical on all ranks). */
static inline int app_parse(int argc, char **argv, const app_opt_t *opts, int n, int rank)
{
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--help") == 0) {
            if (rank == 0)
                app_usage(argv[0], opts, n, stdout);
            return -1;
        }
        int found = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(argv[a], opts[i].name) == 0)
                found = i;
        char *end = NULL;
        long v = found >= 0 && a + 1 < argc ? strtol(argv[a + 1], &end, 10) : 0;
        if (found < 0 || !end || end == argv[a + 1] || *end || v < opts[found].min ||
            v > opts[found].max) {
            if (rank == 0) {
                if (found < 0)
                    fprintf(stderr, "%s: unknown option \"%s\"\n", argv[0], argv[a]);
                else
                    fprintf(stderr, "%s: %s needs an integer in %ld..%ld\n", argv[0],
                            argv[a], opts[found].min, opts[found].max);
                app_usage(argv[0], opts, n, stderr);
            }
            return -1;
        }
        *opts[found].value = v;
        a++;
    }
    return 0;
}

/* Untimed iterations before the timed loop: --warmup's value, or for its
 * default (-1) three times the timed ones, so that one-time set-up (hytune's
 * private communicator once the calls have repaid it, docs/memory.md) stays
 * out of the timed loop. */
static inline long app_warmup(long warmup, long iters)
{
    return warmup < 0 ? 3 * iters : warmup;
}

/* Charge local work of `flops` floating-point operations. */
static inline void app_compute(double flops)
{
#ifdef SMPI_H
    if (flops > 0)
        smpi_execute_flops(flops);
#else
    (void)flops;
#endif
}

/* Largest local time over ranks, global verification, one summary line. */
static inline int app_finish(const char *name, double local_time, int local_ok, const char *extra)
{
    int rank, size, ok;
    double t;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Reduce(&local_time, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Allreduce(&local_ok, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("APP %s ranks %d time_s %.9f verified %s%s%s\n", name, size, t, ok ? "yes" : "no",
               extra && *extra ? " " : "", extra ? extra : "");
    return ok ? 0 : 1;
}

#endif
