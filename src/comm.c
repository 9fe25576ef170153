/* Per-communicator context, cached as an MPI attribute.
 *
 * Created on the first collective on a communicator from local calls only
 * (the communicator's group translated into the world node map), so creation
 * is cheap and safe inside any collective.  When the communicator is freed
 * the delete callback releases its MPI resources; its counters are merged
 * into one retired context per (size, nodes, ppn) shape, so a program that
 * creates communicators in a loop keeps bounded memory and loses no count. */
#include "hyt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static hyt_comm_t *list_head;
static uint64_t next_id;
static const hyt_key_ext_hooks_t *key_ext; /* the key-extension slot's hooks */
static void world_scratch_give(hyt_comm_t *ctx);

void hyt_key_ext_register(const hyt_key_ext_hooks_t *hooks)
{
    key_ext = hooks;
}

const hyt_key_ext_hooks_t *hyt_key_ext(void)
{
    return key_ext;
}

/* The last (communicator, context) looked up: a loop of collectives on one
 * communicator skips MPI's attribute lookup, the largest part of hytune's
 * per-call cost.  Filled only below MPI_THREAD_MULTIPLE (one thread in MPI
 * at a time); emptied whenever a context is deleted, since a freed handle
 * may come back as a new communicator. */
MPI_Comm hyt_comm_last_comm = MPI_COMM_NULL; /* read inline by src/runtime.c */
hyt_comm_t *hyt_comm_last_ctx;
#define last_comm hyt_comm_last_comm
#define last_ctx hyt_comm_last_ctx

static void forget_last(void)
{
    if (last_ctx) /* never set under MPI_THREAD_MULTIPLE: no write races there */
        last_ctx = NULL;
}

static void ctx_release_mpi(hyt_comm_t *ctx)
{
    if (ctx->priv != MPI_COMM_NULL)
        PMPI_Comm_free(&ctx->priv);
    if (ctx->node_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&ctx->node_comm);
    if (ctx->leader_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&ctx->leader_comm);
    hyt_small_free(ctx->node_of);
    ctx->node_of = NULL;
    hyt_scratch_release(ctx);
}

/* The bucket row of (variant, c): the blocking int-count keys live in the
 * context, the others in rows made on first use (alloc) or NULL. */
static hyt_key_t **key_row(hyt_comm_t *ctx, int v, int c, int alloc)
{
    if (v == 0)
        return ctx->keys[c];
    if (!ctx->vkeys[v][c] && alloc)
        ctx->vkeys[v][c] = hyt_small_alloc(HYT_NBUCKETS * sizeof(hyt_key_t *), "a row of keys",
                                           HYT_TEST_FAIL_KEY);
    return ctx->vkeys[v][c];
}

hyt_key_t *const *hyt_key_row(const hyt_comm_t *ctx, int variant, hyt_coll_t c)
{
    return key_row((hyt_comm_t *)ctx, variant, c, 0);
}

static void ctx_free_keys(hyt_comm_t *ctx)
{
    for (int v = 0; v < HYT_NVARIANT; v++)
        for (int c = 0; c < HYT_NCOLL; c++) {
            hyt_key_t **row = key_row(ctx, v, c, 0);
            for (int b = 0; row && b < HYT_NBUCKETS; b++)
                if (row[b]) {
                    hyt_req_rekey(row[b], NULL);
                    if (row[b]->ext && key_ext)
                        key_ext->free(row[b]);
                    hyt_small_free(row[b]);
                    row[b] = NULL;
                }
            if (v) {
                hyt_small_free(row);
                ctx->vkeys[v][c] = NULL;
            }
        }
}

static int ctx_has_calls(hyt_comm_t *ctx)
{
    for (int v = 0; v < HYT_NVARIANT; v++)
        for (int c = 0; c < HYT_NCOLL; c++) {
            hyt_key_t **row = key_row(ctx, v, c, 0);
            for (int b = 0; row && b < HYT_NBUCKETS; b++)
                if (row[b] && row[b]->calls)
                    return 1;
        }
    return 0;
}

/* Merge src's counters into dst (same shape); src's keys are freed or moved. */
static void ctx_merge(hyt_comm_t *dst, hyt_comm_t *src)
{
    for (int v = 0; v < HYT_NVARIANT; v++)
        for (int c = 0; c < HYT_NCOLL; c++) {
            hyt_key_t **srow = key_row(src, v, c, 0), **drow;
            if (!srow)
                continue;
            drow = key_row(dst, v, c, 1);
            for (int b = 0; b < HYT_NBUCKETS; b++) {
                hyt_key_t *s = srow[b], *d = drow[b];
                if (!s)
                    continue;
                if (!d) {
                    drow[b] = s;
                    srow[b] = NULL;
                    continue;
                }
                d->calls += s->calls;
                d->bytes += s->bytes;
                d->tuned += s->tuned;
                if (s->block_max > d->block_max)
                    d->block_max = s->block_max;
                d->time += s->time;
                d->timed_calls += s->timed_calls;
                for (int f = 0; f < HYT_NFB; f++)
                    d->fallbacks[f] += s->fallbacks[f];
                hyt_req_rekey(s, d); /* requests still in flight count into d */
            }
        }
    ctx_free_keys(src);
}

static int delete_fn(MPI_Comm comm, int kv, void *attr, void *extra)
{
    (void)comm;
    (void)kv;
    (void)extra;
    hyt_comm_t *ctx = attr;
    forget_last();
    ctx_release_mpi(ctx);
    pthread_mutex_lock(&list_lock);
    ctx->freed = 1;
    ctx->comm = MPI_COMM_NULL;
    hyt_comm_t *twin = NULL;
    for (hyt_comm_t *o = list_head; o; o = o->next)
        if (o != ctx && o->freed && o->size == ctx->size && o->nodes == ctx->nodes &&
            o->ppn == ctx->ppn && o->is_inter == ctx->is_inter)
            twin = o;
    int keep = ctx_has_calls(ctx) && !twin;
    if (!keep) {
        if (twin)
            ctx_merge(twin, ctx);
        hyt_comm_t **pp = &list_head;
        while (*pp != ctx)
            pp = &(*pp)->next;
        *pp = ctx->next;
    }
    pthread_mutex_unlock(&list_lock);
    if (!keep) {
        ctx_free_keys(ctx);
        hyt_small_free(ctx);
    }
    return MPI_SUCCESS;
}

int hyt_comm_module_init(void)
{
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
}

/* Free everything at finalize (after the stats dump). */
void hyt_comm_module_finalize(void)
{
    /* Deleting the attribute runs delete_fn, which frees MPI resources. */
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
    forget_last();
    pthread_mutex_lock(&list_lock);
    hyt_comm_t *c = list_head;
    list_head = NULL;
    pthread_mutex_unlock(&list_lock);
    while (c) {
        hyt_comm_t *n = c->next;
        /* contexts of communicators the application never freed: MPI
         * resources go with MPI_Finalize, memory is ours */
        hyt_small_free(c->node_of);
        free(c->scratch);
        free(c->scratch2);
        ctx_free_keys(c);
        hyt_small_free(c);
        c = n;
    }
    PMPI_Comm_free_keyval(&keyval);
    hyt_world_scratch_agreed(0); /* not taken: no context was made for MPI_COMM_WORLD */
}

/* The node model of an intracommunicator, from the world node map: small
 * allocations (src/small.c), since a rank that could not hold them would
 * see other nodes than the others and match other rules. */
static void fill_node_model(hyt_comm_t *ctx)
{
    int p = ctx->size;
    size_t np = (size_t)p, nw = (size_t)(hyt_world_nodes > 0 ? hyt_world_nodes : 1);
    const char *what = "a communicator's node model";
    ctx->node_of = hyt_small_alloc(np * sizeof *ctx->node_of, what, HYT_TEST_FAIL_NODEMODEL);
    int *wr = hyt_small_alloc(np * 2 * sizeof *wr, what, HYT_TEST_FAIL_NODEMODEL);
    int *count = hyt_small_alloc(np * sizeof *count, what, HYT_TEST_FAIL_NODEMODEL);
    int *seen_world = hyt_small_alloc(nw * sizeof *seen_world, what, HYT_TEST_FAIL_NODEMODEL);
    MPI_Group g, wg;
    PMPI_Comm_group(ctx->comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < p; i++)
        wr[p + i] = i;
    PMPI_Group_translate_ranks(g, p, wr + p, wg, wr);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    /* local node index by first appearance; ranks outside the world (spawned)
     * are treated as alone on their node */
    int nodes = 0;
    for (int i = 0; i < hyt_world_nodes; i++)
        seen_world[i] = -1;
    for (int i = 0; i < p; i++) {
        int wn = (wr[i] >= 0 && wr[i] != MPI_UNDEFINED && hyt_world_node_of)
                     ? hyt_world_node_of[wr[i]]
                     : -1;
        int local;
        if (wn < 0)
            local = nodes++;
        else if (seen_world[wn] >= 0)
            local = seen_world[wn];
        else
            local = seen_world[wn] = nodes++;
        ctx->node_of[i] = local;
    }
    /* indices follow first appearance, so ranks are node-consecutive exactly
     * when the index never goes back */
    int consecutive = 1, ppn = 0, ppn_min = p;
    for (int i = 0; i < p; i++) {
        if (i > 0 && ctx->node_of[i] < ctx->node_of[i - 1])
            consecutive = 0;
        count[ctx->node_of[i]]++;
    }
    for (int n = 0; n < nodes; n++) {
        if (count[n] > ppn)
            ppn = count[n];
        if (count[n] < ppn_min)
            ppn_min = count[n];
    }
    ctx->nodes = nodes;
    ctx->ppn = ppn;
    ctx->ppn_min = ppn_min;
    ctx->node_consecutive = consecutive && ppn == ppn_min;
    ctx->my_node = ctx->node_of[ctx->rank];
    ctx->node_rank = 0;
    for (int i = 0; i < ctx->rank; i++)
        ctx->node_rank += ctx->node_of[i] == ctx->my_node;
    hyt_small_free(seen_world);
    hyt_small_free(count);
    hyt_small_free(wr);
}

extern const hyt_alg_t *hyt_forced_alg[HYT_NCOLL];
extern int hyt_forced_k[HYT_NCOLL];

static hyt_comm_t *ctx_create(MPI_Comm comm)
{
    hyt_comm_t *ctx = hyt_small_alloc(sizeof *ctx, "a communicator's context", HYT_TEST_FAIL_CTX);
    ctx->comm = comm;
    ctx->priv = ctx->node_comm = ctx->leader_comm = MPI_COMM_NULL;
    ctx->world_first = comm == MPI_COMM_WORLD;
    if (ctx->world_first)
        world_scratch_give(ctx);
    PMPI_Comm_test_inter(comm, &ctx->is_inter);
    PMPI_Comm_size(comm, &ctx->size);
    PMPI_Comm_rank(comm, &ctx->rank);
    ctx->remote_size = ctx->size;
    ctx->indegree = ctx->outdegree = -1;
    if (ctx->is_inter) {
        PMPI_Comm_remote_size(comm, &ctx->remote_size);
        ctx->nodes = ctx->size;
        ctx->ppn = ctx->ppn_min = 1;
    } else {
        fill_node_model(ctx);
    }
    for (int c = 0; c < HYT_NCOLL; c++) {
        ctx->rules[c] = hyt_table_match(hyt_table, (hyt_coll_t)c, ctx->nodes, ctx->ppn);
        ctx->setup_cost[c] = ctx->rules[c] ? hyt_setup_cost(ctx->rules[c], ctx->size) : -1;
        ctx->forced[c] = hyt_forced_alg[c];
        ctx->forced_k[c] = hyt_forced_k[c];
    }
    pthread_mutex_lock(&list_lock);
    ctx->id = next_id++;
    ctx->next = list_head;
    list_head = ctx;
    pthread_mutex_unlock(&list_lock);
    PMPI_Comm_set_attr(comm, keyval, ctx);
    return ctx;
}

hyt_comm_t *hyt_comm_get(MPI_Comm comm)
{
    if (HYT_LIKELY(last_ctx != NULL && comm == last_comm))
        return last_ctx;
    void *attr;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID)
        return NULL;
    PMPI_Comm_get_attr(comm, keyval, &attr, &flag);
    hyt_comm_t *ctx = flag ? attr : ctx_create(comm);
    if (ctx && hyt_thread_level != MPI_THREAD_MULTIPLE) {
        last_comm = comm;
        last_ctx = ctx;
    }
    return ctx;
}

/* hytune's own communicators return errors to the code that made the call:
 * an error inside a kernel then reaches the handler the application has on
 * its communicator now (hyt_run_alg), not a copy taken at creation. */
static void errors_return(MPI_Comm c)
{
    if (c != MPI_COMM_NULL)
        PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
}

MPI_Comm hyt_comm_priv(hyt_comm_t *ctx)
{
    if (ctx->priv == MPI_COMM_NULL && PMPI_Comm_dup(ctx->comm, &ctx->priv) == MPI_SUCCESS)
        errors_return(ctx->priv);
    return ctx->priv;
}

int hyt_comm_node_split(hyt_comm_t *ctx)
{
    if (ctx->node_comm != MPI_COMM_NULL)
        return MPI_SUCCESS;
    int rc = PMPI_Comm_split(ctx->comm, ctx->my_node, ctx->rank, &ctx->node_comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split(ctx->comm, ctx->node_rank == 0 ? 0 : MPI_UNDEFINED, ctx->my_node,
                             &ctx->leader_comm);
    errors_return(ctx->node_comm);
    errors_return(ctx->leader_comm);
    return rc;
}

/* HYTUNE_TEST_KERNEL_FAIL: this rank finds no memory for its scratch areas
 * (HYTUNE_TEST_KERNEL_FAIL_AT=reserve: the reserve cannot grow) or for the
 * kernel's own requests (=kernel). */
static int test_fail(int at)
{
    return hyt_test_fail(at, hyt_world_rank);
}

/* Area *p of *have bytes to at least n (want: the size to take, >= n). */
static int hold(void **p, size_t *have, size_t n, size_t want)
{
    if (n <= *have)
        return 1;
    if (test_fail(HYT_TEST_FAIL_RESERVE))
        return 0;
    void *q = realloc(*p, want);
    if (!q)
        return 0;
    *p = q;
    *have = want;
    return 1;
}

/* MPI_COMM_WORLD's first reserve (docs/memory.md): areas of these sizes,
 * taken in MPI_Init before its settings exchange, which tells every rank
 * whether every rank holds them (src/runtime.c).  A first call whose need
 * fits them then runs its kernel without the allreduce of reserve_grow
 * (NAS CG class S on dragonfly-64 paid 12.6 us before its one Bcast and
 * 6.9 us before its one Reduce, whose kernel is 2.7 us faster than MPI's).
 * They cover the small-message kernels applications call most (Reduce
 * k-nomial at k = 8 up to 8 KiB, Allreduce recursive multiplying at k = 8
 * up to 9 KiB).  Other communicators start with no reserve. */
static void *world_area[2];
static size_t world_have[2];
static int world_held; /* every rank holds world_area: MPI_COMM_WORLD's context takes them */

/* Both areas fit HYTUNE_SCRATCH_MAX (this rank's, or the agreed one). */
static int world_fits(void)
{
    size_t cap = (size_t)hyt_cfg.scratch_max;
    return HYT_WORLD_RESERVE0 <= cap && HYT_WORLD_RESERVE1 <= cap - HYT_WORLD_RESERVE0;
}

int hyt_world_scratch_take(void)
{
    if (!world_fits())
        return 0;
    if (hold(&world_area[0], &world_have[0], HYT_WORLD_RESERVE0, HYT_WORLD_RESERVE0) &&
        hold(&world_area[1], &world_have[1], HYT_WORLD_RESERVE1, HYT_WORLD_RESERVE1))
        return 1;
    hyt_world_scratch_agreed(0);
    return 0;
}

void hyt_world_scratch_agreed(int all)
{
    world_held = all && world_fits(); /* HYTUNE_SCRATCH_MAX is agreed now */
    if (world_held)
        return;
    for (int i = 0; i < 2; i++) {
        free(world_area[i]);
        world_area[i] = NULL;
        world_have[i] = 0;
    }
}

/* MPI_COMM_WORLD's new context takes the areas every rank holds. */
static void world_scratch_give(hyt_comm_t *ctx)
{
    if (!world_held)
        return;
    ctx->scratch = world_area[0];
    ctx->scratch2 = world_area[1];
    ctx->scratch_size = ctx->reserve[0] = world_have[0];
    ctx->scratch2_size = ctx->reserve[1] = world_have[1];
    world_area[0] = world_area[1] = NULL;
    world_have[0] = world_have[1] = 0;
    world_held = 0;
}

/* A request beyond the reserve (which the bounds of algorithms/scratch.c
 * rule out for calls MPI allows) grows the area on this rank alone; a
 * failure goes to the error handler (docs/memory.md). */
static void *grow(void **p, size_t *have, size_t n)
{
    if (test_fail(HYT_TEST_FAIL_KERNEL))
        return NULL;
    return hold(p, have, n, n < 4096 ? 4096 : n + n / 4) ? *p : NULL;
}

void *hyt_scratch(hyt_comm_t *ctx, size_t n)
{
    ctx->beyond += n > ctx->scratch_size;
    return grow(&ctx->scratch, &ctx->scratch_size, n);
}

void *hyt_scratch2(hyt_comm_t *ctx, size_t n)
{
    ctx->beyond += n > ctx->scratch2_size;
    return grow(&ctx->scratch2, &ctx->scratch2_size, n);
}

void hyt_scratch_room(const size_t want[2], size_t room[2])
{
    size_t cap = (size_t)hyt_cfg.scratch_max;
    room[0] = want[0] + want[0] / 4;
    room[1] = want[1] + want[1] / 4;
    if (room[0] < want[0] || room[1] < want[1] || room[0] > cap || room[1] > cap - room[0])
        room[0] = want[0], room[1] = want[1];
}

/* A need as large as one some rank could not hold is not asked again at
 * once: the ranks ask again after HYT_RETRY_FIRST such calls, then after
 * twice as many each time it is refused again, up to HYT_RETRY_MAX calls
 * (docs/memory.md).  Every rank counts the same calls, so all ask together. */
#define HYT_RETRY_FIRST 8
#define HYT_RETRY_MAX 4096

/* Is need one the ranks refused before, and not yet due to be asked again? */
static int refused_skip(hyt_comm_t *ctx, const size_t need[2])
{
    if ((!ctx->refused[0] && !ctx->refused[1]) || need[0] < ctx->refused[0] ||
        need[1] < ctx->refused[1])
        return 0;
    if (++ctx->refused_calls < ctx->retry_after)
        return 1;
    ctx->refused_calls = 0;
    return 0;
}

/* The slow side of hyt_scratch_reserve: the need passes the reserve.  Every
 * rank gets here together (the reserve, the refused needs and, unless
 * local, the need are the same on every rank).  The areas grow with a
 * quarter of headroom while both stay within HYTUNE_SCRATCH_MAX, so that
 * slowly growing calls seldom come back here. */
static int reserve_grow(hyt_comm_t *ctx, const size_t need[2], int local)
{
    size_t cap = (size_t)hyt_cfg.scratch_max, want[2];
    for (int i = 0; i < 2; i++)
        want[i] = need[i] > ctx->reserve[i] ? need[i] : ctx->reserve[i];
    int fits = want[0] <= cap && want[1] <= cap - want[0];
    if (!local) {
        if (!fits)
            return 0;
        if (refused_skip(ctx, need))
            return 0;
    }
    size_t room[2];
    hyt_scratch_room(want, room);
    /* [0]: this rank holds its need; [1], [2]: what it holds */
    unsigned long long v[3];
    v[0] = fits && hold(&ctx->scratch, &ctx->scratch_size, want[0], room[0]) &&
           hold(&ctx->scratch2, &ctx->scratch2_size, want[1], room[1]);
    v[1] = ctx->scratch_size;
    v[2] = ctx->scratch2_size;
    ctx->asks++;
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UNSIGNED_LONG_LONG, MPI_MIN, ctx->priv) !=
        MPI_SUCCESS)
        return 0; /* MPI's own call meets the same fault and reports it */
    ctx->reserve[0] = (size_t)v[1];
    ctx->reserve[1] = (size_t)v[2];
    if (!local && !v[0]) {
        ctx->refused[0] = need[0];
        ctx->refused[1] = need[1];
        ctx->retry_after = !ctx->retry_after ? HYT_RETRY_FIRST
                           : ctx->retry_after < HYT_RETRY_MAX / 2 ? 2 * ctx->retry_after
                                                                  : HYT_RETRY_MAX;
        ctx->refused_calls = 0;
    } else if (!local && need[0] >= ctx->refused[0] && need[1] >= ctx->refused[1]) {
        ctx->refused[0] = ctx->refused[1] = 0; /* held now: what was refused fits */
        ctx->retry_after = ctx->refused_calls = 0;
    }
    return v[0] != 0;
}

int hyt_scratch_reserve(hyt_comm_t *ctx, const size_t need[2], int local)
{
    if (HYT_LIKELY(!local && need[0] <= ctx->reserve[0] && need[1] <= ctx->reserve[1]))
        return 1;
    return reserve_grow(ctx, need, local);
}

size_t hyt_scratch_release(hyt_comm_t *ctx)
{
    size_t held = ctx->scratch_size + ctx->scratch2_size;
    free(ctx->scratch);
    free(ctx->scratch2);
    ctx->scratch = ctx->scratch2 = NULL;
    ctx->scratch_size = ctx->scratch2_size = 0;
    ctx->reserve[0] = ctx->reserve[1] = ctx->refused[0] = ctx->refused[1] = 0;
    ctx->retry_after = ctx->refused_calls = 0;
    return held;
}

hyt_key_t *hyt_key_get(hyt_comm_t *ctx, hyt_coll_t c, int bucket)
{
    hyt_key_t *k = ctx->keys[c][bucket];
    if (HYT_LIKELY(k != NULL))
        return k;
    k = hyt_small_alloc(sizeof *k, "a selection key", HYT_TEST_FAIL_KEY);
    k->coll = c;
    k->bucket = bucket;
    ctx->keys[c][bucket] = k;
    return k;
}

hyt_key_t *hyt_vkey_get(hyt_comm_t *ctx, hyt_coll_t c, int variant, int bucket)
{
    hyt_key_t **row = key_row(ctx, variant, c, 1);
    if (HYT_LIKELY(row[bucket] != NULL))
        return row[bucket];
    hyt_key_t *k = hyt_small_alloc(sizeof *k, "a selection key", HYT_TEST_FAIL_KEY);
    k->coll = c;
    k->bucket = bucket;
    k->variant = variant;
    row[bucket] = k;
    return k;
}

void hyt_comm_degrees(hyt_comm_t *ctx, int *indegree, int *outdegree)
{
    if (ctx->indegree < 0) {
        int status = MPI_UNDEFINED, in = 0, out = 0, weighted = 0;
        PMPI_Topo_test(ctx->comm, &status);
        if (status == MPI_CART) {
            PMPI_Cartdim_get(ctx->comm, &in);
            in = out = 2 * in;
        } else if (status == MPI_GRAPH) {
            PMPI_Graph_neighbors_count(ctx->comm, ctx->rank, &in);
            out = in;
        } else if (status == MPI_DIST_GRAPH) {
            PMPI_Dist_graph_neighbors_count(ctx->comm, &in, &out, &weighted);
        }
        ctx->indegree = in;
        ctx->outdegree = out;
    }
    *indegree = ctx->indegree;
    *outdegree = ctx->outdegree;
}

void hyt_comm_foreach(void (*fn)(hyt_comm_t *ctx, void *arg), void *arg)
{
    pthread_mutex_lock(&list_lock);
    for (hyt_comm_t *c = list_head; c; c = c->next)
        fn(c, arg);
    pthread_mutex_unlock(&list_lock);
}
