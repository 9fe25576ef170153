/* The selection table file, one module (src/table.c) for both directions:
 * hyt_table_load reads and validates it (src/hyt.h: the types the runtime
 * looks rules up in), hyt_table_json writes it from the tuner's rules (the
 * types below, built by offline/rules.c).  Format: docs/table-format.md. */
#ifndef HYT_TABLE_H
#define HYT_TABLE_H

#include "src/hyt.h"
#include "src/nbsel.h"

#include <stdint.h>

/* A rule's shortlist (table format 2): at most HYT_TUNE_SHORTLIST
 * candidates, the rule's own first, one per algorithm. */
#define HYT_TUNE_SHORTLIST 4
typedef struct hyt_tune_cand {
    int alg, k;
    double us, sd;       /* predicted time and jackknife deviation (sd < 0: unknown) */
} hyt_tune_cand_t;

typedef struct hyt_tune_rule {
    uint64_t bytes_max;  /* UINT64_MAX: the last rule, no bound */
    int alg, k;          /* the candidate (as in hyt_al_point_t) */
    double us;           /* predicted time at the rule's largest power-of-two size */
    double native_us;    /* native's predicted time there (> 0; else not written):
                          * hyt_rules_shortlist fills it for rules not native */
    int nshort;          /* 0: no shortlist written (hyt_rules_shortlist fills it) */
    hyt_tune_cand_t shortlist[HYT_TUNE_SHORTLIST];
    int ngains;          /* measured gains over native, by ranks then bytes (0: none) */
    hyt_gain_t gains[HYT_GAINS_MAX];
} hyt_tune_rule_t;

/* ---- the table as the tuner writes it (format 2) ---- */
typedef struct hyt_tune_set {
    int nodes, ppn;               /* the shape the rules were built for */
    int nrules;
    const hyt_tune_rule_t *rules;
    const char *const *alg_names; /* name of candidate category alg (registry name) */
    double setup_us;              /* a new communicator's cost (us; < 0: not written) */
    hyt_setup_fit_t setup_fit;    /* its growth with the size (x = NONE: not written) */
} hyt_tune_set_t;

typedef struct hyt_tune_coll {
    const char *name;             /* "allreduce" */
    int nsets;
    const hyt_tune_set_t *sets;   /* any order: written by (nodes, ppn) ascending */
} hyt_tune_coll_t;

/* hytune tune --tune-nodes on the whole job (docs/tuner.md item 8): the
 * sizes at which the largest shape's rules were measured against native
 * there, those where native was faster beyond the noise (than the rule, or
 * its challenger where that was faster), and the rules the job's own rule
 * set changed to native there.  Written as
 * "tuning": {"job_native": {nodes, measured, sizes, rules}}; nodes 0: not
 * written. */
typedef struct hyt_tune_job_native {
    int nodes, measured, sizes, rules;
} hyt_tune_job_native_t;

/* JSON text of the table (malloc'ed) or NULL.  The largest shape of the job
 * gets no nodes_max / ppn_max bound, so larger communicators match it.
 * nb: the nonblocking section (MPICH's algorithms), or NULL for none.
 * arrival: the --arrival pattern the times were measured with ("sync" by
 * default), written as "tuning": {"arrival", "metric"}; k_max > 0: the
 * largest radix tried, written as "tuning": {"k_max"} (it bounds hybrid
 * mode's radix probe); jn (NULL: none): "tuning": {"job_native"}; world
 * (NULL or ranks 0: none): the tuner's MPI_COMM_WORLD set-up, written as
 * "setup_world". */
char *hyt_table_json(int nodes, int ppn, const char *mpi, const char *arrival, int k_max,
                     const hyt_tune_job_native_t *jn, const hyt_setup_world_t *world,
                     const hyt_tune_coll_t *colls, int ncolls, const hyt_nb_table_t *nb);

#endif
