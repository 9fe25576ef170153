/* Agreement at init: the step that makes every rank do the same with what
 * each rank read (see src/agree.h).  Why: each rank reads HYTUNE_* and its
 * files on its own; a table missing on one node's file system, a stale
 * copy or a variable set for one program of an MPMD launch would otherwise
 * make that rank run other algorithms than the rest, and the job hangs. */
#include "src/agree.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

uint64_t hyt_agree_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t hyt_agree_hash_str(uint64_t h, const char *s)
{
    if (!s)
        return hyt_agree_hash(h, "\1null", 5);
    return hyt_agree_hash(h, s, strlen(s) + 1);
}

void hyt_agree_item_init(hyt_agree_item_t *it, const char *name, hyt_topic_t topic,
                         hyt_log_level_t level, const char *fallback)
{
    memset(it, 0, sizeof *it);
    snprintf(it->name, sizeof it->name, "%s", name);
    it->topic = topic;
    it->level = level;
    snprintf(it->fallback, sizeof it->fallback, "%s", fallback);
}

void hyt_agree_item_fail(hyt_agree_item_t *it, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->desc, sizeof it->desc, fmt, ap);
    va_end(ap);
    it->failed = 1;
    it->fp = hyt_agree_hash_str(hyt_agree_hash(HYT_AGREE_HASH0, "\2fail", 5), it->desc);
}

void hyt_agree_pack(const hyt_agree_item_t *items, int n, uint64_t *v)
{
    for (int i = 0; i < n; i++) {
        v[3 * i] = items[i].fp;
        v[3 * i + 1] = ~items[i].fp;
        v[3 * i + 2] = items[i].failed ? 0 : 1;
    }
}

void hyt_agree_combine(uint64_t *acc, const uint64_t *v, int n)
{
    for (int i = 0; i < 3 * n; i++)
        if (v[i] < acc[i])
            acc[i] = v[i];
}

void hyt_agree_verdicts(hyt_agree_item_t *items, int n, const uint64_t *reduced)
{
    for (int i = 0; i < n; i++) {
        uint64_t lo = reduced[3 * i], hi = ~reduced[3 * i + 1];
        int all_ok = reduced[3 * i + 2] == 1;
        if (lo != hi)
            items[i].verdict = HYT_AGREE_DIFFER;
        else if (!all_ok)
            /* one fingerprint everywhere, and a failure's fingerprint is
             * its message's: every rank failed the same way */
            items[i].verdict = HYT_AGREE_ALL_FAILED;
        else
            items[i].verdict = HYT_AGREE_OK;
    }
    for (int i = 0; i < n; i++)
        if (items[i].gates && items[i].verdict == HYT_AGREE_DIFFER)
            for (int j = i + 1; j < n; j++)
                items[j].verdict = HYT_AGREE_MOOT;
}

static void append(char *out, size_t len, size_t *o, const char *fmt, ...) HYT_PRINTF(4, 5);
static void append(char *out, size_t len, size_t *o, const char *fmt, ...)
{
    if (*o + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *o, len - *o, fmt, ap);
    va_end(ap);
    if (n > 0)
        *o += (size_t)n < len - *o ? (size_t)n : len - *o - 1;
}

void hyt_agree_ranks(const int *member, int nranks, char *out, size_t len)
{
    size_t o = 0;
    out[0] = 0;
    for (int r = 0; r < nranks; r++) {
        if (!member[r])
            continue;
        int e = r;
        while (e + 1 < nranks && member[e + 1])
            e++;
        if (e > r)
            append(out, len, &o, "%s%d-%d", o ? "," : "", r, e);
        else
            append(out, len, &o, "%s%d", o ? "," : "", r);
        r = e;
    }
}

void hyt_agree_line(const char *name, int nranks, const char *const *descs,
                    const char *fallback, char *out, size_t len)
{
    /* group[r]: index of r's description among the first distinct ones, or
     * -1 past HYT_AGREE_MAX_GROUPS */
    int *group = malloc((size_t)nranks * sizeof *group);
    int *member = malloc((size_t)nranks * sizeof *member);
    size_t o = 0;
    out[0] = 0;
    if (!group || !member) {
        snprintf(out, len, "%s differs between ranks; %s", name, fallback);
        free(group);
        free(member);
        return;
    }
    int first[HYT_AGREE_MAX_GROUPS], ngroups = 0, others = 0;
    for (int r = 0; r < nranks; r++) {
        group[r] = -1;
        for (int g = 0; g < ngroups && group[r] < 0; g++)
            if (strcmp(descs[first[g]], descs[r]) == 0)
                group[r] = g;
        if (group[r] < 0 && ngroups < HYT_AGREE_MAX_GROUPS) {
            first[ngroups] = r;
            group[r] = ngroups++;
        }
        others += group[r] < 0;
    }
    append(out, len, &o, "%s differs between ranks: ", name);
    for (int g = 0; g < ngroups; g++) {
        int n = 0;
        for (int r = 0; r < nranks; r++)
            n += member[r] = group[r] == g;
        char ranks[256];
        hyt_agree_ranks(member, nranks, ranks, sizeof ranks);
        append(out, len, &o, "%s%s %s: %s", g ? "; " : "", n > 1 ? "ranks" : "rank", ranks,
               descs[first[g]]);
    }
    if (others)
        append(out, len, &o, "; %d more rank%s with other values", others, others > 1 ? "s" : "");
    append(out, len, &o, "; %s", fallback);
    free(group);
    free(member);
}

/* Rank 0 prints one line per DIFFER item from every rank's descriptions. */
static int report_differ(const hyt_agree_item_t *items, int n, MPI_Comm comm, int rank,
                         int size)
{
    size_t mine = 0;
    for (int i = 0; i < n; i++)
        if (items[i].verdict == HYT_AGREE_DIFFER)
            mine += strlen(items[i].desc) + 1;
    char *sendbuf = malloc(mine ? mine : 1);
    int len = sendbuf ? (int)mine : 0; /* out of memory: send nothing, still take part */
    for (int i = 0, o = 0; sendbuf && i < n; i++)
        if (items[i].verdict == HYT_AGREE_DIFFER) {
            size_t l = strlen(items[i].desc) + 1;
            memcpy(sendbuf + o, items[i].desc, l);
            o += (int)l;
        }
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        displs = calloc((size_t)size, sizeof *displs);
    }
    int rc = PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    int total = 0;
    if (rank == 0 && lens && displs)
        for (int r = 0; r < size; r++) {
            displs[r] = total;
            total += lens[r];
        }
    if (rank == 0)
        all = malloc((size_t)total + 1);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Gatherv(sendbuf ? sendbuf : "", len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
                          comm);
    if (rc == MPI_SUCCESS && rank == 0 && all && lens) {
        const char **descs = malloc((size_t)size * sizeof *descs);
        const char **cursor = malloc((size_t)size * sizeof *cursor);
        char *line = malloc(4096);
        for (int r = 0; descs && cursor && r < size; r++)
            cursor[r] = lens[r] ? all + displs[r] : NULL;
        for (int i = 0; descs && cursor && line && i < n; i++) {
            if (items[i].verdict != HYT_AGREE_DIFFER)
                continue;
            for (int r = 0; r < size; r++) {
                descs[r] = cursor[r] ? cursor[r] : "(not known)";
                if (cursor[r])
                    cursor[r] += strlen(cursor[r]) + 1;
            }
            hyt_agree_line(items[i].name, size, descs, items[i].fallback, line, 4096);
            hyt_log(HYT_LOG_ERROR, items[i].topic, "%s", line);
        }
        free(descs);
        free(cursor);
        free(line);
    }
    free(sendbuf);
    free(lens);
    free(displs);
    free(all);
    return rc;
}

int hyt_agree_run(hyt_agree_item_t *items, int n, MPI_Comm comm)
{
    MPI_Comm priv = MPI_COMM_NULL;
    int rank = 0, size = 1;
    uint64_t *v = malloc((size_t)(6 * n + 1) * sizeof *v);
    int rc = v ? PMPI_Comm_dup(comm, &priv) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_rank(priv, &rank);
        PMPI_Comm_size(priv, &size);
        hyt_agree_pack(items, n, v);
        rc = PMPI_Allreduce(v, v + 3 * n, 3 * n, MPI_UINT64_T, MPI_MIN, priv);
    }
    if (rc == MPI_SUCCESS) {
        hyt_agree_verdicts(items, n, v + 3 * n);
    } else {
        for (int i = 0; i < n; i++)
            items[i].verdict = HYT_AGREE_DIFFER;
        hyt_error(HYT_TOPIC_CORE, "cannot compare settings between ranks (MPI error %d); "
                  "every setting falls back", rc);
    }
    int differ = 0;
    for (int i = 0; i < n; i++) {
        differ |= items[i].verdict == HYT_AGREE_DIFFER;
        if (items[i].verdict == HYT_AGREE_ALL_FAILED && rank == 0 &&
            items[i].level != HYT_AGREE_QUIET)
            hyt_log(items[i].level, items[i].topic, "%s; %s", items[i].desc, items[i].fallback);
    }
    if (differ && rc == MPI_SUCCESS)
        rc = report_differ(items, n, priv, rank, size);
    if (priv != MPI_COMM_NULL)
        PMPI_Comm_free(&priv);
    free(v);
    return rc;
}
