/* hytune internal core header: the contracts every part plugs into.
 *
 * A collective call is captured once in an hyt_args_t by the generated PMPI
 * wrapper (src/wrappers.c), resolved against the per-communicator context
 * (src/comm.c), and dispatched to one row of the algorithm registry
 * (algorithms/registry.c) or to PMPI.  Nothing here allocates per call. */
#ifndef HYT_H
#define HYT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define HYT_LIKELY(x) __builtin_expect(!!(x), 1)
#define HYT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HYT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define HYT_INLINE inline __attribute__((always_inline)) /* on the per-call path */
#define HYT_NOINLINE __attribute__((noinline)) /* kept off the per-call path */
/* runs when the library loads, before main: how a layer above the core
 * registers its slots (online/online.c) without the core naming it */
#define HYT_CONSTRUCTOR __attribute__((constructor))
#else
#error "hytune needs a compiler with GNU C attributes (gcc, clang): HYT_CONSTRUCTOR"
#define HYT_INLINE inline
#define HYT_NOINLINE
#define HYT_LIKELY(x) (x)
#define HYT_UNLIKELY(x) (x)
#define HYT_PRINTF(a, b)
#endif

/* ---- collectives --------------------------------------------------------
 * One X-macro list of every collective MPI defines: enum, names, properties
 * and everything iterating over collectives read it.  X(U, l, M, P): enum
 * suffix, name, MPI_<M>, properties (HYT_CP_*).  Each collective is
 * interposed in all its forms (blocking, nonblocking I<M>, persistent
 * <M>_init, large-count _c) by one generator line in src/wrappers.c.
 * Adding a tuned collective: its registry rows (algorithms/registry.c); the
 * list entry, its PMPI call and size (src/call.h) and its wrapper line are
 * here already. */
enum {
    HYT_CP_OP = 1u << 0,         /* takes a reduction op */
    HYT_CP_ROOT = 1u << 1,       /* has a root */
    HYT_CP_BLOCK = 1u << 2,      /* moves one block per rank (counts are per rank) */
    HYT_CP_VECTOR = 1u << 3,     /* per-rank counts and displacements (v and w variants) */
    HYT_CP_LOCAL_SIZE = 1u << 4, /* the call's size is known only locally (not the same
                                  * on every rank): selection must not depend on it */
    HYT_CP_NEIGHBOR = 1u << 5,   /* neighborhood collective (topology communicator) */
    HYT_CP_NO_COUNT = 1u << 6,   /* moves no data (Barrier): no large-count form */
    HYT_CP_PERSONAL = 1u << 7,   /* each rank receives its own part of the data, not a
                                  * result all receivers share (Scatter, Alltoall,
                                  * Reduce_scatter ...) */
};

#define HYT_COLL_LIST(X)                                                                   \
    X(ALLREDUCE, allreduce, Allreduce, HYT_CP_OP)                                          \
    X(BCAST, bcast, Bcast, HYT_CP_ROOT)                                                    \
    X(REDUCE, reduce, Reduce, HYT_CP_OP | HYT_CP_ROOT)                                     \
    X(ALLGATHER, allgather, Allgather, HYT_CP_BLOCK)                                       \
    X(ALLTOALL, alltoall, Alltoall, HYT_CP_BLOCK | HYT_CP_PERSONAL)                        \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, Reduce_scatter_block,                    \
      HYT_CP_OP | HYT_CP_BLOCK | HYT_CP_PERSONAL)                                          \
    X(BARRIER, barrier, Barrier, HYT_CP_NO_COUNT)                                          \
    X(GATHER, gather, Gather, HYT_CP_ROOT | HYT_CP_BLOCK)                                  \
    X(GATHERV, gatherv, Gatherv, HYT_CP_ROOT | HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE) \
    X(SCATTER, scatter, Scatter, HYT_CP_ROOT | HYT_CP_BLOCK | HYT_CP_PERSONAL)             \
    X(SCATTERV, scatterv, Scatterv,                                                        \
      HYT_CP_ROOT | HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE | HYT_CP_PERSONAL)    \
    X(ALLGATHERV, allgatherv, Allgatherv, HYT_CP_BLOCK | HYT_CP_VECTOR)                    \
    X(ALLTOALLV, alltoallv, Alltoallv,                                                     \
      HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE | HYT_CP_PERSONAL)                   \
    X(ALLTOALLW, alltoallw, Alltoallw,                                                     \
      HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE | HYT_CP_PERSONAL)                   \
    X(REDUCE_SCATTER, reduce_scatter, Reduce_scatter,                                      \
      HYT_CP_OP | HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_PERSONAL)                           \
    X(SCAN, scan, Scan, HYT_CP_OP)                                                         \
    X(EXSCAN, exscan, Exscan, HYT_CP_OP)                                                   \
    X(NEIGHBOR_ALLGATHER, neighbor_allgather, Neighbor_allgather,                          \
      HYT_CP_NEIGHBOR | HYT_CP_BLOCK | HYT_CP_LOCAL_SIZE)                                  \
    X(NEIGHBOR_ALLGATHERV, neighbor_allgatherv, Neighbor_allgatherv,                       \
      HYT_CP_NEIGHBOR | HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE)                  \
    X(NEIGHBOR_ALLTOALL, neighbor_alltoall, Neighbor_alltoall,                             \
      HYT_CP_NEIGHBOR | HYT_CP_BLOCK | HYT_CP_LOCAL_SIZE | HYT_CP_PERSONAL)                 \
    X(NEIGHBOR_ALLTOALLV, neighbor_alltoallv, Neighbor_alltoallv,                          \
      HYT_CP_NEIGHBOR | HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE | HYT_CP_PERSONAL) \
    X(NEIGHBOR_ALLTOALLW, neighbor_alltoallw, Neighbor_alltoallw,                          \
      HYT_CP_NEIGHBOR | HYT_CP_BLOCK | HYT_CP_VECTOR | HYT_CP_LOCAL_SIZE | HYT_CP_PERSONAL)

typedef enum {
#define HYT_X(U, l, M, P) HYT_COLL_##U,
    HYT_COLL_LIST(HYT_X)
#undef HYT_X
    HYT_NCOLL
} hyt_coll_t;

const char *hyt_coll_name(hyt_coll_t c);       /* "allreduce" */
const char *hyt_coll_names(void);              /* "allreduce, bcast, ...": every name */
int hyt_coll_from_name(const char *name);      /* -1 if unknown */
extern const unsigned hyt_coll_prop_table[HYT_NCOLL];
static inline unsigned hyt_coll_props(hyt_coll_t c) /* HYT_CP_* */
{
    return (unsigned)c < HYT_NCOLL ? hyt_coll_prop_table[c] : 0;
}
/* Does the collective take a reduction op (Allreduce, Reduce, Scan ...)? */
int hyt_coll_has_op(hyt_coll_t c);
/* Does the collective have a root (Bcast, Reduce, Gather(v), Scatter(v))? */
int hyt_coll_has_root(hyt_coll_t c);
/* Does the registry hold an algorithm of hytune's (not only "native") for c? */
int hyt_coll_tunable(hyt_coll_t c);

/* The forms an entry point takes: blocking MPI_<M>, nonblocking MPI_I<m>,
 * persistent MPI_<M>_init, each with int counts or large counts (_c).
 * variant = 2 * form + large.  Blocking int-count calls are dispatched
 * (tuned); every other variant runs the MPI library's own collective and is
 * counted and timed (nonblocking and persistent: from start to the Wait or
 * Test that completes it, src/requests.c). */
typedef enum { HYT_FORM_BLOCKING, HYT_FORM_NONBLOCKING, HYT_FORM_PERSISTENT, HYT_NFORM } hyt_form_t;
#define HYT_NVARIANT (2 * HYT_NFORM)
#define HYT_VARIANT(form, large) (2 * (int)(form) + (large))
/* The MPI entry point's name of (collective, variant): "MPI_Iallreduce_c". */
void hyt_entry_name(hyt_coll_t c, int variant, char *buf, size_t len);

/* ---- one captured call ---------------------------------------------------
 * Field meaning per collective (all values are those the caller passed):
 *   allreduce, reduce, scan, exscan: sbuf (may be MPI_IN_PLACE), rbuf, count, type, op[, root]
 *   bcast:                  rbuf = buffer, count, type, root
 *   allgather, alltoall, gather, scatter, neighbor_allgather, neighbor_alltoall:
 *                           sbuf (may be MPI_IN_PLACE), scount, stype,
 *                           rbuf, count = recvcount, type = recvtype[, root]
 *   reduce_scatter_block:   sbuf (may be MPI_IN_PLACE), rbuf, count = recvcount, type, op
 *   barrier:                comm only
 *   v variants:             as their plain form, with scounts/sdispls (alltoallv, scatterv)
 *                           and rcounts/rdispls (allgatherv, gatherv, alltoallv) instead of
 *                           scount and count; reduce_scatter: rcounts = recvcounts, type, op
 *   w variants:             scounts, sdispls, stypes, rcounts, rdispls, rtypes
 *                           (neighbor_alltoallw's displacements are MPI_Aint: csdispls, crdispls)
 * Large-count (_c) forms, counted only: large = 1 and the counts in ccount,
 * cscount, cscounts, crcounts, csdispls, crdispls instead.
 * bytes: the selection size (set by dispatch, hyt_selection_bytes):
 *   allreduce/bcast/reduce/scan/exscan: count * size(type);
 *   allgather, gather, scatter, reduce_scatter_block: one rank's block;
 *   alltoall, neighbor_allgather, neighbor_alltoall: one block (per pair);
 *   v and w variants: the total of the blocks this rank's call names (allgatherv,
 *   reduce_scatter: all p blocks, the same on every rank; alltoallv/w: the blocks
 *   this rank sends; gatherv/scatterv: all blocks at the root, its own block elsewhere;
 *   neighbor v/w: the blocks received (allgatherv) or sent);
 *   barrier: 0.
 * block: the largest single block in bytes (v and w variants; else bytes).
 * Collectives with HYT_CP_LOCAL_SIZE have a size that differs between ranks:
 * their bucket is local (statistics) and selection takes the rule set's last
 * rule whatever the size. */
typedef struct hyt_comm hyt_comm_t;

typedef struct hyt_args {
    hyt_coll_t coll;
    const void *sbuf;
    void *rbuf;
    int count;
    MPI_Datatype type;
    int scount;
    MPI_Datatype stype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    const int *scounts, *sdispls, *rcounts, *rdispls; /* v and w variants */
    const MPI_Datatype *stypes, *rtypes;              /* w variants */
    int large;                                        /* large-count form (_c) */
    MPI_Count ccount, cscount;
    const MPI_Count *cscounts, *crcounts;
    const MPI_Aint *csdispls, *crdispls;
    hyt_comm_t *ctx; /* set by dispatch before any algorithm runs */
    size_t bytes;    /* set by dispatch */
    size_t block;    /* set by dispatch */
} hyt_args_t;

/* Call the PMPI implementation of the captured collective (src/call.c). */
int hyt_pmpi_call(const hyt_args_t *a);
/* Selection size of a captured call (see hyt_args_t.bytes; src/call.c).  v
 * and w variants read the communicator's size from a->ctx (looked up if
 * NULL). */
size_t hyt_selection_bytes(const hyt_args_t *a);

/* ---- algorithm registry (algorithms/registry.c) ---------------------------
 * An algorithm function returns MPI_SUCCESS, an MPI error code, or
 * HYT_UNSUPPORTED.  HYT_UNSUPPORTED may only be returned before any
 * communication and only for a reason that is the same on every rank (so
 * every rank falls back together). */
#define HYT_UNSUPPORTED (-4242)

typedef int (*hyt_alg_fn)(const hyt_args_t *a, int k);
/* Upper bounds of the scratch a kernel takes at radix k for call a (a->ctx
 * and a->bytes set), added to need[0] (hyt_scratch) and need[1]
 * (hyt_scratch2) from zero: 0 when they are the same on every rank of the
 * call, 1 when they depend on this rank's own arguments. */
typedef int (*hyt_scratch_fn)(const hyt_args_t *a, int k, size_t need[2]);

/* Why a call went to PMPI instead of its algorithm (counted in the
 * statistics under hyt_fallback_name). */
typedef enum {
    HYT_FB_NONE = 0,
    HYT_FB_INTERCOMM,     /* intercommunicator */
    HYT_FB_NONCOMMUTATIVE,/* op not commutative for a reordering algorithm */
    HYT_FB_INPLACE,       /* algorithm cannot run in place */
    HYT_FB_LAYOUT,        /* rank layout the algorithm needs is not there */
    HYT_FB_ALGORITHM,     /* the algorithm declined the call (HYT_UNSUPPORTED) */
    HYT_FB_SCRATCH,       /* its scratch exceeds HYTUNE_SCRATCH_MAX or some rank lacks it */
    HYT_FB_SETUP,         /* the private duplicate's set-up is not yet repaid (runtime.c) */
    HYT_FB_SLOWER,        /* the rule's gain measured at this scale is negative (runtime.c) */
    HYT_NFB
} hyt_fallback_t;
const char *hyt_fallback_name(hyt_fallback_t f);

enum {
    HYT_ALG_NEEDS_COMMUTATIVE = 1u << 0, /* reorders operands: needs a commutative op */
    HYT_ALG_NO_INPLACE = 1u << 1,        /* cannot take MPI_IN_PLACE */
    HYT_ALG_NODE_CONSECUTIVE = 1u << 2,  /* needs node-consecutive ranks, uniform ppn */
    HYT_ALG_NATIVE = 1u << 3,            /* runs the MPI library's own selection */
    HYT_ALG_COMPOSITION = 1u << 4,       /* node-aware composition (inner steps use k): runs on
                                          * the node and leader communicators
                                          * (hyt_comm_node_split), which its first
                                          * call makes (online/choose.h: the set-up gate) */
};
/* There is deliberately no "contiguous types only" restriction: ranks may
 * pass different datatypes with the same type signature, so such a check
 * could differ between ranks and hang the job.  Every algorithm takes any
 * datatype (MPI moves derived types; reductions use MPI_Reduce_local).
 * HYT_ALG_NO_INPLACE is never used for Bcast or Reduce, where only the
 * root can pass MPI_IN_PLACE. */

/* k_max value meaning "up to the communicator size" (larger k behaves as p). */
#define HYT_K_P (-1)
/* The largest k any table, override or probe may name. */
#define HYT_K_LIMIT 65536

/* The schedule family of a row: rows of one family share a name and a
 * shape (a k-nomial tree, a recursive-multiplying exchange ...) across
 * collectives. */
typedef enum {
    HYT_FAM_NATIVE,       /* the MPI library's own selection */
    HYT_FAM_KNOMIAL,
    HYT_FAM_RECMULT,
    HYT_FAM_KRING,
    HYT_FAM_RABENSEIFNER,
    HYT_FAM_KBRUCK,
    HYT_FAM_PAIRWISE,
    HYT_FAM_RECHALVING,
    HYT_FAM_DISSEMINATION,
    HYT_FAM_RING,
    HYT_FAM_SCATTERED,
    HYT_FAM_RECDOUBLING,
    HYT_FAM_COMPOSITION,
} hyt_family_t;

/* How topology/prior.c picks the starting radix of a row. */
typedef enum {
    HYT_PRIOR_NONE,       /* no radix */
    HYT_PRIOR_TREE,       /* alpha-beta model of a k-ary tree */
    HYT_PRIOR_EXCHANGE,   /* alpha-beta model of a k-port exchange */
    HYT_PRIOR_PPN,        /* processes per node */
    HYT_PRIOR_PORTS,      /* smallest power of two >= network ports per node */
    HYT_PRIOR_INNER,      /* the prior of the k-nomial row over the node leaders */
} hyt_prior_t;

typedef struct hyt_alg {
    const char *name;   /* readable, unique per collective: "knomial", "recmult" */
    hyt_coll_t coll;
    hyt_alg_fn fn;
    hyt_scratch_fn scratch; /* NULL: no scratch beyond a few bytes; native rows: MPI's, estimated */
    int k_min, k_max;   /* 0,0: no radix; k_max may be HYT_K_P */
    unsigned flags;     /* HYT_ALG_* restrictions */
    hyt_family_t family;
    hyt_prior_t prior;
    int k_one_round;    /* the radix from which the schedule is one round
                         * (HYT_K_P: the communicator size), for online
                         * probing to measure; 0: none given */
    const char *desc;   /* one line */
} hyt_alg_t;

extern const hyt_alg_t hyt_algs[];
extern const int hyt_nalgs;

const hyt_alg_t *hyt_alg_find(hyt_coll_t c, const char *name);
/* The row of family f for collective c, NULL if none. */
const hyt_alg_t *hyt_alg_find_family(hyt_coll_t c, hyt_family_t f);
/* The row whose schedule the inter-node step of c's composition runs with
 * the composition's radix: k-nomial, else (Allgatherv) recursive
 * multiplying; NULL if none. */
const hyt_alg_t *hyt_alg_inner(hyt_coll_t c);
/* The radix from which alg's schedule is one round on p ranks, 0 if none. */
int hyt_alg_one_round_k(const hyt_alg_t *alg, int p);
const hyt_alg_t *hyt_alg_native(hyt_coll_t c);
int hyt_alg_has_radix(const hyt_alg_t *alg);
/* Largest useful k for this algorithm on a communicator of size p. */
int hyt_alg_k_max(const hyt_alg_t *alg, int p);
/* Parse "name" or "name:k" or "name:k=K"; 0 on success, else -1 and a
 * message in err (which names the valid choices). */
int hyt_alg_parse(hyt_coll_t c, const char *spec, const hyt_alg_t **alg, int *k,
                  char *err, size_t errlen);
/* Why this call cannot run alg (HYT_FB_NONE if it can).  Same answer on
 * every rank. */
hyt_fallback_t hyt_alg_check(const hyt_alg_t *alg, const hyt_args_t *a);
/* The scratch alg needs at radix k for call a (its .scratch, every area at
 * least 64 bytes; algorithms/scratch.c); returns what .scratch returns. */
int hyt_alg_scratch(const hyt_args_t *a, const hyt_alg_t *alg, int k, size_t need[2]);
/* Run one algorithm on a captured call (algorithms/run.c; a->ctx set, or it is looked up;
 * a->bytes and a->block are computed): checks the registry restrictions and
 * the scratch (hyt_scratch_reserve), runs alg->fn, and falls back to PMPI
 * when the call cannot be taken; *fb (if not NULL) says why (HYT_FB_NONE if
 * alg ran).  Used by dispatch, compositions, the tuner's benchmarks and the
 * tests. */
int hyt_run_alg(hyt_args_t *a, const hyt_alg_t *alg, int k, hyt_fallback_t *fb);
/* hyt_run_alg once a->ctx, a->bytes and a->block are set (or a->ctx is
 * NULL: PMPI): the per-call path's entry. */
int hyt_alg_run(hyt_args_t *a, const hyt_alg_t *alg, int k, hyt_fallback_t *fb);

/* ---- environment (src/env.c) ---------------------------------------------- */
typedef enum { HYT_MODE_OFF, HYT_MODE_OFFLINE, HYT_MODE_HYBRID } hyt_mode_t;
typedef enum { HYT_LOG_ERROR, HYT_LOG_WARN, HYT_LOG_INFO, HYT_LOG_DEBUG } hyt_log_level_t;

typedef struct hyt_config {
    hyt_mode_t mode;
    const char *table;      /* HYTUNE_TABLE or NULL */
    const char *stats;      /* HYTUNE_STATS or NULL */
    hyt_log_level_t log_level;
    unsigned log_topics;    /* bit mask of hyt_topic_t */
    int log_all_ranks;
    const char *force[HYT_NCOLL]; /* HYTUNE_FORCE_<COLL> raw spec or NULL */
    long hot_calls;         /* -1: auto (online/probe.h: hyt_probe_hot_calls) */
    long probe_calls;
    double probe_min_gain;
    long drift_interval;
    long probe_k_max;          /* HYTUNE_PROBE_K_MAX, 0: no cap */
    int builtin_shortlist;     /* HYTUNE_BUILTIN_SHORTLIST: 1 on */
    const char *node_hw;       /* HYTUNE_NODE_HW */
    const char *network_file;  /* HYTUNE_NETWORK_FILE */
    const char *warm_start;    /* HYTUNE_WARM_START */
    unsigned stats_signals;    /* HYTUNE_STATS_SIGNALS: bit 1 << SIGNUM per signal */
    long scratch_max;          /* HYTUNE_SCRATCH_MAX: bytes of scratch per communicator */
    long test_kernel_fail;     /* HYTUNE_TEST_KERNEL_FAIL: world rank, -1: none */
    int test_kernel_fail_at;   /* HYTUNE_TEST_KERNEL_FAIL_AT: HYT_TEST_FAIL_* */
} hyt_config_t;

extern hyt_config_t hyt_cfg;

/* HYTUNE_TEST_KERNEL_FAIL_AT's places, in its choice list's order: the
 * allocation there fails on world rank HYTUNE_TEST_KERNEL_FAIL (tests only). */
enum {
    HYT_TEST_FAIL_RESERVE, HYT_TEST_FAIL_KERNEL, HYT_TEST_FAIL_NODE, HYT_TEST_FAIL_ONLINE,
    /* hyt_small_alloc's places (served from the emergency reserve) */
    HYT_TEST_FAIL_CTX, HYT_TEST_FAIL_NODEMODEL, HYT_TEST_FAIL_KEY, HYT_TEST_FAIL_ONLINEKEY,
    HYT_TEST_FAIL_INIT,
    HYT_TEST_FAIL_EMERGENCY, /* the reserve itself cannot be taken */
    HYT_TEST_FAIL_SPENT,     /* the reserve is empty and the keys' allocation fails */
    HYT_TEST_FAIL_WARM,      /* an entry of HYTUNE_WARM_START (online/warm.c) */
};
#define hyt_test_fail(at, world_rank)                                                              \
    (HYT_UNLIKELY(hyt_cfg.test_kernel_fail >= 0) && hyt_cfg.test_kernel_fail == (world_rank) &&   \
     hyt_cfg.test_kernel_fail_at == (at))

/* Read every HYTUNE_* variable once; warn about unknown ones and bad values
 * (the default is kept for a bad value).  Returns the number of problems. */
int hyt_env_init(void);
/* Print the variable table (name, type, default, current value, help). */
void hyt_env_print(FILE *out);
/* Parse helpers shared with the command-line tool; 0 ok, -1 bad. */
int hyt_env_parse_mode(const char *s, hyt_mode_t *m);

/* ---- logging (src/log.c) -------------------------------------------------- */
typedef enum {
    HYT_TOPIC_CORE = 1u << 0,
    HYT_TOPIC_TABLE = 1u << 1,
    HYT_TOPIC_ALG = 1u << 2,
    HYT_TOPIC_TOPO = 1u << 3,
    HYT_TOPIC_ONLINE = 1u << 4,
    HYT_TOPIC_TUNE = 1u << 5,
    HYT_TOPIC_ALL = 0xffffu,
} hyt_topic_t;

void hyt_log_set_rank(int world_rank);
void hyt_log(hyt_log_level_t lvl, hyt_topic_t topic, const char *fmt, ...) HYT_PRINTF(3, 4);
/* Like hyt_log but printed at most once per *flag (flag is a static int at the call site). */
void hyt_log_once(int *flag, hyt_log_level_t lvl, hyt_topic_t topic, const char *fmt, ...)
    HYT_PRINTF(4, 5);
#define hyt_error(topic, ...) hyt_log(HYT_LOG_ERROR, topic, __VA_ARGS__)
#define hyt_warn(topic, ...) hyt_log(HYT_LOG_WARN, topic, __VA_ARGS__)
#define hyt_info(topic, ...) hyt_log(HYT_LOG_INFO, topic, __VA_ARGS__)
#define hyt_debug(topic, ...) hyt_log(HYT_LOG_DEBUG, topic, __VA_ARGS__)

/* ---- selection table (src/table.c) ---------------------------------------- */
/* One candidate of a rule's shortlist: an (algorithm, k) the tuner's model
 * could not rule out for the rule's sizes (table format 2). */
typedef struct hyt_cand {
    const hyt_alg_t *alg;
    int k;                   /* 0 if the algorithm has no radix */
    double predicted_us;     /* < 0 if unknown */
    double spread_us;        /* jackknife standard deviation; < 0 if unknown */
} hyt_cand_t;

/* Candidates per rule, the rule's own choice included; one per algorithm
 * (hybrid mode tunes the winner's k itself). */
#define HYT_SHORTLIST_MAX 4

/* One measured gain of a rule's choice over the MPI library's own selection
 * (table format 2, "gains"): native's time minus the choice's, both
 * measured by the tuner on a communicator of `ranks` ranks at `bytes`. */
typedef struct hyt_gain {
    int ranks;
    uint64_t bytes;
    double us;               /* may be negative: native was faster there */
} hyt_gain_t;

/* Gains per rule: a few sizes at the tuned shape and at the tuning job's size. */
#define HYT_GAINS_MAX 16

typedef struct hyt_rule {
    uint64_t bytes_max;      /* rule applies to bytes <= bytes_max (UINT64_MAX: no bound) */
    const hyt_alg_t *alg;
    int k;                   /* 0 if the algorithm has no radix */
    double predicted_us;     /* < 0 if unknown */
    double native_us;        /* the MPI library's own selection here (< 0 if unknown) */
    int ngains;              /* measured gains, by ranks then bytes (0: none) */
    hyt_gain_t gains[HYT_GAINS_MAX];
    /* shortlist[0] is the rule's own (alg, k, predicted_us); the others
     * follow in the table's order (by predicted time).  A format-1 rule, or
     * a rule without "shortlist", has nshort = 1. */
    int nshort;
    hyt_cand_t shortlist[HYT_SHORTLIST_MAX];
} hyt_rule_t;

/* A new communicator's cost as a function of its size p (docs/memory.md):
 * max(0, a_us + b_us * x(p)), x(p) = p or log2 p, fitted by the tuner to
 * the costs it measured at ranks_min..ranks_max ranks. */
typedef enum { HYT_SETUP_FIT_NONE, HYT_SETUP_FIT_RANKS, HYT_SETUP_FIT_LOG2 } hyt_setup_x_t;
typedef struct hyt_setup_fit {
    hyt_setup_x_t x;         /* NONE: no fit */
    double a_us, b_us;       /* b_us >= 0 */
    int ranks_min, ranks_max;
    /* the cost measured on the tuning job's communicator ("setup_job"), when
     * it is larger than ranks_max: above ranks_max the cost runs along x from
     * the line's value there to job_us at job_ranks, and stays job_us above */
    int job_ranks;           /* 0: not measured */
    double job_us;
} hyt_setup_fit_t;

/* MPI_COMM_WORLD's set-up as the tuner measured it on its own
 * MPI_COMM_WORLD ("setup_world", docs/memory.md): what MPI_Comm_dup costs
 * there before any collective, and how much more its first set-up
 * collective (a small MPI_Allreduce) costs than the next one.  A library
 * that sets up MPI_COMM_WORLD's collectives lazily, at its first
 * collective, charges first_us; one that sets it up in MPI_Init about 0. */
typedef struct hyt_setup_world {
    int ranks;               /* the tuner's MPI_COMM_WORLD (0: not measured) */
    double dup_us, first_us;
} hyt_setup_world_t;
/* 1 if a private duplicate made before MPI_COMM_WORLD's first collective,
 * with every later collective on MPI_COMM_WORLD run on it, costs at most
 * half what one made after it costs: max(0, dup_us - first_us) <= dup_us /
 * 2 (buying early loses at most that difference; waiting, when the
 * duplicate is bought later, pays dup_us instead).  0 if not measured. */
int hyt_setup_world_early(const hyt_setup_world_t *w);

typedef struct hyt_rule_set {
    int nodes_max, ppn_max;  /* INT32_MAX: no bound */
    double setup_us;         /* a new communicator's cost on this shape (< 0 if unknown) */
    hyt_setup_fit_t setup_fit; /* its growth with the communicator's size, if fitted */
    int nrules;
    hyt_rule_t *rules;       /* ordered by bytes_max, strictly increasing */
} hyt_rule_set_t;

typedef struct hyt_table {
    char *path;
    int platform_nodes, platform_ppn;
    char *platform_mpi;
    int k_max;                 /* $.tuning.k_max: the largest radix tuned (0: not given) */
    hyt_setup_world_t world;   /* $.setup_world (ranks 0: not given) */
    int nsets[HYT_NCOLL];
    hyt_rule_set_t *sets[HYT_NCOLL];
    struct hyt_nb_table *nb; /* "nonblocking": MPICH's algorithms via MPI_T (src/nbsel.h), or NULL */
} hyt_table_t;

/* Load and validate; NULL on error with one message in err (file, JSON path, fix). */
hyt_table_t *hyt_table_load(const char *path, char *err, size_t errlen);
void hyt_table_free(hyt_table_t *t);
/* The rule set applying to a communicator of this shape, or NULL. */
const hyt_rule_set_t *hyt_table_match(const hyt_table_t *t, hyt_coll_t c, int nodes, int ppn);
/* A new communicator's cost (us) under set s for one of size ranks: its
 * setup_fit there (max(0, a + b x(ranks)); towards and above the job's
 * measured cost, hyt_setup_fit_t), else its setup_us (< 0: unknown). */
double hyt_setup_cost(const hyt_rule_set_t *s, int ranks);
/* A set-up is bought only once the calls that waited for it took at least
 * this many times its cost (the private duplicate: src/runtime.c; the
 * online choice's node and leader communicators: online/choose.h).  An
 * integer, so that the comparison is exact. */
#define HYT_SETUP_NATIVE_MULT 100
/* The gain (us) a call of `bytes` on a communicator of `ranks` ranks
 * expects from rule r's choice over MPI's own algorithm: from its measured
 * gains, interpolated in log2 bytes between the sizes measured at a scale,
 * the lower of the two scales around ranks, held at the nearest measured
 * size or scale outside them (never extrapolated); without gains,
 * native_us - predicted_us.  *known = 0 (and 0 returned) if neither. */
double hyt_rule_gain(const hyt_rule_t *r, int ranks, uint64_t bytes, int *known);
/* "ranks", "log2_ranks" (the table's setup_fit.x), or NULL for NONE. */
const char *hyt_setup_x_name(hyt_setup_x_t x);
/* O(log n) lookup, no allocation: the rule for this size (never NULL for a set). */
static inline const hyt_rule_t *hyt_rules_lookup(const hyt_rule_set_t *s, size_t bytes)
{
    int lo = 0, hi = s->nrules - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if ((uint64_t)bytes <= s->rules[mid].bytes_max)
            hi = mid;
        else
            lo = mid + 1;
    }
    return &s->rules[lo];
}

extern hyt_table_t *hyt_table; /* the table in force, or NULL */

/* ---- per-communicator context (src/comm.c) -------------------------------- */
#define HYT_NBUCKETS 64 /* bucket b holds sizes with floor(log2(bytes))+1 == b; 0 bytes: 0 */

static inline int hyt_bucket(size_t bytes)
{
    return bytes == 0 ? 0 : 64 - __builtin_clzll((unsigned long long)bytes);
}


/* Counters and decision state of one selection key (comm, collective, bucket). */
typedef struct hyt_key {
    hyt_coll_t coll;
    int bucket;
    int variant;                  /* HYT_VARIANT(form, large) */
    uint64_t calls;               /* persistent forms: *_init calls */
    uint64_t bytes;               /* sum of selection bytes */
    size_t block_max;             /* largest block seen (bytes) */
    uint64_t tuned;               /* calls a hytune algorithm ran */
    double time;                  /* seconds, summed over timed calls (nonblocking and
                                   * persistent: start to completion) */
    uint64_t timed_calls;         /* timed calls (persistent: completed starts) */
    uint64_t fallbacks[HYT_NFB];
    const hyt_alg_t *alg;         /* last algorithm used (after fallback: native) */
    int k;                        /* last k used */
    void *ext;                    /* a layer above the core's state of the key (online/
                                   * in hybrid mode), NULL until it takes the key; the
                                   * core reaches it only through hyt_key_ext_hooks_t */
} hyt_key_t;

/* The key-extension slot: the layer that attaches hyt_key_t.ext registers
 * these first, and the core frees and reports the extension through them
 * without knowing its type (src/comm.c keeps them). */
struct json_object;
typedef struct hyt_key_ext_hooks {
    void (*free)(hyt_key_t *key);                /* free key->ext, set it NULL */
    /* 1 if the extension chose the key's algorithm among candidates or is
     * measuring them to choose (the statistics' "online choice") */
    int (*chose)(const hyt_key_t *key);
    void (*report)(const hyt_key_t *key, FILE *out);             /* text statistics lines */
    void (*json)(const hyt_key_t *key, struct json_object *obj); /* JSON statistics fields */
} hyt_key_ext_hooks_t;
/* Register the hooks (a static table; the last registration counts). */
void hyt_key_ext_register(const hyt_key_ext_hooks_t *hooks);
/* The hooks registered, or NULL. */
const hyt_key_ext_hooks_t *hyt_key_ext(void);

/* The call slot: the layer above the core that tunes calls while they run
 * (online/, hybrid mode) registers what dispatch (src/runtime.c) runs
 * around a call it may tune; with none registered, hybrid mode runs the
 * table's choice as offline mode does.  Registered when the library loads
 * (HYT_CONSTRUCTOR; a static table, the last registration counts). */
typedef struct hyt_call_hooks {
    /* Before a call of key with the statically selected (*alg, *k) from
     * rule (NULL: no table rule covers the key) and the call's root (-1:
     * no root): may replace *k, and *alg on a key whose rule has a
     * shortlist.  1: time the call and pass it to after(). */
    int (*before)(hyt_comm_t *ctx, hyt_key_t *key, const hyt_rule_t *rule, int root,
                  const hyt_alg_t **alg, int *k);
    /* After a timed call of (alg, k): this rank's elapsed seconds, and
     * whether the call went to PMPI instead (the algorithm declined it). */
    void (*after)(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int k,
                  double seconds, int fell_back);
    void (*finalize)(void); /* MPI_Finalize, or hytune turning itself off at init */
} hyt_call_hooks_t;
void hyt_call_hooks_register(const hyt_call_hooks_t *hooks);

struct hyt_comm {
    MPI_Comm comm;
    uint64_t id;            /* process-local creation number */
    int size, rank;
    int is_inter;
    /* node model (topology/): filled at creation from the world node map */
    int nodes;              /* nodes spanned by the communicator */
    int ppn;                /* largest processes per node in the communicator */
    int ppn_min;
    int node_consecutive;   /* ranks of a node are contiguous and ppn uniform */
    int my_node;            /* index of my node in 0..nodes-1 (by first appearance) */
    int node_rank;          /* my rank among the ranks of my node */
    int *node_of;           /* size entries: node index of every rank */
    MPI_Comm priv;          /* private duplicate for hytune's own traffic, lazily */
    MPI_Comm node_comm;     /* lazily: ranks of my node (compositions) */
    MPI_Comm leader_comm;   /* lazily: node_rank == 0 ranks; MPI_COMM_NULL elsewhere */
    const hyt_rule_set_t *rules[HYT_NCOLL];
    const hyt_alg_t *forced[HYT_NCOLL];
    int forced_k[HYT_NCOLL];
    hyt_key_t *keys[HYT_NCOLL][HYT_NBUCKETS];   /* blocking int-count calls */
    hyt_key_t **vkeys[HYT_NVARIANT][HYT_NCOLL]; /* other variants: HYT_NBUCKETS each, lazily */
    int remote_size;        /* intercommunicator: remote group size; else size */
    int indegree, outdegree;/* neighborhood collectives: -1 until first asked */
    uint64_t seq;           /* intercepted collective calls so far (the same on every rank) */
    double rent;            /* expected gains of kernel calls run natively before the
                             * private duplicate was made (the same on every rank) */
    double rent_native;     /* those calls' native time, as the table gives it (the same
                             * on every rank) */
    double setup_cost[HYT_NCOLL]; /* hyt_setup_cost of rules[c] at size (< 0: unknown) */
    int world_first;        /* MPI_COMM_WORLD before its first intercepted collective */
    int mpi_on_priv;        /* MPI's own collectives run on priv, not comm: the duplicate
                             * was made before comm's first collective (src/runtime.c) */
    void *scratch;          /* reused temporary space for algorithms */
    size_t scratch_size;
    void *scratch2;
    size_t scratch2_size;
    size_t reserve[2];      /* scratch every rank holds in each area (agreed: src/comm.c) */
    size_t refused[2];      /* needs some rank could not hold (agreed); both 0: none */
    uint32_t refused_calls; /* calls of a refused need since it was last asked (agreed) */
    uint32_t retry_after;   /* ... when it is asked again (src/comm.c) */
    uint64_t beyond;        /* kernel requests the reserve did not cover (tests) */
    uint64_t asks;          /* reserve agreements run (one allreduce each; tests) */
    struct hyt_comm *next;  /* list of live and retired contexts, for the stats dump */
    int freed;              /* communicator freed; kept only for stats */
};

/* The context of comm, created on first use (NULL only before init).
 * Creation uses only local calls, so it is safe inside any collective and
 * with concurrent collectives on other communicators; its memory is a
 * small allocation (never fails on one rank alone: src/small.c). */
hyt_comm_t *hyt_comm_get(MPI_Comm comm);
/* Private duplicate (collective over the communicator on first call). */
MPI_Comm hyt_comm_priv(hyt_comm_t *ctx);
/* Node and leader communicators (collective over the communicator on first call). */
int hyt_comm_node_split(hyt_comm_t *ctx);
/* Scratch space of at least n bytes, kept across calls (NULL if out of memory). */
void *hyt_scratch(hyt_comm_t *ctx, size_t n);
void *hyt_scratch2(hyt_comm_t *ctx, size_t n);
/* Before a kernel runs (need: hyt_alg_scratch, local: its return value): 1
 * if every rank of ctx holds the need (held already, or grown after one MIN
 * allreduce on the private duplicate when it passes the agreed reserve); 0
 * if every rank goes to PMPI instead (the need passes HYTUNE_SCRATCH_MAX, or
 * some rank cannot hold it).  Every rank returns the same (docs/memory.md). */
int hyt_scratch_reserve(hyt_comm_t *ctx, const size_t need[2], int local);
/* MPI_COMM_WORLD's first reserve (src/comm.c, docs/memory.md), around
 * MPI_Init's settings exchange: hyt_world_scratch_take holds the areas on
 * this rank (1: held; they fit this rank's HYTUNE_SCRATCH_MAX), and
 * hyt_world_scratch_agreed(all), with all = 1 when every rank held them
 * (the exchange says so), keeps them for MPI_COMM_WORLD's context, whose
 * reserve they become, if they fit the agreed HYTUNE_SCRATCH_MAX; else
 * it frees them. */
#define HYT_WORLD_RESERVE0 ((size_t)64 << 10) /* bytes, hyt_scratch's area */
#define HYT_WORLD_RESERVE1 ((size_t)8 << 10)  /* bytes, hyt_scratch2's area */
int hyt_world_scratch_take(void);
void hyt_world_scratch_agreed(int all);
/* What the reserve takes in each area to hold want[] (a quarter of headroom
 * while both stay within HYTUNE_SCRATCH_MAX, else just want): the scratch a
 * context holds after growing to a need (offline/memory.c counts it). */
void hyt_scratch_room(const size_t want[2], size_t room[2]);
/* Free both scratch areas (the next call grows them again); returns the
 * bytes they held.  The tuner calls it after every benchmark point. */
size_t hyt_scratch_release(hyt_comm_t *ctx);
/* The key of (c, bucket), made on first use (a small allocation: never NULL). */
hyt_key_t *hyt_key_get(hyt_comm_t *ctx, hyt_coll_t c, int bucket);
/* The key of any variant (HYT_VARIANT(form, large)), likewise. */
hyt_key_t *hyt_vkey_get(hyt_comm_t *ctx, hyt_coll_t c, int variant, int bucket);
/* The HYT_NBUCKETS keys of (variant, c), or NULL if none was made. */
hyt_key_t *const *hyt_key_row(const hyt_comm_t *ctx, int variant, hyt_coll_t c);
/* Neighbor counts of a topology communicator (0, 0 without a topology). */
void hyt_comm_degrees(hyt_comm_t *ctx, int *indegree, int *outdegree);
/* Iterate all contexts (live and freed) for reports; under the context lock. */
void hyt_comm_foreach(void (*fn)(hyt_comm_t *ctx, void *arg), void *arg);

/* ---- small allocations (src/small.c, docs/memory.md) ----------------------
 * The allocations whose failure on one rank would make it decide apart from
 * the others, made where no exchange precedes them (a communicator's
 * context and node model, a key, an online key, MPI_Init's settings
 * exchange): calloc, else the emergency reserve every rank took in
 * MPI_Init, else the job stops (MPI_Abort, one message naming the rank, the
 * bytes and what for).  Never NULL.  site: the HYT_TEST_FAIL_* place whose
 * test hook makes calloc fail here (-1: none).  Free with hyt_small_free,
 * which tells reserve memory from malloc's by its address. */
void *hyt_small_alloc(size_t n, const char *what, int site);
void hyt_small_free(void *p);
/* The reserve's size on a world of world_size ranks: HYT_SMALL_FIXED, what
 * MPI_Init's settings exchange allocates (init_bytes: hyt_settings_bytes),
 * and HYT_SMALL_PER_RANK per rank (a node model of MPI_COMM_WORLD's size:
 * src/comm.c fill_node_model's four arrays of ints). */
#define HYT_SMALL_FIXED ((size_t)64 << 10)
#define HYT_SMALL_PER_RANK (5 * sizeof(int))
size_t hyt_small_reserve_bytes(int world_size, size_t init_bytes);
/* Take the reserve (MPI_Init, outside off mode, before the settings
 * exchange, which tells every rank whether every rank holds it); 0: no
 * memory.  hyt_small_release frees it (off mode, MPI_Finalize) unless a
 * chunk of it is still in use. */
int hyt_small_reserve_take(size_t bytes);
void hyt_small_release(void);
/* What the reserve served (the statistics). */
typedef struct hyt_small_use {
    int held;               /* the reserve was taken */
    size_t reserve;         /* its bytes */
    uint64_t allocations;   /* requests it served */
    uint64_t bytes;         /* their bytes */
    size_t in_use, peak;    /* bytes of it in use now, at most (headers included) */
} hyt_small_use_t;
void hyt_small_use(hyt_small_use_t *out);

/* World node map (topology/): node index of every world rank. */
extern int hyt_world_size, hyt_world_rank;
extern int *hyt_world_node_of;
extern int hyt_world_nodes;

/* ---- runtime (src/runtime.c) ------------------------------------------------ */
extern int hyt_initialized;
extern int hyt_thread_level;
int hyt_init(void);      /* after PMPI_Init: env, table, topology */
int hyt_finalize(void);  /* before PMPI_Finalize: stats dump, free */
/* Every field zero: where a captured call starts (src/wrappers.c).  A copy
 * of it compiles to plain moves; an initializer naming a few fields makes
 * compilers clear the whole struct first, with `rep stos` on x86-64, whose
 * start-up cost alone was 10 ns a call on this project's AMD machine. */
extern const hyt_args_t hyt_args_none;
int hyt_dispatch(hyt_args_t *a);

/* The counted pass-through of every form but blocking int-count (the
 * generated wrappers of src/wrappers.c): begin counts the call, end times it
 * (blocking) or hands its request to src/requests.c (nonblocking, persistent). */
typedef struct hyt_pass {
    hyt_key_t *key;
    double t0;
    int variant;
    int nb; /* nonblocking collective whose MPICH variables were set (src/nbsel.h), or -1 */
} hyt_pass_t;
void hyt_pass_begin(hyt_args_t *a, int variant, hyt_pass_t *t);
int hyt_pass_end(const hyt_pass_t *t, int rc, const MPI_Request *req);

/* ---- nonblocking and persistent requests (src/requests.c) -------------------
 * Requests of counted nonblocking and persistent collectives, so that the
 * Wait and Test family can time them to completion.  hyt_req_live is the
 * number of entries: the Wait/Test/Start/Request_free wrappers look a
 * request up only when it is not 0. */
extern int hyt_req_live;
void hyt_req_add(MPI_Request r, hyt_key_t *key, double t0, int persistent);
/* Drop r's entry (request freed, or completed where hytune cannot see it). */
void hyt_req_forget(MPI_Request r);
/* Point entries of key old at key new (NULL: drop them): keys merged or freed. */
void hyt_req_rekey(const hyt_key_t *old, hyt_key_t *new_key);
void hyt_req_clear(void);

/* Choose (alg, k) for this call without online tuning: force > table > native. */
void hyt_select_static(hyt_comm_t *ctx, hyt_coll_t c, size_t bytes, const hyt_alg_t **alg,
                       int *k);

/* Helpers for algorithms and tests. */
/* A byte count with an optional K, M or G suffix (powers of 1024), at least
 * 1; 0 or -1 (not a count). */
int hyt_parse_bytes(const char *s, uint64_t *out);
int hyt_type_is_contig(MPI_Datatype t);
/* The size of a predefined datatype read from its handle, 0 for any other
 * (then ask MPI).  MPICH encodes a predefined type's size in its handle
 * (MPI_INT is 0x4c000405: kind "builtin" in bits 30-31, size in bits 8-15);
 * such a type's extent and true extent equal its size.  Saves library calls
 * on the per-call path. */
static inline int hyt_type_builtin_size(MPI_Datatype t)
{
#if defined(MPICH_VERSION) && !defined(HYT_SMPI)
    unsigned h = (unsigned)t;
    return (h >> 30) == 1u ? (int)((h >> 8) & 0xffu) : 0;
#else
    (void)t;
    return 0;
#endif
} /* true extent == size and lb == 0 */
int hyt_op_is_commutative(MPI_Op op);

#endif
