/* Platform check for the evaluation platforms (the XML files in platforms/).
 *
 * Usage: eval_platform PPN [PREFIX]
 * Run with a hostfile of PPN ranks per host (bench/lib.sh: hostfile).  Checks
 * that rank r sits on host PREFIX<r/PPN> (block mapping), that
 * Comm_split_type(SHARED) groups exactly PPN ranks per host, and that a
 * 1 MiB and an 8 B Allreduce give the exact integer sums. */
#include "test/check.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_host(int rank, int ppn, const char *prefix)
{
    char name[MPI_MAX_PROCESSOR_NAME], want[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(name, &len);
    snprintf(want, sizeof want, "%s%d", prefix, rank / ppn);
    CHECK(strcmp(name, want) == 0, "rank %d runs on %s, expected %s", rank, name, want);
}

static void check_node_comm(int ppn)
{
    MPI_Comm node;
    MPI_Barrier(MPI_COMM_WORLD); /* SMPI groups inconsistently without it */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n;
    MPI_Comm_size(node, &n);
    CHECK(n == ppn, "node communicator has %d ranks, expected %d", n, ppn);
    MPI_Comm_free(&node);
}

static void check_allreduce(int rank, int size, int count)
{
    int64_t *in = malloc(sizeof *in * (size_t)count), *out = malloc(sizeof *out * (size_t)count);
    for (int i = 0; i < count; i++)
        in[i] = (int64_t)rank * 1000003 + i;
    MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < count; i++) {
        int64_t want = (int64_t)size * (size - 1) / 2 * 1000003 + (int64_t)size * i;
        bad += out[i] != want;
    }
    CHECK(bad == 0, "allreduce of %d int64: %d wrong elements", count, bad);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ppn = argc > 1 ? atoi(argv[1]) : 1;
    const char *prefix = argc > 2 ? argv[2] : "node-";
    CHECK(ppn >= 1, "bad PPN argument \"%s\"", argc > 1 ? argv[1] : "");
    if (ppn >= 1) {
        check_host(rank, ppn, prefix);
        check_node_comm(ppn);
    }
    check_allreduce(rank, size, 1);
    check_allreduce(rank, size, 131072);
    int local = check_failures, total;
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0 && total == 0)
        return check_done("eval_platform");
    return total ? 1 : 0;
}
