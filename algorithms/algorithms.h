/* Algorithm kernels.  Each is an hyt_alg_fn (src/hyt.h): it runs the
 * collective described by the captured arguments with radix k, on top of
 * the point-to-point layer (algorithms/p2p.h: the only way a kernel talks
 * to other ranks), with temporary space from the communicator's
 * scratch area (hyt_scratch).  Registered in algorithms/registry.c. */
#ifndef HYT_ALGORITHMS_H
#define HYT_ALGORITHMS_H

#include "algorithms/p2p.h"
#include "src/hyt.h"

int hyt_native(const hyt_args_t *a, int k);

/* ---- k-nomial tree and recursive multiplying ---- */
int hyt_bcast_knomial(const hyt_args_t *a, int k);
int hyt_reduce_knomial(const hyt_args_t *a, int k);
int hyt_allgather_knomial(const hyt_args_t *a, int k);
int hyt_allreduce_knomial(const hyt_args_t *a, int k);
int hyt_allreduce_recmult(const hyt_args_t *a, int k);
int hyt_allgather_recmult(const hyt_args_t *a, int k);
int hyt_bcast_recmult(const hyt_args_t *a, int k);
/* ---- k-ring ---- */
#include "algorithms/pattern.h"
int hyt_allgather_kring(const hyt_args_t *a, int k);
int hyt_bcast_kring(const hyt_args_t *a, int k);
int hyt_allreduce_kring(const hyt_args_t *a, int k);
/* The k-ring engine (algorithms/allgather/kring.c), shared by the three
 * k-ring kernels: cells (group, column), column rings and group rings. */
typedef struct hyt_kr {
    hyt_kring_t g;
    int rank;
    const hyt_args_t *a;  /* the call: point-to-point goes through algorithms/p2p.h */
    char *buf;            /* the data being gathered / reduced in place */
    char *tmp;            /* receive area laid out like buf (reductions) */
    MPI_Datatype type;
    MPI_Aint ext;
    MPI_Op op;
    int count;            /* blocks: elements per rank; else: total elements */
    int blocks;           /* 1: rank-major blocks (Allgather); 0: column-major cells */
    MPI_Datatype col[2];  /* blocks: a column of G and of G-1 blocks */
    const int *vcounts, *vdispls; /* Allgatherv (else NULL): per-rank blocks */
    MPI_Datatype *vcol;   /* Allgatherv: the k column types (hyt_kr_init_v) */
    MPI_Request *req;     /* from hyt_scratch2, with rptr/rn */
    char **rptr;
    int *rn;
} hyt_kr_t;
int hyt_kr_init(hyt_kr_t *kr, const hyt_args_t *a, int k, void *buf, int count, int blocks,
                int nreq_min);
/* The engine over an Allgatherv's blocks (a->rcounts, a->rdispls in
 * a->rbuf); its column types take hyt_kr_v_bytes(p, k) of hyt_scratch. */
int hyt_kr_init_v(hyt_kr_t *kr, const hyt_args_t *a, int k);
size_t hyt_kr_v_bytes(int p, int k);
void hyt_kr_free(hyt_kr_t *kr);
int hyt_kr_group_ring(hyt_kr_t *kr, int reduce);
int hyt_kr_column_ring(hyt_kr_t *kr, int reduce);
/* The allgather half shared by k-ring Allgather, Bcast and Allreduce:
 * rings along the columns, then inside each group. */
int hyt_kr_allgather_rings(hyt_kr_t *kr);
int hyt_kr_scatter(hyt_kr_t *kr, int root);
/* ---- classic baselines (Rabenseifner, Bruck, pairwise, recursive halving) ---- */
int hyt_allreduce_rabenseifner(const hyt_args_t *a, int k);
int hyt_reduce_rabenseifner(const hyt_args_t *a, int k);
int hyt_allgather_kbruck(const hyt_args_t *a, int k);
int hyt_alltoall_kbruck(const hyt_args_t *a, int k);
int hyt_alltoall_pairwise(const hyt_args_t *a, int k);
int hyt_reduce_scatter_block_rechalving(const hyt_args_t *a, int k);
int hyt_reduce_scatter_block_pairwise(const hyt_args_t *a, int k);
/* Recursive-halving engine of the Rabenseifner kernels
 * (algorithms/allreduce/rabenseifner.c): p' = 2^steps new ranks, each
 * owning one of p' chunks of count elements at the end of the halving. */
typedef struct hyt_rab {
    int p, rank, pof2, rem, newrank, steps;
    int lo[32], hi[32];   /* chunk range before halving step s */
    int mylo, myhi;
    char *acc, *tmp;      /* accumulator and receive area (same layout) */
    int count;
    MPI_Datatype type;
    MPI_Aint ext;
    MPI_Op op;
    const hyt_args_t *a; /* the call (algorithms/p2p.h) */
} hyt_rab_t;
void hyt_rab_init(hyt_rab_t *rb, const hyt_args_t *a, char *acc, char *tmp);
int hyt_rab_real(const hyt_rab_t *rb, int newrank);
int hyt_rab_fold(hyt_rab_t *rb);
int hyt_rab_reduce_scatter(hyt_rab_t *rb);
int hyt_rab_gather(hyt_rab_t *rb, int newroot);
/* ---- Barrier, Gather, Scatter, v-variants, Scan ---- */
int hyt_barrier_dissemination(const hyt_args_t *a, int k);
int hyt_barrier_knomial(const hyt_args_t *a, int k);
int hyt_gather_knomial(const hyt_args_t *a, int k);
int hyt_scatter_knomial(const hyt_args_t *a, int k);
int hyt_allgatherv_ring(const hyt_args_t *a, int k);
int hyt_allgatherv_recmult(const hyt_args_t *a, int k);
int hyt_allgatherv_kring(const hyt_args_t *a, int k);
int hyt_allgatherv_composition(const hyt_args_t *a, int k);
/* The recursive-multiplying exchange of Allgatherv (allgatherv/recmult.c)
 * over n units: unit i holds the blocks counts/displs[start[i] ..
 * start[i+1]-1] (start NULL: block i) and talks through rank rank[i] (rank
 * NULL: rank i); me is my unit; dt has hyt_agv_rm_slots(n, k) entries.
 * Ranks (units) outside the exchange do not call it. */
typedef struct hyt_agv_units {
    const int *counts, *displs;
    const int *start, *rank;
    int n;
} hyt_agv_units_t;
int hyt_agv_rm_slots(int n, int k);
/* hyt_scratch the composition takes on p ranks over `nodes` nodes. */
size_t hyt_agv_composition_bytes(int p, int nodes, int k);
int hyt_agv_rm_units(const hyt_args_t *a, const hyt_agv_units_t *u, int me, int k,
                     MPI_Datatype *dt);
/* The own block of an Allgatherv into its place (nothing when in place). */
int hyt_allgatherv_own(const hyt_args_t *a, MPI_Aint ext);
int hyt_alltoallv_pairwise(const hyt_args_t *a, int k);
int hyt_alltoallv_scattered(const hyt_args_t *a, int k);
/* The send side of an Alltoallv: the caller's, or (in place) a copy of the
 * receive side in hyt_scratch. */
typedef struct hyt_a2av {
    const char *buf;
    const int *counts, *displs;
    MPI_Datatype type;
    MPI_Aint ext, rext; /* extents of the send and the receive type */
} hyt_a2av_t;
/* Fills s and copies the own block; MPI_SUCCESS or an error. */
int hyt_alltoallv_src(const hyt_args_t *a, hyt_a2av_t *s);
static inline const char *hyt_a2av_sbuf(const hyt_a2av_t *s, int peer)
{
    return s->buf + (MPI_Aint)s->displs[peer] * s->ext;
}
static inline char *hyt_a2av_rbuf(const hyt_args_t *a, const hyt_a2av_t *s, int peer)
{
    return (char *)a->rbuf + (MPI_Aint)a->rdispls[peer] * s->rext;
}
int hyt_reduce_scatter_pairwise(const hyt_args_t *a, int k);
int hyt_reduce_scatter_rechalving(const hyt_args_t *a, int k);
/* Element offsets of the blocks of a Reduce_scatter (p + 1 entries, in
 * hyt_scratch2), NULL if out of memory. */
long *hyt_reduce_scatter_offsets(const hyt_args_t *a);
/* Recursive halving over blocks at element offsets off[0..p] (off in
 * hyt_scratch2): Reduce_scatter and Reduce_scatter_block. */
int hyt_reduce_scatter_rechalving_off(const hyt_args_t *a, const long *off);
int hyt_scan_recdoubling(const hyt_args_t *a, int k);
int hyt_exscan_recdoubling(const hyt_args_t *a, int k);
/* ---- node-aware compositions ---- */
int hyt_allreduce_composition(const hyt_args_t *a, int k);
int hyt_bcast_composition(const hyt_args_t *a, int k);
int hyt_reduce_composition(const hyt_args_t *a, int k);
int hyt_allgather_composition(const hyt_args_t *a, int k);

/* ---- scratch bounds (algorithms/scratch.c), the registry's .scratch ---- */
int hyt_need_kn_tree(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_rm(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_bcast_recmult(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_bcast_kring(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_kring(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_allreduce_kring(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_pool(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_rabenseifner(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_reduce_composition(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_allgather_kbruck(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_alltoall_kbruck(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_alltoall_pairwise(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_rsb_rechalving(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_rsb_pairwise(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_rs_rechalving(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_rs_pairwise(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_scan(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_dissemination(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_knb(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_allgatherv_recmult(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_allgatherv_kring(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_allgatherv_composition(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_alltoallv_pairwise(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_alltoallv_scattered(const hyt_args_t *a, int k, size_t need[2]);
int hyt_need_native(const hyt_args_t *a, int k, size_t need[2]);

#endif
