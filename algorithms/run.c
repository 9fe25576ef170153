/* Running one algorithm of the registry on a captured call: its restriction
 * checks (hyt_alg_check), its scratch, the kernel, and PMPI when the call
 * cannot be taken.  Not a kernel: the one file of algorithms/ besides the
 * point-to-point layer that names a communicator (the context lookup, the
 * private duplicate's presence, the application's error handler), so the
 * p2p lint (test/unit/lint_p2p.sh) leaves it out. */
#include "algorithms/algorithms.h"
#include "src/call.h"

#include <stdio.h>

/* A kernel's error goes through the error handler the application has on
 * the call's communicator, as an error inside MPI's own collective would
 * (hytune's communicators return errors to the kernel: src/comm.c).  The
 * first one is also logged, naming the algorithm: with MPI_ERRORS_ARE_FATAL
 * the handler aborts the job. */
static int kernel_error(const hyt_args_t *a, const hyt_alg_t *alg, int k, int rc)
{
    static int once;
    char msg[MPI_MAX_ERROR_STRING], kpart[16] = "";
    const char *what = msg;
    int len = 0;
    if (rc == MPI_ERR_NO_MEM) /* MPI's own string speaks of MPI_Alloc_mem */
        what = "its scratch memory could not be allocated beyond what the ranks had agreed "
               "on (MPI_ERR_NO_MEM; docs/memory.md)";
    else if (PMPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error code %d", rc);
    if (hyt_alg_has_radix(alg))
        snprintf(kpart, sizeof kpart, ":%d", k);
    hyt_log_once(&once, HYT_LOG_ERROR, HYT_TOPIC_ALG,
                 "%s %s%s failed on this rank: %s; the error goes to the communicator's "
                 "error handler", hyt_coll_name(a->coll), alg->name, kpart, what);
    PMPI_Comm_call_errhandler(a->comm, rc);
    return rc;
}

/* Does every rank hold the scratch alg needs (src/comm.c)? */
static int reserve(const hyt_args_t *a, const hyt_alg_t *alg, int k)
{
    size_t need[2];
    int local = hyt_alg_scratch(a, alg, k, need);
    return hyt_scratch_reserve(a->ctx, need, local);
}

int hyt_alg_run(hyt_args_t *a, const hyt_alg_t *alg, int k, hyt_fallback_t *fb)
{
    hyt_fallback_t why = HYT_FB_NONE;
    int rc;
    if (!a->ctx) {
        rc = hyt_pmpi_call(a);
    } else if (HYT_UNLIKELY(a->ctx->is_inter)) {
        /* never tuned, whatever was selected (native too): counted so the
         * stats show which calls hytune could not reach */
        why = HYT_FB_INTERCOMM;
        rc = hyt_pmpi_call(a);
    } else if (alg->flags & HYT_ALG_NATIVE) {
        rc = hyt_pmpi_call(a);
    } else {
        why = hyt_alg_check(alg, a);
        if (why != HYT_FB_NONE) {
            rc = hyt_pmpi_call(a);
        } else if (HYT_UNLIKELY(hyt_comm_priv(a->ctx) == MPI_COMM_NULL)) {
            /* kernels talk only on the private duplicate (algorithms/p2p.h);
             * MPI_Comm_dup is collective, so every rank gets here together */
            rc = kernel_error(a, alg, k, MPI_ERR_COMM);
        } else if (HYT_UNLIKELY(!reserve(a, alg, k))) {
            /* every rank alike (src/comm.c): none runs the kernel */
            why = HYT_FB_SCRATCH;
            rc = hyt_pmpi_call(a);
        } else {
            rc = alg->fn(a, k);
            if (HYT_UNLIKELY(rc == HYT_UNSUPPORTED)) {
                why = HYT_FB_ALGORITHM;
                rc = hyt_pmpi_call(a);
            } else if (HYT_UNLIKELY(rc != MPI_SUCCESS)) {
                rc = kernel_error(a, alg, k, rc);
            }
        }
    }
    if (fb)
        *fb = why;
    return rc;
}

int hyt_run_alg(hyt_args_t *a, const hyt_alg_t *alg, int k, hyt_fallback_t *fb)
{
    if (!a->ctx)
        a->ctx = hyt_comm_get(a->comm);
    if (a->ctx) /* the scratch bounds read them */
        a->bytes = hyt_call_size(a, a->ctx, &a->block);
    return hyt_alg_run(a, alg, k, fb);
}
