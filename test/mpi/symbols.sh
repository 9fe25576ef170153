#!/bin/sh
# The shared library exports only MPI entry points: every defined dynamic
# symbol of libhytune.so is MPI_*/PMPI_* (C) or mpi_*/pmpi_* (Fortran), and
# the interposed entry points are among them.
#   sh test/mpi/symbols.sh [LIB]
lib=${1:-$B/lib/libhytune.so}
[ -f "$lib" ] || { echo "symbols.sh: $lib missing" >&2; exit 2; }
syms=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//') || exit 2
bad=$(echo "$syms" | grep -Ev '^(P?MPI_|p?mpi_)')
if [ -n "$bad" ]; then
    echo "libhytune.so exports non-MPI symbols:"
    echo "$bad"
    exit 1
fi
for s in MPI_Init MPI_Init_thread MPI_Finalize MPI_Allreduce MPI_Bcast MPI_Reduce \
    MPI_Allgather MPI_Alltoall MPI_Reduce_scatter_block; do
    echo "$syms" | grep -qx "$s" || { echo "libhytune.so does not export $s"; exit 1; }
done
echo "libhytune.so: $(echo "$syms" | wc -l) symbols, all MPI entry points"
