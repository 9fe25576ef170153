/* `hytune tune`: the benchmark harness.  Points run in rounds on
 * sub-communicators; each point's time is measured on its ranks and the
 * answers reduced to rank 0. */
#ifndef HYT_TUNE_BENCH_H
#define HYT_TUNE_BENCH_H
#include "offline/tune_cands.h"

/* A rank's benchmark buffers, sized for the point it runs. */
typedef struct bufs {
    void *s, *r;
    size_t len;
    int *v, vp; /* v-variants: counts and displacements of vp ranks */
} bufs_t;

/* A round: points that run at once, each on nodes node_order[first..first+nodes). */
typedef struct round_pt {
    hyt_al_point_t pt;
    int first;
    double cut_us; /* hyt_al_cut_us of the point */
    int min_reps;  /* 1: the fewest calls, whatever the budget: one warm-up, then repetitions
                    * until two in a row are the same time, at most HYT_BENCH_MIN_REPS */
    double stop_s; /* min_reps: a first call slower than this (s) ends the point there,
                    * recorded cut (no measurement: the caller's time budget is spent);
                    * HUGE_VAL: never */
} round_pt_t;

/* Cached sub-communicators (tune_bench.c, sub_get): one per round layout
 * of at most SUB_MAX_POINTS points. */
#define SUB_CACHE 16
#define SUB_MAX_POINTS 16
typedef struct sub_entry {
    int n, key[3 * SUB_MAX_POINTS];
    MPI_Comm comm; /* MPI_COMM_NULL on ranks outside every point */
    unsigned long last_use;
} sub_entry_t;

/* The harness's state: what one rank keeps between points. */
typedef struct tune_bench {
    bufs_t b;                 /* this rank's buffers (of the last point) */
    const char *inject_label; /* --inject-fail(-once): this candidate fails ... */
    int inject_attempts;      /* ... its first (1) or both (2) attempts at every point */
    int arrival_kind;         /* --arrival: ARRIVAL_* (offline/tune_opts.h) */
    double arrival_us;        /* its spread */
    uint64_t arrival_seed;    /* its random pattern's seed */
    sub_entry_t sub_cache[SUB_CACHE]; /* sub-communicators by round layout */
    int sub_cached;
    unsigned long sub_clock;
    int scratch_warned;       /* a scratch above its bound was reported */
    long calls;               /* rank 0: benchmark calls of every point so far */
} tune_bench_t;

/* Rank 0: split a batch into rounds of node-disjoint points into out;
 * round_end[r]: the end of round r in out.  The number of rounds. */
int hyt_tune_plan_rounds(const job_t *j, const hyt_al_t *al, const hyt_al_point_t *pts, int n,
                         round_pt_t *out, int *round_end);

/* All ranks: run one round of n points (n and rp broadcast from rank 0;
 * n <= 0 ends the caller's loop), results reduced to rank 0's arrays
 * (spread may be NULL).  Returns n. */
int hyt_tune_run_round(tune_bench_t *bs, const job_t *j, const cand_t *cands, int ncand,
                       round_pt_t *rp, int n, double budget, double *us, double *cost, int *tries,
                       int *cut, double *spread);

/* All ranks: what a new communicator costs on each shape of j (its
 * benchmark communicator): per rank the median of SETUP_REPS
 * MPI_Comm_dup + MPI_Comm_free, the slowest rank's (MAX over the world),
 * in j->setup_us on every rank; -1 where a duplicate failed.  The same on
 * the shape's smaller communicators (whole nodes: 1, 2, 4, ... of them; a
 * one-node shape: 2, 4, ... of its ranks), fitted in j->setup_fit
 * (hyt_rules_setup_fit).  Rank 0 logs each shape's costs and fit. */
#define SETUP_REPS 5
#define SETUP_SIZES_MAX 40
/* All ranks, before any other collective on MPI_COMM_WORLD: what
 * MPI_Comm_dup of MPI_COMM_WORLD costs there and how much more its first
 * small MPI_Allreduce costs than its second (the slowest rank's, one
 * sample each: a first call happens once), into j->world; printed by rank
 * 0.  docs/memory.md says what the runtime does with it. */
void hyt_tune_world_setup(job_t *j);
void hyt_tune_setup_cost(tune_bench_t *bs, job_t *j);

/* Free the buffers and the cached sub-communicators (before MPI_Finalize). */
void hyt_tune_bench_free(tune_bench_t *bs);

/* The median of v[0..n-1], n >= 1 and small (mean of the middle two for
 * even n); sorts v. */
double hyt_tune_median(double *v, int n);

#endif
