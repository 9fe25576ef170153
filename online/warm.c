/* Warm start: a hash table from (comm size, nodes, ppn, collective, size
 * bucket) to the radix an earlier run settled on, read from that run's
 * statistics JSON:
 *   {"communicators": [{"size", "nodes", "ppn",
 *                       "keys": [{"collective", "bucket",
 *                                 "online": {"algorithm", "settled_k"}}]}]}
 * Keys without a settled radix are skipped.  Every rank reads the same file,
 * so every rank builds the same table: decisions stay rank-invariant. */
#include "online/warm.h"
#include "src/file.h"
#include "src/agree.h"
#include "src/hyt.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

typedef struct {
    int size, nodes, ppn, coll, bucket; /* ints only: no padding in the hashed key */
} warm_key_t;

typedef struct {
    warm_key_t key;
    int k;
    char alg[32];
    UT_hash_handle hh;
} warm_entry_t;

static warm_entry_t *warm_table;
static int warm_n;

#define FIX "; point HYTUNE_WARM_START at a PATH.json written by HYTUNE_STATS=PATH"

static int fail(char *err, size_t errlen, const char *fmt, ...) HYT_PRINTF(3, 4);
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Integer field o.name in [lo, hi] into *out; where names o for errors. */
static int get_int(json_object *o, const char *name, int lo, int hi, int *out, const char *path,
                   const char *where, char *err, size_t errlen)
{
    json_object *v;
    if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_int))
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s.%s: expected an integer" FIX, path,
                    where, name);
    int64_t x = json_object_get_int64(v);
    if (x < lo || x > hi)
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s.%s = %lld is outside %d..%d" FIX, path,
                    where, name, (long long)x, lo, hi);
    *out = (int)x;
    return 0;
}

/* 0, or -1 when the entry cannot be allocated: the load fails with a
 * message saying so (every rank then starts without warm start). */
static int add_entry(const warm_key_t *key, int k, const char *alg)
{
    warm_entry_t *e;
    HASH_FIND(hh, warm_table, key, sizeof *key, e);
    if (e) /* several communicators of one shape: the first one wins */
        return 0;
    e = hyt_test_fail(HYT_TEST_FAIL_WARM, hyt_world_rank) ? NULL : calloc(1, sizeof *e);
    if (!e)
        return -1;
    e->key = *key;
    e->k = k;
    snprintf(e->alg, sizeof e->alg, "%s", alg);
    HASH_ADD(hh, warm_table, key, sizeof e->key, e);
    warm_n++;
    return 0;
}

static int load_key(json_object *ko, warm_key_t key, const char *path, const char *where,
                    char *err, size_t errlen)
{
    json_object *cv, *on, *av, *sk;
    if (!json_object_object_get_ex(ko, "collective", &cv) ||
        !json_object_is_type(cv, json_type_string))
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s.collective: expected a string" FIX,
                    path, where);
    key.coll = hyt_coll_from_name(json_object_get_string(cv));
    if (key.coll < 0)
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s.collective = \"%s\" is unknown" FIX,
                    path, where, json_object_get_string(cv));
    if (get_int(ko, "bucket", 0, HYT_NBUCKETS - 1, &key.bucket, path, where, err, errlen))
        return -1;
    if (!json_object_object_get_ex(ko, "online", &on) || !json_object_is_type(on, json_type_object))
        return 0; /* key not tuned online */
    if (!json_object_object_get_ex(on, "settled_k", &sk) || json_object_is_type(sk, json_type_null))
        return 0; /* never settled */
    char w[160];
    snprintf(w, sizeof w, "%s.online", where);
    int k;
    if (get_int(on, "settled_k", 0, HYT_K_LIMIT, &k, path, w, err, errlen)) /* 0: no radix */
        return -1;
    if (!json_object_object_get_ex(on, "algorithm", &av) || !json_object_is_type(av, json_type_string))
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s.algorithm: expected a string" FIX, path,
                    w);
    if (add_entry(&key, k, json_object_get_string(av)))
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s: no memory for this rank's copy of "
                    "the entry (%zu bytes): free memory on this node, or unset "
                    "HYTUNE_WARM_START", path, where, sizeof(warm_entry_t));
    return 0;
}

static int load_comm(json_object *co, int ci, const char *path, char *err, size_t errlen)
{
    char where[96];
    snprintf(where, sizeof where, "communicators[%d]", ci);
    if (!json_object_is_type(co, json_type_object))
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s: expected an object" FIX, path, where);
    warm_key_t key;
    memset(&key, 0, sizeof key);
    if (get_int(co, "size", 1, INT32_MAX, &key.size, path, where, err, errlen) ||
        get_int(co, "nodes", 1, INT32_MAX, &key.nodes, path, where, err, errlen) ||
        get_int(co, "ppn", 1, INT32_MAX, &key.ppn, path, where, err, errlen))
        return -1;
    json_object *keys;
    if (!json_object_object_get_ex(co, "keys", &keys) || !json_object_is_type(keys, json_type_array))
        return fail(err, errlen, "HYTUNE_WARM_START=%s: %s.keys: expected an array" FIX, path,
                    where);
    for (size_t j = 0; j < json_object_array_length(keys); j++) {
        char kw[128];
        snprintf(kw, sizeof kw, "%s.keys[%zu]", where, j);
        json_object *ko = json_object_array_get_idx(keys, j);
        if (!json_object_is_type(ko, json_type_object))
            return fail(err, errlen, "HYTUNE_WARM_START=%s: %s: expected an object" FIX, path, kw);
        if (load_key(ko, key, path, kw, err, errlen))
            return -1;
    }
    return 0;
}

int hyt_online_warm_load(const char *path, char *err, size_t errlen)
{
    hyt_online_warm_free();
    char why[256];
    size_t len;
    char *text = hyt_file_read(path, HYT_FILE_MAX_BYTES, &len, why, sizeof why);
    if (!text)
        return fail(err, errlen, "HYTUNE_WARM_START=%s: cannot open (%s)" FIX, path, why);
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    enum json_tokener_error je = tok ? json_tokener_get_error(tok) : json_tokener_success;
    const char *jerr = !tok ? "out of memory"
                       : je == json_tokener_continue ? "unexpected end of file"
                       : je != json_tokener_success ? json_tokener_error_desc(je)
                       : !root ? "no JSON value" : NULL;
    if (tok)
        json_tokener_free(tok);
    free(text);
    if (jerr) {
        json_object_put(root);
        return fail(err, errlen, "HYTUNE_WARM_START=%s: cannot read it as JSON (%s)" FIX, path,
                    jerr);
    }
    json_object *comms;
    int rc = 0;
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "communicators", &comms) ||
        !json_object_is_type(comms, json_type_array))
        rc = fail(err, errlen, "HYTUNE_WARM_START=%s: communicators: expected an array at the "
                  "top level" FIX, path);
    for (size_t i = 0; rc == 0 && i < json_object_array_length(comms); i++)
        rc = load_comm(json_object_array_get_idx(comms, i), (int)i, path, err, errlen);
    json_object_put(root);
    if (rc)
        hyt_online_warm_free();
    return rc;
}

const char *hyt_online_warm_find(int size, int nodes, int ppn, int coll, int bucket, int *k)
{
    warm_key_t key = {size, nodes, ppn, coll, bucket};
    warm_entry_t *e;
    HASH_FIND(hh, warm_table, &key, sizeof key, e);
    if (!e)
        return NULL;
    *k = e->k;
    return e->alg;
}

int hyt_online_warm_lookup(int size, int nodes, int ppn, int coll, int bucket, const char *alg,
                           int *k)
{
    int wk;
    const char *name = hyt_online_warm_find(size, nodes, ppn, coll, bucket, &wk);
    if (!name || strcmp(name, alg) != 0)
        return 0;
    *k = wk;
    return 1;
}

int hyt_online_warm_count(void)
{
    return warm_n;
}

uint64_t hyt_online_warm_fingerprint(void)
{
    uint64_t sum = 0;
    warm_entry_t *e, *tmp;
    HASH_ITER(hh, warm_table, e, tmp)
    {
        uint64_t h = hyt_agree_hash(HYT_AGREE_HASH0, &e->key, sizeof e->key);
        h = hyt_agree_hash(h, &e->k, sizeof e->k);
        sum += hyt_agree_hash_str(h, e->alg);
    }
    return sum;
}

void hyt_online_warm_free(void)
{
    warm_entry_t *e, *tmp;
    HASH_ITER(hh, warm_table, e, tmp)
    {
        HASH_DEL(warm_table, e);
        free(e);
    }
    warm_table = NULL;
    warm_n = 0;
}
