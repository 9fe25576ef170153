/* Node hardware model: hwloc synthetic topologies (packages, NUMA, cores),
 * an XML topology with NICs and a GPU (ports, GPUs, one count per device),
 * and the HYTUNE_NODE_HW parser with good and bad input. */
#include "topology/topology.h"
#include "test/check.h"

#include <hwloc.h>
#include <string.h>

static int load(hwloc_topology_t *t, const char *synthetic, const char *xml)
{
    if (hwloc_topology_init(t) != 0)
        return -1;
    hwloc_topology_set_io_types_filter(*t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    int rc = synthetic ? hwloc_topology_set_synthetic(*t, synthetic)
                       : hwloc_topology_set_xmlbuffer(*t, xml, (int)strlen(xml) + 1);
    if (rc == 0)
        rc = hwloc_topology_load(*t);
    if (rc != 0)
        hwloc_topology_destroy(*t);
    return rc;
}

static void synthetic(const char *desc, int pack, int numa, int cores, int pus)
{
    hwloc_topology_t t;
    hyt_node_hw_t hw;
    CHECK(load(&t, desc, NULL) == 0, "synthetic %s loads", desc);
    hyt_hw_default(&hw, 1);
    hyt_hw_from_hwloc(t, &hw);
    hwloc_topology_destroy(t);
    CHECK(hw.val[HYT_HW_PACKAGES] == pack, "%s packages %d", desc, hw.val[HYT_HW_PACKAGES]);
    CHECK(hw.val[HYT_HW_NUMAS] == numa, "%s numas %d", desc, hw.val[HYT_HW_NUMAS]);
    CHECK(hw.val[HYT_HW_CORES] == cores, "%s cores %d", desc, hw.val[HYT_HW_CORES]);
    CHECK(hw.val[HYT_HW_PUS] == pus, "%s pus %d", desc, hw.val[HYT_HW_PUS]);
    CHECK(hw.val[HYT_HW_PORTS] == 0, "%s has no I/O: ports %d", desc, hw.val[HYT_HW_PORTS]);
    CHECK(hw.val[HYT_HW_GPUS] == 0, "%s gpus %d", desc, hw.val[HYT_HW_GPUS]);
    CHECK(hw.src[HYT_HW_CORES] == HYT_SRC_HWLOC, "%s source", desc);
}

#define PCI(id, cls, body)                                                                   \
    "<object type=\"PCIDev\" pci_busid=\"0000:00:0" id ".0\" pci_type=\"" cls                 \
    " [15b3:1017] [15b3:0001] 00\" pci_link_speed=\"0.000000\">" body "</object>"
#define OSDEV(name, type) "<object type=\"OSDev\" name=\"" name "\" osdev_type=\"" type "\"/>"

/* Two HCAs each seen as a network interface and an OpenFabrics device, a GPU
 * seen as a DRM card and a CUDA co-processor, and a disk. */
static const char xml_io[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
    "<topology version=\"2.0\">"
    "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
    "allowed_cpuset=\"0x0000000f\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
    "allowed_nodeset=\"0x00000001\">"
    "<object type=\"Package\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\">"
    "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" local_memory=\"1000000\"/>"
    "<object type=\"Core\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\">"
    "<object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"/>"
    "<object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"/></object>"
    "<object type=\"Core\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\">"
    "<object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"/>"
    "<object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"/></object>"
    "</object>"
    "<object type=\"Bridge\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[00-00]\">"
    PCI("1", "0207", OSDEV("ib0", "2") OSDEV("mlx5_0", "3"))
    PCI("2", "0207", OSDEV("ib1", "2") OSDEV("mlx5_1", "3"))
    PCI("3", "0302", OSDEV("card0", "1") OSDEV("cuda0", "5"))
    PCI("4", "0180", OSDEV("vda", "0"))
    "</object></object></topology>\n";

static void xml(void)
{
    hwloc_topology_t t;
    hyt_node_hw_t hw;
    CHECK(load(&t, NULL, xml_io) == 0, "XML topology loads");
    hyt_hw_default(&hw, 1);
    hyt_hw_from_hwloc(t, &hw);
    hwloc_topology_destroy(t);
    CHECK(hw.val[HYT_HW_CORES] == 2 && hw.val[HYT_HW_PUS] == 4, "xml cores %d pus %d",
          hw.val[HYT_HW_CORES], hw.val[HYT_HW_PUS]);
    CHECK(hw.val[HYT_HW_PORTS] == 2, "two HCAs, each net+openfabrics: ports %d",
          hw.val[HYT_HW_PORTS]);
    CHECK(hw.val[HYT_HW_GPUS] == 1, "one GPU seen twice: gpus %d", hw.val[HYT_HW_GPUS]);
    /* ports feed the recursive-multiplying prior: 2 ports -> k = 2 */
    hyt_alg_t recmult = {.name = "recmult", .coll = HYT_COLL_ALLREDUCE, .k_min = 2,
                         .k_max = HYT_K_P, .prior = HYT_PRIOR_PORTS};
    hyt_topo_shape_t s = {64, 8, 8, hw.val[HYT_HW_PORTS]};
    CHECK(hyt_topo_prior_k_shape(&recmult, &s, 8) == 2, "recmult prior from XML ports");
}

static void parse(void)
{
    hyt_node_hw_t hw;
    char err[512];
    hyt_hw_default(&hw, 8);
    CHECK(hw.val[HYT_HW_CORES] == 8 && hw.val[HYT_HW_PORTS] == 1 && hw.val[HYT_HW_GPUS] == 0,
          "defaults");
    CHECK(hyt_hw_parse(NULL, &hw, err, sizeof err) == 0, "unset is fine");
    CHECK(hyt_hw_parse("ports=4,gpus=2,cores=16", &hw, err, sizeof err) == 0, "good spec: %s",
          err);
    CHECK(hw.val[HYT_HW_PORTS] == 4 && hw.val[HYT_HW_GPUS] == 2 && hw.val[HYT_HW_CORES] == 16,
          "values applied");
    CHECK(hw.src[HYT_HW_PORTS] == HYT_SRC_ENV && hw.src[HYT_HW_NUMAS] == HYT_SRC_DEFAULT,
          "sources recorded");
    static const char *const bad[] = {"ports", "ports=", "ports=x", "ports=0", "gpus=-1",
                                      "speed=3", "ports=4;gpus=1", "ports=99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(hyt_hw_parse(bad[i], &hw, err, sizeof err) == -1, "bad spec %s refused", bad[i]);
        CHECK(strstr(err, "HYTUNE_NODE_HW") && strstr(err, "ports") && strstr(err, "gpus"),
              "message names the variable and keys: %s", err);
    }
    hyt_hw_default(&hw, 8);
    CHECK(hyt_hw_parse("numas=2,bogus=1,ports=8", &hw, err, sizeof err) == -1, "one bad entry");
    CHECK(hw.val[HYT_HW_NUMAS] == 2 && hw.val[HYT_HW_PORTS] == 8,
          "good entries around a bad one still apply");
    CHECK(hyt_hw_parse("gpus=0", &hw, err, sizeof err) == 0 && hw.val[HYT_HW_GPUS] == 0,
          "gpus=0 allowed");
    CHECK(strcmp(hyt_hw_fact_name(HYT_HW_PORTS), "ports") == 0, "fact names");
}

int main(void)
{
    synthetic("pack:2 numa:2 core:16 pu:1", 2, 4, 64, 64);
    synthetic("pack:1 core:8 pu:2", 1, 1, 8, 16);
    synthetic("pack:4 numa:1 l3:2 core:6 pu:2", 4, 4, 48, 96);
    xml();
    parse();
    return check_done("test_topo_hw");
}
