/* MPICH native algorithms as tuner candidates, and the MPICH selection-file
 * export (see offline/mpich.h). */
#include "offline/mpich.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_pof2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

int hyt_mpich_pof2_below(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}

/* What MPICH 4.0.2 requires of a call before it runs an algorithm it was
 * told to run (otherwise it runs its fallback): one table for the tuner's
 * candidate check (hyt_mpich_alg_ok) and the selection file's guards
 * (choice() below). */
typedef enum {
    NEEDS_NOTHING,
    NEEDS_NODES,       /* several nodes, several ranks on each (MPIR_*_intra_smp) */
    NEEDS_POF2_COUNT,  /* count >= the largest power of two <= p, built-in op */
    NEEDS_IN_PLACE,    /* MPI_IN_PLACE only */
    NEEDS_COMMUTATIVE, /* a commutative op */
    NEEDS_POF2_RANKS   /* a power-of-two communicator size */
} needs_t;

static const struct {
    int coll; /* -1: every collective */
    const char *name;
    needs_t needs;
} mpich_needs[] = {
    {-1, "smp", NEEDS_NODES},
    {HYT_COLL_ALLREDUCE, "reduce_scatter_allgather", NEEDS_POF2_COUNT},
    {HYT_COLL_REDUCE, "reduce_scatter_gather", NEEDS_POF2_COUNT},
    {HYT_COLL_ALLTOALL, "pairwise_sendrecv_replace", NEEDS_IN_PLACE},
    {HYT_COLL_ALLTOALLV, "pairwise_sendrecv_replace", NEEDS_IN_PLACE},
    {HYT_COLL_REDUCE_SCATTER_BLOCK, "pairwise", NEEDS_COMMUTATIVE},
    {HYT_COLL_REDUCE_SCATTER_BLOCK, "recursive_halving", NEEDS_COMMUTATIVE},
    {HYT_COLL_REDUCE_SCATTER_BLOCK, "noncommutative", NEEDS_POF2_RANKS},
    {HYT_COLL_ALLGATHER, "recursive_doubling", NEEDS_POF2_RANKS},
};

static needs_t needs_of(hyt_coll_t c, const char *name)
{
    for (size_t i = 0; i < sizeof mpich_needs / sizeof mpich_needs[0]; i++)
        if ((mpich_needs[i].coll < 0 || mpich_needs[i].coll == (int)c) &&
            !strcmp(name, mpich_needs[i].name))
            return mpich_needs[i].needs;
    return NEEDS_NOTHING;
}

int hyt_mpich_alg_ok(hyt_coll_t c, const char *name, int nodes, int ppn, uint64_t bytes)
{
    int p = nodes * ppn;
    uint64_t count = hyt_coll_has_op(c) ? bytes / 4 : bytes;
    if (!strcmp(name, "auto"))
        return 0; /* that is "native" */
    switch (needs_of(c, name)) {
    case NEEDS_NODES:
        return nodes > 1 && ppn > 1;
    case NEEDS_POF2_COUNT: /* the benchmark's op is built in */
        return count >= (uint64_t)hyt_mpich_pof2_below(p);
    case NEEDS_IN_PLACE:
        return 0; /* the benchmark is not in place */
    case NEEDS_POF2_RANKS:
        return is_pof2(p);
    case NEEDS_COMMUTATIVE: /* the benchmark's op is */
    case NEEDS_NOTHING:
        break;
    }
    return 1;
}

/* MPICH's container name of algorithm name for c: MPIR_<Coll>_intra_<name>,
 * or MPIR_<Coll>_allcomm_<name> for the algorithms MPICH runs on intra- and
 * inter-communicators alike (nb; linear Gatherv and Scatterv). */
const char *hyt_mpich_container(hyt_coll_t c, const char *name, char *buf, size_t len)
{
    char cn[64];
    snprintf(cn, sizeof cn, "%s", hyt_coll_name(c));
    cn[0] = (char)toupper((unsigned char)cn[0]);
    int allcomm = !strcmp(name, "nb") ||
                  ((c == HYT_COLL_GATHERV || c == HYT_COLL_SCATTERV) && !strcmp(name, "linear"));
    snprintf(buf, len, "MPIR_%s_%s_%s", cn, allcomm ? "allcomm" : "intra", name);
    return buf;
}

/* ---- run time ---- */
#ifndef HYT_SMPI
static hyt_cvar_t cv[HYT_NCOLL], fallback;
static int fallback_old = -1, t_inited;

int hyt_mpich_init(void)
{
    memset(cv, 0, sizeof cv);
    memset(&fallback, 0, sizeof fallback);
    if (hyt_mpit_begin() != 0)
        return -1;
    t_inited = 1;
    int any = 0;
    hyt_cvar_open("MPIR_CVAR_COLLECTIVE_FALLBACK", 1, &fallback);
    for (int c = 0; c < HYT_NCOLL; c++) {
        char name[128];
        hyt_cvar_name(hyt_coll_name((hyt_coll_t)c), "INTRA_ALGORITHM", name, sizeof name);
        if (hyt_cvar_open(name, 1, &cv[c]) != 0)
            continue;
        if (cv[c].auto_value >= 0)
            any = 1;
        else
            hyt_cvar_close(&cv[c]);
    }
    /* a user-set algorithm that cannot run must be an error, not a silent substitute */
    int err = fallback.ok ? hyt_cvar_value(&fallback, "error") : -1;
    if (err >= 0 && hyt_cvar_read(&fallback, &fallback_old) == 0)
        hyt_cvar_write(&fallback, err);
    return any ? 0 : -1;
}

void hyt_mpich_finalize(void)
{
    if (!t_inited)
        return;
    for (int c = 0; c < HYT_NCOLL; c++)
        if (cv[c].ok) {
            hyt_mpich_select((hyt_coll_t)c, -1);
            hyt_cvar_close(&cv[c]);
        }
    if (fallback.ok) {
        if (fallback_old >= 0)
            hyt_cvar_write(&fallback, fallback_old);
        hyt_cvar_close(&fallback);
    }
    hyt_mpit_end();
    t_inited = 0;
}

int hyt_mpich_algs(hyt_coll_t c, const char **names, int *values, int max)
{
    int n = 0;
    if ((int)c < 0 || c >= HYT_NCOLL || !cv[c].ok)
        return 0;
    for (int j = 0; j < cv[c].n && n < max; j++) {
        if (!strcmp(cv[c].names[j], "auto"))
            continue;
        names[n] = cv[c].names[j];
        values[n++] = cv[c].values[j];
    }
    return n;
}

int hyt_mpich_select(hyt_coll_t c, int value)
{
    if ((int)c < 0 || c >= HYT_NCOLL || !cv[c].ok)
        return -1;
    int v = value < 0 ? cv[c].auto_value : value;
    return hyt_cvar_write(&cv[c], v);
}

int hyt_mpich_current(hyt_coll_t c)
{
    int v;
    if ((int)c < 0 || c >= HYT_NCOLL || hyt_cvar_read(&cv[c], &v) != 0)
        return -1;
    return v;
}
#else /* SimGrid: no MPI_T; MPICH selection is fixed at launch */
int hyt_mpich_init(void) { return -1; }
void hyt_mpich_finalize(void) {}
int hyt_mpich_algs(hyt_coll_t c, const char **names, int *values, int max)
{
    (void)c, (void)names, (void)values, (void)max;
    return 0;
}
int hyt_mpich_select(hyt_coll_t c, int value)
{
    (void)c, (void)value;
    return -1;
}
int hyt_mpich_current(hyt_coll_t c)
{
    (void)c;
    return -1;
}
#endif

/* ---- export ---- */
typedef struct sbuf {
    char *s;
    size_t n, cap;
    int oom;
} sbuf_t;

static void put(sbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        int w = b->s ? vsnprintf(b->s + b->n, room, fmt, ap) : -1;
        va_end(ap);
        if (w >= 0 && (size_t)w < room) {
            b->n += (size_t)w;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (w >= 0 && cap - b->n <= (size_t)w)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static void alg(sbuf_t *b, const char *container)
{
    put(b, "{\"algorithm=%s\":{}}", container);
}

/* An algorithm every call of c accepts (intra-communicators): the intra
 * entry of the general table below. */
static void general(sbuf_t *b, const char *coll);

/* The tuned choice name for c, guarded where MPICH 4.0.2 cannot run it for
 * every call (those calls take the general algorithm). */
static void choice(sbuf_t *b, hyt_coll_t c, const char *name)
{
    char cont[128];
    hyt_mpich_container(c, name, cont, sizeof cont);
    needs_t needs = needs_of(c, name);
    if (c == HYT_COLL_ALLTOALL && needs != NEEDS_NODES) {
        /* in place: only pairwise_sendrecv_replace; otherwise anything but it */
        put(b, "{\"is_sendbuf_inplace=yes\":");
        alg(b, "MPIR_Alltoall_intra_pairwise_sendrecv_replace");
        put(b, ",\"is_sendbuf_inplace=no\":");
        alg(b, needs == NEEDS_IN_PLACE ? "MPIR_Alltoall_intra_pairwise" : cont);
        put(b, "}");
        return;
    }
    switch (needs) {
    case NEEDS_NODES:
        put(b, "{\"comm_hierarchy=parent\":");
        if (hyt_coll_has_op(c)) {
            put(b, "{\"is_commutative=yes\":");
            alg(b, cont);
            put(b, ",\"is_commutative=no\":");
            general(b, hyt_coll_name(c));
            put(b, "}");
        } else {
            alg(b, cont);
        }
        put(b, ",\"comm_hierarchy=any\":");
        general(b, hyt_coll_name(c));
        put(b, "}");
        break;
    case NEEDS_POF2_COUNT:
        put(b, "{\"is_op_built_in=yes\":{\"count<pow2\":");
        general(b, hyt_coll_name(c));
        put(b, ",\"count=any\":");
        alg(b, cont);
        put(b, "},\"is_op_built_in=no\":");
        general(b, hyt_coll_name(c));
        put(b, "}");
        break;
    case NEEDS_COMMUTATIVE:
        put(b, "{\"is_commutative=yes\":");
        alg(b, cont);
        put(b, ",\"is_commutative=no\":");
        general(b, hyt_coll_name(c));
        put(b, "}");
        break;
    case NEEDS_POF2_RANKS:
        put(b, "{\"comm_size=pow2\":");
        alg(b, cont);
        put(b, ",\"comm_size=any\":");
        general(b, hyt_coll_name(c));
        put(b, "}");
        break;
    case NEEDS_IN_PLACE: /* Alltoallv's: no such key in the 4.0.2 file; never a candidate */
    case NEEDS_NOTHING:
        alg(b, cont);
        break;
    }
}

/* MPICH 4.0.2's size key of each collective (csel.c): avg_msg_size for
 * Allreduce, Bcast, Reduce and Alltoall only, total_msg_size (bytes over the
 * communicator) for Allgather and Reduce_scatter_block (hytune's block times
 * the set's ranks: per_rank) and Allgatherv and Reduce_scatter (hytune's key
 * is the total already).  The other collectives have no size key every rank
 * computes alike (Gather/Scatter count elements, Alltoallv local bytes):
 * their file holds the rule for the largest sizes, as hytune's runtime uses
 * for Alltoallv. */
static const struct {
    const char *key; /* NULL: none */
    int per_rank;    /* hytune's size is one rank's block of MPICH's total */
} size_key[HYT_NCOLL] = {
    [HYT_COLL_ALLREDUCE] = {"avg_msg_size", 0},
    [HYT_COLL_BCAST] = {"avg_msg_size", 0},
    [HYT_COLL_REDUCE] = {"avg_msg_size", 0},
    [HYT_COLL_ALLTOALL] = {"avg_msg_size", 0},
    [HYT_COLL_ALLGATHER] = {"total_msg_size", 1},
    [HYT_COLL_REDUCE_SCATTER_BLOCK] = {"total_msg_size", 1},
    [HYT_COLL_ALLGATHERV] = {"total_msg_size", 0},
    [HYT_COLL_REDUCE_SCATTER] = {"total_msg_size", 0},
};

/* Size rules of one set, under the collective's size key (size_key). */
static void sizes(sbuf_t *b, hyt_coll_t c, const char *name, const hyt_mpich_set_t *s)
{
    const char *key = size_key[c].key;
    uint64_t mul = size_key[c].per_rank ? (uint64_t)s->nodes * (uint64_t)s->ppn : 1;
    /* each rule's subtree as text; neighbours with the same text merge */
    sbuf_t *r = calloc((size_t)(s->nrules > 0 ? s->nrules : 1), sizeof *r);
    int n = s->nrules, nout = 0;
    if (!r) {
        b->oom = 1;
        return;
    }
    for (int i = 0; i < n; i++) {
        if (s->rules[i].alg)
            choice(&r[i], c, s->rules[i].alg);
        else if (s->rules[i].text)
            put(&r[i], "%s", s->rules[i].text);
        else
            general(&r[i], name);
        b->oom |= r[i].oom;
        if (s->rules[i].bytes_max == UINT64_MAX)
            n = i + 1; /* nothing after an unbounded rule */
    }
    for (int i = 0; i < n && !b->oom; i++)
        if (i + 1 == n || strcmp(r[i].s, r[i + 1].s))
            nout++;
    if (nout == 1 || !key) {
        put(b, "%s", r[n - 1].s ? r[n - 1].s : "");
    } else if (!b->oom) {
        put(b, "{");
        for (int i = 0, first = 1; i < n; i++) {
            if (i + 1 < n && !strcmp(r[i].s, r[i + 1].s))
                continue;
            if (!first)
                put(b, ",");
            first = 0;
            if (i + 1 == n)
                put(b, "\"%s=any\":%s", key, r[i].s);
            else
                put(b, "\"%s<=%llu\":%s", key, (unsigned long long)(s->rules[i].bytes_max * mul),
                    r[i].s);
        }
        put(b, "}");
    }
    for (int i = 0; i < s->nrules; i++)
        free(r[i].s);
    free(r);
}

static int by_shape(const void *a, const void *b)
{
    const hyt_mpich_set_t *x = a, *y = b;
    if (x->ppn != y->ppn)
        return x->ppn < y->ppn ? -1 : 1;
    return x->nodes < y->nodes ? -1 : x->nodes > y->nodes;
}

static void tuned(sbuf_t *b, const hyt_mpich_coll_t *t, const char *name)
{
    hyt_mpich_set_t *s = malloc((size_t)(t->nsets > 0 ? t->nsets : 1) * sizeof *s);
    if (!s) {
        b->oom = 1;
        return;
    }
    memcpy(s, t->sets, (size_t)t->nsets * sizeof *s);
    qsort(s, (size_t)t->nsets, sizeof *s, by_shape);
    put(b, "\"collective=%s\":{\"comm_type=intra\":", name);
    if (t->nsets == 1) {
        sizes(b, t->coll, name, &s[0]);
    } else {
        put(b, "{");
        for (int i = 0; i < t->nsets;) {
            int j = i;
            while (j < t->nsets && s[j].ppn == s[i].ppn)
                j++;
            if (i > 0)
                put(b, ",");
            if (j < t->nsets)
                put(b, "\"comm_avg_ppn<=%d\":", s[i].ppn);
            else
                put(b, "\"comm_size=any\":");
            if (j - i == 1) {
                sizes(b, t->coll, name, &s[i]);
            } else {
                put(b, "{");
                for (int q = i; q < j; q++) {
                    if (q > i)
                        put(b, ",");
                    if (q + 1 < j)
                        put(b, "\"comm_size<=%d\":", s[q].nodes * s[q].ppn);
                    else
                        put(b, "\"comm_size=any\":");
                    sizes(b, t->coll, name, &s[q]);
                }
                put(b, "}");
            }
            i = j;
        }
        put(b, "}");
    }
    free(s);
}

/* Collectives MPICH 4.0.2 selects through the file, with a general
 * algorithm for intra- and inter-communicators (NULL: intra only). */
static const struct {
    const char *coll, *intra, *inter;
} others[] = {
    {"allreduce", "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}", "MPIR_Allreduce_inter_reduce_exchange_bcast"},
    {"bcast", "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}", "MPIR_Bcast_inter_remote_send_local_bcast"},
    {"reduce", "{\"algorithm=MPIR_Reduce_intra_binomial\":{}}", "MPIR_Reduce_inter_local_reduce_remote_send"},
    {"allgather", "{\"algorithm=MPIR_Allgather_intra_ring\":{}}", "MPIR_Allgather_inter_local_gather_remote_bcast"},
    {"alltoall", "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Alltoall_intra_pairwise\":{}}}", "MPIR_Alltoall_inter_pairwise_exchange"},
    {"reduce_scatter_block", "{\"is_commutative=yes\":{\"algorithm=MPIR_Reduce_scatter_block_intra_pairwise\":{}},\"is_commutative=no\":{\"algorithm=MPIR_Reduce_scatter_block_intra_recursive_doubling\":{}}}", "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter"},
    {"barrier", "{\"algorithm=MPIR_Barrier_intra_dissemination\":{}}", "MPIR_Barrier_inter_bcast"},
    {"allgatherv", "{\"algorithm=MPIR_Allgatherv_intra_ring\":{}}", "MPIR_Allgatherv_inter_remote_gather_local_bcast"},
    {"alltoallv", "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Alltoallv_intra_pairwise_sendrecv_replace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Alltoallv_intra_scattered\":{}}}", "MPIR_Alltoallv_inter_pairwise_exchange"},
    {"alltoallw", "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Alltoallw_intra_pairwise_sendrecv_replace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Alltoallw_intra_scattered\":{}}}", "MPIR_Alltoallw_inter_pairwise_exchange"},
    {"gather", "{\"algorithm=MPIR_Gather_intra_binomial\":{}}", "MPIR_Gather_inter_linear"},
    {"scatter", "{\"algorithm=MPIR_Scatter_intra_binomial\":{}}", "MPIR_Scatter_inter_linear"},
    {"gatherv", "{\"algorithm=MPIR_Gatherv_allcomm_linear\":{}}", "MPIR_Gatherv_allcomm_linear"},
    {"scatterv", "{\"algorithm=MPIR_Scatterv_allcomm_linear\":{}}", "MPIR_Scatterv_allcomm_linear"},
    {"reduce_scatter", "{\"is_commutative=yes\":{\"algorithm=MPIR_Reduce_scatter_intra_pairwise\":{}},\"is_commutative=no\":{\"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling\":{}}}", "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"},
    {"scan", "{\"algorithm=MPIR_Scan_intra_recursive_doubling\":{}}", NULL},
    {"exscan", "{\"algorithm=MPIR_Exscan_intra_recursive_doubling\":{}}", NULL},
    {"neighbor_allgather", "{\"algorithm=MPIR_Neighbor_allgather_allcomm_nb\":{}}", NULL},
    {"neighbor_allgatherv", "{\"algorithm=MPIR_Neighbor_allgatherv_allcomm_nb\":{}}", NULL},
    {"neighbor_alltoall", "{\"algorithm=MPIR_Neighbor_alltoall_allcomm_nb\":{}}", NULL},
    {"neighbor_alltoallv", "{\"algorithm=MPIR_Neighbor_alltoallv_allcomm_nb\":{}}", NULL},
    {"neighbor_alltoallw", "{\"algorithm=MPIR_Neighbor_alltoallw_allcomm_nb\":{}}", NULL},
    {"ibarrier", "{\"algorithm=MPIR_Ibarrier_intra_sched_recursive_doubling\":{}}", "MPIR_Ibarrier_inter_sched_bcast"},
    {"ibcast", "{\"algorithm=MPIR_Ibcast_intra_sched_binomial\":{}}", "MPIR_Ibcast_inter_sched_flat"},
    {"iallreduce", "{\"algorithm=MPIR_Iallreduce_intra_sched_recursive_doubling\":{}}", "MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast"},
    {"iallgather", "{\"algorithm=MPIR_Iallgather_intra_sched_ring\":{}}", "MPIR_Iallgather_inter_sched_local_gather_remote_bcast"},
    {"iallgatherv", "{\"algorithm=MPIR_Iallgatherv_intra_sched_ring\":{}}", "MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast"},
    {"ireduce", "{\"algorithm=MPIR_Ireduce_intra_sched_binomial\":{}}", "MPIR_Ireduce_inter_sched_local_reduce_remote_send"},
    {"ireduce_scatter", "{\"is_commutative=yes\":{\"algorithm=MPIR_Ireduce_scatter_intra_sched_pairwise\":{}},\"is_commutative=no\":{\"algorithm=MPIR_Ireduce_scatter_intra_sched_recursive_doubling\":{}}}", "MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"},
    {"ireduce_scatter_block", "{\"is_commutative=yes\":{\"algorithm=MPIR_Ireduce_scatter_block_intra_sched_pairwise\":{}},\"is_commutative=no\":{\"algorithm=MPIR_Ireduce_scatter_block_intra_sched_recursive_doubling\":{}}}", "MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"},
    {"igather", "{\"algorithm=MPIR_Igather_intra_sched_binomial\":{}}", "MPIR_Igather_inter_sched_long"},
    {"iscatter", "{\"algorithm=MPIR_Iscatter_intra_sched_binomial\":{}}", "MPIR_Iscatter_inter_sched_linear"},
    {"igatherv", "{\"algorithm=MPIR_Igatherv_allcomm_sched_linear\":{}}", "MPIR_Igatherv_allcomm_sched_linear"},
    {"iscatterv", "{\"algorithm=MPIR_Iscatterv_allcomm_sched_linear\":{}}", "MPIR_Iscatterv_allcomm_sched_linear"},
    {"iscan", "{\"algorithm=MPIR_Iscan_intra_sched_recursive_doubling\":{}}", NULL},
    {"iexscan", "{\"algorithm=MPIR_Iexscan_intra_sched_recursive_doubling\":{}}", NULL},
    {"ialltoall", "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Ialltoall_intra_sched_inplace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Ialltoall_intra_sched_pairwise\":{}}}", "MPIR_Ialltoall_inter_sched_pairwise_exchange"},
    {"ialltoallv", "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Ialltoallv_intra_sched_inplace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Ialltoallv_intra_sched_blocked\":{}}}", "MPIR_Ialltoallv_inter_sched_pairwise_exchange"},
    {"ialltoallw", "{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Ialltoallw_intra_sched_inplace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Ialltoallw_intra_sched_blocked\":{}}}", "MPIR_Ialltoallw_inter_sched_pairwise_exchange"},
    {"ineighbor_allgather", "{\"algorithm=MPIR_Ineighbor_allgather_allcomm_sched_linear\":{}}", NULL},
    {"ineighbor_allgatherv", "{\"algorithm=MPIR_Ineighbor_allgatherv_allcomm_sched_linear\":{}}", NULL},
    {"ineighbor_alltoall", "{\"algorithm=MPIR_Ineighbor_alltoall_allcomm_sched_linear\":{}}", NULL},
    {"ineighbor_alltoallv", "{\"algorithm=MPIR_Ineighbor_alltoallv_allcomm_sched_linear\":{}}", NULL},
    {"ineighbor_alltoallw", "{\"algorithm=MPIR_Ineighbor_alltoallw_allcomm_sched_linear\":{}}", NULL},
};

const char *hyt_mpich_general(const char *coll)
{
    for (size_t o = 0; o < sizeof others / sizeof others[0]; o++)
        if (!strcmp(coll, others[o].coll))
            return others[o].intra;
    return NULL;
}

static void general(sbuf_t *b, const char *coll)
{
    const char *g = hyt_mpich_general(coll);
    if (g)
        put(b, "%s", g);
    else
        b->oom = 1; /* not reached: every collective passed has a row above; refuse the export */
}

char *hyt_mpich_json(const hyt_mpich_coll_t *colls, int ncolls)
{
    return hyt_mpich_json_named(colls, NULL, ncolls);
}

char *hyt_mpich_json_named(const hyt_mpich_coll_t *colls, const char *const *names, int ncolls)
{
    sbuf_t b = {0};
    put(&b, "{");
    for (size_t o = 0; o < sizeof others / sizeof *others; o++) {
        const hyt_mpich_coll_t *t = NULL;
        const char *tname = NULL;
        for (int i = 0; i < ncolls; i++) {
            const char *nm = names && names[i] ? names[i] : hyt_coll_name(colls[i].coll);
            if (!strcmp(nm, others[o].coll) && colls[i].nsets > 0)
                t = &colls[i], tname = nm;
        }
        put(&b, "%s\n", o ? "," : "");
        if (t) {
            tuned(&b, t, tname);
        } else {
            put(&b, "\"collective=%s\":", others[o].coll);
            if (others[o].inter)
                put(&b, "{\"comm_type=intra\":");
            put(&b, "%s", others[o].intra);
        }
        if (others[o].inter)
            put(&b, ",\"comm_type=inter\":{\"algorithm=%s\":{}}}", others[o].inter);
        else if (t)
            put(&b, "}");
    }
    put(&b, "\n}\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
