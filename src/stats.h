/* The statistics file (HYTUNE_STATS=PATH writes PATH.json), one module
 * (src/stats.c) for both directions: hyt_stats_dump writes it at
 * MPI_Finalize, hyt_stats_load reads one back for `hytune report` checking
 * every field it uses.  Schema and version: docs/statistics.md. */
#ifndef HYT_STATS_H
#define HYT_STATS_H

#include "src/hyt.h"

#include <json-c/json.h>
#include <stddef.h>

/* The JSON file's top-level "content" and "format". */
#define HYT_STATS_CONTENT "hytune statistics"
#define HYT_STATS_FORMAT 2

/* One key (communicator, entry point, size bucket) of a file. */
typedef struct hyt_stats_key {
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
} hyt_stats_key_t;

typedef struct hyt_stats_file {
    const char *path;
    json_object *root;
    int rank, world;
    const char *mode, *table;
    hyt_stats_key_t *keys;
    int nkeys;
} hyt_stats_file_t;

/* Read and check the statistics file path into f (its strings point into
 * f->root); 0, or -1 with one message in err naming the file, the field
 * and the fix.  Free with hyt_stats_file_free either way. */
int hyt_stats_load(const char *path, hyt_stats_file_t *f, char *err, size_t errlen);
void hyt_stats_file_free(hyt_stats_file_t *f);

#endif
