/* Agreement at init: the step that makes every rank do the same with what
 * each rank read (see src/agree.h).  Why: each rank reads HYTUNE_* and its
 * files on its own; a table missing on one node's file system, a stale
 * copy or a variable set for one program of an MPMD launch would otherwise
 * make that rank run other algorithms than the rest, and the job hangs. */
#include "src/agree.h"
#include "algorithms/p2p.h"

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
    char *sendbuf = hyt_small_alloc(mine, "the settings' descriptions", HYT_TEST_FAIL_INIT);
    int len = (int)mine;
    for (int i = 0, o = 0; i < n; i++)
        if (items[i].verdict == HYT_AGREE_DIFFER) {
            size_t l = strlen(items[i].desc) + 1;
            memcpy(sendbuf + o, items[i].desc, l);
            o += (int)l;
        }
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        lens = hyt_small_alloc(2 * (size_t)size * sizeof *lens, "the settings' descriptions",
                               HYT_TEST_FAIL_INIT);
        displs = lens + size;
    }
    int rc = PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    size_t total = 0;
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += (size_t)lens[r];
        }
    if (rank == 0)
        all = hyt_small_alloc(total + 1, "the settings' descriptions", HYT_TEST_FAIL_INIT);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Gatherv(sendbuf, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, comm);
    if (rc == MPI_SUCCESS && rank == 0) {
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
    hyt_small_free(sendbuf);
    hyt_small_free(lens);
    hyt_small_free(all);
    return rc;
}

/* The exchanges below run inside MPI_Init, before the application can have
 * posted a message: they talk on comm itself (no duplicate: MPI_Comm_dup is
 * a collective of its own) with hytune's tag, point to point (an MPI
 * library may set up its collectives' per-communicator state on the first
 * call, a cost the application would not otherwise pay in MPI_Init). */
#define INIT_TAG 0x4878

int hyt_init_allmin(uint64_t *v, int n, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    uint64_t *in = hyt_small_alloc((size_t)(n > 0 ? 2 * n : 1) * sizeof *in,
                                   "the settings exchange", HYT_TEST_FAIL_INIT),
             *out = in + n;
    /* dissemination: after the round of distance d every rank holds the
     * minimum over itself and the 2d - 1 ranks before it (MPI_MIN is
     * idempotent, so the overlap of the last round does no harm) */
    for (int d = 1; d < size && rc == MPI_SUCCESS; d *= 2) {
        memcpy(out, v, (size_t)n * sizeof *v);
        rc = PMPI_Sendrecv(out, n, MPI_UINT64_T, (rank + d) % size, INIT_TAG, in, n,
                           MPI_UINT64_T, (rank - d + size) % size, INIT_TAG, comm,
                           MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            for (int i = 0; i < n; i++)
                v[i] = in[i] < v[i] ? in[i] : v[i];
    }
    hyt_small_free(in);
    return rc;
}

int hyt_init_bcast(void *buf, int count, MPI_Datatype type, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS, mask = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    /* binomial tree from rank 0: receive from the rank that differs in the
     * lowest set bit, then send to rank + each lower power of two */
    while (mask < size && !(rank & mask))
        mask *= 2;
    if (rank)
        rc = PMPI_Recv(buf, count, type, rank - mask, INIT_TAG, comm, MPI_STATUS_IGNORE);
    for (mask /= 2; mask > 0 && rc == MPI_SUCCESS; mask /= 2)
        if (rank + mask < size)
            rc = PMPI_Send(buf, count, type, rank + mask, INIT_TAG, comm);
    return rc;
}

/* Blocks i and j (len bytes each) of a trade places. */
static void swap_blocks(char *a, size_t len, int i, int j)
{
    char *x = a + (size_t)i * len, *y = a + (size_t)j * len;
    for (size_t b = 0; b < len; b++) {
        char t = x[b];
        x[b] = y[b];
        y[b] = t;
    }
}

/* Blocks lo .. hi - 1 of a in reverse order. */
static void reverse_blocks(char *a, size_t len, int lo, int hi)
{
    for (hi--; lo < hi; lo++, hi--)
        swap_blocks(a, len, lo, hi);
}

/* Bruck's allgather of records of one length: before the round of distance
 * d a rank holds the records of itself and the d - 1 ranks before it (rank
 * order down, wrapping) in all's first d blocks; it sends the first min(d,
 * size - d) of them to the rank d after it and appends as many from the
 * rank d before it (the pairs of the settings' exchange before, whose
 * timing under SimGrid this keeps).  Then all is put, in place, into rank
 * order. */
int hyt_init_allgather(const void *mine, int len, void *all, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (len < 0)
        return MPI_ERR_COUNT;
    char *buf = all;
    memcpy(buf, mine, (size_t)len);
    for (int d = 1; d < size && rc == MPI_SUCCESS; d *= 2) {
        int cnt = size - d < d ? size - d : d;
        rc = PMPI_Sendrecv(buf, cnt * len, MPI_BYTE, (rank + d) % size, INIT_TAG,
                           buf + (size_t)d * (size_t)len, cnt * len, MPI_BYTE,
                           (rank - d + size) % size, INIT_TAG, comm, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    /* block j holds rank (rank - j) mod size: blocks 0 .. rank hold ranks
     * rank .. 0 and the rest ranks size - 1 .. rank + 1, each run reversed */
    reverse_blocks(buf, (size_t)len, 0, rank + 1);
    reverse_blocks(buf, (size_t)len, rank + 1, size);
    return MPI_SUCCESS;
}

int hyt_init_gatherv(const void *mine, int len, const int *lens, char **all, int *displs,
                     MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank != 0)
        return len > 0 ? PMPI_Send(mine, len, MPI_BYTE, 0, INIT_TAG, comm) : MPI_SUCCESS;
    *all = NULL;
    size_t total = 0;
    int nrecv = 0;
    for (int r = 0; r < size; r++) {
        if (lens[r] < 0)
            return MPI_ERR_COUNT;
        displs[r] = (int)total;
        total += (size_t)lens[r];
        nrecv += r > 0 && lens[r] > 0;
    }
    char *out = malloc(total ? total : 1);
    MPI_Request *req = malloc((size_t)(nrecv ? nrecv : 1) * sizeof *req);
    if (!out || !req) {
        /* the senders do not know: take their messages all the same (one
         * at a time, into a buffer of the stack), so that none is left for
         * the application's receives to match */
        free(out);
        free(req);
        char sink[HYT_INIT_GATHERV_MAX];
        for (int r = 1; r < size && rc == MPI_SUCCESS; r++)
            if (lens[r] > 0)
                rc = lens[r] <= (int)sizeof sink
                         ? PMPI_Recv(sink, lens[r], MPI_BYTE, r, INIT_TAG, comm, MPI_STATUS_IGNORE)
                         : MPI_ERR_TRUNCATE;
        return rc == MPI_SUCCESS ? MPI_ERR_NO_MEM : rc;
    }
    memcpy(out, mine, (size_t)lens[0]);
    int n = 0;
    for (int r = 1; r < size && rc == MPI_SUCCESS; r++)
        if (lens[r] > 0)
            rc = PMPI_Irecv(out + displs[r], lens[r], MPI_BYTE, r, INIT_TAG, comm, &req[n++]);
    if (rc == MPI_SUCCESS)
        rc = hyt_p2p_waitall(n, req);
    free(req);
    if (rc != MPI_SUCCESS) {
        free(out);
        return rc;
    }
    *all = out;
    return MPI_SUCCESS;
}

/* Everything every rank does, in one fingerprint: equal digests on every
 * rank (and no failure anywhere) make every verdict OK without comparing
 * item by item. */
static uint64_t digest(const hyt_agree_item_t *items, int n, int *failed)
{
    uint64_t h = HYT_AGREE_HASH0;
    *failed = 0;
    for (int i = 0; i < n; i++) {
        h = hyt_agree_hash(h, &items[i].fp, sizeof items[i].fp);
        *failed |= items[i].failed;
    }
    return h;
}

/* The quick step's record: the digest, whether this rank read everything
 * without failure, then the rider's bytes (rounded up to 8). */
#define QUICK_HEAD (2 * sizeof(uint64_t))

/* A quick record's bytes with a rider of rlen bytes. */
static size_t quick_len(int rlen)
{
    return QUICK_HEAD + ((size_t)(rlen > 0 ? rlen : 0) + 7) / 8 * 8;
}

/* Every rank's quick record gathered in all (size records of len bytes):
 * 1 when every digest is the same and no rank failed (the same answer on
 * every rank: each holds every record), else 0; the riders compacted in
 * place to all's first size x rlen bytes, in rank order. */
static int quick_verdict(char *all, int size, size_t len, int rlen)
{
    uint64_t lo = UINT64_MAX, hi = 0, ok = 1;
    for (int r = 0; r < size; r++) {
        uint64_t d, f;
        memcpy(&d, all + (size_t)r * len, sizeof d);
        memcpy(&f, all + (size_t)r * len + sizeof d, sizeof f);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        ok &= f == 1;
    }
    for (int r = 0; r < size && rlen > 0; r++)
        memmove(all + (size_t)r * (size_t)rlen, all + (size_t)r * len + QUICK_HEAD, (size_t)rlen);
    return lo == hi && ok;
}

int hyt_agree_run(hyt_agree_item_t *items, int n, MPI_Comm comm, const void *rider, int rlen,
                  void **riders)
{
    int rank = 0, size = 1, failed;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (riders)
        *riders = NULL;
    if (rlen < 0 || (rlen > 0 && (!rider || !riders)))
        rlen = 0; /* a caller's error: no rider (the exchange keeps its shape only if
                   * every rank errs alike) */
    uint64_t d = digest(items, n, &failed), ok = !failed;
    size_t len = quick_len(rlen);
    const char *what = "the settings exchange";
    char *mine = hyt_small_alloc(len, what, HYT_TEST_FAIL_INIT);
    char *all = hyt_small_alloc(len * (size_t)size, what, HYT_TEST_FAIL_INIT);
    memcpy(mine, &d, sizeof d);
    memcpy(mine + sizeof d, &ok, sizeof ok);
    if (rlen > 0)
        memcpy(mine + QUICK_HEAD, rider, (size_t)rlen);
    int rc = hyt_init_allgather(mine, (int)len, all, comm);
    hyt_small_free(mine);
    int same = rc == MPI_SUCCESS && quick_verdict(all, size, len, rlen);
    if (rc == MPI_SUCCESS && rlen > 0)
        *riders = all; /* every rank's rider, whatever the verdicts */
    else
        hyt_small_free(all);
    if (same) {
        for (int i = 0; i < n; i++)
            items[i].verdict = HYT_AGREE_OK;
        return MPI_SUCCESS;
    }
    /* some rank differs or failed (the same on every rank: the digests'
     * minimum and maximum are global): compare item by item */
    uint64_t *v = hyt_small_alloc((size_t)(3 * n + 1) * sizeof *v, what, HYT_TEST_FAIL_INIT);
    if (rc == MPI_SUCCESS) {
        hyt_agree_pack(items, n, v);
        rc = hyt_init_allmin(v, 3 * n, comm);
    }
    if (rc == MPI_SUCCESS) {
        hyt_agree_verdicts(items, n, v);
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
        rc = report_differ(items, n, comm, rank, size);
    hyt_small_free(v);
    return rc;
}

size_t hyt_agree_bytes(int n, int size, int rlen)
{
    size_t p = size > 0 ? (size_t)size : 1, items = n > 0 ? (size_t)n : 1;
    return quick_len(rlen) * (p + 1)           /* mine, all */
           + (3 * items + 1) * sizeof(uint64_t) /* v */
           + 6 * items * sizeof(uint64_t)       /* hyt_init_allmin's */
           + 2 * p * sizeof(int)                /* report_differ's lengths (rank 0) */
           + 8 * 32;                            /* the reserve's chunk headers, alignment */
}
