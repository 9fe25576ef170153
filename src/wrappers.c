/* The PMPI interposition layer: every collective entry point MPI defines,
 * generated from one description per collective.
 *
 * A collective is described once by three macros: HYT_SIG_<U>(C, CA, DA),
 * its parameter list with the count type C, count-array type CA and
 * displacement-array type DA (int forms: int, const int *, const int *;
 * large-count forms: MPI_Count, const MPI_Count *, const MPI_Aint *);
 * HYT_ARGS_<U>, the same parameters as arguments; HYT_CAP_<U>(F), the
 * hyt_args_t fields they fill (F maps a count field to its large-count
 * twin).  One HYT_ENTRIES line then makes all its entry points:
 *
 *   MPI_<M>           blocking: captured and dispatched (tuned: hyt_dispatch)
 *   MPI_I<m>          nonblocking          \
 *   MPI_<M>_init      persistent (MPI 4)    } the MPI library's own collective,
 *   MPI_<M>_c, MPI_I<m>_c, MPI_<M>_init_c   / counted and timed (hyt_pass_*)
 *
 * Every one starts with the same test: off mode (or before init / after
 * finalize) is a straight pass-through.  Adding a collective: its line in
 * HYT_COLL_LIST (src/hyt.h), its PMPI call and size in src/call.h,
 * its three macros and HYT_ENTRIES line here, and its Fortran entry points
 * for SimGrid in smpi_fortran.c. */
#include "hyt.h"
#include "src/mpit.h"

#define HYT_OFF() HYT_UNLIKELY(!hyt_initialized || hyt_cfg.mode == HYT_MODE_OFF)

/* blocking, int counts: captured and dispatched */
#define HYT_WRAP_DISPATCH(M, U)                                                            \
    int MPI_##M(HYT_SIG_##U(int, const int *, const int *))                                \
    {                                                                                      \
        if (HYT_OFF())                                                                     \
            return PMPI_##M(HYT_ARGS_##U);                                                 \
        hyt_args_t a = hyt_args_none;                                                      \
        a.coll = HYT_COLL_##U;                                                             \
        HYT_CAP_##U(a, HYT_FI);                                                            \
        return hyt_dispatch(&a);                                                           \
    }

/* every other form: the MPI library's collective, counted (XP/XA: the extra
 * parameters and arguments of the form; REQ: its request or NULL) */
#define HYT_WRAP_PASS(NAME, U, FORM, LARGE, CT, F, XP, XA, REQ)                           \
    int MPI_##NAME(HYT_SIG_##U(CT) XP)                                                     \
    {                                                                                      \
        if (HYT_OFF())                                                                     \
            return PMPI_##NAME(HYT_ARGS_##U XA);                                           \
        hyt_args_t a = hyt_args_none;                                                      \
        a.coll = HYT_COLL_##U;                                                             \
        a.large = LARGE;                                                                   \
        HYT_CAP_##U(a, F);                                                                 \
        hyt_pass_t t;                                                                      \
        hyt_pass_begin(&a, HYT_VARIANT(FORM, LARGE), &t);                                  \
        return hyt_pass_end(&t, PMPI_##NAME(HYT_ARGS_##U XA), REQ);                        \
    }

#define HYT_FI(field) field     /* int forms: the field itself */
#define HYT_FC(field) c##field  /* large-count forms: its MPI_Count / MPI_Aint twin */
#define HYT_INT_COUNTS int, const int *, const int *
#define HYT_LARGE_COUNTS MPI_Count, const MPI_Count *, const MPI_Aint *
#define HYT_NO_XP
#define HYT_NO_XA
#define HYT_REQ_XP , MPI_Request *request
#define HYT_REQ_XA , request
#define HYT_INIT_XP , MPI_Info info, MPI_Request *request
#define HYT_INIT_XA , info, request

/* MPI 4: persistent and large-count forms (SimGrid SMPI implements MPI 3.1) */
#if MPI_VERSION >= 4
#define HYT_ENTRIES_PERSISTENT(M, l, U)                                                    \
    HYT_WRAP_PASS(M##_init, U, HYT_FORM_PERSISTENT, 0, HYT_INT_COUNTS, HYT_FI, HYT_INIT_XP, \
                  HYT_INIT_XA, request)
#define HYT_ENTRIES_LARGE(M, l, U)                                                         \
    HYT_WRAP_PASS(M##_c, U, HYT_FORM_BLOCKING, 1, HYT_LARGE_COUNTS, HYT_FC, HYT_NO_XP,    \
                  HYT_NO_XA, NULL)                                                         \
    HYT_WRAP_PASS(I##l##_c, U, HYT_FORM_NONBLOCKING, 1, HYT_LARGE_COUNTS, HYT_FC,          \
                  HYT_REQ_XP, HYT_REQ_XA, request)                                         \
    HYT_WRAP_PASS(M##_init_c, U, HYT_FORM_PERSISTENT, 1, HYT_LARGE_COUNTS, HYT_FC,         \
                  HYT_INIT_XP, HYT_INIT_XA, request)
#else
#define HYT_ENTRIES_PERSISTENT(M, l, U)
#define HYT_ENTRIES_LARGE(M, l, U)
#endif

/* Every entry point of collective M (lower-case initial l, list name U);
 * HYT_ENTRIES_NO_COUNT for Barrier, which has no large-count form. */
#define HYT_ENTRIES_NO_COUNT(M, l, U)                                                      \
    HYT_WRAP_DISPATCH(M, U)                                                                \
    HYT_WRAP_PASS(I##l, U, HYT_FORM_NONBLOCKING, 0, HYT_INT_COUNTS, HYT_FI, HYT_REQ_XP,    \
                  HYT_REQ_XA, request)                                                     \
    HYT_ENTRIES_PERSISTENT(M, l, U)
#define HYT_ENTRIES(M, l, U) HYT_ENTRIES_NO_COUNT(M, l, U) HYT_ENTRIES_LARGE(M, l, U)

/* ---- the collectives ---------------------------------------------------------- */

#define HYT_SIG_ALLREDUCE(C, CA, DA)                                                       \
    const void *sendbuf, void *recvbuf, C count, MPI_Datatype datatype, MPI_Op op,          \
        MPI_Comm comm
#define HYT_ARGS_ALLREDUCE sendbuf, recvbuf, count, datatype, op, comm
#define HYT_CAP_ALLREDUCE(A, F)                                                            \
    A.sbuf = sendbuf, A.rbuf = recvbuf, A.F(count) = count, A.type = datatype, A.op = op,  \
    A.comm = comm
HYT_ENTRIES(Allreduce, allreduce, ALLREDUCE)

#define HYT_SIG_SCAN HYT_SIG_ALLREDUCE
#define HYT_ARGS_SCAN HYT_ARGS_ALLREDUCE
#define HYT_CAP_SCAN HYT_CAP_ALLREDUCE
HYT_ENTRIES(Scan, scan, SCAN)

#define HYT_SIG_EXSCAN HYT_SIG_ALLREDUCE
#define HYT_ARGS_EXSCAN HYT_ARGS_ALLREDUCE
#define HYT_CAP_EXSCAN HYT_CAP_ALLREDUCE
HYT_ENTRIES(Exscan, exscan, EXSCAN)

#define HYT_SIG_BCAST(C, CA, DA)                                                           \
    void *buffer, C count, MPI_Datatype datatype, int root, MPI_Comm comm
#define HYT_ARGS_BCAST buffer, count, datatype, root, comm
#define HYT_CAP_BCAST(A, F)                                                                \
    A.rbuf = buffer, A.F(count) = count, A.type = datatype, A.root = root, A.comm = comm
HYT_ENTRIES(Bcast, bcast, BCAST)

#define HYT_SIG_REDUCE(C, CA, DA)                                                          \
    const void *sendbuf, void *recvbuf, C count, MPI_Datatype datatype, MPI_Op op,          \
        int root, MPI_Comm comm
#define HYT_ARGS_REDUCE sendbuf, recvbuf, count, datatype, op, root, comm
#define HYT_CAP_REDUCE(A, F)                                                               \
    A.sbuf = sendbuf, A.rbuf = recvbuf, A.F(count) = count, A.type = datatype, A.op = op,  \
    A.root = root, A.comm = comm
HYT_ENTRIES(Reduce, reduce, REDUCE)

/* one block to or from every rank: Allgather, Alltoall, the neighbor forms */
#define HYT_SIG_ALLGATHER(C, CA, DA)                                                       \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount,    \
        MPI_Datatype recvtype, MPI_Comm comm
#define HYT_ARGS_ALLGATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define HYT_CAP_ALLGATHER(A, F)                                                            \
    A.sbuf = sendbuf, A.F(scount) = sendcount, A.stype = sendtype, A.rbuf = recvbuf,       \
    A.F(count) = recvcount, A.type = recvtype, A.comm = comm
HYT_ENTRIES(Allgather, allgather, ALLGATHER)

#define HYT_SIG_ALLTOALL HYT_SIG_ALLGATHER
#define HYT_ARGS_ALLTOALL HYT_ARGS_ALLGATHER
#define HYT_CAP_ALLTOALL HYT_CAP_ALLGATHER
HYT_ENTRIES(Alltoall, alltoall, ALLTOALL)

#define HYT_SIG_NEIGHBOR_ALLGATHER HYT_SIG_ALLGATHER
#define HYT_ARGS_NEIGHBOR_ALLGATHER HYT_ARGS_ALLGATHER
#define HYT_CAP_NEIGHBOR_ALLGATHER HYT_CAP_ALLGATHER
HYT_ENTRIES(Neighbor_allgather, neighbor_allgather, NEIGHBOR_ALLGATHER)

#define HYT_SIG_NEIGHBOR_ALLTOALL HYT_SIG_ALLGATHER
#define HYT_ARGS_NEIGHBOR_ALLTOALL HYT_ARGS_ALLGATHER
#define HYT_CAP_NEIGHBOR_ALLTOALL HYT_CAP_ALLGATHER
HYT_ENTRIES(Neighbor_alltoall, neighbor_alltoall, NEIGHBOR_ALLTOALL)

#define HYT_SIG_REDUCE_SCATTER_BLOCK(C, CA, DA)                                            \
    const void *sendbuf, void *recvbuf, C recvcount, MPI_Datatype datatype, MPI_Op op,      \
        MPI_Comm comm
#define HYT_ARGS_REDUCE_SCATTER_BLOCK sendbuf, recvbuf, recvcount, datatype, op, comm
#define HYT_CAP_REDUCE_SCATTER_BLOCK(A, F)                                                 \
    A.sbuf = sendbuf, A.rbuf = recvbuf, A.F(count) = recvcount, A.type = datatype, A.op = op, \
    A.comm = comm
HYT_ENTRIES(Reduce_scatter_block, reduce_scatter_block, REDUCE_SCATTER_BLOCK)

#define HYT_SIG_REDUCE_SCATTER(C, CA, DA)                                                  \
    const void *sendbuf, void *recvbuf, CA recvcounts, MPI_Datatype datatype, MPI_Op op,    \
        MPI_Comm comm
#define HYT_ARGS_REDUCE_SCATTER sendbuf, recvbuf, recvcounts, datatype, op, comm
#define HYT_CAP_REDUCE_SCATTER(A, F)                                                       \
    A.sbuf = sendbuf, A.rbuf = recvbuf, A.F(rcounts) = recvcounts, A.type = datatype, A.op = op, \
    A.comm = comm
HYT_ENTRIES(Reduce_scatter, reduce_scatter, REDUCE_SCATTER)

#define HYT_SIG_BARRIER(C, CA, DA) MPI_Comm comm
#define HYT_ARGS_BARRIER comm
#define HYT_CAP_BARRIER(A, F) A.comm = comm
HYT_ENTRIES_NO_COUNT(Barrier, barrier, BARRIER)

#define HYT_SIG_GATHER(C, CA, DA)                                                          \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount,    \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define HYT_ARGS_GATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#define HYT_CAP_GATHER(A, F) HYT_CAP_ALLGATHER(A, F), A.root = root
HYT_ENTRIES(Gather, gather, GATHER)

#define HYT_SIG_SCATTER HYT_SIG_GATHER
#define HYT_ARGS_SCATTER HYT_ARGS_GATHER
#define HYT_CAP_SCATTER HYT_CAP_GATHER
HYT_ENTRIES(Scatter, scatter, SCATTER)

/* gathered blocks with counts and displacements: Allgatherv, Gatherv, Neighbor_allgatherv */
#define HYT_SIG_ALLGATHERV(C, CA, DA)                                                      \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, CA recvcounts,  \
        DA displs, MPI_Datatype recvtype, MPI_Comm comm
#define HYT_ARGS_ALLGATHERV sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define HYT_CAP_ALLGATHERV(A, F)                                                           \
    A.sbuf = sendbuf, A.F(scount) = sendcount, A.stype = sendtype, A.rbuf = recvbuf,       \
    A.F(rcounts) = recvcounts, A.F(rdispls) = displs, A.type = recvtype, A.comm = comm
HYT_ENTRIES(Allgatherv, allgatherv, ALLGATHERV)

#define HYT_SIG_NEIGHBOR_ALLGATHERV HYT_SIG_ALLGATHERV
#define HYT_ARGS_NEIGHBOR_ALLGATHERV HYT_ARGS_ALLGATHERV
#define HYT_CAP_NEIGHBOR_ALLGATHERV HYT_CAP_ALLGATHERV
HYT_ENTRIES(Neighbor_allgatherv, neighbor_allgatherv, NEIGHBOR_ALLGATHERV)

#define HYT_SIG_GATHERV(C, CA, DA)                                                         \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, CA recvcounts,  \
        DA displs, MPI_Datatype recvtype, int root, MPI_Comm comm
#define HYT_ARGS_GATHERV                                                                   \
    sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#define HYT_CAP_GATHERV(A, F) HYT_CAP_ALLGATHERV(A, F), A.root = root
HYT_ENTRIES(Gatherv, gatherv, GATHERV)

#define HYT_SIG_SCATTERV(C, CA, DA)                                                        \
    const void *sendbuf, CA sendcounts, DA displs, MPI_Datatype sendtype, void *recvbuf,    \
        C recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define HYT_ARGS_SCATTERV                                                                  \
    sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
#define HYT_CAP_SCATTERV(A, F)                                                             \
    A.sbuf = sendbuf, A.F(scounts) = sendcounts, A.F(sdispls) = displs, A.stype = sendtype, \
    A.rbuf = recvbuf, A.F(count) = recvcount, A.type = recvtype, A.root = root, A.comm = comm
HYT_ENTRIES(Scatterv, scatterv, SCATTERV)

/* blocks with counts and displacements both ways: Alltoallv, Neighbor_alltoallv */
#define HYT_SIG_ALLTOALLV(C, CA, DA)                                                       \
    const void *sendbuf, CA sendcounts, DA sdispls, MPI_Datatype sendtype, void *recvbuf,   \
        CA recvcounts, DA rdispls, MPI_Datatype recvtype, MPI_Comm comm
#define HYT_ARGS_ALLTOALLV                                                                 \
    sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define HYT_CAP_ALLTOALLV(A, F)                                                            \
    A.sbuf = sendbuf, A.F(scounts) = sendcounts, A.F(sdispls) = sdispls, A.stype = sendtype, \
    A.rbuf = recvbuf, A.F(rcounts) = recvcounts, A.F(rdispls) = rdispls, A.type = recvtype, \
    A.comm = comm
HYT_ENTRIES(Alltoallv, alltoallv, ALLTOALLV)

#define HYT_SIG_NEIGHBOR_ALLTOALLV HYT_SIG_ALLTOALLV
#define HYT_ARGS_NEIGHBOR_ALLTOALLV HYT_ARGS_ALLTOALLV
#define HYT_CAP_NEIGHBOR_ALLTOALLV HYT_CAP_ALLTOALLV
HYT_ENTRIES(Neighbor_alltoallv, neighbor_alltoallv, NEIGHBOR_ALLTOALLV)

/* a datatype per block: Alltoallw (int displacements in bytes), Neighbor_alltoallw
 * (MPI_Aint displacements in every form) */
#define HYT_SIG_ALLTOALLW(C, CA, DA)                                                       \
    const void *sendbuf, CA sendcounts, DA sdispls, const MPI_Datatype *sendtypes,          \
        void *recvbuf, CA recvcounts, DA rdispls, const MPI_Datatype *recvtypes,            \
        MPI_Comm comm
#define HYT_ARGS_ALLTOALLW                                                                 \
    sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#define HYT_CAP_ALLTOALLW(A, F)                                                            \
    A.sbuf = sendbuf, A.F(scounts) = sendcounts, A.F(sdispls) = sdispls, A.stypes = sendtypes, \
    A.rbuf = recvbuf, A.F(rcounts) = recvcounts, A.F(rdispls) = rdispls, A.rtypes = recvtypes, \
    A.comm = comm
HYT_ENTRIES(Alltoallw, alltoallw, ALLTOALLW)

#define HYT_SIG_NEIGHBOR_ALLTOALLW(C, CA, DA) HYT_SIG_ALLTOALLW(C, CA, const MPI_Aint *)
#define HYT_ARGS_NEIGHBOR_ALLTOALLW HYT_ARGS_ALLTOALLW
#define HYT_CAP_NEIGHBOR_ALLTOALLW(A, F)                                                   \
    A.sbuf = sendbuf, A.F(scounts) = sendcounts, A.csdispls = sdispls, A.stypes = sendtypes, \
    A.rbuf = recvbuf, A.F(rcounts) = recvcounts, A.crdispls = rdispls, A.rtypes = recvtypes, \
    A.comm = comm
HYT_ENTRIES(Neighbor_alltoallw, neighbor_alltoallw, NEIGHBOR_ALLTOALLW)

/* ---- init and finalize -------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        rc = hyt_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        hyt_thread_level = *provided;
        rc = hyt_init();
    }
    return rc;
}

int MPI_Finalize(void)
{
    hyt_finalize();
    hyt_mpit_shutdown();
    return PMPI_Finalize();
}
