/* Online component: hot-collective counting and radix probing (hybrid mode).
 * The core runs these around every collective whose selected algorithm has
 * a radix, through the call slot this layer registers; everything that
 * decides must be a pure function of inputs that are identical on every
 * rank. */
#ifndef HYT_ONLINE_H
#define HYT_ONLINE_H

#include "src/hyt.h"

/* This layer registers itself in the core's slots when the library loads
 * (online/online.c: online_load): its settings slot (src/agree.h: its warm
 * start, HYTUNE_WARM_START, read and agreed at MPI_Init), the call slot
 * (src/hyt.h: hyt_online_before and hyt_online_after around a call) and the
 * key-extension slot; the core names none of its functions. */
/* Before a call of key with the statically selected (*alg, *k) from rule
 * (NULL: no table rule covers the key; the built-in shortlist applies) and
 * the call's root (rooted collectives; -1 for the others):
 * may replace *k, and on a key whose rule has a shortlist *alg too (hybrid
 * mode, hot key).  Returns 1 if the call must be timed and passed to
 * hyt_online_after. */
int hyt_online_before(hyt_comm_t *ctx, hyt_key_t *key, const hyt_rule_t *rule, int root,
                      const hyt_alg_t **alg, int *k);
/* After a timed call of (alg, k): local elapsed seconds of this rank, and
 * whether the call went to PMPI instead (the algorithm could not take it). */
void hyt_online_after(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int k,
                      double seconds, int fell_back);
/* Candidates of the built-in shortlist for collective c (the MPI library's
 * own first); 1 when there is none to choose from. */
int hyt_online_builtin_count(hyt_coll_t c);
/* Its candidate i (0 <= i < hyt_online_builtin_count(c)). */
const hyt_alg_t *hyt_online_builtin(hyt_coll_t c, int i);
void hyt_online_key_free(hyt_key_t *key);
/* For tests and tools: 1 if the key is settled (its radix in *k; also while
 * a drift check runs that radix), 0 if it is counting or probing, -1 if
 * online tuning never took it. */
int hyt_online_key_settled(const hyt_key_t *key, int *k);

/* A key's probing record in numbers (for benchmarks and tools). */
typedef struct hyt_online_info {
    int start_k, settled_k;     /* settled_k 0: never settled */
    double settled_us;          /* global window time at the settled k */
    long long settled_call;     /* call of the first settle (0: never) */
    long long hot_calls;        /* the call after which the key turned hot (HYTUNE_HOT_CALLS) */
    long long calls_after_hot;  /* settled_call - hot_calls */
    long long probing_calls;    /* calls timed for probing and drift checks */
    double overhead_us;         /* sum over probe calls of (time - settled time) */
    int reprobes;
    int k_now;                  /* radix of the key's next call */
    const char *state;          /* "counting", "probing", "settled", "drift check", "off" */
    long long last_settle_call; /* call of the latest settle (0: never) */
    long long reprobe_call;     /* call whose drift window started the latest re-probe (0: none) */
    int loop_timed;             /* Bcast/Reduce windows timed as a back-to-back loop */
    long long drift_every;      /* calls between drift checks now (0: none or not settled) */
    double drift_call_us;       /* time per call the auto interval budgets 2% of (0: not settled) */
    double drift_check_us;      /* agreed cost of the latest check (barrier and agreement) */
    const char *alg_now;        /* algorithm of the key's next call */
    int candidates;             /* shortlist length (1: radix only) */
    const char *chosen;         /* algorithm the latest choice picked (NULL: none yet) */
    long long choosing_calls;   /* calls timed while choosing among the shortlist */
    int choices, switches;      /* choices made (drift reopens them); winners that changed */
    long long reference_calls;  /* calls timed in references of a rotating root's rotation
                                 * (not counted as choosing or probing) */
    long long reference_after_hot; /* of them after the key turned hot, before its
                                    * first settle (the winner's; not the rotation check's) */
} hyt_online_info_t;
/* 0 and *info filled, or -1 if online tuning never took the key. */
int hyt_online_key_info(const hyt_key_t *key, hyt_online_info_t *info);
/* Stats dump (the core calls them through the key-extension hooks this
 * component registers, src/hyt.h): append the key's online state (start k,
 * probe sequence, settled k, probing cost, re-probes) to the human report /
 * JSON object. */
void hyt_online_key_report(const hyt_key_t *key, FILE *out);
struct json_object;
void hyt_online_key_json(const hyt_key_t *key, struct json_object *obj);

#endif
