! Every collective entry point of MPICH's Fortran bindings (`use mpi`), called
! once: blocking, nonblocking (MPI_I*, completed by MPI_WAIT, MPI_TEST,
! MPI_WAITALL, MPI_WAITANY, MPI_WAITSOME in turn) and persistent (*_INIT,
! started once).  MPICH's Fortran bindings call the C MPI_* functions, so each
! call must reach hytune and show in its statistics as the C entry point of
! the same name.  Rank 0 prints "expect <entry> <calls> <bytes> <timed>" lines
! for test/mpi/entries_check.sh (see test/mpi/entries_run.sh fortran).
! Large-count (_c) forms exist in Fortran only through mpi_f08: not here.
! Also built for SimGrid (-DHYT_SMPI, hytune-smpif90, test/mpi/entries_run.sh
! smpi-fortran): there the entry points SMPI has Fortran bindings for (no
! persistent or neighborhood ones; MPI_IALLTOALLW stays SMPI's own), and the
! nonblocking calls are counted untimed (SMPI's MPI_WAIT bypasses hytune).
program entries_fortran
  use mpi
  implicit none
  integer, parameter :: n = 3, maxp = 64
  integer :: ierr, rank, p, comm, ring, req, how, i, blk, all, nb, rall, nbtimed
  integer :: sb(maxp * n), rb(maxp * n), counts(maxp), displs(maxp), bdispls(maxp), types(maxp)
  integer(kind=MPI_ADDRESS_KIND) :: adispls(maxp)
  integer :: dims(1)
  logical :: periods(1)
  call MPI_INIT(ierr)
  comm = MPI_COMM_WORLD
  call MPI_COMM_RANK(comm, rank, ierr)
  call MPI_COMM_SIZE(comm, p, ierr)
  dims(1) = p
  periods(1) = .true.
#ifndef HYT_SMPI
  call MPI_CART_CREATE(comm, 1, dims, periods, .false., ring, ierr)
#endif
  do i = 1, maxp * n
    sb(i) = rank * 100 + i
  end do
  rb = 0
  do i = 1, maxp
    counts(i) = n
    displs(i) = (i - 1) * n
    bdispls(i) = (i - 1) * n * 4
    adispls(i) = (i - 1) * n * 4
    types(i) = MPI_INTEGER
  end do
  how = 0
  blk = n * 4
  all = p * blk
  nb = 2 * blk
  rall = blk
  if (rank == 0) rall = all
#ifdef HYT_SMPI
  nbtimed = 0
#else
  nbtimed = 1
#endif
  call MPI_ALLREDUCE(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ex('MPI_Allreduce', blk, 1)
  call MPI_IALLREDUCE(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iallreduce', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_ALLREDUCE_INIT(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Allreduce_init', blk, 1)
#endif
  call MPI_SCAN(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ex('MPI_Scan', blk, 1)
  call MPI_ISCAN(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iscan', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_SCAN_INIT(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Scan_init', blk, 1)
#endif
  call MPI_EXSCAN(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ex('MPI_Exscan', blk, 1)
  call MPI_IEXSCAN(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iexscan', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_EXSCAN_INIT(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Exscan_init', blk, 1)
#endif
  call MPI_BCAST(rb, n, MPI_INTEGER, 0, comm, ierr)
  call ex('MPI_Bcast', blk, 1)
  call MPI_IBCAST(rb, n, MPI_INTEGER, 0, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ibcast', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_BCAST_INIT(rb, n, MPI_INTEGER, 0, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Bcast_init', blk, 1)
#endif
  call MPI_REDUCE(sb, rb, n, MPI_INTEGER, MPI_SUM, 0, comm, ierr)
  call ex('MPI_Reduce', blk, 1)
  call MPI_IREDUCE(sb, rb, n, MPI_INTEGER, MPI_SUM, 0, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ireduce', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_REDUCE_INIT(sb, rb, n, MPI_INTEGER, MPI_SUM, 0, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Reduce_init', blk, 1)
#endif
  call MPI_ALLGATHER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, ierr)
  call ex('MPI_Allgather', blk, 1)
  call MPI_IALLGATHER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iallgather', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_ALLGATHER_INIT(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Allgather_init', blk, 1)
#endif
  call MPI_ALLTOALL(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, ierr)
  call ex('MPI_Alltoall', blk, 1)
  call MPI_IALLTOALL(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ialltoall', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_ALLTOALL_INIT(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Alltoall_init', blk, 1)
#endif
#ifndef HYT_SMPI
  call MPI_NEIGHBOR_ALLGATHER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, ring, ierr)
  call ex('MPI_Neighbor_allgather', blk, 1)
  call MPI_INEIGHBOR_ALLGATHER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, ring, req, ierr)
  call fin(req)
  call ex('MPI_Ineighbor_allgather', blk, nbtimed)
  call MPI_NEIGHBOR_ALLGATHER_INIT(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Neighbor_allgather_init', blk, 1)
#endif
#ifndef HYT_SMPI
  call MPI_NEIGHBOR_ALLTOALL(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, ring, ierr)
  call ex('MPI_Neighbor_alltoall', blk, 1)
  call MPI_INEIGHBOR_ALLTOALL(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, ring, req, ierr)
  call fin(req)
  call ex('MPI_Ineighbor_alltoall', blk, nbtimed)
  call MPI_NEIGHBOR_ALLTOALL_INIT(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Neighbor_alltoall_init', blk, 1)
#endif
  call MPI_REDUCE_SCATTER_BLOCK(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ex('MPI_Reduce_scatter_block', blk, 1)
  call MPI_IREDUCE_SCATTER_BLOCK(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ireduce_scatter_block', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_REDUCE_SCATTER_BLOCK_INIT(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Reduce_scatter_block_init', blk, 1)
#endif
  call MPI_REDUCE_SCATTER(sb, rb, counts, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ex('MPI_Reduce_scatter', all, 1)
  call MPI_IREDUCE_SCATTER(sb, rb, counts, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ireduce_scatter', all, nbtimed)
#ifndef HYT_SMPI
  call MPI_REDUCE_SCATTER_INIT(sb, rb, counts, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Reduce_scatter_init', all, 1)
#endif
  call MPI_GATHER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, ierr)
  call ex('MPI_Gather', blk, 1)
  call MPI_IGATHER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, req, ierr)
  call fin(req)
  call ex('MPI_Igather', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_GATHER_INIT(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Gather_init', blk, 1)
#endif
  call MPI_SCATTER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, ierr)
  call ex('MPI_Scatter', blk, 1)
  call MPI_ISCATTER(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iscatter', blk, nbtimed)
#ifndef HYT_SMPI
  call MPI_SCATTER_INIT(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Scatter_init', blk, 1)
#endif
  call MPI_GATHERV(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, 0, comm, ierr)
  call ex('MPI_Gatherv', rall, 1)
  call MPI_IGATHERV(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, 0, comm, req, ierr)
  call fin(req)
  call ex('MPI_Igatherv', rall, nbtimed)
#ifndef HYT_SMPI
  call MPI_GATHERV_INIT(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, 0, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Gatherv_init', rall, 1)
#endif
  call MPI_SCATTERV(sb, counts, displs, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, ierr)
  call ex('MPI_Scatterv', rall, 1)
  call MPI_ISCATTERV(sb, counts, displs, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iscatterv', rall, nbtimed)
#ifndef HYT_SMPI
  call MPI_SCATTERV_INIT(sb, counts, displs, MPI_INTEGER, rb, n, MPI_INTEGER, 0, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Scatterv_init', rall, 1)
#endif
  call MPI_ALLGATHERV(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, comm, ierr)
  call ex('MPI_Allgatherv', all, 1)
  call MPI_IALLGATHERV(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, comm, req, ierr)
  call fin(req)
  call ex('MPI_Iallgatherv', all, nbtimed)
#ifndef HYT_SMPI
  call MPI_ALLGATHERV_INIT(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Allgatherv_init', all, 1)
#endif
#ifndef HYT_SMPI
  call MPI_NEIGHBOR_ALLGATHERV(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, ring, ierr)
  call ex('MPI_Neighbor_allgatherv', nb, 1)
  call MPI_INEIGHBOR_ALLGATHERV(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, ring, req, ierr)
  call fin(req)
  call ex('MPI_Ineighbor_allgatherv', nb, nbtimed)
  call MPI_NEIGHBOR_ALLGATHERV_INIT(sb, n, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Neighbor_allgatherv_init', nb, 1)
#endif
  call MPI_ALLTOALLV(sb, counts, displs, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, comm, ierr)
  call ex('MPI_Alltoallv', all, 1)
  call MPI_IALLTOALLV(sb, counts, displs, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ialltoallv', all, nbtimed)
#ifndef HYT_SMPI
  call MPI_ALLTOALLV_INIT(sb, counts, displs, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Alltoallv_init', all, 1)
#endif
#ifndef HYT_SMPI
  call MPI_NEIGHBOR_ALLTOALLV(sb, counts, displs, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, ring, ierr)
  call ex('MPI_Neighbor_alltoallv', nb, 1)
  call MPI_INEIGHBOR_ALLTOALLV(sb, counts, displs, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, ring, req, ierr)
  call fin(req)
  call ex('MPI_Ineighbor_alltoallv', nb, nbtimed)
  call MPI_NEIGHBOR_ALLTOALLV_INIT(sb, counts, displs, MPI_INTEGER, rb, counts, displs, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Neighbor_alltoallv_init', nb, 1)
#endif
  call MPI_ALLTOALLW(sb, counts, bdispls, types, rb, counts, bdispls, types, comm, ierr)
  call ex('MPI_Alltoallw', all, 1)
#ifndef HYT_SMPI
  call MPI_IALLTOALLW(sb, counts, bdispls, types, rb, counts, bdispls, types, comm, req, ierr)
  call fin(req)
  call ex('MPI_Ialltoallw', all, nbtimed)
  call MPI_ALLTOALLW_INIT(sb, counts, bdispls, types, rb, counts, bdispls, types, comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Alltoallw_init', all, 1)
#endif
#ifndef HYT_SMPI
  call MPI_NEIGHBOR_ALLTOALLW(sb, counts, adispls, types, rb, counts, adispls, types, ring, ierr)
  call ex('MPI_Neighbor_alltoallw', nb, 1)
  call MPI_INEIGHBOR_ALLTOALLW(sb, counts, adispls, types, rb, counts, adispls, types, ring, req, ierr)
  call fin(req)
  call ex('MPI_Ineighbor_alltoallw', nb, nbtimed)
  call MPI_NEIGHBOR_ALLTOALLW_INIT(sb, counts, adispls, types, rb, counts, adispls, types, ring, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Neighbor_alltoallw_init', nb, 1)
#endif
  call MPI_BARRIER(comm, ierr)
  call ex('MPI_Barrier', 0, 1)
  call MPI_IBARRIER(comm, req, ierr)
  call fin(req)
  call ex('MPI_Ibarrier', 0, nbtimed)
#ifndef HYT_SMPI
  call MPI_BARRIER_INIT(comm, MPI_INFO_NULL, req, ierr)
  call pst(req)
  call ex('MPI_Barrier_init', 0, 1)
#endif
#ifndef HYT_SMPI
  call MPI_COMM_FREE(ring, ierr)
#endif
  call MPI_FINALIZE(ierr)
contains
  subroutine ex(entry, bytes, timed)
    character(len=*), intent(in) :: entry
    integer, intent(in) :: bytes, timed
    if (ierr /= MPI_SUCCESS) then
      print *, 'entries_fortran: ', entry, ' returned ', ierr
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
    if (rank == 0) write (*, '(a, a, a, i0, a, i0)') 'expect ', entry, ' 1 ', bytes, ' ', timed
  end subroutine ex
  ! complete a nonblocking request by the next member of the Wait/Test family
  subroutine fin(r)
    integer, intent(inout) :: r
    integer :: two(2), idx, outc, inds(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
    logical :: flag
    two(1) = MPI_REQUEST_NULL
    two(2) = r
    select case (mod(how, 5))
    case (0)
      call MPI_WAIT(r, st, ierr)
    case (1)
      flag = .false.
      do while (.not. flag)
        call MPI_TEST(r, flag, st, ierr)
      end do
    case (2)
      call MPI_WAITALL(2, two, sts, ierr)
    case (3)
      call MPI_WAITANY(2, two, idx, st, ierr)
    case default
      call MPI_WAITSOME(1, r, outc, inds, sts, ierr)
    end select
    how = how + 1
  end subroutine fin
  ! persistent: one start, completed by MPI_TEST, then freed
  subroutine pst(r)
    integer, intent(inout) :: r
    integer :: st(MPI_STATUS_SIZE), e
    logical :: flag
    e = ierr
    call MPI_START(r, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_TEST(r, flag, st, ierr)
    end do
    call MPI_REQUEST_FREE(r, ierr)
    if (ierr == MPI_SUCCESS) ierr = e
  end subroutine pst
end program entries_fortran
