/* Small allocations whose failure on one rank would make that rank decide
 * apart from the others (docs/memory.md, "Small allocations"): a
 * communicator's context and node model, a selection key, an online key,
 * MPI_Init's settings exchange.  Each is made where no exchange precedes
 * it, so the ranks cannot agree on it without a collective of its own;
 * instead it never fails on one rank alone.  hyt_small_alloc tries calloc,
 * and when that fails serves the request from an emergency reserve every
 * rank took in MPI_Init (whose failure the settings exchange already
 * reports: every rank then runs off).  When the reserve cannot hold it
 * either, the rank cannot stay in step with the others: it stops the job
 * with MPI_Abort and one message, instead of hanging it.
 *
 * The reserve is one block carved into chunks, each with a header (its
 * size and whether it is in use) and laid end to end: first fit, split on
 * allocation, merged with free neighbours on free.  It is used only when
 * malloc fails, so a linear walk is fast enough; hyt_small_free tells
 * reserve memory from malloc's by its address. */
#include "hyt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct chunk {
    size_t size; /* bytes of the chunk, this header included; a multiple of ALIGN */
    size_t used; /* 0: free; else the bytes asked for */
} chunk_t;

#define ALIGN 16
_Static_assert(sizeof(chunk_t) % ALIGN == 0, "chunk header keeps the alignment");

static char *area;      /* the reserve, or NULL */
static size_t area_size;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static hyt_small_use_t use;

size_t hyt_small_reserve_bytes(int world_size, size_t init_bytes)
{
    size_t p = world_size > 0 ? (size_t)world_size : 1;
    return HYT_SMALL_FIXED + init_bytes + p * HYT_SMALL_PER_RANK;
}

int hyt_small_reserve_take(size_t bytes)
{
    hyt_small_release();
    if (hyt_test_fail(HYT_TEST_FAIL_EMERGENCY, hyt_world_rank))
        return 0;
    if (hyt_test_fail(HYT_TEST_FAIL_SPENT, hyt_world_rank))
        bytes = 0; /* tests: held, and empty */
    bytes = bytes / ALIGN * ALIGN;
    /* malloc, not calloc: pages nobody touches are not resident (a large
     * block is mapped on demand); a chunk is cleared when it is served */
    char *a = bytes ? malloc(bytes) : NULL;
    if (bytes && !a)
        return 0;
    area = a;
    area_size = bytes;
    if (a) {
        chunk_t *c = (chunk_t *)(void *)a;
        c->size = bytes;
        c->used = 0;
    }
    memset(&use, 0, sizeof use);
    use.reserve = bytes;
    use.held = 1;
    return 1;
}

void hyt_small_release(void)
{
    pthread_mutex_lock(&lock);
    if (use.in_use == 0) { /* else some chunk is still someone's: keep it */
        free(area);
        area = NULL;
        area_size = 0;
        use.held = 0;
    }
    pthread_mutex_unlock(&lock);
}

static chunk_t *next(chunk_t *c)
{
    return (chunk_t *)(void *)((char *)c + c->size);
}

static int in_area(const void *p)
{
    return area && (const char *)p >= area && (const char *)p < area + area_size;
}

/* First fit of n bytes in the reserve, cleared; NULL if no chunk holds it. */
static void *reserve_alloc(size_t n)
{
    size_t need = sizeof(chunk_t) + (n + ALIGN - 1) / ALIGN * ALIGN;
    if (need < n)
        return NULL;
    void *out = NULL;
    pthread_mutex_lock(&lock);
    for (chunk_t *c = (chunk_t *)(void *)area; area && (char *)c < area + area_size; c = next(c)) {
        if (c->used || c->size < need)
            continue;
        if (c->size - need >= 2 * sizeof(chunk_t)) { /* split: the rest stays free */
            chunk_t *rest = (chunk_t *)(void *)((char *)c + need);
            rest->size = c->size - need;
            rest->used = 0;
            c->size = need;
        }
        c->used = n ? n : 1;
        out = c + 1;
        memset(out, 0, c->size - sizeof(chunk_t));
        use.allocations++;
        use.bytes += n;
        use.in_use += c->size;
        if (use.in_use > use.peak)
            use.peak = use.in_use;
        break;
    }
    pthread_mutex_unlock(&lock);
    return out;
}

static void reserve_free(void *p)
{
    pthread_mutex_lock(&lock);
    chunk_t *c = (chunk_t *)p - 1;
    use.in_use -= c->size;
    c->used = 0;
    /* merge every run of free chunks (the one freed may join both sides) */
    for (chunk_t *a = (chunk_t *)(void *)area; (char *)a < area + area_size; a = next(a))
        while (!a->used && (char *)next(a) < area + area_size && !next(a)->used)
            a->size += next(a)->size;
    pthread_mutex_unlock(&lock);
}

/* The rank cannot stay in step: one message (errors are always printed,
 * by the rank that finds them), and the job stops. */
static void stop(size_t n, const char *what)
{
    hyt_error(HYT_TOPIC_CORE,
              "world rank %d is out of memory: %zu bytes for %s, and hytune's emergency reserve "
              "(%zu bytes, %zu in use) cannot hold them either; this rank would decide apart "
              "from the others and hang the job, so hytune stops the job; run with "
              "HYTUNE_MODE=off, or give each rank more memory",
              hyt_world_rank, n, what, area_size, use.in_use);
#ifdef HYT_SMPI
    /* SMPI's MPI_Abort ends the calling rank only, and the others would wait
     * for it (a deadlock SimGrid ends with status 0); every rank is this
     * one process */
    fflush(NULL);
    _exit(1);
#else
    /* the launcher forwards the message while it tears the job down, and
     * was seen to lose it (once in a dozen runs of MPICH's mpiexec): let
     * it read the message first */
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort does not return */
#endif
}

void *hyt_small_alloc(size_t n, const char *what, int site)
{
    int r = hyt_world_rank;
    int fail = site >= 0 && (hyt_test_fail(site, r) ||
                             (site == HYT_TEST_FAIL_KEY && hyt_test_fail(HYT_TEST_FAIL_SPENT, r)));
    void *p = fail ? NULL : calloc(1, n ? n : 1);
    if (HYT_LIKELY(p != NULL))
        return p;
    if ((p = reserve_alloc(n)) == NULL)
        stop(n, what);
    return p;
}

void hyt_small_free(void *p)
{
    if (HYT_UNLIKELY(in_area(p)))
        reserve_free(p);
    else
        free(p);
}

void hyt_small_use(hyt_small_use_t *out)
{
    pthread_mutex_lock(&lock);
    *out = use;
    pthread_mutex_unlock(&lock);
}
