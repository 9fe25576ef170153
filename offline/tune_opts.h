/* Options of `hytune tune`: its command line, parsed and checked. */
#ifndef HYT_TUNE_OPTS_H
#define HYT_TUNE_OPTS_H
#include "offline/active.h"
#include "src/hyt.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_COLLS HYT_NCOLL

/* --arrival: when each rank enters a timed call (see timed_call, offline/tune_bench.c) */
enum { ARRIVAL_SYNC, ARRIVAL_LINEAR, ARRIVAL_LAST, ARRIVAL_RANDOM };

/* How rank 0 shows the progress of the search (--progress). */
enum { PROGRESS_AUTO, PROGRESS_LINE, PROGRESS_LOG };

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
    int tune_nodes;           /* --tune-nodes N: search on the job's first N nodes (0: all) */
    int forest_depth, forest_min_leaf, forest_trees; /* 0: the forest's defaults */
    uint64_t mem_limit;       /* --mem-limit bytes (0: a share of the node's memory) */
    int no_guard;             /* --no-native-guard: rules replace native unchecked */
    unsigned nonblocking;     /* --nonblocking LIST: bit n for hyt_nb_t n (0: none) */
} tune_opts_t;

/* The text of --help. */
void hyt_tune_usage(FILE *f);

/* 0 ok, 1 help asked for, -1 error in err. */
int hyt_tune_parse_args(int argc, char **argv, tune_opts_t *o, char *err, size_t len);

/* The learning loop's options (offline/active.h) of these options, for a
 * collective whose sizes are multiples of gran. */
void hyt_tune_al_opts(const tune_opts_t *t, uint64_t gran, hyt_al_opts_t *o);

#endif
