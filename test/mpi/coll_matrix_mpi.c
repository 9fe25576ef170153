/* The generated correctness matrix (test/smpi/coll_matrix.c) under the real
 * MPI library: the same source, run with `quick` at n = 1, 2 and `tiny` at
 * n = 3, 4 (oversubscribed ranks are slow here).  Under MPICH the predefined
 * ops also reduce derived datatypes, which SMPI cannot. */
#include "test/smpi/coll_matrix.c"
