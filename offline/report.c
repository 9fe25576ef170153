/* `hytune report STATS.json [MORE.json ...] [--png DIR] [--csv]`.
 *
 * Reads statistics files (src/stats.c writes them; schema and version in
 * docs/statistics.md) through src/file.c's reader and json-c, checks every
 * field it uses, and prints: where the collective time went (by entry point,
 * then per communicator, collective and size), what chose each algorithm
 * (table, online, forced, MPI's own selection with its reason, fallbacks),
 * the online probing cost; with two or more files a side-by-side comparison
 * with the speedup of each file over the first.  --csv prints one row per
 * key and file instead; --png DIR also writes gnuplot PNGs. */
#include "offline/report.h"
#include "src/file.h"
#include "src/hyt.h"

#include <errno.h>
#include <json-c/json.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* One key (communicator, entry point, size bucket) of a file. */
typedef struct rkey {
    long long comm_id;
    int size, nodes, ppn;
    const char *call, *collective, *alg, *source, *why;
    int bucket, k;
    long long calls, timed, bytes, tuned, native, fallbacks;
    double time;
    char fbtext[160];         /* "reason N, reason N" */
    int online;               /* an online record */
    const char *state;
    long long probing_calls, probes, settled_k; /* settled_k -1: none */
    double overhead_us;
    /* the online choice among a shortlist (ncand 0: none) */
    int ncand;
    json_object *cands;       /* the "candidates" array, checked */
    const char *cand_from, *chosen;
    long long choosing_calls, choices, switches;
} rkey_t;

typedef struct rfile {
    const char *path;
    json_object *root;
    int rank, world;
    const char *mode, *table;
    rkey_t *keys;
    int nkeys;
} rfile_t;

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
static int load_choice(json_object *on, rkey_t *k, jerr_t *e, const char *w)
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

static int load_online(json_object *on, rkey_t *k, jerr_t *e, const char *at)
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

static int load_key(json_object *o, rkey_t *k, jerr_t *e, const char *at)
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

/* Read and check one statistics file; 0, or -1 with err set. */
static int load_file(const char *path, rfile_t *f, char *err, size_t errlen)
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
            rkey_t *k = &f->keys[f->nkeys];
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

static void free_file(rfile_t *f)
{
    json_object_put(f->root);
    free(f->keys);
}

/* ---- text helpers ---- */

static void human_bytes(unsigned long long b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && b % 1024 == 0 && u < 6) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%s", b, unit[u]);
}

/* A size bucket: "0B", "1B", else from its lower bound up to (not
 * including) the next power of two, "1KiB-2KiB". */
static void bucket_label(int b, char *buf, size_t len)
{
    if (b <= 1) {
        snprintf(buf, len, "%dB", b);
        return;
    }
    char lo[24], hi[24];
    human_bytes(1ULL << (b - 1), lo, sizeof lo);
    if (b >= 64)
        snprintf(hi, sizeof hi, "16EiB");
    else
        human_bytes(1ULL << b, hi, sizeof hi);
    snprintf(buf, len, "%s-%s", lo, hi);
}

static void choice_text(const rkey_t *k, char *buf, size_t len)
{
    if (strcmp(k->alg, "native") == 0)
        snprintf(buf, len, "native");
    else if (k->k > 0)
        snprintf(buf, len, "%s:k=%d", k->alg, k->k);
    else
        snprintf(buf, len, "%s", k->alg);
}

/* What chose it, and why MPI's own collective ran where it did. */
static void why_text(const rkey_t *k, char *buf, size_t len)
{
    const char *by = !strcmp(k->source, "mpi") ? "MPI's selection" : k->source;
    int n = snprintf(buf, len, "%s", by);
    if (k->why && k->native && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " (%s)", k->why);
    if (k->fallbacks && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; fallbacks: %s", k->fbtext);
}

static double mean_us(double time, long long timed)
{
    return timed ? time / (double)timed * 1e6 : 0;
}

/* ---- one file ---- */

typedef struct entry {
    const char *call;
    long long calls, timed, bytes, tuned, other;
    double time;
} entry_t;

static int by_time_desc(const void *x, const void *y)
{
    const entry_t *a = x, *b = y;
    return a->time < b->time ? 1 : a->time > b->time ? -1 : strcmp(a->call, b->call);
}

/* Sum the keys by entry point; a malloc'ed array, most time first. */
static entry_t *entries(const rfile_t *f, int *n)
{
    entry_t *e = calloc(f->nkeys ? (size_t)f->nkeys : 1, sizeof *e);
    *n = 0;
    if (!e)
        return NULL;
    for (int i = 0; i < f->nkeys; i++) {
        const rkey_t *k = &f->keys[i];
        int j = 0;
        while (j < *n && strcmp(e[j].call, k->call))
            j++;
        if (j == *n)
            e[(*n)++].call = k->call;
        e[j].calls += k->calls;
        e[j].timed += k->timed;
        e[j].bytes += k->bytes;
        e[j].tuned += k->tuned;
        e[j].other += k->native + k->fallbacks;
        e[j].time += k->time;
    }
    qsort(e, (size_t)*n, sizeof *e, by_time_desc);
    return e;
}

static double total_time(const rfile_t *f)
{
    double t = 0;
    for (int i = 0; i < f->nkeys; i++)
        t += f->keys[i].time;
    return t;
}

static void print_header(const rfile_t *f, const char *tag)
{
    printf("%s%s: rank %d of %d, mode %s, table %s\n", tag, f->path, f->rank, f->world, f->mode,
           f->table ? f->table : "none (MPI's own selection)");
}

static void print_entries(const rfile_t *f)
{
    int n;
    entry_t *e = entries(f, &n);
    double total = total_time(f);
    printf("\nWhere the collective time went (all communicators, most time first)\n");
    printf("  %-28s %10s %10s %14s %12s %7s %10s %10s\n", "call", "calls", "timed", "bytes",
           "time s", "% time", "tuned", "MPI's own");
    for (int i = 0; e && i < n; i++)
        printf("  %-28s %10lld %10lld %14lld %12.6f %6.1f%% %10lld %10lld\n", e[i].call,
               e[i].calls, e[i].timed, e[i].bytes, e[i].time,
               total > 0 ? 100 * e[i].time / total : 0.0, e[i].tuned, e[i].other);
    printf("  %-28s %10s %10s %14s %12.6f\n", "total", "", "", "", total);
    free(e);
}

static void print_keys(const rfile_t *f)
{
    double total = total_time(f);
    printf("\nBy communicator, collective and size (choice: the algorithm that ran last; "
           "chosen by: table, online, forced, or MPI's selection with its reason)\n");
    long long last = -1;
    for (int i = 0; i < f->nkeys; i++) {
        const rkey_t *k = &f->keys[i];
        if (i == 0 || k->comm_id != last) {
            printf("  communicator #%lld: %d ranks, %d nodes, ppn %d\n", k->comm_id, k->size,
                   k->nodes, k->ppn);
            printf("    %-26s %-14s %10s %12s %12s %7s  %-18s %s\n", "call", "size", "calls",
                   "time s", "mean us", "% time", "choice", "chosen by");
            last = k->comm_id;
        }
        char size[48], ch[96], why[320];
        bucket_label(k->bucket, size, sizeof size);
        choice_text(k, ch, sizeof ch);
        why_text(k, why, sizeof why);
        printf("    %-26s %-14s %10lld %12.6f %12.3f %6.1f%%  %-18s %s\n", k->call, size, k->calls,
               k->time, mean_us(k->time, k->timed), total > 0 ? 100 * k->time / total : 0.0, ch,
               why);
    }
}

static void print_choices(const rfile_t *f)
{
    static const char *const src[] = {"table", "online", "forced", "mpi"};
    printf("\nWhat chose the algorithms (calls)\n");
    for (int s = 0; s < 4; s++) {
        long long keys = 0, calls = 0, tuned = 0;
        double time = 0;
        for (int i = 0; i < f->nkeys; i++)
            if (!strcmp(f->keys[i].source, src[s])) {
                keys++;
                calls += f->keys[i].calls;
                tuned += f->keys[i].tuned;
                time += f->keys[i].time;
            }
        if (keys)
            printf("  %-16s %6lld keys %12lld calls (%lld ran a hytune algorithm) %12.6f s\n",
                   s == 3 ? "MPI's selection" : src[s], keys, calls, tuned, time);
    }
    /* MPI's own collective by reason, then the fallbacks */
    int any = 0;
    for (int i = 0; i < f->nkeys; i++) {
        const rkey_t *k = &f->keys[i];
        if (!k->native || !k->why)
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = f->keys[j].native && f->keys[j].why && !strcmp(f->keys[j].why, k->why);
        if (seen)
            continue;
        long long calls = 0;
        for (int j = i; j < f->nkeys; j++)
            if (f->keys[j].native && f->keys[j].why && !strcmp(f->keys[j].why, k->why))
                calls += f->keys[j].native;
        if (!any++)
            printf("  MPI's own collective, by reason:\n");
        printf("    %-28s %12lld calls\n", k->why, calls);
    }
    any = 0;
    for (int i = 0; i < f->nkeys; i++) {
        const rkey_t *k = &f->keys[i];
        if (!k->fallbacks)
            continue;
        char size[48];
        bucket_label(k->bucket, size, sizeof size);
        if (!any++)
            printf("  fallbacks to MPI's own collective (the chosen algorithm could not take "
                   "the call):\n");
        printf("    comm #%lld %s %s %s: %s\n", k->comm_id, k->call, size, k->alg, k->fbtext);
    }
    if (!any)
        printf("  no fallbacks\n");
}

static void print_probing(const rfile_t *f)
{
    long long calls = 0, keys = 0;
    double over = 0;
    for (int i = 0; i < f->nkeys; i++)
        if (f->keys[i].online) {
            keys++;
            calls += f->keys[i].probing_calls;
            over += f->keys[i].overhead_us;
        }
    printf("\nOnline probing cost\n");
    if (!keys) {
        printf("  none (no key was probed online%s)\n",
               strcmp(f->mode, "hybrid") ? ": hybrid mode probes" : "");
        return;
    }
    printf("    %-10s %-26s %-14s %-14s %7s %12s %12s %-10s %s\n", "comm", "call", "size",
           "algorithm", "probes", "probe calls", "overhead us", "state", "settled k");
    for (int i = 0; i < f->nkeys; i++) {
        const rkey_t *k = &f->keys[i];
        if (!k->online)
            continue;
        char size[48], comm[24], sk[24];
        bucket_label(k->bucket, size, sizeof size);
        snprintf(comm, sizeof comm, "#%lld", k->comm_id);
        if (k->settled_k >= 0)
            snprintf(sk, sizeof sk, "%lld", k->settled_k);
        else
            snprintf(sk, sizeof sk, "-");
        printf("    %-10s %-26s %-14s %-14s %7lld %12lld %12.3f %-10s %s\n", comm, k->call, size,
               k->alg, k->probes, k->probing_calls, k->overhead_us, k->state, sk);
    }
    double total = total_time(f);
    printf("  total: %lld keys probed, %lld probing calls, overhead %.3f us (%.2f%% of the "
           "collective time)\n", keys, calls, over, total > 0 ? over * 1e-4 / total : 0.0);
}

/* Per key with a shortlist: each candidate's measured window time (or why
 * it has none), the winner, the calls spent choosing, the switches. */
static void print_online_choice(const rfile_t *f)
{
    int keys = 0;
    long long calls = 0;
    for (int i = 0; i < f->nkeys; i++)
        if (f->keys[i].ncand) {
            keys++;
            calls += f->keys[i].choosing_calls;
        }
    if (!keys)
        return;
    printf("\nOnline algorithm choice (per key with a shortlist; * the winner; us: the "
           "candidate's agreed window time)\n");
    for (int i = 0; i < f->nkeys; i++) {
        const rkey_t *k = &f->keys[i];
        if (!k->ncand)
            continue;
        char size[48];
        bucket_label(k->bucket, size, sizeof size);
        printf("  comm #%lld %s %s: chosen %s, %lld calls choosing, %lld choices, "
               "%lld switches (%s shortlist)\n", k->comm_id, k->call, size,
               k->chosen ? k->chosen : "none yet", k->choosing_calls, k->choices, k->switches,
               k->cand_from);
        for (int j = 0; j < k->ncand; j++) {
            json_object *c = json_object_array_get_idx(k->cands, (size_t)j), *v;
            const char *alg = "", *st = "";
            double t = -1, pred = -1;
            if (json_object_object_get_ex(c, "algorithm", &v))
                alg = json_object_get_string(v);
            if (json_object_object_get_ex(c, "status", &v))
                st = json_object_get_string(v);
            if (json_object_object_get_ex(c, "time_us", &v) && v)
                t = json_object_get_double(v);
            if (json_object_object_get_ex(c, "predicted_us", &v) && v)
                pred = json_object_get_double(v);
            int kk = json_object_object_get_ex(c, "k", &v) ? json_object_get_int(v) : 0;
            char name[96], tt[32];
            snprintf(name, sizeof name, "%s%s", k->chosen && !strcmp(alg, k->chosen) ? "*" : " ",
                     alg);
            if (kk > 0)
                snprintf(name + strlen(name), sizeof name - strlen(name), ":k=%d", kk);
            if (t >= 0)
                snprintf(tt, sizeof tt, "%.2f us", t);
            else
                snprintf(tt, sizeof tt, "%s", st);
            if (pred >= 0)
                printf("    %-24s %-14s predicted %.2f us\n", name, tt, pred);
            else
                printf("    %-24s %s\n", name, tt);
        }
    }
    printf("  total: %d keys chose online, %lld calls choosing\n", keys, calls);
}

/* ---- several files ---- */

/* A row of the comparison: communicators of one shape, an entry point, a
 * bucket; per file the sums and the choice of its busiest key. */
typedef struct crow {
    int size, nodes, ppn, bucket;
    const char *call;
    double order; /* time in the first file that has it */
    struct {
        long long calls, timed;
        double time;
        const rkey_t *top;
    } f[];
} crow_t;

static int crow_match(const crow_t *r, const rkey_t *k)
{
    return r->size == k->size && r->nodes == k->nodes && r->ppn == k->ppn &&
           r->bucket == k->bucket && !strcmp(r->call, k->call);
}

static int crow_cmp(const void *x, const void *y)
{
    const crow_t *a = *(crow_t *const *)x, *b = *(crow_t *const *)y;
    if (a->order != b->order)
        return a->order < b->order ? 1 : -1;
    int c = strcmp(a->call, b->call);
    return c ? c : a->bucket - b->bucket;
}

/* The comparison rows over nf files; NULL on no memory. */
static crow_t **crows(const rfile_t *files, int nf, int *n)
{
    int cap = 0;
    for (int i = 0; i < nf; i++)
        cap += files[i].nkeys;
    crow_t **rows = calloc(cap ? (size_t)cap : 1, sizeof *rows);
    *n = 0;
    if (!rows)
        return NULL;
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < files[i].nkeys; j++) {
            const rkey_t *k = &files[i].keys[j];
            int r = 0;
            while (r < *n && !crow_match(rows[r], k))
                r++;
            if (r == *n) {
                rows[r] = calloc(1, sizeof *rows[r] + (size_t)nf * sizeof rows[r]->f[0]);
                if (!rows[r]) {
                    for (int q = 0; q < *n; q++)
                        free(rows[q]);
                    free(rows);
                    return NULL;
                }
                rows[r]->size = k->size;
                rows[r]->nodes = k->nodes;
                rows[r]->ppn = k->ppn;
                rows[r]->bucket = k->bucket;
                rows[r]->call = k->call;
                rows[r]->order = -1;
                (*n)++;
            }
            crow_t *c = rows[r];
            c->f[i].calls += k->calls;
            c->f[i].timed += k->timed;
            c->f[i].time += k->time;
            if (!c->f[i].top || k->calls > c->f[i].top->calls)
                c->f[i].top = k;
        }
    for (int r = 0; r < *n; r++)
        for (int i = 0; i < nf && rows[r]->order < 0; i++)
            if (rows[r]->f[i].top)
                rows[r]->order = rows[r]->f[i].time;
    qsort(rows, (size_t)*n, sizeof *rows, crow_cmp);
    return rows;
}

static void free_crows(crow_t **rows, int n)
{
    for (int i = 0; i < n; i++)
        free(rows[i]);
    free(rows);
}

/* Speedup of file i over the first file, by mean time per timed call
 * (equal to the ratio of total times when the call counts agree); 0 if
 * either has no timed call. */
static double speedup(const crow_t *r, int i)
{
    if (!r->f[0].timed || !r->f[i].timed || r->f[i].time <= 0)
        return 0;
    return mean_us(r->f[0].time, r->f[0].timed) / mean_us(r->f[i].time, r->f[i].timed);
}

static void print_compare(const rfile_t *files, int nf)
{
    printf("hytune statistics, %d files side by side (speedup: the first file's mean time per "
           "call over this file's)\n", nf);
    for (int i = 0; i < nf; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "  [%d] ", i + 1);
        print_header(&files[i], tag);
    }
    /* by entry point */
    printf("\nCollective time by entry point (all communicators)\n  %-28s", "call");
    for (int i = 0; i < nf; i++) {
        char h[32];
        snprintf(h, sizeof h, "time s [%d]", i + 1);
        printf(" %13s", h);
    }
    for (int i = 1; i < nf; i++) {
        char h[32];
        snprintf(h, sizeof h, "speedup [%d]", i + 1);
        printf(" %14s", h);
    }
    printf("\n");
    int n0;
    entry_t *e0 = entries(&files[0], &n0);
    /* every entry point of every file, the first file's order first */
    const char **calls = NULL;
    int nc = 0, cap = 0;
    for (int i = 0; i < nf; i++) {
        int n;
        entry_t *e = i == 0 ? e0 : entries(&files[i], &n);
        if (i == 0)
            n = n0;
        for (int j = 0; e && j < n; j++) {
            int q = 0;
            while (q < nc && strcmp(calls[q], e[j].call))
                q++;
            if (q < nc)
                continue;
            if (nc == cap) {
                const char **nw = realloc(calls, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *nw);
                if (!nw)
                    break;
                calls = nw;
            }
            calls[nc++] = e[j].call;
        }
        if (i)
            free(e);
    }
    free(e0);
    for (int q = 0; q < nc; q++) {
        printf("  %-28s", calls[q]);
        double mean[nf];
        for (int i = 0; i < nf; i++) {
            double t = 0;
            long long timed = 0;
            for (int j = 0; j < files[i].nkeys; j++)
                if (!strcmp(files[i].keys[j].call, calls[q])) {
                    t += files[i].keys[j].time;
                    timed += files[i].keys[j].timed;
                }
            printf(" %13.6f", t);
            mean[i] = mean_us(t, timed);
        }
        for (int i = 1; i < nf; i++)
            if (mean[0] > 0 && mean[i] > 0)
                printf(" %13.3gx", mean[0] / mean[i]);
            else
                printf(" %14s", "-");
        printf("\n");
    }
    free(calls);

    int n;
    crow_t **rows = crows(files, nf, &n);
    printf("\nBy communicator shape, collective and size (mean us per call, choice)\n");
    for (int r = 0; rows && r < n; r++) {
        const crow_t *c = rows[r];
        char size[48];
        bucket_label(c->bucket, size, sizeof size);
        printf("  %-26s %-14s %d ranks, %d nodes, ppn %d\n", c->call, size, c->size, c->nodes,
               c->ppn);
        for (int i = 0; i < nf; i++) {
            if (!c->f[i].top) {
                printf("    [%d] not called\n", i + 1);
                continue;
            }
            char ch[96], why[320], sp[32] = "";
            choice_text(c->f[i].top, ch, sizeof ch);
            why_text(c->f[i].top, why, sizeof why);
            double s = i ? speedup(c, i) : 0;
            if (s > 0)
                snprintf(sp, sizeof sp, "%.3gx", s);
            printf("    [%d] %10lld calls %12.3f us %8s  %-18s %s\n", i + 1, c->f[i].calls,
                   mean_us(c->f[i].time, c->f[i].timed), sp, ch, why);
        }
    }
    printf("\nOnline probing cost\n");
    for (int i = 0; i < nf; i++) {
        long long keys = 0, pc = 0;
        double over = 0;
        for (int j = 0; j < files[i].nkeys; j++)
            if (files[i].keys[j].online) {
                keys++;
                pc += files[i].keys[j].probing_calls;
                over += files[i].keys[j].overhead_us;
            }
        printf("  [%d] %lld keys probed, %lld probing calls, overhead %.3f us\n", i + 1, keys, pc,
               over);
    }
    free_crows(rows, rows ? n : 0);
}

/* ---- CSV ---- */

static void csv_str(FILE *o, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, o);
        return;
    }
    fputc('"', o);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', o);
        fputc(*s, o);
    }
    fputc('"', o);
}

static void print_csv(const rfile_t *files, int nf)
{
    printf("file,rank,mode,comm,comm_size,nodes,ppn,call,collective,bucket,bytes_min,bytes_max,"
           "calls,timed_calls,bytes,time_s,mean_us,algorithm,k,source,tuned_calls,native_calls,"
           "native_reason,fallback_calls,probing_calls,probing_overhead_us,settled_k\n");
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < files[i].nkeys; j++) {
            const rkey_t *k = &files[i].keys[j];
            unsigned long long lo = k->bucket <= 1 ? (unsigned)k->bucket : 1ULL << (k->bucket - 1);
            unsigned long long hi = k->bucket <= 1 ? (unsigned)k->bucket
                                    : k->bucket >= 64 ? UINT64_MAX : (1ULL << k->bucket) - 1;
            csv_str(stdout, files[i].path);
            printf(",%d,%s,%lld,%d,%d,%d,", files[i].rank, files[i].mode, k->comm_id, k->size,
                   k->nodes, k->ppn);
            csv_str(stdout, k->call);
            putchar(',');
            csv_str(stdout, k->collective);
            printf(",%d,%llu,%llu,%lld,%lld,%lld,%.9g,%.6g,", k->bucket, lo, hi, k->calls,
                   k->timed, k->bytes, k->time, mean_us(k->time, k->timed));
            csv_str(stdout, k->alg);
            printf(",%d,%s,%lld,%lld,", k->k, k->source, k->tuned, k->native);
            csv_str(stdout, k->why);
            printf(",%lld,", k->fallbacks);
            if (k->online) {
                printf("%lld,%.6g,", k->probing_calls, k->overhead_us);
                if (k->settled_k >= 0)
                    printf("%lld", k->settled_k);
            } else {
                fputs(",,", stdout);
            }
            putchar('\n');
        }
}

/* ---- PNG (gnuplot) ---- */

/* 1 if PATH has an executable gnuplot. */
static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)n, n ? path : ".");
        if (access(dir, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

static int run_gnuplot(const char *script, char *err, size_t errlen)
{
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (rc != 0) {
        snprintf(err, errlen, "cannot run gnuplot (%s)", strerror(rc));
        return -1;
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "gnuplot failed on %s (its message is above)", script);
        return -1;
    }
    return 0;
}

/* A clustered bar chart of a data file whose first column is the row label
 * and whose columns 2..ncol+1 are the series (titles in the first line). */
static int write_plot(const char *dir, const char *name, const char *title, const char *ylabel,
                      int nrows, int ncol, int logy, char *err, size_t errlen)
{
    char gp[4200], png[4200], dat[4200];
    snprintf(gp, sizeof gp, "%s/%s.gp", dir, name);
    snprintf(png, sizeof png, "%s/%s.png", dir, name);
    snprintf(dat, sizeof dat, "%s/%s.dat", dir, name);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int width = 300 + nrows * (20 + 12 * ncol);
    fprintf(m, "# hytune report: %s (data: %s.dat)\n", title, name);
    fprintf(m, "set terminal pngcairo size %d,600 noenhanced\n", width < 700 ? 700 : width > 6000 ? 6000 : width);
    fprintf(m, "set output '%s'\nset title '%s'\nset ylabel '%s'\n", png, title, ylabel);
    fprintf(m, "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\n"
            "set key outside right top\nset xtics rotate by -45 scale 0\nset yrange [0:*]\n");
    if (logy) /* a speedup: log scale, a line at 1 */
        fprintf(m, "set yrange [*:*]\nset logscale y\n"
                "set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2\n");
    fprintf(m, "plot for [i=2:%d] '%s' using i:xtic(1) title columnheader(i)\n", ncol + 1, dat);
    fclose(m);
    int rc = hyt_file_write(gp, text);
    free(text);
    if (rc) {
        snprintf(err, errlen, "cannot write %s (%s)", gp, strerror(errno));
        return -1;
    }
    return run_gnuplot(gp, err, errlen);
}

static int write_text(const char *path, char *text, char *err, size_t errlen)
{
    int rc = hyt_file_write(path, text);
    free(text);
    if (rc)
        snprintf(err, errlen, "cannot write %s (%s)", path, strerror(errno));
    return rc;
}

static void dat_label(FILE *m, const char *call, int bucket)
{
    char size[48];
    bucket_label(bucket, size, sizeof size);
    fprintf(m, "\"%s %s\"", call, size);
}

/* The data of time.png, one file: a row per size bucket, a series per entry
 * point.  Rows written, -1 out of memory. */
static int time_data_one(FILE *m, const rfile_t *files, int nf)
{
    (void)nf;
    int n, rows = 0;
    entry_t *e = entries(&files[0], &n);
    if (!e)
        return -1;
    fprintf(m, "size");
    for (int j = 0; j < n; j++)
        fprintf(m, " \"%s\"", e[j].call);
    fprintf(m, "\n");
    for (int b = 0; b < HYT_NBUCKETS; b++) {
        int any = 0;
        for (int i = 0; i < files[0].nkeys; i++)
            any |= files[0].keys[i].bucket == b;
        if (!any)
            continue;
        char size[48];
        bucket_label(b, size, sizeof size);
        fprintf(m, "\"%s\"", size);
        for (int j = 0; j < n; j++) {
            double t = 0;
            for (int i = 0; i < files[0].nkeys; i++)
                if (files[0].keys[i].bucket == b && !strcmp(files[0].keys[i].call, e[j].call))
                    t += files[0].keys[i].time;
            fprintf(m, " %.9g", t);
        }
        fprintf(m, "\n");
        rows++;
    }
    free(e);
    return rows;
}

/* Several files: a row per (entry point, size) (communicator shapes summed),
 * a series per file; with speedup, the speedup of each later file over the
 * first (rows where some file has one). */
static int comparison_data(FILE *m, const rfile_t *files, int nf, int with_speedup)
{
    int n, rows = 0;
    crow_t **r = crows(files, nf, &n);
    if (!r)
        return -1;
    fprintf(m, "row");
    for (int i = with_speedup; i < nf; i++)
        if (with_speedup)
            fprintf(m, " \"[%d] over [1]\"", i + 1);
        else
            fprintf(m, " \"[%d] %s\"", i + 1, files[i].path);
    fprintf(m, "\n");
    for (int q = 0; q < n; q++) {
        int any = !with_speedup;
        for (int i = 1; i < nf && !any; i++)
            any = speedup(r[q], i) > 0;
        if (!any)
            continue;
        dat_label(m, r[q]->call, r[q]->bucket);
        for (int i = with_speedup; i < nf; i++) {
            double v = with_speedup ? speedup(r[q], i) : r[q]->f[i].time;
            if (with_speedup && !(v > 0))
                fprintf(m, " NaN");
            else
                fprintf(m, " %.9g", v);
        }
        fprintf(m, "\n");
        rows++;
    }
    free_crows(r, n);
    return rows;
}

static int time_data_many(FILE *m, const rfile_t *files, int nf)
{
    return comparison_data(m, files, nf, 0);
}

static int speedup_data(FILE *m, const rfile_t *files, int nf)
{
    return comparison_data(m, files, nf, 1);
}

/* DIR/NAME.dat from fill, then DIR/NAME.gp and DIR/NAME.png. */
static int plot(const char *dir, const char *name, const char *title, const char *ylabel,
                int ncol, int logy, int (*fill)(FILE *, const rfile_t *, int),
                const rfile_t *files, int nf, char *err, size_t errlen)
{
    char *text = NULL, path[4200];
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    int rows = m ? fill(m, files, nf) : -1;
    if (m)
        fclose(m);
    if (rows < 0) {
        free(text);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    if (write_text(path, text, err, errlen))
        return -1;
    if (!rows) {
        snprintf(err, errlen, "%s: nothing to plot (no collective timed%s)", name,
                 nf > 1 ? " in the first file and another" : "");
        return -1;
    }
    return write_plot(dir, name, title, ylabel, rows, ncol, logy, err, errlen);
}

/* One file: time by size bucket, a series per entry point.  Several: time
 * per (entry point, size), a series per file, and the speedup over the
 * first file. */
static int write_pngs(const rfile_t *files, int nf, const char *dir, char *err, size_t errlen)
{
    if (!have_gnuplot()) {
        snprintf(err, errlen, "--png needs gnuplot, which is not in PATH (install it: "
                 "apt-get install gnuplot-nox)");
        return -1;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "--png %s: cannot create the directory (%s)", dir, strerror(errno));
        return -1;
    }
    int ncol = nf;
    if (nf == 1) {
        int n;
        free(entries(&files[0], &n));
        ncol = n;
    }
    if (plot(dir, "time", "collective time by collective and size", "time (s)", ncol, 0,
             nf == 1 ? time_data_one : time_data_many, files, nf, err, errlen))
        return -1;
    if (nf == 1)
        return 0;
    return plot(dir, "speedup", "speedup over [1] (mean time per call)", "speedup (x, log scale)",
                nf - 1, 1, speedup_data, files, nf, err, errlen);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hytune report STATS.json [MORE.json ...] [--png DIR] [--csv]\n"
            "\n"
            "The statistics of a run (HYTUNE_STATS=PATH writes PATH.json) as a person reads\n"
            "them: where the collective time went (by entry point; per communicator,\n"
            "collective and size), what chose each algorithm (table, online, forced, MPI's\n"
            "selection with its reason, fallbacks with theirs), the online probing cost.\n"
            "With two or more files: side by side, with each file's speedup over the first.\n"
            "\n"
            "  --csv      one CSV row per key and file instead of the text\n"
            "  --png DIR  also write DIR/time.png (time by collective and size) and, for two\n"
            "             or more files, DIR/speedup.png, with their .dat and .gp (gnuplot)\n");
}

int hyt_report_main(int argc, char **argv)
{
    const char *png = NULL;
    int csv = 0, nf = 0;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    if (!paths) {
        fprintf(stderr, "hytune report: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            free(paths);
            return 0;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if (!strcmp(argv[i], "--png")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hytune report: --png needs a directory (--png DIR)\n");
                free(paths);
                return 2;
            }
            png = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "hytune report: unknown option %s (valid: --png DIR, --csv, "
                    "--help)\n", argv[i]);
            free(paths);
            return 2;
        } else {
            paths[nf++] = argv[i];
        }
    }
    if (!nf) {
        usage(stderr);
        free(paths);
        return 2;
    }
    rfile_t *files = calloc((size_t)nf, sizeof *files);
    char err[12288];
    int rc = files ? 0 : 1, loaded = 0;
    if (!files)
        fprintf(stderr, "hytune report: out of memory\n");
    for (; rc == 0 && loaded < nf; loaded++)
        if (load_file(paths[loaded], &files[loaded], err, sizeof err)) {
            fprintf(stderr, "hytune report: %s\n", err);
            free_file(&files[loaded]);
            rc = 1;
            break;
        }
    if (rc == 0) {
        if (csv) {
            print_csv(files, nf);
        } else if (nf == 1) {
            print_header(&files[0], "hytune statistics ");
            print_entries(&files[0]);
            print_keys(&files[0]);
            print_choices(&files[0]);
            print_probing(&files[0]);
            print_online_choice(&files[0]);
        } else {
            print_compare(files, nf);
        }
        fflush(stdout);
        if (png && write_pngs(files, nf, png, err, sizeof err)) {
            fprintf(stderr, "hytune report: %s\n", err);
            rc = 1;
        } else if (png && !csv) {
            printf("\nPNG: %s/time.png%s\n", png, nf > 1 ? ", speedup.png" : "");
        }
    }
    for (int i = 0; i < loaded; i++)
        free_file(&files[i]);
    free(files);
    free(paths);
    return rc;
}
