/* The selection table: versioned JSON (formats 1 and 2; format 2 adds a
 * shortlist per rule), read with json-c and validated whole on load, and
 * written by `hytune tune` (hyt_table_json, src/table.h).  Any problem
 * reading gives one message naming the file, the JSON path of the offending
 * value and the fix; nothing of a bad table is used.  Format:
 * docs/table-format.md. */
#include "src/table.h"
#include "src/file.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HYT_TABLE_FORMAT 2 /* and 1: format 2 adds the shortlists */

hyt_table_t *hyt_table;

static int fail(char *err, size_t len, const char *path, const char *fmt, ...) HYT_PRINTF(4, 5);
static int fail(char *err, size_t len, const char *path, const char *fmt, ...)
{
    int n = snprintf(err, len, "table %s: ", path);
    if (n < 0 || (size_t)n >= len)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    char why[256];
    char *text = hyt_file_read(path, HYT_FILE_MAX_BYTES, len, why, sizeof why);
    if (!text)
        fail(err, errlen, path, "cannot open (%s); set HYTUNE_TABLE to a file written by "
             "`hytune tune -o FILE`", why);
    return text;
}

static void offset_to_line(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Every field of object o is one of names[0..n); else one error naming the
 * unknown field and the valid ones. */
static int only_fields(json_object *o, const char *const *names, int n, const char *file,
                       const char *where, char *err, size_t errlen)
{
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        int known = 0;
        for (int i = 0; i < n && !known; i++)
            known = !strcmp(key, names[i]);
        if (!known) {
            char list[256] = "";
            for (int i = 0; i < n; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                         names[i]);
            return fail(err, errlen, file, "%s has unknown field \"%s\"; valid fields: %s", where,
                        key, list);
        }
    }
    return 0;
}
#define ONLY_FIELDS(o, names, file, where, err, errlen) \
    only_fields(o, names, (int)(sizeof names / sizeof names[0]), file, where, err, errlen)

/* Integer field >= lo; absent allowed when *absent_ok (then *out = dflt). */
static int get_int(json_object *o, const char *key, int64_t lo, int64_t hi, int required,
                   int64_t dflt, int64_t *out, const char *file, const char *where, char *err,
                   size_t errlen)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
        if (required)
            return fail(err, errlen, file, "%s.%s is missing; give an integer", where, key);
        *out = dflt;
        return 0;
    }
    if (!json_object_is_type(v, json_type_int))
        return fail(err, errlen, file, "%s.%s must be an integer, not a %s; write a plain "
                    "integer", where, key, json_type_to_name(json_object_get_type(v)));
    errno = 0;
    int64_t x = json_object_get_int64(v);
    if (errno || x < lo || x > hi)
        return fail(err, errlen, file, "%s.%s = %s is out of range; give an integer in "
                    "%lld..%lld", where, key, json_object_to_json_string(v), (long long)lo,
                    (long long)hi);
    *out = x;
    return 0;
}

/* Optional number field (microseconds) >= lo; absent: *out = -1. */
static int get_us(json_object *o, const char *key, double lo, double *out, const char *file,
                  const char *where, char *err, size_t errlen)
{
    json_object *p;
    *out = -1;
    if (!json_object_object_get_ex(o, key, &p))
        return 0;
    if (!json_object_is_type(p, json_type_double) && !json_object_is_type(p, json_type_int))
        return fail(err, errlen, file, "%s.%s must be a number (microseconds); fix or remove it",
                    where, key);
    *out = json_object_get_double(p);
    if (!(*out >= lo))
        return fail(err, errlen, file, "%s.%s = %s is negative; fix or remove it", where, key,
                    json_object_to_json_string(p));
    return 0;
}

/* algorithm, k, predicted_us, spread_us of a rule or of a shortlist entry. */
static int parse_cand(json_object *r, hyt_coll_t coll, hyt_cand_t *out, const char *file,
                      const char *where, char *err, size_t errlen)
{
    json_object *a;
    if (!json_object_object_get_ex(r, "algorithm", &a) || !json_object_is_type(a, json_type_string))
        return fail(err, errlen, file, "%s.algorithm is missing or not a string; give a name "
                    "from `hytune list %s`", where, hyt_coll_name(coll));
    const char *name = json_object_get_string(a);
    out->alg = hyt_alg_find(coll, name);
    if (!out->alg)
        return fail(err, errlen, file, "%s.algorithm \"%s\" is not an algorithm of %s; "
                    "see `hytune list %s`", where, name, hyt_coll_name(coll), hyt_coll_name(coll));
    int64_t k;
    int has_radix = hyt_alg_has_radix(out->alg);
    json_object *kv;
    if (!has_radix && json_object_object_get_ex(r, "k", &kv) &&
        !(json_object_is_type(kv, json_type_int) && json_object_get_int64(kv) == 0))
        return fail(err, errlen, file, "%s.k: algorithm %s takes no radix; remove k", where,
                    name);
    if (get_int(r, "k", has_radix ? out->alg->k_min : 0, has_radix ? HYT_K_LIMIT : 0, 0,
                has_radix ? out->alg->k_min : 0, &k, file, where, err, errlen))
        return -1;
    out->k = (int)k;
    if (get_us(r, "predicted_us", -HUGE_VAL, &out->predicted_us, file, where, err, errlen) ||
        get_us(r, "spread_us", 0, &out->spread_us, file, where, err, errlen))
        return -1;
    return 0;
}

/* Format 2: the candidates besides the rule's own choice, one per algorithm. */
static int parse_shortlist(json_object *l, hyt_coll_t coll, hyt_rule_t *out, const char *file,
                           const char *where, char *err, size_t errlen)
{
    int n = json_object_is_type(l, json_type_array) ? (int)json_object_array_length(l) : -1;
    if (n < 0 || n > HYT_SHORTLIST_MAX - 1)
        return fail(err, errlen, file, "%s.shortlist must be an array of at most %d "
                    "{algorithm, k, predicted_us, spread_us}; shorten or remove it", where,
                    HYT_SHORTLIST_MAX - 1);
    for (int i = 0; i < n; i++) {
        char w[200];
        snprintf(w, sizeof w, "%s.shortlist[%d]", where, i);
        json_object *c = json_object_array_get_idx(l, i);
        if (!json_object_is_type(c, json_type_object))
            return fail(err, errlen, file, "%s must be an object {algorithm, k, predicted_us, "
                        "spread_us}", w);
        static const char *const fields[] = {"algorithm", "k", "predicted_us", "spread_us"};
        if (ONLY_FIELDS(c, fields, file, w, err, errlen))
            return -1;
        hyt_cand_t *cd = &out->shortlist[out->nshort];
        if (parse_cand(c, coll, cd, file, w, err, errlen))
            return -1;
        for (int j = 0; j < out->nshort; j++)
            if (out->shortlist[j].alg == cd->alg)
                return fail(err, errlen, file, "%s.algorithm \"%s\" is already a candidate of "
                            "this rule (hybrid mode tunes its k); keep one entry per algorithm",
                            w, cd->alg->name);
        out->nshort++;
    }
    return 0;
}

/* Format 2: a rule's measured gains, {ranks, bytes, us} ordered by ranks,
 * then bytes, each size among the rule's own (lo..hi). */
static int parse_gains(json_object *l, hyt_rule_t *out, int64_t lo, int64_t hi, const char *file,
                       const char *where, char *err, size_t errlen)
{
    int n = json_object_is_type(l, json_type_array) ? (int)json_object_array_length(l) : -1;
    if (n < 0 || n > HYT_GAINS_MAX)
        return fail(err, errlen, file, "%s.gains must be an array of at most %d {ranks, bytes, "
                    "us}; shorten or remove it", where, HYT_GAINS_MAX);
    for (int i = 0; i < n; i++) {
        char w[200];
        snprintf(w, sizeof w, "%s.gains[%d]", where, i);
        json_object *g = json_object_array_get_idx(l, i), *u;
        if (!json_object_is_type(g, json_type_object))
            return fail(err, errlen, file, "%s must be an object {ranks, bytes, us}", w);
        static const char *const fields[] = {"ranks", "bytes", "us"};
        if (ONLY_FIELDS(g, fields, file, w, err, errlen))
            return -1;
        int64_t ranks, bytes;
        if (get_int(g, "ranks", 1, INT32_MAX, 1, 0, &ranks, file, w, err, errlen) ||
            get_int(g, "bytes", lo, hi, 1, 0, &bytes, file, w, err, errlen))
            return -1;
        if (!json_object_object_get_ex(g, "us", &u) ||
            !(json_object_is_type(u, json_type_double) || json_object_is_type(u, json_type_int)) ||
            !isfinite(json_object_get_double(u)))
            return fail(err, errlen, file, "%s.us must be a finite number (microseconds: "
                        "native's time minus the rule's choice's, measured); fix or remove the "
                        "entry", w);
        hyt_gain_t *gv = &out->gains[i];
        *gv = (hyt_gain_t){(int)ranks, (uint64_t)bytes, json_object_get_double(u)};
        if (i && (gv[-1].ranks > gv->ranks ||
                  (gv[-1].ranks == gv->ranks && gv[-1].bytes >= gv->bytes)))
            return fail(err, errlen, file, "%s (ranks %d, bytes %llu) does not follow the entry "
                        "before it (ranks %d, bytes %llu); order the gains by ranks, then by "
                        "bytes, each pair once", w, gv->ranks, (unsigned long long)gv->bytes,
                        gv[-1].ranks, (unsigned long long)gv[-1].bytes);
    }
    out->ngains = n;
    return 0;
}

static int parse_rule(json_object *r, hyt_coll_t coll, int last, int format, hyt_rule_t *out,
                      uint64_t prev_max, int first, const char *file, const char *where,
                      char *err, size_t errlen)
{
    if (!json_object_is_type(r, json_type_object))
        return fail(err, errlen, file, "%s must be an object", where);
    json_object_object_foreach(r, key, val)
    {
        (void)val;
        if (strcmp(key, "bytes_max") && strcmp(key, "algorithm") && strcmp(key, "k") &&
            strcmp(key, "predicted_us") &&
            (format < 2 || (strcmp(key, "spread_us") && strcmp(key, "shortlist") &&
                            strcmp(key, "native_us") && strcmp(key, "gains"))))
            return fail(err, errlen, file, "%s has unknown field \"%s\"; valid fields: "
                        "bytes_max, algorithm, k, predicted_us%s", where, key,
                        format < 2 ? " (spread_us, shortlist, native_us and gains need "
                                     "\"format\": 2)"
                                   : ", spread_us, shortlist, native_us, gains");
    }
    int64_t bmax;
    if (get_int(r, "bytes_max", 0, INT64_MAX, !last, -1, &bmax, file, where, err, errlen))
        return -1;
    out->bytes_max = bmax < 0 ? UINT64_MAX : (uint64_t)bmax;
    if (!first && out->bytes_max <= prev_max)
        return fail(err, errlen, file, "%s.bytes_max = %lld is not above the previous rule's "
                    "%llu; order the rules by increasing bytes_max", where, (long long)bmax,
                    (unsigned long long)prev_max);
    hyt_cand_t *own = &out->shortlist[0];
    if (parse_cand(r, coll, own, file, where, err, errlen))
        return -1;
    out->alg = own->alg;
    out->k = own->k;
    out->predicted_us = own->predicted_us;
    out->nshort = 1;
    if (get_us(r, "native_us", 0, &out->native_us, file, where, err, errlen))
        return -1;
    json_object *l;
    if (json_object_object_get_ex(r, "gains", &l) &&
        parse_gains(l, out, first ? 0 : (int64_t)prev_max + 1,
                    out->bytes_max == UINT64_MAX ? INT64_MAX : (int64_t)out->bytes_max, file,
                    where, err, errlen))
        return -1;
    if (json_object_object_get_ex(r, "shortlist", &l))
        return parse_shortlist(l, coll, out, file, where, err, errlen);
    return 0;
}

const char *hyt_setup_x_name(hyt_setup_x_t x)
{
    return x == HYT_SETUP_FIT_RANKS ? "ranks" : x == HYT_SETUP_FIT_LOG2 ? "log2_ranks" : NULL;
}

/* Among gains g[0..n) of one scale (bytes increasing): at bytes,
 * interpolated in log2 bytes, held at the ends. */
static double gain_at_bytes(const hyt_gain_t *g, int n, uint64_t bytes)
{
    if (bytes <= g[0].bytes)
        return g[0].us;
    if (bytes >= g[n - 1].bytes)
        return g[n - 1].us;
    int i = 1;
    while (g[i].bytes < bytes)
        i++;
    double x = log2((double)bytes), x0 = log2(g[i - 1].bytes > 1 ? (double)g[i - 1].bytes : 1),
           x1 = log2((double)g[i].bytes);
    return x1 > x0 ? g[i - 1].us + (g[i].us - g[i - 1].us) * (x - x0) / (x1 - x0) : g[i].us;
}

double hyt_rule_gain(const hyt_rule_t *r, int ranks, uint64_t bytes, int *known)
{
    *known = 1;
    if (r->ngains == 0) {
        if (r->native_us < 0 || r->predicted_us < 0) {
            *known = 0;
            return 0;
        }
        return r->native_us - r->predicted_us;
    }
    /* the scales (runs of equal ranks) at or below and at or above ranks */
    int below = -1, above = -1, below_n = 0, above_n = 0;
    for (int i = 0; i < r->ngains;) {
        int j = i;
        while (j < r->ngains && r->gains[j].ranks == r->gains[i].ranks)
            j++;
        if (r->gains[i].ranks <= ranks) {
            below = i;
            below_n = j - i;
        }
        if (r->gains[i].ranks >= ranks && above < 0) {
            above = i;
            above_n = j - i;
        }
        i = j;
    }
    if (below < 0)
        return gain_at_bytes(&r->gains[above], above_n, bytes);
    double gb = gain_at_bytes(&r->gains[below], below_n, bytes);
    if (above < 0 || above == below)
        return gb;
    /* between two measured scales: the lower of their gains. A gain that
     * grows (or turns) between 16 and 256 ranks says nothing sure about 32,
     * and buying the duplicate on an overestimate loses its whole cost. */
    double ga = gain_at_bytes(&r->gains[above], above_n, bytes);
    return ga < gb ? ga : gb;
}

static double setup_x(const hyt_setup_fit_t *f, int ranks)
{
    return f->x == HYT_SETUP_FIT_RANKS ? ranks : log2(ranks > 1 ? ranks : 1);
}

double hyt_setup_cost(const hyt_rule_set_t *s, int ranks)
{
    const hyt_setup_fit_t *f = &s->setup_fit;
    if (f->x == HYT_SETUP_FIT_NONE)
        return s->setup_us;
    if (f->job_ranks > 0 && ranks >= f->job_ranks)
        return f->job_us;
    double v = f->a_us + f->b_us * setup_x(f, ranks);
    if (f->job_ranks > 0 && ranks > f->ranks_max) { /* between the line's end and the job */
        double x0 = setup_x(f, f->ranks_max), x1 = setup_x(f, f->job_ranks);
        double v0 = fmax(0, f->a_us + f->b_us * x0);
        v = v0 + (f->job_us - v0) * (setup_x(f, ranks) - x0) / (x1 - x0);
    }
    return v > 0 ? v : 0;
}

int hyt_setup_world_early(const hyt_setup_world_t *w)
{
    if (w->ranks <= 0 || !(w->dup_us > 0))
        return 0;
    double before = w->dup_us - w->first_us;
    return (before > 0 ? before : 0) <= w->dup_us / 2;
}

/* The table's optional "setup_world": {ranks, dup_us, first_us}, all
 * required, finite, >= 0.  Absent: ranks = 0. */
static int parse_setup_world(json_object *root, hyt_setup_world_t *w, const char *file,
                             char *err, size_t errlen)
{
    json_object *o;
    memset(w, 0, sizeof *w);
    if (!json_object_object_get_ex(root, "setup_world", &o))
        return 0;
    const char *where = "$.setup_world";
    if (!json_object_is_type(o, json_type_object))
        return fail(err, errlen, file, "%s must be an object {ranks, dup_us, first_us}; fix or "
                    "remove it", where);
    static const char *const fields[] = {"ranks", "dup_us", "first_us"};
    if (ONLY_FIELDS(o, fields, file, where, err, errlen))
        return -1;
    int64_t r;
    double d, f;
    if (get_int(o, "ranks", 1, INT32_MAX, 1, 0, &r, file, where, err, errlen) ||
        get_us(o, "dup_us", 0, &d, file, where, err, errlen) ||
        get_us(o, "first_us", 0, &f, file, where, err, errlen))
        return -1;
    if (d < 0 || f < 0 || !isfinite(d) || !isfinite(f))
        return fail(err, errlen, file, "%s needs dup_us and first_us, finite numbers of "
                    "microseconds >= 0; fix or remove it", where);
    w->ranks = (int)r;
    w->dup_us = d;
    w->first_us = f;
    return 0;
}

/* A rule set's optional "setup_job": {ranks, us}, the cost measured on the
 * tuning job's communicator; it needs setup_fit and ranks above its
 * ranks_max.  Absent: job_ranks = 0. */
static int parse_setup_job(json_object *s, hyt_setup_fit_t *f, const char *file,
                           const char *where, char *err, size_t errlen)
{
    json_object *o;
    f->job_ranks = 0;
    f->job_us = -1;
    if (!json_object_object_get_ex(s, "setup_job", &o))
        return 0;
    char w[200];
    snprintf(w, sizeof w, "%s.setup_job", where);
    if (!json_object_is_type(o, json_type_object))
        return fail(err, errlen, file, "%s must be an object {ranks, us}; fix or remove it", w);
    static const char *const fields[] = {"ranks", "us"};
    if (ONLY_FIELDS(o, fields, file, w, err, errlen))
        return -1;
    if (f->x == HYT_SETUP_FIT_NONE)
        return fail(err, errlen, file, "%s needs %s.setup_fit (the cost up to the tuned shape); "
                    "add it or remove setup_job", w, where);
    int64_t r;
    if (get_int(o, "ranks", (int64_t)f->ranks_max + 1, INT32_MAX, 1, 0, &r, file, w, err, errlen) ||
        get_us(o, "us", 0, &f->job_us, file, w, err, errlen))
        return -1;
    if (f->job_us < 0 || !isfinite(f->job_us))
        return fail(err, errlen, file, "%s.us must be a finite number of microseconds >= 0; fix "
                    "or remove setup_job", w);
    f->job_ranks = (int)r;
    return 0;
}

/* A blocking rule set's optional "setup_fit": {x, a_us, b_us, ranks_min,
 * ranks_max}, all required (hyt_setup_fit_t); absent: x = NONE. */
static int parse_setup_fit(json_object *s, hyt_setup_fit_t *out, const char *file,
                           const char *where, char *err, size_t errlen)
{
    static const char *const fields[] = {"x", "a_us", "b_us", "ranks_min", "ranks_max"};
    enum { nfields = sizeof fields / sizeof fields[0] };
    json_object *f, *v;
    memset(out, 0, sizeof *out);
    if (!json_object_object_get_ex(s, "setup_fit", &f))
        return 0;
    char w[200];
    snprintf(w, sizeof w, "%s.setup_fit", where);
    if (!json_object_is_type(f, json_type_object))
        return fail(err, errlen, file, "%s must be an object {x, a_us, b_us, ranks_min, "
                    "ranks_max}; fix or remove it", w);
    if (only_fields(f, fields, nfields, file, w, err, errlen))
        return -1;
    for (int i = 0; i < nfields; i++)
        if (!json_object_object_get_ex(f, fields[i], &v))
            return fail(err, errlen, file, "%s.%s is missing; give all of x, a_us, b_us, "
                        "ranks_min, ranks_max, or remove setup_fit", w, fields[i]);
    json_object_object_get_ex(f, "x", &v);
    const char *x = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
    out->x = !strcmp(x, "ranks")        ? HYT_SETUP_FIT_RANKS
             : !strcmp(x, "log2_ranks") ? HYT_SETUP_FIT_LOG2
                                        : HYT_SETUP_FIT_NONE;
    if (out->x == HYT_SETUP_FIT_NONE)
        return fail(err, errlen, file, "%s.x = %s: give \"ranks\" or \"log2_ranks\"", w,
                    json_object_to_json_string(v));
    if (get_us(f, "a_us", -HUGE_VAL, &out->a_us, file, w, err, errlen) ||
        get_us(f, "b_us", 0, &out->b_us, file, w, err, errlen))
        return -1;
    if (!isfinite(out->a_us) || !isfinite(out->b_us))
        return fail(err, errlen, file, "%s: a_us and b_us must be finite; fix or remove it", w);
    int64_t lo, hi;
    if (get_int(f, "ranks_min", 1, INT32_MAX, 1, 0, &lo, file, w, err, errlen) ||
        get_int(f, "ranks_max", 1, INT32_MAX, 1, 0, &hi, file, w, err, errlen))
        return -1;
    if (hi < lo)
        return fail(err, errlen, file, "%s.ranks_max = %lld is below ranks_min = %lld; fix or "
                    "remove it", w, (long long)hi, (long long)lo);
    out->ranks_min = (int)lo;
    out->ranks_max = (int)hi;
    return 0;
}

/* A rule set's members but its rules' contents (the blocking collectives'
 * and the nonblocking section's): its bounds and its non-empty rules array. */
static int parse_set_head(json_object *s, int *nodes_max, int *ppn_max, double *setup_us,
                          hyt_setup_fit_t *fit, json_object **rules, const char *file, const char *where, char *err,
                          size_t errlen)
{
    if (!json_object_is_type(s, json_type_object))
        return fail(err, errlen, file, "%s must be an object with nodes_max, ppn_max, rules",
                    where);
    json_object_object_foreach(s, key, val)
    {
        (void)val;
        if (strcmp(key, "nodes_max") && strcmp(key, "ppn_max") && strcmp(key, "rules") &&
            (!setup_us || (strcmp(key, "setup_us") && strcmp(key, "setup_fit") &&
                           strcmp(key, "setup_job"))))
            return fail(err, errlen, file, "%s has unknown field \"%s\"; valid fields: "
                        "nodes_max, ppn_max, rules%s", where, key,
                        setup_us ? ", setup_us, setup_fit, setup_job (with \"format\": 2)" : "");
    }
    if (setup_us && (get_us(s, "setup_us", 0, setup_us, file, where, err, errlen) ||
                     parse_setup_fit(s, fit, file, where, err, errlen) ||
                     parse_setup_job(s, fit, file, where, err, errlen)))
        return -1;
    int64_t v;
    if (get_int(s, "nodes_max", 1, INT32_MAX, 0, INT32_MAX, &v, file, where, err, errlen))
        return -1;
    *nodes_max = (int)v;
    if (get_int(s, "ppn_max", 1, INT32_MAX, 0, INT32_MAX, &v, file, where, err, errlen))
        return -1;
    *ppn_max = (int)v;
    if (!json_object_object_get_ex(s, "rules", rules) ||
        !json_object_is_type(*rules, json_type_array) || json_object_array_length(*rules) == 0)
        return fail(err, errlen, file, "%s.rules must be a non-empty array", where);
    return 0;
}

static int parse_set(json_object *s, hyt_coll_t coll, int format, hyt_rule_set_t *out,
                     const char *file, const char *where, char *err, size_t errlen)
{
    json_object *rules;
    out->setup_us = -1;
    if (parse_set_head(s, &out->nodes_max, &out->ppn_max, format >= 2 ? &out->setup_us : NULL,
                       &out->setup_fit, &rules, file, where, err, errlen))
        return -1;
    int n = (int)json_object_array_length(rules);
    out->rules = calloc((size_t)n, sizeof *out->rules);
    if (!out->rules)
        return fail(err, errlen, file, "out of memory");
    out->nrules = n;
    for (int i = 0; i < n; i++) {
        char w[160];
        snprintf(w, sizeof w, "%s.rules[%d]", where, i);
        if (parse_rule(json_object_array_get_idx(rules, i), coll, i == n - 1, format,
                       &out->rules[i],
                       i ? out->rules[i - 1].bytes_max : 0, i == 0, file, w, err, errlen))
            return -1;
    }
    if (out->rules[n - 1].bytes_max != UINT64_MAX)
        return fail(err, errlen, file, "%s.rules[%d] is the last rule and must have no "
                    "bytes_max (it covers every larger size)", where, n - 1);
    return 0;
}

/* One rule of the "nonblocking" section. */
static int parse_nb_rule(json_object *r, hyt_nb_t n, int last, uint64_t prev, int first,
                         hyt_nb_rule_t *out, const char *file, const char *where, char *err,
                         size_t errlen)
{
    if (!json_object_is_type(r, json_type_object))
        return fail(err, errlen, file, "%s must be an object {bytes_max, algorithm, k}", where);
    json_object_object_foreach(r, key, val)
    {
        (void)val;
        if (strcmp(key, "bytes_max") && strcmp(key, "algorithm") && strcmp(key, "k") &&
            strcmp(key, "predicted_us") && strcmp(key, "native_us"))
            return fail(err, errlen, file, "%s has unknown field \"%s\"; valid fields: "
                        "bytes_max, algorithm, k, predicted_us, native_us", where, key);
    }
    int64_t v;
    if (last) {
        json_object *b;
        if (json_object_object_get_ex(r, "bytes_max", &b))
            return fail(err, errlen, file, "%s is the last rule and must have no bytes_max (it "
                        "covers every larger size)", where);
        out->bytes_max = UINT64_MAX;
    } else {
        if (get_int(r, "bytes_max", 0, INT64_MAX, 1, 0, &v, file, where, err, errlen))
            return -1;
        if (!first && (uint64_t)v <= prev)
            return fail(err, errlen, file, "%s.bytes_max = %lld is not above the previous "
                        "rule's %llu; order the rules by increasing bytes_max", where,
                        (long long)v, (unsigned long long)prev);
        out->bytes_max = (uint64_t)v;
    }
    json_object *a;
    if (!json_object_object_get_ex(r, "algorithm", &a) || !json_object_is_type(a, json_type_string))
        return fail(err, errlen, file, "%s.algorithm is missing or not a string; give an MPICH "
                    "algorithm name (\"tsp_tree\") or \"auto\"", where);
    const char *name = json_object_get_string(a);
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof out->alg || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
        return fail(err, errlen, file, "%s.algorithm \"%s\" is not an MPICH algorithm name "
                    "(lower-case letters, digits and _, as MPIR_CVAR_%s_INTRA_ALGORITHM lists "
                    "them)", where, name, hyt_nb_name(n));
    snprintf(out->alg, sizeof out->alg, "%s", name);
    const char *kv[HYT_NB_MAX_KVARS];
    int radix = hyt_nb_kvars(n, name, kv) > 0;
    if (get_int(r, "k", radix ? 2 : 0, radix ? 65536 : 0, 0, 0, &v, file, where, err, errlen)) {
        if (!radix)
            fail(err, errlen, file, "%s.k: algorithm %s of %s takes no radix; remove k", where,
                 name, hyt_nb_name(n));
        return -1;
    }
    out->k = (int)v;
    if (radix && out->k == 0)
        return fail(err, errlen, file, "%s.k is missing; %s of %s takes a radix: give an "
                    "integer in 2..65536", where, name, hyt_nb_name(n));
    if (get_us(r, "predicted_us", 0, &out->predicted_us, file, where, err, errlen) ||
        get_us(r, "native_us", 0, &out->native_us, file, where, err, errlen))
        return -1;
    out->value = -1;
    out->kv[0] = out->kv[1] = -1;
    return 0;
}

/* $.nonblocking: {"iallreduce": [{nodes_max, ppn_max, rules: [...]}], ...} */
static int parse_nb(json_object *nb, hyt_table_t *t, const char *file, char *err, size_t errlen)
{
    if (!json_object_is_type(nb, json_type_object))
        return fail(err, errlen, file, "$.nonblocking must be an object {\"iallreduce\": "
                    "[{\"rules\": [...]}], ...}");
    t->nb = calloc(1, sizeof *t->nb);
    if (!t->nb)
        return fail(err, errlen, file, "out of memory");
    json_object_object_foreach(nb, cname, sets)
    {
        int n = hyt_nb_from_name(cname);
        if (n < 0) {
            char names[256];
            return fail(err, errlen, file, "$.nonblocking.%s is not a nonblocking collective "
                        "hytune selects MPICH algorithms for; valid: %s", cname,
                        hyt_nb_names(names, sizeof names));
        }
        if (!json_object_is_type(sets, json_type_array) || json_object_array_length(sets) == 0)
            return fail(err, errlen, file, "$.nonblocking.%s must be a non-empty array of "
                        "{nodes_max, ppn_max, rules}", cname);
        int ns = (int)json_object_array_length(sets);
        if (!(t->nb->sets[n] = calloc((size_t)ns, sizeof *t->nb->sets[n])))
            return fail(err, errlen, file, "out of memory");
        t->nb->nsets[n] = ns;
        for (int i = 0; i < ns; i++) {
            json_object *rules;
            hyt_nb_set_t *o = &t->nb->sets[n][i];
            char w[160];
            snprintf(w, sizeof w, "$.nonblocking.%s[%d]", cname, i);
            if (parse_set_head(json_object_array_get_idx(sets, i), &o->nodes_max, &o->ppn_max, NULL,
                               NULL, &rules, file, w, err, errlen))
                return -1;
            int nr = (int)json_object_array_length(rules);
            if (!(o->rules = calloc((size_t)nr, sizeof *o->rules)))
                return fail(err, errlen, file, "out of memory");
            o->nrules = nr;
            for (int r = 0; r < nr; r++) {
                char wr[192];
                snprintf(wr, sizeof wr, "%s.rules[%d]", w, r);
                if (parse_nb_rule(json_object_array_get_idx(rules, r), (hyt_nb_t)n, r == nr - 1,
                                  r ? o->rules[r - 1].bytes_max : 0, r == 0, &o->rules[r], file,
                                  wr, err, errlen))
                    return -1;
            }
        }
    }
    return 0;
}

static int parse_table(json_object *root, hyt_table_t *t, const char *file, char *err,
                       size_t errlen)
{
    if (!json_object_is_type(root, json_type_object))
        return fail(err, errlen, file, "top level must be an object: {\"format\": 2, "
                    "\"collectives\": {...}}");
    int64_t format;
    if (get_int(root, "format", 0, INT32_MAX, 1, 0, &format, file, "$", err, errlen))
        return -1;
    if (format < 1 || format > HYT_TABLE_FORMAT)
        return fail(err, errlen, file, "$.format is %lld, this hytune reads formats 1 to %d; "
                    "regenerate the table with this version's `hytune tune`", (long long)format,
                    HYT_TABLE_FORMAT);
    json_object *plat, *colls;
    if (json_object_object_get_ex(root, "platform", &plat)) {
        int64_t v;
        if (!json_object_is_type(plat, json_type_object))
            return fail(err, errlen, file, "$.platform must be an object {nodes, ppn, mpi}");
        if (get_int(plat, "nodes", 1, INT32_MAX, 0, 0, &v, file, "$.platform", err, errlen))
            return -1;
        t->platform_nodes = (int)v;
        if (get_int(plat, "ppn", 1, INT32_MAX, 0, 0, &v, file, "$.platform", err, errlen))
            return -1;
        t->platform_ppn = (int)v;
        json_object *m;
        if (json_object_object_get_ex(plat, "mpi", &m) && json_object_is_type(m, json_type_string))
            t->platform_mpi = strdup(json_object_get_string(m));
    }
    json_object *tu; /* how the tuner measured; its k_max bounds online probing */
    if (json_object_object_get_ex(root, "tuning", &tu)) {
        int64_t v;
        if (!json_object_is_type(tu, json_type_object))
            return fail(err, errlen, file, "$.tuning must be an object {arrival, metric, "
                        "k_max}; fix or remove it");
        if (get_int(tu, "k_max", 2, HYT_K_LIMIT, 0, 0, &v, file, "$.tuning", err, errlen))
            return -1;
        t->k_max = (int)v;
    }
    if (parse_setup_world(root, &t->world, file, err, errlen))
        return -1;
    if (!json_object_object_get_ex(root, "collectives", &colls) ||
        !json_object_is_type(colls, json_type_object))
        return fail(err, errlen, file, "$.collectives is missing or not an object; give "
                    "{\"allreduce\": [{\"rules\": [...]}], ...}");
    json_object_object_foreach(colls, cname, sets)
    {
        int c = hyt_coll_from_name(cname);
        if (c < 0)
            return fail(err, errlen, file, "$.collectives.%s is not a collective hytune tunes; "
                        "valid: %s", cname, hyt_coll_names());
        if (!json_object_is_type(sets, json_type_array) || json_object_array_length(sets) == 0)
            return fail(err, errlen, file, "$.collectives.%s must be a non-empty array of "
                        "{nodes_max, ppn_max, rules}", cname);
        int n = (int)json_object_array_length(sets);
        t->sets[c] = calloc((size_t)n, sizeof *t->sets[c]);
        if (!t->sets[c])
            return fail(err, errlen, file, "out of memory");
        t->nsets[c] = n;
        for (int i = 0; i < n; i++) {
            char w[128];
            snprintf(w, sizeof w, "$.collectives.%s[%d]", cname, i);
            if (parse_set(json_object_array_get_idx(sets, i), (hyt_coll_t)c, (int)format,
                          &t->sets[c][i], file, w, err, errlen))
                return -1;
        }
    }
    json_object *nb;
    if (json_object_object_get_ex(root, "nonblocking", &nb))
        return parse_nb(nb, t, file, err, errlen);
    return 0;
}

hyt_table_t *hyt_table_load(const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = read_file(path, &len, err, errlen);
    if (!text)
        return NULL;
    if (text[strspn(text, " \t\r\n")] == 0) {
        fail(err, errlen, path, "is empty; regenerate it with `hytune tune -o FILE`");
        free(text);
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    hyt_table_t *t = NULL;
    if (!tok) {
        fail(err, errlen, path, "out of memory");
        goto out;
    }
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    if (!root || jerr != json_tokener_success) {
        int line, col;
        size_t off = json_tokener_get_parse_end(tok);
        offset_to_line(text, off, &line, &col);
        if (jerr == json_tokener_continue)
            fail(err, errlen, path, "ends early at line %d (truncated file?); regenerate it "
                 "with `hytune tune`", line);
        else
            fail(err, errlen, path, "line %d column %d: %s; fix the JSON syntax", line, col,
                 json_tokener_error_desc(jerr == json_tokener_success ? json_tokener_error_parse_eof
                                                                      : jerr));
        goto out;
    }
    size_t end = json_tokener_get_parse_end(tok);
    while (end < len && (text[end] == ' ' || text[end] == '\n' || text[end] == '\t' ||
                         text[end] == '\r'))
        end++;
    if (end < len) {
        int line, col;
        offset_to_line(text, end, &line, &col);
        fail(err, errlen, path, "line %d column %d: text after the JSON document; remove it",
             line, col);
        goto out;
    }
    t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        fail(err, errlen, path, "out of memory");
        free(t);
        t = NULL;
        goto out;
    }
    if (parse_table(root, t, path, err, errlen) != 0) {
        hyt_table_free(t);
        t = NULL;
    }
out:
    if (root)
        json_object_put(root);
    if (tok)
        json_tokener_free(tok);
    free(text);
    return t;
}

void hyt_table_free(hyt_table_t *t)
{
    if (!t)
        return;
    for (int c = 0; c < HYT_NCOLL; c++) {
        for (int i = 0; i < t->nsets[c]; i++)
            free(t->sets[c][i].rules);
        free(t->sets[c]);
    }
    hyt_nb_table_free(t->nb);
    free(t->platform_mpi);
    free(t->path);
    free(t);
}

const hyt_rule_set_t *hyt_table_match(const hyt_table_t *t, hyt_coll_t c, int nodes, int ppn)
{
    if (!t)
        return NULL;
    for (int i = 0; i < t->nsets[c]; i++)
        if (nodes <= t->sets[c][i].nodes_max && ppn <= t->sets[c][i].ppn_max)
            return &t->sets[c][i];
    return NULL;
}

/* ---- writing (hytune tune) ---- */
static int cmp_set(const void *x, const void *y)
{
    const hyt_tune_set_t *a = *(const hyt_tune_set_t *const *)x, *b = *(const hyt_tune_set_t *const *)y;
    if (a->nodes != b->nodes)
        return a->nodes < b->nodes ? -1 : 1;
    return (a->ppn > b->ppn) - (a->ppn < b->ppn);
}

static json_object *us_json(double us);

static json_object *rule_json(const hyt_tune_rule_t *r, const char *const *names)
{
    json_object *o = json_object_new_object();
    if (r->bytes_max != UINT64_MAX)
        json_object_object_add(o, "bytes_max", json_object_new_int64((int64_t)r->bytes_max));
    json_object_object_add(o, "algorithm", json_object_new_string(names[r->alg]));
    if (r->k > 0)
        json_object_object_add(o, "k", json_object_new_int(r->k));
    if (r->us >= 0)
        json_object_object_add(o, "predicted_us", json_object_new_double(r->us));
    if (r->nshort > 0 && r->shortlist[0].sd >= 0)
        json_object_object_add(o, "spread_us", json_object_new_double(r->shortlist[0].sd));
    if (r->native_us > 0)
        json_object_object_add(o, "native_us", json_object_new_double(r->native_us));
    if (r->ngains > 0) {
        json_object *l = json_object_new_array();
        for (int i = 0; i < r->ngains; i++) {
            json_object *e = json_object_new_object();
            json_object_object_add(e, "ranks", json_object_new_int(r->gains[i].ranks));
            json_object_object_add(e, "bytes", json_object_new_int64((int64_t)r->gains[i].bytes));
            json_object_object_add(e, "us", us_json(r->gains[i].us));
            json_object_array_add(l, e);
        }
        json_object_object_add(o, "gains", l);
    }
    if (r->nshort > 1) {
        json_object *l = json_object_new_array();
        for (int i = 1; i < r->nshort; i++) {
            const hyt_tune_cand_t *c = &r->shortlist[i];
            json_object *e = json_object_new_object();
            json_object_object_add(e, "algorithm", json_object_new_string(names[c->alg]));
            if (c->k > 0)
                json_object_object_add(e, "k", json_object_new_int(c->k));
            json_object_object_add(e, "predicted_us", json_object_new_double(c->us));
            if (c->sd >= 0)
                json_object_object_add(e, "spread_us", json_object_new_double(c->sd));
            json_object_array_add(l, e);
        }
        json_object_object_add(o, "shortlist", l);
    }
    return o;
}

/* First-match order (src/table.c): shapes by nodes then ppn ascending, so a
 * communicator takes the smallest tuned shape that covers it. */
static json_object *coll_json(const hyt_tune_coll_t *c, int maxn, int maxp)
{
    const hyt_tune_set_t **order = malloc((size_t)c->nsets * sizeof *order);
    if (!order)
        return NULL;
    for (int i = 0; i < c->nsets; i++)
        order[i] = &c->sets[i];
    qsort(order, (size_t)c->nsets, sizeof *order, cmp_set);
    json_object *arr = json_object_new_array();
    for (int i = 0; i < c->nsets; i++) {
        const hyt_tune_set_t *s = order[i];
        json_object *o = json_object_new_object(), *rules = json_object_new_array();
        if (s->nodes < maxn)
            json_object_object_add(o, "nodes_max", json_object_new_int(s->nodes));
        if (s->ppn < maxp)
            json_object_object_add(o, "ppn_max", json_object_new_int(s->ppn));
        if (s->setup_us >= 0)
            json_object_object_add(o, "setup_us", json_object_new_double(s->setup_us));
        if (s->setup_fit.x != HYT_SETUP_FIT_NONE) {
            const hyt_setup_fit_t *f = &s->setup_fit;
            json_object *fo = json_object_new_object();
            json_object_object_add(fo, "x", json_object_new_string(hyt_setup_x_name(f->x)));
            json_object_object_add(fo, "a_us", json_object_new_double(f->a_us));
            json_object_object_add(fo, "b_us", json_object_new_double(f->b_us));
            json_object_object_add(fo, "ranks_min", json_object_new_int(f->ranks_min));
            json_object_object_add(fo, "ranks_max", json_object_new_int(f->ranks_max));
            json_object_object_add(o, "setup_fit", fo);
            if (f->job_ranks > f->ranks_max && f->job_us >= 0) {
                json_object *jo = json_object_new_object();
                json_object_object_add(jo, "ranks", json_object_new_int(f->job_ranks));
                json_object_object_add(jo, "us", json_object_new_double(f->job_us));
                json_object_object_add(o, "setup_job", jo);
            }
        }
        for (int r = 0; r < s->nrules; r++)
            json_object_array_add(rules, rule_json(&s->rules[r], s->alg_names));
        json_object_object_add(o, "rules", rules);
        json_object_array_add(arr, o);
    }
    free(order);
    return arr;
}

/* $.nonblocking, shaped as the reader takes it (parse_nb): sets in order,
 * the last one unbounded; times to the nanosecond. */
static json_object *us_json(double us)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.3f", us);
    return json_object_new_double_s(us, buf);
}

static json_object *nb_json(const hyt_nb_table_t *t)
{
    json_object *nb = json_object_new_object();
    for (int n = 0; n < HYT_NB_NCOLL; n++) {
        if (!t->nsets[n])
            continue;
        json_object *arr = json_object_new_array();
        for (int i = 0; i < t->nsets[n]; i++) {
            const hyt_nb_set_t *st = &t->sets[n][i];
            json_object *o = json_object_new_object(), *rules = json_object_new_array();
            if (i + 1 < t->nsets[n]) {
                json_object_object_add(o, "nodes_max", json_object_new_int(st->nodes_max));
                json_object_object_add(o, "ppn_max", json_object_new_int(st->ppn_max));
            }
            for (int r = 0; r < st->nrules; r++) {
                const hyt_nb_rule_t *ru = &st->rules[r];
                json_object *e = json_object_new_object();
                if (ru->bytes_max != UINT64_MAX)
                    json_object_object_add(e, "bytes_max",
                                           json_object_new_int64((int64_t)ru->bytes_max));
                json_object_object_add(e, "algorithm", json_object_new_string(ru->alg));
                if (ru->k)
                    json_object_object_add(e, "k", json_object_new_int(ru->k));
                if (ru->predicted_us >= 0)
                    json_object_object_add(e, "predicted_us", us_json(ru->predicted_us));
                if (ru->native_us >= 0)
                    json_object_object_add(e, "native_us", us_json(ru->native_us));
                json_object_array_add(rules, e);
            }
            json_object_object_add(o, "rules", rules);
            json_object_array_add(arr, o);
        }
        json_object_object_add(nb, hyt_nb_name((hyt_nb_t)n), arr);
    }
    return nb;
}

char *hyt_table_json(int nodes, int ppn, const char *mpi, const char *arrival, int k_max,
                     const hyt_tune_job_native_t *jn, const hyt_setup_world_t *world,
                     const hyt_tune_coll_t *colls, int ncolls, const hyt_nb_table_t *nb)
{
    json_object *root = json_object_new_object(), *plat = json_object_new_object(),
                *cs = json_object_new_object();
    json_object_object_add(root, "format", json_object_new_int(2));
    json_object_object_add(plat, "nodes", json_object_new_int(nodes));
    json_object_object_add(plat, "ppn", json_object_new_int(ppn));
    json_object_object_add(plat, "mpi", json_object_new_string(mpi ? mpi : "unknown"));
    json_object_object_add(root, "platform", plat);
    json_object *tu = json_object_new_object(); /* how the times were measured */
    json_object_object_add(tu, "arrival", json_object_new_string(arrival));
    json_object_object_add(tu, "metric", json_object_new_string(strcmp(arrival, "sync")
                                                                    ? "last delay"
                                                                    : "slowest rank's call"));
    if (k_max > 0)
        json_object_object_add(tu, "k_max", json_object_new_int(k_max));
    if (jn && jn->nodes > 0) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "nodes", json_object_new_int(jn->nodes));
        json_object_object_add(o, "measured", json_object_new_int(jn->measured));
        json_object_object_add(o, "sizes", json_object_new_int(jn->sizes));
        json_object_object_add(o, "rules", json_object_new_int(jn->rules));
        json_object_object_add(tu, "job_native", o);
    }
    json_object_object_add(root, "tuning", tu);
    if (world && world->ranks > 0) {
        json_object *w = json_object_new_object();
        json_object_object_add(w, "ranks", json_object_new_int(world->ranks));
        json_object_object_add(w, "dup_us", json_object_new_double(world->dup_us));
        json_object_object_add(w, "first_us", json_object_new_double(world->first_us));
        json_object_object_add(root, "setup_world", w);
    }
    for (int c = 0; c < ncolls; c++) {
        int maxn = 0, maxp = 0;
        for (int i = 0; i < colls[c].nsets; i++) {
            if (colls[c].sets[i].nodes > maxn)
                maxn = colls[c].sets[i].nodes;
            if (colls[c].sets[i].ppn > maxp)
                maxp = colls[c].sets[i].ppn;
        }
        json_object *a = coll_json(&colls[c], maxn, maxp);
        if (a)
            json_object_object_add(cs, colls[c].name, a);
    }
    json_object_object_add(root, "collectives", cs);
    if (nb)
        json_object_object_add(root, "nonblocking", nb_json(nb));
    const char *txt = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = txt ? strdup(txt) : NULL;
    json_object_put(root);
    return copy;
}
