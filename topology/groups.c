/* Network groups: which nodes share a switch (or a dragonfly group).
 *
 * Sources, in order: HYTUNE_NETWORK_FILE (one `hostname group/path` line per
 * host, `#` starts a comment), Slurm's SLURM_TOPOLOGY_ADDR of each node
 * (dotted switch path ending with the node: the group is the path without
 * its last element), else every node is its own group.  The tuner uses the
 * groups to benchmark in parallel without sharing links.  The parsing here
 * is pure; topology/node.c gathers hostnames and addresses and agrees on the
 * result. */
#include "src/file.h"
#include "topology/topology.h"

#include <stdlib.h>
#include <string.h>

static int find_name(int n, const char *const *names, const char *host)
{
    for (int i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], host) == 0)
            return i;
    return -1;
}

/* One line: "" (blank/comment) -> 0 with *host NULL; two fields -> 0;
 * anything else -> -1. */
static int split_line(char *line, char **host, char **path)
{
    char *hash = strchr(line, '#'), *save = NULL;
    if (hash)
        *hash = 0;
    *host = strtok_r(line, " \t\r\n", &save);
    if (!*host)
        return 0;
    *path = strtok_r(NULL, " \t\r\n", &save);
    return *path && !strtok_r(NULL, " \t\r\n", &save) ? 0 : -1;
}

int hyt_groups_parse_file(const char *file, int n, const char *const *names, char **paths,
                          char *err, size_t errlen)
{
    char why[256];
    FILE *f = hyt_file_open(file, HYT_FILE_MAX_BYTES, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "HYTUNE_NETWORK_FILE=%s cannot be opened (%s); give a readable "
                 "file of `hostname group/path` lines", file, why);
        return -1;
    }
    char *line = NULL, *host, *path;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    for (int i = 0; i < n; i++)
        paths[i] = NULL;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        lineno++;
        if (split_line(line, &host, &path) != 0) {
            snprintf(err, errlen, "%s:%d: expected `hostname group/path` (two fields, `#` "
                     "comments); fix the line or unset HYTUNE_NETWORK_FILE", file, lineno);
            rc = -1;
        } else if (host) {
            int i = find_name(n, names, host);
            if (i >= 0 && paths[i]) {
                snprintf(err, errlen, "%s:%d: host %s is listed twice; keep one line per host",
                         file, lineno, host);
                rc = -1;
            } else if (i >= 0 && !(paths[i] = strdup(path))) {
                snprintf(err, errlen, "%s:%d: out of memory", file, lineno);
                rc = -1;
            }
        }
    }
    free(line);
    fclose(f);
    if (rc != 0)
        for (int i = 0; i < n; i++) {
            free(paths[i]);
            paths[i] = NULL;
        }
    return rc;
}

char *hyt_groups_slurm_path(const char *addr)
{
    const char *dot = addr ? strrchr(addr, '.') : NULL;
    if (!dot || dot == addr)
        return NULL;
    size_t len = (size_t)(dot - addr);
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, addr, len);
        p[len] = 0;
    }
    return p;
}

int hyt_groups_index(int n, char *const *paths, int *group)
{
    int ngroups = 0;
    for (int i = 0; i < n; i++) {
        group[i] = -1;
        for (int j = 0; paths[i] && j < i; j++)
            if (paths[j] && strcmp(paths[i], paths[j]) == 0) {
                group[i] = group[j];
                break;
            }
        if (group[i] < 0)
            group[i] = ngroups++;
    }
    return ngroups;
}
