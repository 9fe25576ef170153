/* Fortran entry points for SimGrid SMPI (built into libhytune-smpi.a only).
 *
 * Why: SMPI's Fortran bindings (mpi_allreduce_ ... in libsimgrid.so) call
 * libsimgrid's own MPI_* functions.  Each simulated rank is a privatized copy
 * of the program loaded with its symbols kept local, so those calls never
 * reach the MPI_* that hytune defines in the program: a Fortran program ran
 * around hytune (no init, no statistics).  Here the program itself defines the
 * Fortran names of MPI_Init, MPI_Init_thread, MPI_Finalize and of every
 * collective SMPI has Fortran bindings for (blocking and nonblocking; SMPI has
 * no Fortran neighborhood collectives); each converts its handles and calls
 * the C MPI_* entry point of this library, so a Fortran call takes exactly the
 * path (and is counted exactly once, as) a C call does.  Not here:
 * mpi_ialltoallw_ (see mpi_alltoallw_), and SMPI's mpi_wait_/mpi_test_ family,
 * so Fortran nonblocking calls are counted untimed.
 *
 * Under real MPICH nothing here is needed (MPICH 4.0.2's Fortran bindings,
 * mpi_* and pmpi_* alike, call the C MPI_* functions, which hytune
 * interposes) and nothing here is built.
 *
 * Names: gfortran's default (lower case, one trailing underscore), the only
 * convention SMPI's own bindings provide.  Adding a collective: its
 * HYT_FP_/HYT_FA_ macros and one HYT_FORTRAN_ENTRIES line below. */
#include "hyt.h"

#include <stdlib.h>

#if !HYT_SMPI
#error "smpi_fortran.c is built for SimGrid SMPI only"
#endif

/* SMPI's mpif.h and mpi module declare MPI_IN_PLACE and MPI_BOTTOM
 * `external`: the program passes the address of these libsimgrid symbols.
 * smpi_init_fortran_types() registers the predefined Fortran handles
 * (MPI_COMM_WORLD, MPI_INTEGER, MPI_SUM ...); SMPI's mpi_init_ calls it first. */
extern int mpi_in_place_;
extern int mpi_bottom_;
void smpi_init_fortran_types(void);

static void *hyt_fbuf(void *p)
{
    if (p == (void *)&mpi_in_place_)
        return MPI_IN_PLACE;
    if (p == (void *)&mpi_bottom_)
        return MPI_BOTTOM;
    return p;
}

#define HYT_FCOMM(c) MPI_Comm_f2c(*(c))
#define HYT_FTYPE(t) MPI_Type_f2c(*(t))
#define HYT_FOP(o) MPI_Op_f2c(*(o))

/* Every Fortran entry point of collective U: mpi_<name>_(FP, ierr) calls
 * MPI_<Name>(FA); its nonblocking form mpi_i<name>_(FP, request, ierr) calls
 * MPI_I<name>(FA, &r).  SMPI's own mpi_wait_ and mpi_test_ complete Fortran
 * requests without passing through hytune, so a Fortran nonblocking call is
 * counted but not timed (its request is not left in hytune's table). */
#define HYT_FORTRAN_ENTRIES(fname, ifname, Name, IName, U)                                \
    void fname(HYT_FP_##U, MPI_Fint *ierr);                                               \
    void fname(HYT_FP_##U, MPI_Fint *ierr) { *ierr = MPI_##Name(HYT_FA_##U); }             \
    void ifname(HYT_FP_##U, MPI_Fint *request, MPI_Fint *ierr);                           \
    void ifname(HYT_FP_##U, MPI_Fint *request, MPI_Fint *ierr)                            \
    {                                                                                     \
        MPI_Request r = MPI_REQUEST_NULL;                                                 \
        *ierr = MPI_##IName(HYT_FA_##U, &r);                                              \
        hyt_req_forget(r);                                                                \
        *request = MPI_Request_c2f(r);                                                    \
    }

/* counts and displacements: MPI_Fint is int in SMPI */
#define HYT_FARR(a) ((const int *)(a))

#define HYT_FP_ALLREDUCE                                                                  \
    void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm
#define HYT_FA_ALLREDUCE                                                                  \
    hyt_fbuf(sbuf), hyt_fbuf(rbuf), *count, HYT_FTYPE(type), HYT_FOP(op), HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_allreduce_, mpi_iallreduce_, Allreduce, Iallreduce, ALLREDUCE)
#define HYT_FP_SCAN HYT_FP_ALLREDUCE
#define HYT_FA_SCAN HYT_FA_ALLREDUCE
HYT_FORTRAN_ENTRIES(mpi_scan_, mpi_iscan_, Scan, Iscan, SCAN)
#define HYT_FP_EXSCAN HYT_FP_ALLREDUCE
#define HYT_FA_EXSCAN HYT_FA_ALLREDUCE
HYT_FORTRAN_ENTRIES(mpi_exscan_, mpi_iexscan_, Exscan, Iexscan, EXSCAN)
#define HYT_FP_REDUCE_SCATTER_BLOCK HYT_FP_ALLREDUCE
#define HYT_FA_REDUCE_SCATTER_BLOCK HYT_FA_ALLREDUCE
HYT_FORTRAN_ENTRIES(mpi_reduce_scatter_block_, mpi_ireduce_scatter_block_,
                    Reduce_scatter_block, Ireduce_scatter_block, REDUCE_SCATTER_BLOCK)

#define HYT_FP_BCAST void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm
#define HYT_FA_BCAST hyt_fbuf(buf), *count, HYT_FTYPE(type), *root, HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_bcast_, mpi_ibcast_, Bcast, Ibcast, BCAST)

#define HYT_FP_REDUCE                                                                     \
    void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,  \
        MPI_Fint *comm
#define HYT_FA_REDUCE                                                                     \
    hyt_fbuf(sbuf), hyt_fbuf(rbuf), *count, HYT_FTYPE(type), HYT_FOP(op), *root,           \
        HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_reduce_, mpi_ireduce_, Reduce, Ireduce, REDUCE)

#define HYT_FP_ALLGATHER                                                                  \
    void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,           \
        MPI_Fint *rtype, MPI_Fint *comm
#define HYT_FA_ALLGATHER                                                                  \
    hyt_fbuf(sbuf), *scount, HYT_FTYPE(stype), hyt_fbuf(rbuf), *rcount, HYT_FTYPE(rtype),  \
        HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_allgather_, mpi_iallgather_, Allgather, Iallgather, ALLGATHER)
#define HYT_FP_ALLTOALL HYT_FP_ALLGATHER
#define HYT_FA_ALLTOALL HYT_FA_ALLGATHER
HYT_FORTRAN_ENTRIES(mpi_alltoall_, mpi_ialltoall_, Alltoall, Ialltoall, ALLTOALL)

#define HYT_FP_GATHER                                                                     \
    void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,           \
        MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm
#define HYT_FA_GATHER                                                                     \
    hyt_fbuf(sbuf), *scount, HYT_FTYPE(stype), hyt_fbuf(rbuf), *rcount, HYT_FTYPE(rtype),  \
        *root, HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_gather_, mpi_igather_, Gather, Igather, GATHER)
#define HYT_FP_SCATTER HYT_FP_GATHER
#define HYT_FA_SCATTER HYT_FA_GATHER
HYT_FORTRAN_ENTRIES(mpi_scatter_, mpi_iscatter_, Scatter, Iscatter, SCATTER)

#define HYT_FP_ALLGATHERV                                                                 \
    void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,          \
        MPI_Fint *displs, MPI_Fint *rtype, MPI_Fint *comm
#define HYT_FA_ALLGATHERV                                                                 \
    hyt_fbuf(sbuf), *scount, HYT_FTYPE(stype), hyt_fbuf(rbuf), HYT_FARR(rcounts),          \
        HYT_FARR(displs), HYT_FTYPE(rtype), HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_allgatherv_, mpi_iallgatherv_, Allgatherv, Iallgatherv, ALLGATHERV)

#define HYT_FP_GATHERV                                                                    \
    void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,          \
        MPI_Fint *displs, MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm
#define HYT_FA_GATHERV                                                                    \
    hyt_fbuf(sbuf), *scount, HYT_FTYPE(stype), hyt_fbuf(rbuf), HYT_FARR(rcounts),          \
        HYT_FARR(displs), HYT_FTYPE(rtype), *root, HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_gatherv_, mpi_igatherv_, Gatherv, Igatherv, GATHERV)

#define HYT_FP_SCATTERV                                                                   \
    void *sbuf, MPI_Fint *scounts, MPI_Fint *displs, MPI_Fint *stype, void *rbuf,          \
        MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm
#define HYT_FA_SCATTERV                                                                   \
    hyt_fbuf(sbuf), HYT_FARR(scounts), HYT_FARR(displs), HYT_FTYPE(stype), hyt_fbuf(rbuf), \
        *rcount, HYT_FTYPE(rtype), *root, HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_scatterv_, mpi_iscatterv_, Scatterv, Iscatterv, SCATTERV)

#define HYT_FP_ALLTOALLV                                                                  \
    void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype, void *rbuf,         \
        MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm
#define HYT_FA_ALLTOALLV                                                                  \
    hyt_fbuf(sbuf), HYT_FARR(scounts), HYT_FARR(sdispls), HYT_FTYPE(stype), hyt_fbuf(rbuf), \
        HYT_FARR(rcounts), HYT_FARR(rdispls), HYT_FTYPE(rtype), HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_alltoallv_, mpi_ialltoallv_, Alltoallv, Ialltoallv, ALLTOALLV)

#define HYT_FP_REDUCE_SCATTER                                                             \
    void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm
#define HYT_FA_REDUCE_SCATTER                                                             \
    hyt_fbuf(sbuf), hyt_fbuf(rbuf), HYT_FARR(rcounts), HYT_FTYPE(type), HYT_FOP(op),       \
        HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_reduce_scatter_, mpi_ireduce_scatter_, Reduce_scatter,
                    Ireduce_scatter, REDUCE_SCATTER)

#define HYT_FP_BARRIER MPI_Fint *comm
#define HYT_FA_BARRIER HYT_FCOMM(comm)
HYT_FORTRAN_ENTRIES(mpi_barrier_, mpi_ibarrier_, Barrier, Ibarrier, BARRIER)

/* Alltoallw: the datatype arrays are converted into temporary arrays, which
 * a blocking call may free on return.  The nonblocking form would need them
 * until completion, which hytune does not see from Fortran here: SMPI's own
 * mpi_ialltoallw_ runs it (not counted). */
static MPI_Datatype *hyt_ftypes(const MPI_Fint *t, MPI_Fint *comm)
{
    int n = 0, inter = 0;
    MPI_Comm c = HYT_FCOMM(comm);
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        PMPI_Comm_remote_size(c, &n);
    else
        PMPI_Comm_size(c, &n);
    /* a small allocation (src/small.c): a rank that returned MPI_ERR_NO_MEM
     * here alone would leave the others waiting in the collective */
    MPI_Datatype *out = hyt_small_alloc((size_t)(n > 0 ? n : 1) * sizeof *out,
                                        "MPI_Alltoallw's datatypes", -1);
    for (int i = 0; i < n; i++)
        out[i] = MPI_Type_f2c(t[i]);
    return out;
}

void mpi_alltoallw_(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stypes,
                    void *rbuf, MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtypes,
                    MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoallw_(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stypes,
                    void *rbuf, MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtypes,
                    MPI_Fint *comm, MPI_Fint *ierr)
{
    void *s = hyt_fbuf(sbuf);
    MPI_Datatype *st = s == MPI_IN_PLACE ? NULL : hyt_ftypes(stypes, comm);
    MPI_Datatype *rt = hyt_ftypes(rtypes, comm);
    *ierr = MPI_Alltoallw(s, HYT_FARR(scounts), HYT_FARR(sdispls), st, hyt_fbuf(rbuf),
                          HYT_FARR(rcounts), HYT_FARR(rdispls), rt, HYT_FCOMM(comm));
    hyt_small_free(st);
    hyt_small_free(rt);
}

void mpi_init_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr)
{
    smpi_init_fortran_types();
    *ierr = MPI_Init(NULL, NULL);
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int prov = MPI_THREAD_SINGLE;
    smpi_init_fortran_types();
    *ierr = MPI_Init_thread(NULL, NULL, *required, &prov);
    *provided = prov;
}

void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr)
{
    *ierr = MPI_Finalize();
}
