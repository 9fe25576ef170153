/* `hytune tune`: the command line (--help, parsing, checks between options). */
#include "offline/tune_opts.h"
#include "offline/nbtune.h"
#include "offline/oracle.h"

#include <stdlib.h>
#include <string.h>

void hyt_tune_usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec -n P hytune tune [OPTIONS]\n"
            "  --coll LIST        collectives, comma-separated (default allreduce,bcast)\n"
            "  --max-bytes N      largest message size, suffix K/M/G allowed (default 1M)\n"
            "  -o FILE            table to write (default hytune-table.json); written\n"
            "                     atomically: an interrupted run leaves the old file\n"
            "  --timeout S        benchmark time budget in seconds (default 600; by\n"
            "                     MPI_Wtime: simulated time under SimGrid), shared among\n"
            "                     the collectives; it ends the search and, with\n"
            "                     --tune-nodes, the gains measured on the whole job\n"
            "                     (rules whose points are left keep their shape's)\n"
            "  --point-budget S   time budget of one benchmark point (default 0.05)\n"
            "  --batch N          points per iteration (default 8)\n"
            "  --threshold X      convergence: expected gain left in the average log\n"
            "                     slowdown below X for 3 iterations (default 0.02)\n"
            "  --select MODE      decision (default): next points by the expected\n"
            "                     improvement of each size's choice per benchmark\n"
            "                     second, stop on the expected gain left; variance: the\n"
            "                     largest jackknife variance, stop when the cumulative\n"
            "                     variance changes by less than --threshold\n"
            "  --arrival PATTERN  how ranks enter each timed call: sync (default: all\n"
            "                     right after a barrier; time = slowest rank's call), or\n"
            "                     linear:US (rank r of p US*r/(p-1) late), last:US (the\n"
            "                     last rank US late), random:US (each rank up to US late,\n"
            "                     seeded); with a pattern the time is the last delay:\n"
            "                     last exit minus last entry\n"
            "  --cut RATIO        racing: a point whose second call is slower than RATIO x\n"
            "                     the best measured time at its shape and size is\n"
            "                     recorded after it (default 1.25; 0: never)\n"
            "  --seed N           seed of every random choice (default 1)\n"
            "  --dump FILE        also write every measurement as oracle CSV (the\n"
            "                     native guard's too, except with --exhaustive)\n"
            "  --exhaustive       measure every grid point (with --dump: an oracle);\n"
            "                     races only with an explicit --cut\n"
            "  --warm-start FILE  start from measurements in oracle CSV format\n"
            "  --progress MODE    auto (default): line if standard error is a terminal,\n"
            "                     else log; line: one line rewritten every 2 s\n"
            "                     (collective, points, benchmark seconds, expected gain\n"
            "                     left); log: a line per iteration (mpiexec passes rank\n"
            "                     0's standard error through a pipe: line for a terminal)\n"
            "  --oracle FILE      no MPI: replay the loop on an exhaustive CSV\n"
            "                     (coll,nodes,ppn,bytes,algorithm,k,time_us) and print\n"
            "                     R^2, slowdown, accuracy, mistakes per iteration for\n"
            "                     the tuner and for random sampling\n"
            "  --oracle-noise S   with --oracle: a noisy machine, reproducible by --seed:\n"
            "                     SIGMA[,outliers=P][,steps=N]: log-normal spread of one\n"
            "                     call, share of disturbed points (x1.5-3; default 0.02),\n"
            "                     non-monotone steps in the truth (default 3); see\n"
            "                     docs/tuner.md\n"
            "  --score TABLE      with --oracle: instead, score TABLE's choices against\n"
            "                     the oracle (average slowdown, mistakes > 10%%)\n"
            "  --random-to PCT    with --oracle: random sampling goes on to PCT%% of the\n"
            "                     exhaustive cost (default: to the tuner's own cost)\n"
            "  --mpich-json FILE  also write an MPICH selection file (load it with\n"
            "                     MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): the rules\n"
            "                     won by MPICH algorithms (\"native\" in the table);\n"
            "                     MPICH build only, written atomically\n"
            "  --shapes job|all   all (default): the job's nodes x ppn and its power-of-two\n"
            "                     sub-scales; job: only the job's own shape, whose rules\n"
            "                     then serve every communicator (much cheaper)\n"
            "  --tune-nodes N     search on the first N of the job's nodes only (its shapes\n"
            "                     are N nodes x ppn and their sub-scales), then measure\n"
            "                     each rule against native on all the job's nodes and a\n"
            "                     new communicator's cost up to the job's size, so the\n"
            "                     table's gains and set-up costs hold at the job's size\n"
            "                     (default: search on all nodes)\n"
            "  --k-max K          largest radix k tried for any algorithm with a radix\n"
            "                     (integer >= 2; default: the algorithm's limit at the\n"
            "                     job's size, up to p); bounds tuning time at scale\n"
            "  --mem-limit N      memory the benchmark buffers and scratch of all ranks\n"
            "                     of a node may take (suffix K/M/G; default 25%% of the\n"
            "                     node's memory; under SimGrid all ranks count, they\n"
            "                     share one process); larger sizes are not benchmarked\n"
            "  --no-native-guard  write rules that replace native (the MPI library's own\n"
            "                     selection) without measuring both at their sizes (by\n"
            "                     default a rule is kept only where it wins by more than\n"
            "                     the noise, at least 3%%)\n"
            "  --no-parallel      benchmark one point at a time even when network\n"
            "                     groups are known (default: points of a batch run at\n"
            "                     once on disjoint groups)\n"
            "  --no-mpich-algs    do not benchmark MPICH's own algorithms (MPI_T)\n"
            "  --nonblocking LIST also benchmark MPICH's algorithms and radixes (MPI_T)\n"
            "                     for these nonblocking collectives (all, or of\n"
            "                     iallreduce,ibcast,ireduce,iallgather,ialltoall,\n"
            "                     ibarrier,igather,iscatter,iallgatherv,ialltoallv,\n"
            "                     ireduce_scatter,ireduce_scatter_block,iscan,igatherv,\n"
            "                     iscatterv): the table's nonblocking section, and\n"
            "                     --mpich-json entries; MPICH only (skipped under\n"
            "                     SimGrid, which has no MPI_T)\n"
            "  --forest-depth N, --forest-min-leaf N, --forest-trees N\n"
            "                     shape of the random forest (defaults: see docs/tuner.md)\n"
            "  --inject-fail ALG, --inject-fail-once ALG\n"
            "                     testing aid: every benchmark attempt (or only the first\n"
            "                     attempt at each point) of candidate ALG (a label of\n"
            "                     --dump, e.g. knomial) fails; a failed point is retried\n"
            "                     once, then skipped\n"
            "  --help             this text\n");
}

static int parse_colls(const char *s, tune_opts_t *o, char *err, size_t len)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", s);
    o->ncolls = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int c = hyt_coll_from_name(t);
        if (c < 0 || !hyt_coll_tunable((hyt_coll_t)c) || o->ncolls == MAX_COLLS) {
            char valid[512];
            size_t used = 0;
            valid[0] = 0;
            for (int v = 0; v < HYT_NCOLL && used < sizeof valid; v++)
                if (hyt_coll_tunable((hyt_coll_t)v)) {
                    int n = snprintf(valid + used, sizeof valid - used, "%s%s", used ? ", " : "",
                                     hyt_coll_name((hyt_coll_t)v));
                    used += n > 0 ? (size_t)n : 0;
                }
            snprintf(err, len, "--coll: %s \"%s\"; valid: %s",
                     c < 0 ? "unknown collective" : "no hytune algorithm (only the MPI "
                     "library's own) for", t, valid);
            return -1;
        }
        o->colls[o->ncolls++] = c;
    }
    if (o->ncolls == 0) {
        snprintf(err, len, "--coll: give at least one collective");
        return -1;
    }
    return 0;
}

/* --arrival sync | linear:US | last:US | random:US; 0 ok, -1 not valid. */
static int parse_arrival(const char *v, tune_opts_t *o)
{
    static const char *const names[] = {"sync", "linear", "last", "random"};
    o->arrival = v;
    if (!strcmp(v, "sync")) {
        o->arrival_kind = ARRIVAL_SYNC;
        o->arrival_us = 0;
        return 0;
    }
    const char *colon = strchr(v, ':');
    for (int k = ARRIVAL_LINEAR; colon && k <= ARRIVAL_RANDOM; k++) {
        if ((size_t)(colon - v) != strlen(names[k]) || strncmp(v, names[k], strlen(names[k])))
            continue;
        char *end = NULL;
        double us = strtod(colon + 1, &end);
        if (end == colon + 1 || *end || !(us > 0 && us <= 1e6))
            return -1;
        o->arrival_kind = k;
        o->arrival_us = us;
        return 0;
    }
    return -1;
}

/* 0 ok, 1 help printed, -1 error in err. */
int hyt_tune_parse_args(int argc, char **argv, tune_opts_t *o, char *err, size_t len)
{
    memset(o, 0, sizeof *o);
    o->max_bytes = 1 << 20;
    o->out = "hytune-table.json";
    o->timeout = 600;
    o->point_budget = 0.05;
    o->threshold = 0.02;
    o->cut = 1.25;
    o->seed = 1;
    o->batch = 8;
    o->colls[0] = HYT_COLL_ALLREDUCE;
    o->colls[1] = HYT_COLL_BCAST;
    o->ncolls = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 1;
        if (!strcmp(a, "--exhaustive")) {
            o->exhaustive = 1;
            continue;
        }
        if (!strcmp(a, "--no-native-guard")) {
            o->no_guard = 1;
            continue;
        }
        if (!strcmp(a, "--shapes")) {
            if (!v || (strcmp(v, "job") && strcmp(v, "all"))) {
                snprintf(err, len, "--shapes %s: give job (only this job's nodes x ppn) or "
                         "all (also its power-of-two sub-scales)", v ? v : "");
                return -1;
            }
            o->job_shape_only = !strcmp(v, "job");
            i++;
            continue;
        }
        if (!strcmp(a, "--progress")) {
            if (!v || (strcmp(v, "auto") && strcmp(v, "line") && strcmp(v, "log"))) {
                snprintf(err, len, "--progress %s: give auto (line on a terminal, else log), "
                         "line or log", v ? v : "");
                return -1;
            }
            o->progress = !strcmp(v, "line") ? PROGRESS_LINE : !strcmp(v, "log") ? PROGRESS_LOG
                                                                                 : PROGRESS_AUTO;
            i++;
            continue;
        }
        if (!strcmp(a, "--select")) {
            if (!v || (strcmp(v, "decision") && strcmp(v, "variance"))) {
                snprintf(err, len, "--select %s: give decision (expected improvement of the "
                         "choices, the default) or variance (largest jackknife variance)",
                         v ? v : "");
                return -1;
            }
            o->select_variance = !strcmp(v, "variance");
            i++;
            continue;
        }
        if (!strcmp(a, "--no-mpich-algs")) {
            o->no_mpich = 1;
            continue;
        }
        if (!strcmp(a, "--no-parallel")) {
            o->no_parallel = 1;
            continue;
        }
        if (!v) {
            snprintf(err, len, "%s needs a value (see hytune tune --help)", a);
            return -1;
        }
        char *end = NULL;
        i++;
        if (!strcmp(a, "--coll")) {
            if (parse_colls(v, o, err, len))
                return -1;
        } else if (!strcmp(a, "--max-bytes")) {
            if (hyt_parse_bytes(v, &o->max_bytes)) {
                snprintf(err, len, "--max-bytes %s: give a size >= 1 like 65536, 64K or 1M", v);
                return -1;
            }
        } else if (!strcmp(a, "--mem-limit")) {
            if (hyt_parse_bytes(v, &o->mem_limit)) {
                snprintf(err, len, "--mem-limit %s: give a size >= 1 like 4G or 512M", v);
                return -1;
            }
        } else if (!strcmp(a, "-o")) {
            o->out = v;
        } else if (!strcmp(a, "--mpich-json")) {
            o->mpich_json = v;
        } else if (!strcmp(a, "--nonblocking")) {
            if (hyt_nbtune_parse(v, &o->nonblocking, err, len))
                return -1;
        } else if (!strcmp(a, "--oracle")) {
            o->oracle = v;
        } else if (!strcmp(a, "--oracle-noise")) {
            hyt_oracle_noise_t nz;
            if (hyt_oracle_noise_parse(v, &nz, err, len))
                return -1;
            o->oracle_noise = v;
        } else if (!strcmp(a, "--score")) {
            o->score = v;
        } else if (!strcmp(a, "--warm-start")) {
            o->warm_start = v;
        } else if (!strcmp(a, "--dump")) {
            o->dump = v;
        } else if (!strcmp(a, "--inject-fail") || !strcmp(a, "--inject-fail-once")) {
            o->inject_fail = v;
            o->inject_attempts = !strcmp(a, "--inject-fail") ? 2 : 1;
        } else if (!strcmp(a, "--timeout") || !strcmp(a, "--point-budget") ||
                   !strcmp(a, "--threshold")) {
            double d = strtod(v, &end);
            if (end == v || *end || !(d > 0)) {
                snprintf(err, len, "%s %s: give a positive number", a, v);
                return -1;
            }
            *(!strcmp(a, "--timeout") ? &o->timeout
              : !strcmp(a, "--point-budget") ? &o->point_budget : &o->threshold) = d;
        } else if (!strcmp(a, "--arrival")) {
            if (parse_arrival(v, o)) {
                snprintf(err, len, "--arrival %s: give sync, or linear:US, last:US or random:US "
                         "with US the spread in microseconds (0 < US <= 1e6), e.g. linear:50", v);
                return -1;
            }
        } else if (!strcmp(a, "--random-to")) {
            double d = strtod(v, &end);
            if (end == v || *end || !(d > 0 && d <= 100)) {
                snprintf(err, len, "--random-to %s: give a percentage of the exhaustive cost "
                         "in (0, 100], e.g. 30", v);
                return -1;
            }
            o->random_to = d / 100;
        } else if (!strcmp(a, "--cut")) {
            double d = strtod(v, &end);
            if (end == v || *end || !(d == 0 || (d >= 1 && d <= 1000))) {
                snprintf(err, len, "--cut %s: give a ratio >= 1 (e.g. 1.5), or 0 to repeat "
                         "every point", v);
                return -1;
            }
            o->cut = d;
            o->cut_given = 1;
        } else if (!strcmp(a, "--forest-depth") || !strcmp(a, "--forest-min-leaf") ||
                   !strcmp(a, "--forest-trees")) {
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 10000) {
                snprintf(err, len, "%s %s: give a positive integer", a, v);
                return -1;
            }
            *(!strcmp(a, "--forest-depth") ? &o->forest_depth
              : !strcmp(a, "--forest-min-leaf") ? &o->forest_min_leaf : &o->forest_trees) = (int)n;
        } else if (!strcmp(a, "--tune-nodes")) {
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > (1L << 30)) {
                snprintf(err, len, "--tune-nodes %s: give a number of nodes >= 1, e.g. 16", v);
                return -1;
            }
            o->tune_nodes = (int)n;
        } else if (!strcmp(a, "--k-max")) {
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 2 || n > (1L << 30)) {
                snprintf(err, len, "--k-max %s: give an integer >= 2 (the smallest radix of "
                         "k-nomial, recursive multiplying and k-Bruck), e.g. 8", v);
                return -1;
            }
            o->k_max = (int)n;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--batch")) {
            long long n = strtoll(v, &end, 10);
            if (end == v || *end || n < (a[2] == 's' ? 0 : 1) || n > 1000000000) {
                snprintf(err, len, "%s %s: give a %s integer", a, v,
                         a[2] == 's' ? "non-negative" : "positive");
                return -1;
            }
            if (a[2] == 's')
                o->seed = (uint64_t)n;
            else
                o->batch = (int)n;
        } else {
            snprintf(err, len, "unknown option %s (see hytune tune --help)", a);
            return -1;
        }
    }
    if (o->score && !o->oracle) {
        snprintf(err, len, "--score %s: needs --oracle FILE, the measurements to score the "
                 "table against", o->score);
        return -1;
    }
    if (o->oracle_noise && (!o->oracle || o->score)) {
        snprintf(err, len, "--oracle-noise: only for an --oracle replay (without --score)");
        return -1;
    }
    if (o->random_to > 0 && (!o->oracle || o->score)) {
        snprintf(err, len, "--random-to: only for an --oracle replay (without --score)");
        return -1;
    }
    if (o->arrival && o->oracle) {
        snprintf(err, len, "--arrival %s: --oracle replays measured times and runs no call "
                 "(drop one of the two)", o->arrival);
        return -1;
    }
    if (o->inject_fail && o->oracle) {
        snprintf(err, len, "--inject-fail%s %s: --oracle runs no benchmark that could fail "
                 "(drop one of the two)", o->inject_attempts == 1 ? "-once" : "", o->inject_fail);
        return -1;
    }
#ifdef HYT_SMPI
    if (o->mpich_json && !o->oracle) {
        snprintf(err, len, "--mpich-json %s: needs MPICH's MPI_T algorithm variables; under "
                 "SimGrid the MPI library's selection is fixed at launch (drop the option)",
                 o->mpich_json);
        return -1;
    }
#endif
    if (o->nonblocking && (o->oracle || o->no_mpich)) {
        snprintf(err, len, "--nonblocking measures MPICH's algorithms on the running job: drop "
                 "%s", o->oracle ? "--oracle" : "--no-mpich-algs");
        return -1;
    }
    if (o->mpich_json && o->no_mpich) {
        snprintf(err, len, "--mpich-json needs MPICH algorithms as candidates: drop "
                 "--no-mpich-algs");
        return -1;
    }
    return 0;
}

void hyt_tune_al_opts(const tune_opts_t *t, uint64_t gran, hyt_al_opts_t *o)
{
    hyt_al_opts_default(o);
    o->batch = t->batch;
    o->init_points = 2 * t->batch;
    o->threshold = t->threshold;
    o->select = t->select_variance ? HYT_AL_SELECT_VARIANCE : HYT_AL_SELECT_DECISION;
    /* an oracle needs every point's median, unless racing is asked for (under
     * SimGrid, one point at a time, a loser's second call is its median) */
    o->cut = t->exhaustive && !t->cut_given ? 0 : t->cut;
    o->seed = t->seed;
    o->forest.seed = t->seed;
    if (t->forest_depth)
        o->forest.max_depth = t->forest_depth;
    if (t->forest_min_leaf)
        o->forest.min_leaf = t->forest_min_leaf;
    if (t->forest_trees)
        o->forest.ntrees = t->forest_trees;
    o->bytes_gran = gran;
    if (t->exhaustive) { /* every power-of-two point, in random order */
        o->random = 1;
        o->offgrid_every = 0;
    }
}
