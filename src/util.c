/* Collective names, fallback reasons, datatype and op helpers. */
#include "hyt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const coll_names[HYT_NCOLL] = {
#define HYT_X(U, l, M, P) #l,
    HYT_COLL_LIST(HYT_X)
#undef HYT_X
};

const unsigned hyt_coll_prop_table[HYT_NCOLL] = {
#define HYT_X(U, l, M, P) P,
    HYT_COLL_LIST(HYT_X)
#undef HYT_X
};

const char *hyt_coll_name(hyt_coll_t c)
{
    return (unsigned)c < HYT_NCOLL ? coll_names[c] : "?";
}

int hyt_coll_from_name(const char *name)
{
    for (int c = 0; c < HYT_NCOLL; c++)
        if (strcmp(name, coll_names[c]) == 0)
            return c;
    return -1;
}

const char *hyt_coll_names(void)
{
    static const char list[] =
#define HYT_X(U, l, M, P) ", " #l
        HYT_COLL_LIST(HYT_X)
#undef HYT_X
        ;
    return list + 2;
}

int hyt_coll_has_op(hyt_coll_t c)
{
    return (hyt_coll_props(c) & HYT_CP_OP) != 0;
}

int hyt_coll_has_root(hyt_coll_t c)
{
    return (hyt_coll_props(c) & HYT_CP_ROOT) != 0;
}

void hyt_entry_name(hyt_coll_t c, int variant, char *buf, size_t len)
{
    const char *n = hyt_coll_name(c);
    int form = variant / 2, large = variant % 2;
    snprintf(buf, len, "MPI_%s%c%s%s%s", form == HYT_FORM_NONBLOCKING ? "I" : "",
             form == HYT_FORM_NONBLOCKING ? n[0] : n[0] - 'a' + 'A', n + 1,
             form == HYT_FORM_PERSISTENT ? "_init" : "", large ? "_c" : "");
}

static const char *const fb_names[HYT_NFB] = {
    [HYT_FB_NONE] = "none",
    [HYT_FB_INTERCOMM] = "intercommunicator",
    [HYT_FB_NONCOMMUTATIVE] = "non-commutative op",
    [HYT_FB_INPLACE] = "in-place not supported",
    [HYT_FB_LAYOUT] = "rank layout",
    [HYT_FB_ALGORITHM] = "declined by algorithm",
    [HYT_FB_SCRATCH] = "scratch memory",
    [HYT_FB_SETUP] = "set-up not yet repaid",
    [HYT_FB_SLOWER] = "slower at this scale",
};

const char *hyt_fallback_name(hyt_fallback_t f)
{
    return (unsigned)f < HYT_NFB ? fb_names[f] : "?";
}

int hyt_parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    double v = strtod(s, &end);
    uint64_t mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1024ull * 1024 * 1024, end++;
    if (end == s || *end || !(v >= 1) || !(v * (double)mul < 0x1p63))
        return -1;
    *out = (uint64_t)(v * (double)mul);
    return 0;
}

int hyt_type_is_contig(MPI_Datatype t)
{
    MPI_Aint lb, extent, tlb, textent;
    int size;
    PMPI_Type_size(t, &size);
    PMPI_Type_get_extent(t, &lb, &extent);
    PMPI_Type_get_true_extent(t, &tlb, &textent);
    return lb == 0 && tlb == 0 && extent == (MPI_Aint)size && textent == (MPI_Aint)size;
}

int hyt_op_is_commutative(MPI_Op op)
{
    int commute = 0;
    if (PMPI_Op_commutative(op, &commute) != MPI_SUCCESS)
        return 0;
    return commute;
}
