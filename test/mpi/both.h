/* One collective through MPI_ (hytune's wrappers, x = 0) and through PMPI_
 * (x = 1) on equal inputs: in the scope of the caller, sb[x] and rb[x] are
 * int buffers of cap bytes, filled with 0x5a before init runs (with s and r
 * naming them), and n is the count the messages name.  Both calls must
 * return MPI_SUCCESS and, when compare is true, the first nr ints of the two
 * receive buffers must be equal. */
#ifndef HYT_TEST_BOTH_H
#define HYT_TEST_BOTH_H

#include "test/check.h"

#include <string.h>

#define HYT_TEST_BOTH(what, nr, compare, init, call)                                           \
    do {                                                                                       \
        for (int x = 0; x < 2; x++) {                                                          \
            int *s = sb[x], *r = rb[x];                                                        \
            memset(r, 0x5a, cap);                                                              \
            memset(s, 0x5a, cap);                                                              \
            init;                                                                              \
            int rc_ = x ? P##call : call;                                                      \
            CHECK(rc_ == MPI_SUCCESS, "%s n=%ld via %s: error %d", what, (long)(n),           \
                  x ? "PMPI" : "MPI", rc_);                                                    \
        }                                                                                      \
        CHECK(!(compare) || memcmp(rb[0], rb[1], (size_t)(nr) * sizeof(int)) == 0,            \
              "%s n=%ld: the result differs from PMPI's", what, (long)(n));                    \
    } while (0)

#endif
