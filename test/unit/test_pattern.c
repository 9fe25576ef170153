/* Unit test of the k-ary pattern module (algorithms/pattern.[ch]) for every
 * p in 1..70 and k in 2..p+1: k-nomial trees (for several roots), recursive
 * multiplying blocks and rounds (simulated to completion), k-ring groups.
 * Only properties that a wrong schedule would break are checked. */
#include "algorithms/pattern.h"
#include "test/check.h"

#include <string.h>

#define PMAX 70

static int ilog_ceil(int p, int k) /* levels of a k-nomial tree of p ranks */
{
    int l = 0;
    for (long long v = 1; v < p; v *= k)
        l++;
    return l;
}

/* Walk the tree from every rank: one root, parent/child agreement, subtree
 * ranges tiling in relative order, depth bound, per-level fan-out <= k-1. */
static void check_tree(int p, int k, int root)
{
    static int nparent[PMAX], size[PMAX], kids[PMAX];
    hyt_kn_t t[PMAX];
    memset(nparent, 0, sizeof nparent);
    for (int r = 0; r < p; r++)
        hyt_kn_init(&t[r], p, k, root, r);
    for (int r = 0; r < p; r++) {
        CHECK((t[r].parent == -1) == (r == root), "p=%d k=%d root=%d rank %d parent %d", p, k,
              root, r, t[r].parent);
        CHECK(t[r].rel == (r - root + p) % p, "rel of %d", r);
        int n = hyt_kn_children(&t[r], kids, PMAX);
        CHECK(n == hyt_kn_nchildren(&t[r]), "child count p=%d k=%d r=%d", p, k, r);
        int next = t[r].rel + 1, sum = 1;
        for (int i = 0; i < n; i++) {
            int c = hyt_kn_abs(&t[r], kids[i]);
            CHECK(c >= 0 && c < p && c != r, "child %d of %d", c, r);
            if (c < 0 || c >= p)
                continue;
            nparent[c]++;
            CHECK(t[c].parent == r, "p=%d k=%d root=%d: %d lists child %d whose parent is %d",
                  p, k, root, r, c, t[c].parent);
            /* subtrees follow each other in relative rank order */
            CHECK(kids[i] == next, "p=%d k=%d root=%d rank %d child %d at rel %d, expected %d",
                  p, k, root, r, c, kids[i], next);
            next = kids[i] + hyt_kn_subtree(&t[c]);
            sum += hyt_kn_subtree(&t[c]);
        }
        CHECK(sum == hyt_kn_subtree(&t[r]), "p=%d k=%d rank %d subtree %d, children sum %d", p,
              k, r, hyt_kn_subtree(&t[r]), sum);
        size[r] = hyt_kn_subtree(&t[r]);
        for (long long m = 1; m < t[r].mask; m *= t[r].k)
            CHECK(hyt_kn_nchildren_at(&t[r], (int)m) <= hyt_kn_max_per_level(p, k),
                  "fan-out p=%d k=%d", p, k);
    }
    CHECK(size[root] == p, "root subtree %d of p=%d", size[root], p);
    for (int r = 0; r < p; r++) {
        CHECK(nparent[r] == (r == root ? 0 : 1), "p=%d k=%d root=%d rank %d has %d parents", p,
              k, root, r, nparent[r]);
        int depth = 0, x = r;
        while (t[x].parent >= 0 && depth <= p) {
            x = t[x].parent;
            depth++;
        }
        CHECK(x == root, "rank %d does not reach the root", r);
        CHECK(depth <= ilog_ceil(p, k < p ? k : p), "p=%d k=%d depth %d", p, k, depth);
        if (k == 2 && r != root) { /* binomial: clear the lowest set bit */
            int rel = t[r].rel;
            CHECK(t[r].parent == (rel - (rel & -rel) + root) % p, "binomial parent of %d", r);
        }
        if (k >= p && r != root)
            CHECK(t[r].parent == root, "flat tree p=%d k=%d", p, k);
    }
}

/* Blocks tile the ranks, leaders are block starts, sizes in 1..k. */
static void check_blocks(const hyt_rm_t *rm)
{
    int p = rm->p, k = rm->k;
    CHECK(rm->np >= 1 && rm->np <= p && (long long)rm->np * k > p, "p'=%d p=%d k=%d", rm->np,
          p, k);
    CHECK(hyt_pat_pow_floor(rm->np, k, NULL) == rm->np, "p'=%d not a power of %d", rm->np, k);
    CHECK(hyt_rm_block_start(rm, 0) == 0 && hyt_rm_block_start(rm, rm->np) == p,
          "blocks end at %d for p=%d", hyt_rm_block_start(rm, rm->np), p);
    for (int i = 0; i < rm->np; i++) {
        int s = hyt_rm_block_size(rm, i);
        CHECK(s >= 1 && s <= k, "p=%d k=%d block %d size %d", p, k, i, s);
        CHECK(hyt_rm_block_start(rm, i + 1) - hyt_rm_block_start(rm, i) == s, "block %d", i);
        for (int r = hyt_rm_block_start(rm, i); r < hyt_rm_block_start(rm, i + 1); r++)
            CHECK(hyt_rm_block_of(rm, r) == i, "p=%d k=%d rank %d in block %d, says %d", p, k,
                  r, i, hyt_rm_block_of(rm, r));
    }
    if (k == 2) /* recursive doubling: the first 2*(p-p') ranks pair up */
        for (int r = 0; r < p; r++)
            CHECK(hyt_rm_block_of(rm, r) == (r < 2 * (p - rm->np) ? r / 2 : r - (p - rm->np)),
                  "k=2 pairing p=%d rank %d", p, r);
}

/* Run the rounds on coverage ranges: each group is symmetric, members are
 * distinct, the union of their covers in j order is contiguous and equals
 * every member's next cover; at the end every leader covers all. */
static void check_rounds(const hyt_rm_t *rm)
{
    int p = rm->p, k = rm->k;
    for (int round = 1; round <= rm->m; round++) {
        int s = hyt_rm_spacing(rm, round);
        for (int i = 0; i < rm->np; i++) {
            int d = hyt_rm_digit(rm, i, s), next, lo, hi;
            CHECK(hyt_rm_peer(rm, i, s, d) == i, "p=%d k=%d leader %d not in own group", p, k,
                  i);
            hyt_rm_cover(hyt_rm_peer(rm, i, s, 0), s, &lo, &hi);
            next = lo;
            for (int j = 0; j < k; j++) {
                int q = hyt_rm_peer(rm, i, s, j);
                CHECK(q >= 0 && q < rm->np, "p=%d k=%d round %d peer %d", p, k, round, q);
                if (q < 0 || q >= rm->np)
                    continue;
                CHECK(hyt_rm_digit(rm, q, s) == j, "peer digit");
                CHECK(hyt_rm_peer(rm, q, s, d) == i, "p=%d k=%d round %d: %d->%d not mutual", p,
                      k, round, i, q);
                hyt_rm_cover(q, s, &lo, &hi);
                CHECK(lo == next, "p=%d k=%d round %d: member %d covers from %d, expected %d", p,
                      k, round, q, lo, next);
                next = hi;
            }
            hyt_rm_cover(i, s * k, &lo, &hi);
            CHECK(hi == next && hi - lo == s * k, "round %d result cover", round);
        }
    }
    int lo, hi;
    hyt_rm_cover(0, hyt_rm_spacing(rm, rm->m + 1), &lo, &hi);
    CHECK(lo == 0 && hi == rm->np, "p=%d k=%d final cover [%d,%d) of %d leaders", p, k, lo, hi,
          rm->np);
}

static void check_kring(int p, int k)
{
    hyt_kring_t g;
    hyt_kring_init(&g, p, k);
    CHECK(g.ngroups >= 1 && g.last >= 1 && g.last <= g.k, "p=%d k=%d groups", p, k);
    CHECK((g.ngroups - 1) * g.k + g.last == p, "p=%d k=%d groups do not tile", p, k);
    for (int r = 0; r < p; r++) {
        int grp = hyt_kring_group(&g, r);
        CHECK(hyt_kring_start(&g, grp) + hyt_kring_index(&g, r) == r, "rank %d position", r);
        CHECK(hyt_kring_index(&g, r) < hyt_kring_size(&g, grp), "rank %d index", r);
        CHECK(hyt_kring_neighbor(&g, r, 0) == r, "neighbor 0");
        int n = hyt_kring_neighbor(&g, r, 1);
        CHECK(hyt_kring_group(&g, n) == (grp + 1) % g.ngroups, "p=%d k=%d next group of %d", p,
              k, r);
        if (hyt_kring_index(&g, r) < hyt_kring_size(&g, hyt_kring_group(&g, n)))
            CHECK(hyt_kring_neighbor(&g, n, -1) == r, "p=%d k=%d ring not symmetric at %d", p,
                  k, r);
    }
}

/* k-dissemination: every rank hears from every other rank, directly or
 * through others, within ceil(log_k p) rounds; what a rank sends ahead is
 * exactly what the peers behind receive. */
static void check_dissemination(int p, int k)
{
    int kk = hyt_dis_k(p, k), rounds = 0;
    static unsigned char known[PMAX][PMAX], next[PMAX][PMAX];
    for (int r = 0; r < p; r++)
        for (int s = 0; s < p; s++)
            known[r][s] = r == s;
    for (long d = 1; d < p; d *= kk, rounds++) {
        memcpy(next, known, sizeof next);
        for (int r = 0; r < p; r++)
            for (int j = 1; j <= hyt_dis_nj(p, kk, d); j++) {
                int from = hyt_dis_peer(p, r, d, j, -1);
                CHECK(from != r, "p=%d k=%d rank %d hears from itself", p, k, r);
                CHECK(hyt_dis_peer(p, from, d, j, +1) == r, "p=%d k=%d send/receive mismatch",
                      p, k);
                for (int s = 0; s < p; s++)
                    next[r][s] |= known[from][s];
            }
        memcpy(known, next, sizeof known);
    }
    int want = 0;
    for (long v = 1; v < p; v *= kk)
        want++;
    CHECK(rounds == want, "p=%d k=%d: %d rounds, want ceil(log_k p) = %d", p, k, rounds, want);
    for (int r = 0; r < p; r++)
        for (int s = 0; s < p; s++)
            CHECK(known[r][s], "p=%d k=%d: rank %d never hears from %d", p, k, r, s);
}

static void check_helpers(void)
{
    int l;
    CHECK(hyt_pat_pow_floor(1, 2, &l) == 1 && l == 0, "pow_floor(1)");
    CHECK(hyt_pat_pow_floor(63, 4, &l) == 16 && l == 2, "pow_floor(63,4)");
    CHECK(hyt_pat_pow_floor(64, 4, &l) == 64 && l == 3, "pow_floor(64,4)");
    CHECK(hyt_pat_pow_ceil(17, 4) == 64 && hyt_pat_pow_ceil(1, 3) == 1, "pow_ceil");
    CHECK(hyt_pat_pow_ceil(0x40000001, 2) == 0x7fffffff, "pow_ceil saturates");
    for (int n = 0; n < 40; n++)
        for (int parts = 1; parts < 20; parts++) {
            CHECK(hyt_pat_split(n, parts, 0) == 0 && hyt_pat_split(n, parts, parts) == n,
                  "split ends");
            for (int i = 0; i < parts; i++) {
                long a = hyt_pat_split(n, parts, i), b = hyt_pat_split(n, parts, i + 1);
                CHECK(b - a == n / parts || b - a == n / parts + 1, "split %d/%d part %d", n,
                      parts, i);
            }
        }
}

int main(void)
{
    check_helpers();
    for (int p = 1; p <= PMAX; p++)
        for (int k = 2; k <= p + 1; k++) {
            int roots[3] = {0, p - 1, p / 2};
            if (p <= 12)
                for (int root = 0; root < p; root++)
                    check_tree(p, k, root);
            else
                for (int i = 0; i < 3; i++)
                    check_tree(p, k, roots[i]);
            hyt_rm_t rm;
            hyt_rm_init(&rm, p, k);
            CHECK(rm.k == (k <= p ? k : (p > 2 ? p : 2)), "k clamp p=%d k=%d -> %d", p, k,
                  rm.k);
            check_blocks(&rm);
            check_rounds(&rm);
            check_kring(p, k - 1); /* k-ring allows k = 1 */
            check_kring(p, k);
            check_dissemination(p, k);
        }
    return check_done("test_pattern");
}
