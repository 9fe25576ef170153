/* Cross-rank check of online decisions in per-rank statistics files.
 *
 *   test_online_statscmp [--min-settled N] [--max-after-hot C] A.json B.json ...
 * reads the JSON files HYTUNE_STATS=PATH.%r wrote (one per rank) and checks
 * that every key's "online" record (start k, probe sequence with global
 * times, settled k, counts) is byte-identical on every rank: the records
 * hold only agreed values, so any difference means ranks decided apart.
 * Also checks at least N keys settled, each within C calls after turning
 * hot.  Without files it tests itself on generated files (identical ones
 * pass, one changed probe fails).
 *   test_online_statscmp --decisions A.json B.json ...
 * compares every key's decisions instead (each communicator's shape, each
 * key's calls, algorithm and k, what chose it, its tuned, native and
 * fallback counts, its online record; not its times): one rank's files of
 * two runs that must decide alike (with and without an allocation failing
 * on some rank: test/mpi/alloc_agree.sh). */
#include "test/check.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int keys, settled;
    long long max_after_hot;
} summary_t;

static int decisions; /* --decisions: every key's decisions, not only online records */

/* A key's fields that --decisions compares (not its times). */
static const char *const decision_fields[] = {"call", "calls", "bytes", "algorithm", "k",
                                              "source", "tuned_calls", "native_calls",
                                              "native_reason", "fallbacks", "online"};

/* The decision fields of key k, as one JSON object's text, into out. */
static int key_decisions(json_object *c, json_object *k, char *out, size_t len)
{
    json_object *d = json_object_new_object(), *v;
    static const char *const comm_fields[] = {"size", "nodes", "ppn"};
    for (size_t i = 0; i < sizeof comm_fields / sizeof *comm_fields; i++)
        if (json_object_object_get_ex(c, comm_fields[i], &v))
            json_object_object_add(d, comm_fields[i], json_object_get(v));
    for (size_t i = 0; i < sizeof decision_fields / sizeof *decision_fields; i++)
        if (json_object_object_get_ex(k, decision_fields[i], &v))
            json_object_object_add(d, decision_fields[i], json_object_get(v));
    int n = snprintf(out, len, "%s", json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN));
    json_object_put(d);
    return n;
}

/* Append one line per tuned key of root to buf (--decisions: per key); fills s. */
static int digest(json_object *root, char *buf, size_t len, summary_t *s)
{
    json_object *comms;
    size_t used = 0;
    buf[0] = 0;
    memset(s, 0, sizeof *s);
    if (!json_object_object_get_ex(root, "communicators", &comms))
        return -1;
    for (size_t i = 0; i < json_object_array_length(comms); i++) {
        json_object *c = json_object_array_get_idx(comms, i), *keys, *sz;
        if (!json_object_object_get_ex(c, "keys", &keys) || !json_object_object_get_ex(c, "size", &sz))
            return -1;
        for (size_t j = 0; j < json_object_array_length(keys); j++) {
            json_object *k = json_object_array_get_idx(keys, j), *on, *coll, *b, *ah;
            if (decisions) {
                char line[16384];
                if (key_decisions(c, k, line, sizeof line) >= (int)sizeof line)
                    return -1;
                int n = snprintf(buf + used, len - used, "comm %zu key %zu: %s\n", i, j, line);
                if (n < 0 || (size_t)n >= len - used)
                    return -1;
                used += (size_t)n;
                s->keys++;
                continue;
            }
            if (!json_object_object_get_ex(k, "online", &on))
                continue;
            json_object_object_get_ex(k, "collective", &coll);
            json_object_object_get_ex(k, "bucket", &b);
            s->keys++;
            if (json_object_object_get_ex(on, "calls_after_hot", &ah) && ah) {
                s->settled++;
                long long a = json_object_get_int64(ah);
                if (a > s->max_after_hot)
                    s->max_after_hot = a;
            }
            int n = snprintf(buf + used, len - used, "comm %zu (size %d) %s bucket %d: %s\n", i,
                             json_object_get_int(sz), json_object_get_string(coll),
                             json_object_get_int(b),
                             json_object_to_json_string_ext(on, JSON_C_TO_STRING_PLAIN));
            if (n < 0 || (size_t)n >= len - used)
                return -1;
            used += (size_t)n;
        }
    }
    return 0;
}

static char ref[1 << 20], cur[1 << 20];

/* 0 if all files agree and the summary meets the limits. */
static int compare(int nfiles, char **files, int min_settled, long long max_after_hot, int quiet)
{
    summary_t s0 = {0}, s;
    int bad = 0;
    for (int f = 0; f < nfiles; f++) {
        json_object *root = json_object_from_file(files[f]);
        if (!root) {
            fprintf(stderr, "%s: cannot read JSON\n", files[f]);
            return 1;
        }
        int rc = digest(root, f ? cur : ref, sizeof ref, f ? &s : &s0);
        json_object_put(root);
        if (rc) {
            fprintf(stderr, "%s: not a hytune statistics file (or too large)\n", files[f]);
            return 1;
        }
        if (f && strcmp(ref, cur) != 0) {
            const char *a = ref, *b = cur;
            while (*a && *a == *b)
                a++, b++;
            while (a > ref && a[-1] != '\n')
                a--, b--;
            if (!quiet)
                fprintf(stderr, "%s and %s differ at:\n  %.300s\n  %.300s\n", files[0], files[f],
                        a, b);
            bad = 1;
        }
    }
    if (!quiet)
        printf("%d files, %d tuned keys, %d settled, max %lld calls after hot\n", nfiles,
               s0.keys, s0.settled, s0.max_after_hot);
    if (s0.settled < min_settled) {
        if (!quiet)
            fprintf(stderr, "only %d keys settled, wanted %d\n", s0.settled, min_settled);
        bad = 1;
    }
    if (max_after_hot >= 0 && s0.max_after_hot > max_after_hot) {
        if (!quiet)
            fprintf(stderr, "a key settled %lld calls after hot, limit %lld\n", s0.max_after_hot,
                    max_after_hot);
        bad = 1;
    }
    return bad;
}

static const char *sample =
    "{\"communicators\": [{\"size\": 4, \"keys\": [{\"collective\": \"allreduce\", \"bucket\": 3,"
    " \"time_s\": %g, \"online\": {\"probes\": [{\"k\": 2, \"time_us\": 5.0}, {\"k\": %d, "
    "\"time_us\": 4.0}], \"settled_k\": %d, \"calls_after_hot\": 6}}]}]}";

static void self_test(void)
{
    char names[3][64], *files[3];
    for (int i = 0; i < 3; i++) {
        snprintf(names[i], sizeof names[i], "/tmp/test_online_statscmp.%ld.%d", (long)getpid(), i);
        files[i] = names[i];
        FILE *f = fopen(names[i], "w");
        if (!f)
            exit(2);
        int k = i == 2 ? 8 : 4; /* file 2 probed another radix */
        fprintf(f, sample, 0.1 * (i + 1), k, k);
        fclose(f);
    }
    CHECK(compare(2, files, 1, 24, 1) == 0, "identical online records (local times differ) fail");
    CHECK(compare(3, files, 1, 24, 1) != 0, "a differing probe sequence passed");
    CHECK(compare(2, files, 2, 24, 1) != 0, "too few settled keys passed");
    CHECK(compare(2, files, 1, 5, 1) != 0, "too many calls after hot passed");
    decisions = 1;
    CHECK(compare(2, files, 0, -1, 1) == 0, "--decisions: equal decisions (times differ) fail");
    CHECK(compare(3, files, 0, -1, 1) != 0, "--decisions: a differing probe sequence passed");
    decisions = 0;
    for (int i = 0; i < 3; i++)
        unlink(names[i]);
}

int main(int argc, char **argv)
{
    int min_settled = 0, a = 1;
    long long max_after_hot = -1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (strcmp(argv[a], "--min-settled") == 0)
            min_settled = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "--max-after-hot") == 0)
            max_after_hot = atoll(argv[a + 1]);
        else
            break;
    }
    if (a < argc && strcmp(argv[a], "--decisions") == 0) {
        decisions = 1;
        a++;
    }
    if (a >= argc) {
        self_test();
        return check_done("test_online_statscmp");
    }
    return compare(argc - a, argv + a, min_settled, max_after_hot, 0);
}
