/* `hytune report STATS.json [MORE.json ...] [--png DIR] [--csv]`.
 *
 * Reads statistics files with src/stats.c, which writes them and reads them
 * back checking every field (hyt_stats_load; schema and version in
 * docs/statistics.md), and prints: where the collective time went (by entry point,
 * then per communicator, collective and size), what chose each algorithm
 * (table, online, forced, MPI's own selection with its reason, fallbacks),
 * the online probing cost; with two or more files a side-by-side comparison
 * with the speedup of each file over the first.  --csv prints one row per
 * key and file instead; --png DIR also writes gnuplot PNGs. */
#include "offline/report.h"
#include "src/file.h"
#include "src/hyt.h"
#include "src/stats.h"

#include <errno.h>
#include <json-c/json.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

static void choice_text(const hyt_stats_key_t *k, char *buf, size_t len)
{
    if (strcmp(k->alg, "native") == 0)
        snprintf(buf, len, "native");
    else if (k->k > 0)
        snprintf(buf, len, "%s:k=%d", k->alg, k->k);
    else
        snprintf(buf, len, "%s", k->alg);
}

/* What chose it, and why MPI's own collective ran where it did. */
static void why_text(const hyt_stats_key_t *k, char *buf, size_t len)
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
static entry_t *entries(const hyt_stats_file_t *f, int *n)
{
    entry_t *e = calloc(f->nkeys ? (size_t)f->nkeys : 1, sizeof *e);
    *n = 0;
    if (!e)
        return NULL;
    for (int i = 0; i < f->nkeys; i++) {
        const hyt_stats_key_t *k = &f->keys[i];
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

static double total_time(const hyt_stats_file_t *f)
{
    double t = 0;
    for (int i = 0; i < f->nkeys; i++)
        t += f->keys[i].time;
    return t;
}

static void print_header(const hyt_stats_file_t *f, const char *tag)
{
    printf("%s%s: rank %d of %d, mode %s, table %s\n", tag, f->path, f->rank, f->world, f->mode,
           f->table ? f->table : "none (MPI's own selection)");
}

static void print_entries(const hyt_stats_file_t *f)
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

static void print_keys(const hyt_stats_file_t *f)
{
    double total = total_time(f);
    printf("\nBy communicator, collective and size (choice: the algorithm that ran last; "
           "chosen by: table, online, forced, or MPI's selection with its reason)\n");
    long long last = -1;
    for (int i = 0; i < f->nkeys; i++) {
        const hyt_stats_key_t *k = &f->keys[i];
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

static void print_choices(const hyt_stats_file_t *f)
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
        const hyt_stats_key_t *k = &f->keys[i];
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
        const hyt_stats_key_t *k = &f->keys[i];
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

static void print_probing(const hyt_stats_file_t *f)
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
        const hyt_stats_key_t *k = &f->keys[i];
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
static void print_online_choice(const hyt_stats_file_t *f)
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
        const hyt_stats_key_t *k = &f->keys[i];
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
        const hyt_stats_key_t *top;
    } f[];
} crow_t;

static int crow_match(const crow_t *r, const hyt_stats_key_t *k)
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
static crow_t **crows(const hyt_stats_file_t *files, int nf, int *n)
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
            const hyt_stats_key_t *k = &files[i].keys[j];
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

static void print_compare(const hyt_stats_file_t *files, int nf)
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

static void print_csv(const hyt_stats_file_t *files, int nf)
{
    printf("file,rank,mode,comm,comm_size,nodes,ppn,call,collective,bucket,bytes_min,bytes_max,"
           "calls,timed_calls,bytes,time_s,mean_us,algorithm,k,source,tuned_calls,native_calls,"
           "native_reason,fallback_calls,probing_calls,probing_overhead_us,settled_k\n");
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < files[i].nkeys; j++) {
            const hyt_stats_key_t *k = &files[i].keys[j];
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
static int time_data_one(FILE *m, const hyt_stats_file_t *files, int nf)
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
static int comparison_data(FILE *m, const hyt_stats_file_t *files, int nf, int with_speedup)
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

static int time_data_many(FILE *m, const hyt_stats_file_t *files, int nf)
{
    return comparison_data(m, files, nf, 0);
}

static int speedup_data(FILE *m, const hyt_stats_file_t *files, int nf)
{
    return comparison_data(m, files, nf, 1);
}

/* DIR/NAME.dat from fill, then DIR/NAME.gp and DIR/NAME.png. */
static int plot(const char *dir, const char *name, const char *title, const char *ylabel,
                int ncol, int logy, int (*fill)(FILE *, const hyt_stats_file_t *, int),
                const hyt_stats_file_t *files, int nf, char *err, size_t errlen)
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
static int write_pngs(const hyt_stats_file_t *files, int nf, const char *dir, char *err,
                      size_t errlen)
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
    hyt_stats_file_t *files = calloc((size_t)nf, sizeof *files);
    char err[12288];
    int rc = files ? 0 : 1, loaded = 0;
    if (!files)
        fprintf(stderr, "hytune report: out of memory\n");
    for (; rc == 0 && loaded < nf; loaded++)
        if (hyt_stats_load(paths[loaded], &files[loaded], err, sizeof err)) {
            fprintf(stderr, "hytune report: %s\n", err);
            hyt_stats_file_free(&files[loaded]);
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
        hyt_stats_file_free(&files[i]);
    free(files);
    free(paths);
    return rc;
}
