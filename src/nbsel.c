/* MPICH's nonblocking algorithms chosen per call through MPI_T (see
 * src/nbsel.h). */
#include "src/nbsel.h"
#include "src/agree.h"
#include "src/mpit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    hyt_coll_t coll;
} nbs[HYT_NB_NCOLL] = {
    {"iallreduce", HYT_COLL_ALLREDUCE}, {"ibcast", HYT_COLL_BCAST},
    {"ireduce", HYT_COLL_REDUCE},       {"iallgather", HYT_COLL_ALLGATHER},
    {"ialltoall", HYT_COLL_ALLTOALL},   {"ibarrier", HYT_COLL_BARRIER},
    {"igather", HYT_COLL_GATHER},       {"iscatter", HYT_COLL_SCATTER},
    {"iallgatherv", HYT_COLL_ALLGATHERV}, {"ialltoallv", HYT_COLL_ALLTOALLV},
    {"ireduce_scatter", HYT_COLL_REDUCE_SCATTER},
    {"ireduce_scatter_block", HYT_COLL_REDUCE_SCATTER_BLOCK},
    {"iscan", HYT_COLL_SCAN},           {"igatherv", HYT_COLL_GATHERV},
    {"iscatterv", HYT_COLL_SCATTERV},
};

/* MPICH 4.0.2's radix variables (src/mpi/coll/coll_algorithms.txt, the
 * cvar_params of each algorithm): tree type, chunk size and buffer
 * switches are left as the user set them. */
static const struct {
    hyt_nb_t nb;
    const char *alg;
    const char *kvar[HYT_NB_MAX_KVARS];
} radix[] = {
    {HYT_NB_IALLREDUCE, "tsp_recexch_single_buffer", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IALLREDUCE, "tsp_recexch_multiple_buffer", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IALLREDUCE, "tsp_recexch_reduce_scatter_recexch_allgatherv", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IALLREDUCE, "tsp_tree", {"TREE_KVAL", NULL}},
    {HYT_NB_IBCAST, "tsp_tree", {"TREE_KVAL", NULL}},
    {HYT_NB_IBCAST, "tsp_scatterv_recexch_allgatherv", {"SCATTERV_KVAL", "ALLGATHERV_RECEXCH_KVAL"}},
    {HYT_NB_IREDUCE, "tsp_tree", {"TREE_KVAL", NULL}},
    {HYT_NB_IALLGATHER, "tsp_brucks", {"BRUCKS_KVAL", NULL}},
    {HYT_NB_IALLGATHER, "tsp_recexch_doubling", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IALLGATHER, "tsp_recexch_halving", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IALLTOALL, "tsp_brucks", {"BRUCKS_KVAL", NULL}},
    {HYT_NB_IGATHER, "tsp_tree", {"TREE_KVAL", NULL}},
    {HYT_NB_ISCATTER, "tsp_tree", {"TREE_KVAL", NULL}},
    {HYT_NB_IALLGATHERV, "tsp_brucks", {"BRUCKS_KVAL", NULL}},
    {HYT_NB_IALLGATHERV, "tsp_recexch_doubling", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IALLGATHERV, "tsp_recexch_halving", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IREDUCE_SCATTER, "tsp_recexch", {"RECEXCH_KVAL", NULL}},
    {HYT_NB_IREDUCE_SCATTER_BLOCK, "tsp_recexch", {"RECEXCH_KVAL", NULL}},
};

const char *hyt_nb_name(hyt_nb_t n)
{
    return n >= 0 && n < HYT_NB_NCOLL ? nbs[n].name : "?";
}

hyt_coll_t hyt_nb_coll(hyt_nb_t n)
{
    return nbs[n].coll;
}

int hyt_nb_from_name(const char *name)
{
    for (int n = 0; n < HYT_NB_NCOLL; n++)
        if (!strcmp(nbs[n].name, name))
            return n;
    return -1;
}

const char *hyt_nb_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int n = 0; n < HYT_NB_NCOLL; n++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", n ? ", " : "", nbs[n].name);
    return buf;
}

int hyt_nb_from_coll(hyt_coll_t c)
{
    for (int n = 0; n < HYT_NB_NCOLL; n++)
        if (nbs[n].coll == c)
            return n;
    return -1;
}

int hyt_nb_kvars(hyt_nb_t n, const char *alg, const char *out[HYT_NB_MAX_KVARS])
{
    for (size_t i = 0; i < sizeof radix / sizeof *radix; i++)
        if (radix[i].nb == n && !strcmp(radix[i].alg, alg)) {
            int m = 0;
            for (; m < HYT_NB_MAX_KVARS && radix[i].kvar[m]; m++)
                out[m] = radix[i].kvar[m];
            return m;
        }
    return 0;
}

const char *hyt_nb_cvar_name(hyt_nb_t n, const char *suffix, char *buf, size_t len)
{
    return hyt_cvar_name(nbs[n].name, suffix, buf, len);
}

void hyt_nb_table_free(hyt_nb_table_t *t)
{
    if (!t)
        return;
    for (int n = 0; n < HYT_NB_NCOLL; n++) {
        for (int i = 0; i < t->nsets[n]; i++)
            free(t->sets[n][i].rules);
        free(t->sets[n]);
    }
    free(t);
}

uint64_t hyt_nb_fingerprint(const hyt_nb_table_t *t, uint64_t h)
{
    h = hyt_agree_hash_str(h, "nonblocking");
    for (int n = 0; t && n < HYT_NB_NCOLL; n++) {
        h = hyt_agree_hash(h, &t->nsets[n], sizeof t->nsets[n]);
        for (int i = 0; i < t->nsets[n]; i++) {
            const hyt_nb_set_t *s = &t->sets[n][i];
            h = hyt_agree_hash(h, &s->nodes_max, sizeof s->nodes_max);
            h = hyt_agree_hash(h, &s->ppn_max, sizeof s->ppn_max);
            h = hyt_agree_hash(h, &s->nrules, sizeof s->nrules);
            for (int r = 0; r < s->nrules; r++) {
                h = hyt_agree_hash(h, &s->rules[r].bytes_max, sizeof s->rules[r].bytes_max);
                h = hyt_agree_hash_str(h, s->rules[r].alg);
                h = hyt_agree_hash(h, &s->rules[r].k, sizeof s->rules[r].k);
            }
        }
    }
    return h;
}

/* ---- run time ---- */
#define MAX_SLOTS 4 /* radix variables per collective */

static struct nbvars {
    hyt_cvar_t alg;
    int alg_saved;
    int nslots;
    hyt_cvar_t slot[MAX_SLOTS];
    char slot_name[MAX_SLOTS][64];
    int slot_saved[MAX_SLOTS];  /* at MPI_Init, back at MPI_Finalize */
    int alg_before, nwritten;   /* around one call: the values before it */
    int written[HYT_NB_MAX_KVARS], before[HYT_NB_MAX_KVARS];
} vars[HYT_NB_NCOLL];
static const hyt_nb_table_t *nb_table;
static int mpit_on;
int hyt_nb_active;

static int fail(char *err, size_t len, const char *file, const char *fmt, ...) HYT_PRINTF(4, 5);
static int fail(char *err, size_t len, const char *file, const char *fmt, ...)
{
    int m = snprintf(err, len, "table %s: ", file);
    if (m < 0 || (size_t)m >= len)
        m = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + m, len - (size_t)m, fmt, ap);
    va_end(ap);
    return -1;
}

/* Slot of radix variable suffix of n, opened on first use; -1 if MPI_T has
 * no such variable. */
static int slot_of(hyt_nb_t n, const char *suffix)
{
    struct nbvars *v = &vars[n];
    char name[64];
    hyt_nb_cvar_name(n, suffix, name, sizeof name);
    for (int i = 0; i < v->nslots; i++)
        if (!strcmp(v->slot_name[i], name))
            return i;
    if (v->nslots == MAX_SLOTS || hyt_cvar_open(name, 0, &v->slot[v->nslots]) != 0 ||
        hyt_cvar_read(&v->slot[v->nslots], &v->slot_saved[v->nslots]) != 0) {
        hyt_cvar_close(&v->slot[v->nslots]);
        return -1;
    }
    snprintf(v->slot_name[v->nslots], sizeof v->slot_name[0], "%s", name);
    return v->nslots++;
}

int hyt_nb_resolve(hyt_nb_table_t *t, const char *file, char *err, size_t errlen)
{
    hyt_nb_release();
    if (hyt_mpit_begin() != 0)
        return fail(err, errlen, file, "$.nonblocking needs MPI_T to select MPICH's algorithms, "
                    "and this MPI has none (SimGrid); remove the section or run on MPICH");
    mpit_on = 1;
    for (int n = 0; n < HYT_NB_NCOLL; n++) {
        if (!t->nsets[n])
            continue;
        struct nbvars *v = &vars[n];
        char name[64];
        hyt_nb_cvar_name((hyt_nb_t)n, "INTRA_ALGORITHM", name, sizeof name);
        if (hyt_cvar_open(name, 1, &v->alg) != 0 || hyt_cvar_read(&v->alg, &v->alg_saved) != 0) {
            hyt_nb_release();
            return fail(err, errlen, file, "$.nonblocking.%s: this MPI has no control variable "
                        "%s (MPI_T) with the names of its algorithms; it is MPICH's (4.0.2 has "
                        "it): remove the collective from the section or run on MPICH",
                        nbs[n].name, name);
        }
        for (int i = 0; i < t->nsets[n]; i++)
            for (int r = 0; r < t->sets[n][i].nrules; r++) {
                hyt_nb_rule_t *ru = &t->sets[n][i].rules[r];
                ru->value = -1;
                ru->kv[0] = ru->kv[1] = -1;
                if (!strcmp(ru->alg, "auto"))
                    continue;
                ru->value = hyt_cvar_value(&v->alg, ru->alg);
                if (ru->value < 0) {
                    hyt_nb_release();
                    return fail(err, errlen, file, "$.nonblocking.%s[%d].rules[%d].algorithm "
                                "\"%s\" is not a value of %s in this MPI; give one its MPI_T "
                                "description lists (hytune tune writes them)", nbs[n].name, i,
                                r, ru->alg, name);
                }
                const char *kv[HYT_NB_MAX_KVARS];
                int nk = hyt_nb_kvars((hyt_nb_t)n, ru->alg, kv);
                for (int q = 0; q < nk; q++) {
                    ru->kv[q] = slot_of((hyt_nb_t)n, kv[q]);
                    if (ru->kv[q] < 0) {
                        char kn[64];
                        hyt_nb_cvar_name((hyt_nb_t)n, kv[q], kn, sizeof kn);
                        hyt_nb_release();
                        return fail(err, errlen, file, "$.nonblocking.%s[%d].rules[%d]: this MPI "
                                    "has no control variable %s for the radix of %s; remove "
                                    "the rule's k or the rule", nbs[n].name, i, r, kn, ru->alg);
                    }
                }
            }
    }
    nb_table = t;
    return 0;
}

void hyt_nb_enable(void)
{
    hyt_nb_active = nb_table != NULL;
}

void hyt_nb_release(void)
{
    hyt_nb_active = 0;
    for (int n = 0; n < HYT_NB_NCOLL; n++) {
        struct nbvars *v = &vars[n];
        if (v->alg.ok)
            hyt_cvar_write(&v->alg, v->alg_saved);
        hyt_cvar_close(&v->alg);
        for (int i = 0; i < v->nslots; i++) {
            hyt_cvar_write(&v->slot[i], v->slot_saved[i]);
            hyt_cvar_close(&v->slot[i]);
        }
        v->nslots = 0;
    }
    if (mpit_on)
        hyt_mpit_end();
    mpit_on = 0;
    nb_table = NULL;
}

/* The rule set of c for ctx's shape, or NULL. */
static const hyt_nb_set_t *match(hyt_coll_t c, const hyt_comm_t *ctx, int *nb)
{
    int n = hyt_nb_from_coll(c);
    *nb = n;
    if (n < 0 || !nb_table || !nb_table->nsets[n] || ctx->is_inter)
        return NULL;
    for (int i = 0; i < nb_table->nsets[n]; i++)
        if (ctx->nodes <= nb_table->sets[n][i].nodes_max && ctx->ppn <= nb_table->sets[n][i].ppn_max)
            return &nb_table->sets[n][i];
    return NULL;
}

int hyt_nb_covers(hyt_coll_t c, const hyt_comm_t *ctx)
{
    int n;
    const hyt_nb_set_t *s = hyt_nb_active ? match(c, ctx, &n) : NULL;
    for (int r = 0; s && r < s->nrules; r++)
        if (s->rules[r].value >= 0)
            return 1;
    return 0;
}

int hyt_nb_apply(hyt_coll_t c, const hyt_comm_t *ctx, size_t bytes)
{
    int n;
    const hyt_nb_set_t *s = match(c, ctx, &n);
    if (!s)
        return -1;
    int lo = 0, hi = s->nrules - 1;
    if (hyt_coll_props(c) & HYT_CP_LOCAL_SIZE)
        lo = hi; /* the size differs between ranks: every rank takes the last rule */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (bytes <= s->rules[mid].bytes_max)
            hi = mid;
        else
            lo = mid + 1;
    }
    const hyt_nb_rule_t *r = &s->rules[lo];
    if (r->value < 0)
        return -1;
    /* the values now (the application may have written them through MPI_T
     * itself) come back after the call */
    struct nbvars *v = &vars[n];
    v->nwritten = 0;
    hyt_cvar_read(&v->alg, &v->alg_before);
    hyt_cvar_write(&v->alg, r->value);
    for (int q = 0; q < HYT_NB_MAX_KVARS && r->kv[q] >= 0; q++) {
        v->written[v->nwritten] = r->kv[q];
        hyt_cvar_read(&v->slot[r->kv[q]], &v->before[v->nwritten++]);
        hyt_cvar_write(&v->slot[r->kv[q]], r->k);
    }
    return n;
}

void hyt_nb_restore(int n)
{
    struct nbvars *v = &vars[n];
    hyt_cvar_write(&v->alg, v->alg_before);
    for (int i = 0; i < v->nwritten; i++)
        hyt_cvar_write(&v->slot[v->written[i]], v->before[i]);
}
