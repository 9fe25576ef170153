/* Quantum-chemistry proxy (the GAMESS SCF pattern): each SCF iteration
 * broadcasts the density matrix in blocks (MPI_Bcast of small, medium and
 * large blocks, the root rotating over ranks as in a distributed-data
 * build), every rank computes its share of the Fock matrix from it (charged
 * as flops) and the shares are summed at a root with MPI_Reduce.
 *
 * All values are small integers stored in doubles, so every sum is exact
 * whatever the reduction order.  Verification: every rank checks each
 * broadcast block against the closed form, and the Reduce root checks the
 * summed Fock block equals sum over ranks of weight(rank) x D; exit 1 on
 * any difference. */
#include "app.h"

static double dval(long iter, long blk, long i)
{
    return (double)((iter * 131 + blk * 17 + i * 7) % 97);
}

static double weight(long rank)
{
    return (double)(rank % 5 + 1);
}

/* One block: root fills D, everyone checks it, computes w * D, Reduce at root. */
static long scf_block(double *d, double *f, double *sum, long m, long iter, long blk, int root,
                      long flops, int corrupt)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long bad = 0;
    if (rank == root)
        for (long i = 0; i < m; i++)
            d[i] = dval(iter, blk, i);
    MPI_Bcast(d, (int)m, MPI_DOUBLE, root, MPI_COMM_WORLD);
    for (long i = 0; i < m; i++) {
        bad += d[i] != dval(iter, blk, i);
        f[i] = weight(rank) * d[i];
    }
    if (corrupt && rank == size - 1 && iter == 0 && blk == 0)
        f[0] += 1; /* a wrong share: only the Reduce root can see it */
    app_compute((double)flops * (double)m);
    MPI_Reduce(f, sum, (int)m, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root) {
        double w = 0;
        for (long r = 0; r < size; r++)
            w += weight(r);
        for (long i = 0; i < m; i++)
            bad += sum[i] != w * dval(iter, blk, i);
    }
    return bad;
}

int main(int argc, char **argv)
{
    long iters = 8, warmup = -1, small = 16, medium = 64, large = 256, flops = 20, corrupt = 0;
    const app_opt_t opts[] = {
        {"--iters", &iters, 1, 1000000, "SCF iterations"},
        {"--warmup", &warmup, -1, 1000000, "untimed iterations of the loop's collectives first (-1: three times the timed ones)"},
        {"--small", &small, 1, 4096, "side of the small block (doubles: side^2)"},
        {"--medium", &medium, 1, 4096, "side of the medium block"},
        {"--large", &large, 1, 4096, "side of the large block"},
        {"--flops", &flops, 0, 1L << 20, "modelled flops per matrix element"},
        {"--corrupt", &corrupt, 0, 1, "1: damage one share on the last rank (tests the verifier)"},
    };
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (app_parse(argc, argv, opts, (int)(sizeof opts / sizeof *opts), rank)) {
        MPI_Finalize();
        return 2;
    }
    long sides[3] = {small, medium, large}, mmax = 0;
    for (int b = 0; b < 3; b++)
        mmax = sides[b] * sides[b] > mmax ? sides[b] * sides[b] : mmax;
    double *mem = malloc(sizeof *mem * (size_t)(3 * mmax));
    if (!mem) {
        fprintf(stderr, "qchem: out of memory for blocks of %ld doubles\n", mmax);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bad = 0;
    /* the loop's collectives, untimed, three times as often as the timed
     * loop makes them (--warmup): one-time set-up, MPI's or hytune's (its
     * private communicator once the calls have repaid it, docs/memory.md),
     * stays out of the timed loop, which measures the steady state */
    for (long w = 0; w < app_warmup(warmup, iters); w++)
        for (int b = 0; b < 3; b++)
            bad += scf_block(mem, mem + mmax, mem + 2 * mmax, sides[b] * sides[b], w, b,
                             (int)((w * 3 + b) % size), flops, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++)
        for (int b = 0; b < 3; b++) {
            int root = (int)((it * 3 + b) % size);
            bad += scf_block(mem, mem + mmax, mem + 2 * mmax, sides[b] * sides[b], it, b, root,
                             flops, (int)corrupt);
        }
    double t = MPI_Wtime() - t0;
    if (bad)
        fprintf(stderr, "qchem: rank %d: %ld wrong values in broadcast or reduced blocks\n", rank,
                bad);
    char extra[96];
    snprintf(extra, sizeof extra, "iters %ld blocks %ld,%ld,%ld", iters, small, medium, large);
    free(mem);
    int rc = app_finish("qchem", t, bad == 0, extra);
    MPI_Finalize();
    return rc;
}
