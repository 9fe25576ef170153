/* Runtime: init, finalize and the per-call dispatch.
 *
 * Precedence (DESIGN.md): HYTUNE_FORCE_<COLL> > online choice > table >
 * PMPI.  Any call the chosen algorithm cannot take goes to PMPI and is
 * counted per reason.  Nothing is printed per call. */
#include "hyt.h"
#include "src/call.h"
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

static const hyt_call_hooks_t *call_hooks; /* the call slot (online/), or NULL */

void hyt_call_hooks_register(const hyt_call_hooks_t *hooks)
{
    call_hooks = hooks;
}

static void call_hooks_finalize(void)
{
    if (call_hooks && call_hooks->finalize)
        call_hooks->finalize();
}

/* src/comm.c's one-entry lookup cache, checked here before calling out. */
extern MPI_Comm hyt_comm_last_comm;
extern hyt_comm_t *hyt_comm_last_ctx;

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
    /* every rank, in every mode: the mode itself is compared (src/settings.c),
     * the online layer's warm start with it (its settings slot); the same
     * exchange carries every rank's node record and whether it holds
     * MPI_COMM_WORLD's first scratch reserve (src/comm.c; in off mode a
     * blank rider: the exchange must have one shape on every rank, before
     * any rank knows the others' modes), so that neither the node model
     * nor the reserve costs an exchange of its own */
    enum { REC_INTS = HYT_TOPO_REC_BYTES / sizeof(int), RIDER_INTS = REC_INTS + 1 };
    int mine[RIDER_INTS] = {0};
    int *riders = NULL, size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    hyt_world_rank = rank; /* the test hooks read it (hyt_topo_init sets it too) */
    if (hyt_cfg.mode != HYT_MODE_OFF) {
        /* the emergency reserve of small allocations (src/small.c): a rank
         * without it says so in its node record, as one without the node
         * model's memory, and every rank runs off */
        size_t spare = hyt_small_reserve_bytes(size, hyt_settings_bytes(size, (int)sizeof mine));
        hyt_topo_record(mine, spare, hyt_small_reserve_take(spare));
        mine[REC_INTS] = hyt_world_scratch_take();
    }
    hyt_settings_init(downgraded, mine, (int)sizeof mine, (void **)&riders);
    int all_hold = riders != NULL;
    /* every rank's node record, packed in rank order for the node model */
    for (int r = 0; riders && r < size; r++) {
        all_hold &= riders[r * RIDER_INTS + REC_INTS] == 1;
        memmove(riders + r * REC_INTS, riders + r * RIDER_INTS, HYT_TOPO_REC_BYTES);
    }
    hyt_world_scratch_agreed(hyt_cfg.mode != HYT_MODE_OFF && all_hold);
    if (hyt_cfg.mode == HYT_MODE_OFF) {
        hyt_small_free(riders);
        hyt_topo_finalize(); /* the memory hyt_topo_record held */
        hyt_small_release();
        return MPI_SUCCESS;
    }
    /* a rank without memory for the node model said so in its record:
     * every rank returns MPI_ERR_NO_MEM and runs off (the warning is
     * hyt_topo_init's) */
    int rc = hyt_topo_init(riders);
    hyt_small_free(riders);
    if (rc != MPI_SUCCESS) {
        hyt_world_scratch_agreed(0);
        hyt_small_release();
        if (rc != MPI_ERR_NO_MEM)
            hyt_warn(HYT_TOPIC_TOPO, "node model unavailable; running in off mode");
        hyt_cfg.mode = HYT_MODE_OFF;
        call_hooks_finalize();
        hyt_nb_release();
        hyt_table_free(hyt_table);
        hyt_table = NULL;
        return MPI_SUCCESS;
    }
    /* MPI_COMM_WORLD's context now; its private duplicate, like every
     * communicator's, on the first call that runs a kernel on it (every
     * rank together: algorithms/run.c), and its node and leader
     * communicators on the first call that runs a composition (hybrid
     * mode: before the window that measures one, online/online.c).  These
     * are collective, and SimGrid with MPICH's selection charges each new
     * communicator the setup of MPICH's node-aware layout (0.24 ms at 64
     * ranks): made in MPI_Init, an application whose collectives run on
     * other communicators (NAS MG) or never at the sizes the table
     * composes would pay them for nothing. */
    hyt_comm_module_init();
    hyt_comm_get(MPI_COMM_WORLD);
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
    call_hooks_finalize();
    hyt_comm_module_finalize();
    hyt_topo_finalize();
    hyt_nb_release();
    hyt_table_free(hyt_table);
    hyt_table = NULL;
    hyt_small_release();
    hyt_initialized = 0;
    return MPI_SUCCESS;
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

/* A purchase of the private duplicate is repaid only by the calls after
 * it, which may be none: at worst it slows the job by its whole set-up
 * cost.  Bought only once the MPI library's own time of the calls that
 * waited for it is at least HYT_SETUP_NATIVE_MULT (src/hyt.h) times that
 * cost, it slows the job by at most 1/HYT_SETUP_NATIVE_MULT (1%) of the
 * job's time in those calls (NAS MG class S on dragonfly-64: its rent
 * reaches the 247 us of its 64-rank communicator at its 93rd of 96 calls,
 * whose 8 us of gains left the run 0.83x).
 *
 * Has ctx's rent paid a set-up cost of setup us (docs/memory.md): the
 * expected gains forgone reached it, and it is at most 1/HYT_SETUP_NATIVE_MULT
 * of the native time of the calls that waited. */
static inline int setup_repaid(const hyt_comm_t *ctx, double setup)
{
    return ctx->rent >= setup && ctx->rent_native >= HYT_SETUP_NATIVE_MULT * setup;
}

/* The ski-rental rule for the private duplicate (docs/memory.md): before
 * ctx has one, a call whose table rule chose a kernel, with the rule set's
 * set-up cost and the rule's gain known, adds its expected gain (when
 * positive) to ctx's rent and its native time (the rule's native_us, at
 * least the gain) to ctx's rent_native, and runs MPI's own algorithm until
 * setup_repaid holds for the set-up cost (the rule set's, at ctx's size:
 * src/comm.c); the call at which it holds makes the duplicate.  The gain
 * is the rule's at ctx's size and the call's selection size
 * (hyt_rule_gain: the measured gains, or native_us - predicted_us).  Only
 * the table, ctx's size and the call's selection size decide, and every
 * rank adds the same numbers in the same order, so every rank decides
 * alike.  1: run MPI's own algorithm now. */
static int setup_unpaid(hyt_args_t *a, hyt_comm_t *ctx, const hyt_rule_t *rule,
                        const hyt_alg_t *alg, double gain, int known)
{
    double setup = ctx->setup_cost[a->coll];
    if (setup < 0)
        return 0;
    if (!known ||
        hyt_alg_check(alg, a) != HYT_FB_NONE) /* falls back for its own reason */
        return 0;
    double native = rule->native_us > gain ? rule->native_us : gain;
    if (gain > 0)
        ctx->rent += gain;
    if (native > 0)
        ctx->rent_native += native;
    return !setup_repaid(ctx, setup);
}

/* The rule's gain over MPI's own algorithm at ctx's size and the size
 * every rank selected with (a local size selects the last rule):
 * hyt_rule_gain, the same on every rank. */
static double call_gain(const hyt_args_t *a, const hyt_comm_t *ctx, const hyt_rule_t *rule,
                        int *known)
{
    uint64_t sel = hyt_coll_props(a->coll) & HYT_CP_LOCAL_SIZE ? UINT64_MAX : (uint64_t)a->bytes;
    return hyt_rule_gain(rule, ctx->size, sel, known);
}

/* MPI_COMM_WORLD's first intercepted collective (docs/memory.md): a
 * library that sets MPI_COMM_WORLD's collectives up at its first
 * collective (SimGrid's MPICH selection does, at its first Bcast, Reduce
 * or Allreduce: about 4 us per rank) charges a duplicate made after it the
 * same set-up again; one made before it, with every later collective on
 * MPI_COMM_WORLD run on the duplicate (MPI's own algorithm too), takes that
 * set-up over.  The table's setup_world, measured by the tuner on its own
 * MPI_COMM_WORLD, says whether that is so (hyt_setup_world_early); then
 * the duplicate is made now, on every rank (the table is agreed, and every
 * rank makes the same first collective on MPI_COMM_WORLD). */
static HYT_NOINLINE void world_first_call(hyt_comm_t *ctx)
{
    ctx->world_first = 0;
    if (!hyt_table || ctx->is_inter || ctx->priv != MPI_COMM_NULL ||
        !hyt_setup_world_early(&hyt_table->world))
        return;
    if (hyt_comm_priv(ctx) == MPI_COMM_NULL)
        return;
    ctx->mpi_on_priv = 1;
    static int once;
    hyt_log_once(&once, HYT_LOG_INFO, HYT_TOPIC_ALG,
                 "MPI_COMM_WORLD: private duplicate made before its first collective (the "
                 "table's setup_world: dup %.1f us, first collective %.1f us); every "
                 "collective on it runs there", hyt_table->world.dup_us,
                 hyt_table->world.first_us);
}

/* Does hybrid mode tune this call online: a radix to tune, or a shortlist
 * to choose from (the rule's, or for a key no rule covers the built-in one)? */
static inline int online_candidate(const hyt_comm_t *ctx, hyt_coll_t c, const hyt_alg_t *alg,
                                   const hyt_rule_t *rule, int local_size)
{
    return hyt_cfg.mode == HYT_MODE_HYBRID && call_hooks && !local_size && !ctx->is_inter &&
           !ctx->forced[c] && (tunable_radix(alg) || (rule ? rule->nshort > 1 : hyt_cfg.builtin_shortlist));
}

/* Everything a call may need beyond MPI's own algorithm run untimed: online
 * tuning, timing for the statistics, a kernel, an intercommunicator. */
static HYT_NOINLINE int dispatch_full(hyt_args_t *a, hyt_comm_t *ctx, hyt_key_t *key,
                                      const hyt_alg_t *alg, int k, const hyt_rule_t *rule,
                                      int online)
{
    hyt_coll_t c = a->coll;
    int timed = hyt_cfg.stats != NULL;
    hyt_fallback_t fb = HYT_FB_NONE;
    /* a rule's kernel the tuner measured slower than MPI's own algorithm at
     * ctx's size and this size (a negative measured gain; between two
     * measured scales the lower one, so a rule tuned on a slice of the job
     * that loses on the whole job loses on the communicators between them
     * too) runs MPI's own algorithm and is not tuned online (docs/memory.md) */
    int known = 0;
    double gain = 0;
    if (rule && !ctx->is_inter) {
        gain = call_gain(a, ctx, rule, &known);
        if (HYT_UNLIKELY(known && rule->ngains > 0 && gain < 0 &&
                         !(rule->alg->flags & HYT_ALG_NATIVE))) {
            fb = HYT_FB_SLOWER;
            online = 0;
        }
    }
    /* hybrid mode's windows run on the private duplicate: a communicator
     * whose set-up the rent has not yet repaid takes the table's rule (and
     * the rent) instead, and its keys are tuned online once it has one */
    if (online && HYT_UNLIKELY(ctx->priv == MPI_COMM_NULL) && ctx->setup_cost[c] >= 0 &&
        !setup_repaid(ctx, ctx->setup_cost[c]))
        online = 0;
    if (online)
        timed |= online = call_hooks->before(ctx, key, rule, hyt_coll_has_root(c) ? a->root : -1,
                                             &alg, &k);
    const hyt_alg_t *ran = alg;
    int ran_k = k;
    double t0 = timed ? PMPI_Wtime() : 0;
    int rc;
    if (fb == HYT_FB_SLOWER || ((alg->flags & HYT_ALG_NATIVE) && !ctx->is_inter)) {
        rc = hyt_call_pmpi(a);
    } else if (HYT_UNLIKELY(ctx->priv == MPI_COMM_NULL) && rule && !online && !ctx->is_inter &&
               setup_unpaid(a, ctx, rule, alg, gain, known)) {
        fb = HYT_FB_SETUP;
        rc = hyt_call_pmpi(a);
    } else {
        rc = hyt_alg_run(a, alg, k, &fb);
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
            call_hooks->after(ctx, key, ran, ran_k, dt, fb != HYT_FB_NONE);
    }
    return rc;
}

int hyt_dispatch(hyt_args_t *a)
{
    hyt_comm_t *ctx = hyt_comm_last_ctx;
    if (HYT_UNLIKELY(!ctx || a->comm != hyt_comm_last_comm))
        ctx = hyt_comm_get(a->comm);
    if (HYT_UNLIKELY(!ctx))
        return hyt_call_pmpi(a);
    hyt_coll_t c = a->coll;
    a->ctx = ctx;
    if (HYT_UNLIKELY(ctx->world_first))
        world_first_call(ctx);
    ctx->seq++;
    a->bytes = hyt_call_size(a, ctx, &a->block);
    int bucket = hyt_bucket(a->bytes);
    hyt_key_t *key = ctx->keys[c][bucket];
    if (HYT_UNLIKELY(!key))
        key = hyt_key_get(ctx, c, bucket);
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
        return hyt_call_pmpi(a);
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
    a->bytes = hyt_call_size(a, ctx, &a->block);
    /* nonblocking, and persistent at *_init: MPICH builds a persistent
     * collective's schedule there, with its nonblocking form's variables */
    if (hyt_nb_active && variant / 2 != HYT_FORM_BLOCKING)
        t->nb = hyt_nb_apply(a->coll, ctx, a->bytes);
    hyt_key_t *key = hyt_vkey_get(ctx, a->coll, variant, hyt_bucket(a->bytes));
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
