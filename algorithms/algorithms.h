/* Algorithm kernels.  Each is an hyt_alg_fn (src/hyt.h): it runs the
 * collective described by the captured arguments with radix k, on top of
 * PMPI point-to-point calls, with temporary space from the communicator's
 * scratch area (hyt_scratch).  Registered in algorithms/registry.c. */
#ifndef HYT_ALGORITHMS_H
#define HYT_ALGORITHMS_H

#include "src/hyt.h"

int hyt_native(const hyt_args_t *a, int k);

/* ---- k-nomial tree and recursive multiplying ---- */
/* ---- k-ring ---- */
/* ---- classic baselines (Rabenseifner, Bruck, pairwise, recursive halving) ---- */
/* ---- node-aware compositions ---- */
int hyt_allreduce_composition(const hyt_args_t *a, int k);
int hyt_bcast_composition(const hyt_args_t *a, int k);
int hyt_reduce_composition(const hyt_args_t *a, int k);
int hyt_allgather_composition(const hyt_args_t *a, int k);

#endif
