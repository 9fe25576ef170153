! Fortran program calling MPI collectives, for the LD_PRELOAD test of the
! runtime core: MPICH's Fortran MPI_INIT and MPI_ALLREDUCE reach the C
! MPI_Init and MPI_Allreduce that hytune interposes.  Results are checked;
! the test line checks hytune's statistics for the calls.
program core_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, x, y, b(4)
  double precision :: dx, dy
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, 3
    x = (rank + 1) * i
    call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (y /= i * nprocs * (nprocs + 1) / 2) then
      print *, 'core_fortran: allreduce gave', y
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  dx = 0.5d0 * (rank + 1)
  call MPI_ALLREDUCE(dx, dy, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (dy /= 0.5d0 * nprocs) then
    print *, 'core_fortran: max gave', dy
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  b = rank
  if (rank == 0) b = (/ 7, 8, 9, 10 /)
  call MPI_BCAST(b, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (any(b /= (/ 7, 8, 9, 10 /))) then
    print *, 'core_fortran: bcast gave', b
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print *, 'core_fortran: results ok'
  call MPI_FINALIZE(ierr)
end program core_fortran
