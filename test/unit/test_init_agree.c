/* Unit test of the agreement step at init (src/agree.h): simulated ranks
 * describe the same settings divergently (one rank with another table, one
 * rank unable to parse a forced algorithm, every rank missing the warm
 * start, one rank in another mode).  The reduction MPI_MIN computes is
 * applied to their packed vectors; every rank's verdicts from it must be
 * equal and name the right fallback.  Also: the error line groups ranks by
 * what they saw, caps the groups, never overflows; src/env.c's items follow
 * its table. */
#include "src/agree.h"
#include "test/check.h"

#include <stdlib.h>
#include <string.h>

#define MAXR 16

enum { I_MODE, I_TABLE, I_WARM, I_FORCE, I_VAR, NI };

/* Rank r's items under a scenario. */
static void describe(hyt_agree_item_t *it, int r, int scenario)
{
    hyt_agree_item_init(&it[I_MODE], "HYTUNE_MODE", HYT_TOPIC_CORE, HYT_AGREE_QUIET, "off");
    it[I_MODE].gates = 1;
    it[I_MODE].fp = scenario == 1 && r == 2 ? 7 : 9; /* scenario 1: rank 2 in another mode */
    hyt_agree_item_init(&it[I_TABLE], "HYTUNE_TABLE", HYT_TOPIC_TABLE, HYT_LOG_ERROR, "none");
    it[I_TABLE].fp = r == 3 ? 0x1111 : 0x2222; /* rank 3: a stale copy */
    hyt_agree_item_init(&it[I_WARM], "HYTUNE_WARM_START", HYT_TOPIC_ONLINE, HYT_LOG_ERROR, "none");
    hyt_agree_item_fail(&it[I_WARM], "cannot open w.json"); /* every rank alike */
    hyt_agree_item_init(&it[I_FORCE], "HYTUNE_FORCE_BCAST", HYT_TOPIC_CORE, HYT_LOG_WARN, "none");
    if (r == 1)
        hyt_agree_item_fail(&it[I_FORCE], "knomial:x ignored");
    else
        it[I_FORCE].fp = hyt_agree_hash_str(HYT_AGREE_HASH0, "unset");
    hyt_agree_item_init(&it[I_VAR], "HYTUNE_HOT_CALLS", HYT_TOPIC_CORE, HYT_AGREE_QUIET, "auto");
    /* extreme fingerprints: the ~max slot must not mix them up */
    it[I_VAR].fp = scenario == 2 ? (r == 0 ? 0 : UINT64_MAX) : 42;
}

static void run_scenario(int nranks, int scenario, const hyt_agree_verdict_t *want)
{
    static hyt_agree_item_t items[MAXR][NI];
    uint64_t packed[MAXR][3 * NI], reduced[3 * NI];
    for (int r = 0; r < nranks; r++) {
        describe(items[r], r, scenario);
        hyt_agree_pack(items[r], NI, packed[r]);
    }
    memcpy(reduced, packed[0], sizeof reduced);
    for (int r = 1; r < nranks; r++)
        hyt_agree_combine(reduced, packed[r], NI);
    for (int r = 0; r < nranks; r++) {
        hyt_agree_verdicts(items[r], NI, reduced);
        for (int i = 0; i < NI; i++) {
            CHECK(items[r][i].verdict == items[0][i].verdict,
                  "scenario %d, %d ranks: rank %d's verdict on %s is %d, rank 0's %d", scenario,
                  nranks, r, items[r][i].name, items[r][i].verdict, items[0][i].verdict);
            CHECK(items[r][i].verdict == want[i], "scenario %d, %d ranks: %s verdict %d, want %d",
                  scenario, nranks, items[r][i].name, items[r][i].verdict, want[i]);
        }
    }
}

/* The verdict of one item seen by two ranks. */
static hyt_agree_verdict_t verdict_of_two(hyt_agree_item_t *a0, hyt_agree_item_t *a1)
{
    uint64_t v0[3], v1[3];
    hyt_agree_pack(a0, 1, v0);
    hyt_agree_pack(a1, 1, v1);
    hyt_agree_combine(v0, v1, 1);
    hyt_agree_verdicts(a0, 1, v0);
    return a0->verdict;
}

static void test_verdicts(void)
{
#define OK HYT_AGREE_OK
#define ALLF HYT_AGREE_ALL_FAILED
#define DIFF HYT_AGREE_DIFFER
#define MOOT HYT_AGREE_MOOT
    static const struct {
        int nranks, scenario;
        hyt_agree_verdict_t want[NI]; /* mode, table, warm, force, variable */
    } cases[] = {
        /* table differs (rank 3), warm start fails alike, force fails on rank 1 */
        {5, 0, {OK, DIFF, ALLF, DIFF, OK}},
        /* ranks 0-2 only: no rank 3, so the table agrees; rank 1's failure still differs */
        {3, 0, {OK, OK, ALLF, DIFF, OK}},
        /* one rank alone: nothing to differ from; its own failure is ALL_FAILED */
        {1, 0, {OK, OK, ALLF, OK, OK}},
        /* rank 2 in another mode: everything after the mode is moot */
        {5, 1, {DIFF, MOOT, MOOT, MOOT, MOOT}},
        /* fingerprints 0 and 2^64-1 differ */
        {MAXR, 2, {OK, DIFF, ALLF, DIFF, DIFF}},
    };
#undef OK
#undef ALLF
#undef DIFF
#undef MOOT
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_scenario(cases[i].nranks, cases[i].scenario, cases[i].want);

    /* different failures on two ranks differ; the same failure agrees */
    hyt_agree_item_t a[2];
    hyt_agree_item_init(&a[0], "X", HYT_TOPIC_CORE, HYT_LOG_ERROR, "f");
    hyt_agree_item_init(&a[1], "X", HYT_TOPIC_CORE, HYT_LOG_ERROR, "f");
    hyt_agree_item_fail(&a[0], "cannot open t.json (No such file or directory)");
    hyt_agree_item_fail(&a[1], "cannot open t.json (Permission denied)");
    CHECK(verdict_of_two(&a[0], &a[1]) == HYT_AGREE_DIFFER, "two different failures agree");
    hyt_agree_item_fail(&a[1], "cannot open t.json (No such file or directory)");
    CHECK(verdict_of_two(&a[0], &a[1]) == HYT_AGREE_ALL_FAILED, "the same failure: %d",
          a[0].verdict);
    /* a failure never agrees with a success, whatever the success's fingerprint */
    hyt_agree_item_init(&a[1], "X", HYT_TOPIC_CORE, HYT_LOG_ERROR, "f");
    a[1].fp = a[0].fp;
    CHECK(verdict_of_two(&a[0], &a[1]) != HYT_AGREE_OK, "a failure and a success agreed");
}

static void test_ranks(void)
{
    char buf[64];
    const int m1[] = {1, 0, 1, 1, 0, 1, 1, 1};
    hyt_agree_ranks(m1, 8, buf, sizeof buf);
    CHECK(strcmp(buf, "0,2-3,5-7") == 0, "ranks: \"%s\"", buf);
    const int m2[] = {0, 0, 0, 1};
    hyt_agree_ranks(m2, 4, buf, sizeof buf);
    CHECK(strcmp(buf, "3") == 0, "ranks: \"%s\"", buf);
    const int m3[] = {0, 0};
    hyt_agree_ranks(m3, 2, buf, sizeof buf);
    CHECK(strcmp(buf, "") == 0, "ranks: \"%s\"", buf);
    int many[200];
    for (int i = 0; i < 200; i++)
        many[i] = i % 2;
    char small[16];
    hyt_agree_ranks(many, 200, small, sizeof small);
    CHECK(strlen(small) < sizeof small && strncmp(small, "1,3,5,7,9,11", 12) == 0,
          "truncated ranks: \"%s\"", small);
}

static void test_line(void)
{
    char out[512];
    const char *d1[] = {"table a.json", "cannot open b.json", "table a.json", "table a.json",
                        "unset"};
    hyt_agree_line("HYTUNE_TABLE", 5, d1, "no table", out, sizeof out);
    CHECK(strcmp(out, "HYTUNE_TABLE differs between ranks: ranks 0,2-3: table a.json; rank 1: "
                      "cannot open b.json; rank 4: unset; no table") == 0,
          "line: \"%s\"", out);
    /* 12 ranks, all different: 8 groups listed, the rest counted */
    const char *d2[12];
    char names[12][8];
    for (int r = 0; r < 12; r++) {
        snprintf(names[r], sizeof names[r], "v%d", r);
        d2[r] = names[r];
    }
    hyt_agree_line("X", 12, d2, "fb", out, sizeof out);
    CHECK(strcmp(out, "X differs between ranks: rank 0: v0; rank 1: v1; rank 2: v2; rank 3: v3; "
                      "rank 4: v4; rank 5: v5; rank 6: v6; rank 7: v7; 4 more ranks with other "
                      "values; fb") == 0,
          "capped line: \"%s\"", out);
    /* a short buffer: cut, terminated, no overflow (the canary stays) */
    char tiny[40 + 1];
    tiny[40] = 'Z';
    hyt_agree_line("HYTUNE_TABLE", 5, d1, "no table", tiny, 40);
    CHECK(tiny[40] == 'Z' && strlen(tiny) == 39, "short buffer: \"%.40s\"", tiny);
}

/* src/env.c's items: only variables compared by value, their parsed value,
 * a bad value as a failure, the default back on fallback. */
static void test_env_items(void)
{
    hyt_agree_item_t it[64];
    unsetenv("HYTUNE_HOT_CALLS");
    hyt_env_init();
    int n = hyt_env_agree_items(it, 64);
    int hot = -1;
    for (int i = 0; i < n; i++) {
        CHECK(strncmp(it[i].name, "HYTUNE_FORCE_", 13) != 0 && strcmp(it[i].name, "HYTUNE_LOG") &&
                  strcmp(it[i].name, "HYTUNE_TABLE") && strcmp(it[i].name, "HYTUNE_STATS") &&
                  strcmp(it[i].name, "HYTUNE_MODE"),
              "%s compared by value", it[i].name);
        if (strcmp(it[i].name, "HYTUNE_HOT_CALLS") == 0)
            hot = i;
    }
    CHECK(hot >= 0, "HYTUNE_HOT_CALLS is not compared");
    if (hot < 0)
        return;
    uint64_t unset_fp = it[hot].fp;
    CHECK(strcmp(it[hot].desc, "HYTUNE_HOT_CALLS unset") == 0, "desc \"%s\"", it[hot].desc);
    setenv("HYTUNE_HOT_CALLS", "32", 1);
    hyt_env_init();
    hyt_env_agree_items(it, 64);
    CHECK(it[hot].fp != unset_fp && !it[hot].failed && hyt_cfg.hot_calls == 32, "value 32");
    CHECK(strcmp(it[hot].desc, "HYTUNE_HOT_CALLS=32") == 0, "desc \"%s\"", it[hot].desc);
    setenv("HYTUNE_HOT_CALLS", "auto", 1); /* the default, spelled out: the same behaviour */
    hyt_env_init();
    hyt_env_agree_items(it, 64);
    CHECK(it[hot].fp == unset_fp, "HYTUNE_HOT_CALLS=auto and unset differ");
    setenv("HYTUNE_HOT_CALLS", "16", 1); /* a number is not auto, even auto's least */
    hyt_env_init();
    hyt_env_agree_items(it, 64);
    CHECK(it[hot].fp != unset_fp && hyt_cfg.hot_calls == 16, "HYTUNE_HOT_CALLS=16 reads as auto");
    setenv("HYTUNE_HOT_CALLS", "many", 1);
    hyt_env_init();
    hyt_env_agree_items(it, 64);
    CHECK(it[hot].failed && strstr(it[hot].desc, "\"many\" is not valid"), "bad value: %s",
          it[hot].desc);
    setenv("HYTUNE_HOT_CALLS", "32", 1);
    hyt_env_init();
    hyt_env_agree_fallback("HYTUNE_HOT_CALLS");
    CHECK(hyt_cfg.hot_calls == -1, "fallback left %ld (auto is -1)", hyt_cfg.hot_calls);
    unsetenv("HYTUNE_HOT_CALLS");
}

int main(void)
{
    test_verdicts();
    test_ranks();
    test_line();
    test_env_items();
    return check_done("test_init_agree");
}
