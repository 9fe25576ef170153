/* The emergency reserve of small allocations (src/small.c): with calloc
 * made to fail (the test hook, site ctx, on this "world rank"), requests
 * are served from the reserve, cleared, aligned and apart; a freed chunk is
 * reused and free neighbours merge, so after every free the whole reserve
 * serves one request again; hyt_small_free tells reserve memory from
 * malloc's; the counters add up; the reserve is kept while a chunk is in
 * use.  The stop when the reserve is spent is tested with MPI
 * (test/mpi/alloc_agree.sh spent). */
#include "src/hyt.h"
#include "test/check.h"

#include <stdint.h>
#include <string.h>

#define RESERVE 4096

static void *take(size_t n)
{
    return hyt_small_alloc(n, "a test", HYT_TEST_FAIL_CTX);
}

static int zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int main(void)
{
    hyt_world_rank = 0;
    hyt_cfg.test_kernel_fail = 0;
    hyt_cfg.test_kernel_fail_at = HYT_TEST_FAIL_CTX;
    CHECK(hyt_small_reserve_bytes(100, 1000) == HYT_SMALL_FIXED + 1000 + 100 * HYT_SMALL_PER_RANK,
          "reserve size %zu", hyt_small_reserve_bytes(100, 1000));
    CHECK(hyt_small_reserve_take(RESERVE) == 1, "cannot take %d bytes", RESERVE);

    /* served from the reserve: cleared, aligned, apart */
    size_t sizes[3] = {100, 1, 700};
    unsigned char *p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = take(sizes[i]);
        CHECK(p[i] && zero(p[i], sizes[i]), "request %d not cleared", i);
        CHECK(((uintptr_t)p[i] & 15) == 0, "request %d not aligned: %p", i, (void *)p[i]);
        memset(p[i], 0xa0 + i, sizes[i]);
    }
    for (int i = 0; i < 3; i++)
        for (size_t b = 0; b < sizes[i]; b++)
            if (p[i][b] != 0xa0 + i) {
                CHECK(0, "request %d overwritten at byte %zu", i, b);
                break;
            }
    hyt_small_use_t u;
    hyt_small_use(&u);
    CHECK(u.held && u.reserve == RESERVE && u.allocations == 3 && u.bytes == 801,
          "counters: held %d, reserve %zu, %llu allocations of %llu bytes", u.held, u.reserve,
          (unsigned long long)u.allocations, (unsigned long long)u.bytes);
    CHECK(u.in_use > 801 && u.in_use == u.peak, "in use %zu, peak %zu", u.in_use, u.peak);

    /* first fit: a freed chunk serves the next request that fits it, cleared */
    unsigned char *mid = p[1];
    hyt_small_free(mid);
    p[1] = take(8);
    CHECK(p[1] == mid && zero(p[1], 8), "the freed chunk was not reused (%p, %p)", (void *)p[1],
          (void *)mid);

    /* too large for what is left: the request cannot be served (not asked:
     * it would stop the process); after every free, neighbours merged, the
     * whole reserve serves one request */
    for (int i = 0; i < 3; i++)
        hyt_small_free(p[i]);
    hyt_small_use(&u);
    CHECK(u.in_use == 0, "%zu bytes still in use after every free", u.in_use);
    unsigned char *all = take(RESERVE - 16);
    CHECK(all && zero(all, RESERVE - 16), "the merged reserve does not serve %d bytes",
          RESERVE - 16);

    /* malloc's memory goes back to free (valgrind: no leak, no bad free) */
    hyt_cfg.test_kernel_fail = -1;
    void *heap = take(64);
    hyt_small_use(&u);
    CHECK(heap && u.allocations == 5, "calloc's memory was counted as the reserve's");
    hyt_small_free(heap);

    /* kept while a chunk is in use, freed after */
    hyt_small_release();
    hyt_small_use(&u);
    CHECK(u.held, "the reserve was freed with a chunk in use");
    hyt_small_free(all);
    hyt_small_release();
    hyt_small_use(&u);
    CHECK(!u.held, "the reserve was not freed");
    return check_done("test_small");
}
