/* Online component (hybrid mode): hot-key counting, radix probing, agreement,
 * drift checks, statistics and warm start.
 *
 * Life of a key (communicator, collective, size bucket) whose statically
 * selected algorithm has a radix:
 *   COUNT   the first calls run the start radix (table k, else the topology
 *           prior; a warm-start k if an earlier run settled one).  When the
 *           table gave the start, the prior is the search's hint: measured
 *           once before settling if the search did not reach it.  The key
 *           turns hot after HYTUNE_HOT_CALLS calls (auto: twice the calls
 *           its search can time, hyt_probe_hot_calls); the last probe_calls
 *           calls before are timed: they measure the start radix for free.
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
 *           for a reason that holds on every rank): stop probing.  Or a
 *           rank could not allocate the longer windows or the references
 *           of a rotating root (decide_period, plan_reference): every rank
 *           learns it at the key's first window (room_agreed) and keeps
 *           the rule's own choice.
 * A warm-started key only verifies its radix (a budget of one window). */
#include "online/online.h"
#include "online/choose.h"
#include "online/probe.h"
#include "online/warm.h"
#include "src/agree.h"
#include "topology/topology.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WINDOWS 9        /* start window + 8 probe windows: <= 24 calls after hot */
#define DRIFT_FACTOR 1.25    /* settled level x this: the key has drifted */
#define MAX_POINTS 48        /* probe sequence kept for the statistics */

typedef enum { ST_COUNT, ST_PROBE, ST_SETTLED, ST_DRIFT, ST_OFF, ST_CHOOSE, ST_ROTATION } state_t;
static const char *const state_names[] = {"counting", "probing", "settled", "drift check", "off",
                                          "choosing", "rotation check"};

typedef enum { PT_START, PT_PROBE, PT_DRIFT, PT_CHOICE, PT_ROTATION } point_kind_t;
static const char *const kind_names[] = {"start", "probe", "drift", "choice", "rotation"};

typedef struct {
    int k;
    int cand;          /* candidate (index into cand[]) the window ran */
    point_kind_t kind;
    double t;          /* global window time, seconds */
    int checks;        /* PT_DRIFT that found no drift: consecutive checks at k merged here */
    double own;        /* the window's own_t (below) */
} point_t;

/* One algorithm of a key's shortlist, with the radix it is measured at. */
typedef struct {
    const hyt_alg_t *alg;
    int k;                  /* radix it starts from (0: none) */
    int k_min, k_max, k_hint, k_round; /* as in hyt_online_key */
    const char *from;       /* where k came from: "table", "prior", "warm start", "settled" */
    double pred, sd;        /* the table's prediction and spread (us; < 0: unknown) */
    hyt_cand_status_t status; /* in the latest choice */
    double t;               /* its window time in the latest choice (s; < 0: none) */
    double setup_us;        /* the latest choice's set-up gate: what its first run
                             * would make (us; 0: nothing, or unknown) */
    double setup_call;      /* skipped for it: the key's call from which it may be
                             * measured (hyt_choice_setup_calls) */
} cand_t;

struct hyt_online_key {
    const hyt_alg_t *alg; /* the algorithm running now (the winner once chosen) */
    const hyt_alg_t *rule_alg; /* the static selection the key belongs to */
    state_t state;
    /* The choice among the rule's shortlist (online/choose.c); nc == 1:
     * radix probing only, as for a rule without a shortlist. */
    int nc;
    cand_t cand[HYT_CHOICE_MAX];
    const char *cand_from;  /* "table", "built-in" */
    hyt_choice_t choice;
    int cmap[HYT_CHOICE_MAX]; /* choice index -> cand[] index (0: the incumbent) */
    int cur;                /* cand[] index of alg */
    int chosen;             /* cand[] index of the latest winner (-1: none yet) */
    int choices, switches;  /* choices made (drift reopens one); winners that changed */
    int setup_opens;        /* choices reopened because a set-up got repaid */
    int setup_reopen;       /* the choice running is such a reopening */
    double sub_setup_us;    /* the table's set-up of the node and leader communicators
                             * (ppn and nodes ranks; < 0: unknown) */
    uint64_t choosing_calls;/* calls timed while choosing */
    int fell_back;          /* this rank: a call of the window went to PMPI */
    int k_start, k_min, k_max;
    int k_cap;              /* bound of every candidate's climb (0: none) */
    int k_hint;             /* topology prior, measured once if the search misses it */
    int k_round;            /* one-round radix (k = p) of k-nomial and recmult, else 0 */
    const char *start_from; /* "table", "prior", "warm start" */
    int k_run;              /* radix of the window in progress */
    int settled_k;          /* 0 until the first settle */
    double settled_t;
    int settled_ref;        /* settled_t is a reference's mean over the whole rotation
                             * (rotation_check), not a window's */
    uint64_t n;             /* calls of alg seen on this key */
    uint64_t hot;           /* the call after which the key is hot (HYTUNE_HOT_CALLS) */
    uint64_t window_from;   /* call that opens the start window */
    uint64_t settled_call;  /* call of the first settle (0: never) */
    uint64_t last_settle;   /* call of the latest settle */
    uint64_t reprobe_call;  /* call whose drift window restarted probing */
    uint64_t probing_calls; /* calls timed for probing and drift checks */
    uint64_t next_drift;    /* call that opens the next drift window (0: never) */
    uint64_t drift_every;   /* calls between drift windows, as last scheduled */
    int drift_checks, reprobes;
    int confirming;         /* a drift window was slow: the next one confirms */
    double drift_first;     /* that slow window's time */
    hyt_probe_t probe;
    int window, nsamples, pending, misses;
    double *samples;        /* this rank's times of the window's calls (rooted
                             * collectives: end of each call since the window's
                             * common start) */
    /* Rooted collectives (hyt_coll_has_root: Bcast, Reduce, Gather(v),
     * Scatter(v)) time a window in one of two ways, chosen at the key's
     * first window and kept (before_slow): */
    int loop_timed;         /* -1 undecided; 1: calls back to back (window timed
                             * from one barrier); 0: a barrier before each call */
    uint64_t last_seq;      /* ctx->seq of the key's previous call */
    /* ... and over whole periods of the root's rotation (hyt_probe_root_period),
     * seen on the calls before the key's first window and kept: */
    int root_last;          /* root of the key's previous call */
    int root_step;          /* the step between consecutive roots (mod p) */
    int root_steps;         /* steps seen, all equal to root_step (-1: not a rotation) */
    uint64_t root_n;        /* call of root_last */
    int period;             /* 0 undecided; 1: none (windows of HYTUNE_PROBE_CALLS) */
    int fill;               /* loop-timed periodic windows: calls before the measured ones */
    int rot_broken;         /* a root broke the rotation: plain windows from the next */
    /* ... and, when the whole rotation is longer than the windows, scaled to it
     * by a reference window over the rotation (hyt_probe_root_scale): */
    int ref_on;             /* windows scaled by references (plan_reference; the
                             * same on every rank, whether or not ref is held) */
    double *ref;            /* per root: the reference's increment (< 0: not seen) */
    double ref_mean;        /* the reference's mean: its time */
    double ref_noise;       /* a call's noise over the mean, from the first reference
                             * (two rotations: hyt_probe_root_shrink); 0: none */
    int window_noisy;       /* a radix window's calls when ref_noise needs more than
                             * window_reg's (hyt_probe_noise_window; 0: none) */
    int ext_n;              /* a radix window within the noise of the best, extended
                             * (hyt_probe_noise_extend): its measured calls so far */
    double ext_t;           /* and their time (sum of per-call times) */
    uint64_t ref_calls;     /* calls the references timed */
    int ref_len;            /* the reference window's calls (0: none) */
    int ref_phase;          /* 1 while the reference window runs */
    int ref_cand;           /* the candidate it ran */
    int ref_k;              /* at this radix */
    /* The rotation check (rotation_check): the first search settles on the
     * fastest reference over the whole rotation (the incumbent's, the
     * choice's winner's, the settled radix's): */
    double *best_ref;       /* the fastest reference so far (its ref[]) */
    double best_mean;       /* its mean (< 0: none) */
    int best_cand, best_k;
    int rot_checked;        /* the first search's settle was checked */
    int want_room;          /* windows or references longer than key_create's
                             * buffers were planned (the same on every rank):
                             * agreed at the first window (room_agreed) */
    int nomem;              /* this rank could not allocate them */
    const char *off_reason; /* why the key is off (ST_OFF) */
    int rot_checks, rot_reverts; /* checks made; those that went back */
    int rot_refs;           /* references the check timed (after the settle) */
    int size;               /* the communicator's ranks (ref[]'s length) */
    int refs;               /* references timed */
    int window_reg;         /* the windows' calls after the reference */
    int extended;           /* radix windows extended for the noise */
    int *roots;             /* roots of the window's calls (with a reference) */
    int cap;                /* calls samples, global and roots hold */
    int warm;               /* warm-started: the first search only verifies (one window) */
    int doubted;            /* the table predicts a candidate faster than the rule's own
                             * (hyt_choice_doubted): auto turns the key hot early */
    int incumbent;          /* cand[] index run before the search and kept on a tie
                             * (hyt_choice_incumbent; a warm start's winner) */
    int search_windows;     /* the most windows the search can time (HYTUNE_HOT_CALLS=auto) */
    long search_calls;      /* the most calls it times (hyt_probe_search_calls) */
    uint64_t choice_from;   /* choosing_calls when the latest choice opened */
    int choice_ref;         /* its incumbent's window was a reference (its calls are
                             * not in choosing_calls, but its window is the search's) */
    int window_plain;       /* HYTUNE_PROBE_CALLS */
    double window_t0;       /* loop-timed: the window's common start */
    uint64_t agreed_n;      /* the call after which the latest agreement ran (0: none) */
    double agreed_t;        /* when it ended (this rank's clock) */
    double barrier_local;   /* rooted collectives: this rank's seconds in the
                             * window's barriers */
    double check_local;     /* this rank's seconds in the last window's barrier and
                             * agreement (sent with the next window) */
    double check_cost;      /* maximum over ranks of check_local: agreed */
    const hyt_alg_t *agree_alg; /* the latest agreement's allreduce (agree_allreduce;
                                 * NULL: MPI's own) and its radix */
    int agree_k;
    double own_sum;         /* this rank's seconds inside the window's calls */
    double own_t;           /* the latest window's calls alone, per call
                             * (maximum over ranks of own_sum / calls): agreed;
                             * 0 before the first window */
    double settled_own;     /* own_t of the settled k's latest window */
    double *global;         /* their maxima over the ranks */
    /* overhead of the current probing segment: windows after its start one */
    double seg_sum_t;
    long seg_calls;
    double overhead;        /* seconds: sum over probe calls of (t - settled t) */
    int npoints, points_dropped;
    point_t points[MAX_POINTS];
};

/* The settings slot: HYTUNE_WARM_START (hybrid mode only; the core asks
 * only then) loaded on every rank, compared by its radixes. */
static void warm_item(hyt_agree_item_t *it)
{
    hyt_agree_item_init(it, "HYTUNE_WARM_START", HYT_TOPIC_ONLINE, HYT_LOG_ERROR,
                        "every rank starts without warm start");
    char err[HYT_AGREE_DESC];
    if (hyt_online_warm_load(hyt_cfg.warm_start, err, sizeof err) != 0) {
        hyt_agree_item_fail(it, "%s", err);
        return;
    }
    it->fp = hyt_agree_hash(HYT_AGREE_HASH0, "warm", 4) + hyt_online_warm_fingerprint();
    snprintf(it->desc, sizeof it->desc, "warm start %s: %d settled radixes (checksum %016llx)",
             hyt_cfg.warm_start, hyt_online_warm_count(), (unsigned long long)it->fp);
}

static void warm_apply(int ok)
{
    if (!ok)
        hyt_online_warm_free();
    else if (hyt_online_warm_count() > 0)
        hyt_info(HYT_TOPIC_ONLINE, "warm start: %d settled radixes from %s",
                 hyt_online_warm_count(), hyt_cfg.warm_start);
}

static void online_finalize(void)
{
    hyt_online_warm_free();
}

/* The bucket's smallest size: the radix prior's size, the same on every rank. */
static size_t bucket_bytes(const hyt_key_t *key)
{
    return key->bucket ? (size_t)1 << (key->bucket - 1) : 0;
}

/* The built-in shortlist of a key no table rule covers: the MPI library's
 * own collective (the incumbent), then the algorithms the topology priors
 * give a radix for that most often win on the tuner's platforms, each at
 * its prior radix.  Every candidate is measured (no prediction). */
static const char *const builtin[HYT_NCOLL][HYT_SHORTLIST_MAX] = {
    [HYT_COLL_ALLREDUCE] = {"native", "recmult", "knomial", "kring"},
    [HYT_COLL_BCAST] = {"native", "knomial", "kring", "recmult"},
    [HYT_COLL_REDUCE] = {"native", "knomial", "rabenseifner"},
    [HYT_COLL_ALLGATHER] = {"native", "recmult", "kring", "kbruck"},
    [HYT_COLL_ALLTOALL] = {"native", "kbruck", "pairwise"},
};

int hyt_online_builtin_count(hyt_coll_t c)
{
    int n = 0;
    while (n < HYT_SHORTLIST_MAX && builtin[c][n] && hyt_alg_find(c, builtin[c][n]))
        n++;
    return n > 1 ? n : 1;
}

const hyt_alg_t *hyt_online_builtin(hyt_coll_t c, int i)
{
    return hyt_alg_find(c, builtin[c][i]);
}

/* The radix a candidate starts from: k (warm start or table) clamped into
 * its range, else (k == 0) the topology prior; from says which. */
static void cand_radix(hyt_comm_t *ctx, const hyt_key_t *key, cand_t *c, int k, const char *from,
                       int cap)
{
    c->k_hint = c->k_round = 0;
    if (!hyt_alg_has_radix(c->alg)) {
        c->k = c->k_min = c->k_max = 0;
        c->from = "none";
        return;
    }
    c->k_min = c->alg->k_min;
    c->k_max = hyt_alg_k_max(c->alg, ctx->size);
    if (c->k_max > HYT_K_LIMIT)
        c->k_max = HYT_K_LIMIT;
    int prior = hyt_topo_prior_k(c->alg, ctx, bucket_bytes(key));
    c->from = k > 0 ? from : "prior";
    k = k > 0 ? k : prior;
    c->k = k < c->k_min ? c->k_min : k > c->k_max ? c->k_max : k;
    /* the bound (HYTUNE_PROBE_K_MAX, else the table's k_max) limits the
     * climb, never the choice it starts from */
    if (cap > 0) {
        if (cap < c->k)
            cap = c->k;
        if (c->k_max > cap)
            c->k_max = cap;
    }
    /* when the table gave the start, the prior is the search's hint */
    if (strcmp(c->from, "table") == 0)
        c->k_hint = prior > c->k_max ? c->k_max : prior;
    /* a row with a one-round radix (k-nomial and recursive multiplying:
     * k = p) finishes in one round there, a regime the doubling climb may
     * not reach behind a plateau of two-round radixes (probe.c measures it
     * then); not when HYTUNE_PROBE_K_MAX cut the range below it */
    int k_one = hyt_alg_one_round_k(c->alg, ctx->size);
    if (k_one > 0 && c->k_max >= k_one)
        c->k_round = c->k_max;
}

/* Make candidate i the key's algorithm: its range and start radix. */
static void use_cand(struct hyt_online_key *o, int i)
{
    const cand_t *c = &o->cand[i];
    o->cur = i;
    o->alg = c->alg;
    o->k_start = c->k;
    o->k_min = c->k_min;
    o->k_max = c->k_max;
    o->k_hint = c->k_hint;
    o->k_round = c->k_round;
    o->start_from = c->from;
}

/* The candidates: the rule's shortlist, the built-in one for a key no
 * rule covers, else the static selection alone. */
static void make_cands(hyt_comm_t *ctx, const hyt_key_t *key, struct hyt_online_key *o,
                       const hyt_rule_t *rule, const hyt_alg_t *alg, int table_k)
{
    o->nc = 1;
    o->cand[0] = (cand_t){.alg = alg, .k = table_k, .pred = -1, .sd = -1};
    o->cand_from = "table";
    if (rule && rule->nshort > 1) {
        o->nc = rule->nshort < HYT_CHOICE_MAX ? rule->nshort : HYT_CHOICE_MAX;
        for (int i = 0; i < o->nc; i++) {
            const hyt_cand_t *sc = &rule->shortlist[i];
            o->cand[i] = (cand_t){.alg = sc->alg, .k = sc->k, .pred = sc->predicted_us,
                                  .sd = sc->spread_us};
        }
    } else if (!rule && hyt_cfg.builtin_shortlist && (alg->flags & HYT_ALG_NATIVE) &&
               hyt_online_builtin_count(key->coll) > 1) {
        o->cand_from = "built-in";
        o->nc = hyt_online_builtin_count(key->coll);
        for (int i = 0; i < o->nc; i++)
            o->cand[i] = (cand_t){.alg = hyt_online_builtin(key->coll, i), .pred = -1, .sd = -1};
    }
    for (int i = 0; i < o->nc; i++) {
        o->cand[i].t = -1;
        cand_radix(ctx, key, &o->cand[i], o->cand[i].k, "table", o->k_cap);
    }
}

/* The statistics' "online choice": the key chose among its shortlist, or
 * is measuring it to choose. */
static int key_chose(const hyt_key_t *key)
{
    hyt_online_info_t info;
    return hyt_online_key_info(key, &info) == 0 && (info.choices > 0 || info.choosing_calls > 0);
}

/* What the core calls to free and report a key this component took. */
static const hyt_key_ext_hooks_t ext_hooks = {
    .free = hyt_online_key_free,
    .chose = key_chose,
    .report = hyt_online_key_report,
    .json = hyt_online_key_json,
};

/* Room for windows of len calls: each call's time, plus three slots (the
 * local cost of the previous check, whether a call of the window fell back
 * to PMPI, and the seconds per call inside the calls: own_t), twice (this
 * rank's and the agreed), and each call's root.  The plain window of a new
 * key (small = 1) is a small allocation (src/small.c: it never fails on one
 * rank alone); longer ones are asked of malloc, and the ranks agree on them
 * at the key's first window (room_agreed). */
static int window_room(struct hyt_online_key *o, int len, int small)
{
    if (len <= o->cap)
        return 0;
    double *samples;
    int *roots;
    size_t nsamples = 2 * ((size_t)len + 3), nroots = (size_t)len;
    if (small) {
        samples = hyt_small_alloc(nsamples * sizeof *samples, "an online key's window",
                                  HYT_TEST_FAIL_ONLINEKEY);
        roots = hyt_small_alloc(nroots * sizeof *roots, "an online key's window",
                                HYT_TEST_FAIL_ONLINEKEY);
    } else {
        if (hyt_test_fail(HYT_TEST_FAIL_ONLINE, hyt_world_rank))
            return -1; /* tests: a rooted key's longer windows */
        samples = malloc(nsamples * sizeof *samples);
        roots = malloc(nroots * sizeof *roots);
        if (!samples || !roots) {
            free(samples);
            free(roots);
            return -1;
        }
    }
    hyt_small_free(o->samples);
    hyt_small_free(o->roots);
    o->samples = samples;
    o->global = samples + len + 3;
    o->roots = roots;
    o->cap = len;
    return 0;
}

/* A key's online state, when the core first passes it here: a small
 * allocation (src/small.c), since a rank without it would time no windows
 * while the others agree on theirs. */
static struct hyt_online_key *key_create(hyt_comm_t *ctx, hyt_key_t *key, const hyt_rule_t *rule,
                                         const hyt_alg_t *alg, int table_k)
{
    struct hyt_online_key *o = hyt_small_alloc(sizeof *o, "an online key", HYT_TEST_FAIL_ONLINEKEY);
    int window = hyt_cfg.probe_calls > 0 ? (int)hyt_cfg.probe_calls : 1;
    window_room(o, window, 1);
    o->rule_alg = alg;
    o->size = ctx->size;
    o->best_mean = -1;
    o->loop_timed = hyt_coll_has_root(alg->coll) ? -1 : 0;
    o->window = o->window_plain = window;
    o->chosen = -1;
    /* a composition's node and leader communicators, as the table prices a
     * new communicator of their sizes (docs/memory.md) */
    const hyt_rule_set_t *set = ctx->rules[key->coll];
    double node_us = set ? hyt_setup_cost(set, ctx->ppn) : -1;
    double leader_us = set ? hyt_setup_cost(set, ctx->nodes) : -1;
    o->sub_setup_us = node_us >= 0 && leader_us >= 0 ? node_us + leader_us : -1;
    /* the largest radix probing tries: HYTUNE_PROBE_K_MAX, else, for a key
     * the table covers, the largest the tuner tried ($.tuning.k_max) */
    o->k_cap = hyt_cfg.probe_k_max > 0 ? (int)hyt_cfg.probe_k_max
               : rule && hyt_table ? hyt_table->k_max : 0;
    make_cands(ctx, key, o, rule, alg, table_k);
    /* warm start: the earlier run's winner at its settled radix, verified
     * with one window (no choice) */
    int warm = -1, wk = 0;
    const char *wname = hyt_online_warm_find(ctx->size, ctx->nodes, ctx->ppn, key->coll,
                                             key->bucket, &wk);
    for (int i = 0; wname && i < o->nc && warm < 0; i++)
        if (strcmp(o->cand[i].alg->name, wname) == 0)
            warm = i;
    if (warm >= 0) {
        cand_radix(ctx, key, &o->cand[warm], wk, "warm start", o->k_cap);
        o->chosen = warm;
    }
    /* a rule the table doubts: the candidate predicted fastest runs until
     * the search and is the choice's incumbent (the rule's own is measured
     * in its turn) */
    double pred[HYT_CHOICE_MAX];
    for (int i = 0; i < o->nc; i++)
        pred[i] = o->cand[i].pred;
    o->doubted = warm < 0 && hyt_choice_doubted(o->nc, pred, hyt_cfg.probe_min_gain);
    o->incumbent = warm >= 0  ? warm
                   : o->doubted ? hyt_choice_incumbent(o->nc, pred, hyt_cfg.probe_min_gain)
                                : 0;
    use_cand(o, o->incumbent);
    hyt_probe_start(&o->probe, o->k_start, o->k_min, o->k_max, hyt_cfg.probe_min_gain,
                    warm >= 0 ? 1 : MAX_WINDOWS);
    hyt_probe_hint(&o->probe, o->k_hint);
    hyt_probe_round_hint(&o->probe, o->k_round);
    /* the most windows the search can time: one per candidate, then the
     * radix probe's windows after the winner's, if a candidate has a radix
     * to probe (a drift re-probe's budget); a warm start only verifies:
     * one window before it settles */
    int windows = o->nc;
    for (int i = 0; i < o->nc; i++)
        if (o->cand[i].k_min < o->cand[i].k_max) {
            windows += MAX_WINDOWS - 1;
            break;
        }
    o->warm = warm >= 0;
    o->search_windows = windows;
    o->search_calls = hyt_probe_search_calls(windows, window, window);
    o->hot = (uint64_t)hyt_probe_hot_calls(
        hyt_cfg.hot_calls, o->warm ? hyt_probe_search_calls(1, window, window) : o->search_calls,
        o->doubted);
    o->window_from = o->hot > (uint64_t)window ? o->hot - (uint64_t)window + 1 : 1;
    o->state = ST_COUNT;
    key->ext = o;
    return o;
}

static void begin_window(struct hyt_online_key *o, state_t st, int k)
{
    o->state = st;
    o->k_run = k;
    /* on a key with a reference (not one in progress), the regular window,
     * or the rest of a radix window extended for the noise (up to
     * window_noisy's measured calls, with a fill call of its own) */
    if (o->ref_on && !o->ref_phase)
        o->window = st == ST_PROBE && o->ext_n > 0 ? o->window_noisy - o->ext_n : o->window_reg;
    o->nsamples = 0;
    o->own_sum = 0;
    o->pending = 0;
    o->misses = 0;
    o->fell_back = 0;
}

/* The choice's next candidate runs the next choice window: at its k, or
 * at its radix probe's first step (hyt_choice_steps) when the choice asks
 * for it. */
static void choice_begin(struct hyt_online_key *o)
{
    int c = o->choice.next, i = o->cmap[c];
    o->cur = i;
    o->alg = o->cand[i].alg;
    begin_window(o, ST_CHOOSE, o->choice.stepping ? o->choice.step[c] : o->cand[i].k);
}

/* Would running alg on ctx make communicators it does not have yet: a
 * composition's node and leader communicators (made once, on every rank
 * alike: hyt_comm_node_split), but for a communicator of one rank per
 * node, which needs none (hyt_compose_flat)? */
static int makes_node_comms(const hyt_comm_t *ctx, const hyt_alg_t *alg)
{
    return (alg->flags & HYT_ALG_COMPOSITION) && !hyt_compose_flat(ctx) &&
           ctx->node_comm == MPI_COMM_NULL;
}

/* A choice with candidate inc as the incumbent (choice index 0), the
 * others in cand[] order, into *ch and cmap[] (choice index -> cand[]
 * index); reads the key only. */
static void choice_init(const hyt_comm_t *ctx, const struct hyt_online_key *o, int inc,
                        hyt_choice_t *ch, int *cmap)
{
    double pred[HYT_CHOICE_MAX], sd[HYT_CHOICE_MAX];
    for (int i = 0, j = 1; i < o->nc; i++) {
        int c = i == inc ? 0 : j++;
        cmap[c] = i;
        pred[c] = o->cand[i].pred;
        sd[c] = o->cand[i].sd;
        /* a doubted rule's own choice may hold for a reason its prediction
         * does not (the native guard's measurement): it is measured, last,
         * as a candidate without a prediction, never skipped by one */
        if (o->doubted && i == 0 && c != 0)
            pred[c] = sd[c] = -1;
    }
    hyt_choice_start(ch, o->nc, pred, sd, hyt_cfg.probe_min_gain);
    /* each candidate's radix headroom: the radix its probe would take first */
    int step[HYT_CHOICE_MAX];
    for (int c = 0; c < o->nc; c++) {
        const cand_t *x = &o->cand[cmap[c]];
        step[c] = hyt_choice_first_step(x->k, x->k_min, x->k_max, x->k_hint, x->k_round);
    }
    hyt_choice_steps(ch, step);
    /* the set-up gate (hyt_choice_setup): a candidate that would make the
     * node and leader communicators waits until the key's calls could
     * have repaid the table's price of them; the communicator's shape, the
     * table and the key's calls decide, the same on every rank */
    double setup[HYT_CHOICE_MAX];
    for (int c = 0; c < o->nc; c++)
        setup[c] = makes_node_comms(ctx, o->cand[cmap[c]].alg) && o->sub_setup_us > 0
                       ? o->sub_setup_us * 1e-6 /* window times are seconds */
                       : 0;
    hyt_choice_setup(ch, setup, HYT_SETUP_NATIVE_MULT);
    ch->calls = (double)o->n;
}

/* Start a choice with candidate inc as the incumbent (choice_begin then
 * runs the first to measure). */
static void choice_open(const hyt_comm_t *ctx, struct hyt_online_key *o, int inc)
{
    choice_init(ctx, o, inc, &o->choice, o->cmap);
    for (int c = 0; c < o->nc; c++) {
        o->cand[o->cmap[c]].setup_us = o->choice.setup[c] * 1e6;
        o->cand[o->cmap[c]].setup_call = 0;
    }
    o->choice_from = o->choosing_calls;
    o->choice_ref = 0;
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
    o->off_reason = "calls fall back to PMPI";
}

/* A key whose longer windows or references (decide_period,
 * plan_reference) each rank allocated on its own: at its first window,
 * before any of them is used, every rank learns whether every rank holds
 * them (one allreduce on the private duplicate, once per such key: such a
 * key's windows start with a barrier there anyway).  A rank that could not
 * would otherwise time other windows than the others and the job would
 * hang. */
static int room_agreed(hyt_comm_t *ctx, const struct hyt_online_key *o)
{
    int ok = !o->nomem;
    if (ctx->size > 1 && PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN,
                                        hyt_comm_priv(ctx)) != MPI_SUCCESS)
        ok = 0; /* MPI's own collectives meet the same fault */
    return ok;
}

/* Some rank could not: every rank keeps the key on the rule's own choice,
 * at its start radix, and tunes it no further. */
static void no_room(struct hyt_online_key *o, int len)
{
    static int once;
    hyt_log_once(&once, HYT_LOG_WARN, HYT_TOPIC_ONLINE,
                 "%s: a rank could not allocate the %d-call windows of a rotating root; "
                 "every rank keeps the table's choice for such keys (the statistics say "
                 "\"no memory\")", hyt_coll_name(o->rule_alg->coll), len);
    free(o->ref);
    free(o->best_ref);
    o->ref = o->best_ref = NULL;
    o->ref_on = o->ref_phase = 0;
    o->period = 1;
    o->fill = 0;
    o->window = o->window_plain;
    o->chosen = -1;
    use_cand(o, 0);
    o->settled_k = o->k_start;
    o->state = ST_OFF;
    o->off_reason = "no memory";
}

/* A rooted key's roots: before its first window, a rotation is a constant
 * nonzero step between consecutive roots; once the windows follow it, a
 * root off the step breaks it (the same on every rank: a root is an
 * argument every rank passes alike).  Only consecutive calls are compared
 * (a settled key sees only its drift windows' calls). */
static void track_root(const hyt_comm_t *ctx, struct hyt_online_key *o, int root)
{
    int d = ((root - o->root_last) % ctx->size + ctx->size) % ctx->size;
    if (o->period == 0 && o->root_steps >= 0 && o->n > 1) {
        if (o->root_steps == 0)
            o->root_step = d;
        o->root_steps = d == o->root_step && d != 0 ? o->root_steps + 1 : -1;
    } else if ((o->period > 1 || o->ref_on) && o->root_n + 1 == o->n && d != o->root_step) {
        o->rot_broken = 1;
    }
    o->root_last = root;
    o->root_n = o->n;
}

/* The radix probe's windows (its start window included) after a choice
 * that timed used calls (its winner's window is the probe's start; an
 * incumbent's reference counts as one window): what the key's search has
 * left, at most MAX_WINDOWS. */
static int probe_budget(const struct hyt_online_key *o, long used)
{
    return hyt_probe_window_budget(o->search_calls - used + (used ? o->window : 0), o->window,
                                   MAX_WINDOWS);
}

/* At the key's first window: a rotating root on a communicator whose nodes
 * hold ppn consecutive ranks each repeats the per-call times with the
 * root's place in its node, so the windows span whole periods of it
 * (hyt_probe_root_window) and their time is the mean over them.  Any
 * period's worth of consecutive calls holds every place of the root once,
 * so a window starts at any call (no wait for a place of the root).  Every
 * input is the same on every rank (roots, the node layout, the timing
 * mode), so every rank sizes its windows alike. */
static void decide_period(const hyt_comm_t *ctx, struct hyt_online_key *o)
{
    o->period = 1;
    if (!hyt_coll_has_root(o->rule_alg->coll) || o->root_steps < 1 || !ctx->node_consecutive)
        return;
    int period = hyt_probe_root_period(o->root_step, ctx->ppn);
    if (period <= 1)
        return;
    int fill = o->loop_timed > 0; /* loop-timed: the first call's end is the fill */
    int len = hyt_probe_root_window(o->window, period, fill);
    if (len <= 0)
        return;
    /* the windows are sized alike on every rank; a rank that cannot hold
     * them says so at the first window (room_agreed) */
    o->want_room = 1;
    o->nomem |= window_room(o, len, 0) != 0;
    o->window = len;
    o->period = period;
    o->fill = fill;
    /* the search over the longer windows times at most search_calls
     * (the radix probe gets the windows they leave), and
     * HYTUNE_HOT_CALLS=auto counts them: the key turns hot later */
    o->search_calls = hyt_probe_search_calls(o->search_windows, len, o->window_plain);
    if (!o->warm)
        o->probe.max_windows = probe_budget(o, 0);
    uint64_t hot = (uint64_t)hyt_probe_hot_calls(
        hyt_cfg.hot_calls,
        o->warm ? hyt_probe_search_calls(1, len, o->window_plain) : o->search_calls, o->doubted);
    if (hot > o->hot && hot - (uint64_t)len + 1 > o->n) {
        o->hot = hot;
        o->window_from = hot - (uint64_t)len + 1;
    }
}

/* A rooted key called back to back whose root rotates over more calls than
 * its windows measure: its windows are sized now (decide_period, at its
 * third call, when two equal steps of the root are known), and its first
 * window, the last calls before it turns hot, becomes a reference over the
 * whole rotation (hyt_probe_root_scale), which every later window is scaled
 * by.  With HYTUNE_HOT_CALLS=auto the key turns hot late enough for it
 * (at least the rotation and 4 calls); with a number, only if that leaves
 * room; a rotation the plain windows span needs none.  Every input (roots,
 * sequence, settings) is the same on every rank. */
static void plan_reference(const hyt_comm_t *ctx, struct hyt_online_key *o)
{
    int rot = hyt_probe_root_rotation(o->root_step, ctx->size);
    int len = 1 + rot;
    /* a rotation the plain windows span, or no room before a fixed N */
    if (o->warm || rot > HYT_ROOT_REF_MAX || rot < o->window_plain ||
        (hyt_cfg.hot_calls >= 1 && o->hot < (uint64_t)len + o->n))
        return;
    /* the first reference of a key with a shortlist spans the rotation
     * twice (its calls run the incumbent, as every call before the search
     * does), which measures the noise of a call (hyt_probe_root_shrink),
     * for a rotation of at most HYT_ROOT_REF_TWICE_MAX calls and, with a
     * number N, when it fits before call N; a shortlist of one keeps one
     * rotation and its profile as timed */
    int first = len;
    if (o->nc > 1 && rot <= HYT_ROOT_REF_TWICE_MAX &&
        !(hyt_cfg.hot_calls >= 1 && o->hot < (uint64_t)(len + rot) + o->n))
        first = len + rot;
    o->loop_timed = 1;
    decide_period(ctx, o);
    if (o->hot < (uint64_t)first + o->n)
        o->hot = (uint64_t)first + o->n; /* auto */
    /* the reference and the fastest one (note_reference): planned alike on
     * every rank; a rank that cannot hold them says so at the first window
     * (room_agreed), before any is used */
    o->want_room = 1;
    if (window_room(o, first, 0) != 0 || !(o->ref = malloc((size_t)ctx->size * sizeof *o->ref)) ||
        !(o->best_ref = malloc((size_t)ctx->size * sizeof *o->best_ref))) {
        free(o->ref);
        o->ref = NULL;
        o->nomem = 1;
    }
    for (int r = 0; o->ref && r < ctx->size; r++)
        o->ref[r] = -1;
    if (o->period <= 1)
        o->fill = 1;
    o->window_reg = o->window;
    o->ref_len = len;
    o->window = first;
    o->ref_on = o->ref_phase = 1;
    o->window_from = o->hot - (uint64_t)first + 1;
}

/* Everything but the settled key's common call: kept out of line so the
 * fast path below needs no stack frame. */
static __attribute__((noinline)) int before_slow(hyt_comm_t *ctx, hyt_key_t *key,
                                                 const hyt_rule_t *rule, int root,
                                                 const hyt_alg_t **alg, int *k)
{
    struct hyt_online_key *o = key->ext;
    if (!o) {
        o = key_create(ctx, key, rule, *alg, *k);
        o->n++;
    }
    if (*alg != o->rule_alg) /* another rule inside this bucket: not ours */
        return 0;
    int back_to_back = o->last_seq && o->last_seq + 1 == ctx->seq;
    o->last_seq = ctx->seq;
    if (root >= 0 && ctx->size > 1)
        track_root(ctx, o, root);
    *alg = o->alg;
    if (o->state == ST_SETTLED) {
        *k = o->settled_k;
        if (o->n != o->next_drift)
            return 0;
        begin_window(o, ST_DRIFT, o->settled_k);
    } else if (o->state == ST_COUNT) {
        *k = o->k_start;
        if (o->period == 0 && o->n == 3 && o->root_steps == 2 && back_to_back &&
            o->n < o->window_from)
            plan_reference(ctx, o);
        if (o->n < o->window_from)
            return 0;
        /* at the key's first window: how its windows are timed (below),
         * and how long they are (which may move the key's hot call) */
        if (o->loop_timed < 0)
            o->loop_timed = back_to_back;
        if (o->period == 0)
            decide_period(ctx, o);
        if (o->n < o->window_from)
            return 0;
        if (o->want_room && !room_agreed(ctx, o)) {
            no_room(o, o->window);
            *alg = o->alg;
            *k = o->settled_k;
            return 0;
        }
        if (o->nc > 1 && o->chosen < 0) {
            choice_open(ctx, o, o->incumbent); /* the calls it ran so far */
            choice_begin(o);
        } else
            begin_window(o, ST_PROBE, o->k_start);
    } else if (o->state == ST_OFF) {
        *k = o->settled_k;
        return 0;
    }
    /* a root off the rotation: plain windows from the next window on */
    if ((o->period > 1 || o->ref_on) && o->rot_broken && o->nsamples == 0 && !o->pending) {
        o->period = 1;
        o->fill = 0;
        o->window = o->window_plain;
        free(o->ref);
        o->ref = NULL;
        o->ref_on = o->ref_phase = 0;
    }
    if (o->pending && ++o->misses > 2 * o->window) {
        give_up(o);
        *k = o->settled_k;
        return 0;
    }
    o->pending = 1;
    if (o->ref_on)
        o->roots[o->nsamples] = root;
    if (!o->ref_phase)
        o->probing_calls++;
    if (o->state == ST_CHOOSE && !o->ref_phase)
        o->choosing_calls++;
    *alg = o->alg;
    *k = o->k_run;
    /* Rooted collectives (Bcast, Reduce, Gather(v), Scatter(v)): a rank may
     * return long before the last rank has its data, so no rank's own
     * elapsed time shows when a call has ended everywhere; the timed calls
     * start after a barrier on the private duplicate.  Two cases, told apart at the key's first
     * window from the communicator's sequence of collectives (the same on
     * every rank) and kept for the key's life:
     * - back to back (the key's previous call was the communicator's
     *   previous collective): the calls pipeline (the root starts call i+1
     *   while call i still travels down the tree) and what the loop pays is
     *   the per-call time of the pipeline, not one call's latency.  One
     *   barrier starts the window (none right after the previous window's
     *   agreement, whose end is the start: hyt_probe_window_barrier); each
     *   rank records the end of each call since then; the agreement takes
     *   the maximum over ranks (when call i has ended everywhere) and the
     *   median of the increments (the first, carrying the pipeline's fill,
     *   is outvoted).
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
    /* A composition needs the communicator's node and leader communicators
     * (two MPI_Comm_split, made once): made here, before the timed call, so
     * that no window measures their cost.  Every rank runs the same
     * candidate in this window, so every rank makes them together.  A
     * communicator of one rank per node needs none (hyt_compose_flat). */
    if (makes_node_comms(ctx, o->alg))
        hyt_comm_node_split(ctx);
    if (!hyt_coll_has_root(o->alg->coll)) {
        /* no barrier */
    } else if (hyt_probe_window_barrier(o->loop_timed > 0, o->nsamples == 0, back_to_back,
                                        o->agreed_n, o->n)) {
        double t0 = PMPI_Wtime();
        if (ctx->size > 1)
            PMPI_Barrier(hyt_comm_priv(ctx));
        o->window_t0 = PMPI_Wtime();
        o->barrier_local = (o->nsamples ? o->barrier_local : 0) + o->window_t0 - t0;
    } else if (o->nsamples == 0) {
        /* loop-timed, right after the previous window's agreement: its end
         * is the window's common start (hyt_probe_window_barrier) */
        o->window_t0 = o->agreed_t;
        o->barrier_local = 0;
    }
    return 1;
}

int hyt_online_before(hyt_comm_t *ctx, hyt_key_t *key, const hyt_rule_t *rule, int root,
                      const hyt_alg_t **alg, int *k)
{
    struct hyt_online_key *o = key->ext;
    if (HYT_LIKELY(o && *alg == o->rule_alg)) {
        o->n++;
        if (HYT_LIKELY(o->state == ST_SETTLED && o->n != o->next_drift)) {
            *alg = o->alg;
            *k = o->settled_k;
            return 0;
        }
    }
    return before_slow(ctx, key, rule, root, alg, k);
}

/* The agreement's allreduce: the table's Allreduce rule for its size on
 * this communicator where the rule names one of hytune's algorithms whose
 * gains over MPI's own (measured, or predicted, by `hytune tune`) are
 * positive there and that needs no communicators of its own (a
 * composition's would be a set-up inside a window); else MPI's own (a
 * hand-written rule without gains is not trusted with it).  The table is
 * the same on every rank (src/agree.c), so every rank runs the same
 * schedule: the static rule, never the online state of the application's
 * Allreduce keys.  On dragonfly-64 a 64 B allreduce takes 1.55 us under
 * the table's recmult:8, 3.42 under SimGrid's MPICH selection
 * (docs/online.md, "Agreement"). */
static int agree_allreduce(hyt_comm_t *ctx, struct hyt_online_key *o, const double *in,
                           double *out, int n)
{
    hyt_args_t a = {.coll = HYT_COLL_ALLREDUCE, .sbuf = in, .rbuf = out, .count = n,
                    .type = MPI_DOUBLE, .op = MPI_MAX, .comm = hyt_comm_priv(ctx), .ctx = ctx,
                    .bytes = (size_t)n * sizeof *in};
    const hyt_rule_set_t *s = ctx->rules[HYT_COLL_ALLREDUCE];
    const hyt_rule_t *r = s ? hyt_rules_lookup(s, a.bytes) : NULL;
    int known = 0;
    o->agree_alg = NULL;
    if (!r || (r->alg->flags & (HYT_ALG_NATIVE | HYT_ALG_COMPOSITION)) ||
        !(hyt_rule_gain(r, ctx->size, a.bytes, &known) > 0 && known))
        return PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, a.comm);
    hyt_fallback_t fb;
    a.block = a.bytes;
    int rc = hyt_alg_run(&a, r->alg, r->k, &fb);
    if (fb == HYT_FB_NONE) {
        o->agree_alg = r->alg;
        o->agree_k = r->k;
    }
    return rc;
}

/* The agreement step: the per-call maximum over the ranks of the window
 * (one MPI_MAX allreduce of the window vector on the private duplicate),
 * then the median over the calls (rooted collectives: over the increments
 * of the calls' ends, see before_slow): the same value on every rank, as
 * is the window's relative spread (*spread), which widens the probing's
 * noise guard, and *fell_back: 1 if a call of the window went to PMPI on
 * any rank. */
static double agree(hyt_comm_t *ctx, struct hyt_online_key *o, double *spread, int *fell_back)
{
    int n = o->nsamples;
    double *v = o->global, t0 = PMPI_Wtime();
    o->samples[n] = o->check_local; /* the previous check's cost, agreed below */
    o->samples[n + 1] = o->fell_back;
    o->samples[n + 2] = o->own_sum / n;
    if (ctx->size == 1) {
        v = o->samples;
    } else if (agree_allreduce(ctx, o, o->samples, o->global, n + 3) != MPI_SUCCESS) {
        static int once;
        hyt_log_once(&once, HYT_LOG_WARN, HYT_TOPIC_ONLINE,
                     "agreement allreduce failed; probing decisions may stall");
        v = o->samples;
    }
    o->check_cost = v[n];
    *fell_back = v[n + 1] > 0;
    o->own_t = v[n + 2];
    o->own_sum = 0;
    /* this check's own cost (barrier of a rooted window, set in
     * before_slow; 0 for the others, plus this allreduce), agreed with the
     * next window */
    o->check_local = o->barrier_local + PMPI_Wtime() - t0;
    if (o->ref_phase) {
        /* the reference: each root's increment (the mean of two over a
         * rotation timed twice); its time their mean (no spread: the
         * increments differ by the root, and the noise of a call is taken
         * out of the profile instead) */
        double dd = 0;
        int nd = 0;
        for (int r = 0; r < ctx->size; r++)
            o->ref[r] = -1;
        for (int i = 1; i < n; i++) {
            double inc = v[i] - v[i - 1], *x = &o->ref[o->roots[i]];
            if (*x < 0) {
                *x = inc;
                continue;
            }
            dd += (inc - *x) * (inc - *x); /* a root's second call (rotation twice) */
            nd++;
            *x = 0.5 * (*x + inc);
        }
        o->ref_mean = n > 1 ? (v[n - 1] - v[0]) / (n - 1) : 0;
        /* the noise of one call: from the roots timed twice (the variance
         * of a difference is twice a call's), else as the key's first
         * reference measured it relative to its mean */
        if (nd > 0) {
            o->ref_noise = o->ref_mean > 0 ? sqrt(dd / (2.0 * nd)) / o->ref_mean : 0;
            /* the radix probe's windows, long enough for that noise
             * (within a reference's calls, which the buffers hold) */
            int wn = hyt_probe_noise_window(o->window_reg, o->period > 1 ? o->period : 1,
                                            o->fill, o->ref_noise, hyt_cfg.probe_min_gain,
                                            o->ref_len);
            o->window_noisy = wn > o->window_reg ? wn : 0;
            o->ext_n = 0;
        }
        double nv = o->ref_noise * o->ref_mean;
        hyt_probe_root_shrink(o->ref, ctx->size, nv * nv, nd > 0 ? 2 : 1);
        o->ref_calls += (uint64_t)n;
        o->ref_phase = 0;
        o->ref_cand = o->cur;
        o->ref_k = o->k_run;
        o->refs++;
        o->window = o->window_reg;
        *spread = 0;
        return o->ref_mean;
    }
    if (o->ref_on)
        return hyt_probe_window_periodic(v, n, o->fill, o->period > 1 ? o->period : 1, spread) *
               hyt_probe_root_scale(o->ref, ctx->size, o->ref_mean, o->roots + o->fill,
                                    n - o->fill);
    if (o->period > 1)
        return hyt_probe_window_periodic(v, n, o->loop_timed > 0 ? o->fill : 0, o->period, spread);
    return hyt_probe_window_time(v, n, o->loop_timed > 0, spread);
}

/* The settled key's time per call that its auto drift checks are budgeted
 * against: the settled level, except that a loop-timed window's time per
 * call holds whatever the application does between the calls (computation,
 * PMPI calls, other communicators' collectives): there, the calls alone
 * (settled_own) when shorter.  Both are agreed, so every rank
 * gets the same value. */
static double drift_base(const struct hyt_online_key *o)
{
    return o->loop_timed > 0 && o->settled_own > 0 && o->settled_own < o->settled_t
               ? o->settled_own
               : o->settled_t;
}

/* A settled key's next drift window: HYTUNE_DRIFT_INTERVAL calls from now,
 * or for auto an interval from the agreed check cost and drift_base. */
static void schedule_drift(struct hyt_online_key *o)
{
    o->drift_every = hyt_cfg.drift_interval >= 0
                         ? (uint64_t)hyt_cfg.drift_interval
                         : (uint64_t)hyt_probe_drift_calls(o->check_cost, drift_base(o),
                                                           o->n - o->last_settle);
    o->next_drift = o->drift_every ? o->n + o->drift_every : 0;
}

static void add_point(struct hyt_online_key *o, int k, point_kind_t kind, double t)
{
    if (o->npoints == MAX_POINTS) {
        o->points_dropped++;
        return;
    }
    o->points[o->npoints++] = (point_t){k, o->cur, kind, t, 0, o->own_t};
}

/* A reference just timed: the fastest so far is kept (its profile, mean,
 * candidate and radix) for the rotation check. */
static void note_reference(struct hyt_online_key *o)
{
    if (!o->best_ref) /* held by plan_reference on every rank (room_agreed) */
        return;
    if (o->best_mean >= 0 && !(o->ref_mean < o->best_mean)) /* a tie keeps the earlier */
        return;
    memcpy(o->best_ref, o->ref, (size_t)o->size * sizeof *o->ref);
    o->best_mean = o->ref_mean;
    o->best_cand = o->ref_cand;
    o->best_k = o->ref_k;
}

/* Back to the fastest reference: its candidate, radix and profile. */
static void restore_reference(struct hyt_online_key *o)
{
    memcpy(o->ref, o->best_ref, (size_t)o->size * sizeof *o->ref);
    o->ref_mean = o->best_mean;
    o->ref_cand = o->best_cand;
    o->ref_k = o->best_k;
    o->rot_reverts++;
    if (o->cur != o->best_cand) {
        o->chosen = o->best_cand;
        use_cand(o, o->best_cand);
    }
}

/* The settled radix's own time: its latest window's (the latest window
 * may have measured another radix). */
static void settled_own(struct hyt_online_key *o)
{
    o->settled_own = o->own_t;
    for (int i = o->npoints - 1; !o->points_dropped && i >= 0; i--)
        if (o->points[i].k == o->settled_k && o->points[i].cand == o->cur) {
            o->settled_own = o->points[i].own;
            break;
        }
}

static void rotation_check(struct hyt_online_key *o);

static void settle(struct hyt_online_key *o)
{
    o->settled_k = o->probe.best_k;
    o->settled_t = o->probe.best_t;
    o->settled_ref = 0;
    /* the settled k's own time: its latest window's (the latest window may
     * have measured another k) */
    settled_own(o);
    o->overhead += o->seg_sum_t - (double)o->seg_calls * o->settled_t;
    o->seg_sum_t = 0;
    o->seg_calls = 0;
    if (!o->settled_call)
        o->settled_call = o->n;
    o->last_settle = o->n;
    o->state = ST_SETTLED;
    schedule_drift(o);
    hyt_debug(HYT_TOPIC_ONLINE, "%s %s bucket settled at k=%d (%.3f us) after call %llu",
              hyt_coll_name(o->alg->coll), o->alg->name, o->settled_k, o->settled_t * 1e6,
              (unsigned long long)o->n);
    /* the first search's settle of a key with a shortlist is checked over
     * the whole rotation (rotation_check): at once when a reference ran it,
     * else after one more reference, of the settled radix (calls it runs
     * anyway); a shortlist of one keeps the radix probe's settle */
    if (o->nc < 2 || !o->ref_on || !o->best_ref || o->rot_checked || o->reprobes > 0)
        return;
    o->rot_checked = 1;
    if (o->cur == o->ref_cand && o->settled_k == o->ref_k) {
        rotation_check(o);
        return;
    }
    begin_window(o, ST_ROTATION, o->settled_k);
    o->ref_phase = 1;
    o->window = o->ref_len;
}

/* The first search's settle is checked over the whole rotation: its
 * windows saw a few roots each, scaled by the profile of another candidate
 * or radix, while a reference times every root.  When the fastest
 * reference so far is another candidate's or radix's and faster than the
 * settled one's by the guard (hyt_choice_rotation_back), the key goes back
 * to it. */
static void rotation_check(struct hyt_online_key *o)
{
    if (!o->ref_on) /* the root stopped rotating: plain windows, no reference */
        return;
    o->rot_checks++;
    if (o->best_mean < 0 || (o->cur == o->best_cand && o->settled_k == o->best_k) ||
        !hyt_choice_rotation_back(o->ref_mean, o->best_mean, o->probe.guard)) {
        o->settled_t = o->ref_mean; /* over the whole rotation, as the scaled windows */
        o->settled_ref = 1;
        return;
    }
    restore_reference(o);
    o->settled_k = o->best_k;
    o->settled_t = o->best_mean;
    o->settled_ref = 1;
    settled_own(o);
    schedule_drift(o);
}

/* One global window time t (relative spread s) of radix k, while probing. */
static void probe_window(struct hyt_online_key *o, int k, double t, double s, point_kind_t kind)
{
    if (kind == PT_PROBE) {
        o->seg_sum_t += t * o->window;
        o->seg_calls += o->window;
    }
    /* A noisy key (window_noisy): a radix window within the noise of its
     * calls' mean from the best goes on at the same radix until its calls
     * are window_noisy's (hyt_probe_noise_extend); its time is then the
     * mean over all its calls, and its spread theirs over the square root
     * of their count.  Every input is agreed. */
    int meas = o->window - o->fill;
    if (kind == PT_PROBE && o->window_noisy > 0 && meas > 0) {
        if (o->ext_n > 0) {
            t = (o->ext_t + t * meas) / (o->ext_n + meas);
            s /= sqrt((double)(o->ext_n + meas));
            o->ext_n = 0;
            o->ext_t = 0;
        } else if (hyt_probe_noise_extend(t, o->probe.best_t, o->ref_noise,
                                          hyt_cfg.probe_min_gain, meas,
                                          o->window_noisy - o->fill)) {
            o->ext_n = meas;
            o->ext_t = t * meas;
            o->extended++;
            begin_window(o, ST_PROBE, k);
            return;
        }
    }
    add_point(o, k, kind, t);
    int next = hyt_probe_feed_noisy(&o->probe, t, s);
    hyt_debug(HYT_TOPIC_ONLINE, "%s %s window k=%d: %.3f us, spread %.1f%%, noise guard %.1f%%",
              hyt_coll_name(o->alg->coll), o->alg->name, k, t * 1e6, 100 * s,
              100 * o->probe.guard);
    if (hyt_probe_settled(&o->probe))
        settle(o);
    else
        begin_window(o, ST_PROBE, next);
}

/* The choice is made: its winner's radix probe starts from the winner's
 * window (online/choose.h), or, with every candidate falling back to PMPI,
 * the key stops at the incumbent. */
static void choice_done(struct hyt_online_key *o)
{
    const hyt_choice_t *c = &o->choice;
    for (int i = 0; i < c->n; i++) {
        o->cand[o->cmap[i]].status = c->status[i];
        /* the window at the radix it stands at (the winner's, after a step) */
        o->cand[o->cmap[i]].t = c->status[i] != HYT_CAND_MEASURED ? -1
                                : i == c->best && c->stepped[i] ? c->t_step[i]
                                                                 : c->t[i];
        o->cand[o->cmap[i]].setup_call =
            c->status[i] == HYT_CAND_SETUP ? hyt_choice_setup_calls(c, i) : 0;
    }
    o->choices++;
    if (c->best < 0) {
        use_cand(o, o->cmap[0]);
        hyt_probe_start(&o->probe, o->k_start, o->k_min, o->k_max, hyt_cfg.probe_min_gain, 1);
        give_up(o);
        return;
    }
    int w = o->cmap[c->best];
    if (c->stepped[c->best]) { /* it won at its step: its radix probe starts there */
        o->cand[w].k = hyt_choice_radix(c, c->best, o->cand[w].k);
        o->cand[w].from = "choice";
    }
    if (o->chosen >= 0 && w != o->chosen)
        o->switches++;
    o->chosen = w;
    use_cand(o, w);
    hyt_debug(HYT_TOPIC_ONLINE, "%s bucket: %s chosen among %d candidates (%.3f us)",
              hyt_coll_name(o->alg->coll), o->alg->name, o->nc, c->best_t * 1e6);
    /* a reopening for a repaid set-up that the incumbent wins: nothing
     * drifted, so it stays settled at its radix (no radix probe again) */
    if (o->setup_reopen && c->best == 0) {
        o->setup_reopen = 0;
        o->state = ST_SETTLED;
        schedule_drift(o);
        return;
    }
    /* a reopening for a repaid set-up that another candidate wins, on one
     * window against the incumbent's reference (reopen_time): its settle
     * is checked over the whole rotation as the first search's is (a
     * reference of its settled radix against the fastest so far) */
    if (o->setup_reopen && o->settled_ref && o->reprobes == 0)
        o->rot_checked = 0;
    o->setup_reopen = 0;
    /* a winner without a radix (one k in range) settles on its window */
    int budget = o->k_min < o->k_max
                     ? probe_budget(o, (long)(o->choosing_calls - o->choice_from) +
                                           (o->choice_ref ? o->window : 0))
                     : 1;
    if (o->ref_on && o->ref_cand != w && budget > 1 && o->choices == 1) {
        /* its radixes are compared on its own profile over the rotation:
         * the probe's start window is a reference of the winner at its k
         * (calls it runs anyway once chosen) */
        hyt_probe_start(&o->probe, o->k_start, o->k_min, o->k_max, hyt_cfg.probe_min_gain,
                        budget);
        hyt_probe_hint(&o->probe, o->k_hint);
        hyt_probe_round_hint(&o->probe, o->k_round);
        begin_window(o, ST_PROBE, o->k_start);
        o->ref_phase = 1;
        o->window = o->ref_len;
        return;
    }
    int next = hyt_choice_probe_start(c, &o->probe, o->k_start, o->k_min, o->k_max,
                                      hyt_cfg.probe_min_gain, budget, o->k_hint, o->k_round);
    if (hyt_probe_settled(&o->probe))
        settle(o);
    else
        begin_window(o, ST_PROBE, next);
}

/* After a choice window: the next candidate's window (next >= 0, what
 * hyt_choice_feed or hyt_choice_unsupported returned), or the choice ends. */
static void choice_next(struct hyt_online_key *o, int next)
{
    if (next >= 0)
        choice_begin(o);
    else
        choice_done(o);
}

/* One global window time t (relative spread s) of the candidate o->cur,
 * while choosing; fell_back: its calls went to PMPI on some rank. */
static void choice_window(struct hyt_online_key *o, double t, double s, int fell_back)
{
    add_point(o, o->k_run, PT_CHOICE, fell_back ? -1 : t);
    if (o->choice.windows > 0 && !fell_back) { /* the first window runs what would run anyway */
        o->seg_sum_t += t * o->window;
        o->seg_calls += o->window;
    }
    o->choice.calls = (double)o->n;
    int next = fell_back ? hyt_choice_unsupported(&o->choice) : hyt_choice_feed(&o->choice, t, s);
    hyt_debug(HYT_TOPIC_ONLINE, "%s choice window %s:%d: %.3f us%s",
              hyt_coll_name(o->alg->coll), o->alg->name, o->k_run, t * 1e6,
              fell_back ? " (went to PMPI: unsupported)" : "");
    choice_next(o, next);
}

/* The reopened choice's incumbent time (hyt_choice_reopen_time): after
 * a confirmed drift (first: its slow window) the mean of its two windows,
 * else the settled radix's reference over the whole rotation where the key
 * has one, else the drift window t; all agreed. */
static double reopen_time(const struct hyt_online_key *o, double t, double first)
{
    return hyt_choice_reopen_time(o->settled_ref ? o->settled_t : -1, t, first);
}

/* Reopen the choice with the winner, at its settled radix, as the
 * incumbent, and time t (reopen_time; the drift window's spread s) its
 * measurement. */
static void choice_reopen(const hyt_comm_t *ctx, struct hyt_online_key *o, double t, double s)
{
    o->cand[o->cur].k = o->settled_k;
    o->cand[o->cur].from = "settled";
    choice_open(ctx, o, o->cur);
    choice_next(o, hyt_choice_feed(&o->choice, t, s));
}

/* A passing drift window t (spread s) of a settled key whose latest choice
 * skipped a candidate for its set-up: would the choice, reopened now with
 * the winner as its incumbent and this window its measurement, measure
 * such a candidate (its set-up repaid by the key's calls at the winner's
 * time now, or the communicators made since by another key)?  A pure
 * look at a scratch choice: the same on every rank. */
static int setup_due(const hyt_comm_t *ctx, const struct hyt_online_key *o, double t, double s)
{
    if (o->nc < 2 || o->chosen < 0)
        return 0;
    int gated[HYT_CHOICE_MAX] = {0}, any = 0;
    for (int c = 0; c < o->choice.n; c++)
        if (o->choice.status[c] == HYT_CAND_SETUP)
            any = gated[o->cmap[c]] = 1;
    if (!any)
        return 0;
    hyt_choice_t ch;
    int cmap[HYT_CHOICE_MAX];
    choice_init(ctx, o, o->cur, &ch, cmap);
    hyt_choice_feed(&ch, reopen_time(o, t, -1), s);
    for (int c = 1; c < ch.n; c++)
        if (gated[cmap[c]] && ch.status[c] != HYT_CAND_SKIPPED &&
            hyt_choice_setup_repaid(&ch, c, ch.calls))
            return 1;
    return 0;
}

static void drift_window(const hyt_comm_t *ctx, struct hyt_online_key *o, double t, double s)
{
    o->drift_checks++;
    int drifted = hyt_probe_drifted(o->settled_t, t, DRIFT_FACTOR);
    if (drifted && !o->confirming) {
        /* one slow window may be a passing disturbance (another key's
         * probing, a neighbour's burst): a second window right away must
         * agree before probing restarts */
        o->confirming = 1;
        o->drift_first = t;
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
        o->settled_own = o->own_t; /* this window ran the settled k */
        if (setup_due(ctx, o, t, s)) {
            /* a candidate skipped for its set-up may be measured now: the
             * choice reopens as after a drift */
            o->setup_opens++;
            o->setup_reopen = 1;
            choice_reopen(ctx, o, reopen_time(o, t, -1), s);
            return;
        }
        o->state = ST_SETTLED;
        schedule_drift(o);
        return;
    }
    o->reprobes++;
    o->reprobe_call = o->n;
    if (o->nc > 1) {
        /* the choice reopens: the winner, at its settled radix, is the
         * incumbent, and the drift window its measurement */
        add_point(o, o->settled_k, PT_DRIFT, t);
        choice_reopen(ctx, o, reopen_time(o, t, o->drift_first), s);
        return;
    }
    hyt_probe_start(&o->probe, o->settled_k, o->k_min, o->k_max, hyt_cfg.probe_min_gain,
                    probe_budget(o, 0));
    hyt_probe_hint(&o->probe, o->k_hint);
    hyt_probe_round_hint(&o->probe, o->k_round);
    probe_window(o, o->settled_k, t, s, PT_DRIFT); /* the drift window is the new start */
}

void hyt_online_after(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int k,
                      double seconds, int fell_back)
{
    struct hyt_online_key *o = key->ext;
    if (!o || alg != o->alg || !o->pending)
        return;
    /* outside a choice a call that went to PMPI is a miss: the key stops
     * probing after a few (before_slow) */
    if (fell_back && o->state != ST_CHOOSE)
        return;
    o->pending = 0;
    o->misses = 0;
    if (k != o->k_run)
        return;
    o->fell_back |= fell_back != 0;
    o->samples[o->nsamples++] = o->loop_timed > 0 ? PMPI_Wtime() - o->window_t0 : seconds;
    o->own_sum += seconds;
    if (o->nsamples < o->window)
        return;
    int fb, was_ref = o->ref_phase;
    double s, t = agree(ctx, o, &s, &fb);
    o->nsamples = 0;
    o->agreed_n = o->n;
    o->agreed_t = PMPI_Wtime();
    if (was_ref)
        note_reference(o);
    if (o->state == ST_ROTATION) {
        o->rot_refs += was_ref;
        add_point(o, o->k_run, PT_ROTATION, t);
        o->settled_own = o->own_t;
        o->state = ST_SETTLED;
        rotation_check(o);
        schedule_drift(o);
        return;
    }
    if (o->state == ST_CHOOSE) {
        if (o->choice.windows == 0)
            o->choice_ref = was_ref;
        choice_window(o, t, s, fb);
    } else if (o->state == ST_DRIFT)
        drift_window(ctx, o, t, s);
    else
        probe_window(o, o->k_run, t, s, o->probe.windows == 0 ? PT_START : PT_PROBE);
}

void hyt_online_key_free(hyt_key_t *key)
{
    struct hyt_online_key *o = key ? key->ext : NULL;
    if (!o)
        return;
    hyt_small_free(o->samples);
    hyt_small_free(o->roots);
    free(o->ref);
    free(o->best_ref);
    hyt_small_free(o);
    key->ext = NULL;
}

int hyt_online_key_settled(const hyt_key_t *key, int *k)
{
    const struct hyt_online_key *o = key->ext;
    if (!o)
        return -1;
    if (o->state != ST_SETTLED && o->state != ST_DRIFT && o->state != ST_ROTATION)
        return 0;
    *k = o->settled_k;
    return 1;
}

/* Calls from the key turning hot to its first settle (negative: settled
 * before turning hot, as a warm start or tiny HYTUNE_HOT_CALLS can). */
static long long calls_after_hot(const struct hyt_online_key *o)
{
    return (long long)o->settled_call - (long long)o->hot;
}

int hyt_online_key_info(const hyt_key_t *key, hyt_online_info_t *info)
{
    const struct hyt_online_key *o = key->ext;
    if (!o)
        return -1;
    info->start_k = o->k_start;
    info->settled_k = o->settled_call ? o->settled_k : 0;
    info->settled_us = o->settled_call ? o->settled_t * 1e6 : 0;
    info->settled_call = (long long)o->settled_call;
    info->hot_calls = (long long)o->hot;
    info->calls_after_hot = o->settled_call ? calls_after_hot(o) : 0;
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
    info->drift_call_us = o->settled_call ? drift_base(o) * 1e6 : 0;
    info->drift_check_us = o->check_cost * 1e6;
    info->alg_now = o->alg->name;
    info->candidates = o->nc;
    info->chosen = o->chosen >= 0 ? o->cand[o->chosen].alg->name : NULL;
    info->choosing_calls = (long long)o->choosing_calls;
    info->choices = o->choices;
    info->switches = o->switches;
    info->reference_calls = (long long)o->ref_calls;
    int after = o->refs - 1 - o->rot_refs; /* the first before hot, the check's after the settle */
    info->reference_after_hot = after > 0 ? (long long)after * o->ref_len : 0;
    return 0;
}

static const char *cand_status_name(hyt_cand_status_t st)
{
    static const char *const names[] = {"not measured", "measured", "unsupported", "skipped",
                                        "set-up not repaid"};
    return names[st];
}

/* How a rooted key's windows are timed ("" for the others). */
static const char *timing_name(const struct hyt_online_key *o)
{
    static char buf[256];
    const char *t = o->loop_timed > 0 ? "loop-timed"
                    : o->loop_timed == 0 && hyt_coll_has_root(o->alg->coll) ? "timed per call"
                                                                            : NULL;
    if (!t)
        return "";
    char ref[128] = "";
    if (o->ref_on) {
        int tn = (int)lround(1000 * (o->ref_noise < 9.999 ? o->ref_noise : 9.999));
        int n = snprintf(ref, sizeof ref,
                         ", scaled by %d-call references of the root's rotation: %d, noise %d.%d%%",
                         o->ref_len, o->refs, tn / 10, tn % 10);
        if (o->window_noisy > 0 && n > 0 && (size_t)n < sizeof ref)
            snprintf(ref + n, sizeof ref - (size_t)n,
                     ", radix windows within the noise to %d calls: %d", o->window_noisy - o->fill,
                     o->extended);
    }
    if (o->period > 1)
        snprintf(buf, sizeof buf, " (%s, root period %d: %d-call windows%s)", t, o->period,
                 o->window, ref);
    else
        snprintf(buf, sizeof buf, " (%s%s)", t, ref);
    return buf;
}

void hyt_online_key_report(const hyt_key_t *key, FILE *out)
{
    const struct hyt_online_key *o = key->ext;
    if (!o)
        return;
    if (o->nc > 1) {
        fprintf(out, "   %-22s   choice among %d (%s shortlist):", "", o->nc, o->cand_from);
        for (int i = 0; i < o->nc; i++) {
            const cand_t *c = &o->cand[i];
            fprintf(out, " %s%s:%d", i == o->chosen ? "*" : "", c->alg->name, c->k);
            if (c->t >= 0)
                fprintf(out, " %.2fus", c->t * 1e6);
            else if (c->status != HYT_CAND_PENDING)
                fprintf(out, " %s", cand_status_name(c->status));
        }
        fprintf(out, "\n   %-22s   chosen %s, %llu calls choosing, %d choices, %d switches", "",
                o->chosen >= 0 ? o->cand[o->chosen].alg->name : "(none yet)",
                (unsigned long long)o->choosing_calls, o->choices, o->switches);
        if (o->setup_opens)
            fprintf(out, ", %d reopened for a repaid set-up", o->setup_opens);
        fputc('\n', out);
    }
    fprintf(out, "   %-22s   online %s%s: hot after %llu calls%s, start k=%d (%s), prior k=%d, probes",
            "", o->alg->name, timing_name(o), (unsigned long long)o->hot,
            hyt_cfg.hot_calls < 0 ? " (auto)" : "", o->k_start, o->start_from, o->k_hint);
    for (int i = 0; i < o->npoints; i++) {
        const point_t *pt = &o->points[i];
        if (pt->kind == PT_CHOICE) {
            fprintf(out, " %s:%d:", o->cand[pt->cand].alg->name, pt->k);
            if (pt->t < 0)
                fprintf(out, "unsupported");
            else
                fprintf(out, "%.2fus", pt->t * 1e6);
            continue;
        }
        fprintf(out, " %s%d:%.2fus",
                o->points[i].kind == PT_DRIFT      ? "drift@"
                : o->points[i].kind == PT_ROTATION ? "rotation@"
                                                   : "",
                o->points[i].k, o->points[i].t * 1e6);
        if (o->points[i].checks > 1)
            fprintf(out, "(x%d)", o->points[i].checks);
    }
    if (o->points_dropped)
        fprintf(out, " (+%d more)", o->points_dropped);
    fprintf(out, "\n   %-22s   %s", "", state_names[o->state]);
    if (o->state == ST_OFF && o->off_reason)
        fprintf(out, " (%s)", o->off_reason);
    if (o->settled_call)
        fprintf(out, ", settled k=%d at %.2f us, %lld calls after hot", o->settled_k,
                o->settled_t * 1e6, calls_after_hot(o));
    fprintf(out, ", %llu probing calls, overhead %.2f us, %d drift checks, %d re-probes",
            (unsigned long long)o->probing_calls, o->overhead * 1e6, o->drift_checks, o->reprobes);
    if (o->rot_checks)
        fprintf(out, ", %d rotation checks (%d went back)", o->rot_checks, o->rot_reverts);
    if (o->agree_alg) {
        fprintf(out, ", agreed by %s", o->agree_alg->name);
        if (hyt_alg_has_radix(o->agree_alg))
            fprintf(out, ":k=%d", o->agree_k);
        fprintf(out, " (the table's Allreduce)");
    }
    if (o->settled_call && o->drift_every)
        fprintf(out, ", drift check every %llu calls%s", (unsigned long long)o->drift_every,
                hyt_cfg.drift_interval < 0 ? " (auto)" : "");
    fputc('\n', out);
}

void hyt_online_key_json(const hyt_key_t *key, struct json_object *obj)
{
    const struct hyt_online_key *o = key->ext;
    if (!o)
        return;
    json_object *j = json_object_new_object(), *seq = json_object_new_array();
    json_object_object_add(j, "algorithm", json_object_new_string(o->alg->name));
    json_object_object_add(j, "state", json_object_new_string(state_names[o->state]));
    if (o->state == ST_OFF && o->off_reason)
        json_object_object_add(j, "off_reason", json_object_new_string(o->off_reason));
    if (hyt_coll_has_root(o->alg->coll) && o->loop_timed >= 0)
        json_object_object_add(j, "timing",
                               json_object_new_string(o->loop_timed ? "loop" : "per call"));
    if (o->period > 1)
        json_object_object_add(j, "root_period", json_object_new_int(o->period));
    if (o->ref_on) {
        json_object_object_add(j, "root_reference_calls", json_object_new_int(o->ref_len));
        json_object_object_add(j, "root_references", json_object_new_int(o->refs));
        json_object_object_add(j, "root_reference_noise", json_object_new_double(o->ref_noise));
        json_object_object_add(j, "radix_window_noise_calls",
                               json_object_new_int(o->window_noisy > 0 ? o->window_noisy - o->fill
                                                                       : 0));
        json_object_object_add(j, "radix_windows_extended", json_object_new_int(o->extended));
        if (o->nc > 1) {
            json_object_object_add(j, "rotation_checks", json_object_new_int(o->rot_checks));
            json_object_object_add(j, "rotation_reverts", json_object_new_int(o->rot_reverts));
        }
    }
    json_object_object_add(j, "k_min", json_object_new_int(o->k_min));
    json_object_object_add(j, "k_max", json_object_new_int(o->k_max));
    json_object_object_add(j, "hot_calls", json_object_new_int64((int64_t)o->hot));
    json_object_object_add(j, "start_k", json_object_new_int(o->k_start));
    json_object_object_add(j, "start_from", json_object_new_string(o->start_from));
    json_object_object_add(j, "hint_k", json_object_new_int(o->k_hint));
    for (int i = 0; i < o->npoints; i++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "k", json_object_new_int(o->points[i].k));
        json_object_object_add(p, "time_us", json_object_new_double(o->points[i].t * 1e6));
        json_object_object_add(p, "kind", json_object_new_string(kind_names[o->points[i].kind]));
        if (o->nc > 1)
            json_object_object_add(p, "algorithm",
                                   json_object_new_string(o->cand[o->points[i].cand].alg->name));
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
    json_object_object_add(j, "agreement",
                           json_object_new_string(o->agree_alg ? o->agree_alg->name : "native"));
    json_object_object_add(j, "agreement_k",
                           o->agree_alg && hyt_alg_has_radix(o->agree_alg)
                               ? json_object_new_int(o->agree_k)
                               : NULL);
    json_object_object_add(j, "drift_call_us",
                           o->settled_call ? json_object_new_double(drift_base(o) * 1e6) : NULL);
    if (o->nc > 1) {
        json_object *cs = json_object_new_array();
        for (int i = 0; i < o->nc; i++) {
            const cand_t *c = &o->cand[i];
            json_object *co = json_object_new_object();
            json_object_object_add(co, "algorithm", json_object_new_string(c->alg->name));
            json_object_object_add(co, "k", json_object_new_int(c->k));
            json_object_object_add(co, "predicted_us",
                                   c->pred >= 0 ? json_object_new_double(c->pred) : NULL);
            json_object_object_add(co, "spread_us",
                                   c->sd >= 0 ? json_object_new_double(c->sd) : NULL);
            json_object_object_add(co, "status",
                                   json_object_new_string(cand_status_name(c->status)));
            json_object_object_add(co, "time_us",
                                   c->t >= 0 ? json_object_new_double(c->t * 1e6) : NULL);
            if (c->setup_us > 0) /* the set-up gate's price, and when it opens */
                json_object_object_add(co, "setup_us", json_object_new_double(c->setup_us));
            if (c->status == HYT_CAND_SETUP)
                json_object_object_add(co, "setup_repaid_call",
                                       c->setup_call < 1e18
                                           ? json_object_new_int64((int64_t)ceil(c->setup_call))
                                           : NULL);
            json_object_array_add(cs, co);
        }
        json_object_object_add(j, "shortlist_from", json_object_new_string(o->cand_from));
        json_object_object_add(j, "candidates", cs);
        json_object_object_add(j, "chosen_algorithm",
                               o->chosen >= 0 ? json_object_new_string(o->cand[o->chosen].alg->name)
                                              : NULL);
        json_object_object_add(j, "choosing_calls",
                               json_object_new_int64((int64_t)o->choosing_calls));
        json_object_object_add(j, "choices", json_object_new_int(o->choices));
        json_object_object_add(j, "switches", json_object_new_int(o->switches));
        json_object_object_add(j, "setup_opens", json_object_new_int(o->setup_opens));
    }
    json_object_object_add(obj, "online", j);
}

/* The core's slots this layer fills, when the library loads (before
 * MPI_Init's settings step and before the core holds a key): the settings
 * slot (the warm start), the call slot (before and after a call hybrid mode
 * tunes) and the key-extension slot (free and report a key's state). */
HYT_CONSTRUCTOR static void online_load(void)
{
    static const hyt_settings_ext_t settings = {.item = warm_item, .apply = warm_apply};
    static const hyt_call_hooks_t call = {
        .before = hyt_online_before, .after = hyt_online_after, .finalize = online_finalize};
    hyt_settings_ext_register(&settings);
    hyt_call_hooks_register(&call);
    hyt_key_ext_register(&ext_hooks);
}
