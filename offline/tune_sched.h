/* `hytune tune`: the search of one collective.  Rank 0 runs the learning
 * loop, the rules and the native guard; every rank runs the rounds. */
#ifndef HYT_TUNE_SCHED_H
#define HYT_TUNE_SCHED_H
#include "offline/oracle.h"
#include "offline/rules.h"
#include "offline/tune_bench.h"
#include "offline/tune_opts.h"

#include <stdio.h>

#define MAX_RULES 128

/* A measured point: its time, the standard error of its log time, cut. */
typedef struct meas {
    hyt_al_point_t pt;
    double us, sp;
    int cut;
} meas_t;

/* One collective's search: its candidates, grid, learner, measurements, rules. */
typedef struct coll_state {
    int c;
    const mem_plan_t *mem; /* the run's memory bound (tune_ctx_t) */
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
    /* rank 0, --tune-nodes: the job's own rule set, the largest shape's
     * (job_shape) with the rule's challenger (its shortlist's next) or
     * native where either beat the rule on the whole job by more than the
     * noise (NULL: none such, the largest shape's serve it); the sizes
     * measured there, those native won and the rules it changed */
    hyt_tune_rule_t *job_rules;
    int njob_rules, job_shape, job_measured, job_sizes, job_changed;
    double guard_cost;  /* benchmark seconds of the native guard's points */
    meas_t *meas;       /* rank 0: every point measured for this collective */
    int nmeas, capmeas;
} coll_state_t;

/* One tuning run's context: what every module of it shares. */
typedef struct tune_ctx {
    const tune_opts_t *opts;
    job_t job;
    mem_plan_t mem;      /* the same on every rank (hyt_tune_mem_agree) */
    int use_mpich;       /* MPICH algorithms are candidates (MPI_T ready on every rank) */
    tune_bench_t bench;
    double progress_shown; /* PROGRESS_LINE: when the line was last written (0: not shown) */
} tune_ctx_t;

/* Candidates, grid and learner of collective c.  0, or -1 (the memory
 * limit leaves no point: said on rank 0; out of memory). */
int hyt_tune_setup_coll(tune_ctx_t *x, coll_state_t *cs, int c);

/* Rank 0: measurements of o (--warm-start) whose candidate exists here. */
void hyt_tune_warm_start(coll_state_t *cs, const hyt_oracle_t *o);

/* Rank 0's loop for one collective (each batch's times also into dump,
 * if not NULL), then its rules and the native guard; the other ranks
 * follow in hyt_tune_coll_follow. */
int hyt_tune_coll_root(tune_ctx_t *x, coll_state_t *cs, double deadline, FILE *dump);
void hyt_tune_coll_follow(tune_ctx_t *x, coll_state_t *cs);

/* names[c] for each candidate category c of cs (names holds 256): its
 * algorithm's name, as the table writes rules (MPICH's algorithms are all
 * "native" there). */
void hyt_tune_cand_names(const coll_state_t *cs, const char **names);

/* Rank 0: the shortlists of rules[0..nr), shape s's final rules or the
 * job's own set (cs->job_rules, from shape s's), from the model at shape
 * s.  0, or -1. */
int hyt_tune_shortlist(const job_t *j, coll_state_t *cs, int s, uint64_t max_bytes,
                       const char *const *names, hyt_tune_rule_t *rules, int nr);

/* Rank 0, --tune-nodes: the shortlists of the job's own set
 * (cs->job_rules): hyt_tune_shortlist's, then each entry measured on the
 * whole job at its rule's sizes carries that measurement, and one slower
 * there beyond the noise and the margin is dropped (hyt_rules_shortlist_job;
 * *dropped: how many).  0, or -1. */
int hyt_tune_job_shortlist(const job_t *j, coll_state_t *cs, uint64_t max_bytes,
                           const char *const *names, int *dropped);

#endif
