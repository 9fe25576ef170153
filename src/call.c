/* The out-of-line forms of src/call.h. */
#include "src/call.h"

int hyt_pmpi_call(const hyt_args_t *a)
{
    return hyt_call_pmpi(a);
}

size_t hyt_selection_bytes(const hyt_args_t *a)
{
    return hyt_call_bytes(a);
}
