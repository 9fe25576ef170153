/* NAS FT's communication outside FT (bench/ft_layout.sh): MPI_COMM_WORLD's
 * first collective, FT's two MPI_Comm_split calls of its 2-D layout and its
 * transposes, timed in simulated time.
 *   ft_layout NP2 B1 B2 CALLS
 * Rank r goes to row r / NP2 (a communicator of NP2 neighbouring ranks, FT's
 * commslice1) and column r % NP2 (P / NP2 ranks NP2 apart, commslice2), as
 * FT's 2-D layout does; B1 and B2 are the Alltoall blocks in bytes on each
 * (FT class W at 256 ranks: NP2 8, 4096 B on the rows, 1024 B on the
 * columns).  Rank 0 prints: the first (4-byte) MPI_Bcast on MPI_COMM_WORLD
 * and the second, the two splits (the slowest rank's time each); per
 * communicator its first Alltoall (which makes hytune's private duplicate
 * when a kernel is forced), then, after one more call and a barrier, CALLS
 * calls back to back: the slowest rank's mean per call.  Every Alltoall's
 * result is checked (block j from rank j of the communicator); a wrong one
 * prints WRONG and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double slowest(double t)
{
    double m;
    MPI_Reduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return 1e6 * m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 5) {
        if (me == 0)
            fprintf(stderr, "usage: ft_layout NP2 B1 B2 CALLS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int np2 = atoi(argv[1]), blk[2] = {atoi(argv[2]), atoi(argv[3])}, calls = atoi(argv[4]);
    if (np2 < 1 || np % np2 || blk[0] < 16 || blk[1] < 16 || blk[0] % 16 || blk[1] % 16 ||
        calls < 1) {
        if (me == 0)
            fprintf(stderr, "ft_layout: NP2 must divide the ranks, blocks be multiples of 16 B, "
                            "CALLS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int x = me;
    double t0 = MPI_Wtime();
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    MPI_Comm cs[2];
    MPI_Comm_split(MPI_COMM_WORLD, me / np2, me % np2, &cs[0]);
    double t3 = MPI_Wtime();
    MPI_Comm_split(MPI_COMM_WORLD, me % np2, me / np2, &cs[1]);
    double t4 = MPI_Wtime();
    double b0 = slowest(t1 - t0), b1 = slowest(t2 - t1), s0 = slowest(t3 - t2),
           s1 = slowest(t4 - t3);
    if (me == 0)
        printf("MPI_COMM_WORLD first Bcast %.2f us, second %.2f us; split into rows %.2f us, "
               "into columns %.2f us\n", b0, b1, s0, s1);
    int bad = 0;
    for (int c = 0; c < 2; c++) {
        int p, cr;
        MPI_Comm_size(cs[c], &p);
        MPI_Comm_rank(cs[c], &cr);
        int n = blk[c] / 16; /* double complex, as FT sends */
        double *s = malloc((size_t)p * blk[c]), *r = malloc((size_t)p * blk[c]);
        if (!s || !r)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < p * n * 2; i++)
            s[i] = me * 1e6 + i;
        double first = 0, per = 0;
        for (int i = 0; i < calls + 2; i++) {
            if (i == 2) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            } else if (i == 0) {
                t0 = MPI_Wtime();
            }
            MPI_Alltoall(s, n, MPI_C_DOUBLE_COMPLEX, r, n, MPI_C_DOUBLE_COMPLEX, cs[c]);
            if (i == 0)
                first = MPI_Wtime() - t0;
            for (int j = 0; j < p; j++) {
                int src = c == 0 ? (me / np2) * np2 + j : j * np2 + me % np2;
                for (int e = 0; e < 2 * n; e++)
                    bad |= r[j * 2 * n + e] != src * 1e6 + cr * 2 * n + e;
            }
        }
        per = (MPI_Wtime() - t0) / calls;
        double f = slowest(first), m = slowest(per);
        if (me == 0)
            printf("%s: %d ranks, %d B blocks: first Alltoall %.2f us, then %.2f us per call\n",
                   c ? "columns" : "rows", p, blk[c], f, m);
        free(s);
        free(r);
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad && me == 0)
        printf("WRONG: an Alltoall's result differs from the blocks sent\n");
    MPI_Comm_free(&cs[0]);
    MPI_Comm_free(&cs[1]);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
