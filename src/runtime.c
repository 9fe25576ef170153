/* Runtime: init, finalize and the per-call dispatch.
 *
 * Precedence (DESIGN.md): HYTUNE_FORCE_<COLL> > online choice > table >
 * PMPI.  Any call the chosen algorithm cannot take goes to PMPI and is
 * counted per reason.  Nothing is printed per call. */
#include "hyt.h"
#include "online/online.h"
#include "src/agree.h"
#include "src/nbsel.h"
#include "topology/topology.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int hyt_initialized;
const hyt_args_t hyt_args_none;
int hyt_thread_level = MPI_THREAD_SINGLE;
const hyt_alg_t *hyt_forced_alg[HYT_NCOLL];
int hyt_forced_k[HYT_NCOLL];

int hyt_comm_module_init(void);
void hyt_comm_module_finalize(void);
void hyt_stats_dump(void);
void hyt_stats_signals_init(void);
void hyt_stats_signals_finalize(void);

/* src/comm.c's one-entry lookup cache, checked here before calling out. */
extern MPI_Comm hyt_comm_last_comm;
extern hyt_comm_t *hyt_comm_last_ctx;

/* The body of hyt_pmpi_call, inlined into the per-call path. */
static HYT_INLINE int pmpi_call(const hyt_args_t *a)
{
    switch (a->coll) {
    case HYT_COLL_ALLREDUCE:
        return PMPI_Allreduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_BCAST:
        return PMPI_Bcast(a->rbuf, a->count, a->type, a->root, a->comm);
    case HYT_COLL_REDUCE:
        return PMPI_Reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, a->comm);
    case HYT_COLL_ALLGATHER:
        return PMPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm);
    case HYT_COLL_ALLTOALL:
        return PMPI_Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm);
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_BARRIER:
        return PMPI_Barrier(a->comm);
    case HYT_COLL_GATHER:
        return PMPI_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->root,
                           a->comm);
    case HYT_COLL_GATHERV:
        return PMPI_Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                            a->type, a->root, a->comm);
    case HYT_COLL_SCATTER:
        return PMPI_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->root,
                            a->comm);
    case HYT_COLL_SCATTERV:
        return PMPI_Scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->count,
                             a->type, a->root, a->comm);
    case HYT_COLL_ALLGATHERV:
        return PMPI_Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                               a->type, a->comm);
    case HYT_COLL_ALLTOALLV:
        return PMPI_Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts,
                              a->rdispls, a->type, a->comm);
    case HYT_COLL_ALLTOALLW:
        return PMPI_Alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts,
                              a->rdispls, a->rtypes, a->comm);
    case HYT_COLL_REDUCE_SCATTER:
        return PMPI_Reduce_scatter(a->sbuf, a->rbuf, a->rcounts, a->type, a->op, a->comm);
    case HYT_COLL_SCAN:
        return PMPI_Scan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_EXSCAN:
        return PMPI_Exscan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
    case HYT_COLL_NEIGHBOR_ALLGATHER:
        return PMPI_Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->count,
                                       a->type, a->comm);
    case HYT_COLL_NEIGHBOR_ALLGATHERV:
        return PMPI_Neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                        a->rdispls, a->type, a->comm);
    case HYT_COLL_NEIGHBOR_ALLTOALL:
        return PMPI_Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type,
                                      a->comm);
    case HYT_COLL_NEIGHBOR_ALLTOALLV:
        return PMPI_Neighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                       a->rcounts, a->rdispls, a->type, a->comm);
    case HYT_COLL_NEIGHBOR_ALLTOALLW:
        return PMPI_Neighbor_alltoallw(a->sbuf, a->scounts, a->csdispls, a->stypes, a->rbuf,
                                       a->rcounts, a->crdispls, a->rtypes, a->comm);
    case HYT_NCOLL:
        break;
    }
    return MPI_ERR_INTERN;
}

int hyt_pmpi_call(const hyt_args_t *a)
{
    return pmpi_call(a);
}

/* What a table rule or a forced choice on this communicator can run: a
 * kernel of hytune's (which talks on the private duplicate), a node-aware
 * composition (which also needs the node and leader communicators).  A
 * shortlist's other candidates run only in hybrid mode. */
enum { USES_KERNELS = 1, USES_COMPOSITION = 2 };

static int alg_use(const hyt_alg_t *alg)
{
    if (!alg || (alg->flags & HYT_ALG_NATIVE))
        return 0;
    return USES_KERNELS | (alg->flags & HYT_ALG_COMPOSITION ? USES_COMPOSITION : 0);
}

static int uses(const hyt_comm_t *ctx, int hybrid)
{
    int u = 0;
    for (int c = 0; c < HYT_NCOLL; c++) {
        u |= alg_use(ctx->forced[c]);
        for (int i = 0; ctx->rules[c] && i < ctx->rules[c]->nrules; i++) {
            const hyt_rule_t *r = &ctx->rules[c]->rules[i];
            u |= alg_use(r->alg);
            for (int q = 0; hybrid && q < r->nshort; q++)
                u |= alg_use(r->shortlist[q].alg);
        }
    }
    return u;
}

int hyt_init(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    hyt_log_set_rank(rank);
    hyt_env_init();
    int downgraded = 0;
    if (hyt_cfg.mode == HYT_MODE_HYBRID && hyt_thread_level == MPI_THREAD_MULTIPLE) {
        static int once;
        hyt_log_once(&once, HYT_LOG_INFO, HYT_TOPIC_ONLINE,
                     "MPI_THREAD_MULTIPLE: hybrid probing is off, running offline mode");
        hyt_cfg.mode = HYT_MODE_OFFLINE;
        downgraded = 1;
    }
    /* every rank, in every mode: the mode itself is compared (src/settings.c) */
    hyt_settings_init(downgraded);
    if (hyt_cfg.mode == HYT_MODE_OFF)
        return MPI_SUCCESS;
    int rc = hyt_topo_init();
    if (rc != MPI_SUCCESS) {
        hyt_warn(HYT_TOPIC_TOPO, "node model unavailable; running in off mode");
        hyt_cfg.mode = HYT_MODE_OFF;
        hyt_online_finalize();
        hyt_nb_release();
        hyt_table_free(hyt_table);
        hyt_table = NULL;
        return MPI_SUCCESS;
    }
    hyt_comm_module_init();
    {
        /* MPI_COMM_WORLD's private duplicate (the algorithms' messages stay
         * apart from the application's on it; hybrid mode measures on it)
         * is made now, inside MPI_Init, when its table rules or forced
         * choices can run a kernel: MPI_Comm_dup is a collective (SimGrid
         * 3.32 with MPICH's selection charges 237 us of simulated time for
         * it at 64 ranks), not something for the application's first,
         * timed, collective.  So are its node and leader communicators
         * (two MPI_Comm_split) in hybrid mode when a rule or candidate is a
         * composition, so that no measured call pays for them; in offline
         * mode the first call that runs a composition makes them (a table
         * may name compositions for sizes the application never calls).
         * Other communicators get theirs on first use. */
        hyt_comm_t *world = hyt_comm_get(MPI_COMM_WORLD);
        int hybrid = hyt_cfg.mode == HYT_MODE_HYBRID;
        int u = world ? uses(world, hybrid) : 0;
        if (u & USES_KERNELS)
            hyt_comm_priv(world);
        if (hybrid && (u & USES_COMPOSITION))
            hyt_comm_node_split(world);
    }
    hyt_stats_signals_init();
    hyt_initialized = 1;
    return MPI_SUCCESS;
}

int hyt_finalize(void)
{
    if (!hyt_initialized)
        return MPI_SUCCESS;
    hyt_stats_signals_finalize();
    hyt_stats_dump();
    hyt_req_clear();
    hyt_online_finalize();
    hyt_comm_module_finalize();
    hyt_topo_finalize();
    hyt_nb_release();
    hyt_table_free(hyt_table);
    hyt_table = NULL;
    hyt_initialized = 0;
    return MPI_SUCCESS;
}

/* Bodies of hyt_selection_bytes and hyt_select_static, inlined into the
 * per-call path (calls to the exported names go through the PLT). */
static inline size_t type_size(MPI_Datatype t)
{
    int size = hyt_type_builtin_size(t);
    if (!size)
        PMPI_Type_size(t, &size);
    return (size_t)size;
}

static inline size_t nbytes(MPI_Count n, MPI_Datatype t)
{
    return n > 0 ? (size_t)n * type_size(t) : 0;
}

/* Total bytes of n blocks of a v or w variant, the largest in *block: the
 * send side (scounts, stype or stypes) or the receive side. */
static size_t vector_bytes(const hyt_args_t *a, int send, int n, size_t *block)
{
    const int *ci = send ? a->scounts : a->rcounts;
    const MPI_Count *cc = send ? a->cscounts : a->crcounts;
    const MPI_Datatype *types = send ? a->stypes : a->rtypes;
    size_t one = types ? 0 : type_size(send ? a->stype : a->type), total = 0, big = 0;
    if (a->large ? !cc : !ci)
        n = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count c = a->large ? cc[i] : ci[i];
        size_t b = c > 0 ? (size_t)c * (types ? type_size(types[i]) : one) : 0;
        total += b;
        if (b > big)
            big = b;
    }
    *block = big;
    return total;
}

/* Which side of a rooted collective this rank is: 1 root, 0 leaf, -1
 * neither (an intercommunicator's MPI_PROC_NULL ranks). */
static int root_side(const hyt_args_t *a, const hyt_comm_t *ctx)
{
    if (ctx->is_inter)
        return a->root == MPI_ROOT ? 1 : a->root == MPI_PROC_NULL ? -1 : 0;
    return a->root == ctx->rank;
}

/* The size of a call of any collective (hyt_args_t.bytes) and its largest
 * block.  The six original collectives take the first branch. */
static HYT_INLINE size_t selection_size(const hyt_args_t *a, hyt_comm_t *ctx, size_t *block)
{
    MPI_Count count = a->large ? a->ccount : a->count;
    MPI_Count scount = a->large ? a->cscount : a->scount;
    int side, in, out;
    switch (a->coll) {
    case HYT_COLL_ALLREDUCE:
    case HYT_COLL_BCAST:
    case HYT_COLL_REDUCE:
    case HYT_COLL_ALLGATHER:
    case HYT_COLL_ALLTOALL:
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
    case HYT_COLL_SCAN:
    case HYT_COLL_EXSCAN:
        return *block = nbytes(count, a->type);
    case HYT_COLL_BARRIER:
    case HYT_NCOLL:
        break;
    case HYT_COLL_GATHER:
        side = ctx ? root_side(a, ctx) : 0;
        return *block = side > 0 ? nbytes(count, a->type) : side == 0 ? nbytes(scount, a->stype) : 0;
    case HYT_COLL_SCATTER:
        side = ctx ? root_side(a, ctx) : 0;
        return *block = side > 0 ? nbytes(scount, a->stype) : side == 0 ? nbytes(count, a->type) : 0;
    case HYT_COLL_GATHERV:
        side = ctx ? root_side(a, ctx) : 0;
        if (side > 0)
            return vector_bytes(a, 0, ctx->remote_size, block);
        return *block = side == 0 ? nbytes(scount, a->stype) : 0;
    case HYT_COLL_SCATTERV:
        side = ctx ? root_side(a, ctx) : 0;
        if (side > 0)
            return vector_bytes(a, 1, ctx->remote_size, block);
        return *block = side == 0 ? nbytes(count, a->type) : 0;
    case HYT_COLL_ALLGATHERV:
        return ctx ? vector_bytes(a, 0, ctx->remote_size, block) : (*block = 0);
    case HYT_COLL_REDUCE_SCATTER:
        return ctx ? vector_bytes(a, 0, ctx->size, block) : (*block = 0);
    case HYT_COLL_ALLTOALLV:
    case HYT_COLL_ALLTOALLW: /* MPI_IN_PLACE: the send side is the receive side */
        return ctx ? vector_bytes(a, a->sbuf != MPI_IN_PLACE, ctx->remote_size, block)
                   : (*block = 0);
    case HYT_COLL_NEIGHBOR_ALLGATHER:
    case HYT_COLL_NEIGHBOR_ALLTOALL:
        return *block = nbytes(scount, a->stype);
    case HYT_COLL_NEIGHBOR_ALLGATHERV:
        if (!ctx)
            break;
        hyt_comm_degrees(ctx, &in, &out);
        return vector_bytes(a, 0, in, block);
    case HYT_COLL_NEIGHBOR_ALLTOALLV:
    case HYT_COLL_NEIGHBOR_ALLTOALLW:
        if (!ctx)
            break;
        hyt_comm_degrees(ctx, &in, &out);
        return vector_bytes(a, 1, out, block);
    }
    return *block = 0;
}

static inline size_t selection_bytes(const hyt_args_t *a)
{
    size_t block;
    hyt_comm_t *ctx = a->ctx;
    if (!ctx && ((hyt_coll_props(a->coll) & HYT_CP_VECTOR) || a->coll == HYT_COLL_GATHER ||
                 a->coll == HYT_COLL_SCATTER))
        ctx = hyt_comm_get(a->comm); /* which rank is the root, how many ranks */
    return selection_size(a, ctx, &block);
}

/* *rule: the table rule that chose (NULL: forced, or no rule set). */
static inline void select_static(hyt_comm_t *ctx, hyt_coll_t c, size_t bytes,
                                 const hyt_alg_t **alg, int *k, const hyt_rule_t **rule)
{
    *rule = NULL;
    if (ctx->forced[c]) {
        *alg = ctx->forced[c];
        *k = ctx->forced_k[c];
    } else if (ctx->rules[c]) {
        const hyt_rule_t *r = hyt_rules_lookup(ctx->rules[c], bytes);
        *alg = r->alg;
        *k = r->k;
        *rule = r;
    } else {
        *alg = hyt_alg_native(c);
        *k = 0;
    }
}

size_t hyt_selection_bytes(const hyt_args_t *a)
{
    return selection_bytes(a);
}

void hyt_select_static(hyt_comm_t *ctx, hyt_coll_t c, size_t bytes, const hyt_alg_t **alg,
                       int *k)
{
    const hyt_rule_t *rule;
    select_static(ctx, c, bytes, alg, k, &rule);
}

/* Native rows never take a radix: test the flag before calling out. */
static inline int tunable_radix(const hyt_alg_t *alg)
{
    return !(alg->flags & HYT_ALG_NATIVE) && hyt_alg_has_radix(alg);
}

static void count_fallback(hyt_key_t *key, hyt_fallback_t why, const hyt_alg_t *alg)
{
    static int once[HYT_NFB];
    key->fallbacks[why]++;
    hyt_log_once(&once[why], HYT_LOG_INFO, HYT_TOPIC_ALG,
                 "%s calls go to PMPI instead of %s (%s); counted in the stats",
                 hyt_coll_name(key->coll), alg->name, hyt_fallback_name(why));
}

/* A kernel's error goes through the error handler the application has on
 * the call's communicator, as an error inside MPI's own collective would
 * (hytune's communicators return errors to the kernel: src/comm.c).  The
 * first one is also logged, naming the algorithm: with MPI_ERRORS_ARE_FATAL
 * the handler aborts the job. */
static int kernel_error(const hyt_args_t *a, const hyt_alg_t *alg, int k, int rc)
{
    static int once;
    char msg[MPI_MAX_ERROR_STRING], kpart[16] = "";
    const char *what = msg;
    int len = 0;
    if (rc == MPI_ERR_NO_MEM) /* MPI's own string speaks of MPI_Alloc_mem */
        what = "its scratch memory could not be allocated beyond what the ranks had agreed "
               "on (MPI_ERR_NO_MEM; docs/memory.md)";
    else if (PMPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error code %d", rc);
    if (hyt_alg_has_radix(alg))
        snprintf(kpart, sizeof kpart, ":%d", k);
    hyt_log_once(&once, HYT_LOG_ERROR, HYT_TOPIC_ALG,
                 "%s %s%s failed on this rank: %s; the error goes to the communicator's "
                 "error handler", hyt_coll_name(a->coll), alg->name, kpart, what);
    PMPI_Comm_call_errhandler(a->comm, rc);
    return rc;
}

/* Does every rank hold the scratch alg needs (src/comm.c)? */
static int reserve(const hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    size_t need[2];
    int local = hyt_alg_scratch(a, alg, k, need);
    return hyt_scratch_reserve(a->ctx, need, local);
}

/* hyt_run_alg once a->ctx and a->bytes are set (or a->ctx is NULL). */
static int run_alg(hyt_args_t *a, const hyt_alg_t *alg, int k, hyt_fallback_t *fb)
{
    hyt_fallback_t why = HYT_FB_NONE;
    int rc;
    if (!a->ctx) {
        rc = hyt_pmpi_call(a);
    } else if (HYT_UNLIKELY(a->ctx->is_inter)) {
        /* never tuned, whatever was selected (native too): counted so the
         * stats show which calls hytune could not reach */
        why = HYT_FB_INTERCOMM;
        rc = hyt_pmpi_call(a);
    } else if (alg->flags & HYT_ALG_NATIVE) {
        rc = hyt_pmpi_call(a);
    } else {
        why = hyt_alg_check(alg, a);
        if (why != HYT_FB_NONE) {
            rc = hyt_pmpi_call(a);
        } else if (HYT_UNLIKELY(hyt_comm_priv(a->ctx) == MPI_COMM_NULL)) {
            /* kernels talk only on the private duplicate (algorithms/p2p.h);
             * MPI_Comm_dup is collective, so every rank gets here together */
            rc = kernel_error(a, alg, k, MPI_ERR_COMM);
        } else if (HYT_UNLIKELY(!reserve(a, alg, k))) {
            /* every rank alike (src/comm.c): none runs the kernel */
            why = HYT_FB_SCRATCH;
            rc = hyt_pmpi_call(a);
        } else {
            rc = alg->fn(a, k);
            if (HYT_UNLIKELY(rc == HYT_UNSUPPORTED)) {
                why = HYT_FB_ALGORITHM;
                rc = hyt_pmpi_call(a);
            } else if (HYT_UNLIKELY(rc != MPI_SUCCESS)) {
                rc = kernel_error(a, alg, k, rc);
            }
        }
    }
    if (fb)
        *fb = why;
    return rc;
}

int hyt_run_alg(hyt_args_t *a, const hyt_alg_t *alg, int k, hyt_fallback_t *fb)
{
    if (!a->ctx)
        a->ctx = hyt_comm_get(a->comm);
    if (a->ctx) /* the scratch bounds read them */
        a->bytes = selection_size(a, a->ctx, &a->block);
    return run_alg(a, alg, k, fb);
}

/* Does hybrid mode tune this call online: a radix to tune, or a shortlist
 * to choose from (the rule's, or for a key no rule covers the built-in one)? */
static inline int online_candidate(const hyt_comm_t *ctx, hyt_coll_t c, const hyt_alg_t *alg,
                                   const hyt_rule_t *rule, int local_size)
{
    return hyt_cfg.mode == HYT_MODE_HYBRID && !local_size && !ctx->is_inter && !ctx->forced[c] &&
           (tunable_radix(alg) || (rule ? rule->nshort > 1 : hyt_cfg.builtin_shortlist));
}

/* Everything a call may need beyond MPI's own algorithm run untimed: online
 * tuning, timing for the statistics, a kernel, an intercommunicator. */
static HYT_NOINLINE int dispatch_full(hyt_args_t *a, hyt_comm_t *ctx, hyt_key_t *key,
                                      const hyt_alg_t *alg, int k, const hyt_rule_t *rule,
                                      int online)
{
    hyt_coll_t c = a->coll;
    int timed = hyt_cfg.stats != NULL;
    if (online)
        timed |= online = hyt_online_before(ctx, key, rule, &alg, &k);
    const hyt_alg_t *ran = alg;
    int ran_k = k;
    double t0 = timed ? PMPI_Wtime() : 0;
    hyt_fallback_t fb = HYT_FB_NONE;
    int rc;
    if ((alg->flags & HYT_ALG_NATIVE) && !ctx->is_inter) {
        rc = pmpi_call(a);
    } else {
        rc = run_alg(a, alg, k, &fb);
        if (fb == HYT_FB_NONE && !(alg->flags & HYT_ALG_NATIVE))
            key->tuned++;
    }
    if (HYT_UNLIKELY(fb != HYT_FB_NONE)) {
        count_fallback(key, fb, alg);
        alg = hyt_alg_native(c);
        k = 0;
    }
    key->alg = alg;
    key->k = k;
    if (timed) {
        double dt = PMPI_Wtime() - t0;
        key->time += dt;
        key->timed_calls++;
        if (online)
            hyt_online_after(ctx, key, ran, ran_k, dt, fb != HYT_FB_NONE);
    }
    return rc;
}

int hyt_dispatch(hyt_args_t *a)
{
    hyt_comm_t *ctx = hyt_comm_last_ctx;
    if (HYT_UNLIKELY(!ctx || a->comm != hyt_comm_last_comm))
        ctx = hyt_comm_get(a->comm);
    if (HYT_UNLIKELY(!ctx))
        return pmpi_call(a);
    hyt_coll_t c = a->coll;
    a->ctx = ctx;
    ctx->seq++;
    a->bytes = selection_size(a, ctx, &a->block);
    int bucket = hyt_bucket(a->bytes);
    hyt_key_t *key = ctx->keys[c][bucket];
    if (HYT_UNLIKELY(!key) && !(key = hyt_key_get(ctx, c, bucket)))
        return pmpi_call(a);
    key->calls++;
    key->bytes += a->bytes;
    if (HYT_UNLIKELY(a->block > key->block_max))
        key->block_max = a->block;

    /* a size that differs between ranks cannot choose the algorithm: such
     * collectives take the last rule and are not tuned online */
    int local_size = (hyt_coll_props(c) & HYT_CP_LOCAL_SIZE) != 0;
    const hyt_alg_t *alg;
    const hyt_rule_t *rule;
    int k;
    select_static(ctx, c, local_size ? SIZE_MAX : a->bytes, &alg, &k, &rule);
    int online = online_candidate(ctx, c, alg, rule, local_size);
    /* the common case, MPI's own algorithm on an intracommunicator with no
     * statistics file and nothing to tune online: nothing to time or check,
     * and MPI's call is the last thing done (a tail call; a native choice
     * never falls back) */
    if (HYT_LIKELY((alg->flags & HYT_ALG_NATIVE) && !ctx->is_inter && !hyt_cfg.stats && !online)) {
        key->alg = alg;
        key->k = k;
        return pmpi_call(a);
    }
    return dispatch_full(a, ctx, key, alg, k, rule, online);
}

void hyt_pass_begin(hyt_args_t *a, int variant, hyt_pass_t *t)
{
    t->key = NULL;
    t->variant = variant;
    t->t0 = 0;
    t->nb = -1;
    hyt_comm_t *ctx = hyt_comm_last_ctx;
    if (!ctx || a->comm != hyt_comm_last_comm)
        ctx = hyt_comm_get(a->comm);
    if (!ctx)
        return;
    a->ctx = ctx;
    a->bytes = selection_size(a, ctx, &a->block);
    if (hyt_nb_active && variant / 2 == HYT_FORM_NONBLOCKING)
        t->nb = hyt_nb_apply(a->coll, ctx, a->bytes);
    hyt_key_t *key = hyt_vkey_get(ctx, a->coll, variant, hyt_bucket(a->bytes));
    if (!key)
        return;
    key->calls++;
    key->bytes += a->bytes;
    if (a->block > key->block_max)
        key->block_max = a->block;
    key->alg = hyt_alg_native(a->coll);
    t->key = key;
    if (hyt_cfg.stats)
        t->t0 = PMPI_Wtime();
}

int hyt_pass_end(const hyt_pass_t *t, int rc, const MPI_Request *req)
{
    hyt_key_t *key = t->key;
    if (t->nb >= 0)
        hyt_nb_restore(t->nb);
    if (!key || !hyt_cfg.stats || rc != MPI_SUCCESS)
        return rc;
    int form = t->variant / 2;
    if (form == HYT_FORM_BLOCKING) {
        key->time += PMPI_Wtime() - t->t0;
        key->timed_calls++;
    } else if (req && hyt_thread_level != MPI_THREAD_MULTIPLE) {
        /* timed to completion at the Wait or Test (one thread in MPI at a
         * time: the request table has no lock) */
        hyt_req_add(*req, key, t->t0, form == HYT_FORM_PERSISTENT);
    }
    return rc;
}
