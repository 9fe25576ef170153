/* The private duplicate's ski rental (docs/memory.md), with HYTUNE_TABLE =
 * test/data/table-setup-rent.json (its setup_us edited by the testlist):
 * Allreduce calls alternate 8 ints (rule 0: knomial:2, expected gain 6 us)
 * and 256 ints (rule 1: recmult:2, gain 2 us).
 *   test_setup_rent F   the first call (1-based) that finds the private
 *                       duplicate made and runs the kernel is F (0: none
 *                       of the 12 calls).  Before it no duplicate exists
 *                       and every call ran MPI's own algorithm, counted as
 *                       the fallback "set-up not yet repaid"; from it on
 *                       every call runs the kernel.  Every result equals
 *                       PMPI's; every rank counts the same.
 *   test_setup_rent F W W = 1: MPI_COMM_WORLD's duplicate is made before
 *                       its first collective (the table's setup_world),
 *                       at the Bcast that comes before the Allreduce
 *                       calls, and MPI's own collectives (that Bcast, a
 *                       Reduce and a Bcast after them, which no rule set
 *                       covers) run on it; W = 0 (the default): not.
 *   test_setup_rent F W S  S = 1: the table's gains put rule 1 below MPI
 *                       at this scale, so the 256-int calls run MPI's own
 *                       algorithm, counted "slower at this scale", add no
 *                       rent and are not kernel calls; S = 0: they are. */
#include "src/hyt.h"
#include "test/check.h"
#include "test/mpi/both.h"

#include <stdlib.h>

#ifdef HYT_TEST_PLAIN
int main(void)
{
    return 0;
}
#else

#define NCALLS 12

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, first = argc > 1 ? atoi(argv[1]) : -1, early = argc > 2 ? atoi(argv[2]) : 0,
        slow = argc > 3 ? atoi(argv[3]) : 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK(first >= 0 && first <= NCALLS, "usage: test_setup_rent FIRST_KERNEL_CALL (0..%d)",
          NCALLS);
    enum { cap = 256 * sizeof(int) };
    int sb[2][256], rb[2][256];
    hyt_comm_t *ctx = hyt_comm_get(MPI_COMM_WORLD);
    uint64_t v[4] = {0, 0, 0, 0}; /* duplicate missing after a call, tuned, set-up
                                   * fallbacks, slower-at-scale fallbacks */
    long n = 8;
    HYT_TEST_BOTH("bcast", n, 1, for (long j = 0; j < n; j++) r[j] = me ? 0 : 11 * (int)j + 5,
                  MPI_Bcast(r, (int)n, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(ctx && ctx->mpi_on_priv == early && (ctx->priv != MPI_COMM_NULL) == early,
          "after the first collective: duplicate %s, MPI's own collectives on %s",
          ctx && ctx->priv != MPI_COMM_NULL ? "made" : "not made",
          ctx && ctx->mpi_on_priv ? "it" : "MPI_COMM_WORLD");
    HYT_TEST_BOTH("reduce", me == 0 ? n : 0, 1, for (long j = 0; j < n; j++) s[j] = me * 7 + (int)j,
                  MPI_Reduce(s, r, (int)n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    for (int i = 0; i < NCALLS; i++) {
        n = i % 2 ? 256 : 8;
        HYT_TEST_BOTH("allreduce", n, 1, for (long j = 0; j < n; j++) s[j] = me * 1000003 + (int)j * 7 + i,
                      MPI_Allreduce(s, r, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        int made = ctx && ctx->priv != MPI_COMM_NULL, want = early || (first && i + 1 >= first);
        CHECK(made == want, "after call %d: the private duplicate is %s", i + 1,
              made ? "made" : "not made");
        v[0] += !made;
    }
    n = 3;
    int last;
    MPI_Comm_size(MPI_COMM_WORLD, &last);
    last--;
    HYT_TEST_BOTH("bcast", n, 1, for (long j = 0; j < n; j++) r[j] = me == last ? 3 * (int)j + 1 : 0,
                  MPI_Bcast(r, (int)n, MPI_INT, last, MPI_COMM_WORLD));
    for (int b = 0; ctx && b < HYT_NBUCKETS; b++) {
        const hyt_key_t *k = ctx->keys[HYT_COLL_ALLREDUCE][b];
        if (k) {
            v[1] += k->tuned;
            v[2] += k->fallbacks[HYT_FB_SETUP];
            v[3] += k->fallbacks[HYT_FB_SLOWER];
        }
    }
    /* calls i + 1 >= first run the kernel, the others wait for the set-up;
     * with slow, the 256-int calls (odd i) neither */
    uint64_t kernels = 0, waited = 0, slower = 0, lo[4], hi[4];
    for (int i = 0; i < NCALLS; i++) {
        if (slow && i % 2)
            slower++;
        else if (first && i + 1 >= first)
            kernels++;
        else
            waited++;
    }
    CHECK(v[1] == kernels && v[2] == waited && v[3] == slower,
          "%llu calls ran the kernel, %llu waited for the set-up, %llu were slower at this "
          "scale; want %llu, %llu and %llu",
          (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3],
          (unsigned long long)kernels, (unsigned long long)waited, (unsigned long long)slower);
    PMPI_Allreduce(v, lo, 4, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(v, hi, 4, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(memcmp(lo, hi, sizeof lo) == 0, "ranks differ in their counts");
    if (me == 0)
        printf("setup rent: %llu calls before the duplicate, %llu kernel calls\n",
               (unsigned long long)v[0], (unsigned long long)v[1]);
    int rc = check_done("test_setup_rent");
    MPI_Finalize();
    return rc;
}
#endif
