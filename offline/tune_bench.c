/* `hytune tune`: the benchmark harness.
 *
 * Benchmark of one point (bench_point): two warm-up calls, then repetitions,
 * each barrier-synchronized, timed on every rank and reduced to the maximum
 * over ranks; stops after HYT_BENCH_MIN_REPS once the point's time budget is
 * spent (or HYT_BENCH_MAX_REPS); the answer is the median of those maxima.  A
 * point whose first call exceeds the budget is recorded as slow without
 * repetitions, and so is one whose second call (the first after the call
 * that pays any setup) is slower than its cut (racing, hyt_al_cut_us: it
 * cannot be its group's choice).  A point measured with the fewest calls
 * (round_pt_t.min_reps: the whole job's points) takes one warm-up call, the
 * one that pays any setup, then repetitions until two in a row agree to
 * the clock's rounding (a deterministic simulator: more repeat them exactly)
 * or HYT_BENCH_MIN_REPS were made; its first call slower than the point's
 * stop_s (the time budget its caller has left) ends it there, cut.  Every
 * stop test uses reduced values, so all ranks agree. */
#include "offline/tune_bench.h"
#include "offline/memory.h"
#include "offline/mpich.h"
#include "offline/rules.h"
#include "offline/tune_opts.h"
#include "topology/topology.h"

#ifdef HYT_SMPI
#include <simgrid/host.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HYT_BENCH_WARMUP 2
#define HYT_BENCH_MIN_REPS 5
#define HYT_BENCH_MAX_REPS 30
#define HYT_BENCH_SAME_REL 1e-6 /* relative spread below which repetitions are equal */

static int bench_args(int c, uint64_t bytes, int p, bufs_t *b, hyt_args_t *a)
{
    int red = hyt_coll_has_op((hyt_coll_t)c);
    size_t blk = (size_t)bytes, need = (size_t)hyt_mem_buffer((hyt_coll_t)c, bytes, p);
    size_t unit = red ? 4 : 1, per = (blk / unit + (size_t)p - 1) / (size_t)p;
    int vec = (hyt_coll_props((hyt_coll_t)c) & HYT_CP_VECTOR) != 0;
    /* exactly this point's size: a rank keeps no larger buffers than the
     * point it runs needs (the memory bound counts one point's need) */
    if (need != b->len) {
        hyt_mem_buf_free(b->s);
        hyt_mem_buf_free(b->r);
        b->s = hyt_mem_buf_alloc(need);
        b->r = hyt_mem_buf_alloc(need);
        b->len = need;
        if (!b->s || !b->r) {
            hyt_mem_buf_free(b->s);
            hyt_mem_buf_free(b->r);
            free(b->v);
            *b = (bufs_t){0};
            return -1;
        }
        /* MPI_INT 0x01010101: sums stay exact at these sizes (SimGrid: the
         * shared contents are any ranks' and meaningless) */
        memset(b->s, 1, need);
        memset(b->r, 0, need);
    }
    memset(a, 0, sizeof *a);
    a->coll = (hyt_coll_t)c;
    a->sbuf = b->s;
    a->rbuf = b->r;
    a->type = red ? MPI_INT : MPI_BYTE;
    a->stype = a->type;
    a->count = (int)(red ? blk / 4 : blk);
    a->scount = a->count;
    a->op = MPI_SUM;
    a->root = 0;
    /* gather, scatter: blk per rank; the v-variants: even blocks of the
     * selection size (allgatherv, reduce_scatter: the total of all blocks;
     * alltoallv: what a rank sends in all, see hyt_args_t), rounded up to
     * whole elements per rank (the buffers hold p blocks of blk / p) */
    if (vec) {
        if (b->vp != p) {
            free(b->v);
            b->v = malloc(4 * (size_t)p * sizeof *b->v);
            b->vp = b->v ? p : 0;
            if (!b->v)
                return -1;
        }
        for (int i = 0; i < p; i++) {
            b->v[i] = b->v[2 * p + i] = (int)per;
            b->v[p + i] = b->v[3 * p + i] = i * (int)per;
        }
        a->scounts = b->v;
        a->sdispls = b->v + p;
        a->rcounts = b->v + 2 * p;
        a->rdispls = b->v + 3 * p;
        a->scount = (int)per;
    }
    return 0;
}

double hyt_tune_median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Wait us microseconds: busy on the clock (MPICH), or charged to the
 * simulated clock (SimGrid, where a busy loop would not advance it). */
static void delay_us(double us)
{
#ifdef HYT_SMPI
    /* flops at this host's speed: exact in any mode (smpi_execute scales by
     * smpi/host-speed instead) */
    smpi_execute_flops(us * 1e-6 * sg_host_get_speed(sg_host_self()));
#else
    double end = PMPI_Wtime() + us * 1e-6;
    while (PMPI_Wtime() < end)
        ;
#endif
}

/* This rank's lateness in call number `call` of a point (0, 1: the warm-up
 * calls, then the repetitions) under the arrival pattern.  The random
 * pattern draws from (seed, call, rank): every candidate at every point
 * meets the same delays in its j-th call (common random numbers, so that
 * candidates differ by their algorithm, not by their draws), reproducibly
 * and with no state to share. */
static double arrival_delay_us(const tune_bench_t *bs, MPI_Comm comm, int call)
{
    if (bs->arrival_kind == ARRIVAL_SYNC)
        return 0;
    int r, p;
    PMPI_Comm_rank(comm, &r);
    PMPI_Comm_size(comm, &p);
    hyt_rng_t rng;
    switch (bs->arrival_kind) {
    case ARRIVAL_LINEAR:
        return p > 1 ? bs->arrival_us * r / (p - 1) : 0;
    case ARRIVAL_LAST:
        return r == p - 1 ? bs->arrival_us : 0;
    case ARRIVAL_RANDOM:
        hyt_rng_seed(&rng, bs->arrival_seed ^ ((uint64_t)call * 0x9e3779b97f4a7c15ull) ^
                               ((uint64_t)r * 0xc2b2ae3d27d4eb4full));
        return bs->arrival_us * hyt_rng_uniform(&rng);
    default: /* ARRIVAL_SYNC, returned above */
        return 0;
    }
}

/* One timed call after a barrier; < 0 on an error on any rank (every rank
 * of comm returns the same: the answer is reduced, which also synchronizes).
 * sync: the maximum over ranks of each rank's call.  With an arrival
 * pattern each rank first waits its delay, and the answer is the last
 * delay, max exit - max entry, both measured from each rank's barrier exit:
 * how long the collective keeps the job after its last process arrived. */
static double timed_call(const tune_bench_t *bs, hyt_args_t *a, const cand_t *cd, MPI_Comm comm,
                         int attempt, int call)
{
    PMPI_Barrier(comm);
    double tb = PMPI_Wtime(), late = arrival_delay_us(bs, comm, call);
    /* MPICH candidate: every rank of comm writes the same value; MPICH 4.0.2
     * applies it from the next call; "auto" goes back right after the call,
     * so the timing reductions below run MPICH's own selection */
    int sel = cd->mpich >= 0 ? hyt_mpich_select(cd->alg->coll, cd->mpich) : 0;
    if (bs->inject_label && attempt < bs->inject_attempts && !strcmp(cd->label, bs->inject_label))
        sel = -1;
    if (late > 0)
        delay_us(late);
    double t0 = PMPI_Wtime();
    hyt_fallback_t fb;
    int rc = sel == 0 ? hyt_run_alg(a, cd->alg, cd->k, &fb) : MPI_ERR_OTHER;
    double t1 = PMPI_Wtime();
    if (rc == MPI_SUCCESS && sel == 0 && fb == HYT_FB_SCRATCH)
        rc = MPI_ERR_NO_MEM; /* MPI's own collective ran: not the candidate's time */
    if (cd->mpich >= 0)
        hyt_mpich_select(cd->alg->coll, -1);
    /* maxima of: own call, entry, exit (since the barrier), failure */
    double v[4] = {t1 - t0, t0 - tb, t1 - tb, rc != MPI_SUCCESS}, mx[4];
    PMPI_Allreduce(v, mx, 4, MPI_DOUBLE, MPI_MAX, comm);
    if (mx[3] > 0)
        return -1;
    return bs->arrival_kind == ARRIVAL_SYNC ? mx[0] : mx[2] - mx[1];
}

/* Two repetitions equal but for the clock's rounding (HYT_BENCH_SAME_REL). */
static int same_time(double a, double b)
{
    return fabs(a - b) <= HYT_BENCH_SAME_REL * fmax(a, b);
}

/* One attempt at a point: its time in us, or -1 if a call failed; *cut: it
 * was recorded after its second call, slower than cut_us (racing); *calls:
 * the calls made.  budget < 0: the fewest calls (one warm-up, repetitions
 * until two in a row are the same time, at most HYT_BENCH_MIN_REPS), a
 * first call slower than stop_s seconds recorded cut. */
static double bench_attempt(const tune_bench_t *bs, hyt_args_t *a, const cand_t *cd, MPI_Comm comm,
                            double budget, double cut_us, double stop_s, int attempt, int *cut,
                            double *spread, int *calls)
{
    *cut = 0;
    *spread = 0;
    *calls = 1;
    double reps[HYT_BENCH_MAX_REPS];
    double first = timed_call(bs, a, cd, comm, attempt, 0);
    /* too slow to repeat: recorded as measured once (budget < 0: never) */
    if (first < 0 || (budget >= 0 && first > budget))
        return first < 0 ? -1 : first * 1e6;
    if (budget < 0 && first > stop_s) { /* the caller's budget is spent */
        *cut = 1;
        return first * 1e6;
    }
    int warmup = budget < 0 ? 1 : HYT_BENCH_WARMUP;
    for (int w = 1; w < warmup; w++) {
        double t = timed_call(bs, a, cd, comm, attempt, w);
        ++*calls;
        if (t < 0)
            return -1;
        /* racing: the first call paid any setup; the second already tells a loser */
        if (w == 1 && t * 1e6 > cut_us) {
            *cut = 1;
            return t * 1e6;
        }
    }
    int n = 0;
    double spent = 0;
    while (n < HYT_BENCH_MAX_REPS && (n < HYT_BENCH_MIN_REPS || spent < budget)) {
        double t = timed_call(bs, a, cd, comm, attempt, warmup + n);
        ++*calls;
        if (t < 0)
            return -1;
        reps[n++] = t;
        spent += t;
        if (budget < 0 && n >= 2 && same_time(reps[n - 1], reps[n - 2]))
            break; /* the fewest calls: a repetition repeated exactly */
    }
    double med = hyt_tune_median(reps, n); /* sorts reps */
    /* standard error of the median's log: one call's sigma from the
     * interquartile range (/ 1.349), times 1.2533 / sqrt(n).  A range below
     * HYT_BENCH_SAME_REL of the median is no spread but the rounding of the
     * clock's values (SimGrid repeats a call to the last bit but for the
     * subtraction of two MPI_Wtime readings, relative 1e-15..1e-8 as the
     * simulated clock grows), far below any timer's resolution: 0, so that
     * deterministic simulations note no noise (hyt_al_note_noise) */
    double iqr = reps[(3 * n) / 4] - reps[n / 4];
    *spread = med > 0 && iqr > HYT_BENCH_SAME_REL * med ? 1.2533 * iqr / med / 1.349 / sqrt(n) : 0;
    return med * 1e6;
}

/* One point's benchmark, in the form a round reduces (MPI_MAX over 7
 * doubles per point: the point's ranks agree, the others give zeros). */
typedef struct point_result {
    double us;     /* its time in us; 0 if it failed */
    double cost;   /* wall seconds spent on it */
    double tries;  /* attempts made: a failed attempt is retried once */
    double failed; /* 1: the retry failed too (the point is skipped) */
    double cut;    /* 1: recorded after its second call, slower than its cut_us */
    double spread; /* standard error of its log time, from its repetitions */
    double calls;  /* calls made, both attempts */
} point_result_t;
_Static_assert(sizeof(point_result_t) == 7 * sizeof(double), "reduced as 7 doubles");

/* After a point: the scratch its candidate left on comm (and on the leader
 * communicator of a composition) is freed, so no rank carries one point's
 * scratch into the next or keeps it on cached communicators; a scratch
 * larger than the bound the memory limit counted is reported once. */
static void scratch_check(tune_bench_t *bs, const hyt_al_point_t *pt, const cand_t *cd,
                          MPI_Comm comm, int p)
{
    hyt_comm_t *ctx = hyt_comm_get(comm);
    if (!ctx)
        return;
    size_t held = hyt_scratch_release(ctx);
    if (ctx->leader_comm != MPI_COMM_NULL) {
        hyt_comm_t *lc = hyt_comm_get(ctx->leader_comm);
        if (lc)
            held += hyt_scratch_release(lc);
    }
    uint64_t bound = hyt_mem_scratch(cd->alg->coll, cd->alg, cd->k, pt->bytes, p);
    if (held > bound && !bs->scratch_warned) {
        bs->scratch_warned = 1;
        fprintf(stderr, "tune: memory: rank %d: %s k=%d at %llu bytes on %d ranks left %zu bytes "
                "of scratch, above the bound of %llu the limit counts (offline/memory.c)\n",
                hyt_world_rank, cd->label, cd->k, (unsigned long long)pt->bytes, p, held,
                (unsigned long long)bound);
    }
}

static point_result_t bench_point(tune_bench_t *bs, const hyt_al_point_t *pt, const cand_t *cd,
                                  MPI_Comm comm, double budget, double cut_us, double stop_s)
{
    int p;
    PMPI_Comm_size(comm, &p);
    hyt_args_t a;
    double start = PMPI_Wtime(), us = -1;
    int ok = bench_args(pt->alg < 0 ? 0 : (int)cd->alg->coll, pt->bytes, p, &bs->b, &a) == 0, all;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm); /* buffers on every rank, or none */
    point_result_t r = {0};
    if (all) {
        a.comm = comm;
        /* MPICH refusing a set algorithm (MPIR_CVAR_COLLECTIVE_FALLBACK=error)
         * returns an error on every rank: a failed attempt, not an abort */
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        for (int attempt = 0; attempt < 2 && us < 0; attempt++) {
            int cut, calls;
            us = bench_attempt(bs, &a, cd, comm, budget, cut_us, stop_s, attempt, &cut, &r.spread,
                               &calls);
            r.tries = attempt + 1;
            r.cut = cut;
            r.calls += calls;
        }
    }
    scratch_check(bs, pt, cd, comm, p);
    r.us = us < 0 ? 0 : us;
    r.failed = us < 0;
    r.cost = PMPI_Wtime() - start;
    return r;
}

/* Rank 0: split a batch into rounds of node-disjoint points. */
int hyt_tune_plan_rounds(const job_t *j, const hyt_al_t *al, const hyt_al_point_t *pts, int n,
                       round_pt_t *out, int *round_end)
{
    int nr = 0, used = 0, k = 0;
    for (int i = 0; i < n; i++) {
        /* whole groups per point: round the start up to a group boundary */
        int start = used;
        while (j->parallel && start > 0 && start < j->nodes &&
               hyt_topo_node_group(j->node_order[start]) ==
                   hyt_topo_node_group(j->node_order[start - 1]))
            start++;
        if (!j->parallel || k == 0 || start + pts[i].nodes > j->nodes) {
            if (k > 0)
                round_end[nr++] = k;
            start = 0;
        }
        out[k].pt = pts[i];
        out[k].cut_us = hyt_al_cut_us(al, &pts[i]);
        out[k].min_reps = 0;
        out[k].stop_s = HUGE_VAL;
        out[k++].first = start;
        used = start + pts[i].nodes;
    }
    if (k > 0)
        round_end[nr++] = k;
    return nr;
}

/* Sub-communicators are kept and reused for rounds of the same layout: the
 * first collectives on a new communicator carry setup cost (under SimGrid's
 * SMP-aware selectors, seconds of simulation per communicator at 128 ranks),
 * which would otherwise be paid at every benchmark point.  Layouts come from
 * rank 0's broadcast, so every rank holds the same cache and takes the same
 * split/free decisions. */
static void sub_key(const round_pt_t *rp, int n, int *key)
{
    for (int i = 0; i < n; i++) {
        key[3 * i] = rp[i].first;
        key[3 * i + 1] = rp[i].pt.nodes;
        key[3 * i + 2] = rp[i].pt.ppn;
    }
}

/* The sub-communicator of this round's layout (split over the world when new). */
static MPI_Comm sub_get(tune_bench_t *bs, const round_pt_t *rp, int n, int color, int key_rank,
                        int *owned)
{
    int key[3 * SUB_MAX_POINTS];
    *owned = n > SUB_MAX_POINTS;
    if (!*owned) {
        sub_key(rp, n, key);
        for (int e = 0; e < bs->sub_cached; e++)
            if (bs->sub_cache[e].n == n &&
                !memcmp(bs->sub_cache[e].key, key, 3 * (size_t)n * sizeof *key)) {
                bs->sub_cache[e].last_use = ++bs->sub_clock;
                return bs->sub_cache[e].comm;
            }
    }
    MPI_Comm sub;
    PMPI_Comm_split(MPI_COMM_WORLD, color, key_rank, &sub);
    if (*owned)
        return sub;
    int e = 0;
    if (bs->sub_cached < SUB_CACHE) {
        e = bs->sub_cached++;
    } else { /* full: evict the least recently used */
        for (int i = 1; i < SUB_CACHE; i++)
            if (bs->sub_cache[i].last_use < bs->sub_cache[e].last_use)
                e = i;
        if (bs->sub_cache[e].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&bs->sub_cache[e].comm);
    }
    bs->sub_cache[e].n = n;
    memcpy(bs->sub_cache[e].key, key, 3 * (size_t)n * sizeof *key);
    bs->sub_cache[e].comm = sub;
    bs->sub_cache[e].last_use = ++bs->sub_clock;
    return sub;
}

/* All ranks: the slowest rank's median of SETUP_REPS MPI_Comm_dup +
 * MPI_Comm_free on sub (MPI_COMM_NULL on the ranks outside it, freed after
 * when owned); -1 where a duplicate failed. */
static double setup_median(MPI_Comm sub, int owned)
{
    double v[SETUP_REPS], mine[2] = {0, 0}; /* median us, failed */
    for (int i = 0; sub != MPI_COMM_NULL && i < SETUP_REPS; i++) {
        MPI_Comm d;
        PMPI_Barrier(sub);
        double t0 = PMPI_Wtime();
        if (PMPI_Comm_dup(sub, &d) != MPI_SUCCESS) {
            mine[1] = 1;
            break;
        }
        PMPI_Comm_free(&d);
        v[i] = 1e6 * (PMPI_Wtime() - t0);
    }
    if (sub != MPI_COMM_NULL && !mine[1])
        mine[0] = hyt_tune_median(v, SETUP_REPS);
    PMPI_Allreduce(MPI_IN_PLACE, mine, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (owned && sub != MPI_COMM_NULL)
        PMPI_Comm_free(&sub);
    return mine[1] ? -1 : mine[0];
}

/* setup_median on the communicator of the first nodes x ppn of the job
 * (node_order). */
static double setup_cost_at(tune_bench_t *bs, const job_t *j, int nodes, int ppn)
{
    int pos = j->node_pos[hyt_world_node_of[hyt_world_rank]];
    round_pt_t rp = {.pt = {.nodes = nodes, .ppn = ppn}};
    int color = pos < nodes && j->my_local < ppn ? 0 : MPI_UNDEFINED, owned;
    MPI_Comm sub = sub_get(bs, &rp, 1, color, pos * j->ppn + j->my_local, &owned);
    return setup_median(sub, owned);
}

/* With --tune-nodes (the job's all_nodes > the search's nodes):
 * setup_median on communicators of nodes x ppn ranks spread over the whole
 * job, every all_nodes / nodes-th node, all such slices at once (as an
 * application's row or column communicators are). */
static double setup_cost_spread(const job_t *j, int nodes, int ppn)
{
    int pos = j->node_pos[hyt_world_node_of[hyt_world_rank]], stride = j->all_nodes / nodes;
    int color = pos < stride * nodes && j->my_local < ppn ? pos % stride : MPI_UNDEFINED;
    MPI_Comm sub;
    PMPI_Comm_split(MPI_COMM_WORLD, color, pos * j->ppn + j->my_local, &sub);
    return setup_median(sub, 1);
}

void hyt_tune_world_setup(job_t *j)
{
    double us[3], mx[3] = {0, 0, 0}, x = 1, y;
    MPI_Comm d = MPI_COMM_NULL;
    /* the barrier's algorithm sets nothing up where the Allreduce's does
     * (SimGrid's MPICH selection); a library that connects lazily has
     * connected here */
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    int ok = PMPI_Comm_dup(MPI_COMM_WORLD, &d) == MPI_SUCCESS;
    us[0] = 1e6 * (PMPI_Wtime() - t0);
    for (int i = 1; i < 3; i++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        t0 = PMPI_Wtime();
        PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        us[i] = 1e6 * (PMPI_Wtime() - t0);
    }
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(us, mx, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (ok)
        PMPI_Comm_free(&d);
    memset(&j->world, 0, sizeof j->world);
    if (all) {
        j->world.ranks = hyt_world_size;
        j->world.dup_us = mx[0];
        j->world.first_us = mx[1] > mx[2] ? mx[1] - mx[2] : 0;
    }
    if (hyt_world_rank == 0 && all)
        fprintf(stderr, "tune: MPI_COMM_WORLD (%d ranks): MPI_Comm_dup before its first "
                "collective %.1f us; its first Allreduce %.1f us, the next %.1f us: a duplicate "
                "made before its first collective %s\n", hyt_world_size, mx[0], mx[1], mx[2],
                hyt_setup_world_early(&j->world) ? "takes its set-up over (made there)"
                                                 : "adds its own cost (rented as any other)");
}

void hyt_tune_setup_cost(tune_bench_t *bs, job_t *j)
{
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1], n = 0, ranks[SETUP_SIZES_MAX];
        double us[SETUP_SIZES_MAX];
        /* whole nodes: 1 (if it holds 2 ranks), 2, 4, ... nodes; on one node:
         * 2, 4, ... ppn ranks; the shape itself last */
        int many = nodes > 1, top = many ? nodes : ppn;
        /* the largest shape's rules serve the job's communicators
         * (--tune-nodes): at each size the cost of neighbouring nodes or of
         * nodes spread over the job, whichever is larger */
        int job = nodes == j->nodes && ppn == j->ppn && j->all_nodes > nodes;
        for (int m = many && ppn > 1 ? 1 : 2; m < top && n < SETUP_SIZES_MAX - 1; m *= 2) {
            ranks[n] = many ? m * ppn : m;
            us[n] = setup_cost_at(bs, j, many ? m : 1, many ? ppn : m);
            if (job && many && us[n] >= 0)
                us[n] = fmax(us[n], setup_cost_spread(j, m, ppn));
            n += us[n] >= 0;
        }
        ranks[n] = nodes * ppn;
        us[n] = j->setup_us[s] = setup_cost_at(bs, j, nodes, ppn);
        if (job && many && us[n] >= 0)
            us[n] = j->setup_us[s] = fmax(us[n], setup_cost_spread(j, nodes, ppn));
        n += us[n] >= 0;
        hyt_rules_setup_fit(ranks, us, n, &j->setup_fit[s]);
        if (j->setup_us[s] < 0)
            j->setup_fit[s].x = HYT_SETUP_FIT_NONE; /* the shape's own duplicate failed */
        /* the largest shape's rules serve the job's larger communicators
         * (--tune-nodes): its cost is measured on the whole job too */
        double job_us = -1;
        if (job && j->setup_fit[s].x != HYT_SETUP_FIT_NONE &&
            (job_us = setup_cost_at(bs, j, j->all_nodes, ppn)) >= 0) {
            j->setup_fit[s].job_ranks = j->all_nodes * ppn;
            j->setup_fit[s].job_us = job_us;
        }
        if (hyt_world_rank != 0)
            continue;
        fprintf(stderr, "tune: a new communicator of %d nodes x %d ranks costs %.1f us "
                "(MPI_Comm_dup + MPI_Comm_free, median of %d)", nodes, ppn, j->setup_us[s],
                SETUP_REPS);
        const hyt_setup_fit_t *f = &j->setup_fit[s];
        if (f->x != HYT_SETUP_FIT_NONE) {
            fprintf(stderr, "; at");
            for (int i = 0; i < n; i++)
                fprintf(stderr, "%s %d", i ? "," : "", ranks[i]);
            fprintf(stderr, " ranks");
            for (int i = 0; i < n; i++)
                fprintf(stderr, "%s %.1f", i ? "," : "", us[i]);
            fprintf(stderr, " us: fitted %.3g + %.3g x %s us", f->a_us, f->b_us,
                    hyt_setup_x_name(f->x));
            if (f->job_ranks > 0)
                fprintf(stderr, "; the job's %d ranks %.1f us", f->job_ranks, f->job_us);
        }
        fprintf(stderr, "\n");
    }
}

void hyt_tune_bench_free(tune_bench_t *bs)
{
    for (int e = 0; e < bs->sub_cached; e++)
        if (bs->sub_cache[e].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&bs->sub_cache[e].comm);
    bs->sub_cached = 0;
    hyt_mem_buf_free(bs->b.s);
    hyt_mem_buf_free(bs->b.r);
    free(bs->b.v);
    bs->b = (bufs_t){0};
}

/* All ranks: run one round (broadcast from rank 0), results reduced to rank 0. */
int hyt_tune_run_round(tune_bench_t *bs, const job_t *j, const cand_t *cands, int ncand,
                       round_pt_t *rp, int n, double budget, double *us, double *cost, int *tries,
                       int *cut, double *spread)
{
    PMPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (n <= 0)
        return n;
    PMPI_Bcast(rp, (int)(n * sizeof *rp), MPI_BYTE, 0, MPI_COMM_WORLD);
    int pos = j->node_pos[hyt_world_node_of[hyt_world_rank]], color = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (pos >= rp[i].first && pos < rp[i].first + rp[i].pt.nodes &&
            j->my_local < rp[i].pt.ppn)
            color = i;
    int owned;
    MPI_Comm sub = sub_get(bs, rp, n, color, pos * j->ppn + j->my_local, &owned);
    point_result_t *mine = calloc((size_t)n, sizeof *mine), *all = calloc((size_t)n, sizeof *all);
    if (!mine || !all)
        PMPI_Abort(MPI_COMM_WORLD, 2);
    if (color != MPI_UNDEFINED) {
        const round_pt_t *r = &rp[color];
        const cand_t *cd = hyt_tune_find_cand(cands, ncand, &r->pt);
        if (!cd) /* cannot happen: rank 0 chose from the same list */
            PMPI_Abort(MPI_COMM_WORLD, 2);
        mine[color] = bench_point(bs, &r->pt, cd, sub, r->min_reps ? -1 : budget, r->cut_us,
                                  r->stop_s);
    }
    if (owned && sub != MPI_COMM_NULL)
        PMPI_Comm_free(&sub);
    PMPI_Reduce(mine, all, 7 * n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (hyt_world_rank == 0)
        for (int i = 0; i < n; i++) {
            bs->calls += (long)all[i].calls;
            us[i] = all[i].failed > 0 ? -1 : all[i].us;
            cost[i] = all[i].cost;
            tries[i] = (int)all[i].tries;
            cut[i] = all[i].cut > 0;
            if (spread)
                spread[i] = all[i].spread;
        }
    free(mine);
    free(all);
    return n;
}
