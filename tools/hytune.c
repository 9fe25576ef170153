/* The hytune command: list, info, topo, tune, report. */
#include "offline/report.h"
#include "offline/tune.h"
#include "src/hyt.h"
#include "topology/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the file VERSION, passed by the Makefile */
#ifndef HYT_VERSION
#error "HYT_VERSION is not defined: build with make, which passes -DHYT_VERSION from the file VERSION"
#endif

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hytune COMMAND [ARGS]\n"
            "\n"
            "commands:\n"
            "  list [COLLECTIVE]     the algorithm registry: name, k range, restrictions\n"
            "  info [--env]          version and build; --env: every HYTUNE_* variable\n"
            "  topo                  the node model of this allocation (run under mpiexec)\n"
            "  tune [OPTIONS]        allocation-time tuning (run under mpiexec; tune --help)\n"
            "  report STATS.json [MORE.json ...] [--png DIR] [--csv]\n"
            "                        the statistics of runs, side by side (report --help)\n"
            "  help                  this text\n"
            "\n"
            "Use the library: link -lhytune, or LD_PRELOAD=libhytune.so, and set\n"
            "HYTUNE_TABLE=table.json (see `hytune info --env` and the README).\n");
}

static void flags_text(unsigned f, char *buf, size_t len)
{
    buf[0] = 0;
    snprintf(buf, len, "%s%s%s%s", (f & HYT_ALG_NEEDS_COMMUTATIVE) ? "commutative-op " : "",
             (f & HYT_ALG_NO_INPLACE) ? "no-in-place " : "",
             (f & HYT_ALG_NODE_CONSECUTIVE) ? "node-consecutive " : "",
             (f & HYT_ALG_COMPOSITION) ? "node-aware " : "");
    if (!buf[0])
        snprintf(buf, len, "-");
}

static int cmd_list(int argc, char **argv)
{
    int only = -1;
    if (argc > 1) {
        only = hyt_coll_from_name(argv[1]);
        if (only < 0) {
            fprintf(stderr, "hytune list: unknown collective \"%s\"; valid: %s\n", argv[1],
                    hyt_coll_names());
            return 2;
        }
    }
    printf("%-22s %-16s %-10s %-28s %s\n", "collective", "algorithm", "k", "restrictions",
           "description");
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        if (only >= 0 && (int)a->coll != only)
            continue;
        char k[32], fl[96];
        if (!hyt_alg_has_radix(a))
            snprintf(k, sizeof k, "-");
        else if (a->k_max == HYT_K_P)
            snprintf(k, sizeof k, "%d..p", a->k_min);
        else
            snprintf(k, sizeof k, "%d..%d", a->k_min, a->k_max);
        flags_text(a->flags, fl, sizeof fl);
        printf("%-22s %-16s %-10s %-28s %s\n", hyt_coll_name(a->coll), a->name, k, fl, a->desc);
    }
    return 0;
}

static int cmd_info(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--env") == 0) {
        printf("hytune environment variables (read once at MPI_Init; give every rank the "
               "same values)\n\n");
        hyt_env_print(stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "hytune info: unknown option %s (valid: --env)\n", argv[1]);
        return 2;
    }
    printf("hytune %s\n", HYT_VERSION);
#ifdef HYT_SMPI
    printf("built for: SimGrid SMPI\n");
#else
    printf("built for: %s\n", MPI_VERSION >= 4 ? "MPI 4" : "MPI 3");
#endif
    printf("collectives: allreduce bcast reduce allgather alltoall reduce_scatter_block\n");
    printf("algorithms: %d registered (hytune list)\n", hyt_nalgs);
    return 0;
}

int hyt_topo_print(FILE *out);

static int cmd_topo(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = hyt_topo_print(rank == 0 ? stdout : NULL);
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0)
        return cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "topo") == 0)
        return cmd_topo(argc - 1, argv + 1);
    if (strcmp(cmd, "tune") == 0)
        return hyt_tune_main(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return hyt_report_main(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0) {
        printf("hytune %s\n", HYT_VERSION);
        return 0;
    }
    fprintf(stderr, "hytune: unknown command \"%s\"\n\n", cmd);
    usage(stderr);
    return 2;
}
