#!/bin/sh
# Fortran under SimGrid: run test/smpi/fortran_coll.F90 (built with
# hytune-smpif90, once with `use mpi` and once with `include 'mpif.h'`) on N
# ranks with a forced algorithm for every collective, and check that the
# results are right and that hytune's statistics (rank 0: MPI_COMM_WORLD and
# the split communicator) count each Fortran call once, with the forced
# algorithm.
#   sh test/smpi/fortran_run.sh N      (B, SMPIRUN, SMPI, PLAT from test/run.sh)
set -u
n=$1
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
i=0
while [ $i -lt 4 ]; do echo "node-$i:2"; i=$((i + 1)); done >"$d/hf"
export HYTUNE_STATS=stdout HYTUNE_FORCE_ALLREDUCE=kring:1 HYTUNE_FORCE_BCAST=knomial:3 \
    HYTUNE_FORCE_REDUCE=rabenseifner HYTUNE_FORCE_ALLGATHER=recmult:2 \
    HYTUNE_FORCE_ALLTOALL=pairwise HYTUNE_FORCE_REDUCE_SCATTER_BLOCK=rechalving
# collective, size bucket, calls, algorithm: one row per communicator
expect='allreduce 4-7 3 kring:k=1
allreduce 32-63 1 kring:k=1
bcast 16-31 1 knomial:k=3
reduce 16-31 1 rabenseifner
allgather 8-15 1 recmult:k=2
alltoall 8-15 1 pairwise
reduce_scatter_block 4-7 1 rechalving'
for v in mod mpif; do
    prog=$B/test/smpi/fortran_coll_$v
    [ -x "$prog" ] || { echo "fortran_run: $prog not built (needs smpif90: Debian gfortran; make tests)"; exit 1; }
    # shellcheck disable=SC2086
    $SMPIRUN -np "$n" -platform "$PLAT/cluster-small.xml" -hostfile "$d/hf" $SMPI "$prog" >"$d/out" 2>&1 ||
        { cat "$d/out"; echo "fortran_run: $v: run failed"; exit 1; }
    cat "$d/out"
    grep -q "^fortran_coll: results ok ($n ranks)" "$d/out" || { echo "fortran_run: $v: no result line"; exit 1; }
    grep -q "^==== hytune statistics (rank 0 of $n," "$d/out" || { echo "fortran_run: $v: no statistics"; exit 1; }
    grep -q "^-- communicator #0: $n ranks" "$d/out" || { echo "fortran_run: $v: no MPI_COMM_WORLD section"; exit 1; }
    # rows: collective, size (lo-hi), calls, algorithm (time columns dropped)
    awk '$1 ~ /^(allreduce|bcast|reduce|allgather|alltoall|reduce_scatter_block)$/ && $3 == "B" {print $1, $2, $4, $7}' \
        "$d/out" | sort >"$d/got"
    { echo "$expect"; echo "$expect"; } | sort >"$d/want"
    if ! cmp -s "$d/got" "$d/want"; then
        echo "fortran_run: $v: statistics rows differ (want, got):"; diff "$d/want" "$d/got"; exit 1
    fi
done
echo "fortran_run: use mpi and mpif.h at $n ranks: results and statistics ok"
