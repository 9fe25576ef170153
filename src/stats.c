/* Statistics dump at finalize (HYTUNE_STATS=stderr|stdout|PATH).
 *
 * Per communicator (size, nodes, ppn) and per key (collective, size bucket):
 * calls, bytes, time, algorithm, k, fallbacks by reason, and the online
 * component's probing record.  A human report, plus PATH.json for machines
 * (`hytune tune --warm-start`).  A PATH with %r is written by every rank,
 * otherwise by rank 0 only; %j is the job id.  Files are written atomically
 * (temporary file + rename). */
#include "hyt.h"
#include "online/online.h"
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

static void report_ctx(hyt_comm_t *ctx, void *arg)
{
    FILE *out = arg;
    int any = 0;
    for (int c = 0; c < HYT_NCOLL; c++)
        for (int b = 0; b < HYT_NBUCKETS; b++) {
            const hyt_key_t *key = ctx->keys[c][b];
            if (!key || !key->calls)
                continue;
            if (!any) {
                fprintf(out, "\n-- communicator #%llu%s: %d ranks, %d nodes, ppn %d%s%s\n",
                        (unsigned long long)ctx->id, ctx->freed ? " (freed)" : "", ctx->size,
                        ctx->nodes, ctx->ppn, ctx->ppn != ctx->ppn_min ? " (not uniform)" : "",
                        ctx->is_inter ? ", intercommunicator" : "");
                fprintf(out, "   %-22s %-18s %10s %12s %12s  %s\n", "collective", "size",
                        "calls", "total s", "mean us", "algorithm");
                any = 1;
            }
            char range[64];
            bucket_range(b, range, sizeof range);
            double mean = key->timed_calls ? key->time / (double)key->timed_calls * 1e6 : 0;
            fprintf(out, "   %-22s %-18s %10llu %12.6f %12.3f  %s", hyt_coll_name(key->coll),
                    range, (unsigned long long)key->calls, key->time, mean,
                    key->alg ? key->alg->name : "-");
            if (key->alg && hyt_alg_has_radix(key->alg))
                fprintf(out, ":k=%d", key->k);
            fprintf(out, "\n");
            for (int f = 1; f < HYT_NFB; f++)
                if (key->fallbacks[f])
                    fprintf(out, "   %-22s   fallback to PMPI: %llu calls (%s)\n", "",
                            (unsigned long long)key->fallbacks[f], hyt_fallback_name(f));
            hyt_online_key_report(key, out);
        }
}

static void json_ctx(hyt_comm_t *ctx, void *arg)
{
    json_object *comms = arg, *keys = json_object_new_array();
    for (int c = 0; c < HYT_NCOLL; c++)
        for (int b = 0; b < HYT_NBUCKETS; b++) {
            const hyt_key_t *key = ctx->keys[c][b];
            if (!key || !key->calls)
                continue;
            json_object *o = json_object_new_object();
            json_object_object_add(o, "collective", json_object_new_string(hyt_coll_name(key->coll)));
            json_object_object_add(o, "bucket", json_object_new_int(b));
            json_object_object_add(o, "calls", json_object_new_int64((int64_t)key->calls));
            json_object_object_add(o, "bytes", json_object_new_int64((int64_t)key->bytes));
            json_object_object_add(o, "time_s", json_object_new_double(key->time));
            json_object_object_add(o, "timed_calls", json_object_new_int64((int64_t)key->timed_calls));
            json_object_object_add(o, "algorithm",
                                   json_object_new_string(key->alg ? key->alg->name : "native"));
            json_object_object_add(o, "k", json_object_new_int(key->k));
            json_object *fb = json_object_new_object();
            for (int f = 1; f < HYT_NFB; f++)
                if (key->fallbacks[f])
                    json_object_object_add(fb, hyt_fallback_name(f),
                                           json_object_new_int64((int64_t)key->fallbacks[f]));
            json_object_object_add(o, "fallbacks", fb);
            hyt_online_key_json(key, o);
            json_object_array_add(keys, o);
        }
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
    json_object_object_add(root, "format", json_object_new_int(1));
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
