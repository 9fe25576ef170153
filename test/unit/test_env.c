/* Unit test of the environment table (src/env.c) and of HYTUNE_FORCE_<COLL>
 * specs as the runtime parses them (hyt_alg_parse).
 *
 * Every case starts from the built-in defaults with no HYTUNE_* variable in
 * the environment, sets some, runs hyt_env_init() with stderr captured in a
 * temporary file, and asserts on the parsed configuration, the number of
 * problems and the warning text (variable named, valid values listed). */
#include "src/hyt.h"
#include "test/check.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static hyt_config_t defaults;
static char captured[8192];

/* Remove every HYTUNE_* variable (names copied first: unsetenv edits environ). */
static void clear_hytune_env(void)
{
    char names[64][128];
    int n = 0;
    for (char **e = environ; e && *e && n < 64; e++)
        if (strncmp(*e, "HYTUNE_", 7) == 0) {
            size_t len = strcspn(*e, "=");
            if (len >= sizeof names[0])
                len = sizeof names[0] - 1;
            memcpy(names[n], *e, len);
            names[n++][len] = 0;
        }
    for (int i = 0; i < n; i++)
        unsetenv(names[i]);
}

/* Set "NAME=VALUE" pairs (NULL-terminated), run hyt_env_init with stderr
 * captured into `captured`; returns the problem count. */
static int run_env(const char *const *assign)
{
    clear_hytune_env();
    hyt_cfg = defaults;
    for (int i = 0; assign && assign[i]; i++) {
        char name[128];
        const char *eq = strchr(assign[i], '=');
        size_t len = (size_t)(eq - assign[i]);
        memcpy(name, assign[i], len);
        name[len] = 0;
        setenv(name, eq + 1, 1);
    }
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int problems = hyt_env_init();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(captured, 1, sizeof captured - 1, tmp);
    captured[n] = 0;
    fclose(tmp);
    return problems;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Field by field: struct padding makes memcmp unreliable. */
static int cfg_is_default(void)
{
    const hyt_config_t *a = &hyt_cfg, *d = &defaults;
    int same = a->mode == d->mode && a->table == d->table && a->stats == d->stats &&
               a->log_level == d->log_level && a->log_topics == d->log_topics &&
               a->log_all_ranks == d->log_all_ranks && a->hot_calls == d->hot_calls &&
               a->probe_calls == d->probe_calls && a->probe_min_gain == d->probe_min_gain &&
               a->drift_interval == d->drift_interval && a->node_hw == d->node_hw &&
               a->network_file == d->network_file && a->warm_start == d->warm_start &&
               a->stats_signals == d->stats_signals;
    for (int c = 0; c < HYT_NCOLL; c++)
        same &= a->force[c] == d->force[c];
    return same;
}

typedef struct bad_case {
    const char *assign; /* NAME=VALUE */
    const char *valid;  /* text the warning must list */
} bad_case_t;

/* Every variable with a bad value: one warning naming it and the valid
 * values, the default kept. */
static void test_bad_values(void)
{
    static const bad_case_t cases[] = {
        {"HYTUNE_MODE=fast", "off|offline|hybrid"},
        {"HYTUNE_MODE=OFF", "off|offline|hybrid"},
        {"HYTUNE_MODE=", "off|offline|hybrid"},
        {"HYTUNE_LOG=loud", "error|warn|info|debug"},
        {"HYTUNE_LOG_TOPICS=core,bogus", "core,table,alg,topo,online,tune"},
        {"HYTUNE_LOG_TOPICS=", "core,table,alg,topo,online,tune"},
        {"HYTUNE_LOG_TOPICS=,", "core,table,alg,topo,online,tune"},
        {"HYTUNE_LOG_RANKS=1", "0|all"},
        {"HYTUNE_STATS_SIGNALS=TERM,KILL", "none|TERM,INT,HUP,USR1,USR2,XCPU"},
        {"HYTUNE_STATS_SIGNALS=", "none|TERM,INT,HUP,USR1,USR2,XCPU"},
        {"HYTUNE_STATS_SIGNALS=term", "none|TERM,INT,HUP,USR1,USR2,XCPU"},
        {"HYTUNE_HOT_CALLS=0", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=1000000001", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=12x", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=-5", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=-1", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=Auto", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=auto16", "auto|1..1000000000"},
        {"HYTUNE_HOT_CALLS=99999999999999999999999", "auto|1..1000000000"},
        {"HYTUNE_PROBE_CALLS=1001", "1..1000"},
        {"HYTUNE_PROBE_CALLS=0", "1..1000"},
        {"HYTUNE_PROBE_K_MAX=65537", "0..65536"},
        {"HYTUNE_PROBE_K_MAX=-1", "0..65536"},
        {"HYTUNE_PROBE_MIN_GAIN=1.5", "0..1"},
        {"HYTUNE_PROBE_MIN_GAIN=-0.1", "0..1"},
        {"HYTUNE_PROBE_MIN_GAIN=nan", "0..1"},
        {"HYTUNE_PROBE_MIN_GAIN=0.1x", "0..1"},
        {"HYTUNE_DRIFT_INTERVAL=-1", "0..1000000000"},
        {"HYTUNE_TABLE=", "a non-empty string"},
        {"HYTUNE_STATS=", "a non-empty string"},
        {"HYTUNE_NODE_HW=", "a non-empty string"},
        {"HYTUNE_NETWORK_FILE=", "a non-empty string"},
        {"HYTUNE_WARM_START=", "a non-empty string"},
        {"HYTUNE_FORCE_ALLREDUCE=", "a non-empty string"},
        {"HYTUNE_FORCE_BCAST=", "a non-empty string"},
        {"HYTUNE_FORCE_REDUCE=", "a non-empty string"},
        {"HYTUNE_FORCE_ALLGATHER=", "a non-empty string"},
        {"HYTUNE_FORCE_ALLTOALL=", "a non-empty string"},
        {"HYTUNE_FORCE_REDUCE_SCATTER_BLOCK=", "a non-empty string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *assign[] = {cases[i].assign, NULL};
        char name[64];
        size_t len = strcspn(cases[i].assign, "=");
        memcpy(name, cases[i].assign, len);
        name[len] = 0;
        int problems = run_env(assign);
        CHECK(problems == 1, "%s: %d problems, want 1", cases[i].assign, problems);
        CHECK(count_lines(captured) == 1, "%s: want one warning line, got:\n%s",
              cases[i].assign, captured);
        CHECK(strstr(captured, name) != NULL, "%s: warning does not name %s: %s",
              cases[i].assign, name, captured);
        CHECK(strstr(captured, cases[i].valid) != NULL,
              "%s: warning does not list the valid values %s: %s", cases[i].assign,
              cases[i].valid, captured);
        CHECK(strstr(captured, "warn") && strstr(captured, "using the default"),
              "%s: not a warning keeping the default: %s", cases[i].assign, captured);
        CHECK(cfg_is_default(), "%s: a bad value changed the configuration", cases[i].assign);
    }
}

static void test_valid_values(void)
{
    static const char *const modes[] = {"off", "offline", "hybrid"};
    for (int m = 0; m < 3; m++) {
        char buf[64];
        snprintf(buf, sizeof buf, "HYTUNE_MODE=%s", modes[m]);
        const char *assign[] = {buf, NULL};
        CHECK(run_env(assign) == 0 && captured[0] == 0, "%s: unexpected warning %s", buf,
              captured);
        CHECK(hyt_cfg.mode == (hyt_mode_t)m, "%s parsed as %d", buf, hyt_cfg.mode);
    }
    static const char *const levels[] = {"error", "warn", "info", "debug"};
    for (int l = 0; l < 4; l++) {
        char buf[64];
        snprintf(buf, sizeof buf, "HYTUNE_LOG=%s", levels[l]);
        const char *assign[] = {buf, NULL};
        CHECK(run_env(assign) == 0, "%s rejected: %s", buf, captured);
        CHECK(hyt_cfg.log_level == (hyt_log_level_t)l, "%s parsed as %d", buf, hyt_cfg.log_level);
    }
    const char *topics[] = {"HYTUNE_LOG_TOPICS=table,online", NULL};
    CHECK(run_env(topics) == 0, "topics rejected: %s", captured);
    CHECK(hyt_cfg.log_topics == (HYT_TOPIC_TABLE | HYT_TOPIC_ONLINE), "topics mask %#x",
          hyt_cfg.log_topics);
    const char *one_topic[] = {"HYTUNE_LOG_TOPICS=tune", NULL};
    CHECK(run_env(one_topic) == 0 && hyt_cfg.log_topics == HYT_TOPIC_TUNE, "tune mask %#x",
          hyt_cfg.log_topics);
    const char *all_topics[] = {"HYTUNE_LOG_TOPICS=all", NULL};
    CHECK(run_env(all_topics) == 0 && hyt_cfg.log_topics == HYT_TOPIC_ALL, "all mask %#x",
          hyt_cfg.log_topics);
    const char *sigs[] = {"HYTUNE_STATS_SIGNALS=HUP,SIGUSR2,XCPU", NULL};
    CHECK(run_env(sigs) == 0 &&
              hyt_cfg.stats_signals == (1u << SIGHUP | 1u << SIGUSR2 | 1u << SIGXCPU),
          "signals mask %#x", hyt_cfg.stats_signals);
    const char *no_sigs[] = {"HYTUNE_STATS_SIGNALS=none", NULL};
    CHECK(run_env(no_sigs) == 0 && hyt_cfg.stats_signals == 0, "none mask %#x",
          hyt_cfg.stats_signals);

    /* numbers at both bounds of their ranges */
    const char *low[] = {"HYTUNE_HOT_CALLS=1", "HYTUNE_PROBE_CALLS=1",
                         "HYTUNE_PROBE_MIN_GAIN=0", "HYTUNE_DRIFT_INTERVAL=0",
                         "HYTUNE_LOG_RANKS=all", NULL};
    CHECK(run_env(low) == 0, "low bounds rejected: %s", captured);
    CHECK(hyt_cfg.hot_calls == 1 && hyt_cfg.probe_calls == 1 && hyt_cfg.probe_min_gain == 0 &&
              hyt_cfg.drift_interval == 0 && hyt_cfg.log_all_ranks == 1,
          "low bounds parsed as %ld %ld %g %ld %d", hyt_cfg.hot_calls, hyt_cfg.probe_calls,
          hyt_cfg.probe_min_gain, hyt_cfg.drift_interval, hyt_cfg.log_all_ranks);
    const char *high[] = {"HYTUNE_HOT_CALLS=1000000000", "HYTUNE_PROBE_CALLS=1000",
                          "HYTUNE_PROBE_MIN_GAIN=1", "HYTUNE_DRIFT_INTERVAL=1000000000",
                          "HYTUNE_LOG_RANKS=0", NULL};
    CHECK(run_env(high) == 0, "high bounds rejected: %s", captured);
    CHECK(hyt_cfg.hot_calls == 1000000000 && hyt_cfg.probe_calls == 1000 &&
              hyt_cfg.probe_min_gain == 1 && hyt_cfg.drift_interval == 1000000000 &&
              hyt_cfg.log_all_ranks == 0,
          "high bounds parsed as %ld %ld %g %ld %d", hyt_cfg.hot_calls, hyt_cfg.probe_calls,
          hyt_cfg.probe_min_gain, hyt_cfg.drift_interval, hyt_cfg.log_all_ranks);
    const char *hot_auto[] = {"HYTUNE_HOT_CALLS=auto", NULL};
    CHECK(run_env(hot_auto) == 0 && hyt_cfg.hot_calls == -1, "HYTUNE_HOT_CALLS=auto parsed as %ld",
          hyt_cfg.hot_calls);
    const char *mid[] = {"HYTUNE_PROBE_MIN_GAIN=0.05", NULL};
    CHECK(run_env(mid) == 0 && hyt_cfg.probe_min_gain == 0.05, "gain 0.05 parsed as %g (%s)",
          hyt_cfg.probe_min_gain, captured);

    const char *strings[] = {"HYTUNE_TABLE=/tmp/t.json", "HYTUNE_STATS=out.%r",
                             "HYTUNE_FORCE_ALLREDUCE=native", "HYTUNE_NODE_HW=ports=4",
                             "HYTUNE_NETWORK_FILE=net.txt", "HYTUNE_WARM_START=w.json",
                             "HYTUNE_FORCE_REDUCE_SCATTER_BLOCK=native", NULL};
    CHECK(run_env(strings) == 0, "strings rejected: %s", captured);
    CHECK(hyt_cfg.table && strcmp(hyt_cfg.table, "/tmp/t.json") == 0, "table %s", hyt_cfg.table);
    CHECK(hyt_cfg.stats && strcmp(hyt_cfg.stats, "out.%r") == 0, "stats %s", hyt_cfg.stats);
    CHECK(hyt_cfg.force[HYT_COLL_ALLREDUCE] &&
              strcmp(hyt_cfg.force[HYT_COLL_ALLREDUCE], "native") == 0,
          "force allreduce %s", hyt_cfg.force[HYT_COLL_ALLREDUCE]);
    CHECK(hyt_cfg.force[HYT_COLL_REDUCE_SCATTER_BLOCK] && !hyt_cfg.force[HYT_COLL_BCAST],
          "force per collective mixed up");
    CHECK(hyt_cfg.node_hw && hyt_cfg.network_file && hyt_cfg.warm_start, "string vars unset");
}

typedef struct typo_case {
    const char *name;
    const char *suggest; /* NULL: no suggestion expected */
} typo_case_t;

static void test_unknown_names(void)
{
    static const typo_case_t cases[] = {
        {"HYTUNE_MODEE", "HYTUNE_MODE"},
        {"HYTUNE_TABEL", "HYTUNE_TABLE"},
        {"HYTUNE_FORCE_ALLREDUC", "HYTUNE_FORCE_ALLREDUCE"},
        {"HYTUNE_LOG_TOPIC", "HYTUNE_LOG_TOPICS"},
        {"HYTUNE_HOTCALLS", "HYTUNE_HOT_CALLS"},
        {"HYTUNE_SOMETHING_ELSE_ENTIRELY", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s=1", cases[i].name);
        const char *assign[] = {buf, "HYTUNE_MODE=offline", NULL};
        int problems = run_env(assign);
        CHECK(problems == 1, "%s: %d problems", cases[i].name, problems);
        CHECK(count_lines(captured) == 1, "%s: want one line: %s", cases[i].name, captured);
        CHECK(strstr(captured, cases[i].name) && strstr(captured, "unknown variable"),
              "%s: warning does not name it: %s", cases[i].name, captured);
        if (cases[i].suggest) {
            char want[160];
            snprintf(want, sizeof want, "did you mean %s?", cases[i].suggest);
            CHECK(strstr(captured, want) != NULL, "%s: want \"%s\" in: %s", cases[i].name, want,
                  captured);
        } else {
            CHECK(strstr(captured, "did you mean") == NULL, "%s: spurious suggestion: %s",
                  cases[i].name, captured);
        }
        CHECK(hyt_cfg.mode == HYT_MODE_OFFLINE, "%s: known variable beside it not parsed",
              cases[i].name);
    }
    /* HYTUNE_LOG=error silences warnings, the problem is still counted */
    const char *quiet[] = {"HYTUNE_LOG=error", "HYTUNE_MODEE=off", NULL};
    CHECK(run_env(quiet) == 1 && captured[0] == 0, "HYTUNE_LOG=error still warned: %s",
          captured);
    /* similar prefixes that are not HYTUNE_ are none of our business */
    const char *other[] = {"HYTUNEX=1", "XHYTUNE_MODE=1", NULL};
    CHECK(run_env(other) == 0 && captured[0] == 0, "foreign names warned: %s", captured);
}

static void test_mode_helper_and_print(void)
{
    hyt_mode_t m = HYT_MODE_OFF;
    CHECK(hyt_env_parse_mode("hybrid", &m) == 0 && m == HYT_MODE_HYBRID, "hybrid");
    CHECK(hyt_env_parse_mode("offline", &m) == 0 && m == HYT_MODE_OFFLINE, "offline");
    CHECK(hyt_env_parse_mode("of", &m) == -1 && m == HYT_MODE_OFFLINE, "prefix accepted");
    CHECK(hyt_env_parse_mode("hybrid2", &m) == -1, "suffix accepted");

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    hyt_env_print(f);
    fclose(f);
    static const char *const names[] = {
        "HYTUNE_MODE", "HYTUNE_TABLE", "HYTUNE_STATS", "HYTUNE_LOG", "HYTUNE_LOG_TOPICS",
        "HYTUNE_LOG_RANKS", "HYTUNE_FORCE_ALLREDUCE", "HYTUNE_FORCE_BCAST",
        "HYTUNE_FORCE_REDUCE", "HYTUNE_FORCE_ALLGATHER", "HYTUNE_FORCE_ALLTOALL",
        "HYTUNE_FORCE_REDUCE_SCATTER_BLOCK", "HYTUNE_HOT_CALLS", "HYTUNE_PROBE_CALLS",
        "HYTUNE_PROBE_MIN_GAIN", "HYTUNE_DRIFT_INTERVAL", "HYTUNE_NODE_HW",
        "HYTUNE_NETWORK_FILE", "HYTUNE_WARM_START"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char line[80];
        snprintf(line, sizeof line, "%s\n", names[i]);
        CHECK(strstr(text, line) != NULL, "hytune info --env misses %s", names[i]);
    }
    CHECK(strstr(text, "default: hybrid") != NULL, "default of HYTUNE_MODE not printed");
    free(text);
}

/* HYTUNE_FORCE_<COLL>=name[:k] goes through hyt_alg_parse at init. */
static void test_force_specs(void)
{
    const hyt_alg_t *alg = NULL;
    int k = -1;
    char err[600];
    CHECK(hyt_alg_parse(HYT_COLL_ALLREDUCE, "native", &alg, &k, err, sizeof err) == 0 &&
              alg == hyt_alg_native(HYT_COLL_ALLREDUCE) && k == 0,
          "native: %s", err);
    alg = NULL;
    CHECK(hyt_alg_parse(HYT_COLL_BCAST, "bogus", &alg, &k, err, sizeof err) == -1 && !alg,
          "unknown name accepted");
    CHECK(strstr(err, "unknown algorithm \"bogus\"") && strstr(err, "valid:") &&
              strstr(err, "native"),
          "unknown name message: %s", err);
    CHECK(hyt_alg_parse(HYT_COLL_BCAST, "", &alg, &k, err, sizeof err) == -1 &&
              strstr(err, "native"),
          "empty spec: %s", err);
    CHECK(hyt_alg_parse(HYT_COLL_BCAST, ":4", &alg, &k, err, sizeof err) == -1,
          "spec without a name accepted");
    CHECK(hyt_alg_parse(HYT_COLL_ALLREDUCE, "native:4", &alg, &k, err, sizeof err) == -1 &&
              strstr(err, "takes no radix") && strstr(err, "write just \"native\""),
          "k for an algorithm without radix: %s", err);
    /* k range checks on every radix algorithm registered (others add them) */
    int radix_algs = 0;
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        if (!hyt_alg_has_radix(a))
            continue;
        radix_algs++;
        char spec[96];
        const char *cn = hyt_coll_name(a->coll);
        snprintf(spec, sizeof spec, "%s:%d", a->name, a->k_min);
        CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == 0 && alg == a &&
                  k == a->k_min,
              "%s %s: %s", cn, spec, err);
        snprintf(spec, sizeof spec, "%s:k=%d", a->name, HYT_K_LIMIT);
        CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == 0 && k == HYT_K_LIMIT,
              "%s %s: %s", cn, spec, err);
        snprintf(spec, sizeof spec, "%s", a->name);
        CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == 0 && k == a->k_min,
              "%s %s: default k %d", cn, spec, k);
        static const char *const bad_k[] = {"%s:%d", "%s:k=%d"};
        for (int f = 0; f < 2; f++) {
            snprintf(spec, sizeof spec, bad_k[f], a->name, a->k_min - 1);
            CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == -1 &&
                      strstr(err, "is not valid"),
                  "%s %s accepted", cn, spec);
            snprintf(spec, sizeof spec, bad_k[f], a->name, HYT_K_LIMIT + 1);
            CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == -1,
                  "%s %s accepted", cn, spec);
        }
        snprintf(spec, sizeof spec, "%s:4x", a->name);
        CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == -1, "%s accepted",
              spec);
        snprintf(spec, sizeof spec, "%s:", a->name);
        CHECK(hyt_alg_parse(a->coll, spec, &alg, &k, err, sizeof err) == -1, "%s accepted",
              spec);
    }
    printf("test_env: %d radix algorithms registered, k ranges checked on each\n", radix_algs);
}

int main(void)
{
    defaults = hyt_cfg;
    test_bad_values();
    test_valid_values();
    test_unknown_names();
    test_mode_helper_and_print();
    test_force_specs();
    clear_hytune_env();
    return check_done("test_env");
}
