/* Radix priors: for many shapes (p, nodes, ppn, ports) and sizes, every
 * registered radix algorithm gets a k inside its range, the same k on every
 * call, and the k the design asks for: kring = ppn, recmult = power of two
 * >= ports, knomial large for small messages and shrinking with size,
 * composition = k-nomial prior over the node leaders. */
#include "topology/topology.h"
#include "test/check.h"

#include <string.h>

static const int ps[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 24, 63, 64, 100, 256, 1000, 1024};
static const int ppns[] = {1, 2, 3, 4, 8, 16};
static const int portss[] = {1, 2, 3, 4, 8};
static const size_t sizes[] = {0, 1, 8, 64, 512, 4096, 65536, 1 << 20, 16 << 20};
#define N(a) (sizeof a / sizeof a[0])

static int clampk(const hyt_alg_t *a, int k, int p)
{
    int hi = hyt_alg_k_max(a, p);
    if (hi > p && p >= a->k_min)
        hi = p;
    return k > hi ? (hi < a->k_min ? a->k_min : hi) : (k < a->k_min ? a->k_min : k);
}

/* Range and purity for every registered radix algorithm and many shapes. */
static void all_rows(void)
{
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        for (size_t pi = 0; pi < N(ps); pi++)
            for (size_t qi = 0; qi < N(ppns); qi++)
                for (size_t ri = 0; ri < N(portss); ri++)
                    for (size_t si = 0; si < N(sizes); si++) {
                        int p = ps[pi], ppn = ppns[qi] < p ? ppns[qi] : p;
                        hyt_topo_shape_t s = {p, (p + ppn - 1) / ppn, ppn, portss[ri]};
                        int k = hyt_topo_prior_k_shape(a, &s, sizes[si]);
                        int again = hyt_topo_prior_k_shape(a, &s, sizes[si]);
                        if (!hyt_alg_has_radix(a)) {
                            CHECK(k == 0, "%s has no radix: k %d", a->name, k);
                            continue;
                        }
                        int hi = hyt_alg_k_max(a, p);
                        CHECK(k >= a->k_min && k <= hi, "%s %s p=%d: k=%d outside %d..%d",
                              hyt_coll_name(a->coll), a->name, p, k, a->k_min, hi);
                        CHECK(k <= (p > a->k_min ? p : a->k_min), "%s p=%d k=%d > p", a->name,
                              p, k);
                        CHECK(k == again, "%s: prior not pure", a->name);
                    }
    }
}

static void kring_recmult(void)
{
    hyt_alg_t kring = {.name = "kring", .coll = HYT_COLL_ALLGATHER, .k_min = 1,
                       .k_max = HYT_K_P, .prior = HYT_PRIOR_PPN};
    hyt_alg_t recmult = {.name = "recmult", .coll = HYT_COLL_ALLREDUCE, .k_min = 2,
                         .k_max = HYT_K_P, .prior = HYT_PRIOR_PORTS};
    for (size_t pi = 0; pi < N(ps); pi++)
        for (size_t qi = 0; qi < N(ppns); qi++) {
            int p = ps[pi], ppn = ppns[qi] < p ? ppns[qi] : p;
            hyt_topo_shape_t s = {p, (p + ppn - 1) / ppn, ppn, 1};
            CHECK(hyt_topo_prior_k_shape(&kring, &s, 1024) == clampk(&kring, ppn, p),
                  "kring p=%d ppn=%d -> ppn", p, ppn);
        }
    static const int ports[][2] = {{1, 2}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {8, 8}, {9, 16}};
    for (size_t i = 0; i < N(ports); i++) {
        hyt_topo_shape_t s = {1024, 128, 8, ports[i][0]};
        CHECK(hyt_topo_prior_k_shape(&recmult, &s, 8) == ports[i][1], "recmult ports %d -> %d",
              ports[i][0], ports[i][1]);
        hyt_topo_shape_t small = {3, 3, 1, ports[i][0]};
        CHECK(hyt_topo_prior_k_shape(&recmult, &small, 8) == (ports[i][1] > 3 ? 3 : 2),
              "recmult clamped to p=3 (ports %d)", ports[i][0]);
    }
}

static void knomial_sizes(hyt_coll_t c)
{
    hyt_alg_t kn = {.name = "knomial", .coll = c, .k_min = 2, .k_max = HYT_K_P,
                    .prior = HYT_PRIOR_TREE};
    for (size_t pi = 0; pi < N(ps); pi++) {
        int p = ps[pi], prev = p + 1;
        hyt_topo_shape_t s = {p, p, 1, 1};
        for (size_t si = 0; si < N(sizes); si++) {
            int k = hyt_topo_prior_k_shape(&kn, &s, sizes[si]);
            CHECK(k <= prev, "%s knomial p=%d: k grows with size (%d after %d at %zu B)",
                  hyt_coll_name(c), p, k, prev, sizes[si]);
            prev = k;
        }
        /* an allgather's tree carries all p blocks: 8 B blocks are small up to p = 64 */
        if (p >= 16 && (c != HYT_COLL_ALLGATHER || p <= 64)) {
            int ks = hyt_topo_prior_k_shape(&kn, &s, 8);
            CHECK(ks >= 8, "%s knomial p=%d: 8 B wants a large k, got %d", hyt_coll_name(c), p,
                  ks);
            CHECK(hyt_topo_prior_k_shape(&kn, &s, 16 << 20) <= 3,
                  "%s knomial p=%d: 16 MiB wants k near 2", hyt_coll_name(c), p);
        }
    }
    /* p a power of the best k: no ranks outside; the tie-break prefers that */
    hyt_topo_shape_t s64 = {64, 64, 1, 1};
    int k = hyt_topo_prior_k_shape(&kn, &s64, 8);
    int full = 1;
    while (full * k <= 64)
        full *= k;
    CHECK(full == 64 || k >= 64, "%s knomial p=64 small: k=%d leaves ranks outside powers",
          hyt_coll_name(c), k);
}

static void composition(void)
{
    const hyt_alg_t *comp = hyt_alg_find(HYT_COLL_ALLREDUCE, "composition");
    const hyt_alg_t *kn = hyt_alg_find(HYT_COLL_ALLREDUCE, "knomial");
    CHECK(comp != NULL, "composition registered for allreduce");
    if (!comp || !kn || !hyt_alg_has_radix(comp))
        return;
    for (size_t si = 0; si < N(sizes); si++) {
        hyt_topo_shape_t s = {512, 64, 8, 2}, leaders = {64, 64, 1, 2};
        CHECK(hyt_topo_prior_k_shape(comp, &s, sizes[si]) ==
                  hyt_topo_prior_k_shape(kn, &leaders, sizes[si]),
              "composition prior = knomial prior over 64 leaders at %zu B", sizes[si]);
    }
    hyt_topo_shape_t one = {8, 1, 8, 1};
    CHECK(hyt_topo_prior_k_shape(comp, &one, 8) == 2, "one node: smallest k");
}

static void model(void)
{
    /* the model itself: more rounds cost more at 0 bytes, more copies at 1 MiB */
    CHECK(hyt_topo_model_us(2, 64, 0, HYT_COLL_BCAST, 1) >
              hyt_topo_model_us(8, 64, 0, HYT_COLL_BCAST, 1), "0 B: k=8 beats k=2");
    CHECK(hyt_topo_model_us(2, 64, 1 << 20, HYT_COLL_BCAST, 1) <
              hyt_topo_model_us(8, 64, 1 << 20, HYT_COLL_BCAST, 1), "1 MiB: k=2 beats k=8");
    CHECK(hyt_topo_model_us(4, 64, 8, HYT_COLL_ALLTOALL, 0) <
              hyt_topo_model_us(4, 64, 4096, HYT_COLL_ALLTOALL, 0),
          "exchange: more bytes cost more");
    CHECK(hyt_topo_model_us(2, 64, 0, HYT_COLL_ALLTOALL, 0) >
              hyt_topo_model_us(8, 64, 0, HYT_COLL_ALLTOALL, 0), "exchange 0 B: k=8 beats 2");
    /* the collective list's properties shape the model (HYT_CP_*): no root,
     * a tree runs twice; an op adds the reduction; Allgather's tree carries
     * every block, its exchange's block grows; Alltoall's Bruck forwards */
    CHECK(hyt_topo_model_us(4, 64, 4096, HYT_COLL_ALLREDUCE, 1) >
              hyt_topo_model_us(4, 64, 4096, HYT_COLL_REDUCE, 1),
          "tree: allreduce (reduce + bcast) costs more than reduce");
    CHECK(hyt_topo_model_us(4, 64, 4096, HYT_COLL_REDUCE, 1) >
              hyt_topo_model_us(4, 64, 4096, HYT_COLL_BCAST, 1),
          "tree: reduce (a reduction per byte) costs more than bcast");
    CHECK(hyt_topo_model_us(4, 64, 4096, HYT_COLL_ALLGATHER, 1) >
              2 * hyt_topo_model_us(4, 64, 4096, HYT_COLL_BCAST, 1),
          "tree: allgather's bcast carries all blocks");
    CHECK(hyt_topo_model_us(4, 64, 4096, HYT_COLL_REDUCE_SCATTER_BLOCK, 0) >
              hyt_topo_model_us(4, 64, 4096, HYT_COLL_ALLTOALL, 0),
          "exchange: reduce_scatter_block reduces what alltoall only forwards");
    CHECK(hyt_topo_model_us(4, 64, 4096, HYT_COLL_ALLTOALL, 0) >
              hyt_topo_model_us(4, 64, 4096, HYT_COLL_ALLTOALLV, 0),
          "exchange: Bruck forwards p/k even blocks; uneven (v) blocks are not forwarded");
    /* the context entry point reads the shape from the communicator */
    hyt_comm_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.size = 64;
    ctx.nodes = 8;
    ctx.ppn = ctx.ppn_min = 8;
    hyt_alg_t kring = {.name = "kring", .coll = HYT_COLL_BCAST, .k_min = 1, .k_max = HYT_K_P,
                       .prior = HYT_PRIOR_PPN};
    CHECK(hyt_topo_prior_k(&kring, &ctx, 100) == 8, "prior from a context: kring = ppn 8");
}

int main(void)
{
    all_rows();
    kring_recmult();
    knomial_sizes(HYT_COLL_BCAST);
    knomial_sizes(HYT_COLL_REDUCE);
    knomial_sizes(HYT_COLL_ALLREDUCE);
    knomial_sizes(HYT_COLL_ALLGATHER);
    composition();
    model();
    return check_done("test_topo_prior");
}
