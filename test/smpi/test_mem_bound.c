/* The scratch bound of offline/memory.c against what every registered
 * algorithm really holds after a call: for each collective, algorithm and
 * k in {1, 2, 4, 8, p} (those it takes), at 4 B, 4 KiB and 256 KiB, one call
 * on MPI_COMM_WORLD (the tuner's buffers and types: MPI_INT/MPI_SUM for
 * reductions, bytes otherwise; MPI_COMM_WORLD's first reserve released
 * before the first), then the scratch of the world's context and
 * of a composition's leader communicator is released and compared with
 * hyt_mem_scratch; no kernel asked for scratch beyond what the reserve held
 * (the bounds of algorithms/scratch.c cover it).  The tuner's model and the
 * runtime's reserve are one: a kernel that ran (or declined after the
 * reserve) holds exactly the model's bound, a composition at most it (its
 * leaders are fewer than p).  Run under SimGrid with any number of ranks
 * and nodes. */
#include "offline/memory.c"
#include "test/check.h"

#include <stdlib.h>
#include <string.h>

static size_t held_after(MPI_Comm comm)
{
    hyt_comm_t *ctx = hyt_comm_get(comm);
    size_t held = hyt_scratch_release(ctx);
    if (ctx->leader_comm != MPI_COMM_NULL)
        held += hyt_scratch_release(hyt_comm_get(ctx->leader_comm));
    return held;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, rank, calls = 0, exact = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* MPI_COMM_WORLD's first reserve, held from MPI_Init (docs/memory.md),
     * is no call's: released before the first call is compared */
    held_after(MPI_COMM_WORLD);
    static const uint64_t sizes[] = {4, 4096, 256 << 10};
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *alg = &hyt_algs[i];
        /* collectives whose call the tuner's buffers describe (no per-rank
         * counts, no topology communicator, data to move) */
        if (!hyt_coll_tunable(alg->coll) ||
            (hyt_coll_props(alg->coll) & (HYT_CP_VECTOR | HYT_CP_NEIGHBOR | HYT_CP_NO_COUNT)))
            continue;
        int ks[] = {1, 2, 4, 8, p}, nk = hyt_alg_has_radix(alg) ? 5 : 1;
        for (int q = 0; q < nk; q++) {
            int k = hyt_alg_has_radix(alg) ? ks[q] : 0;
            if (k && (k < alg->k_min || k > hyt_alg_k_max(alg, p)))
                continue;
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                int red = hyt_coll_has_op(alg->coll);
                size_t len = (size_t)hyt_mem_buffer(alg->coll, sizes[s], p);
                char *sb = malloc(len), *rb = malloc(len);
                memset(sb, 1, len);
                memset(rb, 0, len);
                hyt_args_t a = {.coll = alg->coll, .sbuf = sb, .rbuf = rb,
                                .type = red ? MPI_INT : MPI_BYTE, .op = MPI_SUM,
                                .comm = MPI_COMM_WORLD};
                a.stype = a.type;
                a.count = a.scount = (int)(red ? sizes[s] / 4 : sizes[s]);
                hyt_fallback_t fb;
                int rc = hyt_run_alg(&a, alg, k, &fb);
                CHECK(rc == MPI_SUCCESS, "%s:%s k=%d %llu B: rc %d", hyt_coll_name(alg->coll),
                      alg->name, k, (unsigned long long)sizes[s], rc);
                hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD), *lc = NULL;
                if (ctx->leader_comm != MPI_COMM_NULL)
                    lc = hyt_comm_get(ctx->leader_comm);
                /* the reserve (algorithms/scratch.c) covered every request */
                CHECK(ctx->beyond == 0 && (!lc || lc->beyond == 0),
                      "%s:%s k=%d %llu B on %d ranks, rank %d: %llu requests beyond the "
                      "reserve", hyt_coll_name(alg->coll), alg->name, k,
                      (unsigned long long)sizes[s], p, rank,
                      (unsigned long long)(ctx->beyond + (lc ? lc->beyond : 0)));
                ctx->beyond = 0;
                if (lc)
                    lc->beyond = 0;
                size_t held = held_after(MPI_COMM_WORLD);
                uint64_t bound = hyt_mem_scratch(alg->coll, alg, k, sizes[s], p);
                CHECK(held <= bound, "%s:%s k=%d %llu B on %d ranks, rank %d: scratch %zu > "
                      "bound %llu", hyt_coll_name(alg->coll), alg->name, k,
                      (unsigned long long)sizes[s], p, rank, held, (unsigned long long)bound);
                int reserved = fb == HYT_FB_NONE || fb == HYT_FB_ALGORITHM;
                if (reserved && !(alg->flags & (HYT_ALG_NATIVE | HYT_ALG_COMPOSITION))) {
                    CHECK(held == bound, "%s:%s k=%d %llu B on %d ranks, rank %d: holds %zu, "
                          "the tuner's model counts %llu", hyt_coll_name(alg->coll), alg->name,
                          k, (unsigned long long)sizes[s], p, rank, held,
                          (unsigned long long)bound);
                    exact++;
                }
                calls++;
                free(sb);
                free(rb);
            }
        }
    }
    if (rank == 0)
        printf("test_mem_bound: %d calls on %d ranks, %d held the model's bound exactly\n",
               calls, p, exact);
    CHECK(exact > calls / 2, "only %d of %d calls compared exactly", exact, calls);
    MPI_Finalize();
    return check_done("test_mem_bound");
}
