#!/bin/sh
# Run the generated correctness matrix (test/smpi/coll_matrix.c) under SimGrid
# on platforms/cluster-small.xml.
#   matrix.sh NP HOSTFILE [SMPIRUN-OPTION...] [-- MATRIX-ARG...]
# HOSTFILE is a file in test/smpi.  Environment: B, SMPIRUN, SMPI, PLAT (from
# test/run.sh).  SimGrid ends a deadlocked simulation with exit status 0, so
# a run passes only with status 0 and the matrix's summary line showing
# 0 failures.
set -u
np=$1 hf=$2
shift 2
opts=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts="$opts $1"
    shift
done
[ $# -gt 0 ] && shift
out=$(HYTUNE_MODE=offline $SMPIRUN -np "$np" -platform "$PLAT/cluster-small.xml" \
    -hostfile "test/smpi/$hf" $SMPI $opts "$B/test/smpi/coll_matrix" "$@" 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || exit $rc
if ! echo "$out" | grep -Eq "^coll_matrix p=$np( \(pending wildcard receive\))?: .*, 0 failures,"; then
    echo "matrix.sh: no summary line with 0 failures: the simulation stopped early (deadlock?)"
    exit 1
fi
