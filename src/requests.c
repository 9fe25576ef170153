/* Completion times of nonblocking and persistent collectives.
 *
 * A counted MPI_I<coll> (or MPI_<Coll>_init) leaves its request here with
 * its statistics key and start time; the Wait and Test family (and
 * MPI_Start/Startall for persistent requests) look the request up and add
 * start-to-completion time to the key.  Nothing drives progress: a
 * collective is timed when the application itself completes it.
 *
 * Cost: every wrapper below first tests hyt_req_live, the number of
 * entries; while hytune has no request outstanding (always, in off mode)
 * a Wait or Test is one load and a branch more than PMPI's.  The table is an
 * open-addressed hash on the request handle (linear probing, deletion by
 * backward shift), used only below MPI_THREAD_MULTIPLE.
 *
 * A request completed behind hytune's back (by a PMPI_* call of another
 * tool) stays in the table until its handle is reused: the new request's
 * entry replaces it, so no time is attributed twice. */
#include "hyt.h"

#include <stdlib.h>
#include <string.h>

int hyt_req_live;

typedef struct req_entry {
    MPI_Request req;
    hyt_key_t *key; /* NULL: empty slot */
    double t0;
    int persistent; /* stays after completion until MPI_Request_free */
    int active;     /* started and not yet completed */
} req_entry_t;

static req_entry_t *tab;
static size_t cap; /* power of two, or 0 */

static size_t slot_of(MPI_Request r)
{
    uint64_t h = 0;
    memcpy(&h, &r, sizeof r < sizeof h ? sizeof r : sizeof h);
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

static req_entry_t *find(MPI_Request r)
{
    if (!cap || r == MPI_REQUEST_NULL)
        return NULL;
    for (size_t i = slot_of(r);; i = (i + 1) & (cap - 1)) {
        if (!tab[i].key)
            return NULL;
        if (tab[i].req == r)
            return &tab[i];
    }
}

static void put(req_entry_t e)
{
    size_t i = slot_of(e.req);
    while (tab[i].key && tab[i].req != e.req)
        i = (i + 1) & (cap - 1);
    if (!tab[i].key)
        hyt_req_live++;
    tab[i] = e;
}

static int grow(void)
{
    size_t old_cap = cap;
    req_entry_t *old = tab;
    size_t ncap = cap ? 2 * cap : 64;
    req_entry_t *n = calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    tab = n;
    cap = ncap;
    hyt_req_live = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            put(old[i]);
    free(old);
    return 0;
}

/* Remove entry e, shifting the following run back so lookups need no tombstones. */
static void erase(req_entry_t *e)
{
    size_t i = (size_t)(e - tab), j = i;
    tab[i].key = NULL;
    hyt_req_live--;
    for (;;) {
        j = (j + 1) & (cap - 1);
        if (!tab[j].key)
            return;
        size_t home = slot_of(tab[j].req);
        /* move j back to i unless its home lies cyclically in (i, j] */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            tab[i] = tab[j];
            tab[j].key = NULL;
            i = j;
        }
    }
}

void hyt_req_add(MPI_Request r, hyt_key_t *key, double t0, int persistent)
{
    if (r == MPI_REQUEST_NULL)
        return;
    if ((size_t)(hyt_req_live + 1) * 2 > cap && grow() != 0)
        return; /* out of memory: the call stays counted, untimed */
    put((req_entry_t){.req = r, .key = key, .t0 = t0, .persistent = persistent,
                      .active = !persistent});
}

void hyt_req_forget(MPI_Request r)
{
    req_entry_t *e = find(r);
    if (e)
        erase(e);
}

void hyt_req_rekey(const hyt_key_t *old, hyt_key_t *new_key)
{
    if (!hyt_req_live)
        return;
    for (size_t i = 0; i < cap; i++)
        if (tab[i].key == old) {
            if (new_key) {
                tab[i].key = new_key;
            } else {
                erase(&tab[i]);
                i--; /* erase may have moved another entry into slot i */
            }
        }
}

void hyt_req_clear(void)
{
    free(tab);
    tab = NULL;
    cap = 0;
    hyt_req_live = 0;
}

/* Request r (its handle before the call that completed it) is complete at now. */
static void complete(MPI_Request r, double now)
{
    req_entry_t *e = find(r);
    if (!e)
        return;
    if (e->active) {
        e->key->time += now - e->t0;
        e->key->timed_calls++;
        e->active = 0;
    }
    if (!e->persistent)
        erase(e);
}

static void start(MPI_Request r)
{
    req_entry_t *e = find(r);
    if (e) {
        e->active = 1;
        e->t0 = PMPI_Wtime();
    }
}

/* ---- the Wait and Test family ------------------------------------------------
 * The handles are saved before the call (MPI sets completed non-persistent
 * requests to MPI_REQUEST_NULL); only handles found in the table are kept. */
#define HYT_REQ_SAVED 16

typedef struct saved {
    int n;
    int idx[HYT_REQ_SAVED]; /* beyond HYT_REQ_SAVED hits: all of reqs in all */
    MPI_Request req[HYT_REQ_SAVED];
    MPI_Request *all;
} saved_t;

static void save(saved_t *s, int count, const MPI_Request *reqs)
{
    s->n = 0;
    s->all = NULL;
    for (int i = 0; i < count; i++)
        if (find(reqs[i])) {
            if (s->n == HYT_REQ_SAVED) {
                s->all = malloc((size_t)count * sizeof *s->all);
                if (s->all)
                    memcpy(s->all, reqs, (size_t)count * sizeof *s->all);
                return;
            }
            s->idx[s->n] = i;
            s->req[s->n++] = reqs[i];
        }
}

/* The saved handle at index i, or MPI_REQUEST_NULL if it is not hytune's. */
static MPI_Request saved_at(const saved_t *s, int i)
{
    if (s->all)
        return s->all[i];
    for (int j = 0; j < s->n; j++)
        if (s->idx[j] == i)
            return s->req[j];
    return MPI_REQUEST_NULL;
}

/* The call completed every request (done) or none: free what save() allocated. */
static void complete_all(saved_t *s, int count, int done)
{
    double now = done ? PMPI_Wtime() : 0;
    if (s->all) {
        for (int i = 0; done && i < count; i++)
            complete(s->all[i], now);
        free(s->all);
    } else {
        for (int j = 0; done && j < s->n; j++)
            complete(s->req[j], now);
    }
}

static void complete_some(saved_t *s, int n, const int *indices)
{
    double now = PMPI_Wtime();
    for (int j = 0; j < n; j++)
        complete(saved_at(s, indices[j]), now);
    free(s->all);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (HYT_LIKELY(!hyt_req_live))
        return PMPI_Wait(request, status);
    MPI_Request r = *request;
    int rc = PMPI_Wait(request, status);
    if (rc == MPI_SUCCESS)
        complete(r, PMPI_Wtime());
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (HYT_LIKELY(!hyt_req_live))
        return PMPI_Test(request, flag, status);
    MPI_Request r = *request;
    int rc = PMPI_Test(request, flag, status);
    if (rc == MPI_SUCCESS && *flag)
        complete(r, PMPI_Wtime());
    return rc;
}

/* The members taking an array: save hytune's handles, call PMPI, then
 * AFTER completes those the call completed (rc is PMPI's return code). */
#define HYT_REQ_ARRAY(Name, PARAMS, ARGS, count, AFTER)                                    \
    int MPI_##Name PARAMS                                                                  \
    {                                                                                      \
        if (HYT_LIKELY(!hyt_req_live))                                                     \
            return PMPI_##Name ARGS;                                                       \
        saved_t s;                                                                         \
        save(&s, count, requests);                                                         \
        int rc = PMPI_##Name ARGS;                                                         \
        AFTER;                                                                             \
        return rc;                                                                         \
    }

HYT_REQ_ARRAY(Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]),
              (count, requests, statuses), count,
              complete_all(&s, count, rc == MPI_SUCCESS))
HYT_REQ_ARRAY(Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]),
              (count, requests, flag, statuses), count,
              complete_all(&s, count, rc == MPI_SUCCESS && *flag))
HYT_REQ_ARRAY(Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status),
              (count, requests, index, status), count,
              complete_some(&s, rc == MPI_SUCCESS && *index != MPI_UNDEFINED, index))
HYT_REQ_ARRAY(Testany,
              (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status),
              (count, requests, index, flag, status), count,
              complete_some(&s, rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED, index))
HYT_REQ_ARRAY(Waitsome,
              (int incount, MPI_Request requests[], int *outcount, int indices[],
               MPI_Status statuses[]),
              (incount, requests, outcount, indices, statuses), incount,
              complete_some(&s, rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0,
                            indices))
HYT_REQ_ARRAY(Testsome,
              (int incount, MPI_Request requests[], int *outcount, int indices[],
               MPI_Status statuses[]),
              (incount, requests, outcount, indices, statuses), incount,
              complete_some(&s, rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0,
                            indices))

int MPI_Start(MPI_Request *request)
{
    if (HYT_LIKELY(!hyt_req_live))
        return PMPI_Start(request);
    int rc = PMPI_Start(request);
    if (rc == MPI_SUCCESS)
        start(*request);
    return rc;
}

int MPI_Startall(int count, MPI_Request requests[])
{
    if (HYT_LIKELY(!hyt_req_live))
        return PMPI_Startall(count, requests);
    int rc = PMPI_Startall(count, requests);
    for (int i = 0; rc == MPI_SUCCESS && i < count; i++)
        start(requests[i]);
    return rc;
}

int MPI_Request_free(MPI_Request *request)
{
    if (HYT_LIKELY(!hyt_req_live))
        return PMPI_Request_free(request);
    hyt_req_forget(*request);
    return PMPI_Request_free(request);
}
