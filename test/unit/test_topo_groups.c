/* Network groups: the HYTUNE_NETWORK_FILE parser (comments, blank lines,
 * hosts missing or extra, errors naming file and line), Slurm topology
 * addresses, and group numbering by first appearance. */
#include "topology/topology.h"
#include "test/check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *const names[] = {"node-0", "node-1", "node-2", "node-3"};

static void good(void)
{
    char *paths[4], err[512];
    int group[4];
    write_file("# cluster: two switches\n\nnode-0 sw0   # first\n"
               "node-1\tsw0\nnode-2 sw1\n  node-9 sw7\n");
    CHECK(hyt_groups_parse_file(path, 4, names, paths, err, sizeof err) == 0, "parse: %s", err);
    CHECK(paths[0] && strcmp(paths[0], "sw0") == 0, "node-0 in sw0");
    CHECK(paths[2] && strcmp(paths[2], "sw1") == 0, "node-2 in sw1");
    CHECK(paths[3] == NULL, "node-3 missing from the file");
    int n = hyt_groups_index(4, paths, group);
    CHECK(n == 3, "sw0, sw1 and node-3 alone: %d groups", n);
    CHECK(group[0] == 0 && group[1] == 0 && group[2] == 1 && group[3] == 2, "group numbers");
    for (int i = 0; i < 4; i++)
        free(paths[i]);
}

static void bad(const char *text, const char *want)
{
    char *paths[4], err[512] = "";
    write_file(text);
    CHECK(hyt_groups_parse_file(path, 4, names, paths, err, sizeof err) == -1, "refused: %s",
          text);
    CHECK(strstr(err, path) && strstr(err, want), "message names file and %s: %s", want, err);
    for (int i = 0; i < 4; i++)
        CHECK(paths[i] == NULL, "no paths left on error");
}

static void slurm(void)
{
    char *p = hyt_groups_slurm_path("s1.s2.node7");
    CHECK(p && strcmp(p, "s1.s2") == 0, "s1.s2.node7 -> s1.s2");
    free(p);
    CHECK(hyt_groups_slurm_path("node7") == NULL, "no switch part");
    CHECK(hyt_groups_slurm_path(NULL) == NULL, "unset");
    CHECK(hyt_groups_slurm_path(".node7") == NULL, "empty switch part");
    char *a = hyt_groups_slurm_path("top.leaf1.n1"), *b = hyt_groups_slurm_path("top.leaf1.n2"),
         *c = hyt_groups_slurm_path("top.leaf2.n3"), *d = NULL;
    char *v[4] = {a, b, c, d};
    int group[4];
    CHECK(hyt_groups_index(4, v, group) == 3, "leaf1, leaf2, and a node without address");
    CHECK(group[0] == group[1] && group[2] != group[0] && group[3] != group[2], "slurm groups");
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/hyt-netfile-%d.txt", (int)getpid());
    good();
    bad("node-0 sw0\nnode-1\n", ":2:");
    bad("node-0 sw0 extra\n", ":1:");
    bad("node-0 sw0\n# c\nnode-0 sw1\n", ":3:");
    unlink(path);
    char *paths[4], err[512] = "";
    CHECK(hyt_groups_parse_file(path, 4, names, paths, err, sizeof err) == -1 &&
              strstr(err, "HYTUNE_NETWORK_FILE") && strstr(err, path),
          "missing file named: %s", err);
    slurm();
    return check_done("test_topo_groups");
}
