/* Helpers shared by the runtime core's MPI tests.
 *
 * The same test source is built linked with hytune's static archive (the
 * test build: internals reachable) and without it (-plain, for LD_PRELOAD
 * runs and reference results).  The shared library exports only MPI entry
 * points, so a -plain program under LD_PRELOAD reaches no internals; it can
 * still see whether its MPI_Allreduce is hytune's (core_interposed). */
#ifndef HYT_TEST_CORE_UTIL_H
#define HYT_TEST_CORE_UTIL_H

#include "src/hyt.h"
#include "test/check.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Local copies of hytune helpers: the -plain build has no hytune symbols. */
static inline const char *core_coll_name(hyt_coll_t c)
{
    static const char *const names[HYT_NCOLL] = {
#define HYT_X(U, l, M, P) #l,
        HYT_COLL_LIST(HYT_X)
#undef HYT_X
    };
    return (unsigned)c < HYT_NCOLL ? names[c] : "?";
}

static inline int core_has_op(hyt_coll_t c)
{
    return c == HYT_COLL_ALLREDUCE || c == HYT_COLL_REDUCE || c == HYT_COLL_REDUCE_SCATTER_BLOCK;
}

static inline int core_has_root(hyt_coll_t c)
{
    return c == HYT_COLL_BCAST || c == HYT_COLL_REDUCE;
}

typedef hyt_comm_t *(*core_comm_get_fn)(MPI_Comm);

#ifdef HYT_TEST_PLAIN
/* No hytune internals in a -plain program. */
static inline core_comm_get_fn core_hytune(void)
{
    return NULL;
}
static inline int core_active(void)
{
    return 0;
}
static inline const hyt_config_t *core_cfg(void)
{
    return NULL;
}
static inline void core_foreach(void (*fn)(hyt_comm_t *ctx, void *arg), void *arg)
{
    (void)fn;
    (void)arg;
}
#else
/* hytune's context lookup (the test build links hytune in). */
static inline core_comm_get_fn core_hytune(void)
{
    return hyt_comm_get;
}
/* Is hytune active (initialized, mode not off)? */
static inline int core_active(void)
{
    return hyt_initialized;
}
static inline const hyt_config_t *core_cfg(void)
{
    return &hyt_cfg;
}
static inline void core_foreach(void (*fn)(hyt_comm_t *ctx, void *arg), void *arg)
{
    hyt_comm_foreach(fn, arg);
}
#endif

/* Is the MPI_Allreduce this program calls hytune's (linked in, or the shared
 * library preloaded)?  Asked of the dynamic linker about a public entry point. */
static inline int core_interposed(void)
{
    if (core_hytune())
        return 1;
    Dl_info info;
    return dladdr((void *)(uintptr_t)MPI_Allreduce, &info) && info.dli_fname &&
           strstr(info.dli_fname, "libhytune") != NULL;
}

/* Calls of collective c hytune counted on comm (all size buckets); -1 if
 * hytune is not active. */
static inline long long core_calls(MPI_Comm comm, hyt_coll_t c)
{
    if (!core_active())
        return -1;
    hyt_comm_t *ctx = core_hytune()(comm);
    if (!ctx)
        return -1;
    long long n = 0;
    for (int b = 0; b < HYT_NBUCKETS; b++)
        if (ctx->keys[c][b])
            n += (long long)ctx->keys[c][b]->calls;
    return n;
}

/* Expected mode from the environment, as the test launcher set it. */
static inline int core_expect_active(void)
{
    const char *m = getenv("HYTUNE_MODE");
    return !(m && strcmp(m, "off") == 0);
}

/* Combine every rank's verdict: the exit status is non-zero on all ranks if
 * any rank failed a check. */
static inline int core_done(const char *name)
{
    int mine = check_failures, any = 0;
    PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (any && !check_failures)
        check_failures = 1; /* another rank failed: fail here too */
    if (rank == 0 || mine)
        return check_done(name);
    return any ? 1 : 0;
}

#endif
