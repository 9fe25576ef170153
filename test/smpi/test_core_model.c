/* The runtime core under many simulated ranks (SimGrid SMPI).
 *
 * Run with 64 ranks on 16 hosts x 4 (hostfile lines node-N:4).  Checked on
 * every rank: the node model of the world, of a dup, of splits that keep,
 * interleave or unbalance the node layout (nodes, ppn, ppn_min,
 * node-consecutive, my node, my rank on the node); collectives on each give
 * PMPI's results and are counted; after MPI_Finalize the rank's own stats
 * JSON (HYTUNE_STATS with %r) names this rank and the world's shape.  Rank 0
 * prints a summary with simulated times, which the test line runs twice and
 * compares (the simulation must be deterministic).
 * Usage: test_core_model HOSTS PPN */
#include "src/hyt.h"
#include "test/check.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static int hosts, ppn;

typedef struct want {
    int nodes, ppn, ppn_min, consecutive;
} want_t;

/* Expected model of comm from its members' world ranks (node = world / ppn). */
static want_t expected(MPI_Comm comm, int *my_node, int *node_rank)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    /* members' world ranks by group translation: local, no traffic (SMPI's
     * default allgather costs O(p^2) simulator work per rank) */
    int *world = malloc((size_t)p * 2 * sizeof *world);
    MPI_Group g, wg;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < p; i++)
        world[p + i] = i;
    MPI_Group_translate_ranks(g, p, world + p, wg, world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int first[1024], count[1024], order = 0;
    for (int n = 0; n < hosts; n++)
        first[n] = -1, count[n] = 0;
    want_t w = {0, 0, p, 1};
    int prev = -1;
    for (int i = 0; i < p; i++) {
        int node = world[i] / ppn;
        if (first[node] < 0)
            first[node] = order++;
        if (first[node] < prev)
            w.consecutive = 0;
        prev = first[node];
        if (i == me)
            *my_node = first[node], *node_rank = count[node];
        count[node]++;
    }
    w.nodes = order;
    for (int n = 0; n < hosts; n++)
        if (count[n]) {
            w.ppn = count[n] > w.ppn ? count[n] : w.ppn;
            w.ppn_min = count[n] < w.ppn_min ? count[n] : w.ppn_min;
        }
    w.consecutive = w.consecutive && w.ppn == w.ppn_min;
    free(world);
    return w;
}

static void check_model(MPI_Comm comm, const char *name, int want_nodes, int want_ppn)
{
    int my_node = -1, node_rank = -1;
    want_t w = expected(comm, &my_node, &node_rank);
    hyt_comm_t *ctx = hyt_comm_get(comm);
    CHECK(ctx != NULL, "%s: no context", name);
    if (!ctx)
        return;
    CHECK(ctx->nodes == w.nodes && ctx->ppn == w.ppn && ctx->ppn_min == w.ppn_min &&
              ctx->node_consecutive == w.consecutive,
          "%s: model nodes %d ppn %d..%d consecutive %d, want %d %d..%d %d", name, ctx->nodes,
          ctx->ppn_min, ctx->ppn, ctx->node_consecutive, w.nodes, w.ppn_min, w.ppn,
          w.consecutive);
    CHECK(ctx->my_node == my_node && ctx->node_rank == node_rank,
          "%s: my node %d rank %d, want %d %d", name, ctx->my_node, ctx->node_rank, my_node,
          node_rank);
    if (want_nodes)
        CHECK(ctx->nodes == want_nodes && ctx->ppn == want_ppn, "%s: %d x %d, want %d x %d",
              name, ctx->nodes, ctx->ppn, want_nodes, want_ppn);
}

/* Collectives through hytune against PMPI; returns the simulated time of
 * the MPI_Allreduce. */
static double check_results(MPI_Comm comm, const char *name)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    enum { N = 300 };
    int in[N], a[N], b[N];
    for (int i = 0; i < N; i++)
        in[i] = r * 31 + i;
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    MPI_Allreduce(in, a, N, MPI_INT, MPI_SUM, comm);
    double dt = MPI_Wtime() - t0;
    PMPI_Allreduce(in, b, N, MPI_INT, MPI_SUM, comm);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s: allreduce differs from PMPI", name);
    memcpy(a, in, sizeof a);
    memcpy(b, in, sizeof b);
    MPI_Bcast(a, N, MPI_INT, p - 1, comm);
    PMPI_Bcast(b, N, MPI_INT, p - 1, comm);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s: bcast differs from PMPI", name);
    int *ga = malloc((size_t)p * 4 * sizeof *ga), *gb = malloc((size_t)p * 4 * sizeof *gb);
    MPI_Allgather(in, 4, MPI_INT, ga, 4, MPI_INT, comm);
    PMPI_Allgather(in, 4, MPI_INT, gb, 4, MPI_INT, comm);
    CHECK(memcmp(ga, gb, (size_t)p * 4 * sizeof *ga) == 0, "%s: allgather differs", name);
    free(ga);
    free(gb);
    hyt_comm_t *ctx = hyt_comm_get(comm);
    int b1 = hyt_bucket(N * sizeof(int));
    CHECK(ctx && ctx->keys[HYT_COLL_ALLREDUCE][b1] &&
              ctx->keys[HYT_COLL_ALLREDUCE][b1]->calls == 1,
          "%s: allreduce not counted once", name);
    return dt;
}

static void check_stats(int rank, int world)
{
    const char *pat = getenv("HYTUNE_STATS");
    if (!pat || !strstr(pat, "%r"))
        return;
    char path[512];
    const char *r = strstr(pat, "%r");
    snprintf(path, sizeof path, "%.*s%d%s.json", (int)(r - pat), pat, rank, r + 2);
    json_object *root = json_object_from_file(path), *v, *comms;
    CHECK(root != NULL, "rank %d: cannot read %s", rank, path);
    if (!root)
        return;
    CHECK(json_object_object_get_ex(root, "rank", &v) && json_object_get_int(v) == rank,
          "%s: wrong rank", path);
    CHECK(json_object_object_get_ex(root, "world_size", &v) && json_object_get_int(v) == world,
          "%s: wrong world size", path);
    int found = 0;
    if (json_object_object_get_ex(root, "communicators", &comms))
        for (size_t i = 0; i < json_object_array_length(comms); i++) {
            json_object *c = json_object_array_get_idx(comms, i), *s, *n, *q;
            if (json_object_object_get_ex(c, "size", &s) && json_object_get_int(s) == world &&
                json_object_object_get_ex(c, "nodes", &n) && json_object_get_int(n) == hosts &&
                json_object_object_get_ex(c, "ppn", &q) && json_object_get_int(q) == ppn)
                found++;
        }
    CHECK(found >= 2, "%s: %d communicators of %d ranks on %d x %d (world and dup)", path,
          found, world, hosts, ppn);
    json_object_put(root);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    hosts = argc > 2 ? atoi(argv[1]) : 16;
    ppn = argc > 2 ? atoi(argv[2]) : 4;
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK(p == hosts * ppn && hosts <= 1024, "run with %d x %d ranks, not %d", hosts, ppn, p);
    CHECK(hyt_world_nodes == hosts && hyt_world_node_of &&
              hyt_world_node_of[rank] == rank / ppn,
          "world node map: %d nodes, rank %d on node %d", hyt_world_nodes, rank,
          hyt_world_node_of ? hyt_world_node_of[rank] : -1);
    MPI_Comm dup, one_per_node, two_nodes, interleaved, uneven;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % ppn, rank, &one_per_node);
    MPI_Comm_split(MPI_COMM_WORLD, rank / (2 * ppn), rank, &two_nodes);
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % ppn) * hosts + rank / ppn, &interleaved);
    MPI_Comm_split(MPI_COMM_WORLD, rank < ppn + ppn / 2, rank, &uneven);
    check_model(MPI_COMM_WORLD, "world", hosts, ppn);
    check_model(dup, "dup", hosts, ppn);
    check_model(one_per_node, "one-per-node", hosts, 1);
    check_model(two_nodes, "two-nodes", 2, ppn);
    check_model(interleaved, "interleaved", hosts, ppn);
    check_model(uneven, "uneven", 0, 0);
    check_model(MPI_COMM_SELF, "self", 1, 1);
    hyt_comm_t *il = hyt_comm_get(interleaved);
    CHECK(il && (ppn == 1 || !il->node_consecutive), "interleaved ranks taken as consecutive");
    double t_world = check_results(MPI_COMM_WORLD, "world");
    double t_dup = check_results(dup, "dup");
    double t_split = check_results(one_per_node, "one-per-node");
    check_results(interleaved, "interleaved");
    check_results(uneven, "uneven");
    if (rank == 0)
        printf("test_core_model: %d ranks, %d nodes x %d; allreduce 1200 B: world %.9f s, "
               "dup %.9f s, one-per-node %.9f s (simulated)\n",
               p, hosts, ppn, t_world, t_dup, t_split);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&one_per_node);
    MPI_Comm_free(&two_nodes);
    MPI_Comm_free(&interleaved);
    MPI_Comm_free(&uneven);
    int mine = check_failures, any = 0;
    PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    check_stats(rank, p);
    if (any && !check_failures)
        check_failures = 1;
    return rank == 0 || check_failures ? check_done("test_core_model") : 0;
}
