/* Warm start (online/warm.c): settled radixes of an earlier run, read from
 * the statistics JSON (HYTUNE_STATS=PATH writes PATH.json), looked up by
 * communicator shape, collective and size bucket. */
#ifndef HYT_ONLINE_WARM_H
#define HYT_ONLINE_WARM_H

#include <stddef.h>
#include <stdint.h>

/* Load path; 0 ok, else -1 with one message in err naming the file, the
 * JSON field and the fix.  Replaces any table loaded before. */
int hyt_online_warm_load(const char *path, char *err, size_t errlen);
/* The settled k for this shape and key if the file had one for the same
 * algorithm; 1 found, 0 not. */
int hyt_online_warm_lookup(int size, int nodes, int ppn, int coll, int bucket, const char *alg,
                           int *k);
/* The algorithm the file settled on for this shape and key (its radix in
 * *k, 0 for none), or NULL. */
const char *hyt_online_warm_find(int size, int nodes, int ppn, int coll, int bucket, int *k);
/* Entries loaded. */
int hyt_online_warm_count(void);
/* Fingerprint of the loaded radixes (0 if none), whatever their order in
 * the file: equal on ranks that will start alike. */
uint64_t hyt_online_warm_fingerprint(void);
void hyt_online_warm_free(void);

#endif
