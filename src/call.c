/* The out-of-line forms of src/call.h. */
#include "src/call.h"

int hyt_pmpi_call(const hyt_args_t *a)
{
    return hyt_call_pmpi(a);
}

int hyt_call_pmpi_priv(const hyt_args_t *a)
{
    hyt_args_t b = *a;
    b.comm = a->ctx->priv;
    int rc = call_pmpi_on(&b);
    if (HYT_UNLIKELY(rc != MPI_SUCCESS)) /* the duplicate returns errors (src/comm.c) */
        PMPI_Comm_call_errhandler(a->comm, rc);
    return rc;
}

size_t hyt_selection_bytes(const hyt_args_t *a)
{
    return hyt_call_bytes(a);
}
