/* Node model: world node map, node hardware, hostnames and network groups.
 *
 * Ranks on one host (the same MPI_Get_processor_name: the ranks that share
 * memory, a simulated host under SimGrid) form a node; a node is named by
 * the smallest world rank on it (its leader) and numbered by first
 * appearance.  Built once at init from one record of fixed size per rank,
 * which MPI_Init's settings step carries to every rank with its own
 * exchange (src/agree.h: the rider of hyt_agree_run; the node model costs
 * no exchange of its own), from which every rank decides alike (world rank
 * 0 decides and broadcasts its answer when a network file or Slurm sets
 * groups):
 *   1. each rank's record (hyt_topo_record, local): the hash of its host's
 *      name, the name's length, node hardware from hwloc (loaded once per
 *      process, not under SimGrid where it would see the simulating host)
 *      and HYTUNE_NODE_HW;
 *   2. from every rank's record every rank finds each rank's leader (the
 *      smallest rank whose host name hashes alike), numbers the nodes and
 *      takes the smallest value of each fact;
 *   3. network groups: one per node, decided alike on every rank, unless
 *      HYTUNE_NETWORK_FILE is set or a node has a Slurm address: then the
 *      leaders' hostnames and Slurm addresses go to world rank 0, which
 *      assigns the groups, and its whole answer goes to every rank in one
 *      broadcast.  Otherwise the hostnames go to world rank 0 only when
 *      `hytune topo` prints them.
 * Why not MPI_Comm_split_type(SHARED): under SimGrid it sees only the ranks
 * that have passed MPI_Init, so it needed an exchange before it, and the
 * records one after it; with MPICH it is a collective of its own.
 * Every communicator's node model is then derived locally (src/comm.c). */
#include "topology/topology.h"
#include "src/agree.h"

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

static int world_ranks_on_node(int node)
{
    int n = 0;
    for (int i = 0; i < hyt_world_size; i++)
        n += hyt_world_node_of[i] == node;
    return n;
}

/* Local facts of this node, before agreement.  Cores and PUs that neither
 * hwloc nor HYTUNE_NODE_HW gives are the ranks on the node, known only
 * after the exchange (REC_ON_NODE). */
static void local_hw(void)
{
    hyt_hw_default(&node_hw, 1);
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

/* names[] and addrs[] of every node -> group per node. */
static void assign_groups(char **addrs, int *group)
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
    ngroups = hyt_groups_index(n, group_paths, group);
}

/* What each rank sends every rank: the hash of its host's name (two ints),
 * the length of its name ("hostname\nslurm-address"), REC_WANT (WANT_FILE:
 * the rank has HYTUNE_NETWORK_FILE set; WANT_SLURM: its name has a Slurm
 * address; either, the latter from a node's leader, makes world rank 0
 * assign the groups, on every rank alike; WANT_NOMEM: it could not hold the
 * node model's memory, which makes every rank run off), its node's facts
 * (REC_ON_NODE: the ranks on its node). */
enum { REC_HASH, REC_LEN = REC_HASH + 2, REC_WANT, REC_HW, REC_INTS = REC_HW + HYT_HW_NFACTS };
enum { WANT_FILE = 1, WANT_SLURM = 2, WANT_NOMEM = 4 };
#define REC_ON_NODE (-1)

static void split_names(const char *buf, const int *lens, const int *displs, char **addrs)
{
    int node = 0;
    node_names = calloc((size_t)hyt_world_nodes, sizeof *node_names);
    for (int i = 0; node_names && i < hyt_world_size && node < hyt_world_nodes; i++) {
        if (lens[i] == 0)
            continue;
        const char *s = buf + displs[i], *nl = strchr(s, '\n');
        node_names[node] = strndup(s, (size_t)(nl - s));
        if (addrs)
            addrs[node] = nl[1] ? strdup(nl + 1) : NULL;
        node++;
    }
}

/* The answer (what world rank 0 broadcasts): nodes, groups, group source, the
 * agreed facts and whether they are uniform, the node of every world rank,
 * the group of every node. */
enum { ANS_NODES, ANS_NGROUPS, ANS_SRC, ANS_HW, ANS_UNIFORM = ANS_HW + HYT_HW_NFACTS,
       ANS_NODE_OF = ANS_UNIFORM + HYT_HW_NFACTS };
static const char *const group_srcs[] = {"one group per node", "HYTUNE_NETWORK_FILE",
                                         "SLURM_TOPOLOGY_ADDR"};

/* A rank's host: the hash of its name, and the rank. */
typedef struct host_key {
    uint64_t hash;
    int rank;
} host_key_t;

static int host_key_cmp(const void *a, const void *b)
{
    const host_key_t *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static uint64_t rec_hash(const int *rec, int i)
{
    uint64_t h;
    memcpy(&h, rec + (size_t)i * REC_INTS + REC_HASH, sizeof h);
    return h;
}

/* The memory hyt_topo_init needs, held by hyt_topo_record before MPI_Init's
 * exchange, whose records carry whether each rank holds it (WANT_NOMEM): a
 * rank that could not would otherwise decide apart from the others after
 * the exchange (alone in off mode, or each rank on its own node) while the
 * others wait for it.  Its sizes depend only on the world's size. */
static struct {
    int *leader, *index, *count, *ans; /* p, p, p, ANS_NODE_OF + 2p ints (one block) */
    host_key_t *keys;                  /* p */
    int *lens;                         /* world rank 0: 2p ints (lengths, displacements) */
    int *node_of, *group;              /* p each: kept as the world node map */
} held;

static void held_free(void)
{
    free(held.leader);
    free(held.keys);
    free(held.lens);
    free(held.node_of);
    free(held.group);
    memset(&held, 0, sizeof held);
}

/* The ints of held.leader's block on a world of p ranks. */
static size_t block_ints(int p)
{
    return 3 * (size_t)p + ANS_NODE_OF + 2 * (size_t)p;
}

/* Hold it (this rank is world rank `rank` of p); 0: no memory. */
static int hold_memory(int p, int rank)
{
    size_t np = (size_t)p;
    held_free();
    if (!hyt_test_fail(HYT_TEST_FAIL_NODE, rank)) {
        held.leader = malloc(block_ints(p) * sizeof *held.leader);
        held.keys = malloc(np * sizeof *held.keys);
        held.lens = rank == 0 ? malloc(2 * np * sizeof *held.lens) : NULL;
        held.node_of = malloc(np * sizeof *held.node_of);
        held.group = malloc(np * sizeof *held.group);
    }
    if (!held.leader || !held.keys || (rank == 0 && !held.lens) || !held.node_of || !held.group) {
        held_free();
        return 0;
    }
    held.index = held.leader + p;
    held.count = held.index + p;
    held.ans = held.count + p;
    return 1;
}

/* Its bytes on a rank of p (world rank 0 holds 2p ints more), for messages. */
static size_t held_bytes(int p)
{
    return (block_ints(p) + 2 * (size_t)p) * sizeof(int) + (size_t)p * sizeof(host_key_t);
}

/* Every rank's node leader, from the records: the smallest world rank whose
 * host's name hashes alike (p entries, in held.leader). */
static int *find_leaders(const int *rec, int p)
{
    int *leader = held.leader;
    host_key_t *key = held.keys;
    for (int i = 0; i < p; i++) {
        key[i].hash = rec_hash(rec, i);
        key[i].rank = i;
    }
    qsort(key, (size_t)p, sizeof *key, host_key_cmp);
    for (int i = 0, first = 0; i < p; i++) {
        if (i > 0 && key[i].hash != key[i - 1].hash)
            first = i;
        leader[key[i].rank] = key[first].rank;
    }
    return leader;
}

/* The answer from every rank's record, its node leader (NULL: each rank
 * alone) and the leaders' names (world rank 0, or every rank alike:
 * hyt_topo_init). */
static void decide(const int *rec, const int *leader, const char *buf, const int *lens,
                   const int *displs, int *ans)
{
    int p = hyt_world_size, *node_of = ans + ANS_NODE_OF, *group = node_of + p, nodes = 0;
    int *index = held.index, *count = held.count;
    for (int i = 0; i < p; i++) {
        index[i] = -1;
        count[i] = 0;
    }
    for (int i = 0; i < p; i++) {
        int l = leader ? leader[i] : -1;
        if (l < 0 || l >= p)
            node_of[i] = nodes++; /* no leader: alone on its node */
        else
            node_of[i] = index[l] >= 0 ? index[l] : (index[l] = nodes++);
    }
    for (int i = 0; i < p; i++)
        count[node_of[i]]++;
    for (int f = 0; f < HYT_HW_NFACTS; f++) {
        int lo = 0, hi = 0;
        for (int i = 0; i < p; i++) {
            int v = rec[i * REC_INTS + REC_HW + f];
            if (v == REC_ON_NODE)
                v = count[node_of[i]];
            lo = i == 0 || v < lo ? v : lo;
            hi = i == 0 || v > hi ? v : hi;
        }
        ans[ANS_HW + f] = lo;
        ans[ANS_UNIFORM + f] = lo == hi;
    }
    hyt_world_nodes = nodes;
    for (int i = 0; i < nodes; i++)
        group[i] = i;
    ngroups = nodes;
    char **addrs = calloc((size_t)nodes, sizeof *addrs);
    if (addrs && buf) {
        split_names(buf, lens, displs, addrs);
        if (node_names)
            assign_groups(addrs, group);
    }
    for (int i = 0; addrs && i < nodes; i++)
        free(addrs[i]);
    free(addrs);
    ans[ANS_NODES] = nodes;
    ans[ANS_NGROUPS] = ngroups;
    ans[ANS_SRC] = strcmp(group_src, group_srcs[1]) == 0 ? 1 : strcmp(group_src, group_srcs[2]) == 0 ? 2 : 0;
}

static void free_strings(char ***v, int n)
{
    for (int i = 0; *v && i < n; i++)
        free((*v)[i]);
    free(*v);
    *v = NULL;
}

/* This rank's name, "hostname\nslurm-address" and its zero (the address
 * may be empty), in me; its bytes.  *addr: it has an address; *hash: the
 * hostname's (which names the node: ranks on one host share it). */
static int my_name(char *me, size_t size, int *addr, uint64_t *hash)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    int hl = 0;
    PMPI_Get_processor_name(host, &hl);
    const char *a = getenv("SLURM_TOPOLOGY_ADDR");
    snprintf(me, size, "%.*s\n%.255s", hl, host, a ? a : "");
    *addr = a && a[0];
    *hash = hyt_agree_hash(HYT_AGREE_HASH0, host, (size_t)(hl > 0 ? hl : 0));
    return (int)strlen(me) + 1;
}

/* Without a network file or Slurm addresses the names are not exchanged in
 * MPI_Init (groups are one per node): world rank 0 keeps every rank's name
 * length, and `hytune topo` gathers the names (gather_names). */
static int *name_len;  /* world rank 0, until the names are gathered: per world rank */
static int names_held; /* world rank 0 has node_names (the same on every rank) */
static int i_lead;     /* this rank leads its node */

/* The leaders' names to world rank 0 (lens: rank 0's, every leader's
 * length, 0 for the other ranks): *buf, lens and displs as split_names
 * reads them. */
static int gather_names(const int *lens, char **buf, int *displs)
{
    char me[MPI_MAX_PROCESSOR_NAME + 256];
    int addr;
    uint64_t hash;
    int len = my_name(me, sizeof me, &addr, &hash);
    return hyt_init_gatherv(me, i_lead ? len : 0, lens, buf, displs, MPI_COMM_WORLD);
}

_Static_assert(HYT_TOPO_REC_BYTES == REC_INTS * (int)sizeof(int), "record size");
_Static_assert(MPI_MAX_PROCESSOR_NAME + 256 <= HYT_INIT_GATHERV_MAX, "a name fits the sink");

/* hyt_topo_record's also_bytes, for the warning (the same on every rank). */
static size_t also_held_bytes;

void hyt_topo_record(void *out, size_t also_bytes, int also_held)
{
    int mine[REC_INTS], addr;
    uint64_t hash;
    char me[MPI_MAX_PROCESSOR_NAME + 256];
    PMPI_Comm_size(MPI_COMM_WORLD, &hyt_world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &hyt_world_rank);
    local_hw();
    mine[REC_LEN] = my_name(me, sizeof me, &addr, &hash);
    memcpy(mine + REC_HASH, &hash, sizeof hash);
    mine[REC_WANT] = (addr ? WANT_SLURM : 0) | (hyt_cfg.network_file ? WANT_FILE : 0) |
                     (hold_memory(hyt_world_size, hyt_world_rank) && also_held ? 0 : WANT_NOMEM);
    also_held_bytes = also_bytes;
    memcpy(mine + REC_HW, node_hw.val, sizeof node_hw.val);
    for (int f = HYT_HW_CORES; f <= HYT_HW_PUS; f++)
        if (node_hw.src[f] == HYT_SRC_MPI || node_hw.src[f] == HYT_SRC_DEFAULT)
            mine[REC_HW + f] = REC_ON_NODE;
    memcpy(out, mine, sizeof mine);
}

int hyt_topo_init(const void *records)
{
    PMPI_Comm_size(MPI_COMM_WORLD, &hyt_world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &hyt_world_rank);
    int p = hyt_world_size, root = hyt_world_rank == 0, rc = MPI_SUCCESS;
    const int *rec = records;
    if (!rec) {
        held_free();
        return MPI_ERR_INTERN;
    }
    /* a rank that could not hold the node model's memory said so in its
     * record, which every rank holds: every rank runs off together */
    int short_ranks = 0, first_short = -1;
    for (int i = 0; i < p; i++)
        if ((rec[i * REC_INTS + REC_WANT] & WANT_NOMEM) && !short_ranks++)
            first_short = i;
    if (!held.leader && !short_ranks)
        return MPI_ERR_INTERN; /* hyt_topo_record did not run */
    if (short_ranks) {
        held_free();
        if (short_ranks > 1)
            hyt_warn(HYT_TOPIC_TOPO, "world ranks %d and %d more could not allocate the node "
                     "model and the emergency reserve (%zu bytes each); every rank runs in off "
                     "mode", first_short, short_ranks - 1, held_bytes(p) + also_held_bytes);
        else
            hyt_warn(HYT_TOPIC_TOPO, "world rank %d could not allocate the node model and the "
                     "emergency reserve (%zu bytes); every rank runs in off mode", first_short,
                     held_bytes(p) + also_held_bytes);
        return MPI_ERR_NO_MEM;
    }
    int *leader = find_leaders(rec, p);
    i_lead = leader[hyt_world_rank] == hyt_world_rank;
    int nans = ANS_NODE_OF + 2 * p, *ans = held.ans;
    /* world rank 0: every leader's name length (0 for other ranks), then
     * where its name is */
    int *lens = held.lens, *displs = lens ? lens + p : NULL;
    char *buf = NULL;
    /* every rank holds every rank's record (MPI_Init's settings step carried
     * them); the names go only to world rank 0, and only when it assigns the
     * groups: a network file on any rank (rank 0 reads its own), or a Slurm
     * address on any node (then its whole answer is broadcast: the file
     * could differ between nodes) */
    int by_root = 0;
    for (int i = 0; i < p; i++) {
        int want = rec[i * REC_INTS + REC_WANT], lead = leader[i] == i;
        by_root |= (want & WANT_FILE) || (lead && (want & WANT_SLURM));
        if (lens)
            lens[i] = lead ? rec[i * REC_INTS + REC_LEN] : 0;
    }
    if (by_root) {
        rc = gather_names(lens, &buf, displs);
        if (rc == MPI_ERR_NO_MEM && root) {
            /* world rank 0 could not hold the names (it took every message
             * all the same): it decides without them, for every rank */
            hyt_warn(HYT_TOPIC_TOPO, "world rank 0 could not allocate the hostnames; "
                     "network groups are one per node");
            rc = MPI_SUCCESS;
        }
    }
    names_held = by_root;
    /* without a network file or Slurm addresses (one group per node) every
     * rank decides alike from the records */
    if (rc == MPI_SUCCESS && (root || !by_root))
        decide(rec, leader, buf, lens, displs, ans);
    if (!root) {
        free_strings(&node_names, hyt_world_nodes);
        free_strings(&group_paths, hyt_world_nodes);
    }
    free(buf);
    if (rc == MPI_SUCCESS && root && !by_root) {
        name_len = lens; /* for gather_names in `hytune topo` (its displacements after) */
        held.lens = NULL;
    }
    if (rc == MPI_SUCCESS && by_root)
        rc = hyt_init_bcast(ans, nans, MPI_INT, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
        int nodes = ans[ANS_NODES];
        hyt_world_node_of = held.node_of;
        node_group = held.group;
        held.node_of = held.group = NULL;
        hyt_world_nodes = nodes;
        memcpy(hyt_world_node_of, ans + ANS_NODE_OF, (size_t)p * sizeof *hyt_world_node_of);
        memcpy(node_group, ans + ANS_NODE_OF + p, (size_t)nodes * sizeof *node_group);
        ngroups = ans[ANS_NGROUPS];
        group_src = group_srcs[ans[ANS_SRC] % 3];
        for (int f = 0; f < HYT_HW_NFACTS; f++) {
            node_hw.val[f] = ans[ANS_HW + f];
            node_hw.uniform[f] = ans[ANS_UNIFORM + f];
        }
    } else {
        free(name_len);
        name_len = NULL;
    }
    held_free();
    return rc;
}

void hyt_topo_finalize(void)
{
    held_free();
    free(name_len);
    name_len = NULL;
    names_held = 0;
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

/* The leaders' names to world rank 0's node_names, if MPI_Init did not
 * bring them (every rank calls it). */
static void fetch_names(void)
{
    if (names_held)
        return;
    names_held = 1;
    char *buf = NULL;
    /* world rank 0: name_len holds the displacements after the lengths */
    int *displs = hyt_world_rank == 0 && name_len ? name_len + hyt_world_size : NULL;
    if (hyt_world_rank == 0 && !displs)
        return;
    /* world rank 0 without memory for the names takes every message all
     * the same (hyt_init_gatherv): they print as "?" */
    if (gather_names(name_len, &buf, displs) == MPI_SUCCESS && buf)
        split_names(buf, name_len, displs, NULL);
    free(buf);
}

/* `hytune topo`: print the node model; every rank calls it (out NULL:
 * ranks other than 0), since world rank 0 gathers the nodes' names. */
int hyt_topo_print(FILE *out)
{
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    if (ctx)
        fetch_names();
    if (!out)
        return 0;
    if (!ctx) {
        fprintf(out, "hytune topo: hytune is off (HYTUNE_MODE=off); no node model\n");
        return 1;
    }
    fprintf(out, "ranks %d, nodes %d (ranks on one host, MPI_Get_processor_name)\n", ctx->size,
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
