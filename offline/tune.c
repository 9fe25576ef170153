/* `hytune tune`: allocation-time tuning inside one MPI job.
 *
 * Rank 0 runs the active-learning loop (offline/active.c) of each collective
 * and decides every batch; the batch is broadcast, every point is benchmarked
 * on a sub-communicator of the wanted node count and processes per node
 * (MPI_Comm_split over the world node map, ranks node-consecutive), and the
 * answers are reduced back to rank 0.  So all ranks take the same decisions
 * and only rank 0 looks at clocks.  Points of one batch run concurrently on
 * disjoint node sets in different network groups when the groups are known
 * (topology/), one at a time otherwise.  At the end the rules of every tuned
 * shape are written as one table, atomically.
 *
 * Benchmark of one point (bench_point): two warm-up calls, then repetitions,
 * each barrier-synchronized, timed on every rank and reduced to the maximum
 * over ranks; stops after HYT_BENCH_MIN_REPS once the point's time budget is
 * spent (or HYT_BENCH_MAX_REPS); the answer is the median of those maxima.  A
 * point whose first call exceeds the budget is recorded as slow without
 * repetitions, and so is one whose second call (the first after the call
 * that pays any setup) is slower than its cut (racing, hyt_al_cut_us: it
 * cannot be its group's choice).  Every stop test uses reduced values, so
 * all ranks agree. */
#include "offline/tune.h"
#include "offline/active.h"
#include "offline/memory.h"
#include "offline/mpich.h"
#include "offline/oracle.h"
#include "offline/rules.h"
#include "src/file.h"
#include "src/hyt.h"
#include "topology/topology.h"

#ifdef HYT_SMPI
#include <simgrid/host.h>
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HYT_BENCH_WARMUP 2
#define HYT_BENCH_MIN_REPS 5
#define HYT_BENCH_MAX_REPS 30
#define MAX_COLLS HYT_NCOLL
#define MAX_RULES 128

/* --arrival: when each rank enters a timed call (see timed_call) */
enum { ARRIVAL_SYNC, ARRIVAL_LINEAR, ARRIVAL_LAST, ARRIVAL_RANDOM };

/* How rank 0 shows the progress of the search (--progress). */
enum { PROGRESS_AUTO, PROGRESS_LINE, PROGRESS_LOG };
#define PROGRESS_EVERY_S 2.0 /* the rewritten line's period */

typedef struct tune_opts {
    int colls[MAX_COLLS], ncolls;
    uint64_t max_bytes;
    const char *out, *mpich_json, *oracle, *warm_start, *dump, *score;
    const char *inject_fail;  /* --inject-fail(-once) LABEL: testing aid */
    int inject_attempts;      /* attempts of that candidate that fail (1 or 2) */
    double timeout, point_budget, threshold;
    double cut;               /* --cut RATIO: racing (0: never cut) */
    int cut_given;            /* --cut on the command line (--exhaustive races only then) */
    double random_to;         /* --random-to PCT (--oracle): random sampling's budget */
    const char *arrival;      /* --arrival PATTERN as given (NULL: sync) */
    const char *oracle_noise; /* --oracle-noise SPEC (NULL: exact replay) */
    int arrival_kind;         /* ARRIVAL_* */
    double arrival_us;        /* its spread in us */
    uint64_t seed;
    int batch, exhaustive, no_mpich;
    int select_variance;      /* --select variance: ACCLAiM's choice and stop */
    int progress;             /* --progress: PROGRESS_* */
    int k_max;                /* --k-max: largest radix of any candidate (0: no cap) */
    int no_parallel;          /* --no-parallel: one benchmark point at a time */
    int job_shape_only;       /* --shapes job: tune only the job's own shape */
    int forest_depth, forest_min_leaf, forest_trees; /* 0: the forest's defaults */
    uint64_t mem_limit;       /* --mem-limit bytes (0: a share of the node's memory) */
    int no_guard;             /* --no-native-guard: rules replace native unchecked */
} tune_opts_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec -n P hytune tune [OPTIONS]\n"
            "  --coll LIST        collectives, comma-separated (default allreduce,bcast)\n"
            "  --max-bytes N      largest message size, suffix K/M/G allowed (default 1M)\n"
            "  -o FILE            table to write (default hytune-table.json); written\n"
            "                     atomically: an interrupted run leaves the old file\n"
            "  --timeout S        benchmark time budget in seconds (default 600)\n"
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
            "  --dump FILE        also write every measurement as oracle CSV\n"
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
static int parse_args(int argc, char **argv, tune_opts_t *o, char *err, size_t len)
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
    if (o->mpich_json && o->no_mpich) {
        snprintf(err, len, "--mpich-json needs MPICH algorithms as candidates: drop "
                 "--no-mpich-algs");
        return -1;
    }
    return 0;
}

static void al_opts(const tune_opts_t *t, uint64_t gran, hyt_al_opts_t *o)
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

/* Reductions run MPI_INT / MPI_SUM (exact, commutative): sizes are multiples of 4. */
static uint64_t coll_gran(int c)
{
    return hyt_coll_has_op((hyt_coll_t)c) ? 4 : 1;
}

static int oracle_main(const tune_opts_t *t)
{
    char err[512];
    hyt_oracle_t *o = hyt_oracle_read(t->oracle, err, sizeof err);
    if (!o) {
        fprintf(stderr, "hytune tune: %s\n", err);
        return 2;
    }
    if (t->k_max > 0) { /* --k-max: drop the oracle's larger radices */
        int n = 0;
        for (int i = 0; i < o->n; i++)
            if (o->rows[i].k <= t->k_max)
                o->rows[n++] = o->rows[i];
        o->n = n;
    }
    int rc = 0;
    if (t->score) {
        hyt_table_t *tab = hyt_table_load(t->score, err, sizeof err);
        if (!tab) {
            fprintf(stderr, "hytune tune: --score: %s\n", err);
            hyt_oracle_free(o);
            return 2;
        }
        for (int i = 0; i < t->ncolls; i++)
            if (hyt_oracle_score_table(o, hyt_coll_name((hyt_coll_t)t->colls[i]), tab, stdout))
                rc = 1;
        hyt_table_free(tab);
        hyt_oracle_free(o);
        return rc;
    }
    hyt_oracle_noise_t nz = {0};
    if (t->oracle_noise) { /* parsed in parse_args */
        char e[256];
        hyt_oracle_noise_parse(t->oracle_noise, &nz, e, sizeof e);
        nz.seed = t->seed;
    }
    hyt_oracle_set_noise(&nz);
    hyt_oracle_total_t tot = {0};
    for (int i = 0; i < t->ncolls; i++) {
        hyt_al_opts_t ao;
        al_opts(t, coll_gran(t->colls[i]), &ao);
        if (hyt_oracle_simulate(o, hyt_coll_name((hyt_coll_t)t->colls[i]), &ao, t->random_to, &tot,
                                stdout))
            rc = 1;
    }
    if (t->ncolls > 1)
        hyt_oracle_print_total(&tot, stdout);
    hyt_oracle_free(o);
    return rc;
}

/* ---- the MPI harness ---- */

/* Candidates of a collective: registry rows x k grid (powers of two up to the
 * largest useful k at the job's size, plus the topology prior; none above
 * --k-max). */
typedef struct cand {
    const hyt_alg_t *alg;  /* MPICH candidates: the native row (runs PMPI) */
    int cat, k;
    int mpich;             /* MPICH candidates: value of the algorithm variable, else -1 */
    const char *mname;     /* MPICH candidates: algorithm name */
    char label[64];        /* "knomial", "mpich:recursive_doubling" */
} cand_t;

static cand_t mk_cand(const hyt_alg_t *a, int cat, int k)
{
    cand_t c = {.alg = a, .cat = cat, .k = k, .mpich = -1};
    snprintf(c.label, sizeof c.label, "%s", a->name);
    return c;
}

typedef struct job {
    int nodes, ppn;           /* usable shape: ppn = fewest ranks on any node */
    int *node_order;          /* world nodes ordered by network group */
    int *node_pos;            /* position of world node in node_order */
    int my_local;             /* my index among the ranks of my node */
    int parallel;             /* network groups known: concurrent points */
    int shapes[64][2], nshapes;
} job_t;

static int add_k(int *ks, int n, int k)
{
    for (int i = 0; i < n; i++)
        if (ks[i] == k)
            return n;
    ks[n] = k;
    return n + 1;
}

static int use_mpich; /* MPICH algorithms are candidates (MPI_T ready) */

static int make_cands(int c, const job_t *j, int k_cap, cand_t *out, int max)
{
    int n = 0, cat = 0, p = j->nodes * j->ppn;
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        if ((int)a->coll != c)
            continue;
        if (!hyt_alg_has_radix(a)) {
            if (n < max)
                out[n++] = mk_cand(a, cat, 0);
        } else {
            int ks[40], nk = 0, kmax = hyt_alg_k_max(a, p);
            if (k_cap > 0 && kmax > k_cap) /* --k-max */
                kmax = k_cap;
            for (int k = 2; k <= kmax && nk < 30; k *= 2)
                if (k >= a->k_min)
                    nk = add_k(ks, nk, k);
            if (a->k_min >= 1 && a->k_min <= kmax)
                nk = add_k(ks, nk, a->k_min);
            hyt_comm_t fake = {.size = p, .nodes = j->nodes, .ppn = j->ppn, .ppn_min = j->ppn,
                               .node_consecutive = 1};
            nk = add_k(ks, nk, hyt_topo_prior_k(a, &fake, 8));
            nk = add_k(ks, nk, hyt_topo_prior_k(a, &fake, 1 << 20));
            for (int q = 0; q < nk && n < max; q++)
                if (ks[q] >= a->k_min && ks[q] <= kmax)
                    out[n++] = mk_cand(a, cat, ks[q]);
        }
        cat++;
        if (cat == HYT_FOREST_MAX_CAT)
            break;
    }
    /* MPICH's own algorithms (MPI_T), when available: one category each */
    const char *mn[HYT_MPICH_MAX_ALGS];
    int mv[HYT_MPICH_MAX_ALGS];
    int nm = use_mpich ? hyt_mpich_algs((hyt_coll_t)c, mn, mv, HYT_MPICH_MAX_ALGS) : 0;
    for (int i = 0; i < nm && n < max && cat < HYT_FOREST_MAX_CAT; i++) {
        out[n] = mk_cand(hyt_alg_native((hyt_coll_t)c), cat++, 0);
        out[n].mpich = mv[i];
        out[n].mname = mn[i];
        snprintf(out[n].label, sizeof out[n].label, "mpich:%s", mn[i]);
        n++;
    }
    return n;
}

/* Can the candidate run at this shape and size? */
static int cand_ok(const cand_t *cd, int c, int nodes, int ppn, uint64_t bytes)
{
    if (cd->mpich >= 0)
        return hyt_mpich_alg_ok((hyt_coll_t)c, cd->mname, nodes, ppn, bytes);
    return !cd->k || cd->k <= hyt_alg_k_max(cd->alg, nodes * ppn);
}

/* The memory bound (--mem-limit): a point is benchmarked only if what one
 * rank holds during it (memory.h), times the ranks counted, fits the limit.
 * Counted: the ranks of the largest node (every rank keeps its buffers
 * between points), all ranks of the job under SimGrid (one process).  The
 * same on every rank (the limit is agreed in mpi_main). */
typedef struct mem_plan {
    uint64_t limit, node;  /* bytes; node: the node's memory (0: not looked up) */
    int count;             /* ranks counted against the limit */
} mem_plan_t;
static mem_plan_t mem_plan;

static uint64_t point_need(int c, const cand_t *cd, int p, uint64_t b)
{
    return hyt_mem_rank_need((hyt_coll_t)c, cd->alg, cd->k, b, p) * (uint64_t)mem_plan.count;
}

/* Is the grid point of (cd, p) at the power of two b within the limit?
 * Checked at 1.4 b, the largest size a chosen point is moved to (active.c). */
static int point_fits(int c, const cand_t *cd, int p, uint64_t b)
{
    return point_need(c, cd, p, b + 2 * b / 5) <= mem_plan.limit;
}

/* The grid; top[q]: candidate q's largest size kept at the job's own shape
 * (0: none), for the report of what the limit skipped. */
static int make_grid(int c, const job_t *j, const cand_t *cands, int ncand, uint64_t max_bytes,
                     hyt_al_point_t **out, uint64_t *top)
{
    int cap = j->nshapes * 64 * ncand, n = 0;
    hyt_al_point_t *g = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *g);
    if (!g)
        return -1;
    for (int q = 0; q < ncand; q++)
        top[q] = 0;
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1], job = nodes == j->nodes && ppn == j->ppn;
        for (uint64_t b = coll_gran(c); b <= max_bytes; b *= 2)
            for (int q = 0; q < ncand; q++)
                if (cand_ok(&cands[q], c, nodes, ppn, b) &&
                    point_fits(c, &cands[q], nodes * ppn, b)) {
                    g[n++] = (hyt_al_point_t){nodes, ppn, b, cands[q].cat, cands[q].k};
                    if (job)
                        top[q] = b;
                }
    }
    *out = g;
    return n;
}

/* Rank 0: one line per collective the limit cut: its largest size, and
 * the candidates stopped below it. */
static void report_mem(int c, const job_t *j, const cand_t *cands, int ncand, const uint64_t *top,
                       uint64_t max_bytes)
{
    uint64_t hi = 0, want = coll_gran(c);
    while (want * 2 <= max_bytes)
        want *= 2;
    for (int q = 0; q < ncand; q++)
        hi = top[q] > hi ? top[q] : hi;
    char line[1024], a[32], b[32], d[32];
    int len = 0;
    if (hi < want) {
        uint64_t next = hi ? 2 * hi : coll_gran(c);
        uint64_t need = UINT64_MAX;
        for (int q = 0; q < ncand; q++) {
            uint64_t v = point_need(c, &cands[q], j->nodes * j->ppn, next + 2 * next / 5);
            need = v < need ? v : need;
        }
        len = snprintf(line, sizeof line, "sizes above %s not benchmarked (%s, moved up to 1.4x, "
                       "needs %s at least",
                       hi ? hyt_mem_fmt(hi, a, sizeof a) : "none", hyt_mem_fmt(next, b, sizeof b),
                       hyt_mem_fmt(need, d, sizeof d));
        len += snprintf(line + len, sizeof line - (size_t)len, " for %d ranks)", mem_plan.count);
    }
    /* candidates stopped below hi, grouped by their largest size */
    for (uint64_t at = hi; at > 0 && len < (int)sizeof line - 96;) {
        uint64_t next = 0;
        int first = 1;
        for (int q = 0; q < ncand; q++) {
            if (top[q] < at && top[q] > next)
                next = top[q];
            if (top[q] != at || at == hi || len >= (int)sizeof line - 96)
                continue;
            char k[16] = "";
            if (cands[q].k)
                snprintf(k, sizeof k, ":%d", cands[q].k);
            len += snprintf(line + len, sizeof line - (size_t)len, "%s%s%s%s",
                            first ? (len ? "; up to " : "up to ") : ", ",
                            first ? hyt_mem_fmt(at, a, sizeof a) : "", first ? " only: " : "",
                            cands[q].label);
            len += snprintf(line + len, sizeof line - (size_t)len, "%s", k);
            first = 0;
        }
        at = next;
    }
    if (len)
        fprintf(stderr, "tune: memory: %s: %s\n", hyt_coll_name((hyt_coll_t)c), line);
}

/* The candidate of a point (alg field = algorithm category, k). */
static const cand_t *find_cand(const cand_t *cands, int n, const hyt_al_point_t *p)
{
    for (int q = 0; q < n; q++)
        if (cands[q].cat == p->alg && cands[q].k == p->k)
            return &cands[q];
    return NULL;
}

/* Shapes: powers of two up to the job's nodes and ppn, plus the job's own
 * (only the job's own with --shapes job: its rules then serve every
 * communicator, and tuning costs one shape's benchmarks). */
static void make_shapes(job_t *j, int job_only)
{
    int ns[40], nn = 0, ps[40], np = 0;
    if (job_only) {
        j->shapes[0][0] = j->nodes;
        j->shapes[0][1] = j->ppn;
        j->nshapes = 1;
        return;
    }
    for (int v = 1; v <= j->nodes; v *= 2)
        ns[nn++] = v;
    if (ns[nn - 1] != j->nodes)
        ns[nn++] = j->nodes;
    for (int v = 1; v <= j->ppn; v *= 2)
        ps[np++] = v;
    if (ps[np - 1] != j->ppn)
        ps[np++] = j->ppn;
    j->nshapes = 0;
    for (int a = 0; a < nn; a++)
        for (int b = 0; b < np; b++)
            if (ns[a] * ps[b] >= 2 && j->nshapes < 64) {
                j->shapes[j->nshapes][0] = ns[a];
                j->shapes[j->nshapes++][1] = ps[b];
            }
}

static int job_init(job_t *j, int job_only, int no_parallel)
{
    memset(j, 0, sizeof *j);
    int N = hyt_world_nodes, W = hyt_world_size;
    int *count = calloc((size_t)N, sizeof *count);
    int *grp = malloc((size_t)N * sizeof *grp);
    j->node_order = malloc((size_t)N * sizeof *j->node_order);
    j->node_pos = malloc((size_t)N * sizeof *j->node_pos);
    if (!count || !grp || !j->node_order || !j->node_pos) {
        free(count);
        free(grp);
        return -1;
    }
    for (int r = 0; r < W; r++) {
        if (r == hyt_world_rank)
            j->my_local = count[hyt_world_node_of[r]];
        count[hyt_world_node_of[r]]++;
    }
    j->nodes = N;
    j->ppn = W;
    for (int n = 0; n < N; n++)
        if (count[n] < j->ppn)
            j->ppn = count[n];
    /* nodes ordered by group (stable): concurrent points get whole groups */
    int ng = hyt_topo_ngroups(), k = 0;
    for (int g = 0; g < ng; g++)
        for (int n = 0; n < N; n++)
            if (hyt_topo_node_group(n) == g)
                j->node_order[k++] = n;
    for (int n = 0; n < N && k < N; n++)
        if (hyt_topo_node_group(n) < 0 || hyt_topo_node_group(n) >= ng)
            j->node_order[k++] = n;
    for (int p = 0; p < N; p++)
        j->node_pos[j->node_order[p]] = p;
    j->parallel = ng > 1 && ng < N && !no_parallel;
    free(count);
    free(grp);
    make_shapes(j, job_only);
    return 0;
}

/* One benchmark point on comm: sets *us (median of per-rep max) and *cost. */
typedef struct bufs {
    void *s, *r;
    size_t len;
    int *v, vp; /* v-variants: counts and displacements of vp ranks */
} bufs_t;

static int bench_args(int c, uint64_t bytes, int p, bufs_t *b, hyt_args_t *a)
{
    int red = hyt_coll_has_op((hyt_coll_t)c);
    size_t blk = (size_t)bytes, need = (size_t)hyt_mem_buffer((hyt_coll_t)c, bytes, p);
    size_t unit = red ? 4 : 1, per = (blk / unit + (size_t)p - 1) / (size_t)p;
    int vec = (hyt_coll_props((hyt_coll_t)c) & HYT_CP_VECTOR) != 0;
    if (vec && per * (size_t)p * unit > need)
        need = per * (size_t)p * unit; /* whole elements on every rank */
    /* exactly this point's size: a rank keeps no larger buffers than the
     * point it runs needs (the memory bound counts one point's need) */
    if (need != b->len) {
        free(b->s);
        free(b->r);
        b->s = malloc(need);
        b->r = malloc(need);
        b->len = need;
        if (!b->s || !b->r) {
            free(b->s);
            free(b->r);
            free(b->v);
            *b = (bufs_t){0};
            return -1;
        }
        memset(b->s, 1, need); /* MPI_INT 0x01010101: sums stay exact at these sizes */
        memset(b->r, 0, need);
    }
    memset(a, 0, sizeof *a);
    a->coll = (hyt_coll_t)c;
    a->sbuf = b->s;
    a->rbuf = b->r;
    a->type = red ? MPI_INT : MPI_BYTE;
    a->stype = a->type;
    a->count = (int)(red ? blk / 4 : blk);
    a->scount = a->count;
    a->op = MPI_SUM;
    a->root = 0;
    /* gather, scatter: blk per rank; the v-variants: even blocks of the
     * selection size (allgatherv, reduce_scatter: the total of all blocks;
     * alltoallv: what a rank sends in all, see hyt_args_t), rounded up to
     * whole elements per rank (the buffers hold p blocks of blk / p) */
    if (vec) {
        if (b->vp != p) {
            free(b->v);
            b->v = malloc(4 * (size_t)p * sizeof *b->v);
            b->vp = b->v ? p : 0;
            if (!b->v)
                return -1;
        }
        for (int i = 0; i < p; i++) {
            b->v[i] = b->v[2 * p + i] = (int)per;
            b->v[p + i] = b->v[3 * p + i] = i * (int)per;
        }
        a->scounts = b->v;
        a->sdispls = b->v + p;
        a->rcounts = b->v + 2 * p;
        a->rdispls = b->v + 3 * p;
        a->scount = (int)per;
    }
    return 0;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n <= HYT_BENCH_MAX_REPS */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* --inject-fail / --inject-fail-once (testing aid): the candidate with this
 * label fails every attempt, or only the first attempt, at every point. */
static const char *inject_label;
static int inject_attempts;

/* --arrival of this run (set once by tune_run, like inject_label). */
static int arrival_kind = ARRIVAL_SYNC;
static double arrival_us;
static uint64_t arrival_seed;

/* Wait us microseconds: busy on the clock (MPICH), or charged to the
 * simulated clock (SimGrid, where a busy loop would not advance it). */
static void delay_us(double us)
{
#ifdef HYT_SMPI
    /* flops at this host's speed: exact in any mode (smpi_execute scales by
     * smpi/host-speed instead) */
    smpi_execute_flops(us * 1e-6 * sg_host_get_speed(sg_host_self()));
#else
    double end = PMPI_Wtime() + us * 1e-6;
    while (PMPI_Wtime() < end)
        ;
#endif
}

/* This rank's lateness in call number `call` of a point (0, 1: the warm-up
 * calls, then the repetitions) under the arrival pattern.  The random
 * pattern draws from (seed, call, rank): every candidate at every point
 * meets the same delays in its j-th call (common random numbers, so that
 * candidates differ by their algorithm, not by their draws), reproducibly
 * and with no state to share. */
static double arrival_delay_us(MPI_Comm comm, int call)
{
    if (arrival_kind == ARRIVAL_SYNC)
        return 0;
    int r, p;
    PMPI_Comm_rank(comm, &r);
    PMPI_Comm_size(comm, &p);
    hyt_rng_t rng;
    switch (arrival_kind) {
    case ARRIVAL_LINEAR:
        return p > 1 ? arrival_us * r / (p - 1) : 0;
    case ARRIVAL_LAST:
        return r == p - 1 ? arrival_us : 0;
    case ARRIVAL_RANDOM:
        hyt_rng_seed(&rng, arrival_seed ^ ((uint64_t)call * 0x9e3779b97f4a7c15ull) ^
                               ((uint64_t)r * 0xc2b2ae3d27d4eb4full));
        return arrival_us * hyt_rng_uniform(&rng);
    default: /* ARRIVAL_SYNC, returned above */
        return 0;
    }
}

/* One timed call after a barrier; < 0 on an error on any rank (every rank
 * of comm returns the same: the answer is reduced, which also synchronizes).
 * sync: the maximum over ranks of each rank's call.  With an arrival
 * pattern each rank first waits its delay, and the answer is the last
 * delay, max exit - max entry, both measured from each rank's barrier exit:
 * how long the collective keeps the job after its last process arrived. */
static double timed_call(hyt_args_t *a, const cand_t *cd, MPI_Comm comm, int attempt, int call)
{
    PMPI_Barrier(comm);
    double tb = PMPI_Wtime(), late = arrival_delay_us(comm, call);
    /* MPICH candidate: every rank of comm writes the same value; MPICH 4.0.2
     * applies it from the next call; "auto" goes back right after the call,
     * so the timing reductions below run MPICH's own selection */
    int sel = cd->mpich >= 0 ? hyt_mpich_select(cd->alg->coll, cd->mpich) : 0;
    if (inject_label && attempt < inject_attempts && !strcmp(cd->label, inject_label))
        sel = -1;
    if (late > 0)
        delay_us(late);
    double t0 = PMPI_Wtime();
    hyt_fallback_t fb;
    int rc = sel == 0 ? hyt_run_alg(a, cd->alg, cd->k, &fb) : MPI_ERR_OTHER;
    double t1 = PMPI_Wtime();
    if (rc == MPI_SUCCESS && sel == 0 && fb == HYT_FB_SCRATCH)
        rc = MPI_ERR_NO_MEM; /* MPI's own collective ran: not the candidate's time */
    if (cd->mpich >= 0)
        hyt_mpich_select(cd->alg->coll, -1);
    /* maxima of: own call, entry, exit (since the barrier), failure */
    double v[4] = {t1 - t0, t0 - tb, t1 - tb, rc != MPI_SUCCESS}, mx[4];
    PMPI_Allreduce(v, mx, 4, MPI_DOUBLE, MPI_MAX, comm);
    if (mx[3] > 0)
        return -1;
    return arrival_kind == ARRIVAL_SYNC ? mx[0] : mx[2] - mx[1];
}

/* One attempt at a point: its time in us, or -1 if a call failed; *cut: it
 * was recorded after its second call, slower than cut_us (racing). */
static double bench_attempt(hyt_args_t *a, const cand_t *cd, MPI_Comm comm, double budget,
                            double cut_us, int attempt, int *cut, double *spread)
{
    *cut = 0;
    *spread = 0;
    double reps[HYT_BENCH_MAX_REPS];
    double first = timed_call(a, cd, comm, attempt, 0);
    if (first < 0 || first > budget) /* too slow to repeat: recorded as measured once */
        return first < 0 ? -1 : first * 1e6;
    for (int w = 1; w < HYT_BENCH_WARMUP; w++) {
        double t = timed_call(a, cd, comm, attempt, w);
        if (t < 0)
            return -1;
        /* racing: the first call paid any setup; the second already tells a loser */
        if (w == 1 && t * 1e6 > cut_us) {
            *cut = 1;
            return t * 1e6;
        }
    }
    int n = 0;
    double spent = 0;
    while (n < HYT_BENCH_MAX_REPS && (n < HYT_BENCH_MIN_REPS || spent < budget)) {
        double t = timed_call(a, cd, comm, attempt, HYT_BENCH_WARMUP + n);
        if (t < 0)
            return -1;
        reps[n++] = t;
        spent += t;
    }
    double med = median(reps, n); /* sorts reps */
    /* standard error of the median's log: one call's sigma from the
     * interquartile range (/ 1.349), times 1.2533 / sqrt(n) */
    *spread = med > 0 ? 1.2533 * (reps[(3 * n) / 4] - reps[n / 4]) / med / 1.349 / sqrt(n) : 0;
    return med * 1e6;
}

/* One point's benchmark, in the form a round reduces (MPI_MAX over 6
 * doubles per point: the point's ranks agree, the others give zeros). */
typedef struct point_result {
    double us;     /* its time in us; 0 if it failed */
    double cost;   /* wall seconds spent on it */
    double tries;  /* attempts made: a failed attempt is retried once */
    double failed; /* 1: the retry failed too (the point is skipped) */
    double cut;    /* 1: recorded after its second call, slower than its cut_us */
    double spread; /* standard error of its log time, from its repetitions */
} point_result_t;
_Static_assert(sizeof(point_result_t) == 6 * sizeof(double), "reduced as 6 doubles");

/* After a point: the scratch its candidate left on comm (and on the leader
 * communicator of a composition) is freed, so no rank carries one point's
 * scratch into the next or keeps it on cached communicators; a scratch
 * larger than the bound the memory limit counted is reported once. */
static void scratch_check(const hyt_al_point_t *pt, const cand_t *cd, MPI_Comm comm, int p)
{
    static int warned;
    hyt_comm_t *ctx = hyt_comm_get(comm);
    if (!ctx)
        return;
    size_t held = hyt_scratch_release(ctx);
    if (ctx->leader_comm != MPI_COMM_NULL) {
        hyt_comm_t *lc = hyt_comm_get(ctx->leader_comm);
        if (lc)
            held += hyt_scratch_release(lc);
    }
    uint64_t bound = hyt_mem_scratch(cd->alg->coll, cd->alg, cd->k, pt->bytes, p);
    if (held > bound && !warned) {
        warned = 1;
        fprintf(stderr, "tune: memory: rank %d: %s k=%d at %llu bytes on %d ranks left %zu bytes "
                "of scratch, above the bound of %llu the limit counts (offline/memory.c)\n",
                hyt_world_rank, cd->label, cd->k, (unsigned long long)pt->bytes, p, held,
                (unsigned long long)bound);
    }
}

static point_result_t bench_point(const hyt_al_point_t *pt, const cand_t *cd, MPI_Comm comm,
                                  double budget, double cut_us, bufs_t *b)
{
    int p;
    PMPI_Comm_size(comm, &p);
    hyt_args_t a;
    double start = PMPI_Wtime(), us = -1;
    int ok = bench_args(pt->alg < 0 ? 0 : (int)cd->alg->coll, pt->bytes, p, b, &a) == 0, all;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm); /* buffers on every rank, or none */
    point_result_t r = {0};
    if (all) {
        a.comm = comm;
        /* MPICH refusing a set algorithm (MPIR_CVAR_COLLECTIVE_FALLBACK=error)
         * returns an error on every rank: a failed attempt, not an abort */
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        for (int attempt = 0; attempt < 2 && us < 0; attempt++) {
            int cut;
            us = bench_attempt(&a, cd, comm, budget, cut_us, attempt, &cut, &r.spread);
            r.tries = attempt + 1;
            r.cut = cut;
        }
    }
    scratch_check(pt, cd, comm, p);
    r.us = us < 0 ? 0 : us;
    r.failed = us < 0;
    r.cost = PMPI_Wtime() - start;
    return r;
}

/* A round: points that run at once, each on nodes node_order[first..first+nodes). */
typedef struct round_pt {
    hyt_al_point_t pt;
    int first;
    double cut_us; /* hyt_al_cut_us of the point */
} round_pt_t;

/* Rank 0: split a batch into rounds of node-disjoint points. */
static int plan_rounds(const job_t *j, const hyt_al_t *al, const hyt_al_point_t *pts, int n,
                       round_pt_t *out, int *round_end)
{
    int nr = 0, used = 0, k = 0;
    for (int i = 0; i < n; i++) {
        /* whole groups per point: round the start up to a group boundary */
        int start = used;
        while (j->parallel && start > 0 && start < j->nodes &&
               hyt_topo_node_group(j->node_order[start]) ==
                   hyt_topo_node_group(j->node_order[start - 1]))
            start++;
        if (!j->parallel || k == 0 || start + pts[i].nodes > j->nodes) {
            if (k > 0)
                round_end[nr++] = k;
            start = 0;
        }
        out[k].pt = pts[i];
        out[k].cut_us = hyt_al_cut_us(al, &pts[i]);
        out[k++].first = start;
        used = start + pts[i].nodes;
    }
    if (k > 0)
        round_end[nr++] = k;
    return nr;
}

/* Sub-communicators are kept and reused for rounds of the same layout: the
 * first collectives on a new communicator carry setup cost (under SimGrid's
 * SMP-aware selectors, seconds of simulation per communicator at 128 ranks),
 * which would otherwise be paid at every benchmark point.  Layouts come from
 * rank 0's broadcast, so every rank holds the same cache and takes the same
 * split/free decisions. */
#define SUB_CACHE 16
#define SUB_MAX_POINTS 16
typedef struct sub_entry {
    int n, key[3 * SUB_MAX_POINTS];
    MPI_Comm comm; /* MPI_COMM_NULL on ranks outside every point */
    unsigned long last_use;
} sub_entry_t;
static sub_entry_t sub_cache[SUB_CACHE];
static int sub_cached;
static unsigned long sub_clock;

static void sub_key(const round_pt_t *rp, int n, int *key)
{
    for (int i = 0; i < n; i++) {
        key[3 * i] = rp[i].first;
        key[3 * i + 1] = rp[i].pt.nodes;
        key[3 * i + 2] = rp[i].pt.ppn;
    }
}

/* The sub-communicator of this round's layout (split over the world when new). */
static MPI_Comm sub_get(const round_pt_t *rp, int n, int color, int key_rank, int *owned)
{
    int key[3 * SUB_MAX_POINTS];
    *owned = n > SUB_MAX_POINTS;
    if (!*owned) {
        sub_key(rp, n, key);
        for (int e = 0; e < sub_cached; e++)
            if (sub_cache[e].n == n && !memcmp(sub_cache[e].key, key, 3 * (size_t)n * sizeof *key)) {
                sub_cache[e].last_use = ++sub_clock;
                return sub_cache[e].comm;
            }
    }
    MPI_Comm sub;
    PMPI_Comm_split(MPI_COMM_WORLD, color, key_rank, &sub);
    if (*owned)
        return sub;
    int e = 0;
    if (sub_cached < SUB_CACHE) {
        e = sub_cached++;
    } else { /* full: evict the least recently used */
        for (int i = 1; i < SUB_CACHE; i++)
            if (sub_cache[i].last_use < sub_cache[e].last_use)
                e = i;
        if (sub_cache[e].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&sub_cache[e].comm);
    }
    sub_cache[e].n = n;
    memcpy(sub_cache[e].key, key, 3 * (size_t)n * sizeof *key);
    sub_cache[e].comm = sub;
    sub_cache[e].last_use = ++sub_clock;
    return sub;
}

static void sub_cache_free(void)
{
    for (int e = 0; e < sub_cached; e++)
        if (sub_cache[e].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&sub_cache[e].comm);
    sub_cached = 0;
}

/* All ranks: run one round (broadcast from rank 0), results reduced to rank 0. */
static int run_round(const job_t *j, const cand_t *cands, int ncand, round_pt_t *rp, int n, double budget,
                     bufs_t *b, double *us, double *cost, int *tries, int *cut, double *spread)
{
    PMPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (n <= 0)
        return n;
    PMPI_Bcast(rp, (int)(n * sizeof *rp), MPI_BYTE, 0, MPI_COMM_WORLD);
    int pos = j->node_pos[hyt_world_node_of[hyt_world_rank]], color = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (pos >= rp[i].first && pos < rp[i].first + rp[i].pt.nodes &&
            j->my_local < rp[i].pt.ppn)
            color = i;
    int owned;
    MPI_Comm sub = sub_get(rp, n, color, pos * j->ppn + j->my_local, &owned);
    point_result_t *mine = calloc((size_t)n, sizeof *mine), *all = calloc((size_t)n, sizeof *all);
    if (!mine || !all)
        PMPI_Abort(MPI_COMM_WORLD, 2);
    if (color != MPI_UNDEFINED) {
        const round_pt_t *r = &rp[color];
        const cand_t *cd = find_cand(cands, ncand, &r->pt);
        if (!cd) /* cannot happen: rank 0 chose from the same list */
            PMPI_Abort(MPI_COMM_WORLD, 2);
        mine[color] = bench_point(&r->pt, cd, sub, budget, r->cut_us, b);
    }
    if (owned && sub != MPI_COMM_NULL)
        PMPI_Comm_free(&sub);
    PMPI_Reduce(mine, all, 6 * n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (hyt_world_rank == 0)
        for (int i = 0; i < n; i++) {
            us[i] = all[i].failed > 0 ? -1 : all[i].us;
            cost[i] = all[i].cost;
            tries[i] = (int)all[i].tries;
            cut[i] = all[i].cut > 0;
            if (spread)
                spread[i] = all[i].spread;
        }
    free(mine);
    free(all);
    return n;
}

/* A measured point: its time, the standard error of its log time, cut. */
typedef struct meas {
    hyt_al_point_t pt;
    double us, sp;
    int cut;
} meas_t;

typedef struct coll_state {
    int c;
    cand_t cands[256];
    int ncand;
    hyt_al_point_t *grid;
    int ngrid;
    hyt_al_t *al;
    int retried;        /* points that failed once and succeeded on the retry */
    int cut;            /* points recorded after their second call (racing) */
    /* rank 0: the rules of each shape (j->shapes order), after the native guard */
    hyt_tune_rule_t (*rules)[MAX_RULES];
    int nrules[64];
    double guard_cost;  /* benchmark seconds of the native guard's points */
    meas_t *meas;       /* rank 0: every point measured for this collective */
    int nmeas, capmeas;
} coll_state_t;

/* Rank 0: keep a measured point (the native guard reuses it). */
static void meas_add(coll_state_t *cs, const hyt_al_point_t *pt, double us, double sp, int cut)
{
    if (us < 0) /* failed: no time */
        return;
    if (cs->nmeas == cs->capmeas) {
        int cap = cs->capmeas ? 2 * cs->capmeas : 256;
        meas_t *q = realloc(cs->meas, (size_t)cap * sizeof *q);
        if (!q)
            return; /* not kept: the guard measures it again */
        cs->meas = q;
        cs->capmeas = cap;
    }
    cs->meas[cs->nmeas++] = (meas_t){*pt, us, sp, cut};
}

/* The measurement of exactly this point, an uncut one before a cut one;
 * NULL if none. */
static const meas_t *meas_find(const coll_state_t *cs, const hyt_al_point_t *pt)
{
    const meas_t *found = NULL;
    for (int i = 0; i < cs->nmeas; i++) {
        const hyt_al_point_t *q = &cs->meas[i].pt;
        if (q->nodes == pt->nodes && q->ppn == pt->ppn && q->bytes == pt->bytes &&
            q->alg == pt->alg && q->k == pt->k && (!found || found->cut))
            found = &cs->meas[i];
    }
    return found;
}

/* The rewritten progress line (PROGRESS_LINE): when it was last written (0:
 * not on the screen). */
static double progress_shown;

/* The line: collective, points, benchmark seconds, expected gain left (or,
 * --select variance, the variance left); points and cost of the iteration
 * under way are added.  final: the collective is done, end the line. */
static void progress_line(const tune_opts_t *t, const coll_state_t *cs, double t0, int points,
                          double cost_s, int final)
{
    double now = PMPI_Wtime();
    if (!final && progress_shown > 0 && now - progress_shown < PROGRESS_EVERY_S)
        return;
    hyt_al_status_t st;
    hyt_al_status(cs->al, &st);
    char left[96];
    if (!st.iterations)
        snprintf(left, sizeof left, "first batch");
    else if (t->select_variance)
        snprintf(left, sizeof left, "variance %.3f of start", st.cumvar_rel);
    else
        snprintf(left, sizeof left, "expected gain left %.4g (stop below %.4g)", st.expected,
                 t->threshold);
    fprintf(stderr, "\r\033[Ktune: %s: %d points, benchmark %.1f s, %s, elapsed %.0f s%s",
            hyt_coll_name((hyt_coll_t)cs->c), st.points + points, st.cost_s + cost_s, left,
            now - t0, final ? "\n" : "");
    fflush(stderr);
    progress_shown = final ? 0 : now;
}

/* Clear the rewritten line before another message. */
static void progress_clear(void)
{
    if (progress_shown > 0)
        fprintf(stderr, "\r\033[K");
    progress_shown = 0;
}

/* Rank 0: say which points needed their retry, and which failed twice. */
static void report_faults(coll_state_t *cs, const hyt_al_point_t *pts, const double *us,
                          const int *tries, int n)
{
    for (int i = 0; i < n; i++) {
        if (tries[i] < 2)
            continue;
        progress_clear();
        const cand_t *cd = find_cand(cs->cands, cs->ncand, &pts[i]);
        char k[24] = "";
        if (cd && cd->k)
            snprintf(k, sizeof k, " k=%d", cd->k);
        cs->retried += us[i] >= 0;
        fprintf(stderr, "tune: %s: %s%s at %d x %d, %llu B: %s\n",
                hyt_coll_name((hyt_coll_t)cs->c), cd ? cd->label : "?", k, pts[i].nodes,
                pts[i].ppn, (unsigned long long)pts[i].bytes,
                us[i] >= 0 ? "failed once, the retry succeeded"
                           : "failed twice, skipped (never chosen within a factor of 2 of this "
                             "size at this shape)");
    }
}

static void progress(const tune_opts_t *t, const coll_state_t *cs, double t0, double deadline)
{
    if (t->progress == PROGRESS_LINE) {
        progress_line(t, cs, t0, 0, 0, 0);
        return;
    }
    hyt_al_status_t st;
    hyt_al_status(cs->al, &st);
    double el = PMPI_Wtime() - t0, per = st.iterations ? el / st.iterations : 0;
    fprintf(stderr, "tune: %s iter %d: %d points, cumulative variance %.4g (%.3f of start), "
            "elapsed %.2f s, to go <= %.2f s%s\n", hyt_coll_name((hyt_coll_t)cs->c),
            st.iterations, st.points, st.cumvar, st.cumvar_rel, el,
            fmax(0, fmin(deadline - PMPI_Wtime(), per * 20)), st.converged ? " (converged)" : "");
}

static void dump_batch(FILE *f, const coll_state_t *cs, const hyt_al_point_t *pts,
                       const double *us, int n)
{
    for (int i = 0; f && i < n; i++) {
        const cand_t *cd = find_cand(cs->cands, cs->ncand, &pts[i]);
        if (cd && us[i] >= 0) /* a failed point has no time */
            hyt_oracle_write_row(f, hyt_coll_name((hyt_coll_t)cs->c), pts[i].nodes, pts[i].ppn,
                             pts[i].bytes, cd->label, cd->k, us[i]);
    }
}

/* The --dump rows, kept in memory, become the file when the run ends
 * (src/file.c): an interrupted run leaves no partial or temporary file. */
static void dump_close(FILE *mem, char **text, const char *path)
{
    if (mem && fclose(mem) == 0 && hyt_file_write(path, *text) != 0)
        fprintf(stderr, "hytune tune: --dump %s: cannot write (%s); no dump written\n", path,
                strerror(errno));
    free(*text);
}

/* Warm start: rows of this collective whose candidate exists here. */
static void warm_start(coll_state_t *cs, const hyt_oracle_t *o)
{
    for (int i = 0; o && i < o->n; i++) {
        const hyt_oracle_row_t *r = &o->rows[i];
        if (strcmp(r->coll, hyt_coll_name((hyt_coll_t)cs->c)))
            continue;
        for (int q = 0; q < cs->ncand; q++)
            if (!strcmp(cs->cands[q].label, r->alg) && cs->cands[q].k == r->k) {
                hyt_al_point_t p = {r->nodes, r->ppn, r->bytes, cs->cands[q].cat, r->k};
                hyt_al_add(cs->al, &p, &r->us, 1);
            }
    }
}

static int build_rules(const job_t *j, coll_state_t *cs, uint64_t max_bytes);
static void native_guard(const tune_opts_t *t, const job_t *j, coll_state_t *cs, bufs_t *b);

/* Rank 0's loop for one collective; other ranks follow in run_round.  Then
 * the rules, checked against native (native_guard). */
static int tune_coll_root(const tune_opts_t *t, const job_t *j, coll_state_t *cs, bufs_t *b,
                          double deadline, FILE *dump)
{
    hyt_al_point_t pts[1024];
    round_pt_t rp[1024];
    int round_end[1024];
    double us[1024], cost[1024], sigma[1024];
    int tries[1024], cut[1024];
    double t0 = PMPI_Wtime();
    int max = 2 * t->batch; /* the initial random points come in one batch */
    if (max > 1024)
        max = 1024;
    /* the first batch runs even past the deadline: the rules need a fitted model */
    for (int iter = 0;; iter++) {
        int n = iter == 0 || PMPI_Wtime() < deadline ? hyt_al_next(cs->al, pts, max) : 0;
        if (n == 0)
            break;
        int nr = plan_rounds(j, cs->al, pts, n, rp, round_end), done = 0;
        for (int r = 0; r < nr; r++) {
            int m = round_end[r] - done;
            run_round(j, cs->cands, cs->ncand, rp + done, m, t->point_budget, b, us + done, cost + done,
                      tries + done, cut + done, sigma + done);
            done = round_end[r];
            if (t->progress == PROGRESS_LINE) {
                double c = 0;
                for (int q = 0; q < done; q++)
                    c += cost[q];
                progress_line(t, cs, t0, done, c, 0);
            }
        }
        for (int i = 0; i < n; i++)
            pts[i] = rp[i].pt; /* same order as planned */
        report_faults(cs, pts, us, tries, n);
        for (int i = 0; i < n; i++) {
            cs->cut += cut[i];
            meas_add(cs, &pts[i], us[i], sigma[i], cut[i]);
        }
        dump_batch(dump, cs, pts, us, n);
        hyt_al_note_noise(cs->al, sigma, n);
        int rc = hyt_al_update(cs->al, pts, us, cost, n);
        progress(t, cs, t0, deadline);
        if (rc < 0 || (rc == 1 && !t->exhaustive))
            break;
    }
    if (t->progress == PROGRESS_LINE)
        progress_line(t, cs, t0, 0, 0, 1);
    if (build_rules(j, cs, t->max_bytes) == 0 && !t->no_guard)
        native_guard(t, j, cs, b);
    int zero = 0;
    PMPI_Bcast(&zero, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return 0;
}

static void tune_coll_follow(const job_t *j, coll_state_t *cs, double budget, bufs_t *b)
{
    round_pt_t rp[1024];
    while (run_round(j, cs->cands, cs->ncand, rp, 0, budget, b, NULL, NULL, NULL, NULL, NULL) > 0)
        ;
}

/* The largest size of the grid at a shape (the memory limit may cut it). */
static uint64_t shape_top(const coll_state_t *cs, int nodes, int ppn)
{
    uint64_t top = coll_gran(cs->c);
    for (int g = 0; g < cs->ngrid; g++)
        if (cs->grid[g].nodes == nodes && cs->grid[g].ppn == ppn && cs->grid[g].bytes > top)
            top = cs->grid[g].bytes;
    return top;
}

/* The model's prediction, with candidates that cannot run at a point's shape
 * and size (MPICH algorithms with restrictions) made never best. */
static int predict_valid(void *ctx, const hyt_al_point_t *pts, int n, double *us)
{
    coll_state_t *cs = ctx;
    int rc = hyt_rules_predict_al(cs->al, pts, n, us);
    for (int i = 0; rc == 0 && i < n; i++) {
        const cand_t *cd = find_cand(cs->cands, cs->ncand, &pts[i]);
        uint64_t g = 1; /* the power of two of the point's group */
        while (2 * g <= pts[i].bytes)
            g *= 2;
        if (cd && (!cand_ok(cd, cs->c, pts[i].nodes, pts[i].ppn, pts[i].bytes) ||
                   !point_fits(cs->c, cd, pts[i].nodes * pts[i].ppn, g))) /* not benchmarked */
            us[i] = 1e30;
    }
    return rc;
}

/* Rank 0: the rules of every shape from the model, up to the largest size
 * benchmarked at that shape (the memory limit may stop below --max-bytes;
 * the last rule has no bound).  0, or -1. */
static int build_rules(const job_t *j, coll_state_t *cs, uint64_t max_bytes)
{
    if (!cs->rules && !(cs->rules = calloc(64, sizeof *cs->rules)))
        return -1;
    hyt_al_point_t cp[256];
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1], nc = 0;
        for (int q = 0; q < cs->ncand; q++)
            if (cand_ok(&cs->cands[q], cs->c, nodes, ppn, max_bytes))
                cp[nc++] = (hyt_al_point_t){.alg = cs->cands[q].cat, .k = cs->cands[q].k};
        cs->nrules[s] = hyt_rules_build(predict_valid, cs, nodes, ppn, cp, nc, coll_gran(cs->c),
                                        shape_top(cs, nodes, ppn), coll_gran(cs->c),
                                        cs->rules[s], MAX_RULES);
        if (cs->nrules[s] < 1)
            return -1;
    }
    return 0;
}

/* The native guard: a rule that replaces "native" (the MPI library's own
 * selection) is kept only where both were measured, at the rule's sizes
 * (hyt_rules_check_sizes: its edges and a few powers of two between), and
 * it wins by more than the noise: its median below native's by more than
 * max(HYT_GUARD_MARGIN, two standard errors of the difference of both
 * medians' logs); elsewhere native is written.  A point already measured
 * uncut (by the model's iterations, or for another rule) is not measured
 * again.  The rule's candidate is measured in full first; native then races
 * it: a native point whose second call is slower than HYT_GUARD_CUT times
 * the candidate's median beyond the margin is cut there and the rule kept
 * (the candidate wins by far more than the noise).  All ranks run the rounds
 * (tune_coll_follow). */
#define GUARD_MAX 4096

/* Rank 0: measure n points (rounds of at most 1024), racing each against
 * cut_us[i] (HUGE_VAL: never cut); each is kept (meas_add). */
static void guard_measure(const tune_opts_t *t, const job_t *j, coll_state_t *cs, bufs_t *b,
                          round_pt_t *rp, const hyt_al_point_t *pts, const double *cut_us, int n)
{
    double us[1024], cost[1024], sp[1024];
    int round_end[1024], tries[1024], cut[1024];
    for (int done = 0; done < n;) {
        int m = n - done < 1024 ? n - done : 1024;
        int nr = plan_rounds(j, cs->al, pts + done, m, rp, round_end), at = 0;
        for (int i = 0; i < m; i++) /* plan_rounds keeps the order */
            rp[i].cut_us = cut_us[done + i];
        for (int r = 0; r < nr; r++) {
            run_round(j, cs->cands, cs->ncand, rp + at, round_end[r] - at, t->point_budget, b,
                      us + at, cost + at, tries + at, cut + at, sp + at);
            at = round_end[r];
        }
        for (int i = 0; i < m; i++) {
            meas_add(cs, &rp[i].pt, us[i], sp[i], cut[i]);
            cs->guard_cost += cost[i];
        }
        done += m;
    }
}

/* Native's cut time against a measured candidate (HUGE_VAL: none). */
static double guard_cut_us(const meas_t *mc)
{
    return !mc || mc->cut ? HUGE_VAL : hyt_rules_guard_cut_us(mc->us, mc->sp);
}

static void native_guard(const tune_opts_t *t, const job_t *j, coll_state_t *cs, bufs_t *b)
{
    int nat = -1;
    for (int q = 0; q < cs->ncand; q++)
        if ((cs->cands[q].alg->flags & HYT_ALG_NATIVE) && cs->cands[q].mpich < 0)
            nat = cs->cands[q].cat;
    if (nat < 0)
        return;
    uint64_t gran = coll_gran(cs->c), sz[64];
    /* check i: pts[2i] the rule's candidate, pts[2i + 1] native */
    hyt_al_point_t *pts = malloc(GUARD_MAX * sizeof *pts), *todo = malloc(GUARD_MAX / 2 * sizeof *todo);
    int *owner = malloc(GUARD_MAX / 2 * sizeof *owner); /* shape * MAX_RULES + rule */
    round_pt_t *rp = malloc(1024 * sizeof *rp);
    double *cut_us = malloc(GUARD_MAX / 2 * sizeof *cut_us);
    hyt_rules_verdict_t *v = malloc(GUARD_MAX / 2 * sizeof *v);
    hyt_tune_rule_t *tmp = malloc(MAX_RULES * sizeof *tmp);
    int n = 0, checked = 0, changed = 0, native_sizes = 0, reused = 0;
    if (!pts || !todo || !owner || !rp || !cut_us || !v || !tmp)
        goto out;
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1];
        for (int r = 0; r < cs->nrules[s]; r++) {
            const hyt_tune_rule_t *ru = &cs->rules[s][r];
            if (ru->alg == nat)
                continue;
            int m = hyt_rules_check_sizes(cs->rules[s], cs->nrules[s], r,
                                          shape_top(cs, nodes, ppn), gran, sz, 64);
            checked += m > 0;
            for (int i = 0; i < m && n < GUARD_MAX / 2; i++) {
                owner[n] = s * MAX_RULES + r;
                pts[2 * n] = (hyt_al_point_t){nodes, ppn, sz[i], ru->alg, ru->k};
                pts[2 * n + 1] = (hyt_al_point_t){nodes, ppn, sz[i], nat, 0};
                n++;
            }
        }
    }
    /* 1: the candidates not measured uncut yet, in full; 2: native, racing them */
    for (int phase = 0; phase < 2; phase++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            const hyt_al_point_t *p = &pts[2 * i + phase];
            const meas_t *had = meas_find(cs, p);
            double cu = phase ? guard_cut_us(meas_find(cs, &pts[2 * i])) : HUGE_VAL;
            if (had && (!had->cut || had->us > cu)) { /* a cut native point slower than cu serves */
                reused++;
                continue;
            }
            todo[m] = *p;
            cut_us[m++] = cu;
        }
        guard_measure(t, j, cs, b, rp, todo, cut_us, m);
    }
    /* verdicts per shape, then the rules rewritten */
    for (int s = 0; s < j->nshapes; s++) {
        int nv = 0, ch = 0;
        for (int i = 0; i < n; i++) {
            if (owner[i] / MAX_RULES != s)
                continue;
            const meas_t *mc = meas_find(cs, &pts[2 * i]), *mn = meas_find(cs, &pts[2 * i + 1]);
            /* a failed point has no measurement; a cut candidate is never used */
            int keep = hyt_rules_guard_keep(mc && !mc->cut ? mc->us : -1, mc ? mc->sp : 0,
                                            mn ? mn->us : -1, mn ? mn->sp : 0, mn && mn->cut);
            v[nv++] = (hyt_rules_verdict_t){owner[i] % MAX_RULES, pts[2 * i].bytes, keep};
            native_sizes += !keep;
        }
        int nr = hyt_rules_apply_native(cs->rules[s], cs->nrules[s], v, nv, nat, gran, tmp,
                                        MAX_RULES, &ch);
        if (nr > 0) {
            memcpy(cs->rules[s], tmp, (size_t)nr * sizeof *tmp);
            cs->nrules[s] = nr;
            changed += ch;
        }
    }
    fprintf(stderr, "tune: %s: native guard: %d rules replace native, measured against it at %d "
            "sizes (%d points, %d of them reused, %.3f s); native kept at %d sizes, %d rules "
            "changed\n", hyt_coll_name((hyt_coll_t)cs->c), checked, n, 2 * n, reused,
            cs->guard_cost, native_sizes, changed);
out:
    free(pts);
    free(todo);
    free(owner);
    free(rp);
    free(cut_us);
    free(v);
    free(tmp);
}

/* The MPICH selection file of the rules (rank 0). */
static int write_mpich_json(const tune_opts_t *t, coll_state_t *cs, int ncs,
                            const hyt_tune_coll_t *colls)
{
    hyt_mpich_coll_t mc[MAX_COLLS];
    hyt_mpich_set_t *ms = calloc((size_t)ncs * 64, sizeof *ms);
    hyt_mpich_rule_t *mr = calloc((size_t)ncs * 64 * MAX_RULES, sizeof *mr);
    int rc = -1, won = 0, total = 0;
    if (!ms || !mr)
        goto out;
    for (int i = 0; i < ncs; i++) {
        mc[i] = (hyt_mpich_coll_t){(hyt_coll_t)cs[i].c, colls[i].nsets, ms + i * 64};
        for (int s = 0; s < colls[i].nsets; s++) {
            const hyt_tune_set_t *ts = &colls[i].sets[s];
            hyt_mpich_rule_t *r = mr + ((size_t)i * 64 + (size_t)s) * MAX_RULES;
            for (int q = 0; q < ts->nrules; q++) {
                hyt_al_point_t p = {.alg = ts->rules[q].alg, .k = ts->rules[q].k};
                const cand_t *cd = find_cand(cs[i].cands, cs[i].ncand, &p);
                r[q].bytes_max = ts->rules[q].bytes_max;
                r[q].alg = cd && cd->mpich >= 0 ? cd->mname : NULL;
                won += r[q].alg != NULL;
                total++;
            }
            ms[i * 64 + s] = (hyt_mpich_set_t){ts->nodes, ts->ppn, ts->nrules, r};
        }
    }
    char *txt = hyt_mpich_json(mc, ncs), err[600];
    if (!txt) {
        fprintf(stderr, "hytune tune: out of memory building the MPICH file\n");
        goto out;
    }
    rc = hyt_tune_write_atomic(t->mpich_json, txt, err, sizeof err);
    if (rc)
        fprintf(stderr, "hytune tune: %s\n", err);
    else
        fprintf(stderr, "tune: wrote %s (%d of %d rules chose an MPICH algorithm; load it with "
                "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)\n", t->mpich_json, won, total);
    free(txt);
out:
    free(ms);
    free(mr);
    return rc;
}

/* The shortlists of shape s's final rules (table format 2): the candidates
 * the model cannot rule out next to each rule's choice.  0, or -1. */
static int shortlist_rules(const job_t *j, coll_state_t *cs, int s, uint64_t max_bytes,
                           const char *const *names)
{
    hyt_al_point_t cp[256];
    int nodes = j->shapes[s][0], ppn = j->shapes[s][1], nc = 0;
    for (int q = 0; q < cs->ncand; q++)
        if (cand_ok(&cs->cands[q], cs->c, nodes, ppn, max_bytes))
            cp[nc++] = (hyt_al_point_t){.alg = cs->cands[q].cat, .k = cs->cands[q].k};
    return hyt_rules_shortlist(predict_valid, cs, hyt_rules_spread_al, cs->al, nodes, ppn, cp, nc,
                               names, shape_top(cs, nodes, ppn), cs->rules[s], cs->nrules[s]);
}

/* Rules of every shape; written by rank 0. */
static int write_table(const tune_opts_t *t, const job_t *j, coll_state_t *cs, int ncs)
{
    hyt_tune_coll_t colls[MAX_COLLS];
    hyt_tune_set_t *sets = calloc((size_t)ncs * 64, sizeof *sets);
    const char **names = calloc((size_t)ncs * 256, sizeof *names);
    int rc = -1;
    if (!sets || !names)
        goto out;
    for (int i = 0; i < ncs; i++) {
        colls[i].name = hyt_coll_name((hyt_coll_t)cs[i].c);
        colls[i].sets = sets + i * 64;
        colls[i].nsets = 0;
        /* rules use candidate indices as categories: names indexed the same */
        for (int q = 0; q < cs[i].ncand; q++)
            names[i * 256 + cs[i].cands[q].cat] = cs[i].cands[q].alg->name;
        for (int s = 0; s < j->nshapes; s++) {
            if (!cs[i].rules || cs[i].nrules[s] < 1 || shortlist_rules(j, &cs[i], s, t->max_bytes,
                                                                       names + i * 256) != 0)
                goto out;
            sets[i * 64 + colls[i].nsets++] = (hyt_tune_set_t){
                j->shapes[s][0], j->shapes[s][1], cs[i].nrules[s], cs[i].rules[s], names + i * 256};
        }
    }
    char ver[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown";
    int vlen = 0;
    MPI_Get_library_version(ver, &vlen);
    ver[strcspn(ver, "\n")] = 0; /* first line: library and version */
    char *txt = hyt_table_json(j->nodes, j->ppn, ver, t->arrival ? t->arrival : "sync", colls, ncs);
    char err[600];
    if (!txt) {
        fprintf(stderr, "hytune tune: out of memory building the table\n");
        goto out;
    }
    rc = hyt_tune_write_atomic(t->out, txt, err, sizeof err);
    if (rc)
        fprintf(stderr, "hytune tune: %s\n", err);
    else
        fprintf(stderr, "tune: wrote %s\n", t->out);
    free(txt);
    if (rc == 0 && t->mpich_json)
        rc = write_mpich_json(t, cs, ncs, colls);
out:
    free(sets);
    free(names);
    return rc;
}

static int setup_coll(const tune_opts_t *t, const job_t *j, coll_state_t *cs, int c)
{
    cs->c = c;
    cs->ncand = make_cands(c, j, t->k_max, cs->cands, 256);
    uint64_t top[256];
    cs->ngrid = make_grid(c, j, cs->cands, cs->ncand, t->max_bytes, &cs->grid, top);
    if (cs->ngrid == 0 && hyt_world_rank == 0) { /* the limit leaves nothing: say so, stop */
        uint64_t need = UINT64_MAX;
        for (int q = 0; q < cs->ncand; q++) {
            uint64_t v = point_need(c, &cs->cands[q], 2, coll_gran(c));
            need = v < need ? v : need;
        }
        char a[32], b[32];
        fprintf(stderr, "hytune tune: --mem-limit %s: %s needs %s for %d ranks at its smallest "
                "size; give a larger --mem-limit or run fewer ranks per node\n",
                hyt_mem_fmt(mem_plan.limit, a, sizeof a), hyt_coll_name((hyt_coll_t)c),
                hyt_mem_fmt(need, b, sizeof b), mem_plan.count);
    }
    if (cs->ngrid < 1)
        return -1;
    if (hyt_world_rank == 0)
        report_mem(c, j, cs->cands, cs->ncand, top, t->max_bytes);
    hyt_al_opts_t ao;
    al_opts(t, coll_gran(c), &ao);
    cs->al = hyt_al_new(cs->grid, cs->ngrid, &ao);
    return cs->al ? 0 : -1;
}

/* The memory limit, the same on every rank: --mem-limit, or a share of
 * the smallest node's memory (hwloc on every rank; under SimGrid rank 0
 * looks at the one host running the simulation). */
static void mem_agree(const tune_opts_t *t, const job_t *j)
{
    unsigned long long mine = ULLONG_MAX, node = 0;
#ifdef HYT_SMPI
    int look = hyt_world_rank == 0;
    mem_plan.count = hyt_world_size;
    (void)j;
#else
    int look = 1, *per = calloc((size_t)j->nodes, sizeof *per);
    mem_plan.count = 1;
    for (int r = 0; per && r < hyt_world_size; r++)
        if (++per[hyt_world_node_of[r]] > mem_plan.count)
            mem_plan.count = per[hyt_world_node_of[r]];
    if (!per)
        mem_plan.count = hyt_world_size;
    free(per);
#endif
    if (look && !t->mem_limit)
        mine = hyt_mem_node_bytes();
    PMPI_Allreduce(&mine, &node, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    mem_plan.node = node == ULLONG_MAX ? 0 : node;
    mem_plan.limit = t->mem_limit ? t->mem_limit
                     : mem_plan.node ? (uint64_t)((double)mem_plan.node * HYT_MEM_DEFAULT_SHARE)
                                     : (uint64_t)((double)(4ull << 30) * HYT_MEM_DEFAULT_SHARE);
    if (hyt_world_rank == 0) {
        char a[32], n[32], why[64] = "--mem-limit";
        if (!t->mem_limit)
            snprintf(why, sizeof why, "%.0f%% of %s", 100 * HYT_MEM_DEFAULT_SHARE,
                     mem_plan.node ? hyt_mem_fmt(mem_plan.node, n, sizeof n)
                                   : "4 GiB: the node's memory is unknown");
        fprintf(stderr, "tune: memory: limit %s (%s), counted for %d ranks (%s); sizes whose "
                "buffers and scratch exceed it are not benchmarked\n",
                hyt_mem_fmt(mem_plan.limit, a, sizeof a), why, mem_plan.count,
#ifdef HYT_SMPI
                "SimGrid: all ranks share one process"
#else
                "the most ranks on one node"
#endif
        );
    }
}

static int mpi_main(const tune_opts_t *t)
{
    int rank = hyt_world_rank;
    if (!hyt_world_node_of) {
        if (rank == 0)
            fprintf(stderr, "hytune tune: the node model is not available (HYTUNE_MODE=off?); "
                    "run without HYTUNE_MODE=off\n");
        return 2;
    }
    job_t j;
    if (job_init(&j, t->job_shape_only, t->no_parallel) != 0)
        return 2;
    hyt_oracle_t *ws = NULL;
    FILE *dump = NULL;
    char err[512];
    if (rank == 0 && t->warm_start && !(ws = hyt_oracle_read(t->warm_start, err, sizeof err)))
        fprintf(stderr, "hytune tune: --warm-start ignored: %s\n", err);
    char *dump_text = NULL;
    size_t dump_len = 0;
    if (rank == 0 && t->dump && !(dump = open_memstream(&dump_text, &dump_len)))
        fprintf(stderr, "hytune tune: --dump %s: out of memory; no dump written\n", t->dump);
    char kbuf[16];
    snprintf(kbuf, sizeof kbuf, "%d", t->k_max);
    if (rank == 0)
        fprintf(stderr, "tune: %d nodes x %d ppn, %d shapes, %s benchmarking%s, sizes up to "
                "%llu bytes, k up to %s\n", j.nodes, j.ppn, j.nshapes,
                j.parallel ? "parallel" : "serial",
                j.parallel ? "" : t->no_parallel ? " (--no-parallel)"
                : " (no two network groups known)", (unsigned long long)t->max_bytes,
                t->k_max ? kbuf : "each algorithm's limit");
    /* MPICH algorithms are candidates where MPI_T reaches them on every rank */
    int mine = !t->no_mpich && hyt_mpich_init() == 0, all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    use_mpich = all;
    if (rank == 0 && !t->no_mpich)
        fprintf(stderr, "tune: MPICH algorithms (MPI_T): %s\n", use_mpich ? "candidates" :
                "not available (only \"native\", the library's own selection)");
    if (t->mpich_json && !use_mpich) {
        if (rank == 0)
            fprintf(stderr, "hytune tune: --mpich-json %s: MPICH's algorithm variables are not "
                    "reachable through MPI_T; no file written\n", t->mpich_json);
        hyt_mpich_finalize();
        free(j.node_order);
        free(j.node_pos);
        hyt_oracle_free(ws);
        dump_close(dump, &dump_text, t->dump);
        return 2;
    }
    mem_agree(t, &j);
    coll_state_t *cs = calloc((size_t)t->ncolls, sizeof *cs);
    bufs_t b = {0};
    int rc = 0;
    double start = PMPI_Wtime();
    for (int i = 0; i < t->ncolls && cs && rc == 0; i++)
        if (setup_coll(t, &j, &cs[i], t->colls[i]) != 0)
            rc = 2;
    if (rc == 0 && cs && t->inject_fail) { /* every rank checks the same lists */
        int found = 0;
        for (int i = 0; i < t->ncolls; i++)
            for (int q = 0; q < cs[i].ncand; q++)
                found |= !strcmp(cs[i].cands[q].label, t->inject_fail);
        if (!found) {
            if (rank == 0)
                fprintf(stderr, "hytune tune: --inject-fail%s %s: no candidate has this label; "
                        "give one of the algorithm column of --dump (e.g. knomial)\n",
                        t->inject_attempts == 1 ? "-once" : "", t->inject_fail);
            rc = 2;
        }
        inject_label = t->inject_fail;
        inject_attempts = t->inject_attempts;
    }
    arrival_kind = t->arrival_kind;
    arrival_us = t->arrival_us;
    arrival_seed = t->seed * 0x100000001b3ull + 0xa77;
    for (int i = 0; i < t->ncolls && cs && rc == 0; i++) {
        if (rank == 0) {
            warm_start(&cs[i], ws);
            fprintf(stderr, "tune: %s: %d candidates, %d grid points\n",
                    hyt_coll_name((hyt_coll_t)cs[i].c), cs[i].ncand, cs[i].ngrid);
            double left = t->timeout - (PMPI_Wtime() - start);
            tune_coll_root(t, &j, &cs[i], &b, PMPI_Wtime() + left / (t->ncolls - i), dump);
        } else {
            tune_coll_follow(&j, &cs[i], t->point_budget, &b);
        }
    }
    if (rank == 0 && rc == 0 && cs && write_table(t, &j, cs, t->ncolls) != 0)
        rc = 1;
    if (rank == 0 && rc == 0 && cs) { /* the whole run, for scripts (bench/tune_scale.sh) */
        int iters = 0, points = 0, failed = 0, retried = 0, ncut = 0;
        double bench_s = 0;
        for (int i = 0; i < t->ncolls; i++) {
            hyt_al_status_t st;
            hyt_al_status(cs[i].al, &st);
            iters += st.iterations;
            points += st.points;
            bench_s += st.cost_s + cs[i].guard_cost;
            failed += st.failed;
            retried += cs[i].retried;
            ncut += cs[i].cut;
        }
        fprintf(stderr, "tune: done: %d collectives, %d iterations, %d points, benchmark %.6f s, "
                "elapsed %.6f s (MPI_Wtime), %d retried, %d failed, %d cut\n", t->ncolls, iters,
                points, bench_s, PMPI_Wtime() - start, retried, failed, ncut);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; cs && i < t->ncolls; i++) {
        hyt_al_free(cs[i].al);
        free(cs[i].grid);
        free(cs[i].rules);
        free(cs[i].meas);
    }
    free(cs);
    free(b.s);
    free(b.r);
    free(b.v);
    hyt_mpich_finalize();
    sub_cache_free();
    free(j.node_order);
    free(j.node_pos);
    hyt_oracle_free(ws);
    dump_close(dump, &dump_text, t->dump);
    return rc;
}

int hyt_tune_main(int argc, char **argv)
{
    tune_opts_t t;
    char err[512];
    int prc = parse_args(argc, argv, &t, err, sizeof err);
    if (t.oracle && prc == 0)
        return oracle_main(&t);
    if (t.progress == PROGRESS_AUTO) /* asked before MPI_Init: a launcher may redirect */
        t.progress = isatty(STDERR_FILENO) ? PROGRESS_LINE : PROGRESS_LOG;
    MPI_Init(&argc, &argv);
    int rank = 0, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (prc != 0) { /* every rank parsed the same argv: all stop here */
        if (rank == 0) {
            if (prc > 0)
                usage(stdout);
            else
                fprintf(stderr, "hytune tune: %s\n", err);
        }
        rc = prc > 0 ? 0 : 2;
    } else {
        rc = mpi_main(&t);
    }
    MPI_Finalize();
    return rc;
}
