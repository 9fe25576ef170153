/* Communicators the application never frees: hytune's contexts of them are
 * released at MPI_Finalize while MPI still holds the attribute, and nothing
 * may run their delete callback afterwards (a double free).  Run under
 * valgrind; the stats dump must still list their calls. */
#include "test/check.h"

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm dup, all;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &all);
    int x = 1, y = 0, z = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup);
    MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_SUM, all);
    CHECK(y == p && z == p, "allreduce %d %d, want %d", y, z, p);
    /* dup and all are deliberately never freed */
    MPI_Finalize();
    return check_done("test_core_leakcomm");
}
