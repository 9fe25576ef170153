/* Node hardware: packages, NUMA domains, cores, network ports and GPUs.
 *
 * On a real machine the facts come from hwloc, loaded once per process at
 * init (topology/node.c); HYTUNE_NODE_HW overrides any of them.  Under
 * SimGrid hwloc would describe the real host running the simulation, not the
 * simulated node, so there the facts come from HYTUNE_NODE_HW or defaults.
 * The functions here are pure (an hwloc topology or a string in, facts out)
 * so unit tests drive them with synthetic and XML topologies. */
#include "topology/topology.h"

#include <hwloc.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const fact_names[HYT_HW_NFACTS] = {"packages", "numas", "cores",
                                                      "pus",      "ports", "gpus"};
static const char *const src_names[] = {"default", "hwloc", "HYTUNE_NODE_HW",
                                         "ranks on the node (MPI)"};

const char *hyt_hw_fact_name(hyt_hw_fact_t f)
{
    return f < HYT_HW_NFACTS ? fact_names[f] : "?";
}

const char *hyt_src_name(hyt_src_t s)
{
    return s <= HYT_SRC_MPI ? src_names[s] : "?";
}

void hyt_hw_default(hyt_node_hw_t *hw, int cores)
{
    for (int f = 0; f < HYT_HW_NFACTS; f++) {
        hw->val[f] = 1;
        hw->src[f] = HYT_SRC_DEFAULT;
        hw->uniform[f] = 1;
    }
    hw->val[HYT_HW_CORES] = hw->val[HYT_HW_PUS] = cores > 0 ? cores : 1;
    hw->val[HYT_HW_GPUS] = 0;
}

/* Count distinct parents (normally the PCI device) of OS devices of the given
 * types: a NIC shows up as both a network interface and an OpenFabrics HCA,
 * a GPU as a DRM card and a CUDA co-processor, and each is one device. */
static int count_devices(hwloc_topology_t t, const hwloc_obj_osdev_type_t *types, int ntypes)
{
    hwloc_obj_t seen[256];
    int n = 0;
    for (hwloc_obj_t o = hwloc_get_next_osdev(t, NULL); o; o = hwloc_get_next_osdev(t, o)) {
        int match = 0;
        for (int i = 0; i < ntypes; i++)
            match |= o->attr->osdev.type == types[i];
        if (!match)
            continue;
        hwloc_obj_t dev = o->parent ? o->parent : o;
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= seen[i] == dev;
        if (!dup && n < (int)(sizeof seen / sizeof seen[0]))
            seen[n++] = dev;
    }
    return n;
}

void hyt_hw_from_hwloc(void *topology, hyt_node_hw_t *hw)
{
    hwloc_topology_t t = topology;
    static const hwloc_obj_type_t types[] = {HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE,
                                             HWLOC_OBJ_CORE, HWLOC_OBJ_PU};
    static const hwloc_obj_osdev_type_t nets[] = {HWLOC_OBJ_OSDEV_NETWORK,
                                                  HWLOC_OBJ_OSDEV_OPENFABRICS};
    static const hwloc_obj_osdev_type_t gpus[] = {HWLOC_OBJ_OSDEV_GPU, HWLOC_OBJ_OSDEV_COPROC};
    for (int f = HYT_HW_PACKAGES; f <= HYT_HW_PUS; f++) {
        int n = hwloc_get_nbobjs_by_type(t, types[f]);
        hw->val[f] = n > 0 ? n : 1;
        hw->src[f] = HYT_SRC_HWLOC;
    }
    hw->val[HYT_HW_PORTS] = count_devices(t, nets, 2);
    hw->src[HYT_HW_PORTS] = HYT_SRC_HWLOC;
    hw->val[HYT_HW_GPUS] = count_devices(t, gpus, 2);
    hw->src[HYT_HW_GPUS] = HYT_SRC_HWLOC;
}

static int parse_one(char *item, hyt_node_hw_t *hw)
{
    char *eq = strchr(item, '=');
    if (!eq)
        return -1;
    *eq = 0;
    for (int f = 0; f < HYT_HW_NFACTS; f++) {
        if (strcmp(item, fact_names[f]) != 0)
            continue;
        char *end;
        errno = 0;
        long v = strtol(eq + 1, &end, 10);
        long lo = f == HYT_HW_GPUS ? 0 : 1;
        if (end == eq + 1 || *end || errno || v < lo || v > 1 << 20)
            return -1;
        hw->val[f] = (int)v;
        hw->src[f] = HYT_SRC_ENV;
        return 0;
    }
    return -1;
}

int hyt_hw_parse(const char *spec, hyt_node_hw_t *hw, char *err, size_t errlen)
{
    if (!spec)
        return 0;
    char *copy = strdup(spec), *save = NULL;
    if (!copy) {
        snprintf(err, errlen, "HYTUNE_NODE_HW: out of memory");
        return -1;
    }
    int bad = 0;
    char first_bad[64] = "";
    for (char *it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char keep[64];
        snprintf(keep, sizeof keep, "%s", it);
        if (parse_one(it, hw) != 0 && !bad++)
            snprintf(first_bad, sizeof first_bad, "%s", keep);
    }
    free(copy);
    if (!bad)
        return 0;
    snprintf(err, errlen,
             "HYTUNE_NODE_HW=\"%s\": \"%s\" is not valid (%d bad entr%s ignored); write "
             "key=N,... with keys packages, numas, cores, pus, ports (>=1), gpus (>=0), e.g. "
             "ports=4,gpus=0,cores=8",
             spec, first_bad, bad, bad == 1 ? "y" : "ies");
    return -1;
}
