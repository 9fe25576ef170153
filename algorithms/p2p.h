/* The point-to-point layer: the only way an algorithm kernel talks to other
 * ranks.  Write a new kernel with these calls and nothing else.
 *
 * MPI promises that a collective never matches the application's
 * point-to-point traffic on the same communicator: a rank with a pending
 * MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG, comm) (master-worker codes, an
 * always-posted wildcard receive) must neither take a collective's message
 * nor see one with MPI_Iprobe.  MPICH keeps a separate collective context
 * for this (MPIC_* helpers), Open MPI reserves negative tags.  Here every
 * call below takes the captured call (hyt_args_t) and no communicator: the
 * message travels on the private duplicate of the call's communicator
 * (a->ctx->priv, made by hyt_run_alg before any kernel runs) with hytune's
 * own tag, so a kernel cannot reach the application's communicator by
 * construction.  test/unit/lint_p2p.sh fails the build's tests if any file
 * under algorithms/ other than this layer calls MPI point-to-point
 * functions, names a communicator (->comm, MPI_COMM_WORLD, MPI_COMM_SELF) or
 * makes its own duplicate.
 *
 * Peers are ranks of the call's communicator (a->ctx->rank, a->ctx->size).
 * Successive messages between two ranks stay in order (MPI's pairwise
 * ordering), which is what keeps successive collectives apart: no receive
 * ever uses MPI_ANY_SOURCE.  Every call returns an MPI error code; a kernel
 * returns the first one it gets, and hyt_run_alg hands it to the
 * communicator's error handler, as MPI's own collectives do. */
#ifndef HYT_P2P_H
#define HYT_P2P_H

#include "src/hyt.h"

int hyt_p2p_send(const hyt_args_t *a, const void *buf, int count, MPI_Datatype type, int peer);
int hyt_p2p_recv(const hyt_args_t *a, void *buf, int count, MPI_Datatype type, int peer);
int hyt_p2p_isend(const hyt_args_t *a, const void *buf, int count, MPI_Datatype type, int peer,
                  MPI_Request *req);
int hyt_p2p_irecv(const hyt_args_t *a, void *buf, int count, MPI_Datatype type, int peer,
                  MPI_Request *req);
int hyt_p2p_sendrecv(const hyt_args_t *a, const void *sbuf, int scount, MPI_Datatype stype,
                     int dest, void *rbuf, int rcount, MPI_Datatype rtype, int src);
/* Wait for n requests (n may be 0), statuses ignored. */
int hyt_p2p_waitall(int n, MPI_Request *req);
/* Local copy of (scount, stype) at src to (dcount, dtype) at dst (same type
 * signature); touches only the bytes dtype covers (a message to myself on
 * the private communicator when the types are not one contiguous block). */
int hyt_p2p_copy(const hyt_args_t *a, const void *src, int scount, MPI_Datatype stype, void *dst,
                 int dcount, MPI_Datatype dtype);
/* MPI_Pack / MPI_Unpack of the call's data (the communicator argument MPI
 * wants is the private one). */
int hyt_p2p_pack(const hyt_args_t *a, const void *in, int count, MPI_Datatype type, void *out,
                 int outsize, int *pos);
int hyt_p2p_unpack(const hyt_args_t *a, const void *in, int insize, int *pos, void *out, int count,
                   MPI_Datatype type);

#endif
