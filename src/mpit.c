/* MPICH's control variables through MPI_T (see src/mpit.h). */
#include "src/mpit.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Algorithm names MPICH 4.x uses in its *_INTRA_ALGORITHM descriptions.  The
 * description joins "name - text" items without separators ("...Binomial
 * Treenb   - Force..."), so a name is the longest known word ending where the
 * padding before " - " starts; an unknown name makes the variable unusable
 * (nothing is guessed). */
static const char *const known[] = {
    "auto", "nb", "smp", "binomial", "scatter_recursive_doubling_allgather",
    "scatter_ring_allgather", "pipelined_tree", "tree", "recursive_doubling",
    "reduce_scatter_allgather", "k_reduce_scatter_allgather", "ring", "recexch",
    "recexch_doubling", "recexch_halving", "brucks", "k_brucks", "pairwise",
    "pairwise_sendrecv_replace", "scattered", "reduce_scatter_gather", "noncommutative",
    "recursive_halving", "dissemination", "k_dissemination", "recursive_multiplying",
    "linear", "error", "print", "silent", "mpir", "release_gather",
    /* the nonblocking collectives' (MPIR_CVAR_I<COLL>_INTRA_ALGORITHM) */
    "sched_auto", "sched_naive", "sched_smp", "sched_binomial", "sched_recursive_doubling",
    "sched_reduce_scatter_allgather", "sched_reduce_scatter_gather",
    "sched_scatter_recursive_doubling_allgather", "sched_scatter_ring_allgather", "sched_ring",
    "sched_brucks", "sched_inplace", "sched_pairwise", "sched_permuted_sendrecv",
    "sched_blocked", "sched_linear", "sched_noncommutative", "sched_recursive_halving",
    "tsp_tree", "tsp_ring", "tsp_brucks", "tsp_scattered", "tsp_blocked", "tsp_inplace",
    "tsp_linear", "tsp_recexch", "tsp_recexch_doubling", "tsp_recexch_halving",
    "tsp_recexch_single_buffer", "tsp_recexch_multiple_buffer", "tsp_recursive_doubling",
    "tsp_recexch_reduce_scatter_recexch_allgatherv", "tsp_scatterv_recexch_allgatherv",
};

const char *hyt_cvar_name(const char *coll, const char *suffix, char *buf, size_t len)
{
    char up[32];
    size_t i = 0;
    for (; coll[i] && i + 1 < sizeof up; i++)
        up[i] = (char)toupper((unsigned char)coll[i]);
    up[i] = 0;
    snprintf(buf, len, "MPIR_CVAR_%s_%s", up, suffix);
    return buf;
}

int hyt_mpich_parse_desc(const char *desc, char names[][HYT_MPICH_NAME], int max)
{
    int n = 0;
    size_t len = strlen(desc);
    for (size_t i = 1; i + 1 < len; i++) {
        if (!(desc[i] == '-' && desc[i + 1] == ' ' && desc[i - 1] == ' '))
            continue;
        size_t e = i - 1;
        while (e > 0 && desc[e - 1] == ' ')
            e--;
        /* e: end of the name (exclusive) */
        const char *best = NULL;
        size_t bl = 0;
        for (size_t w = 0; w < sizeof known / sizeof *known; w++) {
            size_t l = strlen(known[w]);
            if (l <= e && l > bl && !strncmp(desc + e - l, known[w], l)) {
                best = known[w];
                bl = l;
            }
        }
        if (!best)
            return 0; /* a name we do not know: do not guess its position */
        if (n == max)
            return 0;
        snprintf(names[n++], HYT_MPICH_NAME, "%s", best);
    }
    return n;
}


#ifndef HYT_SMPI
static int t_users, t_inited;

/* MPI_T is initialised once and finalised only at MPI_Finalize: MPICH 4.0.2
 * crashes in MPI_T_cvar_get_num when MPI_T is initialised again after its
 * last MPI_T_finalize (tested), which would hit an application that uses
 * MPI_T after hytune let go of it. */
int hyt_mpit_begin(void)
{
    int prov;
    if (!t_inited) {
        if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS)
            return -1;
        t_inited = 1;
    }
    t_users++;
    return 0;
}

void hyt_mpit_end(void)
{
    if (t_users > 0)
        t_users--;
}

void hyt_mpit_shutdown(void)
{
    if (t_inited && t_users == 0)
        MPI_T_finalize();
    t_inited = 0;
}

int hyt_cvar_open_index(int i, int list, hyt_cvar_t *v)
{
    char name[256], desc[4096];
    int nl = sizeof name, dl = sizeof desc, verb, bind, scope, count;
    MPI_Datatype dt;
    MPI_T_enum en;
    memset(v, 0, sizeof *v);
    v->auto_value = -1;
    if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) != MPI_SUCCESS ||
        dt != MPI_INT || bind != MPI_T_BIND_NO_OBJECT)
        return -1;
    if (list && en != MPI_T_ENUM_NULL) {
        int ni, enl;
        char en_name[256];
        enl = sizeof en_name;
        if (MPI_T_enum_get_info(en, &ni, en_name, &enl) != MPI_SUCCESS)
            return -1;
        for (int j = 0; j < ni && v->n < HYT_MPICH_MAX_ALGS; j++) {
            int sl = HYT_MPICH_NAME;
            if (MPI_T_enum_get_item(en, j, &v->values[v->n], v->names[v->n], &sl) == MPI_SUCCESS)
                v->n++;
        }
    } else if (list) {
        v->n = hyt_mpich_parse_desc(desc, v->names, HYT_MPICH_MAX_ALGS);
        for (int j = 0; j < v->n; j++)
            v->values[j] = j;
    }
    for (int j = 0; j < v->n; j++)
        if (!strcmp(v->names[j], "auto") || !strcmp(v->names[j], "silent"))
            v->auto_value = v->values[j];
    if ((list && v->n == 0) || MPI_T_cvar_handle_alloc(i, NULL, &v->h, &count) != MPI_SUCCESS)
        return -1;
    if (count != 1) {
        MPI_T_cvar_handle_free(&v->h);
        return -1;
    }
    v->ok = 1;
    return 0;
}

/* Index of the variable called name, or -1. */
static int cvar_index(const char *name)
{
    int n;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < n; i++) {
        char nm[256];
        int nl = sizeof nm, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_T_cvar_get_info(i, nm, &nl, &verb, &dt, &en, NULL, NULL, &bind, &scope) ==
                MPI_SUCCESS && !strcmp(nm, name))
            return i;
    }
    return -1;
}

int hyt_cvar_open(const char *name, int list, hyt_cvar_t *v)
{
    int i = cvar_index(name);
    if (i < 0) {
        memset(v, 0, sizeof *v);
        return -1;
    }
    return hyt_cvar_open_index(i, list, v);
}

void hyt_cvar_close(hyt_cvar_t *v)
{
    if (v->ok)
        MPI_T_cvar_handle_free(&v->h);
    v->ok = 0;
}

int hyt_cvar_write(hyt_cvar_t *v, int value)
{
    return v->ok && MPI_T_cvar_write(v->h, &value) == MPI_SUCCESS ? 0 : -1;
}

int hyt_cvar_read(hyt_cvar_t *v, int *value)
{
    return v->ok && MPI_T_cvar_read(v->h, value) == MPI_SUCCESS ? 0 : -1;
}

int hyt_cvar_read_string(const char *name, char *buf, int len)
{
    int i = cvar_index(name), count;
    char nm[256];
    int nl = sizeof nm, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    MPI_T_cvar_handle h;
    if (i < 0 || MPI_T_cvar_get_info(i, nm, &nl, &verb, &dt, &en, NULL, NULL, &bind, &scope) !=
            MPI_SUCCESS || dt != MPI_CHAR || MPI_T_cvar_handle_alloc(i, NULL, &h, &count) !=
            MPI_SUCCESS)
        return -1;
    int rc = -1;
    if (count < len)
        rc = MPI_T_cvar_read(h, buf) == MPI_SUCCESS ? 0 : -1;
    MPI_T_cvar_handle_free(&h);
    return rc;
}
#else /* SimGrid: no MPI_T */
int hyt_mpit_begin(void) { return -1; }
void hyt_mpit_end(void) {}
void hyt_mpit_shutdown(void) {}
int hyt_cvar_open_index(int i, int list, hyt_cvar_t *v)
{
    (void)i, (void)list;
    memset(v, 0, sizeof *v);
    return -1;
}
int hyt_cvar_open(const char *name, int list, hyt_cvar_t *v)
{
    (void)name, (void)list;
    memset(v, 0, sizeof *v);
    return -1;
}
void hyt_cvar_close(hyt_cvar_t *v) { v->ok = 0; }
int hyt_cvar_write(hyt_cvar_t *v, int value)
{
    (void)v, (void)value;
    return -1;
}
int hyt_cvar_read(hyt_cvar_t *v, int *value)
{
    (void)v, (void)value;
    return -1;
}
int hyt_cvar_read_string(const char *name, char *buf, int len)
{
    (void)name, (void)buf, (void)len;
    return -1;
}
#endif

int hyt_cvar_value(const hyt_cvar_t *v, const char *name)
{
    for (int j = 0; j < v->n; j++)
        if (!strcmp(v->names[j], name))
            return v->values[j];
    return -1;
}
