/* k-ary communication patterns shared by all algorithm kernels.
 *
 * Pure peer arithmetic (no MPI calls) for the three generalized families,
 * plus a few datatype helpers every kernel needs.  Everything here is a
 * function of (p, k, rank[, root]) only, so every rank derives the same
 * schedule without communication.  test/unit/test_pattern.c checks the
 * structural properties for every p in 1..70 and k in 2..p+1.
 *
 * k-nomial tree (hyt_kn_*): ranks are taken relative to the root,
 *   rel = (rank - root + p) % p.  A node rel != 0 receives at the level
 *   mask = k^l where l is the lowest base-k digit of rel that is non-zero;
 *   its parent is rel with that digit cleared, and its subtree is the
 *   contiguous relative range [rel, min(rel + mask, p)).  Its children are
 *   rel + j*m for every level m = 1, k, k^2, ... < mask and j = 1..k-1 (while
 *   < p).  The root's "mask" is the smallest power of k >= p.  Ordering the
 *   children by (m ascending, j ascending) orders their subtrees by relative
 *   rank, which is what a reduction needs to keep operand order.  k = 2 is
 *   the binomial tree; k >= p gives a flat tree (all ranks children of root).
 *
 * Recursive multiplying (hyt_rm_*): p' = k^m is the largest power of k <= p
 *   (k is clamped to p first, so k > p acts as p).  The p ranks are split
 *   into p' contiguous blocks (the first p % p' blocks hold one rank more;
 *   every block holds 1..k ranks).  The first rank of a block is its leader;
 *   the others fold in to it before the rounds and get the result from it
 *   after (fold out).  In round r = 1..m leaders exchange within groups of k
 *   whose leader indices are base + j*k^(r-1), j = 0..k-1 (base has base-k
 *   digit r-1 equal to 0).  After round r a leader covers the k^r leader
 *   blocks that agree with it above digit r-1: a contiguous range of ranks
 *   in rank order, so combining group members in j order keeps operand
 *   order.  k = 2 is recursive doubling with the usual 2*(p - p') pairing.
 *
 * k-ring groups (hyt_kring_*): ranks split into ceil(p/k) groups of k
 *   consecutive ranks; the last group holds p - (ngroups-1)*k ranks (1..k)
 *   when k does not divide p.  Neighbours are the same position in the next
 *   or previous group (wrapping), clamped into a short last group.
 *
 * Kernels built on these (algorithms/<coll>/knomial.c, recmult.c) put data
 * in hyt_scratch() and request arrays in hyt_scratch2(); a caller composing
 * kernels must not hold pointers into either across a kernel call. */
#ifndef HYT_PATTERN_H
#define HYT_PATTERN_H

#include "src/hyt.h"

/* ---- integer helpers ---- */
/* Largest power of k that is <= n (n >= 1, k >= 2); *levels gets its exponent. */
int hyt_pat_pow_floor(int n, int k, int *levels);
/* Smallest power of k that is >= n (n >= 1, k >= 2). */
int hyt_pat_pow_ceil(int n, int k);
/* Start of part i when n items are split into parts as evenly as possible
 * (the first n % parts get one more); part i is [start(i), start(i+1)),
 * start(parts) == n.  Parts may be empty when n < parts. */
static inline long hyt_pat_split(long n, int parts, int i)
{
    long q = n / parts, r = n % parts;
    return (long)i * q + (i < r ? i : r);
}

/* ---- k-nomial tree ---- */
typedef struct hyt_kn {
    int p, k, root;
    int rel;    /* my rank relative to root */
    int mask;   /* my subtree spans [rel, rel + mask) relative ranks (clamped to p) */
    int parent; /* absolute rank of my parent, -1 at the root */
} hyt_kn_t;

/* k >= 2; k > p behaves as p. */
void hyt_kn_init(hyt_kn_t *t, int p, int k, int root, int rank);
static inline int hyt_kn_abs(const hyt_kn_t *t, int rel)
{
    return (rel + t->root) % t->p;
}
/* Number of ranks in my subtree (me included). */
static inline int hyt_kn_subtree(const hyt_kn_t *t)
{
    return t->p - t->rel < t->mask ? t->p - t->rel : t->mask;
}
/* Number of my children at level m (a power of k below my mask). */
int hyt_kn_nchildren_at(const hyt_kn_t *t, int m);
/* Total number of my children. */
int hyt_kn_nchildren(const hyt_kn_t *t);
/* Relative rank of child j (1..nchildren_at(m)) at level m and its subtree size. */
static inline int hyt_kn_child_rel(const hyt_kn_t *t, int m, int j)
{
    return t->rel + j * m;
}
static inline int hyt_kn_child_subtree(const hyt_kn_t *t, int m, int j)
{
    int c = t->rel + j * m;
    return t->p - c < m ? t->p - c : m;
}
/* Children in subtree (relative rank) order: fills rel[] (up to max
 * entries) and returns the total count.  Tests and simple kernels. */
int hyt_kn_children(const hyt_kn_t *t, int *rel, int max);
/* A k-nomial tree moving one block per rank as packed bytes (Gather and
 * Scatter): the tree, the block's byte size bsz (the same on every rank),
 * my children count nch and subtree size n, requests for the children and
 * a scratch area tmp of p (root) or n blocks; ext is the extent of the
 * (count, type) given to hyt_knb_init. */
typedef struct hyt_knb {
    hyt_kn_t t;
    int root, nch, n;
    long bsz;
    MPI_Request *req;
    char *tmp;
    MPI_Aint ext;
} hyt_knb_t;
/* (count, type): the root's p-block buffer at the root, my block elsewhere.
 * MPI_SUCCESS with bsz = 0 when there is nothing to move, HYT_UNSUPPORTED
 * when p blocks overflow an int of bytes, MPI_ERR_NO_MEM. */
int hyt_knb_init(hyt_knb_t *b, hyt_comm_t *ctx, int k, int root, int count, MPI_Datatype type);
/* Largest number of children any level of any node has: min(k-1, p-1). */
static inline int hyt_kn_max_per_level(int p, int k)
{
    return p <= 1 ? 0 : (k - 1 < p - 1 ? k - 1 : p - 1);
}

/* ---- recursive multiplying ---- */
typedef struct hyt_rm {
    int p, k;     /* k clamped to [2, max(p,2)] */
    int np;       /* p' = k^m leaders (blocks) */
    int m;        /* rounds */
    int q, rem;   /* blocks hold q or q+1 ranks; the first rem hold q+1 */
} hyt_rm_t;

void hyt_rm_init(hyt_rm_t *r, int p, int k);
/* Block (leader index) that rank belongs to. */
int hyt_rm_block_of(const hyt_rm_t *r, int rank);
/* First rank of block i (i = 0..np; start(np) == p); it is block i's leader. */
static inline int hyt_rm_block_start(const hyt_rm_t *r, int i)
{
    return i * r->q + (i < r->rem ? i : r->rem);
}
static inline int hyt_rm_block_size(const hyt_rm_t *r, int i)
{
    return r->q + (i < r->rem ? 1 : 0);
}
/* Spacing of round `round` (1..m): k^(round-1). */
int hyt_rm_spacing(const hyt_rm_t *r, int round);
/* My position j (0..k-1) in my round-`round` group (leader index i). */
static inline int hyt_rm_digit(const hyt_rm_t *r, int i, int spacing)
{
    return (i / spacing) % r->k;
}
/* Leader index of member j of leader i's group in the round of this spacing. */
static inline int hyt_rm_peer(const hyt_rm_t *r, int i, int spacing, int j)
{
    return i - hyt_rm_digit(r, i, spacing) * spacing + j * spacing;
}
/* Leader-index range [*lo, *hi) that leader i covers after the rounds of
 * spacing < `spacing` (before the round of that spacing): the s = spacing
 * aligned leaders containing i. */
static inline void hyt_rm_cover(int i, int spacing, int *lo, int *hi)
{
    *lo = i - i % spacing;
    *hi = *lo + spacing;
}

/* ---- k-ring groups ---- */
typedef struct hyt_kring {
    int p, k;     /* k clamped to [1, max(p,1)] */
    int ngroups;  /* ceil(p / k) */
    int last;     /* size of the last group (1..k) */
} hyt_kring_t;

void hyt_kring_init(hyt_kring_t *g, int p, int k);
static inline int hyt_kring_group(const hyt_kring_t *g, int rank)
{
    return rank / g->k;
}
static inline int hyt_kring_index(const hyt_kring_t *g, int rank)
{
    return rank % g->k;
}
static inline int hyt_kring_start(const hyt_kring_t *g, int grp)
{
    return grp * g->k;
}
static inline int hyt_kring_size(const hyt_kring_t *g, int grp)
{
    return grp == g->ngroups - 1 ? g->last : g->k;
}
/* Rank at position idx of group grp + d (d may be negative; groups wrap),
 * with idx clamped into a short group. */
int hyt_kring_neighbor(const hyt_kring_t *g, int rank, int d);

/* ---- k-dissemination ----
 * Rounds with distance d = 1, k, k^2, ... < p; in a round every rank sends
 * to rank + j*d and hears from rank - j*d (mod p) for j = 1..k-1 while
 * j*d < p.  After the round of distance d a rank has heard, directly or
 * through others, from the k*d ranks below it (mod p): ceil(log_k p)
 * rounds reach every rank.  k is clamped to [2, max(p,2)]. */
static inline int hyt_dis_k(int p, int k)
{
    int hi = p > 2 ? p : 2;
    return k < 2 ? 2 : (k > hi ? hi : k);
}
/* Peers j*d ahead (dir = +1) or behind (dir = -1) of rank. */
static inline int hyt_dis_peer(int p, int rank, long d, int j, int dir)
{
    long off = (long)j * d % p;
    return (int)(((long)rank + dir * off + p) % p);
}
/* Number of j with j*d < p, j = 1..k-1. */
static inline int hyt_dis_nj(int p, int k, long d)
{
    long n = (p - 1) / d;
    return n < k - 1 ? (int)n : k - 1;
}

/* ---- datatype helpers ---- */
/* The blocks lo..hi-1 of a v-variant buffer (counts[i] elements of type at
 * displs[i] extents) as one committed datatype for a count of 1 (free it
 * with PMPI_Type_free).  Displacements need not be contiguous or ordered. */
int hyt_pat_vrange(const int *counts, const int *displs, int lo, int hi, MPI_Datatype type,
                   MPI_Datatype *out);
/* Signature size in bytes of count elements of type. */
static inline long hyt_pat_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return count > 0 ? (long)count * size : 0;
}
/* Bytes needed for count elements of type and the offset to apply to a
 * buffer start so element 0 lands right: buf = raw - true_lb. */
size_t hyt_pat_span(int count, MPI_Datatype type, MPI_Aint *true_lb);
/* Address of element i of a buffer of type (by extent). */
static inline void *hyt_pat_at(const void *buf, MPI_Aint extent, long i)
{
    return (char *)(uintptr_t)buf + (MPI_Aint)i * extent;
}
/* A pool of n buffers of (count, type) each, carved from hyt_scratch:
 * hyt_pat_pool_buf(pool, i) is ready to pass to MPI (true_lb applied). */
typedef struct hyt_pat_pool {
    char *base;
    size_t stride;
    MPI_Aint true_lb;
} hyt_pat_pool_t;
/* 0, or -1 if out of memory. */
int hyt_pat_pool(hyt_pat_pool_t *pool, hyt_comm_t *ctx, int count, MPI_Datatype type, int n);
static inline void *hyt_pat_pool_buf(const hyt_pat_pool_t *pool, int i)
{
    return pool->base + (size_t)i * pool->stride - pool->true_lb;
}
/* How a kernel lays out n blocks of (count, type) in its scratch, within
 * the bound algorithms/scratch.c agrees on: n x bsz bytes, bsz = count x the
 * type's size (the signature's bytes, the same on every rank).  A type whose
 * span fits lays the blocks out as the application's buffers do (count,
 * type, extent); a type with gaps wider than that (MPI asks only for equal
 * type signatures, so one rank may use a vector where another uses ints)
 * holds them packed: bsz bytes of MPI_PACKED a block.  Messages match either
 * way (MPI receives any type as MPI_PACKED, and a message sent as MPI_PACKED
 * in any type of its signature), so ranks may differ; no rank asks for more
 * scratch than the agreed bound. */
typedef struct hyt_pat_blocks {
    int count;          /* elements of type per block */
    MPI_Datatype type;  /* the call's type, or MPI_PACKED */
    MPI_Aint bext;      /* bytes from one block to the next */
    MPI_Aint true_lb;   /* subtract from the area's start */
    size_t bytes;       /* what to ask hyt_scratch for, at most n x bsz */
} hyt_pat_blocks_t;
/* MPI_SUCCESS, or HYT_UNSUPPORTED when n x bsz bytes overflow an int (the
 * same on every rank). */
int hyt_pat_blocks(hyt_pat_blocks_t *l, int n, int count, MPI_Datatype type);
/* n requests from hyt_scratch2 (NULL if out of memory). */
MPI_Request *hyt_pat_reqs(hyt_comm_t *ctx, int n);

#endif
