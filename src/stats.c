/* Statistics dump at finalize (HYTUNE_STATS=stderr|stdout|PATH), and the
 * reader of its JSON file (src/stats.h: one module for the file format).
 *
 * Per communicator (size, nodes, ppn) and per key (collective, size bucket):
 * calls, bytes, time, algorithm, k, fallbacks by reason, and the online
 * component's probing record.  A human report, plus PATH.json for machines
 * (`hytune tune --warm-start`, `hytune report`, which reads it with
 * hyt_stats_load).  A PATH with %r is written by every rank, otherwise by
 * rank 0 only; %j is the job id.  Files are written atomically (temporary
 * file + rename). */
#include "src/stats.h"
#include "src/file.h"
#include "src/nbsel.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
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
    } else if (key_passed(key)) {
        fprintf(out, "native (%s)", passed_reason(ctx, key));
    } else { /* every call a fallback: the reasons follow */
        fprintf(out, "native (fallback)");
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
    hyt_small_use_t spare;
    hyt_small_use(&spare);
    if (spare.allocations)
        fprintf(mem, "emergency reserve: this rank ran short of memory; the reserve served %llu "
                "allocations (%llu bytes; at most %zu of its %zu bytes in use)\n",
                (unsigned long long)spare.allocations, (unsigned long long)spare.bytes,
                spare.peak, spare.reserve);
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
    if (spare.held) {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "bytes", json_object_new_int64((int64_t)spare.reserve));
        json_object_object_add(r, "allocations", json_object_new_int64((int64_t)spare.allocations));
        json_object_object_add(r, "allocated_bytes", json_object_new_int64((int64_t)spare.bytes));
        json_object_object_add(r, "peak_bytes", json_object_new_int64((int64_t)spare.peak));
        json_object_object_add(root, "reserve", r);
    }
    hyt_comm_foreach(json_ctx, comms);
    json_object_object_add(root, "communicators", comms);
    snprintf(jpath, sizeof jpath, "%s.json", path);
    if (hyt_file_write(jpath, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY)) != 0)
        hyt_error(HYT_TOPIC_CORE, "HYTUNE_STATS: cannot write %s (%s)", jpath, strerror(errno));
    json_object_put(root);
}

/* ---- reading (hytune report) ---- */

typedef struct jerr {
    const char *file;
    char *buf;
    size_t len;
} jerr_t;

static int fail(jerr_t *e, const char *where, const char *fmt, ...) HYT_PRINTF(3, 4);
static int fail(jerr_t *e, const char *where, const char *fmt, ...)
{
    int n = snprintf(e->buf, e->len, "%s: %s: ", e->file, where);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < e->len)
        vsnprintf(e->buf + n, e->len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int get_field(json_object *o, const char *name, json_type t, int optional,
                     json_object **out, jerr_t *e, const char *at)
{
    char where[160];
    snprintf(where, sizeof where, "%s%s", at, name);
    if (!json_object_object_get_ex(o, name, out) || !*out) {
        *out = NULL;
        return optional ? 0 : fail(e, where, "missing");
    }
    if (t == json_type_double && json_object_is_type(*out, json_type_int))
        return 0;
    if (!json_object_is_type(*out, t))
        return fail(e, where, "expected %s", t == json_type_int ? "an integer"
                    : t == json_type_double ? "a number" : t == json_type_string ? "a string"
                    : t == json_type_array ? "an array" : "an object");
    return 0;
}

static int get_ll(json_object *o, const char *name, long long lo, long long *v, jerr_t *e,
                  const char *at)
{
    json_object *j;
    if (get_field(o, name, json_type_int, 0, &j, e, at))
        return -1;
    *v = (long long)json_object_get_int64(j);
    if (*v < lo) {
        char where[160];
        snprintf(where, sizeof where, "%s%s", at, name);
        return fail(e, where, "%lld is below %lld", *v, lo);
    }
    return 0;
}

static int get_int(json_object *o, const char *name, int lo, int hi, int *v, jerr_t *e,
                   const char *at)
{
    long long x;
    if (get_ll(o, name, lo, &x, e, at))
        return -1;
    if (x > hi) {
        char where[160];
        snprintf(where, sizeof where, "%s%s", at, name);
        return fail(e, where, "%lld is above %d", x, hi);
    }
    *v = (int)x;
    return 0;
}

static int get_str(json_object *o, const char *name, int optional, const char **v, jerr_t *e,
                   const char *at)
{
    json_object *j;
    if (get_field(o, name, json_type_string, optional, &j, e, at))
        return -1;
    *v = j ? json_object_get_string(j) : NULL;
    return 0;
}

static int get_num(json_object *o, const char *name, double *v, jerr_t *e, const char *at)
{
    json_object *j;
    if (get_field(o, name, json_type_double, 0, &j, e, at))
        return -1;
    *v = json_object_get_double(j);
    return 0;
}

/* A nullable number: v = -1 when null. */
static int get_opt_num(json_object *o, const char *name, double *v, jerr_t *e, const char *at)
{
    json_object *j;
    if (get_field(o, name, json_type_double, 1, &j, e, at))
        return -1;
    *v = j ? json_object_get_double(j) : -1;
    return 0;
}

/* The online choice of a key with a shortlist (absent: none). */
static int load_choice(json_object *on, hyt_stats_key_t *k, jerr_t *e, const char *w)
{
    json_object *cs;
    if (get_field(on, "candidates", json_type_array, 1, &cs, e, w))
        return -1;
    if (!cs)
        return 0;
    if (get_str(on, "shortlist_from", 0, &k->cand_from, e, w) ||
        get_str(on, "chosen_algorithm", 1, &k->chosen, e, w) ||
        get_ll(on, "choosing_calls", 0, &k->choosing_calls, e, w) ||
        get_ll(on, "choices", 0, &k->choices, e, w) ||
        get_ll(on, "switches", 0, &k->switches, e, w))
        return -1;
    size_t n = json_object_array_length(cs);
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(cs, i);
        char at[224];
        snprintf(at, sizeof at, "%scandidates[%zu].", w, i);
        const char *s;
        int kk;
        double t;
        if (!json_object_is_type(c, json_type_object))
            return fail(e, at, "expected an object");
        if (get_str(c, "algorithm", 0, &s, e, at) || get_int(c, "k", 0, INT32_MAX, &kk, e, at) ||
            get_str(c, "status", 0, &s, e, at) || get_opt_num(c, "time_us", &t, e, at) ||
            get_opt_num(c, "predicted_us", &t, e, at))
            return -1;
    }
    k->cands = cs;
    k->ncand = (int)n;
    return 0;
}

static int load_online(json_object *on, hyt_stats_key_t *k, jerr_t *e, const char *at)
{
    char w[160];
    snprintf(w, sizeof w, "%sonline.", at);
    json_object *probes, *settled;
    if (get_str(on, "state", 0, &k->state, e, w) || get_ll(on, "probing_calls", 0,
                                                             &k->probing_calls, e, w) ||
        get_num(on, "overhead_us", &k->overhead_us, e, w) ||
        get_field(on, "probes", json_type_array, 0, &probes, e, w) ||
        get_field(on, "settled_k", json_type_int, 1, &settled, e, w))
        return -1;
    k->online = 1;
    k->probes = (long long)json_object_array_length(probes);
    k->settled_k = settled ? json_object_get_int(settled) : -1;
    return load_choice(on, k, e, w);
}

static int load_key(json_object *o, hyt_stats_key_t *k, jerr_t *e, const char *at)
{
    json_object *fb, *on;
    if (!json_object_is_type(o, json_type_object))
        return fail(e, at, "expected an object");
    if (get_str(o, "call", 0, &k->call, e, at) ||
        get_str(o, "collective", 0, &k->collective, e, at) ||
        get_int(o, "bucket", 0, HYT_NBUCKETS - 1, &k->bucket, e, at) ||
        get_ll(o, "calls", 0, &k->calls, e, at) || get_ll(o, "timed_calls", 0, &k->timed, e, at) ||
        get_ll(o, "bytes", 0, &k->bytes, e, at) || get_num(o, "time_s", &k->time, e, at) ||
        get_str(o, "algorithm", 0, &k->alg, e, at) || get_int(o, "k", 0, INT32_MAX, &k->k, e, at) ||
        get_str(o, "source", 0, &k->source, e, at) ||
        get_ll(o, "tuned_calls", 0, &k->tuned, e, at) ||
        get_ll(o, "native_calls", 0, &k->native, e, at) ||
        get_str(o, "native_reason", 1, &k->why, e, at) ||
        get_field(o, "fallbacks", json_type_object, 0, &fb, e, at) ||
        get_field(o, "online", json_type_object, 1, &on, e, at))
        return -1;
    if (strcmp(k->source, "table") && strcmp(k->source, "online") && strcmp(k->source, "forced") &&
        strcmp(k->source, "mpi")) {
        char where[160];
        snprintf(where, sizeof where, "%ssource", at);
        return fail(e, where, "\"%s\" is none of table, online, forced, mpi", k->source);
    }
    size_t o_len = 0;
    char w[160];
    snprintf(w, sizeof w, "%sfallbacks.", at);
    json_object_object_foreach(fb, reason, jn)
    {
        long long n;
        if (get_ll(fb, reason, 0, &n, e, w))
            return -1;
        (void)jn;
        k->fallbacks += n;
        int m = snprintf(k->fbtext + o_len, sizeof k->fbtext - o_len, "%s%s %lld",
                         o_len ? ", " : "", reason, n);
        if (m > 0 && o_len + (size_t)m < sizeof k->fbtext)
            o_len += (size_t)m;
    }
    return on ? load_online(on, k, e, at) : 0;
}

int hyt_stats_load(const char *path, hyt_stats_file_t *f, char *err, size_t errlen)
{
    jerr_t e = {path, err, errlen};
    memset(f, 0, sizeof *f);
    f->path = path;
    char why[256];
    size_t len;
    char *text = hyt_file_read(path, HYT_FILE_MAX_BYTES, &len, why, sizeof why);
    if (!text) {
        snprintf(err, errlen, "cannot read %s (%s)", path, why);
        return -1;
    }
    json_tokener *tok = json_tokener_new();
    f->root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    enum json_tokener_error je = tok ? json_tokener_get_error(tok) : json_tokener_success;
    if (tok)
        json_tokener_free(tok);
    free(text);
    if (je != json_tokener_success || !f->root) {
        snprintf(err, errlen, "%s is not a hytune statistics file (not JSON: %s); "
                 "HYTUNE_STATS=PATH writes one to PATH.json", path,
                 je == json_tokener_continue ? "unexpected end of file"
                 : je != json_tokener_success ? json_tokener_error_desc(je) : "no JSON value");
        return -1;
    }
    json_object *root = f->root, *j, *comms;
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "content", &j) ||
        !json_object_is_type(j, json_type_string) ||
        strcmp(json_object_get_string(j), HYT_STATS_CONTENT) != 0) {
        snprintf(err, errlen, "%s is not a hytune statistics file (no \"content\": \"%s\" at "
                 "the top); HYTUNE_STATS=PATH writes one to PATH.json", path, HYT_STATS_CONTENT);
        return -1;
    }
    if (!json_object_object_get_ex(root, "format", &j) || !json_object_is_type(j, json_type_int) ||
        json_object_get_int64(j) != HYT_STATS_FORMAT) {
        snprintf(err, errlen, "%s is a hytune statistics file of format %s; this hytune reads "
                 "format %d (read it with the hytune that wrote it, or rerun the job)", path,
                 j ? json_object_to_json_string(j) : "(none)", HYT_STATS_FORMAT);
        return -1;
    }
    if (get_int(root, "rank", 0, INT32_MAX, &f->rank, &e, "") ||
        get_int(root, "world_size", 1, INT32_MAX, &f->world, &e, "") ||
        get_str(root, "mode", 0, &f->mode, &e, "") || get_str(root, "table", 1, &f->table, &e, "") ||
        get_field(root, "communicators", json_type_array, 0, &comms, &e, ""))
        return -1;
    size_t n = 0, nc = json_object_array_length(comms);
    for (size_t c = 0; c < nc; c++) {
        json_object *co = json_object_array_get_idx(comms, c), *keys;
        char at[96];
        snprintf(at, sizeof at, "communicators[%zu].", c);
        if (!json_object_is_type(co, json_type_object))
            return fail(&e, at, "expected an object");
        if (get_field(co, "keys", json_type_array, 0, &keys, &e, at))
            return -1;
        n += json_object_array_length(keys);
    }
    f->keys = calloc(n ? n : 1, sizeof *f->keys);
    if (!f->keys) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (size_t c = 0; c < nc; c++) {
        json_object *co = json_object_array_get_idx(comms, c), *keys;
        char at[96];
        snprintf(at, sizeof at, "communicators[%zu].", c);
        long long id;
        int size, nodes, ppn;
        if (get_ll(co, "id", 0, &id, &e, at) || get_int(co, "size", 1, INT32_MAX, &size, &e, at) ||
            get_int(co, "nodes", 1, INT32_MAX, &nodes, &e, at) ||
            get_int(co, "ppn", 1, INT32_MAX, &ppn, &e, at))
            return -1;
        json_object_object_get_ex(co, "keys", &keys);
        for (size_t i = 0; i < json_object_array_length(keys); i++) {
            char kat[128];
            snprintf(kat, sizeof kat, "%skeys[%zu].", at, i);
            hyt_stats_key_t *k = &f->keys[f->nkeys];
            if (load_key(json_object_array_get_idx(keys, i), k, &e, kat))
                return -1;
            k->comm_id = id;
            k->size = size;
            k->nodes = nodes;
            k->ppn = ppn;
            f->nkeys++;
        }
    }
    return 0;
}

void hyt_stats_file_free(hyt_stats_file_t *f)
{
    json_object_put(f->root);
    free(f->keys);
}
