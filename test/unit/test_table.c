/* Unit test of the selection table loader (src/table.c) and lookup.
 *
 * Usage: test_table DATA_DIR (test/data).  Every malformed table there must
 * be refused with one message that names the file, the place (line/column or
 * JSON path) and the fix; the valid table must give the right rule at every
 * threshold boundary and the right rule set per (nodes, ppn).  The binary
 * search of hyt_rules_lookup is checked against a linear scan on generated
 * rule sets.  Radix algorithms, when registered, get a generated table too. */
#include "src/hyt.h"
#include "test/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *data_dir;

typedef struct bad_table {
    const char *file;
    const char *want[3]; /* substrings the message must contain (NULL: unused) */
} bad_table_t;

static const bad_table_t bad_tables[] = {
    {"does-not-exist.json", {"cannot open", "set HYTUNE_TABLE to a file", NULL}},
    {"table-empty.json", {"is empty", "regenerate it with `hytune tune", NULL}},
    {"table-truncated.json", {"ends early at line 7", "truncated", "regenerate"}},
    {"table-syntax.json", {"line 5 column 5", "fix the JSON syntax", NULL}},
    {"table-trailing.json", {"line 2 column 1", "text after the JSON document; remove it", NULL}},
    {"table-version.json", {"$.format is 3", "reads formats 1 to 2", "regenerate the table"}},
    {"table-noformat.json", {"$.format is missing", "give an integer", NULL}},
    {"table-format-type.json", {"$.format must be an integer, not a string", "write a plain",
                                NULL}},
    {"table-toplevel.json", {"top level must be an object", "\"format\": 2", NULL}},
    {"table-nocolls.json", {"$.collectives is missing", "give {\"allreduce\"", NULL}},
    {"table-bytes-type.json", {"$.collectives.allreduce[0].rules[0].bytes_max must be an "
                               "integer, not a string", NULL, NULL}},
    {"table-bytes-neg.json", {"$.collectives.allreduce[0].rules[0].bytes_max = -1 is out of "
                              "range", "give an integer in 0..", NULL}},
    {"table-rules-type.json", {"$.collectives.bcast[0].rules must be a non-empty array", NULL,
                               NULL}},
    {"table-rules-empty.json", {"$.collectives.bcast[0].rules must be a non-empty array", NULL,
                                NULL}},
    {"table-alg-type.json", {"$.collectives.reduce[0].rules[0].algorithm is missing or not a "
                             "string", "`hytune list reduce`", NULL}},
    {"table-ppn-type.json", {"$.collectives.reduce[0].ppn_max must be an integer, not a double",
                             NULL, NULL}},
    {"table-predicted-type.json", {"rules[0].predicted_us must be a number", "fix or remove",
                                   NULL}},
    {"table-coll.json", {"$.collectives.allreduse is not a collective", "valid: allreduce",
                         "scan, exscan, neighbor_allgather"}},
    {"table-alg.json", {"$.collectives.alltoall[0].rules[1].algorithm \"fastest\" is not an "
                        "algorithm of alltoall", "see `hytune list alltoall`", NULL}},
    {"table-k-noradix.json", {"$.collectives.allgather[0].rules[0].k", "takes no radix",
                              "remove k"}},
    {"table-order.json", {"$.collectives.allreduce[0].rules[2].bytes_max = 4 is not above the "
                          "previous rule's 4096", "order the rules by increasing bytes_max",
                          NULL}},
    {"table-equal.json", {"rules[1].bytes_max = 64 is not above the previous rule's 64", NULL,
                          NULL}},
    {"table-threshold-missing.json", {"$.collectives.allreduce[0].rules[1].bytes_max is "
                                      "missing", "give an integer", NULL}},
    {"table-last-bound.json", {"$.collectives.allreduce[0].rules[1] is the last rule",
                               "must have no bytes_max", NULL}},
    {"table-field-rule.json", {"$.collectives.bcast[0].rules[0] has unknown field \"radix\"",
                               "valid fields: bytes_max, algorithm, k, predicted_us", NULL}},
    {"table-field-set.json", {"$.collectives.bcast[0] has unknown field \"nodes\"",
                              "valid fields: nodes_max, ppn_max, rules", NULL}},
    {"table-sets-type.json", {"$.collectives.bcast must be a non-empty array", NULL, NULL}},
    {"table-nb-name.json", {"$.nonblocking.iallreducex is not a nonblocking collective",
                            "valid: iallreduce, ibcast, ", ", iscan, igatherv, iscatterv"}},
};

static void path_of(const char *file, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", data_dir, file);
}

static void test_bad_tables(void)
{
    for (size_t i = 0; i < sizeof bad_tables / sizeof bad_tables[0]; i++) {
        const bad_table_t *b = &bad_tables[i];
        char path[512], err[1024], head[600];
        path_of(b->file, path, sizeof path);
        err[0] = 0;
        hyt_table_t *t = hyt_table_load(path, err, sizeof err);
        CHECK(t == NULL, "%s: loaded, want an error", b->file);
        hyt_table_free(t);
        snprintf(head, sizeof head, "table %s: ", path);
        CHECK(strncmp(err, head, strlen(head)) == 0, "%s: message does not start with the file: %s",
              b->file, err);
        CHECK(strchr(err, '\n') == NULL, "%s: message is more than one line: %s", b->file, err);
        for (int w = 0; w < 3; w++)
            if (b->want[w])
                CHECK(strstr(err, b->want[w]) != NULL, "%s: want \"%s\" in: %s", b->file,
                      b->want[w], err);
    }
    /* a message cut by a small buffer is still terminated */
    char small[24];
    char path[512];
    path_of("table-order.json", path, sizeof path);
    CHECK(hyt_table_load(path, small, sizeof small) == NULL && strlen(small) < sizeof small,
          "short error buffer");
}

/* The rule set's index of the rule hyt_rules_lookup returns. */
static int rule_at(const hyt_rule_set_t *s, size_t bytes)
{
    return (int)(hyt_rules_lookup(s, bytes) - s->rules);
}

static void test_good_table(void)
{
    char path[512], err[1024] = "";
    path_of("table-good.json", path, sizeof path);
    hyt_table_t *t = hyt_table_load(path, err, sizeof err);
    CHECK(t != NULL, "table-good.json refused: %s", err);
    if (!t)
        return;
    CHECK(strcmp(t->path, path) == 0, "path %s", t->path);
    CHECK(t->platform_nodes == 16 && t->platform_ppn == 8, "platform %d x %d",
          t->platform_nodes, t->platform_ppn);
    CHECK(t->platform_mpi && strcmp(t->platform_mpi, "MPICH 4.0.2") == 0, "platform mpi");
    CHECK(t->nsets[HYT_COLL_ALLREDUCE] == 3 && t->nsets[HYT_COLL_BCAST] == 1 &&
              t->nsets[HYT_COLL_REDUCE] == 0,
          "set counts %d %d %d", t->nsets[HYT_COLL_ALLREDUCE], t->nsets[HYT_COLL_BCAST],
          t->nsets[HYT_COLL_REDUCE]);

    /* rule sets by communicator shape: first set that bounds both */
    const hyt_rule_set_t *ar = t->sets[HYT_COLL_ALLREDUCE];
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 1, 1) == &ar[0], "1x1");
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 1, 8) == &ar[0], "1x8 (both bounds exact)");
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 1, 9) == &ar[1], "1x9 (ppn bound +1)");
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 2, 8) == &ar[1], "2x8 (nodes bound +1)");
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 4, 1000) == &ar[1], "4x1000 (no ppn bound)");
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 5, 1) == &ar[2], "5x1");
    CHECK(hyt_table_match(t, HYT_COLL_ALLREDUCE, 100000, 100000) == &ar[2], "catch-all");
    CHECK(ar[2].nodes_max == INT32_MAX && ar[2].ppn_max == INT32_MAX, "absent bounds");
    const hyt_rule_set_t *bc = t->sets[HYT_COLL_BCAST];
    CHECK(hyt_table_match(t, HYT_COLL_BCAST, 2, 2) == &bc[0], "bcast 2x2");
    CHECK(hyt_table_match(t, HYT_COLL_BCAST, 3, 1) == NULL, "bcast 3x1 must not match");
    CHECK(hyt_table_match(t, HYT_COLL_BCAST, 1, 3) == NULL, "bcast 1x3 must not match");
    CHECK(hyt_table_match(t, HYT_COLL_REDUCE, 1, 1) == NULL, "reduce has no set");
    CHECK(hyt_table_match(NULL, HYT_COLL_ALLREDUCE, 1, 1) == NULL, "no table");

    /* every threshold: exact bytes_max stays, +1 moves on */
    static const struct { size_t bytes; int rule; double us; } probes[] = {
        {0, 0, 0.5}, {1, 1, 1}, {63, 1, 1}, {64, 1, 1}, {65, 2, 2.5}, {4096, 2, 2.5},
        {4097, 3, 300}, {1048576, 3, 300}, {1048577, 4, 9000}, {SIZE_MAX, 4, 9000},
    };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        int r = rule_at(&ar[0], probes[i].bytes);
        CHECK(r == probes[i].rule && ar[0].rules[r].predicted_us == probes[i].us,
              "%zu bytes: rule %d (%g us), want %d", probes[i].bytes, r,
              ar[0].rules[r].predicted_us, probes[i].rule);
    }
    CHECK(ar[0].rules[4].bytes_max == UINT64_MAX, "last rule unbounded");
    CHECK(rule_at(&ar[1], 8) == 0 && rule_at(&ar[1], 9) == 1, "set 1 threshold 8");
    CHECK(ar[1].rules[1].predicted_us < 0, "absent predicted_us must read as unknown (<0)");
    CHECK(rule_at(&ar[2], 0) == 0 && rule_at(&ar[2], SIZE_MAX) == 0, "single rule");
    CHECK(ar[2].rules[0].k == 0 && ar[2].rules[0].alg == hyt_alg_native(HYT_COLL_ALLREDUCE),
          "native rule");
    CHECK(bc[0].rules[0].alg == hyt_alg_native(HYT_COLL_BCAST), "bcast native row");
    hyt_table_free(t);
    hyt_table_free(NULL);
}

/* Binary search against a linear scan on generated sets of 1..40 rules. */
static void test_lookup_exhaustive(void)
{
    hyt_rule_t rules[40];
    uint64_t seed = 12345;
    int mismatches = 0;
    for (int n = 1; n <= 40; n++) {
        uint64_t b = 0;
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            b += 1 + (seed >> 40) % 5000; /* strictly increasing */
            rules[i].bytes_max = i == n - 1 ? UINT64_MAX : b;
        }
        hyt_rule_set_t s = {.nodes_max = 1, .ppn_max = 1, .nrules = n, .rules = rules};
        for (int i = 0; i < n; i++) {
            uint64_t edges[3] = {rules[i].bytes_max - 1, rules[i].bytes_max,
                                 rules[i].bytes_max + 1};
            for (int e = 0; e < 3; e++) {
                if (edges[e] > SIZE_MAX)
                    continue;
                int want = 0;
                while (rules[want].bytes_max < edges[e])
                    want++;
                mismatches += rule_at(&s, (size_t)edges[e]) != want;
            }
        }
    }
    CHECK(mismatches == 0, "%d lookups disagree with a linear scan", mismatches);
}

/* With a radix algorithm registered: k parsed and checked in a table. */
static const hyt_alg_t *first_radix_alg(void)
{
    for (int i = 0; i < hyt_nalgs; i++)
        if (hyt_alg_has_radix(&hyt_algs[i]))
            return &hyt_algs[i];
    return NULL;
}

static hyt_table_t *load_text(const char *text, char *err, size_t errlen, char *path)
{
    strcpy(path, "/tmp/hyt-test-table-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    ssize_t w = write(fd, text, strlen(text));
    close(fd);
    hyt_table_t *t = w == (ssize_t)strlen(text) ? hyt_table_load(path, err, errlen) : NULL;
    unlink(path);
    return t;
}

static void test_radix_table(void)
{
    const hyt_alg_t *a = first_radix_alg();
    if (!a) {
        printf("test_table: no radix algorithm registered yet; radix table cases skipped\n");
        return;
    }
    const char *cn = hyt_coll_name(a->coll);
    char text[1024], err[1024], path[64];
    snprintf(text, sizeof text,
             "{\"format\": 1, \"collectives\": {\"%s\": [{\"rules\": ["
             "{\"bytes_max\": 64, \"algorithm\": \"%s\", \"k\": %d},"
             "{\"bytes_max\": 4096, \"algorithm\": \"native\"},"
             "{\"algorithm\": \"%s\"}]}]}}",
             cn, a->name, a->k_min + 1, a->name);
    hyt_table_t *t = load_text(text, err, sizeof err, path);
    CHECK(t != NULL, "radix table refused: %s", err);
    if (t) {
        const hyt_rule_set_t *s = hyt_table_match(t, a->coll, 4, 4);
        CHECK(s && hyt_rules_lookup(s, 64)->alg == a && hyt_rules_lookup(s, 64)->k == a->k_min + 1,
              "%s:%d at 64 bytes", a->name, a->k_min + 1);
        CHECK(s && hyt_rules_lookup(s, 65)->alg == hyt_alg_native(a->coll), "native at 65 B");
        CHECK(s && hyt_rules_lookup(s, 4097)->alg == a && hyt_rules_lookup(s, 4097)->k == a->k_min,
              "absent k must default to k_min %d", a->k_min);
        hyt_table_free(t);
    }
    static const char *const bad_k[] = {"%d", "%d", "\"%d\""};
    int ks[] = {a->k_min - 1, HYT_K_LIMIT + 1, a->k_min};
    for (int i = 0; i < 3; i++) {
        char kv[32];
        snprintf(kv, sizeof kv, bad_k[i], ks[i]);
        snprintf(text, sizeof text,
                 "{\"format\": 1, \"collectives\": {\"%s\": [{\"rules\": ["
                 "{\"algorithm\": \"%s\", \"k\": %s}]}]}}", cn, a->name, kv);
        t = load_text(text, err, sizeof err, path);
        CHECK(t == NULL && strstr(err, path) && strstr(err, "rules[0].k") &&
                  (i == 2 ? strstr(err, "must be an integer") != NULL
                          : strstr(err, "give an integer in") != NULL),
              "%s k=%s: %s", a->name, kv, err);
        hyt_table_free(t);
    }
}

/* Format 2: a rule's shortlist (src/table.c parse_shortlist). */
static void test_shortlist_table(void)
{
    const hyt_alg_t *a = first_radix_alg();
    if (!a)
        return;
    const char *cn = hyt_coll_name(a->coll);
    char text[1024], err[1024], path[64];
    snprintf(text, sizeof text,
             "{\"format\": 2, \"collectives\": {\"%s\": [{\"rules\": ["
             "{\"bytes_max\": 64, \"algorithm\": \"%s\", \"k\": %d, \"predicted_us\": 5,"
             " \"spread_us\": 0.5, \"shortlist\": [{\"algorithm\": \"native\", "
             "\"predicted_us\": 5.4, \"spread_us\": 1}]},"
             "{\"algorithm\": \"%s\"}]}]}}",
             cn, a->name, a->k_min + 1, a->name);
    hyt_table_t *t = load_text(text, err, sizeof err, path);
    CHECK(t != NULL, "format 2 table refused: %s", err);
    if (t) {
        const hyt_rule_set_t *s = hyt_table_match(t, a->coll, 4, 4);
        const hyt_rule_t *r = s ? hyt_rules_lookup(s, 64) : NULL;
        CHECK(r && r->nshort == 2 && r->shortlist[0].alg == a &&
                  r->shortlist[0].k == a->k_min + 1 && r->shortlist[0].predicted_us == 5 &&
                  r->shortlist[0].spread_us == 0.5 &&
                  r->shortlist[1].alg == hyt_alg_native(a->coll) && r->shortlist[1].k == 0 &&
                  r->shortlist[1].predicted_us == 5.4 && r->shortlist[1].spread_us == 1,
              "shortlist of rule 0: %d entries", r ? r->nshort : -1);
        r = s ? hyt_rules_lookup(s, 65) : NULL;
        CHECK(r && r->nshort == 1 && r->shortlist[0].alg == a && r->shortlist[0].k == a->k_min &&
                  r->shortlist[0].predicted_us < 0 && r->shortlist[0].spread_us < 0,
              "a rule without a shortlist is a shortlist of one");
        hyt_table_free(t);
    }
    /* format 1 still loads: every rule a shortlist of one */
    snprintf(text, sizeof text,
             "{\"format\": 1, \"collectives\": {\"%s\": [{\"rules\": ["
             "{\"algorithm\": \"%s\", \"k\": %d, \"predicted_us\": 3}]}]}}",
             cn, a->name, a->k_min);
    t = load_text(text, err, sizeof err, path);
    CHECK(t && hyt_table_match(t, a->coll, 1, 1)->rules[0].nshort == 1 &&
              hyt_table_match(t, a->coll, 1, 1)->rules[0].shortlist[0].predicted_us == 3,
          "format 1 table: %s", t ? "wrong shortlist" : err);
    hyt_table_free(t);
    struct {
        int format;
        const char *list;   /* the shortlist's JSON */
        const char *want[2];
    } bad[] = {
        {2, "[{\"algorithm\": \"fastest\"}]",
         {"rules[0].shortlist[0].algorithm \"fastest\" is not an algorithm of", "hytune list"}},
        {2, "[{\"algorithm\": \"%s\", \"k\": 70000}]",
         {"rules[0].shortlist[0].k = 70000 is out of range", "give an integer in"}},
        {2, "[{\"algorithm\": \"%s\", \"k\": 0}]",
         {"rules[0].shortlist[0].k = 0 is out of range", "give an integer in"}},
        {2, "[{\"algorithm\": \"native\", \"k\": 4}]",
         {"rules[0].shortlist[0].k: algorithm native takes no radix", "remove k"}},
        {2, "[{\"algorithm\": \"native\"}, {\"algorithm\": \"native\"}]",
         {"rules[0].shortlist[1].algorithm \"native\" is already a candidate", "one entry"}},
        {2, "[{\"algorithm\": \"%s\", \"k\": 2}]",
         {"rules[0].shortlist[0].algorithm", "is already a candidate"}},
        {2, "[{\"algorithm\": \"native\", \"radix\": 2}]",
         {"rules[0].shortlist[0] has unknown field \"radix\"", "valid fields: algorithm"}},
        {2, "[{\"algorithm\": \"native\", \"spread_us\": -1}]",
         {"rules[0].shortlist[0].spread_us = -1 is negative", "fix or remove"}},
        {2, "[{\"algorithm\": \"native\", \"predicted_us\": \"1\"}]",
         {"rules[0].shortlist[0].predicted_us must be a number", "fix or remove"}},
        {2, "{\"algorithm\": \"native\"}", {"rules[0].shortlist must be an array of at most 3",
                                              "shorten or remove"}},
        {2, "[1]", {"rules[0].shortlist[0] must be an object", NULL}},
        {2, "[{}, {}, {}, {}]", {"rules[0].shortlist must be an array of at most 3", NULL}},
        {1, "[{\"algorithm\": \"native\"}]",
         {"rules[0] has unknown field \"shortlist\"", "need \"format\": 2"}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char list[256];
        snprintf(list, sizeof list, bad[i].list, a->name);
        snprintf(text, sizeof text,
                 "{\"format\": %d, \"collectives\": {\"%s\": [{\"rules\": ["
                 "{\"algorithm\": \"%s\", \"k\": %d, \"shortlist\": %s}]}]}}",
                 bad[i].format, cn, a->name, a->k_min, list);
        t = load_text(text, err, sizeof err, path);
        CHECK(t == NULL && strstr(err, path) && strstr(err, "$.collectives.") &&
                  strstr(err, bad[i].want[0]) && (!bad[i].want[1] || strstr(err, bad[i].want[1])),
              "bad shortlist %s: %s", list, t ? "accepted" : err);
        hyt_table_free(t);
    }
}

/* $.tuning: its k_max (the largest radix the tuner tried) is kept; a table
 * without it (an older one) has none; a bad one is refused by path. */
static void test_tuning_kmax(void)
{
    char text[512], err[1024], path[64];
    const char *colls = "\"collectives\": {\"bcast\": [{\"rules\": [{\"algorithm\": \"native\"}]}]}";
    snprintf(text, sizeof text, "{\"format\": 2, \"tuning\": {\"arrival\": \"sync\", "
             "\"metric\": \"slowest rank's call\", \"k_max\": 8}, %s}", colls);
    hyt_table_t *t = load_text(text, err, sizeof err, path);
    CHECK(t && t->k_max == 8, "tuning.k_max 8: %s", t ? "not kept" : err);
    hyt_table_free(t);
    const char *none[] = {"", "\"tuning\": {\"arrival\": \"sync\"}, ",
                          "\"tuning\": {\"k_max\": null}, "};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "{\"format\": %d, %s%s}", 1 + (i > 0), none[i], colls);
        t = load_text(text, err, sizeof err, path);
        CHECK(t && t->k_max == 0, "no k_max (%s): %s", none[i], t ? "a bound" : err);
        hyt_table_free(t);
    }
    struct { const char *tuning, *want; } bad[] = {
        {"{\"k_max\": 1}", "$.tuning.k_max = 1 is out of range; give an integer in 2..65536"},
        {"{\"k_max\": 65537}", "$.tuning.k_max = 65537 is out of range"},
        {"{\"k_max\": \"8\"}", "$.tuning.k_max must be an integer, not a string"},
        {"[8]", "$.tuning must be an object {arrival, metric, k_max}; fix or remove it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "{\"format\": 2, \"tuning\": %s, %s}", bad[i].tuning, colls);
        t = load_text(text, err, sizeof err, path);
        CHECK(t == NULL && strstr(err, path) && strstr(err, bad[i].want), "tuning %s: %s",
              bad[i].tuning, t ? "loaded" : err);
        hyt_table_free(t);
    }
}

/* The private duplicate's ski rental (docs/memory.md): a blocking rule
 * set's setup_us and a rule's native_us are kept; a table without them has
 * none (-1); a bad value, or either in a format-1 table, is refused by path. */
#define FIT(x, a, b, lo, hi)                                                                   \
    "\"setup_fit\": {\"x\": \"" x "\", \"a_us\": " a ", \"b_us\": " b ", \"ranks_min\": " lo       \
    ", \"ranks_max\": " hi "}, "
static void test_setup_fields(void)
{
    char text[768], err[1024], path[64];
    snprintf(text, sizeof text, "{\"format\": 2, \"collectives\": {\"bcast\": ["
             "{\"nodes_max\": 1, \"setup_us\": 131.5, \"rules\": [{\"bytes_max\": 64, "
             "\"algorithm\": \"knomial\", \"k\": 2, \"predicted_us\": 3, \"native_us\": 4.25}, "
             "{\"algorithm\": \"native\"}]}, {\"rules\": [{\"algorithm\": \"knomial\", \"k\": 2}]}]}}");
    hyt_table_t *t = load_text(text, err, sizeof err, path);
    const hyt_rule_set_t *s = t ? hyt_table_match(t, HYT_COLL_BCAST, 1, 4) : NULL,
                         *s2 = t ? hyt_table_match(t, HYT_COLL_BCAST, 2, 4) : NULL;
    CHECK(s && s2 && s->setup_us == 131.5 && s->rules[0].native_us == 4.25 &&
              s->rules[0].predicted_us == 3 && s->rules[1].native_us < 0 && s2->setup_us < 0 &&
              s2->rules[0].native_us < 0,
          "setup_us and native_us: %s", t ? "not kept" : err);
    /* without setup_fit the cost is setup_us at every size (or unknown) */
    CHECK(s && s2 && s->setup_fit.x == HYT_SETUP_FIT_NONE && hyt_setup_cost(s, 1024) == 131.5 &&
              hyt_setup_cost(s2, 2) < 0,
          "no setup_fit: cost %g, %g", s ? hyt_setup_cost(s, 1024) : 0,
          s2 ? hyt_setup_cost(s2, 2) : 0);
    hyt_table_free(t);
    /* setup_fit: kept and evaluated at the communicator's size, with or without setup_us */
    snprintf(text, sizeof text, "{\"format\": 2, \"collectives\": {\"bcast\": ["
             "{\"nodes_max\": 1, \"setup_us\": 30, " FIT("ranks", "-2", "2", "2", "16")
             "\"rules\": [{\"algorithm\": \"native\"}]}, {" FIT("log2_ranks", "1.5", "4", "4", "4")
             "\"rules\": [{\"algorithm\": \"native\"}]}]}}");
    t = load_text(text, err, sizeof err, path);
    s = t ? hyt_table_match(t, HYT_COLL_BCAST, 1, 4) : NULL;
    s2 = t ? hyt_table_match(t, HYT_COLL_BCAST, 2, 4) : NULL;
    CHECK(s && s2 && s->setup_fit.x == HYT_SETUP_FIT_RANKS && s->setup_fit.ranks_max == 16 &&
              hyt_setup_cost(s, 256) == 510 && s2->setup_us < 0 &&
              s2->setup_fit.x == HYT_SETUP_FIT_LOG2 && hyt_setup_cost(s2, 8) == 13.5,
          "setup_fit: %s", t ? "not kept" : err);
    hyt_table_free(t);
    struct { int format; const char *set, *rule, *want[2]; } bad[] = {
        {2, "\"setup_us\": -1, ", "", {"$.collectives.bcast[0].setup_us = -1 is negative",
                                       "fix or remove it"}},
        {2, "\"setup_us\": \"100\", ", "", {"$.collectives.bcast[0].setup_us must be a number",
                                             "fix or remove it"}},
        {2, "", ", \"native_us\": -0.5", {"$.collectives.bcast[0].rules[0].native_us = -0.5 is "
                                           "negative", "fix or remove it"}},
        {2, "", ", \"native_us\": [1]", {"$.collectives.bcast[0].rules[0].native_us must be a "
                                          "number", "fix or remove it"}},
        {1, "", ", \"native_us\": 1", {"$.collectives.bcast[0].rules[0] has unknown field "
                                        "\"native_us\"", "need \"format\": 2"}},
        {1, "\"setup_us\": 1, ", "", {"$.collectives.bcast[0] has unknown field \"setup_us\"",
                                      "valid fields: nodes_max, ppn_max, rules"}},
        {1, FIT("ranks", "1", "2", "2", "16"), "", {"$.collectives.bcast[0] has unknown field "
                                                    "\"setup_fit\"", "valid fields"}},
        {2, "\"setup_fit\": 3, ", "", {"$.collectives.bcast[0].setup_fit must be an object",
                                       "fix or remove it"}},
        {2, FIT("p", "1", "2", "2", "16"), "", {"$.collectives.bcast[0].setup_fit.x = \"p\"",
                                               "give \"ranks\" or \"log2_ranks\""}},
        {2, FIT("ranks", "1", "-2", "2", "16"), "", {"$.collectives.bcast[0].setup_fit.b_us = -2 "
                                                     "is negative", "fix or remove it"}},
        {2, FIT("ranks", "\"1\"", "2", "2", "16"), "", {"$.collectives.bcast[0].setup_fit.a_us "
                                                        "must be a number", "fix or remove it"}},
        {2, FIT("ranks", "1", "2", "0", "16"), "", {"$.collectives.bcast[0].setup_fit.ranks_min = 0 "
                                                    "is out of range", "give an integer"}},
        {2, FIT("ranks", "1", "2", "16", "8"), "", {"$.collectives.bcast[0].setup_fit.ranks_max = 8 "
                                                    "is below ranks_min = 16", "fix or remove it"}},
        {2, "\"setup_fit\": {\"x\": \"ranks\", \"a_us\": 1, \"b_us\": 2, \"ranks_min\": 2}, ", "",
         {"$.collectives.bcast[0].setup_fit.ranks_max is missing", "or remove setup_fit"}},
        {2, "\"setup_fit\": {\"x\": \"ranks\", \"a_us\": 1, \"b_us\": 2, \"ranks_min\": 2, "
            "\"ranks_max\": 4, \"c_us\": 0}, ", "",
         {"$.collectives.bcast[0].setup_fit has unknown field \"c_us\"", "valid fields: x, a_us"}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "{\"format\": %d, \"collectives\": {\"bcast\": [{%s"
                 "\"rules\": [{\"algorithm\": \"knomial\", \"k\": 2%s}]}]}}", bad[i].format, bad[i].set,
                 bad[i].rule);
        t = load_text(text, err, sizeof err, path);
        CHECK(t == NULL && strstr(err, path) && strstr(err, bad[i].want[0]) &&
                  strstr(err, bad[i].want[1]),
              "bad %s%s: %s", bad[i].set, bad[i].rule, t ? "loaded" : err);
        hyt_table_free(t);
    }
}

/* A rule's measured gains ("gains") and the set-up cost on the tuning job
 * ("setup_job"): kept, interpolated (hyt_rule_gain: in log2 bytes within a
 * scale, the lower of the two scales around the ranks, held outside; hyt_setup_cost: along
 * the fit's x from its ranks_max to the job, held above), and every bad
 * value refused by path with its fix. */
#define GAIN(r, b, u) "{\"ranks\": " r ", \"bytes\": " b ", \"us\": " u "}"
static void test_gains_fields(void)
{
    char text[1536], err[1024], path[64];
    snprintf(text, sizeof text, "{\"format\": 2, \"collectives\": {\"allreduce\": [{"
             FIT("ranks", "-2", "2", "2", "16") "\"setup_job\": {\"ranks\": 256, \"us\": 1000}, "
             "\"rules\": [{\"bytes_max\": 64, \"algorithm\": \"knomial\", \"k\": 2, "
             "\"predicted_us\": 4, \"native_us\": 100, \"gains\": [" GAIN("2", "4", "0") ", "
             GAIN("2", "64", "4") ", " GAIN("8", "4", "-2") ", " GAIN("8", "16", "2") ", "
             GAIN("8", "64", "12") "]}, {\"bytes_max\": 4096, \"algorithm\": \"knomial\", "
             "\"k\": 2, \"predicted_us\": 4, \"native_us\": 10}, {\"algorithm\": \"native\"}]}], "
             "\"bcast\": [{" FIT("log2_ranks", "1.5", "4", "4", "4")
             "\"setup_job\": {\"ranks\": 64, \"us\": 100}, \"rules\": [{\"algorithm\": "
             "\"knomial\", \"k\": 2}]}]}}");
    hyt_table_t *t = load_text(text, err, sizeof err, path);
    const hyt_rule_set_t *s = t ? hyt_table_match(t, HYT_COLL_ALLREDUCE, 1, 1) : NULL,
                         *sb = t ? hyt_table_match(t, HYT_COLL_BCAST, 1, 1) : NULL;
    CHECK(s && sb && s->rules[0].ngains == 5 && s->rules[0].gains[4].ranks == 8 &&
              s->rules[0].gains[4].bytes == 64 && s->rules[0].gains[4].us == 12 &&
              s->rules[0].gains[2].us == -2 && s->rules[1].ngains == 0,
          "gains: %s", t ? "not kept" : err);
    if (s && sb) {
        const hyt_rule_t *r0 = &s->rules[0], *r1 = &s->rules[1], *r2 = &s->rules[2];
        struct { const hyt_rule_t *r; int ranks; uint64_t bytes; double want; int known; } g[] = {
            {r0, 2, 64, 4, 1},   /* measured */
            {r0, 2, 16, 2, 1},   /* log2 bytes: 16 is halfway from 4 to 64 */
            {r0, 2, 1, 0, 1},    /* below the smallest size measured: held */
            {r0, 8, 8, 0, 1},    /* halfway from -2 (4 B) to 2 (16 B) */
            {r0, 4, 64, 4, 1},   /* between scales: the lower, 4 at 2 ranks (12 at 8) */
            {r0, 4, 16, 2, 1},   /* 2 at 2 ranks, 2 at 8 */
            {r0, 4, 4, -2, 1},   /* 0 at 2 ranks, -2 at 8: negative is kept */
            {r0, 1, 64, 4, 1},   /* below the smallest scale: held */
            {r0, 1024, 64, 12, 1}, /* above the job's: held, not extrapolated */
            {r0, 1024, UINT64_MAX, 12, 1},
            {r1, 256, 128, 6, 1},  /* no gains: native_us - predicted_us */
            {r2, 256, 8192, 0, 0}, /* neither: unknown */
        };
        for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
            int known = -1;
            double v = hyt_rule_gain(g[i].r, g[i].ranks, g[i].bytes, &known);
            CHECK(fabs(v - g[i].want) < 1e-9 && known == g[i].known,
                  "gain at %d ranks, %llu B: %g (known %d), want %g (known %d)", g[i].ranks,
                  (unsigned long long)g[i].bytes, v, known, g[i].want, g[i].known);
        }
        /* the fit up to 16 ranks (-2 + 2 p), the job's 1000 us at 256 */
        struct { const hyt_rule_set_t *s; int ranks; double want; } c[] = {
            {s, 8, 14}, {s, 16, 30}, {s, 136, 515}, {s, 256, 1000}, {s, 4096, 1000},
            {sb, 4, 9.5}, {sb, 16, 54.75}, {sb, 64, 100}, {sb, 128, 100},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            CHECK(fabs(hyt_setup_cost(c[i].s, c[i].ranks) - c[i].want) < 1e-9,
                  "set-up cost at %d ranks: %g, want %g", c[i].ranks,
                  hyt_setup_cost(c[i].s, c[i].ranks), c[i].want);
    }
    hyt_table_free(t);
    struct { int format; const char *set, *gains, *want[2]; } bad[] = {
        {2, "", "3", {"rules[0].gains must be an array of at most 16", "shorten or remove it"}},
        {2, "", "[3]", {"rules[0].gains[0] must be an object {ranks, bytes, us}", NULL}},
        {2, "", "[{\"ranks\": 2, \"bytes\": 8, \"us\": 1, \"sd\": 0}]",
         {"rules[0].gains[0] has unknown field \"sd\"", "valid fields: ranks, bytes, us"}},
        {2, "", "[" GAIN("0", "8", "1") "]", {"rules[0].gains[0].ranks = 0 is out of range",
                                              "give an integer in 1.."}},
        {2, "", "[" GAIN("2", "65", "1") "]", {"rules[0].gains[0].bytes = 65 is out of range",
                                               "give an integer in 0..64"}},
        {2, "", "[{\"ranks\": 2, \"bytes\": 8}]", {"rules[0].gains[0].us must be a finite "
                                                     "number", "fix or remove the entry"}},
        {2, "", "[" GAIN("2", "8", "\"1\"") "]", {"rules[0].gains[0].us must be a finite number",
                                                  NULL}},
        {2, "", "[" GAIN("4", "8", "1") ", " GAIN("2", "16", "1") "]",
         {"rules[0].gains[1] (ranks 2, bytes 16) does not follow the entry before it (ranks 4, "
          "bytes 8)", "order the gains by ranks, then by bytes"}},
        {2, "", "[" GAIN("2", "8", "1") ", " GAIN("2", "8", "2") "]",
         {"rules[0].gains[1] (ranks 2, bytes 8) does not follow", "each pair once"}},
        {1, "", "[" GAIN("2", "8", "1") "]", {"rules[0] has unknown field \"gains\"",
                                              "need \"format\": 2"}},
        {2, "\"setup_job\": {\"ranks\": 64, \"us\": 100}, ", "[]",
         {"$.collectives.allreduce[0].setup_job needs $.collectives.allreduce[0].setup_fit",
          "add it or remove setup_job"}},
        {2, FIT("ranks", "1", "2", "2", "16") "\"setup_job\": {\"ranks\": 16, \"us\": 100}, ", "[]",
         {"setup_job.ranks = 16 is out of range", "give an integer in 17.."}},
        {2, FIT("ranks", "1", "2", "2", "16") "\"setup_job\": {\"ranks\": 64, \"us\": -1}, ", "[]",
         {"setup_job.us = -1 is negative", "fix or remove it"}},
        {2, FIT("ranks", "1", "2", "2", "16") "\"setup_job\": {\"ranks\": 64}, ", "[]",
         {"setup_job.us must be a finite number of microseconds", "remove setup_job"}},
        {2, FIT("ranks", "1", "2", "2", "16") "\"setup_job\": {\"ranks\": 64, \"us\": 1, "
            "\"p\": 2}, ", "[]", {"setup_job has unknown field \"p\"", "valid fields: ranks, us"}},
        {2, FIT("ranks", "1", "2", "2", "16") "\"setup_job\": [64, 1], ", "[]",
         {"setup_job must be an object {ranks, us}", "fix or remove it"}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "{\"format\": %d, \"collectives\": {\"allreduce\": [{%s"
                 "\"rules\": [{\"bytes_max\": 64, \"algorithm\": \"knomial\", \"k\": 2, "
                 "\"gains\": %s}, {\"algorithm\": \"native\"}]}]}}", bad[i].format, bad[i].set,
                 bad[i].gains);
        t = load_text(text, err, sizeof err, path);
        CHECK(t == NULL && strstr(err, path) && strstr(err, bad[i].want[0]) &&
                  (!bad[i].want[1] || strstr(err, bad[i].want[1])),
              "bad %s%s: %s", bad[i].set, bad[i].gains, t ? "loaded" : err);
        hyt_table_free(t);
    }
    /* a gain of the second rule lies above the first rule's bytes_max */
    snprintf(text, sizeof text, "{\"format\": 2, \"collectives\": {\"allreduce\": [{\"rules\": "
             "[{\"bytes_max\": 64, \"algorithm\": \"native\"}, {\"algorithm\": \"knomial\", "
             "\"k\": 2, \"gains\": [" GAIN("2", "64", "1") "]}]}]}}");
    t = load_text(text, err, sizeof err, path);
    CHECK(t == NULL && strstr(err, "rules[1].gains[0].bytes = 64 is out of range") &&
              strstr(err, "give an integer in 65.."),
          "gain below its rule's sizes: %s", t ? "loaded" : err);
    hyt_table_free(t);
}

/* MPI_COMM_WORLD's set-up as the tuner measured it ("setup_world"): kept;
 * the early duplicate's decision (hyt_setup_world_early: a duplicate made
 * before the first collective costs dup_us - first_us, at least 0; made
 * there when that is at most half of dup_us); every bad value refused by
 * path with its fix. */
static void test_setup_world(void)
{
    struct { hyt_setup_world_t w; int want; } d[] = {
        {{256, 1037.6, 1044.2}, 1}, /* SimGrid's MPICH selection, dragonfly-256 */
        {{16, 145.2, 141.2}, 1},    /* cluster-small, 16 ranks: 4 us left of 145 */
        {{2, 15.0, 0}, 0},          /* a library that sets it up in MPI_Init */
        {{64, 100, 50}, 1},         /* exactly half left */
        {{64, 100, 49.9}, 0},
        {{64, 0, 0}, 0},            /* nothing to save, nothing measured */
        {{0, 100, 100}, 0},         /* not measured */
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        CHECK(hyt_setup_world_early(&d[i].w) == d[i].want,
              "setup_world {%d, %g, %g}: early %d, want %d", d[i].w.ranks, d[i].w.dup_us,
              d[i].w.first_us, hyt_setup_world_early(&d[i].w), d[i].want);
    char text[1024], err[1024], path[64];
    const char *rules = "\"collectives\": {\"allreduce\": [{\"rules\": [{\"algorithm\": "
                        "\"native\"}]}]}";
    snprintf(text, sizeof text, "{\"format\": 2, \"setup_world\": {\"ranks\": 256, \"dup_us\": "
             "1037.6, \"first_us\": 1044.2}, %s}", rules);
    hyt_table_t *t = load_text(text, err, sizeof err, path);
    CHECK(t && t->world.ranks == 256 && t->world.dup_us == 1037.6 &&
              t->world.first_us == 1044.2, "setup_world: %s", t ? "not kept" : err);
    hyt_table_free(t);
    snprintf(text, sizeof text, "{\"format\": 2, %s}", rules);
    t = load_text(text, err, sizeof err, path);
    CHECK(t && t->world.ranks == 0 && !hyt_setup_world_early(&t->world),
          "no setup_world: %s", t ? "measured" : err);
    hyt_table_free(t);
    struct { const char *w, *want[2]; } bad[] = {
        {"[256, 1, 1]", {"$.setup_world must be an object {ranks, dup_us, first_us}",
                         "fix or remove it"}},
        {"{\"ranks\": 256, \"dup_us\": 1, \"first_us\": 1, \"x\": 1}",
         {"$.setup_world has unknown field \"x\"", "valid fields: ranks, dup_us, first_us"}},
        {"{\"dup_us\": 1, \"first_us\": 1}", {"$.setup_world.ranks is missing", NULL}},
        {"{\"ranks\": 0, \"dup_us\": 1, \"first_us\": 1}",
         {"$.setup_world.ranks = 0 is out of range", NULL}},
        {"{\"ranks\": 4, \"dup_us\": -1, \"first_us\": 1}",
         {"$.setup_world.dup_us = -1 is negative", "fix or remove it"}},
        {"{\"ranks\": 4, \"dup_us\": 1}",
         {"$.setup_world needs dup_us and first_us", "fix or remove it"}},
        {"{\"ranks\": 4, \"dup_us\": 1, \"first_us\": \"2\"}",
         {"$.setup_world.first_us must be a number", NULL}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "{\"format\": 2, \"setup_world\": %s, %s}", bad[i].w, rules);
        t = load_text(text, err, sizeof err, path);
        CHECK(t == NULL && strstr(err, path) && strstr(err, bad[i].want[0]) &&
                  (!bad[i].want[1] || strstr(err, bad[i].want[1])),
              "bad setup_world %s: %s", bad[i].w, t ? "loaded" : err);
        hyt_table_free(t);
    }
}

int main(int argc, char **argv)
{
    data_dir = argc > 1 ? argv[1] : "test/data";
    test_bad_tables();
    test_good_table();
    test_lookup_exhaustive();
    test_radix_table();
    test_shortlist_table();
    test_tuning_kmax();
    test_setup_fields();
    test_gains_fields();
    test_setup_world();
    return check_done("test_table");
}
