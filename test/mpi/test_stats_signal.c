/* Statistics written on a signal (HYTUNE_STATS_SIGNALS; run by
 * test/mpi/stats_signal.sh with HYTUNE_STATS=DIR/s.%r).
 *   loop DIR [slow]
 *             after 200 iterations of Allreduce + Bcast, write DIR/ready.RANK
 *             (this process's pid) and go on until a signal ends the process
 *             (exit 3 after 60 s without one); slow: the application's own
 *             SIGTERM handler (installed before MPI_Init, so hytune chains to
 *             it) waits 3 s, then ends the process by SIGTERM
 *   usr1      install a SIGUSR1 handler before MPI_Init; after 100
 *             iterations raise SIGUSR1: the handler must have run (hytune
 *             chains to it) and the statistics file must already count the
 *             100 Allreduce calls; then 100 more and a normal finalize */
#include "test/check.h"

#include <json-c/json.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen++;
}

/* Async-signal-safe: nanosleep, signal, raise. */
static void on_term_slow(int sig)
{
    struct timespec ts = {3, 0};
    while (nanosleep(&ts, &ts) != 0)
        ;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void iteration(int i)
{
    int in = i, out = 0, b = i;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* Allreduce calls the statistics JSON of this rank counts, -1 if unreadable. */
static long long json_allreduce_calls(int rank)
{
    const char *pat = getenv("HYTUNE_STATS");
    if (!pat || !strstr(pat, "%r"))
        return -1;
    char path[4096];
    const char *r = strstr(pat, "%r");
    snprintf(path, sizeof path, "%.*s%d%s.json", (int)(r - pat), pat, rank, r + 2);
    json_object *root = json_object_from_file(path);
    if (!root)
        return -1;
    long long n = 0;
    json_object *comms, *keys, *v;
    if (json_object_object_get_ex(root, "communicators", &comms))
        for (size_t c = 0; c < json_object_array_length(comms); c++)
            if (json_object_object_get_ex(json_object_array_get_idx(comms, c), "keys", &keys))
                for (size_t k = 0; k < json_object_array_length(keys); k++) {
                    json_object *key = json_object_array_get_idx(keys, k);
                    if (json_object_object_get_ex(key, "collective", &v) &&
                        strcmp(json_object_get_string(v), "allreduce") == 0 &&
                        json_object_object_get_ex(key, "calls", &v))
                        n += json_object_get_int64(v);
                }
    json_object_put(root);
    return n;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "usr1";
    if (strcmp(mode, "usr1") == 0)
        signal(SIGUSR1, on_usr1);
    if (strcmp(mode, "loop") == 0 && argc > 3 && strcmp(argv[3], "slow") == 0)
        signal(SIGTERM, on_term_slow);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "loop") == 0 && argc > 2) {
        for (int i = 0; i < 200; i++)
            iteration(i);
        char path[4096];
        snprintf(path, sizeof path, "%s/ready.%d", argv[2], rank);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
        time_t end = time(NULL) + 60;
        for (int i = 0; time(NULL) < end; i++)
            iteration(i);
        fprintf(stderr, "test_stats_signal: no signal within 60 s\n");
        return 3;
    }
    for (int i = 0; i < 100; i++)
        iteration(i);
    raise(SIGUSR1);
    CHECK(usr1_seen == 1, "the application's SIGUSR1 handler ran %d times", (int)usr1_seen);
    long long n = json_allreduce_calls(rank);
    CHECK(n == 100, "statistics written on SIGUSR1 count %lld allreduce calls, want 100", n);
    for (int i = 0; i < 100; i++)
        iteration(i);
    MPI_Finalize();
    n = json_allreduce_calls(rank);
    CHECK(n == 200, "statistics at finalize count %lld allreduce calls, want 200", n);
    return check_done("test_stats_signal");
}
