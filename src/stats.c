/* Statistics dump at finalize (HYTUNE_STATS=stderr|stdout|PATH).
 *
 * Per communicator (size, nodes, ppn) and per key (collective, size bucket):
 * calls, bytes, time, algorithm, k, fallbacks by reason, and the online
 * component's probing record.  A human report, plus PATH.json for machines
 * (`hytune tune --warm-start`).  A PATH with %r is written by every rank,
 * otherwise by rank 0 only; %j is the job id.  Files are written atomically
 * (temporary file + rename). */
#include "hyt.h"
#include "src/nbsel.h"
#include "src/file.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PATH with %j and %r expanded; -1 if it does not fit in len. */
static int expand_path(const char *pat, char *out, size_t len)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (!job)
        job = getenv("PBS_JOBID");
    if (!job)
        job = "nojob";
    size_t o = 0;
    for (const char *p = pat; *p && o + 1 < len; p++) {
        if (p[0] == '%' && (p[1] == 'j' || p[1] == 'r')) {
            int n = p[1] == 'j' ? snprintf(out + o, len - o, "%s", job)
                                : snprintf(out + o, len - o, "%d", hyt_world_rank);
            if (n < 0 || (size_t)n >= len - o)
                return -1;
            o += (size_t)n;
            p++;
        } else {
            out[o++] = *p;
        }
        if (o + 1 >= len && p[1])
            return -1;
    }
    out[o] = 0;
    return 0;
}

static const char *mode_name(void)
{
    static const char *const names[] = {"off", "offline", "hybrid"};
    return names[hyt_cfg.mode];
}

static void bucket_range(int b, char *buf, size_t len)
{
    if (b == 0)
        snprintf(buf, len, "0 B");
    else if (b == 1)
        snprintf(buf, len, "1 B");
    else
        snprintf(buf, len, "%llu-%llu B", 1ULL << (b - 1), (1ULL << b) - 1);
}

/* The row name of a key: the entry point's name without "MPI_", lower case
 * ("allreduce", "iallreduce", "allreduce_init_c"). */
static void row_name(const hyt_key_t *key, char *buf, size_t len)
{
    char entry[64];
    hyt_entry_name(key->coll, key->variant, entry, sizeof entry);
    snprintf(buf, len, "%s", entry + 4);
    buf[0] = (char)(buf[0] >= 'A' && buf[0] <= 'Z' ? buf[0] - 'A' + 'a' : buf[0]);
}

/* Why calls of this key ran the MPI library's own collective (the calls
 * hytune did not tune and that are not counted as fallbacks). */
static const char *passed_reason(const hyt_comm_t *ctx, const hyt_key_t *key)
{
    int form = key->variant / 2;
    if (form == HYT_FORM_NONBLOCKING)
        return hyt_nb_covers(key->coll, ctx) ? "nonblocking form, MPICH algorithm per table"
                                             : "nonblocking form";
    if (form == HYT_FORM_PERSISTENT)
        return "persistent form";
    if (key->variant % 2)
        return "large-count form";
    if (ctx->is_inter)
        return "intercommunicator";
    if (!hyt_coll_tunable(key->coll))
        return "no hytune algorithm";
    if (ctx->forced[key->coll])
        return "forced native";
    /* hybrid mode measured it while choosing, or chose it */
    if (key->ext && hyt_key_ext() && hyt_key_ext()->chose(key))
        return "online choice";
    if (ctx->rules[key->coll])
        return "table rule native";
    return "no table";
}

/* What chose the key's algorithm: the HYTUNE_FORCE_* variable, the online
 * tuner (the table's algorithm at a probed radix), a table rule, or nothing
 * (the MPI library's own selection, for the reason passed_reason gives). */
static const char *choice_source(const hyt_comm_t *ctx, const hyt_key_t *key)
{
    if (key->variant != 0 || !hyt_coll_tunable(key->coll))
        return "mpi";
    if (ctx->forced[key->coll])
        return "forced";
    if (key->ext)
        return "online";
    return ctx->rules[key->coll] ? "table" : "mpi";
}

static uint64_t key_fallbacks(const hyt_key_t *key)
{
    uint64_t n = 0;
    for (int f = 1; f < HYT_NFB; f++)
        n += key->fallbacks[f];
    return n;
}

/* Calls that ran the MPI library's own collective by selection (not fallbacks). */
static uint64_t key_passed(const hyt_key_t *key)
{
    uint64_t other = key->tuned + key_fallbacks(key);
    return key->calls > other ? key->calls - other : 0;
}

/* Call fn on every key with calls of a context, in (variant, collective, bucket) order. */
static void foreach_key(const hyt_comm_t *ctx, void (*fn)(const hyt_comm_t *, const hyt_key_t *,
                                                          void *), void *arg)
{
    for (int v = 0; v < HYT_NVARIANT; v++)
        for (int c = 0; c < HYT_NCOLL; c++) {
            hyt_key_t *const *row = hyt_key_row(ctx, v, (hyt_coll_t)c);
            for (int b = 0; row && b < HYT_NBUCKETS; b++)
                if (row[b] && row[b]->calls)
                    fn(ctx, row[b], arg);
        }
}

/* ---- the summary: where the collective time goes, per entry point ---- */
typedef struct entry_sum {
    uint64_t calls, bytes, tuned, passed, fallbacks, timed;
    double time;
    const char *why; /* passed_reason of the first key with passed calls */
} entry_sum_t;

typedef struct summary {
    entry_sum_t e[HYT_NVARIANT][HYT_NCOLL];
} summary_t;

static void sum_key(const hyt_comm_t *ctx, const hyt_key_t *key, void *arg)
{
    entry_sum_t *e = &((summary_t *)arg)->e[key->variant][key->coll];
    e->calls += key->calls;
    e->bytes += key->bytes;
    e->tuned += key->tuned;
    e->fallbacks += key_fallbacks(key);
    e->timed += key->timed_calls;
    e->time += key->time;
    uint64_t passed = key_passed(key);
    e->passed += passed;
    if (passed && !e->why)
        e->why = passed_reason(ctx, key);
}

static void sum_ctx(hyt_comm_t *ctx, void *arg)
{
    foreach_key(ctx, sum_key, arg);
}

static int by_time(const void *x, const void *y)
{
    const entry_sum_t *a = *(const entry_sum_t *const *)x, *b = *(const entry_sum_t *const *)y;
    return a->time < b->time ? 1 : a->time > b->time ? -1 : (a > b) - (a < b);
}

/* One row per entry point called, the most time first (as mpiP's report). */
static void report_summary(FILE *out)
{
    summary_t *s = calloc(1, sizeof *s);
    entry_sum_t **rows = calloc(HYT_NVARIANT * HYT_NCOLL, sizeof *rows);
    if (!s || !rows) {
        free(s);
        free(rows);
        return;
    }
    hyt_comm_foreach(sum_ctx, s);
    double total = 0;
    int n = 0;
    for (int v = 0; v < HYT_NVARIANT; v++)
        for (int c = 0; c < HYT_NCOLL; c++)
            if (s->e[v][c].calls) {
                total += s->e[v][c].time;
                rows[n++] = &s->e[v][c];
            }
    qsort(rows, (size_t)n, sizeof *rows, by_time);
    if (n) {
        fprintf(out, "\n-- collective time by entry point (all communicators; nonblocking and "
                "persistent: start to completion at the Wait or Test; timed: calls timed, "
                "persistent: starts completed) --\n");
        fprintf(out, "   %-30s %10s %10s %14s %12s %7s %10s %10s  %s\n", "call", "calls", "timed",
                "bytes", "total s", "% time", "tuned", "MPI's own", "why MPI's own");
    }
    for (int i = 0; i < n; i++) {
        const entry_sum_t *e = rows[i];
        int idx = (int)(e - &s->e[0][0]), v = idx / HYT_NCOLL, c = idx % HYT_NCOLL;
        char name[64];
        hyt_entry_name((hyt_coll_t)c, v, name, sizeof name);
        fprintf(out, "   %-30s %10llu %10llu %14llu %12.6f %6.1f%% %10llu %10llu  %s", name,
                (unsigned long long)e->calls, (unsigned long long)e->timed,
                (unsigned long long)e->bytes, e->time, total > 0 ? 100.0 * e->time / total : 0.0,
                (unsigned long long)e->tuned, (unsigned long long)(e->passed + e->fallbacks),
                e->why ? e->why : e->fallbacks ? "" : "-");
        if (e->fallbacks)
            fprintf(out, "%s%llu fallbacks", e->why ? ", " : "", (unsigned long long)e->fallbacks);
        fprintf(out, "\n");
    }
    free(rows);
    free(s);
}

static void any_key(const hyt_comm_t *ctx, const hyt_key_t *key, void *arg)
{
    (void)ctx;
    (void)key;
    *(int *)arg = 1;
}

static int ctx_any_calls(const hyt_comm_t *ctx)
{
    int any = 0;
    foreach_key(ctx, any_key, &any);
    return any;
}

static void report_key(const hyt_comm_t *ctx, const hyt_key_t *key, void *arg)
{
    FILE *out = arg;
    char range[64], name[64];
    bucket_range(key->bucket, range, sizeof range);
    row_name(key, name, sizeof name);
    double mean = key->timed_calls ? key->time / (double)key->timed_calls * 1e6 : 0;
    fprintf(out, "   %-28s %-18s %10llu %12.6f %12.3f  ", name, range,
            (unsigned long long)key->calls, key->time, mean);
    if (key->alg && !(key->alg->flags & HYT_ALG_NATIVE)) {
        fprintf(out, "%s", key->alg->name);
        if (hyt_alg_has_radix(key->alg))
            fprintf(out, ":k=%d", key->k);
    } else {
        fprintf(out, "native (%s)", passed_reason(ctx, key));
    }
    if (key->tuned && key->tuned != key->calls)
        fprintf(out, "  [tuned %llu of %llu]", (unsigned long long)key->tuned,
                (unsigned long long)key->calls);
    fprintf(out, "\n");
    for (int f = 1; f < HYT_NFB; f++)
        if (key->fallbacks[f])
            fprintf(out, "   %-28s   fallback to PMPI: %llu calls (%s)\n", "",
                    (unsigned long long)key->fallbacks[f], hyt_fallback_name(f));
    if (key->ext && hyt_key_ext())
        hyt_key_ext()->report(key, out);
}

static void report_ctx(hyt_comm_t *ctx, void *arg)
{
    FILE *out = arg;
    if (!ctx_any_calls(ctx))
        return;
    fprintf(out, "\n-- communicator #%llu%s: %d ranks, %d nodes, ppn %d%s%s\n",
            (unsigned long long)ctx->id, ctx->freed ? " (freed)" : "", ctx->size, ctx->nodes,
            ctx->ppn, ctx->ppn != ctx->ppn_min ? " (not uniform)" : "",
            ctx->is_inter ? ", intercommunicator" : "");
    fprintf(out, "   %-28s %-18s %10s %12s %12s  %s\n", "collective", "size", "calls",
            "total s", "mean us", "algorithm");
    foreach_key(ctx, report_key, out);
}

static void json_key(const hyt_comm_t *ctx, const hyt_key_t *key, void *arg)
{
    json_object *keys = arg, *o = json_object_new_object();
    char entry[64];
    hyt_entry_name(key->coll, key->variant, entry, sizeof entry);
    static const char *const forms[HYT_NFORM] = {"blocking", "nonblocking", "persistent"};
    json_object_object_add(o, "collective", json_object_new_string(hyt_coll_name(key->coll)));
    json_object_object_add(o, "call", json_object_new_string(entry));
    json_object_object_add(o, "form", json_object_new_string(forms[key->variant / 2]));
    json_object_object_add(o, "large_count", json_object_new_boolean(key->variant % 2));
    json_object_object_add(o, "bucket", json_object_new_int(key->bucket));
    json_object_object_add(o, "calls", json_object_new_int64((int64_t)key->calls));
    json_object_object_add(o, "bytes", json_object_new_int64((int64_t)key->bytes));
    json_object_object_add(o, "block_max", json_object_new_int64((int64_t)key->block_max));
    json_object_object_add(o, "time_s", json_object_new_double(key->time));
    json_object_object_add(o, "timed_calls", json_object_new_int64((int64_t)key->timed_calls));
    json_object_object_add(o, "algorithm",
                           json_object_new_string(key->alg ? key->alg->name : "native"));
    json_object_object_add(o, "k", json_object_new_int(key->k));
    json_object_object_add(o, "source", json_object_new_string(choice_source(ctx, key)));
    json_object_object_add(o, "tuned_calls", json_object_new_int64((int64_t)key->tuned));
    uint64_t passed = key_passed(key);
    json_object_object_add(o, "native_calls", json_object_new_int64((int64_t)passed));
    if (passed)
        json_object_object_add(o, "native_reason",
                               json_object_new_string(passed_reason(ctx, key)));
    json_object *fb = json_object_new_object();
    for (int f = 1; f < HYT_NFB; f++)
        if (key->fallbacks[f])
            json_object_object_add(fb, hyt_fallback_name(f),
                                   json_object_new_int64((int64_t)key->fallbacks[f]));
    json_object_object_add(o, "fallbacks", fb);
    if (key->ext && hyt_key_ext())
        hyt_key_ext()->json(key, o);
    json_object_array_add(keys, o);
}

static void json_ctx(hyt_comm_t *ctx, void *arg)
{
    json_object *comms = arg, *keys = json_object_new_array();
    foreach_key(ctx, json_key, keys);
    if (json_object_array_length(keys) == 0) {
        json_object_put(keys);
        return;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_int64((int64_t)ctx->id));
    json_object_object_add(o, "size", json_object_new_int(ctx->size));
    json_object_object_add(o, "nodes", json_object_new_int(ctx->nodes));
    json_object_object_add(o, "ppn", json_object_new_int(ctx->ppn));
    json_object_object_add(o, "freed", json_object_new_boolean(ctx->freed));
    json_object_object_add(o, "keys", keys);
    json_object_array_add(comms, o);
}

void hyt_stats_dump(void)
{
    if (!hyt_cfg.stats)
        return;
    int per_rank = strstr(hyt_cfg.stats, "%r") != NULL;
    if (hyt_world_rank != 0 && !per_rank)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    fprintf(mem, "==== hytune statistics (rank %d of %d, mode %s) ====\n", hyt_world_rank,
            hyt_world_size, mode_name());
    fprintf(mem, "table: %s\n", hyt_table ? hyt_table->path : "(none: MPI's own selection)");
    report_summary(mem);
    hyt_comm_foreach(report_ctx, mem);
    fclose(mem);

    const char *dest = hyt_cfg.stats;
    if (strcmp(dest, "stderr") == 0 || strcmp(dest, "stdout") == 0) {
        FILE *o = dest[3] == 'e' ? stderr : stdout;
        fputs(text, o);
        fflush(o);
        free(text);
        return;
    }
    /* room for the longest name written: PATH.json.tmp.XXXXXX */
    char path[PATH_MAX - sizeof ".json.tmp.XXXXXX" + 1], jpath[PATH_MAX];
    if (expand_path(dest, path, sizeof path) != 0) {
        hyt_error(HYT_TOPIC_CORE, "HYTUNE_STATS: the path is longer than %zu characters (after "
                  "%%j and %%r); give a shorter path", sizeof path - 1);
        free(text);
        return;
    }
    if (hyt_file_write(path, text) != 0)
        hyt_error(HYT_TOPIC_CORE, "HYTUNE_STATS: cannot write %s (%s)", path, strerror(errno));
    free(text);

    json_object *root = json_object_new_object(), *comms = json_object_new_array();
    /* the schema (docs/statistics.md); `hytune report` reads this version only */
    json_object_object_add(root, "content", json_object_new_string(HYT_STATS_CONTENT));
    json_object_object_add(root, "format", json_object_new_int(HYT_STATS_FORMAT));
    json_object_object_add(root, "rank", json_object_new_int(hyt_world_rank));
    json_object_object_add(root, "world_size", json_object_new_int(hyt_world_size));
    json_object_object_add(root, "mode", json_object_new_string(mode_name()));
    json_object_object_add(root, "table",
                           hyt_table ? json_object_new_string(hyt_table->path) : NULL);
    hyt_comm_foreach(json_ctx, comms);
    json_object_object_add(root, "communicators", comms);
    snprintf(jpath, sizeof jpath, "%s.json", path);
    if (hyt_file_write(jpath, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY)) != 0)
        hyt_error(HYT_TOPIC_CORE, "HYTUNE_STATS: cannot write %s (%s)", jpath, strerror(errno));
    json_object_put(root);
}
