/* The tuner's benchmark of MPICH's nonblocking algorithms (see
 * offline/nbtune.h). */
#include "offline/nbtune.h"
#include "src/mpit.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Restrictions MPICH 4.0.2 checks before running a user-set nonblocking
 * algorithm (src/mpi/coll/coll_algorithms.txt); with
 * MPIR_CVAR_COLLECTIVE_FALLBACK=error any other refusal is a failed point. */
enum {
    R_COMM = 1,       /* commutative op */
    R_PARENT = 2,     /* a communicator with a node hierarchy */
    R_POF2 = 4,       /* power-of-two size */
    R_POF2COUNT = 8,  /* count >= the largest power of two <= size */
    R_BUILTIN = 16,   /* predefined op */
    R_NOINPLACE = 32,
    R_INPLACE = 64,
};
static const struct {
    hyt_nb_t nb;
    const char *alg;
    unsigned restr;
} restrictions[] = {
    {HYT_NB_IALLREDUCE, "sched_smp", R_COMM | R_PARENT},
    {HYT_NB_IALLREDUCE, "sched_reduce_scatter_allgather", R_POF2COUNT | R_BUILTIN},
    {HYT_NB_IALLREDUCE, "tsp_ring", R_COMM},
    {HYT_NB_IALLREDUCE, "tsp_recexch_reduce_scatter_recexch_allgatherv", R_COMM},
    {HYT_NB_IBCAST, "sched_smp", R_PARENT},
    {HYT_NB_IBCAST, "sched_scatter_recursive_doubling_allgather", R_POF2},
    {HYT_NB_IREDUCE, "sched_smp", R_COMM | R_PARENT},
    {HYT_NB_IREDUCE, "sched_reduce_scatter_gather", R_POF2COUNT | R_BUILTIN},
    {HYT_NB_IREDUCE, "tsp_tree", R_COMM},
    {HYT_NB_IALLGATHER, "sched_recursive_doubling", R_POF2},
    {HYT_NB_IALLTOALL, "sched_brucks", R_NOINPLACE},
    {HYT_NB_IALLTOALL, "sched_inplace", R_INPLACE},
    {HYT_NB_IALLTOALL, "sched_pairwise", R_NOINPLACE},
    {HYT_NB_IALLTOALL, "sched_permuted_sendrecv", R_NOINPLACE},
    {HYT_NB_IALLGATHERV, "sched_recursive_doubling", R_POF2},
    {HYT_NB_IALLTOALLV, "sched_blocked", R_NOINPLACE},
    {HYT_NB_IALLTOALLV, "sched_inplace", R_INPLACE},
    {HYT_NB_IALLTOALLV, "tsp_scattered", R_NOINPLACE},
    {HYT_NB_IALLTOALLV, "tsp_blocked", R_NOINPLACE},
    {HYT_NB_IALLTOALLV, "tsp_inplace", R_INPLACE},
    {HYT_NB_IREDUCE_SCATTER, "sched_noncommutative", R_POF2},
    {HYT_NB_IREDUCE_SCATTER, "sched_pairwise", R_COMM},
    {HYT_NB_IREDUCE_SCATTER, "sched_recursive_halving", R_COMM},
    {HYT_NB_IREDUCE_SCATTER, "tsp_recexch", R_COMM},
    {HYT_NB_IREDUCE_SCATTER_BLOCK, "sched_noncommutative", R_POF2},
    {HYT_NB_IREDUCE_SCATTER_BLOCK, "sched_pairwise", R_COMM},
    {HYT_NB_IREDUCE_SCATTER_BLOCK, "sched_recursive_halving", R_COMM},
    {HYT_NB_IREDUCE_SCATTER_BLOCK, "tsp_recexch", R_COMM},
    {HYT_NB_ISCAN, "sched_smp", R_COMM | R_PARENT},
};

static unsigned restr_of(hyt_nb_t n, const char *alg)
{
    for (size_t i = 0; i < sizeof restrictions / sizeof *restrictions; i++)
        if (restrictions[i].nb == n && !strcmp(restrictions[i].alg, alg))
            return restrictions[i].restr;
    return 0;
}

int hyt_nbtune_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    if (!strcmp(list, "all")) {
        *mask = (1u << HYT_NB_NCOLL) - 1;
        return 0;
    }
    const char *p = list;
    while (*p) {
        size_t l = strcspn(p, ",");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(l < sizeof name ? l : sizeof name - 1), p);
        int n = hyt_nb_from_name(name);
        if (n < 0 || l >= sizeof name) {
            char names[256];
            hyt_nb_names(names, sizeof names);
            snprintf(err, errlen, "--nonblocking: unknown nonblocking collective \"%.*s\"; give "
                     "\"all\" or a comma-separated list of %s", (int)l, p, names);
            return -1;
        }
        *mask |= 1u << n;
        p += l;
        if (*p == ',')
            p++;
    }
    if (!*mask) {
        snprintf(err, errlen, "--nonblocking: empty list; give \"all\" or names such as "
                 "iallreduce,ibcast");
        return -1;
    }
    return 0;
}

/* ---- the benchmark ---- */
typedef struct cand {
    char alg[HYT_MPICH_NAME];
    int value, k, nk;
    hyt_cvar_t *kv[HYT_NB_MAX_KVARS];
    int broken; /* gave a wrong result somewhere: never chosen */
} cand_t;

#define MAX_CANDS 96
#define MAX_SIZES 24

typedef struct bench {
    MPI_Comm comm;
    int rank, p;
    int *s, *d, *ref;
    int *cnt, *dsp; /* the v-variants: c ints per rank, in rank order */
} bench_t;

/* The v-variants' counts and displacements for c ints per rank. */
static void vblocks(const bench_t *b, int c)
{
    for (int i = 0; i < b->p; i++) {
        b->cnt[i] = c;
        b->dsp[i] = i * c;
    }
}

/* Start the collective n on c ints per block (per rank for the reductions,
 * Iscan and Ibcast). */
static int start(const bench_t *b, hyt_nb_t n, int c, MPI_Request *q)
{
    switch (n) {
    case HYT_NB_IBARRIER:
        return PMPI_Ibarrier(b->comm, q);
    case HYT_NB_IGATHER:
        return PMPI_Igather(b->s, c, MPI_INT, b->d, c, MPI_INT, 0, b->comm, q);
    case HYT_NB_ISCATTER:
        return PMPI_Iscatter(b->s, c, MPI_INT, b->d, c, MPI_INT, 0, b->comm, q);
    case HYT_NB_IALLGATHERV:
        vblocks(b, c);
        return PMPI_Iallgatherv(b->s, c, MPI_INT, b->d, b->cnt, b->dsp, MPI_INT, b->comm, q);
    case HYT_NB_IALLTOALLV:
        vblocks(b, c);
        return PMPI_Ialltoallv(b->s, b->cnt, b->dsp, MPI_INT, b->d, b->cnt, b->dsp, MPI_INT,
                               b->comm, q);
    case HYT_NB_IREDUCE_SCATTER:
        vblocks(b, c);
        return PMPI_Ireduce_scatter(b->s, b->d, b->cnt, MPI_INT, MPI_SUM, b->comm, q);
    case HYT_NB_IREDUCE_SCATTER_BLOCK:
        return PMPI_Ireduce_scatter_block(b->s, b->d, c, MPI_INT, MPI_SUM, b->comm, q);
    case HYT_NB_ISCAN:
        return PMPI_Iscan(b->s, b->d, c, MPI_INT, MPI_SUM, b->comm, q);
    case HYT_NB_IGATHERV:
        vblocks(b, c);
        return PMPI_Igatherv(b->s, c, MPI_INT, b->d, b->cnt, b->dsp, MPI_INT, 0, b->comm, q);
    case HYT_NB_ISCATTERV:
        vblocks(b, c);
        return PMPI_Iscatterv(b->s, b->cnt, b->dsp, MPI_INT, b->d, c, MPI_INT, 0, b->comm, q);
    case HYT_NB_IALLREDUCE:
        return PMPI_Iallreduce(b->s, b->d, c, MPI_INT, MPI_SUM, b->comm, q);
    case HYT_NB_IBCAST:
        return PMPI_Ibcast(b->d, c, MPI_INT, 0, b->comm, q);
    case HYT_NB_IREDUCE:
        return PMPI_Ireduce(b->s, b->d, c, MPI_INT, MPI_SUM, 0, b->comm, q);
    case HYT_NB_IALLGATHER:
        return PMPI_Iallgather(b->s, c, MPI_INT, b->d, c, MPI_INT, b->comm, q);
    default:
        return PMPI_Ialltoall(b->s, c, MPI_INT, b->d, c, MPI_INT, b->comm, q);
    }
}

/* What the blocking PMPI collective gives (into b->ref); the bytes to compare. */
static size_t reference(const bench_t *b, hyt_nb_t n, int c)
{
    size_t one = sizeof(int) * (size_t)c, all = one * (size_t)b->p;
    vblocks(b, c);
    switch (n) {
    case HYT_NB_IBARRIER:
        return 0;
    case HYT_NB_IGATHER:
        PMPI_Gather(b->s, c, MPI_INT, b->ref, c, MPI_INT, 0, b->comm);
        return b->rank == 0 ? all : 0;
    case HYT_NB_ISCATTER:
        PMPI_Scatter(b->s, c, MPI_INT, b->ref, c, MPI_INT, 0, b->comm);
        return one;
    case HYT_NB_IALLGATHERV:
        PMPI_Allgatherv(b->s, c, MPI_INT, b->ref, b->cnt, b->dsp, MPI_INT, b->comm);
        return all;
    case HYT_NB_IALLTOALLV:
        PMPI_Alltoallv(b->s, b->cnt, b->dsp, MPI_INT, b->ref, b->cnt, b->dsp, MPI_INT, b->comm);
        return all;
    case HYT_NB_IREDUCE_SCATTER:
        PMPI_Reduce_scatter(b->s, b->ref, b->cnt, MPI_INT, MPI_SUM, b->comm);
        return one;
    case HYT_NB_IREDUCE_SCATTER_BLOCK:
        PMPI_Reduce_scatter_block(b->s, b->ref, c, MPI_INT, MPI_SUM, b->comm);
        return one;
    case HYT_NB_ISCAN:
        PMPI_Scan(b->s, b->ref, c, MPI_INT, MPI_SUM, b->comm);
        return one;
    case HYT_NB_IGATHERV:
        PMPI_Gatherv(b->s, c, MPI_INT, b->ref, b->cnt, b->dsp, MPI_INT, 0, b->comm);
        return b->rank == 0 ? all : 0;
    case HYT_NB_ISCATTERV:
        PMPI_Scatterv(b->s, b->cnt, b->dsp, MPI_INT, b->ref, c, MPI_INT, 0, b->comm);
        return one;
    case HYT_NB_IALLREDUCE:
        PMPI_Allreduce(b->s, b->ref, c, MPI_INT, MPI_SUM, b->comm);
        return one;
    case HYT_NB_IBCAST:
        memcpy(b->ref, b->s, one);
        PMPI_Bcast(b->ref, c, MPI_INT, 0, b->comm);
        return one;
    case HYT_NB_IREDUCE:
        PMPI_Reduce(b->s, b->ref, c, MPI_INT, MPI_SUM, 0, b->comm);
        return b->rank == 0 ? one : 0;
    case HYT_NB_IALLGATHER:
        PMPI_Allgather(b->s, c, MPI_INT, b->ref, c, MPI_INT, b->comm);
        return one * (size_t)b->p;
    default:
        PMPI_Alltoall(b->s, c, MPI_INT, b->ref, c, MPI_INT, b->comm);
        return one * (size_t)b->p;
    }
}

/* Set candidate cd (NULL: MPICH's own choice) on every rank. */
static void select_cand(hyt_cvar_t *algv, int auto_value, cand_t *cd, const int *k_saved,
                        hyt_cvar_t **kall, int nkall)
{
    for (int i = 0; i < nkall; i++)
        hyt_cvar_write(kall[i], k_saved[i]);
    hyt_cvar_write(algv, cd ? cd->value : auto_value);
    for (int q = 0; cd && q < cd->nk; q++)
        hyt_cvar_write(cd->kv[q], cd->k);
}

/* Mean seconds per call (slowest rank), -1 if the call failed on some
 * rank, -2 if its result differs from PMPI's on some rank. */
static double measure(const bench_t *b, hyt_nb_t n, int c, size_t cmp)
{
    MPI_Request q;
    int ok = 1, all;
    if (n == HYT_NB_IBCAST)
        memcpy(b->d, b->s, sizeof(int) * (size_t)c);
    PMPI_Barrier(b->comm);
    double t0 = PMPI_Wtime();
    if (start(b, n, c, &q) != MPI_SUCCESS || PMPI_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        ok = 0;
    double t1 = PMPI_Wtime() - t0;
    if (ok && cmp && memcmp(b->d, b->ref, cmp))
        ok = -1;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, b->comm);
    if (all < 1)
        return all == 0 ? -1 : -2;
    /* as many calls as take about 20 ms, 3 to 200 (rank 0 decides) */
    int reps = t1 > 0 ? (int)(0.02 / t1) : 200;
    reps = reps < 3 ? 3 : reps > 200 ? 200 : reps;
    PMPI_Bcast(&reps, 1, MPI_INT, 0, b->comm);
    PMPI_Barrier(b->comm);
    t0 = PMPI_Wtime();
    for (int r = 0; r < reps && ok; r++)
        ok = start(b, n, c, &q) == MPI_SUCCESS && PMPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    double t = (PMPI_Wtime() - t0) / reps, tmax;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, b->comm);
    PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, b->comm);
    return all ? tmax : -1;
}

static void logf_(FILE *log, int rank, const char *fmt, ...) HYT_PRINTF(3, 4);
static void logf_(FILE *log, int rank, const char *fmt, ...)
{
    if (rank || !log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(log, fmt, ap);
    va_end(ap);
    fflush(log);
}

/* The candidates of n: every algorithm but auto and sched_auto, with every
 * radix 2, 3, 4, 8, ... up to kcap where it has radix variables. */
static int candidates(hyt_nb_t n, hyt_cvar_t *algv, hyt_cvar_t *kslot, char kname[][64],
                      int *nkslot, int kcap, cand_t *cands)
{
    int nc = 0;
    static const int ks[] = {2, 3, 4, 8, 16, 32, 64};
    for (int j = 0; j < algv->n; j++) {
        const char *a = algv->names[j];
        if (!strcmp(a, "auto") || !strcmp(a, "sched_auto"))
            continue;
        const char *kv[HYT_NB_MAX_KVARS];
        int nk = hyt_nb_kvars(n, a, kv);
        hyt_cvar_t *slots[HYT_NB_MAX_KVARS] = {NULL, NULL};
        int usable = 1;
        for (int q = 0; q < nk; q++) {
            char name[64];
            hyt_nb_cvar_name(n, kv[q], name, sizeof name);
            int s = 0;
            while (s < *nkslot && strcmp(kname[s], name))
                s++;
            if (s == *nkslot) {
                if (*nkslot == 4 || hyt_cvar_open(name, 0, &kslot[s]) != 0) {
                    usable = 0;
                    break;
                }
                snprintf(kname[s], 64, "%s", name);
                (*nkslot)++;
            }
            slots[q] = &kslot[s];
        }
        if (!usable)
            continue;
        for (size_t i = 0; i < (nk ? sizeof ks / sizeof *ks : 1) && nc < MAX_CANDS; i++) {
            if (nk && ks[i] > kcap)
                break;
            cand_t *cd = &cands[nc++];
            memset(cd, 0, sizeof *cd);
            snprintf(cd->alg, sizeof cd->alg, "%s", a);
            cd->value = algv->values[j];
            cd->k = nk ? ks[i] : 0;
            cd->nk = nk;
            cd->kv[0] = slots[0];
            cd->kv[1] = slots[1];
        }
    }
    return nc;
}

/* Can MPICH run cd for the benchmark (MPI_INT, MPI_SUM, not in place) on
 * nodes x ppn ranks at c ints? */
static int runnable(hyt_nb_t n, const cand_t *cd, int nodes, int ppn, int c)
{
    unsigned r = restr_of(n, cd->alg);
    int p = nodes * ppn;
    if ((r & R_PARENT) && !(nodes > 1 && ppn > 1))
        return 0;
    if ((r & R_POF2) && (p & (p - 1)) != 0)
        return 0;
    if ((r & R_POF2COUNT) && c < hyt_mpich_pof2_below(p))
        return 0;
    if (r & R_INPLACE)
        return 0;
    return 1;
}

hyt_nb_table_t *hyt_nbtune_run(MPI_Comm comm, int nodes, int ppn, const hyt_nbtune_opts_t *o,
                               FILE *log)
{
    bench_t b = {0};
    PMPI_Comm_dup(comm, &b.comm);
    PMPI_Comm_set_errhandler(b.comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(b.comm, &b.rank);
    PMPI_Comm_size(b.comm, &b.p);
    uint64_t sizes[MAX_SIZES];
    int nsizes = 0;
    for (uint64_t s = 8; s <= o->max_bytes && nsizes < MAX_SIZES; s *= 4)
        sizes[nsizes++] = s;
    if (nsizes == 0)
        sizes[nsizes++] = 8;
    size_t maxc = (size_t)(sizes[nsizes - 1] / 4 + 1);
    b.s = malloc(sizeof(int) * maxc * (size_t)b.p);
    b.d = malloc(sizeof(int) * maxc * (size_t)b.p);
    b.ref = malloc(sizeof(int) * maxc * (size_t)b.p);
    b.cnt = malloc(2 * sizeof(int) * (size_t)b.p);
    b.dsp = b.cnt ? b.cnt + b.p : NULL;
    hyt_nb_table_t *out = b.rank == 0 ? calloc(1, sizeof *out) : NULL;
    cand_t *cands = malloc(MAX_CANDS * sizeof *cands);
    double (*t)[MAX_CANDS + 1] = malloc(sizeof *t * MAX_SIZES);
    int ok = b.s && b.d && b.ref && b.cnt && cands && t && (b.rank || out) && hyt_mpit_begin() == 0, all;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, b.comm);
    int kcap = o->k_max > 0 ? o->k_max : (b.p < 8 ? b.p : 8);
    if (kcap < 2)
        kcap = 2;
    double t_start = PMPI_Wtime();
    for (size_t i = 0; all && i < maxc * (size_t)b.p; i++)
        b.s[i] = b.rank * 7919 + (int)(i % 100003);
    for (int n = 0; all && n < HYT_NB_NCOLL; n++) {
        if (!(o->mask & (1u << n)))
            continue;
        hyt_cvar_t algv, kslot[4];
        char kname[4][64], name[64];
        int nkslot = 0, saved_alg = -1, ksaved[4];
        hyt_cvar_t *kall[4];
        hyt_nb_cvar_name((hyt_nb_t)n, "INTRA_ALGORITHM", name, sizeof name);
        int mine = hyt_cvar_open(name, 1, &algv) == 0 && hyt_cvar_read(&algv, &saved_alg) == 0;
        PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, b.comm);
        if (!all) {
            logf_(log, b.rank, "tune: %s: MPI_T has no %s with its algorithm names; skipped\n",
                  hyt_nb_name((hyt_nb_t)n), name);
            hyt_cvar_close(&algv);
            all = 1;
            continue;
        }
        int nc = candidates((hyt_nb_t)n, &algv, kslot, kname, &nkslot, kcap, cands);
        for (int i = 0; i < nkslot; i++) {
            kall[i] = &kslot[i];
            hyt_cvar_read(&kslot[i], &ksaved[i]);
        }

        /* this collective's share of what is left of the budget */
        int left = 0;
        for (int m = n; m < HYT_NB_NCOLL; m++)
            left += (o->mask >> m) & 1;
        double deadline = PMPI_Wtime() + (o->budget_s - (PMPI_Wtime() - t_start)) / left;
        /* Ibarrier moves nothing: one size; the rules are keyed by hytune's
         * selection size (Iallgatherv, Ialltoallv, Ireduce_scatter: all p blocks) */
        hyt_coll_t coll = hyt_nb_coll((hyt_nb_t)n);
        int ns = hyt_coll_props(coll) & HYT_CP_NO_COUNT ? 1 : nsizes;
        uint64_t key = hyt_coll_props(coll) & HYT_CP_VECTOR ? (uint64_t)b.p : 1;
        logf_(log, b.rank, "tune: %s: %d MPICH candidates (algorithms x k up to %d), %d sizes "
              "%llu..%llu B\n", hyt_nb_name((hyt_nb_t)n), nc, kcap, ns,
              (unsigned long long)(sizes[0] * key), (unsigned long long)(sizes[ns - 1] * key));
        int measured = 0;
        for (int si = 0; si < ns; si++) {
            /* rank 0's clock decides, for every rank alike; the smallest size is always measured */
            int stop = si > 0 && o->budget_s > 0 && PMPI_Wtime() > deadline;
            PMPI_Bcast(&stop, 1, MPI_INT, 0, b.comm);
            if (stop) {
                logf_(log, b.rank, "tune: %s: time budget spent; sizes above %llu B keep MPICH's "
                      "own choice\n", hyt_nb_name((hyt_nb_t)n),
                      (unsigned long long)(si ? sizes[si - 1] : 0));
                break;
            }
            int c = (int)(sizes[si] / 4);
            size_t cmp = reference(&b, (hyt_nb_t)n, c);
            select_cand(&algv, algv.auto_value >= 0 ? algv.auto_value : saved_alg, NULL, ksaved,
                        kall, nkslot);
            t[si][nc] = measure(&b, (hyt_nb_t)n, c, cmp);
            for (int q = 0; q < nc; q++) {
                t[si][q] = -1;
                if (cands[q].broken || !runnable((hyt_nb_t)n, &cands[q], nodes, ppn, c))
                    continue;
                select_cand(&algv, 0, &cands[q], ksaved, kall, nkslot);
                t[si][q] = measure(&b, (hyt_nb_t)n, c, cmp);
                if (t[si][q] == -2) {
                    /* MPICH 4.0.2's Ibcast tsp_scatterv_recexch_allgatherv, e.g., gives wrong
                     * results on 3 ranks for counts not divisible by 3 */
                    for (int r = 0; r < nc; r++)
                        if (!strcmp(cands[r].alg, cands[q].alg))
                            cands[r].broken = 1;
                    logf_(log, b.rank, "tune: %s: MPICH's %s gave a result different from "
                          "PMPI's blocking collective at %llu B on %d ranks (k=%d): never "
                          "chosen\n", hyt_nb_name((hyt_nb_t)n), cands[q].alg,
                          (unsigned long long)sizes[si], b.p, cands[q].k);
                }
            }
            select_cand(&algv, saved_alg, NULL, ksaved, kall, nkslot);
            measured = si + 1;
        }
        /* rules (rank 0): the fastest candidate per size if it beats MPICH's
         * own choice by 3% (measurement noise), else auto */
        if (b.rank == 0 && measured > 0) {
            hyt_nb_rule_t *rules = calloc((size_t)measured + 1, sizeof *rules);
            int nr = 0;
            for (int si = 0; rules && si < measured; si++) {
                int best = -1;
                for (int q = 0; q < nc; q++)
                    if (t[si][q] > 0 && !cands[q].broken && (best < 0 || t[si][q] < t[si][best]))
                        best = q;
                double tn = t[si][nc];
                int win = best >= 0 && (tn <= 0 || t[si][best] * 1.03 < tn);
                hyt_nb_rule_t r = {.bytes_max = sizes[si] * key, .predicted_us = -1, .native_us = -1,
                                   .value = -1, .kv = {-1, -1}};
                snprintf(r.alg, sizeof r.alg, "%s", win ? cands[best].alg : "auto");
                r.k = win ? cands[best].k : 0;
                r.native_us = tn > 0 ? tn * 1e6 : -1;
                r.predicted_us = win ? t[si][best] * 1e6 : r.native_us;
                logf_(log, 0, "tune: %s %llu B: %s%s%.0d %.2f us, MPICH's own choice %.2f us%s\n",
                      hyt_nb_name((hyt_nb_t)n), (unsigned long long)(sizes[si] * key),
                      best >= 0 ? cands[best].alg : "(no candidate ran)",
                      best >= 0 && cands[best].k ? ":k=" : "", best >= 0 ? cands[best].k : 0,
                      best >= 0 ? t[si][best] * 1e6 : 0.0, tn * 1e6, win ? "" : " (kept)");
                if (nr > 0 && !strcmp(rules[nr - 1].alg, r.alg) && rules[nr - 1].k == r.k)
                    rules[nr - 1] = r; /* one range: the times of its largest size */
                else
                    rules[nr++] = r;
            }
            if (rules && nr > 0 && measured < ns && strcmp(rules[nr - 1].alg, "auto")) {
                /* the sizes not measured keep MPICH's own choice */
                rules[nr] = (hyt_nb_rule_t){.predicted_us = -1, .native_us = -1, .value = -1,
                                            .kv = {-1, -1}};
                snprintf(rules[nr++].alg, sizeof rules[0].alg, "auto");
            }
            if (rules && nr > 0) {
                rules[nr - 1].bytes_max = UINT64_MAX;
                out->sets[n] = calloc(1, sizeof *out->sets[n]);
                if (out->sets[n]) {
                    out->sets[n][0] = (hyt_nb_set_t){nodes, ppn, nr, rules};
                    out->nsets[n] = 1;
                } else {
                    free(rules);
                }
            } else {
                free(rules);
            }
        }
        select_cand(&algv, saved_alg, NULL, ksaved, kall, nkslot);
        hyt_cvar_close(&algv);
        for (int i = 0; i < nkslot; i++)
            hyt_cvar_close(&kslot[i]);
    }
    if (ok)
        hyt_mpit_end();
    free(b.s);
    free(b.d);
    free(b.ref);
    free(b.cnt);
    free(cands);
    free(t);
    PMPI_Comm_free(&b.comm);
    return out;
}

/* ---- output ---- */
static char *fmt_append(char *s, size_t *len, const char *fmt, ...) HYT_PRINTF(3, 4);
static char *fmt_append(char *s, size_t *len, const char *fmt, ...)
{
    if (!s)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *ns = w < 0 ? NULL : realloc(s, *len + (size_t)w + 1);
    if (!ns) {
        free(s);
        return NULL;
    }
    va_start(ap, fmt);
    vsnprintf(ns + *len, (size_t)w + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)w;
    return ns;
}

/* ---- the MPICH selection file ---- */
/* The parameters MPICH 4.0.2's selection file takes for algorithm alg of n
 * (csel_container.c), with the values the benchmark ran (the radix
 * measured, the others as MPI_T reads them now); "" for an algorithm
 * without parameters; NULL when the file cannot express it exactly (its
 * container has parameters 4.0.2 does not read from the file, which would
 * be left unset). */
static char *params(hyt_nb_t n, const char *alg, int k)
{
    static const struct {
        hyt_nb_t nb;
        const char *alg;
        const char *p; /* k: the radix; T, C, B: tree type, chunk size, buffer per child */
    } ps[] = {
        {HYT_NB_IALLREDUCE, "tsp_recexch_single_buffer", "k"},
        {HYT_NB_IALLREDUCE, "tsp_recexch_multiple_buffer", "k"},
        {HYT_NB_IALLREDUCE, "tsp_recexch_reduce_scatter_recexch_allgatherv", "k"},
        {HYT_NB_IALLREDUCE, "tsp_tree", "kTCB"},
        {HYT_NB_IBCAST, "tsp_tree", "kTC"},
        {HYT_NB_IBCAST, "tsp_ring", "R"},
        {HYT_NB_IBCAST, "tsp_scatterv_recexch_allgatherv", "S"},
        {HYT_NB_IREDUCE, "tsp_tree", "kTCB"},
        {HYT_NB_IREDUCE, "tsp_ring", "RB"},
        {HYT_NB_IALLGATHER, "tsp_brucks", NULL},
        {HYT_NB_IALLGATHER, "tsp_recexch_doubling", NULL},
        {HYT_NB_IALLGATHER, "tsp_recexch_halving", NULL},
        {HYT_NB_IALLTOALL, "tsp_brucks", NULL},
        {HYT_NB_IALLTOALL, "tsp_scattered", NULL},
        /* the collectives added later: every algorithm with parameters is
         * left to MPI_T (the file carries those without) */
        {HYT_NB_IGATHER, "tsp_tree", NULL},
        {HYT_NB_ISCATTER, "tsp_tree", NULL},
        {HYT_NB_IALLGATHERV, "tsp_brucks", NULL},
        {HYT_NB_IALLGATHERV, "tsp_recexch_doubling", NULL},
        {HYT_NB_IALLGATHERV, "tsp_recexch_halving", NULL},
        {HYT_NB_IALLTOALLV, "tsp_scattered", NULL},
        {HYT_NB_IALLTOALLV, "tsp_blocked", NULL},
        {HYT_NB_IREDUCE_SCATTER, "tsp_recexch", NULL},
        {HYT_NB_IREDUCE_SCATTER_BLOCK, "tsp_recexch", NULL},
    };
    const char *spec = "";
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        if (ps[i].nb == n && !strcmp(ps[i].alg, alg)) {
            if (!ps[i].p)
                return NULL;
            spec = ps[i].p;
        }
    size_t len = 0;
    char *s = calloc(1, 1), name[64];
    for (const char *c = spec; *c && s; c++) {
        hyt_cvar_t v;
        int val = 0;
        const char *key = NULL, *var = NULL;
        switch (*c) {
        case 'k':
            s = fmt_append(s, &len, "%s\"k=%d\":{}", len ? "," : "", k);
            continue;
        case 'S':
            s = fmt_append(s, &len, "\"scatterv_k=%d\":{},\"allgatherv_k=%d\":{}", k, k);
            continue;
        case 'T': {
            char tt[64] = "kary";
            hyt_cvar_read_string(hyt_nb_cvar_name(n, "TREE_TYPE", name, sizeof name), tt,
                                 sizeof tt);
            val = !strcmp(tt, "knomial_1") ? 1 : !strcmp(tt, "knomial_2") ? 2 : 0;
            s = fmt_append(s, &len, ",\"tree_type=%d\":{}", val);
            continue;
        }
        case 'C':
            key = "chunk_size", var = "TREE_PIPELINE_CHUNK_SIZE";
            break;
        case 'R':
            key = "chunk_size", var = "RING_CHUNK_SIZE";
            break;
        default: /* B */
            key = "buffer_per_child", var = "TREE_BUFFER_PER_CHILD";
        }
        if (hyt_cvar_open(hyt_nb_cvar_name(n, var, name, sizeof name), 0, &v) == 0) {
            hyt_cvar_read(&v, &val);
            hyt_cvar_close(&v);
        }
        s = fmt_append(s, &len, "%s\"%s=%d\":{}", len ? "," : "", key, val);
    }
    return s;
}

/* fmt with the subtree leaf as %1$s and other as %2$s; leaf freed. */
static char *guard(char *leaf, const char *fmt, const char *other)
{
    size_t len = 0;
    char *s = leaf ? fmt_append(calloc(1, 1), &len, fmt, leaf, other) : NULL;
    free(leaf);
    return s;
}

/* The winner's subtree, guarded where MPICH cannot run it for every call
 * (those calls take the collective's general algorithm g). */
static char *nb_choice(hyt_nb_t n, const char *alg, const char *prm, const char *g)
{
    char cn[32];
    snprintf(cn, sizeof cn, "%s", hyt_nb_name(n));
    cn[0] = (char)toupper((unsigned char)cn[0]);
    cn[1] = (char)tolower((unsigned char)cn[1]);
    size_t len = 0;
    char *leaf = calloc(1, 1);
    /* MPICH 4.0.2 names Igatherv's and Iscatterv's algorithms for every
     * communicator kind ("allcomm"), the others' per kind */
    const char *kind = n == HYT_NB_IGATHERV || n == HYT_NB_ISCATTERV ? "allcomm" : "intra";
    leaf = fmt_append(leaf, &len, "{\"algorithm=MPIR_%s_%s_%s\":{%s}}", cn, kind, alg, prm);
    unsigned r = restr_of(n, alg);
    if (r & R_BUILTIN)
        leaf = guard(leaf, "{\"is_op_built_in=yes\":{\"count<pow2\":%2$s,\"count=any\":%1$s},"
                     "\"is_op_built_in=no\":%2$s}", g);
    if (r & R_COMM)
        leaf = guard(leaf, "{\"is_commutative=yes\":%1$s,\"is_commutative=no\":%2$s}", g);
    if (r & R_POF2)
        leaf = guard(leaf, "{\"comm_size=pow2\":%1$s,\"comm_size=any\":%2$s}", g);
    if (r & R_PARENT)
        leaf = guard(leaf, "{\"comm_hierarchy=parent\":%1$s,\"comm_hierarchy=any\":%2$s}", g);
    if (n == HYT_NB_IALLTOALL) /* the benchmark's winners are not in place */
        leaf = guard(leaf, "{\"is_sendbuf_inplace=yes\":%2$s,\"is_sendbuf_inplace=no\":%1$s}",
                     "{\"algorithm=MPIR_Ialltoall_intra_sched_inplace\":{}}");
    if (n == HYT_NB_IALLTOALLV)
        leaf = guard(leaf, "{\"is_sendbuf_inplace=yes\":%2$s,\"is_sendbuf_inplace=no\":%1$s}",
                     "{\"algorithm=MPIR_Ialltoallv_intra_sched_inplace\":{}}");
    return leaf;
}

int hyt_nbtune_mpich(const hyt_nb_table_t *t, hyt_mpich_coll_t *colls, const char **names,
                     int max, hyt_nbtune_keep_t *keep, int *won, int *dropped)
{
    int nc = 0, nsets = 0, nrules = 0;
    memset(keep, 0, sizeof *keep);
    *won = *dropped = 0;
    for (int n = 0; t && n < HYT_NB_NCOLL; n++)
        for (int i = 0; i < t->nsets[n]; i++) {
            nsets++;
            nrules += t->sets[n][i].nrules;
        }
    keep->sets = calloc((size_t)nsets + 1, sizeof *keep->sets);
    keep->rules = calloc((size_t)nrules + 1, sizeof *keep->rules);
    keep->texts = calloc((size_t)nrules + 1, sizeof *keep->texts);
    if (!keep->sets || !keep->rules || !keep->texts)
        return -1;
    int si = 0, ri = 0;
    for (int n = 0; t && n < HYT_NB_NCOLL && nc < max; n++) {
        if (!t->nsets[n])
            continue;
        const char *g = hyt_mpich_general(hyt_nb_name((hyt_nb_t)n));
        if (!g)
            return -1;
        colls[nc] = (hyt_mpich_coll_t){hyt_nb_coll((hyt_nb_t)n), t->nsets[n], keep->sets + si};
        names[nc] = hyt_nb_name((hyt_nb_t)n);
        for (int i = 0; i < t->nsets[n]; i++) {
            const hyt_nb_set_t *st = &t->sets[n][i];
            keep->sets[si++] = (hyt_mpich_set_t){st->nodes_max, st->ppn_max, st->nrules,
                                                 keep->rules + ri};
            for (int r = 0; r < st->nrules; r++) {
                hyt_mpich_rule_t *mr = &keep->rules[ri++];
                mr->bytes_max = st->rules[r].bytes_max;
                if (!strcmp(st->rules[r].alg, "auto"))
                    continue;
                char *prm = params((hyt_nb_t)n, st->rules[r].alg, st->rules[r].k);
                if (!prm) {
                    (*dropped)++;
                    continue;
                }
                mr->text = keep->texts[keep->ntexts++] =
                    nb_choice((hyt_nb_t)n, st->rules[r].alg, prm, g);
                free(prm);
                if (!mr->text)
                    return -1;
                (*won)++;
            }
        }
        nc++;
    }
    return nc;
}

void hyt_nbtune_mpich_free(hyt_nbtune_keep_t *keep)
{
    for (int i = 0; i < keep->ntexts; i++)
        free(keep->texts[i]);
    free(keep->texts);
    free(keep->sets);
    free(keep->rules);
    memset(keep, 0, sizeof *keep);
}
