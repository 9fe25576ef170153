/* Online component (hybrid mode): hot-key counting, radix probing, agreement,
 * drift checks, statistics and warm start.
 *
 * Life of a key (communicator, collective, size bucket) whose statically
 * selected algorithm has a radix:
 *   COUNT   the first calls run the start radix (table k, else the topology
 *           prior; a warm-start k if an earlier run settled one).  When the
 *           table gave the start, the prior is the search's hint: measured
 *           once before settling if the search did not reach it.  The last
 *           probe_calls calls before the key turns hot (HYTUNE_HOT_CALLS) are
 *           timed: they measure the start radix for free.
 *   PROBE   windows of probe_calls calls per radix; at the end of a window
 *           the agreement step makes the time global (one MPI_MAX allreduce
 *           of the window's times on the private duplicate: per call the
 *           slowest rank; the median over the calls) and
 *           the pure state machine of online/probe.c picks the next radix.
 *           Every rank is in the same call of the same key at the same count
 *           (collectives are ordered), so every rank allreduces together and
 *           feeds the machine the same value.
 *   SETTLED no communication and no timing; every HYTUNE_DRIFT_INTERVAL calls
 *           one DRIFT window at the settled radix: if the global time rose
 *           above DRIFT_FACTOR x the settled level, probing restarts there.
 *   OFF     the timed calls never came back (the algorithm fell back to PMPI
 *           for a reason that holds on every rank): stop probing.
 * A warm-started key only verifies its radix (a budget of one window). */
#include "online/online.h"
#include "online/probe.h"
#include "online/warm.h"
#include "topology/topology.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WINDOWS 9        /* start window + 8 probe windows: <= 24 calls after hot */
#define DRIFT_FACTOR 1.25    /* settled level x this: the key has drifted */
#define MAX_POINTS 48        /* probe sequence kept for the statistics */

typedef enum { ST_COUNT, ST_PROBE, ST_SETTLED, ST_DRIFT, ST_OFF } state_t;
static const char *const state_names[] = {"counting", "probing", "settled", "drift check", "off"};

typedef enum { PT_START, PT_PROBE, PT_DRIFT } point_kind_t;
static const char *const kind_names[] = {"start", "probe", "drift"};

typedef struct {
    int k;
    point_kind_t kind;
    double t;          /* global window time, seconds */
    int checks;        /* PT_DRIFT that found no drift: consecutive checks at k merged here */
} point_t;

struct hyt_online_key {
    const hyt_alg_t *alg; /* the algorithm tuned on this key */
    state_t state;
    int k_start, k_min, k_max;
    int k_hint;             /* topology prior, measured once if the search misses it */
    int k_round;            /* one-round radix (k = p) of k-nomial and recmult, else 0 */
    const char *start_from; /* "table", "prior", "warm start" */
    int k_run;              /* radix of the window in progress */
    int settled_k;          /* 0 until the first settle */
    double settled_t;
    uint64_t n;             /* calls of alg seen on this key */
    uint64_t window_from;   /* call that opens the start window */
    uint64_t settled_call;  /* call of the first settle (0: never) */
    uint64_t last_settle;   /* call of the latest settle */
    uint64_t reprobe_call;  /* call whose drift window restarted probing */
    uint64_t probing_calls; /* calls timed for probing and drift checks */
    uint64_t next_drift;    /* call that opens the next drift window (0: never) */
    uint64_t drift_every;   /* calls between drift windows, as last scheduled */
    int drift_checks, reprobes;
    int confirming;         /* a drift window was slow: the next one confirms */
    hyt_probe_t probe;
    int window, nsamples, pending, misses;
    double *samples;        /* this rank's times of the window's calls (rooted
                             * collectives: end of each call since the window's
                             * common start) */
    /* Rooted collectives (Bcast, Reduce) time a window in one of two ways,
     * chosen at the key's first window and kept (before_slow): */
    int loop_timed;         /* -1 undecided; 1: calls back to back (window timed
                             * from one barrier); 0: a barrier before each call */
    uint64_t last_seq;      /* ctx->seq of the key's previous call */
    double window_t0;       /* loop-timed: the window's common start */
    double barrier_local;   /* rooted collectives: this rank's seconds in the
                             * window's barriers */
    double check_local;     /* this rank's seconds in the last window's barrier and
                             * agreement (sent with the next window) */
    double check_cost;      /* maximum over ranks of check_local: agreed */
    double *global;         /* their maxima over the ranks */
    /* overhead of the current probing segment: windows after its start one */
    double seg_sum_t;
    int seg_windows;
    double overhead;        /* seconds: sum over probe calls of (t - settled t) */
    int npoints, points_dropped;
    point_t points[MAX_POINTS];
};

int hyt_online_init(char *err, size_t errlen)
{
    if (hyt_cfg.mode != HYT_MODE_HYBRID || !hyt_cfg.warm_start)
        return 0;
    return hyt_online_warm_load(hyt_cfg.warm_start, err, errlen);
}

void hyt_online_finalize(void)
{
    hyt_online_warm_free();
}

/* The bucket's smallest size: the radix prior's size, the same on every rank. */
static size_t bucket_bytes(const hyt_key_t *key)
{
    return key->bucket ? (size_t)1 << (key->bucket - 1) : 0;
}

/* Start radix: warm start > table (clamped into range) > topology prior. */
static int start_k(hyt_comm_t *ctx, const hyt_key_t *key, const hyt_alg_t *alg, int table_k,
                   struct hyt_online_key *o)
{
    int k;
    if (hyt_online_warm_lookup(ctx->size, ctx->nodes, ctx->ppn, key->coll, key->bucket,
                               alg->name, &k)) {
        o->start_from = "warm start";
    } else if (table_k > 0) {
        k = table_k;
        o->start_from = "table";
    } else {
        k = hyt_topo_prior_k(alg, ctx, bucket_bytes(key));
        o->start_from = "prior";
    }
    return k < o->k_min ? o->k_min : k > o->k_max ? o->k_max : k;
}

/* Bcast and Reduce: no rank's own elapsed time shows when the call has
 * ended everywhere (see before_slow). */
static int rooted(hyt_coll_t c)
{
    return c == HYT_COLL_BCAST || c == HYT_COLL_REDUCE;
}

static struct hyt_online_key *key_create(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg,
                                         int table_k)
{
    struct hyt_online_key *o = calloc(1, sizeof *o);
    int window = hyt_cfg.probe_calls > 0 ? (int)hyt_cfg.probe_calls : 1;
    /* window times plus one slot: the local cost of the previous check */
    double *samples = malloc(2 * ((size_t)window + 1) * sizeof *samples);
    if (!o || !samples) {
        free(o);
        free(samples);
        return NULL;
    }
    o->alg = alg;
    o->loop_timed = rooted(alg->coll) ? -1 : 0;
    o->samples = samples;
    o->global = samples + window + 1;
    o->window = window;
    o->k_min = alg->k_min;
    o->k_max = hyt_alg_k_max(alg, ctx->size);
    if (o->k_max > HYT_K_LIMIT)
        o->k_max = HYT_K_LIMIT;
    o->k_start = start_k(ctx, key, alg, table_k, o);
    /* HYTUNE_PROBE_K_MAX bounds the climb, never the choice it starts from */
    if (hyt_cfg.probe_k_max > 0) {
        int cap = (int)hyt_cfg.probe_k_max > o->k_start ? (int)hyt_cfg.probe_k_max : o->k_start;
        if (o->k_max > cap)
            o->k_max = cap;
    }
    int warm = strcmp(o->start_from, "warm start") == 0;
    if (strcmp(o->start_from, "table") == 0)
        o->k_hint = hyt_topo_prior_k(alg, ctx, bucket_bytes(key));
    if (o->k_hint > o->k_max)
        o->k_hint = o->k_max;
    /* k-nomial and recursive multiplying finish in one round at k = p, a
     * regime the doubling climb may not reach behind a plateau of
     * two-round radixes (probe.c measures it then); not when
     * HYTUNE_PROBE_K_MAX cut the range below p */
    if ((strcmp(alg->name, "knomial") == 0 || strcmp(alg->name, "recmult") == 0) &&
        o->k_max >= ctx->size)
        o->k_round = o->k_max;
    hyt_probe_start(&o->probe, o->k_start, o->k_min, o->k_max, hyt_cfg.probe_min_gain,
                    warm ? 1 : MAX_WINDOWS);
    hyt_probe_hint(&o->probe, o->k_hint);
    hyt_probe_round_hint(&o->probe, o->k_round);
    o->window_from = hyt_cfg.hot_calls > window ? (uint64_t)(hyt_cfg.hot_calls - window + 1) : 1;
    o->state = ST_COUNT;
    key->online = o;
    return o;
}

static void begin_window(struct hyt_online_key *o, state_t st, int k)
{
    o->state = st;
    o->k_run = k;
    o->nsamples = 0;
    o->pending = 0;
    o->misses = 0;
}

/* Timed calls that never came back: the algorithm fell back to PMPI, which
 * happens on every rank alike; keep the best radix and stop probing. */
static void give_up(struct hyt_online_key *o)
{
    static int once;
    hyt_log_once(&once, HYT_LOG_INFO, HYT_TOPIC_ONLINE,
                 "%s: probing stopped on a key whose calls fall back to PMPI", o->alg->name);
    o->settled_k = o->probe.best_k;
    o->state = ST_OFF;
}

/* Everything but the settled key's common call: kept out of line so the
 * fast path below needs no stack frame. */
static __attribute__((noinline)) int before_slow(hyt_comm_t *ctx, hyt_key_t *key,
                                                 const hyt_alg_t *alg, int *k)
{
    struct hyt_online_key *o = key->online;
    if (!o) {
        o = key_create(ctx, key, alg, *k);
        if (!o)
            return 0;
        o->n++;
    }
    if (alg != o->alg) /* another rule inside this bucket: not ours */
        return 0;
    int back_to_back = o->last_seq && o->last_seq + 1 == ctx->seq;
    o->last_seq = ctx->seq;
    if (o->state == ST_SETTLED) {
        *k = o->settled_k;
        if (o->n != o->next_drift)
            return 0;
        begin_window(o, ST_DRIFT, o->settled_k);
    } else if (o->state == ST_COUNT) {
        *k = o->k_start;
        if (o->n < o->window_from)
            return 0;
        begin_window(o, ST_PROBE, o->k_start);
    } else if (o->state == ST_OFF) {
        *k = o->settled_k;
        return 0;
    }
    if (o->pending && ++o->misses > 2 * o->window) {
        give_up(o);
        *k = o->settled_k;
        return 0;
    }
    o->pending = 1;
    o->probing_calls++;
    *k = o->k_run;
    /* Rooted collectives (Bcast, Reduce): the root may return long before
     * the last rank has its data, so no rank's own elapsed time shows when
     * a call has ended everywhere; the timed calls start after a barrier on
     * the private duplicate.  Two cases, told apart at the key's first
     * window from the communicator's sequence of collectives (the same on
     * every rank) and kept for the key's life:
     * - back to back (the key's previous call was the communicator's
     *   previous collective): the calls pipeline (the root starts call i+1
     *   while call i still travels down the tree) and what the loop pays is
     *   the per-call time of the pipeline, not one call's latency.  One
     *   barrier starts the window; each rank records the end of each call
     *   since then; the agreement takes the maximum over ranks (when call i
     *   has ended everywhere) and the median of the increments (the first,
     *   carrying the pipeline's fill, is outvoted).
     * - otherwise other collectives come between and end the pipeline (a
     *   following Allreduce waits for the broadcast's last rank): a barrier
     *   before each timed call, and the maximum over ranks of the elapsed
     *   times is the call's completion time.  (Timing from one barrier here
     *   would charge every key the other keys' calls, and their probing.)
     * Allreduce, Allgather, Alltoall and Reduce_scatter_block cannot end on
     * any rank before every rank has entered, so the maximum over ranks of
     * their elapsed times already covers the call (and the arrival skew the
     * application really has): no barrier, which at small sizes cost as
     * much as the call.  Every rank is here on the same call. */
    if (o->loop_timed < 0)
        o->loop_timed = back_to_back;
    if (rooted(o->alg->coll) && (o->nsamples == 0 || !o->loop_timed)) {
        double t0 = PMPI_Wtime();
        if (ctx->size > 1)
            PMPI_Barrier(hyt_comm_priv(ctx));
        o->window_t0 = PMPI_Wtime();
        o->barrier_local = (o->nsamples ? o->barrier_local : 0) + o->window_t0 - t0;
    }
    return 1;
}

int hyt_online_before(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int *k)
{
    struct hyt_online_key *o = key->online;
    if (HYT_LIKELY(o && alg == o->alg)) {
        o->n++;
        if (HYT_LIKELY(o->state == ST_SETTLED && o->n != o->next_drift)) {
            *k = o->settled_k;
            return 0;
        }
    }
    return before_slow(ctx, key, alg, k);
}

/* The agreement step: the per-call maximum over the ranks of the window
 * (one MPI_MAX allreduce of the window vector on the private duplicate),
 * then the median over the calls (rooted collectives: over the increments
 * of the calls' ends, see before_slow): the same value on every rank, as
 * is the window's relative spread (*spread), which widens the probing's
 * noise guard. */
static double agree(hyt_comm_t *ctx, struct hyt_online_key *o, double *spread)
{
    int n = o->nsamples;
    double *v = o->global, t0 = PMPI_Wtime();
    o->samples[n] = o->check_local; /* the previous check's cost, agreed below */
    if (ctx->size == 1) {
        v = o->samples;
    } else if (PMPI_Allreduce(o->samples, o->global, n + 1, MPI_DOUBLE, MPI_MAX,
                              hyt_comm_priv(ctx)) != MPI_SUCCESS) {
        static int once;
        hyt_log_once(&once, HYT_LOG_WARN, HYT_TOPIC_ONLINE,
                     "agreement allreduce failed; probing decisions may stall");
        v = o->samples;
    }
    o->check_cost = v[n];
    /* this check's own cost (barrier of a rooted window, set in
     * before_slow; 0 for the others, plus this allreduce), agreed with the
     * next window */
    o->check_local = o->barrier_local + PMPI_Wtime() - t0;
    return hyt_probe_window_time(v, n, o->loop_timed > 0, spread);
}

/* A settled key's next drift window: HYTUNE_DRIFT_INTERVAL calls from now,
 * or for auto an interval from the agreed check cost and settled time. */
static void schedule_drift(struct hyt_online_key *o)
{
    o->drift_every = hyt_cfg.drift_interval >= 0
                         ? (uint64_t)hyt_cfg.drift_interval
                         : (uint64_t)hyt_probe_drift_calls(o->check_cost, o->settled_t);
    o->next_drift = o->drift_every ? o->n + o->drift_every : 0;
}

static void add_point(struct hyt_online_key *o, int k, point_kind_t kind, double t)
{
    if (o->npoints == MAX_POINTS) {
        o->points_dropped++;
        return;
    }
    o->points[o->npoints++] = (point_t){k, kind, t, 0};
}

static void settle(struct hyt_online_key *o)
{
    o->settled_k = o->probe.best_k;
    o->settled_t = o->probe.best_t;
    o->overhead += o->seg_sum_t - o->seg_windows * o->window * o->settled_t;
    o->seg_sum_t = 0;
    o->seg_windows = 0;
    if (!o->settled_call)
        o->settled_call = o->n;
    o->last_settle = o->n;
    o->state = ST_SETTLED;
    schedule_drift(o);
    hyt_debug(HYT_TOPIC_ONLINE, "%s %s bucket settled at k=%d (%.3f us) after call %llu",
              hyt_coll_name(o->alg->coll), o->alg->name, o->settled_k, o->settled_t * 1e6,
              (unsigned long long)o->n);
}

/* One global window time t (relative spread s) of radix k, while probing. */
static void probe_window(struct hyt_online_key *o, int k, double t, double s, point_kind_t kind)
{
    add_point(o, k, kind, t);
    if (kind == PT_PROBE) {
        o->seg_sum_t += t * o->window;
        o->seg_windows++;
    }
    int next = hyt_probe_feed_noisy(&o->probe, t, s);
    hyt_debug(HYT_TOPIC_ONLINE, "%s %s window k=%d: %.3f us, spread %.1f%%, noise guard %.1f%%",
              hyt_coll_name(o->alg->coll), o->alg->name, k, t * 1e6, 100 * s,
              100 * o->probe.guard);
    if (hyt_probe_settled(&o->probe))
        settle(o);
    else
        begin_window(o, ST_PROBE, next);
}

static void drift_window(struct hyt_online_key *o, double t, double s)
{
    o->drift_checks++;
    int drifted = hyt_probe_drifted(o->settled_t, t, DRIFT_FACTOR);
    if (drifted && !o->confirming) {
        /* one slow window may be a passing disturbance (another key's
         * probing, a neighbour's burst): a second window right away must
         * agree before probing restarts */
        o->confirming = 1;
        begin_window(o, ST_DRIFT, o->settled_k);
        return;
    }
    o->confirming = 0;
    if (!drifted) {
        /* passed checks at the same k are one point (t: the latest), so a
         * long run does not push later re-probes out of the record */
        point_t *last = o->npoints ? &o->points[o->npoints - 1] : NULL;
        if (last && last->checks && last->k == o->settled_k) {
            last->checks++;
            last->t = t;
        } else {
            add_point(o, o->settled_k, PT_DRIFT, t);
            if (!o->points_dropped)
                o->points[o->npoints - 1].checks = 1;
        }
        o->state = ST_SETTLED;
        schedule_drift(o);
        return;
    }
    o->reprobes++;
    o->reprobe_call = o->n;
    hyt_probe_start(&o->probe, o->settled_k, o->k_min, o->k_max, hyt_cfg.probe_min_gain,
                    MAX_WINDOWS);
    hyt_probe_hint(&o->probe, o->k_hint);
    hyt_probe_round_hint(&o->probe, o->k_round);
    probe_window(o, o->settled_k, t, s, PT_DRIFT); /* the drift window is the new start */
}

void hyt_online_after(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int k,
                      double seconds)
{
    struct hyt_online_key *o = key->online;
    if (!o || alg != o->alg || !o->pending)
        return;
    o->pending = 0;
    o->misses = 0;
    if (k != o->k_run)
        return;
    o->samples[o->nsamples++] = o->loop_timed > 0 ? PMPI_Wtime() - o->window_t0 : seconds;
    if (o->nsamples < o->window)
        return;
    double s, t = agree(ctx, o, &s);
    o->nsamples = 0;
    if (o->state == ST_DRIFT)
        drift_window(o, t, s);
    else
        probe_window(o, o->k_run, t, s, o->probe.windows == 0 ? PT_START : PT_PROBE);
}

void hyt_online_key_free(hyt_key_t *key)
{
    if (!key || !key->online)
        return;
    free(key->online->samples);
    free(key->online);
    key->online = NULL;
}

int hyt_online_key_settled(const hyt_key_t *key, int *k)
{
    const struct hyt_online_key *o = key->online;
    if (!o)
        return -1;
    if (o->state != ST_SETTLED && o->state != ST_DRIFT)
        return 0;
    *k = o->settled_k;
    return 1;
}

int hyt_online_key_info(const hyt_key_t *key, hyt_online_info_t *info)
{
    const struct hyt_online_key *o = key->online;
    if (!o)
        return -1;
    info->start_k = o->k_start;
    info->settled_k = o->settled_call ? o->settled_k : 0;
    info->settled_us = o->settled_call ? o->settled_t * 1e6 : 0;
    info->settled_call = (long long)o->settled_call;
    info->calls_after_hot = o->settled_call ? (long long)o->settled_call - hyt_cfg.hot_calls : 0;
    info->probing_calls = (long long)o->probing_calls;
    info->overhead_us = o->overhead * 1e6;
    info->reprobes = o->reprobes;
    info->k_now = o->state == ST_SETTLED || o->state == ST_OFF ? o->settled_k
                  : o->state == ST_COUNT                         ? o->k_start
                                                                 : o->k_run;
    info->state = state_names[o->state];
    info->last_settle_call = (long long)o->last_settle;
    info->reprobe_call = (long long)o->reprobe_call;
    info->loop_timed = o->loop_timed > 0;
    info->drift_every = o->settled_call ? (long long)o->drift_every : 0;
    return 0;
}

/* Calls from the key turning hot to its first settle (negative: settled
 * before turning hot, as a warm start or tiny HYTUNE_HOT_CALLS can). */
static long long calls_after_hot(const struct hyt_online_key *o)
{
    return (long long)o->settled_call - (long long)hyt_cfg.hot_calls;
}

/* How a rooted key's windows are timed ("" for the others). */
static const char *timing_name(const struct hyt_online_key *o)
{
    return o->loop_timed > 0 ? " (loop-timed)" : o->loop_timed == 0 && rooted(o->alg->coll)
                                                     ? " (timed per call)" : "";
}

void hyt_online_key_report(const hyt_key_t *key, FILE *out)
{
    const struct hyt_online_key *o = key->online;
    if (!o)
        return;
    fprintf(out, "   %-22s   online %s%s: start k=%d (%s), prior k=%d, probes", "",
            o->alg->name, timing_name(o), o->k_start, o->start_from, o->k_hint);
    for (int i = 0; i < o->npoints; i++) {
        fprintf(out, " %s%d:%.2fus", o->points[i].kind == PT_DRIFT ? "drift@" : "",
                o->points[i].k, o->points[i].t * 1e6);
        if (o->points[i].checks > 1)
            fprintf(out, "(x%d)", o->points[i].checks);
    }
    if (o->points_dropped)
        fprintf(out, " (+%d more)", o->points_dropped);
    fprintf(out, "\n   %-22s   %s", "", state_names[o->state]);
    if (o->settled_call)
        fprintf(out, ", settled k=%d at %.2f us, %lld calls after hot", o->settled_k,
                o->settled_t * 1e6, calls_after_hot(o));
    fprintf(out, ", %llu probing calls, overhead %.2f us, %d drift checks, %d re-probes",
            (unsigned long long)o->probing_calls, o->overhead * 1e6, o->drift_checks, o->reprobes);
    if (o->settled_call && o->drift_every)
        fprintf(out, ", drift check every %llu calls%s", (unsigned long long)o->drift_every,
                hyt_cfg.drift_interval < 0 ? " (auto)" : "");
    fputc('\n', out);
}

void hyt_online_key_json(const hyt_key_t *key, struct json_object *obj)
{
    const struct hyt_online_key *o = key->online;
    if (!o)
        return;
    json_object *j = json_object_new_object(), *seq = json_object_new_array();
    json_object_object_add(j, "algorithm", json_object_new_string(o->alg->name));
    json_object_object_add(j, "state", json_object_new_string(state_names[o->state]));
    if (rooted(o->alg->coll) && o->loop_timed >= 0)
        json_object_object_add(j, "timing",
                               json_object_new_string(o->loop_timed ? "loop" : "per call"));
    json_object_object_add(j, "k_min", json_object_new_int(o->k_min));
    json_object_object_add(j, "k_max", json_object_new_int(o->k_max));
    json_object_object_add(j, "start_k", json_object_new_int(o->k_start));
    json_object_object_add(j, "start_from", json_object_new_string(o->start_from));
    json_object_object_add(j, "hint_k", json_object_new_int(o->k_hint));
    for (int i = 0; i < o->npoints; i++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "k", json_object_new_int(o->points[i].k));
        json_object_object_add(p, "time_us", json_object_new_double(o->points[i].t * 1e6));
        json_object_object_add(p, "kind", json_object_new_string(kind_names[o->points[i].kind]));
        if (o->points[i].checks)
            json_object_object_add(p, "passed_checks", json_object_new_int(o->points[i].checks));
        json_object_array_add(seq, p);
    }
    json_object_object_add(j, "probes", seq);
    json_object_object_add(j, "probes_dropped", json_object_new_int(o->points_dropped));
    json_object_object_add(j, "settled_k", o->settled_call ? json_object_new_int(o->settled_k) : NULL);
    json_object_object_add(j, "settled_time_us",
                           o->settled_call ? json_object_new_double(o->settled_t * 1e6) : NULL);
    json_object_object_add(j, "settled_at_call",
                           json_object_new_int64((int64_t)o->settled_call));
    json_object_object_add(j, "calls_after_hot",
                           o->settled_call ? json_object_new_int64(calls_after_hot(o)) : NULL);
    json_object_object_add(j, "probing_calls", json_object_new_int64((int64_t)o->probing_calls));
    json_object_object_add(j, "overhead_us", json_object_new_double(o->overhead * 1e6));
    json_object_object_add(j, "drift_checks", json_object_new_int(o->drift_checks));
    json_object_object_add(j, "reprobes", json_object_new_int(o->reprobes));
    json_object_object_add(j, "drift_every_calls",
                           o->settled_call ? json_object_new_int64((int64_t)o->drift_every) : NULL);
    json_object_object_add(j, "drift_check_cost_us", json_object_new_double(o->check_cost * 1e6));
    json_object_object_add(obj, "online", j);
}
