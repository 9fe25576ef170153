/* Fortran entry points for SimGrid SMPI (built into libhytune-smpi.a only).
 *
 * Why: SMPI's Fortran bindings (mpi_allreduce_ ... in libsimgrid.so) call
 * libsimgrid's own MPI_* functions.  Each simulated rank is a privatized copy
 * of the program loaded with its symbols kept local, so those calls never
 * reach the MPI_* that hytune defines in the program: a Fortran program ran
 * around hytune (no init, no statistics).  Here the program itself defines the
 * Fortran names of MPI_Init, MPI_Init_thread, MPI_Finalize and of every
 * interposed collective; each converts its handles and calls the C MPI_*
 * entry point of this library, so a Fortran call takes exactly the path (and
 * is counted exactly once, as) a C call does.
 *
 * Under real MPICH nothing here is needed (MPICH's Fortran bindings call the
 * C MPI_* functions, which hytune interposes) and nothing here is built.
 *
 * Names: gfortran's default (lower case, one trailing underscore), the only
 * convention SMPI's own bindings provide.  Adding a collective: one
 * HYT_FORTRAN_COLL line below, next to its HYT_WRAP in wrappers.c. */
#include "hyt.h"

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

/* One Fortran entry point: mpi_<name>_(FPARAMS, ierr) calls MPI_<Name>(CARGS). */
#define HYT_FORTRAN_COLL(fname, Name, FPARAMS, CARGS)                                     \
    void fname FPARAMS;                                                                   \
    void fname FPARAMS { *ierr = MPI_##Name CARGS; }

HYT_FORTRAN_COLL(mpi_allreduce_, Allreduce,
                 (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                  MPI_Fint *comm, MPI_Fint *ierr),
                 (hyt_fbuf(sbuf), hyt_fbuf(rbuf), *count, HYT_FTYPE(type), HYT_FOP(op),
                  HYT_FCOMM(comm)))

HYT_FORTRAN_COLL(mpi_bcast_, Bcast,
                 (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
                  MPI_Fint *ierr),
                 (hyt_fbuf(buf), *count, HYT_FTYPE(type), *root, HYT_FCOMM(comm)))

HYT_FORTRAN_COLL(mpi_reduce_, Reduce,
                 (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                  MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
                 (hyt_fbuf(sbuf), hyt_fbuf(rbuf), *count, HYT_FTYPE(type), HYT_FOP(op), *root,
                  HYT_FCOMM(comm)))

HYT_FORTRAN_COLL(mpi_allgather_, Allgather,
                 (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                  MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr),
                 (hyt_fbuf(sbuf), *scount, HYT_FTYPE(stype), hyt_fbuf(rbuf), *rcount,
                  HYT_FTYPE(rtype), HYT_FCOMM(comm)))

HYT_FORTRAN_COLL(mpi_alltoall_, Alltoall,
                 (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                  MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr),
                 (hyt_fbuf(sbuf), *scount, HYT_FTYPE(stype), hyt_fbuf(rbuf), *rcount,
                  HYT_FTYPE(rtype), HYT_FCOMM(comm)))

HYT_FORTRAN_COLL(mpi_reduce_scatter_block_, Reduce_scatter_block,
                 (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                  MPI_Fint *comm, MPI_Fint *ierr),
                 (hyt_fbuf(sbuf), hyt_fbuf(rbuf), *count, HYT_FTYPE(type), HYT_FOP(op),
                  HYT_FCOMM(comm)))

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
