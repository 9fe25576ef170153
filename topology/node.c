/* Node model: world node map, node hardware, hostnames and network groups.
 *
 * Ranks sharing memory (MPI_Comm_split_type SHARED; a simulated host under
 * SimGrid) form a node; a node is named by the smallest world rank on it (its
 * leader) and numbered by first appearance.  Built once at init:
 *   1. one allgather of node leaders -> hyt_world_node_of;
 *   2. node hardware from hwloc (loaded once per process, not under SimGrid
 *      where it would see the simulating host) and HYTUNE_NODE_HW, then one
 *      allreduce so every rank uses the same (smallest) value of each fact;
 *   3. leaders' hostnames and Slurm addresses gathered at world rank 0, which
 *      assigns network groups and broadcasts them (one decision, one answer).
 * Every communicator's node model is then derived locally (src/comm.c). */
#include "topology/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef HYT_SMPI
#include <hwloc.h>
#endif

int hyt_world_size, hyt_world_rank;
int *hyt_world_node_of;
int hyt_world_nodes;

static hyt_node_hw_t node_hw;
static int *node_group;       /* world node -> group */
static int ngroups;
static const char *group_src = "one group per node";
static char **node_names;     /* world rank 0 only: hostname per node */
static char **group_paths;    /* world rank 0 only: group path per node (or NULL) */

static int build_node_map(void)
{
    MPI_Comm shm;
    /* SimGrid computes the split from the ranks that reached it: line them up first */
    PMPI_Barrier(MPI_COMM_WORLD);
    int rc = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS)
        return rc;
    int leader = hyt_world_rank, mine;
    PMPI_Allreduce(&leader, &mine, 1, MPI_INT, MPI_MIN, shm);
    PMPI_Comm_free(&shm);
    int *leaders = malloc((size_t)hyt_world_size * sizeof *leaders);
    hyt_world_node_of = malloc((size_t)hyt_world_size * sizeof *hyt_world_node_of);
    int *index = malloc((size_t)hyt_world_size * sizeof *index);
    if (!leaders || !hyt_world_node_of || !index) {
        free(leaders);
        free(index);
        free(hyt_world_node_of);
        hyt_world_node_of = NULL;
        return MPI_ERR_NO_MEM;
    }
    /* Gather + Bcast rather than Allgather: some MPI libraries' default
     * Allgather sends O(p^2) messages (SimGrid's took 24 s of simulator time
     * at 128 ranks), and this runs once in every job's MPI_Init. */
    rc = PMPI_Gather(&mine, 1, MPI_INT, leaders, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(leaders, hyt_world_size, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < hyt_world_size; i++)
        index[i] = -1;
    hyt_world_nodes = 0;
    for (int i = 0; i < hyt_world_size; i++) {
        int l = leaders[i];
        if (index[l] < 0)
            index[l] = hyt_world_nodes++;
        hyt_world_node_of[i] = index[l];
    }
    free(leaders);
    free(index);
    return rc;
}

static int world_ranks_on_node(int node)
{
    int n = 0;
    for (int i = 0; i < hyt_world_size; i++)
        n += hyt_world_node_of[i] == node;
    return n;
}

static int is_node_leader(void)
{
    int me = hyt_world_node_of[hyt_world_rank];
    for (int i = 0; i < hyt_world_rank; i++)
        if (hyt_world_node_of[i] == me)
            return 0;
    return 1;
}

/* Local facts of this node, before agreement. */
static void local_hw(void)
{
    hyt_hw_default(&node_hw, world_ranks_on_node(hyt_world_node_of[hyt_world_rank]));
#ifdef HYT_SMPI
    /* hwloc would describe the host running the simulation */
    node_hw.src[HYT_HW_CORES] = node_hw.src[HYT_HW_PUS] = HYT_SRC_MPI;
#else
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0) {
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        if (hwloc_topology_load(t) == 0) {
            hyt_hw_from_hwloc(t, &node_hw);
            if (node_hw.val[HYT_HW_PORTS] == 0 && !hyt_cfg.node_hw) {
                hyt_info(HYT_TOPIC_TOPO, "hwloc sees no network device (a container?); "
                         "assuming 1 port per node (set HYTUNE_NODE_HW=ports=N to say more)");
            }
        }
        hwloc_topology_destroy(t);
    }
    if (node_hw.val[HYT_HW_PORTS] == 0) {
        node_hw.val[HYT_HW_PORTS] = 1;
        node_hw.src[HYT_HW_PORTS] = HYT_SRC_DEFAULT;
    }
#endif
    char err[512];
    if (hyt_hw_parse(hyt_cfg.node_hw, &node_hw, err, sizeof err) != 0)
        hyt_warn(HYT_TOPIC_TOPO, "%s", err);
}

/* Every rank takes the smallest value of each fact, so decisions agree. */
static int agree_hw(void)
{
    int v[2 * HYT_HW_NFACTS], r[2 * HYT_HW_NFACTS];
    for (int f = 0; f < HYT_HW_NFACTS; f++) {
        v[f] = node_hw.val[f];
        v[HYT_HW_NFACTS + f] = -node_hw.val[f];
    }
    int rc = PMPI_Allreduce(v, r, 2 * HYT_HW_NFACTS, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int f = 0; rc == MPI_SUCCESS && f < HYT_HW_NFACTS; f++) {
        node_hw.val[f] = r[f];
        node_hw.uniform[f] = r[f] == -r[HYT_HW_NFACTS + f];
    }
    return rc;
}

/* World rank 0: names[] and addrs[] of every node -> group per node. */
static void assign_groups(char **addrs)
{
    int n = hyt_world_nodes;
    char err[600];
    group_paths = calloc((size_t)n, sizeof *group_paths);
    if (!group_paths)
        return;
    if (hyt_cfg.network_file) {
        if (hyt_groups_parse_file(hyt_cfg.network_file, n, (const char *const *)node_names,
                                  group_paths, err, sizeof err) != 0) {
            hyt_warn(HYT_TOPIC_TOPO, "%s; network groups come from the next source", err);
        } else {
            int missing = 0, first = -1;
            for (int i = 0; i < n; i++)
                if (!group_paths[i] && !missing++)
                    first = i;
            if (missing)
                hyt_warn(HYT_TOPIC_TOPO, "HYTUNE_NETWORK_FILE=%s has no line for %d "
                         "host(s), first %s; each is put in a group of its own",
                         hyt_cfg.network_file, missing, node_names[first]);
            group_src = "HYTUNE_NETWORK_FILE";
        }
    }
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= group_paths[i] != NULL;
    for (int i = 0; !any && i < n; i++)
        if ((group_paths[i] = hyt_groups_slurm_path(addrs[i])) != NULL)
            group_src = "SLURM_TOPOLOGY_ADDR";
    ngroups = hyt_groups_index(n, group_paths, node_group);
}

/* Leaders send "hostname\nslurm-address" to world rank 0. */
static int gather_names(char **buf, int **lens, int **displs)
{
    char me[MPI_MAX_PROCESSOR_NAME + 256] = "";
    if (is_node_leader()) {
        char host[MPI_MAX_PROCESSOR_NAME];
        int hl = 0;
        PMPI_Get_processor_name(host, &hl);
        const char *addr = getenv("SLURM_TOPOLOGY_ADDR");
        snprintf(me, sizeof me, "%.*s\n%.255s", hl, host, addr ? addr : "");
    }
    int len = (int)strlen(me) + (me[0] ? 1 : 0), total = 0;
    int root = hyt_world_rank == 0;
    *lens = root ? malloc((size_t)hyt_world_size * sizeof **lens) : NULL;
    *displs = root ? malloc((size_t)hyt_world_size * sizeof **displs) : NULL;
    if (root && (!*lens || !*displs))
        return MPI_ERR_NO_MEM; /* rank 0 only: the job cannot continue anyway */
    int rc = PMPI_Gather(&len, 1, MPI_INT, *lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; root && i < hyt_world_size; i++) {
        (*displs)[i] = total;
        total += (*lens)[i];
    }
    *buf = root ? malloc((size_t)total + 1) : NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Gatherv(me, len, MPI_CHAR, *buf, *lens, *displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    return rc;
}

static void split_names(const char *buf, const int *lens, const int *displs, char **addrs)
{
    int node = 0;
    node_names = calloc((size_t)hyt_world_nodes, sizeof *node_names);
    for (int i = 0; node_names && i < hyt_world_size && node < hyt_world_nodes; i++) {
        if (lens[i] == 0)
            continue;
        const char *s = buf + displs[i], *nl = strchr(s, '\n');
        node_names[node] = strndup(s, (size_t)(nl - s));
        addrs[node] = nl[1] ? strdup(nl + 1) : NULL;
        node++;
    }
}

static int build_groups(void)
{
    int n = hyt_world_nodes;
    char *buf = NULL;
    int *lens = NULL, *displs = NULL;
    node_group = malloc((size_t)(n + 2) * sizeof *node_group);
    for (int i = 0; node_group && i < n; i++)
        node_group[i] = i;
    ngroups = n;
    int rc = gather_names(&buf, &lens, &displs);
    if (rc == MPI_SUCCESS && hyt_world_rank == 0 && node_group) {
        char **addrs = calloc((size_t)n, sizeof *addrs);
        if (addrs && buf) {
            split_names(buf, lens, displs, addrs);
            if (node_names)
                assign_groups(addrs);
        }
        for (int i = 0; addrs && i < n; i++)
            free(addrs[i]);
        free(addrs);
        node_group[n] = ngroups;
        node_group[n + 1] = strcmp(group_src, "HYTUNE_NETWORK_FILE") == 0 ? 1
                            : strcmp(group_src, "SLURM_TOPOLOGY_ADDR") == 0 ? 2 : 0;
    }
    free(buf);
    free(lens);
    free(displs);
    if (!node_group)
        return MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(node_group, n + 2, MPI_INT, 0, MPI_COMM_WORLD);
    static const char *const srcs[] = {"one group per node", "HYTUNE_NETWORK_FILE",
                                       "SLURM_TOPOLOGY_ADDR"};
    ngroups = node_group[n];
    group_src = srcs[node_group[n + 1] % 3];
    return rc;
}

int hyt_topo_init(void)
{
    PMPI_Comm_size(MPI_COMM_WORLD, &hyt_world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &hyt_world_rank);
    int rc = build_node_map();
    if (rc != MPI_SUCCESS)
        return rc;
    local_hw();
    rc = agree_hw();
    if (rc == MPI_SUCCESS)
        rc = build_groups();
    return rc;
}

static void free_strings(char ***v, int n)
{
    for (int i = 0; *v && i < n; i++)
        free((*v)[i]);
    free(*v);
    *v = NULL;
}

void hyt_topo_finalize(void)
{
    free_strings(&node_names, hyt_world_nodes);
    free_strings(&group_paths, hyt_world_nodes);
    free(node_group);
    node_group = NULL;
    free(hyt_world_node_of);
    hyt_world_node_of = NULL;
}

const hyt_node_hw_t *hyt_topo_hw(void)
{
    return &node_hw;
}

int hyt_topo_node_group(int world_node)
{
    if (!node_group || world_node < 0 || world_node >= hyt_world_nodes)
        return world_node;
    return node_group[world_node];
}

int hyt_topo_ngroups(void)
{
    return node_group ? ngroups : hyt_world_nodes;
}

int hyt_topo_ports(void)
{
    return node_hw.val[HYT_HW_PORTS] > 0 ? node_hw.val[HYT_HW_PORTS] : 1;
}

/* ---- `hytune topo` ---------------------------------------------------------- */
#define PRINT_MAX 32 /* nodes and groups listed one per line; the rest summed up */

static void print_hw(FILE *out)
{
    for (int f = 0; f < HYT_HW_NFACTS; f++)
        fprintf(out, "  %-9s %d%s (from %s)\n", hyt_hw_fact_name((hyt_hw_fact_t)f),
                node_hw.val[f], node_hw.uniform[f] ? "" : " (smallest; nodes differ)",
                hyt_src_name(node_hw.src[f]));
}

static void print_nodes(FILE *out)
{
    fprintf(out, "nodes (hostname from MPI_Get_processor_name, ranks, network group):\n");
    for (int n = 0; n < hyt_world_nodes && n < PRINT_MAX; n++)
        fprintf(out, "  node %-4d %-24s ranks %-4d group %d%s%s\n", n,
                node_names && node_names[n] ? node_names[n] : "?", world_ranks_on_node(n),
                hyt_topo_node_group(n), group_paths && group_paths[n] ? " " : "",
                group_paths && group_paths[n] ? group_paths[n] : "");
    if (hyt_world_nodes > PRINT_MAX)
        fprintf(out, "  ... %d more nodes\n", hyt_world_nodes - PRINT_MAX);
}

/* `hytune topo`: print the node model (out NULL: ranks other than 0). */
int hyt_topo_print(FILE *out)
{
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    if (!out)
        return 0;
    if (!ctx) {
        fprintf(out, "hytune topo: hytune is off (HYTUNE_MODE=off); no node model\n");
        return 1;
    }
    fprintf(out, "ranks %d, nodes %d (ranks sharing memory, MPI_Comm_split_type)\n", ctx->size,
            ctx->nodes);
    fprintf(out, "ppn %d%s, node-consecutive %s\n", ctx->ppn,
            ctx->ppn != ctx->ppn_min ? " (not uniform)" : " (uniform)",
            ctx->node_consecutive ? "yes" : "no");
    if (ctx->ppn != ctx->ppn_min)
        fprintf(out, "  (smallest ppn %d)\n", ctx->ppn_min);
    fprintf(out, "node hardware (agreed over all nodes):\n");
    print_hw(out);
    fprintf(out, "network groups: %d (from %s)\n", hyt_topo_ngroups(), group_src);
    print_nodes(out);
    return 0;
}
