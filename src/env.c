/* Every HYTUNE_* variable in one typed table: name, type, default, help.
 * Read once at init; `hytune info --env` prints the table.  A bad value keeps
 * the default and gets one warning naming the variable and the valid values;
 * an unknown HYTUNE_* name gets one warning with the closest known name.
 * Every variable must have the same value on all ranks. */
#include "hyt.h"
#include "src/agree.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

hyt_config_t hyt_cfg = {
    .mode = HYT_MODE_HYBRID,
    .log_level = HYT_LOG_WARN,
    .log_topics = HYT_TOPIC_ALL,
    .hot_calls = -1, /* auto */
    .probe_calls = 3,
    .probe_min_gain = 0.02,
    .drift_interval = -1, /* auto */
    .stats_signals = 1u << SIGTERM | 1u << SIGUSR1,
    .scratch_max = 64L << 20,
    .test_kernel_fail = -1,
};

typedef enum { T_STRING, T_CHOICE, T_LONG, T_BYTES, T_DOUBLE, T_TOPICS, T_RANKS, T_SIGNALS } env_type_t;

/* Which ranks must agree on a variable (compared at init by src/agree.c):
 *   S_ALL_EQ   its value selects behaviour: every rank must have the same
 *              (compared by value; on a difference every rank takes the default)
 *   S_CONTENT  compared by what it makes the rank do (the mode in force, the
 *              table or warm start as loaded, the forced algorithm as parsed:
 *              src/settings.c)
 *   S_LOCAL    only this rank's output, or agreed elsewhere */
typedef enum { S_ALL_EQ, S_CONTENT, S_LOCAL } env_scope_t;

typedef struct env_var {
    const char *name;
    env_type_t type;
    void *dest;
    const char *def;     /* default, in the user's grammar */
    const char *choices; /* T_CHOICE: "a|b|c"; T_LONG/T_DOUBLE: "min..max" */
    const char *help;
    env_scope_t scope;
} env_var_t;

#define FORCE_VAR(U, l, M, P)                                                                  \
    {"HYTUNE_FORCE_" #U, T_STRING, &hyt_cfg.force[HYT_COLL_##U], NULL, NULL,                   \
     "force an algorithm for MPI_" #M ": name or name:k (see `hytune list`); "                 \
     "beats online choice and table", S_CONTENT},

static const env_var_t vars[] = {
    {"HYTUNE_MODE", T_CHOICE, &hyt_cfg.mode, "hybrid", "off|offline|hybrid",
     "off: pure pass-through to MPI; offline: apply the table; hybrid: table plus online "
     "radix tuning of hot collectives", S_CONTENT},
    {"HYTUNE_TABLE", T_STRING, &hyt_cfg.table, NULL, NULL,
     "selection table written by `hytune tune` (JSON, docs/table-format.md); unset: MPI's own selection",
     S_CONTENT},
    {"HYTUNE_STATS", T_STRING, &hyt_cfg.stats, NULL, NULL,
     "statistics at finalize: stderr, stdout or a path (%j: job id, %r: rank); a path also "
     "gets PATH.json", S_LOCAL},
    {"HYTUNE_STATS_SIGNALS", T_SIGNALS, &hyt_cfg.stats_signals, "TERM,USR1",
     "none|TERM,INT,HUP,USR1,USR2,XCPU",
     "signals on which the statistics are written before the signal takes its course "
     "(a job killed at its time limit keeps them): none or a comma list", S_LOCAL},
    {"HYTUNE_LOG", T_CHOICE, &hyt_cfg.log_level, "warn", "error|warn|info|debug",
     "log level (warnings and info come from rank 0 unless HYTUNE_LOG_RANKS=all)", S_LOCAL},
    {"HYTUNE_LOG_TOPICS", T_TOPICS, &hyt_cfg.log_topics, "all", "core,table,alg,topo,online,tune",
     "comma-separated topics to log, or all", S_LOCAL},
    {"HYTUNE_LOG_RANKS", T_RANKS, &hyt_cfg.log_all_ranks, "0", "0|all",
     "which ranks log warnings and info: 0 (rank 0 only) or all; errors: every rank", S_LOCAL},
    HYT_COLL_LIST(FORCE_VAR)
    {"HYTUNE_HOT_CALLS", T_LONG, &hyt_cfg.hot_calls, "auto", "auto|1..1000000000",
     "calls of one (communicator, collective, size bucket) before hybrid mode tunes it; auto: "
     "three times the calls its search can time (its shortlist's windows and the radix "
     "probe's), at least 16, so a key called too few times to repay the search keeps the "
     "table's choice",
     S_ALL_EQ},
    {"HYTUNE_PROBE_CALLS", T_LONG, &hyt_cfg.probe_calls, "3", "1..1000",
     "calls timed per probed radix (the median decides)",
     S_ALL_EQ},
    {"HYTUNE_PROBE_MIN_GAIN", T_DOUBLE, &hyt_cfg.probe_min_gain, "0.02", "0..1",
     "relative gain a new radix must show to be taken (noise guard)",
     S_ALL_EQ},
    {"HYTUNE_PROBE_K_MAX", T_LONG, &hyt_cfg.probe_k_max, "0", "0..65536",
     "largest radix online probing tries (0: the algorithm's own limit); a table's or warm "
     "start's larger k is kept",
     S_ALL_EQ},
    {"HYTUNE_BUILTIN_SHORTLIST", T_CHOICE, &hyt_cfg.builtin_shortlist, "off", "off|on",
     "on: hybrid mode chooses the algorithm of hot keys no table rule covers among a "
     "built-in shortlist (the MPI library's own first; docs/online.md)",
     S_ALL_EQ},
    {"HYTUNE_DRIFT_INTERVAL", T_LONG, &hyt_cfg.drift_interval, "auto", "auto|0..1000000000",
     "calls between drift checks of a settled key; auto: as often as keeps the checks' "
     "measured cost near 2% of the key's time, or every eighth of the calls since it "
     "settled when that is rarer (16..1000 calls); 0: never re-check",
     S_ALL_EQ},
    /* node facts are agreed by the topology (the smallest of each over the ranks) */
    {"HYTUNE_NODE_HW", T_STRING, &hyt_cfg.node_hw, NULL, NULL,
     "node hardware override, e.g. ports=4,gpus=0 (for simulation or when hwloc sees none)",
     S_LOCAL},
    /* read by world rank 0 only */
    {"HYTUNE_NETWORK_FILE", T_STRING, &hyt_cfg.network_file, NULL, NULL,
     "network groups: one `host group/path` line per host (see docs/topology.md)",
     S_LOCAL},
    {"HYTUNE_WARM_START", T_STRING, &hyt_cfg.warm_start, NULL, NULL,
     "stats JSON of an earlier run: hybrid mode starts its keys at the settled radix",
     S_CONTENT},
    {"HYTUNE_SCRATCH_MAX", T_BYTES, &hyt_cfg.scratch_max, "64M", "1.. bytes, K/M/G suffixes (powers of 1024)",
     "most scratch memory hytune's algorithms hold per communicator and rank; a call whose "
     "algorithm needs more runs MPI's own collective on every rank (docs/memory.md)",
     S_ALL_EQ},
    {"HYTUNE_TEST_KERNEL_FAIL", T_LONG, &hyt_cfg.test_kernel_fail, "-1", "-1..2147483647",
     "for testing only: memory cannot be allocated on this world rank "
     "(HYTUNE_TEST_KERNEL_FAIL_AT says where); -1: none",
     S_LOCAL},
    {"HYTUNE_TEST_KERNEL_FAIL_AT", T_CHOICE, &hyt_cfg.test_kernel_fail_at, "reserve",
     "reserve|kernel|node|online|ctx|nodemodel|key|onlinekey|init|emergency|spent|warm",
     "for testing only: reserve: that rank's scratch cannot grow (every rank runs MPI's own "
     "collective); kernel: the kernel's own request fails after the ranks agreed (the call "
     "returns MPI_ERR_NO_MEM through the communicator's error handler); node: the node "
     "model's memory at MPI_Init (every rank runs off); online: a rooted key's window and "
     "reference buffers (every rank keeps the key on its table choice); ctx, nodemodel, key, "
     "onlinekey, init: a communicator's context, its node model, a key, an online key, "
     "MPI_Init's settings exchange (served from the emergency reserve); emergency: the "
     "reserve itself (every rank runs off); spent: the reserve is empty and a key's "
     "allocation fails (the job stops with one message); warm: an entry of HYTUNE_WARM_START "
     "(every rank starts without warm start)",
     S_LOCAL},
};
#define NVARS ((int)(sizeof vars / sizeof vars[0]))

/* Variables whose value hyt_env_init could not parse (the default was kept). */
static unsigned char bad[NVARS];

static const char *const topic_names[] = {"core", "table", "alg", "topo", "online", "tune"};

static const struct {
    const char *name;
    int sig;
} signal_names[] = {{"TERM", SIGTERM}, {"INT", SIGINT},   {"HUP", SIGHUP},
                    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"XCPU", SIGXCPU}};

/* Bit of a signal name (SIG prefix optional), -1 if unknown. */
static int signal_bit(const char *tok)
{
    if (strncmp(tok, "SIG", 3) == 0)
        tok += 3;
    for (int i = 0; i < (int)(sizeof signal_names / sizeof signal_names[0]); i++)
        if (strcmp(tok, signal_names[i].name) == 0)
            return signal_names[i].sig;
    return -1;
}

/* One choice list entry at a time: returns the index of s in "a|b|c" or -1. */
static int choice_index(const char *choices, const char *s)
{
    int idx = 0;
    size_t n = strlen(s);
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0)
            return idx;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

int hyt_env_parse_mode(const char *s, hyt_mode_t *m)
{
    int i = choice_index("off|offline|hybrid", s);
    if (i < 0)
        return -1;
    *m = (hyt_mode_t)i;
    return 0;
}

static int topic_bit(const char *tok)
{
    for (int i = 0; i < (int)(sizeof topic_names / sizeof topic_names[0]); i++)
        if (strcmp(tok, topic_names[i]) == 0)
            return i;
    return -1;
}

/* A comma list of names -> bit mask (bit_of: a name's bit, -1 if unknown);
 * the word alone gives word_mask.  An empty list is refused (an empty topic
 * list would silence every warning, this one too). */
static int parse_mask(const char *s, const char *word, unsigned word_mask,
                      int (*bit_of)(const char *), unsigned *out)
{
    if (strcmp(s, word) == 0) {
        *out = word_mask;
        return 0;
    }
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    unsigned mask = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int bit = bit_of(tok);
        if (bit < 0)
            return -1;
        mask |= 1u << bit;
    }
    if (!mask)
        return -1;
    *out = mask;
    return 0;
}

/* Bounds of a "min..max" range.  Not sscanf("%lf..%lf"): strtod takes
 * "0." of "0..1" as the first number and the second is never read. */
static void range_of(const char *range, double *lo, double *hi)
{
    const char *dots = strstr(range, "..");
    *lo = strtod(range, NULL);
    *hi = dots ? strtod(dots + 2, NULL) : *lo;
}

/* Parse one value into the variable's destination; 0 ok, -1 bad. */
static int parse_value(const env_var_t *v, const char *s)
{
    char *end;
    switch (v->type) {
    case T_STRING:
        if (!*s)
            return -1;
        *(const char **)v->dest = s;
        return 0;
    case T_CHOICE: {
        int i = choice_index(v->choices, s);
        if (i < 0)
            return -1;
        *(int *)v->dest = i; /* the enums follow the order of the choice list */
        return 0;
    }
    case T_LONG: {
        const char *range = v->choices;
        if (strncmp(range, "auto|", 5) == 0) { /* "auto" is stored as -1 */
            if (strcmp(s, "auto") == 0) {
                *(long *)v->dest = -1;
                return 0;
            }
            range += 5;
        }
        double dlo, dhi;
        range_of(range, &dlo, &dhi);
        long lo = (long)dlo, hi = (long)dhi;
        errno = 0;
        long x = strtol(s, &end, 10);
        if (errno || end == s || *end || x < lo || x > hi)
            return -1;
        *(long *)v->dest = x;
        return 0;
    }
    case T_BYTES: {
        uint64_t x;
        if (hyt_parse_bytes(s, &x) != 0 || x > (uint64_t)LONG_MAX)
            return -1;
        *(long *)v->dest = (long)x;
        return 0;
    }
    case T_DOUBLE: {
        double lo, hi;
        range_of(v->choices, &lo, &hi);
        errno = 0;
        double x = strtod(s, &end);
        if (errno || end == s || *end || !(x >= lo && x <= hi))
            return -1;
        *(double *)v->dest = x;
        return 0;
    }
    case T_TOPICS:
        return parse_mask(s, "all", HYT_TOPIC_ALL, topic_bit, (unsigned *)v->dest);
    case T_SIGNALS:
        return parse_mask(s, "none", 0, signal_bit, (unsigned *)v->dest);
    case T_RANKS:
        if (strcmp(s, "0") == 0)
            *(int *)v->dest = 0;
        else if (strcmp(s, "all") == 0)
            *(int *)v->dest = 1;
        else
            return -1;
        return 0;
    }
    return -1;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];
    if (la >= 63 || lb >= 63)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *cur);
    }
    return prev[lb];
}

int hyt_env_init(void)
{
    int problems = 0;
    for (int i = 0; i < NVARS; i++) {
        const char *s = getenv(vars[i].name);
        bad[i] = 0;
        if (!s)
            continue;
        if (parse_value(&vars[i], s) != 0) {
            problems++;
            bad[i] = 1;
            hyt_warn(HYT_TOPIC_CORE, "%s=\"%s\" is not valid (valid: %s); using the default %s",
                     vars[i].name, s, vars[i].choices ? vars[i].choices : "a non-empty string",
                     vars[i].def ? vars[i].def : "(unset)");
        }
    }
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HYTUNE_", 7) != 0)
            continue;
        char name[128];
        size_t len = strcspn(*e, "=");
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, *e, len);
        name[len] = 0;
        int known = 0;
        const char *closest = NULL;
        size_t best = 4; /* suggest only near misses */
        for (int i = 0; i < NVARS && !known; i++) {
            known = strcmp(name, vars[i].name) == 0;
            size_t d = edit_distance(name, vars[i].name);
            if (d < best) {
                best = d;
                closest = vars[i].name;
            }
        }
        if (!known) {
            problems++;
            if (closest)
                hyt_warn(HYT_TOPIC_CORE, "unknown variable %s ignored; did you mean %s? "
                         "(`hytune info --env` lists all)", name, closest);
            else
                hyt_warn(HYT_TOPIC_CORE, "unknown variable %s ignored (`hytune info --env` "
                         "lists all)", name);
        }
    }
    return problems;
}

/* Fingerprint of a variable's parsed value (what the rank does with it). */
static uint64_t value_hash(const env_var_t *v)
{
    uint64_t h = hyt_agree_hash_str(HYT_AGREE_HASH0, v->name);
    switch (v->type) {
    case T_STRING:
        return hyt_agree_hash_str(h, *(const char *const *)v->dest);
    case T_LONG:
    case T_BYTES:
        return hyt_agree_hash(h, v->dest, sizeof(long));
    case T_DOUBLE:
        return hyt_agree_hash(h, v->dest, sizeof(double));
    case T_TOPICS:
    case T_SIGNALS:
        return hyt_agree_hash(h, v->dest, sizeof(unsigned));
    case T_CHOICE:
    case T_RANKS:
        return hyt_agree_hash(h, v->dest, sizeof(int));
    }
    return h;
}

int hyt_env_agree_items(hyt_agree_item_t *items, int max)
{
    int n = 0;
    for (int i = 0; i < NVARS && n < max; i++) {
        const env_var_t *v = &vars[i];
        if (v->scope != S_ALL_EQ)
            continue;
        char fallback[160];
        snprintf(fallback, sizeof fallback, "every rank uses the default %s",
                 v->def ? v->def : "(unset)");
        /* a bad value was warned about where it was parsed */
        hyt_agree_item_init(&items[n], v->name, HYT_TOPIC_CORE, HYT_AGREE_QUIET, fallback);
        const char *s = getenv(v->name);
        if (bad[i]) {
            hyt_agree_item_fail(&items[n], "%s=\"%s\" is not valid (valid: %s)", v->name, s,
                                v->choices ? v->choices : "a non-empty string");
        } else {
            items[n].fp = value_hash(v);
            if (s)
                snprintf(items[n].desc, sizeof items[n].desc, "%s=%s", v->name, s);
            else
                snprintf(items[n].desc, sizeof items[n].desc, "%s unset", v->name);
        }
        n++;
    }
    return n;
}

void hyt_env_agree_fallback(const char *name)
{
    for (int i = 0; i < NVARS; i++)
        if (strcmp(vars[i].name, name) == 0) {
            if (vars[i].def)
                parse_value(&vars[i], vars[i].def);
            else if (vars[i].type == T_STRING)
                *(const char **)vars[i].dest = NULL;
        }
}

void hyt_env_print(FILE *out)
{
    for (int i = 0; i < NVARS; i++) {
        const env_var_t *v = &vars[i];
        const char *cur = getenv(v->name);
        fprintf(out, "%s\n", v->name);
        fprintf(out, "    %s\n", v->help);
        if (v->choices)
            fprintf(out, "    values: %s\n", v->choices);
        fprintf(out, "    default: %s\n", v->def ? v->def : "(unset)");
        fprintf(out, "    ranks: %s\n", v->scope == S_LOCAL
                                           ? "may differ"
                                           : "must be the same on all (compared at MPI_Init)");
        if (cur)
            fprintf(out, "    current: %s\n", cur);
    }
}
