/* Node model under SimGrid: nodes, ppn, node-consecutive and the node of
 * every rank against MPI_Get_processor_name, network groups and ports agreed
 * on all ranks, radix priors identical everywhere, and `hytune topo` output.
 * Usage: test_topo_model NODES PPN PPN_MIN CONSECUTIVE GROUPS PORTS */
#include "src/hyt.h"
#include "topology/topology.h"
#include "test/check.h"

#include <stdlib.h>
#include <string.h>

#define NAME 64

int hyt_topo_print(FILE *out);

static void check_node_of(const hyt_comm_t *ctx)
{
    char me[MPI_MAX_PROCESSOR_NAME] = "";
    int len, p = ctx->size;
    MPI_Get_processor_name(me, &len);
    char *all = calloc((size_t)p, NAME);
    MPI_Allgather(me, NAME, MPI_CHAR, all, NAME, MPI_CHAR, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++)
        for (int j = i + 1; j < p; j++) {
            int same_host = strncmp(all + i * NAME, all + j * NAME, NAME) == 0;
            CHECK(same_host == (ctx->node_of[i] == ctx->node_of[j]),
                  "ranks %d (%s) and %d (%s): node %d vs %d", i, all + i * NAME, j,
                  all + j * NAME, ctx->node_of[i], ctx->node_of[j]);
        }
    free(all);
    /* and against the ranks sharing memory (MPI_Comm_split_type SHARED):
     * the node model names nodes by host without that split */
    MPI_Comm shm;
    MPI_Group g, wg;
    int zero = 0, leader, *lead = calloc((size_t)p, sizeof *lead);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_group(shm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &zero, wg, &leader);
    MPI_Allgather(&leader, 1, MPI_INT, lead, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++)
        for (int j = i + 1; j < p; j++)
            CHECK((lead[i] == lead[j]) == (ctx->node_of[i] == ctx->node_of[j]),
                  "ranks %d and %d: shared-memory leaders %d and %d, nodes %d and %d", i, j,
                  lead[i], lead[j], ctx->node_of[i], ctx->node_of[j]);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Comm_free(&shm);
    free(lead);
}

/* Every rank must hold the same value. */
static void agreed(int v, const char *what)
{
    int lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "%s differs between ranks (%d..%d)", what, lo, hi);
}

static void check_groups(int want)
{
    int n = hyt_topo_ngroups();
    CHECK(n == want, "network groups %d, want %d", n, want);
    agreed(n, "group count");
    for (int i = 0; i < hyt_world_nodes; i++) {
        int g = hyt_topo_node_group(i);
        CHECK(g >= 0 && g < n, "node %d group %d out of range", i, g);
        agreed(g, "group of a node");
    }
}

static void check_priors(const hyt_comm_t *ctx)
{
    static const size_t sizes[] = {8, 4096, 1 << 20};
    for (int i = 0; i < hyt_nalgs; i++)
        for (int s = 0; s < 3; s++) {
            int k = hyt_topo_prior_k(&hyt_algs[i], ctx, sizes[s]);
            agreed(k, hyt_algs[i].name);
        }
}

/* Every rank calls hyt_topo_print (rank 0 gathers the nodes' names);
 * rank 0's output is checked. */
static void check_print(void)
{
    if (hyt_world_rank != 0) {
        CHECK(hyt_topo_print(NULL) == 0, "hyt_topo_print succeeds");
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/hyt-topo-print-%d.txt", hyt_world_rank);
    FILE *f = fopen(path, "w+");
    CHECK(f && hyt_topo_print(f) == 0, "hyt_topo_print succeeds");
    if (!f)
        return;
    rewind(f);
    char text[8192] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    remove(path);
    static const char *const want[] = {"nodes", "ppn", "node-consecutive", "packages",
                                       "numas", "cores", "ports", "gpus", "network groups",
                                       "node-0", "from "};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(strstr(text, want[i]) != NULL, "topo output mentions %s:\n%s", want[i], text);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 7) {
        fprintf(stderr, "usage: %s NODES PPN PPN_MIN CONSECUTIVE GROUPS PORTS\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int nodes = atoi(argv[1]), ppn = atoi(argv[2]), ppn_min = atoi(argv[3]);
    int consecutive = atoi(argv[4]), groups = atoi(argv[5]), ports = atoi(argv[6]);
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    CHECK(ctx != NULL, "hytune is active");
    if (ctx) {
        CHECK(ctx->nodes == nodes && hyt_world_nodes == nodes, "nodes %d, want %d", ctx->nodes,
              nodes);
        CHECK(ctx->ppn == ppn && ctx->ppn_min == ppn_min, "ppn %d..%d, want %d..%d",
              ctx->ppn_min, ctx->ppn, ppn_min, ppn);
        CHECK(ctx->node_consecutive == consecutive, "node-consecutive %d, want %d",
              ctx->node_consecutive, consecutive);
        check_node_of(ctx);
        check_priors(ctx);
        check_print();
    }
    check_groups(groups);
    CHECK(hyt_topo_ports() == ports, "ports %d, want %d", hyt_topo_ports(), ports);
    const hyt_node_hw_t *hw = hyt_topo_hw();
    CHECK(hw->src[HYT_HW_CORES] == HYT_SRC_MPI || hw->src[HYT_HW_CORES] == HYT_SRC_ENV,
          "simulated cores come from MPI or HYTUNE_NODE_HW, not from the simulating host");
    int failed = check_failures, all;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = hyt_world_rank == 0 ? check_done("test_topo_model") : 0;
    MPI_Finalize();
    return all ? 1 : rc;
}
