/* SMPI test of hybrid mode's choice among a rule's shortlist, and the
 * measuring program behind bench/online_choose.sh.
 *
 *   test_online_choose COLL COUNT CALLS [skew] [noncomm]
 * runs CALLS back-to-back calls of MPI_<COLL> (allreduce, bcast, reduce,
 * allgather) of COUNT ints through hytune, the root of Bcast and Reduce
 * rotating, and checks every result against the value the inputs give
 * (integer sums: exact), so a call the ranks ran with different algorithms
 * shows as a wrong result or a deadlock.  skew: before every call each rank
 * computes for a time that depends on its rank and a seeded random draw
 * (0-6 us), so the ranks' local timings differ and only agreed values can
 * keep them together.  noncomm: Allreduce and Reduce sum with a user op
 * created non-commutative (the sum is exact all the same), which the
 * algorithms needing a commutative op refuse: their calls go to PMPI, and a
 * candidate's choice window with such calls must be passed over on every
 * rank alike.  linear:US, random:US: the arrival patterns of `hytune tune
 * --arrival` before every call (rank r of p US*r/(p-1) late; each rank up
 * to US late at random, seeded), as an application's loop would have them.
 * rootstop:N: the root of Bcast and Reduce rotates up to call N, then stays
 * at N's (a key whose windows follow a rotating root must not wait for a
 * place of the root that no longer comes).  barrier:N: one MPI_Barrier
 * before call N, as an application's own synchronization inside the loop
 * (a back-to-back loop of a rooted collective pipelines, and a barrier
 * resets the pipeline's phase: docs/online.md "Where a cold start's cost
 * goes").
 *
 * Rank 0 prints the table rule's shortlist for the size (offline and hybrid
 * mode with a table), the loop's time per call (simulated clock, from a
 * barrier before the first call to one after the last) and, in hybrid mode,
 * the key's choice: winner, settled k, calls spent choosing and probing,
 * and the loop split into its first call (to the last rank out of it, the
 * private communicator's set-up included), the time per call after it (to
 * the last rank out of the last call) and the end (the closing barrier):
 * bench/online_choose_scale.sh -s extrapolates short fixed runs with it.
 * Every rank's winner and k are compared (MPI_MIN against MPI_MAX).  The
 * last line is the summary "test_online_choose p=P ...: N wrong, ..."
 * that test/smpi/online_choose.sh requires (SimGrid ends a deadlocked run
 * with exit status 0). */
#include "online/online.h"
#include "src/hyt.h"
#include "topology/topology.h"
#include "test/check.h"

#include <smpi/smpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, p, skew_on, root_stop = -1;
static char skew_kind; /* 'l' linear:US, 'r' random:US (0: none) */
static double skew_us;
static MPI_Op sum_op = MPI_SUM;

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}
static uint64_t rng;

static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int val(int r, int i, int call)
{
    return (r + 1) * 131 + i * 7 + call * 31;
}

/* One call; returns the number of wrong elements on this rank. */
static int one_call(hyt_coll_t c, int n, int call, int *in, int *out)
{
    int wrong = 0, root = (root_stop >= 0 && call > root_stop ? root_stop : call) % p;
    for (int i = 0; i < n; i++)
        in[i] = val(rank, i, call);
    if (skew_on) /* rank-dependent arrival: 0-3 us by rank, 0-3 us at random */
        smpi_execute_flops(3e3 * ((double)(rank % 7) / 6.0 + urand()));
    /* the tuner's arrival patterns (1 Gflop/s hosts: 1e3 flops a microsecond) */
    if (skew_kind == 'l' && p > 1)
        smpi_execute_flops(1e3 * skew_us * (double)rank / (double)(p - 1));
    else if (skew_kind == 'r')
        smpi_execute_flops(1e3 * skew_us * urand());
    switch (c) {
    case HYT_COLL_ALLREDUCE:
    case HYT_COLL_REDUCE:
        memset(out, 0, (size_t)n * sizeof *out);
        if (c == HYT_COLL_ALLREDUCE)
            MPI_Allreduce(in, out, n, MPI_INT, sum_op, MPI_COMM_WORLD);
        else
            MPI_Reduce(in, out, n, MPI_INT, sum_op, root, MPI_COMM_WORLD);
        if (c == HYT_COLL_ALLREDUCE || rank == root)
            for (int i = 0; i < n; i++)
                wrong += out[i] != 131 * p * (p + 1) / 2 + p * (7 * i + 31 * call);
        break;
    case HYT_COLL_BCAST:
        if (rank != root)
            memset(in, 0, (size_t)n * sizeof *in);
        MPI_Bcast(in, n, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            wrong += in[i] != val(root, i, call);
        break;
    case HYT_COLL_ALLGATHER:
        memset(out, 0, (size_t)n * (size_t)p * sizeof *out);
        MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++)
                wrong += out[(size_t)r * (size_t)n + (size_t)i] != val(r, i, call);
        break;
    default:
        break;
    }
    return wrong;
}

/* A string's hash, for comparing the ranks' winners. */
static int name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(h & 0x7fffffff);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: test_online_choose COLL COUNT CALLS [skew] "
                            "[linear:US|random:US] [noncomm] [rootstop:N] [barrier:N]\n");
        MPI_Finalize();
        return 2;
    }
    int c = hyt_coll_from_name(argv[1]), n = atoi(argv[2]), calls = atoi(argv[3]), barrier_at = -1;
    for (int a = 4; a < argc; a++) {
        if (strcmp(argv[a], "skew") == 0)
            skew_on = 1;
        else if (strncmp(argv[a], "linear:", 7) == 0 || strncmp(argv[a], "random:", 7) == 0) {
            skew_kind = argv[a][0];
            skew_us = atof(argv[a] + 7);
        }
        else if (strcmp(argv[a], "noncomm") == 0)
            MPI_Op_create(int_sum, 0, &sum_op);
        else if (strncmp(argv[a], "rootstop:", 9) == 0)
            root_stop = atoi(argv[a] + 9);
        else if (strncmp(argv[a], "barrier:", 8) == 0)
            barrier_at = atoi(argv[a] + 8);
    }
    if (c != HYT_COLL_ALLREDUCE && c != HYT_COLL_BCAST && c != HYT_COLL_REDUCE &&
        c != HYT_COLL_ALLGATHER) {
        if (rank == 0)
            fprintf(stderr, "test_online_choose: COLL must be allreduce, bcast, reduce or "
                            "allgather, not \"%s\"\n", argv[1]);
        MPI_Finalize();
        return 2;
    }
    rng = 0x853c49e6748fea9bULL + (uint64_t)rank * 0xda3e39cb94b95bdbULL;
    int *in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    int *out = malloc((size_t)(n > 0 ? n : 1) * (size_t)p * sizeof *out);
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 2);
    size_t bytes = (size_t)n * sizeof(int);
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    if (rank == 0 && ctx && ctx->rules[c]) {
        const hyt_rule_t *r = hyt_rules_lookup(ctx->rules[c], bytes);
        printf("shortlist");
        for (int i = 0; i < r->nshort; i++)
            printf(" %s:%d", r->shortlist[i].alg->name, r->shortlist[i].k);
        printf("\n");
    } else if (rank == 0 && ctx && hyt_cfg.builtin_shortlist) {
        printf("shortlist"); /* the built-in one, each at its prior radix */
        for (int i = 0; i < hyt_online_builtin_count((hyt_coll_t)c); i++) {
            const hyt_alg_t *alg = hyt_online_builtin((hyt_coll_t)c, i);
            size_t b = bytes ? (size_t)1 << (hyt_bucket(bytes) - 1) : 0;
            printf(" %s:%d", alg->name, hyt_alg_has_radix(alg) ? hyt_topo_prior_k(alg, ctx, b) : 0);
        }
        printf("\n");
    }

    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    long wrong = 0;
    double t_out[2] = {t0, t0}; /* when this rank left the first and the last call */
    for (int i = 0; i < calls; i++) {
        if (i == barrier_at) /* one synchronization inside the loop, as an application's */
            MPI_Barrier(MPI_COMM_WORLD);
        wrong += one_call((hyt_coll_t)c, n, i, in, out);
        t_out[i > 0] = MPI_Wtime();
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    double t_end = MPI_Wtime(), per_call = (t_end - t0) / (calls > 0 ? calls : 1), t_max[2];
    PMPI_Allreduce(t_out, t_max, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    long wrong_all = 0;
    PMPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(wrong_all == 0, "%ld wrong elements over the ranks", wrong_all);

    hyt_key_t *key = ctx ? ctx->keys[c][hyt_bucket(bytes)] : NULL;
    hyt_online_info_t info;
    int online = key && hyt_online_key_info(key, &info) == 0;
    const char *chosen = online && info.chosen ? info.chosen : "-";
    int mine[3] = {name_hash(chosen), online ? info.settled_k : -1,
                   online ? (int)info.choosing_calls : -1};
    int lo[3], hi[3];
    PMPI_Allreduce(mine, lo, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(mine, hi, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int agree = memcmp(lo, hi, sizeof lo) == 0;
    CHECK(agree, "the ranks chose apart (winner hash %d..%d, k %d..%d)", lo[0], hi[0], lo[1],
          hi[1]);
    if (hyt_cfg.mode == HYT_MODE_HYBRID && online && info.candidates > 1)
        CHECK(info.chosen != NULL, "no algorithm chosen after %d calls (state %s)", calls,
              info.state);
    char refs[64] = "";
    if (online && info.reference_calls > 0)
        snprintf(refs, sizeof refs, ", %lld reference calls, %lld after hot", info.reference_calls,
                 info.reference_after_hot);
    if (rank == 0) {
        if (online)
            printf("online: chosen %s, settled k %d, state %s, %d candidates, %lld calls "
                   "choosing, %lld probing calls, %d choices, %d switches, %d re-probes, "
                   "settled %lld calls after hot, hot after %lld calls%s\n",
                   chosen, info.settled_k, info.state, info.candidates, info.choosing_calls,
                   info.probing_calls, info.choices, info.switches, info.reprobes,
                   info.calls_after_hot, info.hot_calls, refs);
        if (calls > 1) /* the first call (with the communicator's set-up) apart */
            printf("loop: first call %.3f us, then %.3f us/call, end %.3f us\n",
                   (t_max[0] - t0) * 1e6, (t_max[1] - t_max[0]) / (calls - 1) * 1e6,
                   (t_end - t_max[1]) * 1e6);
        printf("test_online_choose p=%d %s %zu B x %d calls: %ld wrong, %.3f us/call, ranks %s\n",
               p, argv[1], bytes, calls, wrong_all, per_call * 1e6,
               agree ? "agree" : "DISAGREE");
        fflush(stdout);
    }
    free(in);
    free(out);
    if (sum_op != MPI_SUM)
        MPI_Op_free(&sum_op);
    int rc = check_done("test_online_choose");
    MPI_Finalize();
    return rc;
}
