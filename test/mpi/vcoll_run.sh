#!/bin/sh
# test_core_vcoll plain offline, then with every registry row of the
# collectives it calls forced in turn (HYTUNE_FORCE_<COLL>=ALG:K, K = the
# row's smallest and 3): MPI_* results equal PMPI_* ones and the forced row
# runs every call.
#   sh test/mpi/vcoll_run.sh mpich|smpi NPROCS
#   mpich: $MPIEXEC; smpi: $SMPIRUN on cluster-small.xml with the $SMPI options
set -u
launch=$1 np=$2
run() {
    if [ "$launch" = smpi ]; then
        # shellcheck disable=SC2086 # $SMPI is a list of options
        $SMPIRUN -np "$np" -platform "$PLAT/cluster-small.xml" -hostfile test/smpi/hosts-mixed \
            $SMPI "$B/test/smpi/test_core_vcoll" "$@" 2>&1
    else
        $MPIEXEC -n "$np" "$B/test/mpi/test_core_vcoll" "$@" 2>&1
    fi
}
export HYTUNE_MODE=offline
out=$(run) || { echo "vcoll_run: offline run failed: $out"; exit 1; }
rows=$("$B/bin/hytune" list | awk '$2 != "native" && $1 ~ /^(barrier|gather|scatter|allgatherv|alltoallv|reduce_scatter|scan|exscan)$/ { print $1, $2, $3 }')
[ "$(echo "$rows" | wc -l)" -ge 12 ] || { echo "vcoll_run: rows missing in hytune list: $rows"; exit 1; }
echo "$rows" | {
    while read -r coll alg ks; do
        for k in ${ks%%..*} 3; do
            if [ "$ks" = - ]; then
                [ "$k" = 3 ] && continue
                spec=$alg
            else
                spec=$alg:$k
            fi
            var=HYTUNE_FORCE_$(echo "$coll" | tr '[:lower:]' '[:upper:]')
            out=$(export "$var=$spec"; run tuned "$coll" </dev/null) || { echo "FAIL $coll $spec: $out"; exit 1; }
            echo "ok $coll $spec"
        done
    done
}
