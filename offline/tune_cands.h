/* `hytune tune`: the job's shapes, the candidates of a collective, the
 * memory bound and the grid of points it leaves. */
#ifndef HYT_TUNE_CANDS_H
#define HYT_TUNE_CANDS_H
#include "offline/active.h"
#include "src/hyt.h"

#include <stdint.h>

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

/* The job: its usable shape, its nodes in network-group order, the shapes to tune. */
typedef struct job {
    int nodes, ppn;           /* usable shape: ppn = fewest ranks on any node; nodes: the
                               * first of node_order the search runs on (--tune-nodes) */
    int all_nodes;            /* the job's nodes (>= nodes): the rules' gains and a new
                               * communicator's cost are measured up to all of them */
    int *node_order;          /* world nodes ordered by network group */
    int *node_pos;            /* position of world node in node_order */
    int my_local;             /* my index among the ranks of my node */
    int parallel;             /* network groups known: concurrent points */
    int shapes[64][2], nshapes;
    /* per shape: what a new communicator costs there (us; < 0: not measured),
     * the same on every rank (hyt_tune_setup_cost) */
    double setup_us[64];
    hyt_setup_fit_t setup_fit[64]; /* its growth with the size (x = NONE: none) */
    hyt_setup_world_t world;  /* MPI_COMM_WORLD's set-up (hyt_tune_world_setup) */
} job_t;

/* The memory bound (--mem-limit): a point is benchmarked only if what one
 * rank holds during it (memory.h), times the ranks counted, fits the limit.
 * Counted: the ranks of the largest node (every rank keeps its buffers
 * between points), all ranks of the job under SimGrid (one process), where
 * the buffers are shared (memory.h: counted once, each rank's page tables
 * of them per rank) unless smpi/shared-malloc is off.  The same on every
 * rank (hyt_tune_mem_agree). */
typedef struct mem_plan {
    uint64_t limit, node;  /* bytes; node: the node's memory (0: not looked up) */
    int count;             /* ranks counted against the limit */
    int sharing;           /* how the benchmark buffers are held: HYT_BUF_* (memory.h) */
    uint64_t block;        /* HYT_BUF_SHARED_ALL: bytes of one mapping of the shared file */
    uint64_t maps;         /* HYT_BUF_SHARED_ALL: mappings the buffers of all ranks may take */
} mem_plan_t;

/* Reductions run MPI_INT / MPI_SUM (exact, commutative): sizes are multiples of 4. */
static inline uint64_t coll_gran(int c)
{
    return hyt_coll_has_op((hyt_coll_t)c) ? 4 : 1;
}

/* The job's usable shape, node order and shapes to tune (--shapes job:
 * job_only).  0, or -1 out of memory. */
int hyt_tune_job_init(job_t *j, int job_only, int no_parallel, int tune_nodes);

/* Sets *m, the same on every rank (collective over MPI_COMM_WORLD):
 * mem_limit (--mem-limit; 0: a share of the node's memory). */
void hyt_tune_mem_agree(uint64_t mem_limit, const job_t *j, mem_plan_t *m);

/* Candidates of collective c into out[max]; use_mpich: MPICH's own
 * algorithms (MPI_T) are candidates too.  Their number. */
int hyt_tune_make_cands(int c, const job_t *j, int k_cap, int use_mpich, cand_t *out, int max);

/* Can the candidate run at this shape and size? */
int hyt_tune_cand_ok(const cand_t *cd, int c, int nodes, int ppn, uint64_t bytes);

/* Memory of a point of cd on p ranks at b bytes, for the ranks m counts. */
uint64_t hyt_tune_point_need(const mem_plan_t *m, int c, const cand_t *cd, int p, uint64_t b);

/* Does a point of cd on p ranks at exactly bytes fit m's limit? */
int hyt_tune_size_fits(const mem_plan_t *m, int c, const cand_t *cd, int p, uint64_t bytes);

/* Is the grid point of (cd, p) at the power of two b within m's limit
 * (checked at 1.4 b, the largest size a grid point is moved to)? */
int hyt_tune_point_fits(const mem_plan_t *m, int c, const cand_t *cd, int p, uint64_t b);

/* The grid into *out (malloc'ed); top[q]: candidate q's largest size kept
 * at the job's own shape (0: none).  Its number of points, or -1. */
int hyt_tune_make_grid(const mem_plan_t *m, int c, const job_t *j, const cand_t *cands, int ncand,
                       uint64_t max_bytes, hyt_al_point_t **out, uint64_t *top);

/* Rank 0: what the memory limit cut, one line on standard error. */
void hyt_tune_report_mem(const mem_plan_t *m, int c, const job_t *j, const cand_t *cands,
                         int ncand, const uint64_t *top, uint64_t max_bytes);

/* The candidate of a point (alg field = algorithm category, k), or NULL. */
const cand_t *hyt_tune_find_cand(const cand_t *cands, int n, const hyt_al_point_t *p);

#endif
