! Fortran program calling each collective hytune interposes, for the SimGrid
! Fortran test (test/smpi/fortran_run.sh).  Built twice: with `use mpi` and,
! with -DHYT_MPIF, with `include 'mpif.h'`.  Every result is checked against
! its closed form (any rank count); MPI_IN_PLACE is used for Allreduce,
! Reduce (at the root), Allgather and Reduce_scatter_block, and the same calls
! run on a split communicator (handle conversion of a non-predefined comm).
! Calls per communicator (the script checks them in hytune's statistics):
!   allreduce 4-7 B x3, allreduce 40-79 B (IN_PLACE, 5 doubles) x1, bcast x1,
!   reduce x1, allgather x1, alltoall x1, reduce_scatter_block x1.
program fortran_coll
#ifdef HYT_MPIF
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  integer :: ierr, wrank, wsize, sub, srank, ssize
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, wrank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, wsize, ierr)
  call check_all(MPI_COMM_WORLD)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(wrank, 2), -wrank, sub, ierr)
  call MPI_COMM_RANK(sub, srank, ierr)
  call MPI_COMM_SIZE(sub, ssize, ierr)
  call check_all(sub)
  call MPI_COMM_FREE(sub, ierr)
  if (wrank == 0) print '(a,i0,a)', 'fortran_coll: results ok (', wsize, ' ranks)'
  call MPI_FINALIZE(ierr)

contains

  subroutine fail(what, comm)
    character(len=*), intent(in) :: what
    integer, intent(in) :: comm
    integer :: e
    print *, 'fortran_coll: wrong result: ', what
    call MPI_ABORT(comm, 1, e)
  end subroutine fail

  subroutine check_all(comm)
    integer, intent(in) :: comm
    integer :: rank, p, i, j, x, y, root, ierr
    integer :: b(4)
    double precision :: d(5)
    integer, allocatable :: g(:), s(:), r(:), rs(:)
    call MPI_COMM_RANK(comm, rank, ierr)
    call MPI_COMM_SIZE(comm, p, ierr)

    do i = 1, 3
      x = (rank + 1) * i
      call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
      if (ierr /= MPI_SUCCESS .or. y /= i * p * (p + 1) / 2) call fail('allreduce sum', comm)
    end do

    do j = 1, 5
      d(j) = dble(mod(rank + j, p)) + 0.25d0 * j
    end do
    call MPI_ALLREDUCE(MPI_IN_PLACE, d, 5, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
    do j = 1, 5
      if (d(j) /= dble(p - 1) + 0.25d0 * j) call fail('allreduce in place max', comm)
    end do

    root = p - 1
    b = -1
    if (rank == root) b = (/ 7, 8, 9, 10 /)
    call MPI_BCAST(b, 4, MPI_INTEGER, root, comm, ierr)
    if (any(b /= (/ 7, 8, 9, 10 /))) call fail('bcast', comm)

    ! reduce to rank 0, in place at the root
    b = (/ rank, 2 * rank, 1, rank * rank /)
    if (rank == 0) then
      call MPI_REDUCE(MPI_IN_PLACE, b, 4, MPI_INTEGER, MPI_SUM, 0, comm, ierr)
      if (any(b /= (/ p * (p - 1) / 2, p * (p - 1), p, (p - 1) * p * (2 * p - 1) / 6 /))) &
        call fail('reduce in place', comm)
    else
      call MPI_REDUCE(b, y, 4, MPI_INTEGER, MPI_SUM, 0, comm, ierr)
    end if

    ! allgather in place: block i holds 2 integers from rank i
    allocate(g(2 * p), s(2 * p), r(2 * p), rs(p))
    g = -1
    g(2 * rank + 1) = 100 * rank
    g(2 * rank + 2) = 100 * rank + 1
    call MPI_ALLGATHER(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_INTEGER, comm, ierr)
    do i = 0, p - 1
      if (g(2 * i + 1) /= 100 * i .or. g(2 * i + 2) /= 100 * i + 1) call fail('allgather in place', comm)
    end do

    ! alltoall: 2 integers to each rank
    do i = 0, p - 1
      s(2 * i + 1) = 1000 * rank + i
      s(2 * i + 2) = -(1000 * rank + i)
    end do
    call MPI_ALLTOALL(s, 2, MPI_INTEGER, r, 2, MPI_INTEGER, comm, ierr)
    do i = 0, p - 1
      if (r(2 * i + 1) /= 1000 * i + rank .or. r(2 * i + 2) /= -(1000 * i + rank)) &
        call fail('alltoall', comm)
    end do

    ! reduce_scatter_block in place, 1 integer per rank: block i sums (rank+1)*(i+1)
    do i = 0, p - 1
      rs(i + 1) = (rank + 1) * (i + 1)
    end do
    call MPI_REDUCE_SCATTER_BLOCK(MPI_IN_PLACE, rs, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
    if (rs(1) /= (rank + 1) * p * (p + 1) / 2) call fail('reduce_scatter_block in place', comm)
    deallocate(g, s, r, rs)
  end subroutine check_all
end program fortran_coll
