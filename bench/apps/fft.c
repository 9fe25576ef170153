/* Spectral transpose proxy (the NPB FT pattern): a 2-D complex array of
 * N x N elements, N = ranks x block, distributed by rows; each iteration
 * does local 1-D transforms along the rows (charged as 5 N log2 N flops per
 * row), a global transpose with MPI_Alltoall (block x block complex
 * elements per pair), transforms again and transposes back.
 *
 * The elements encode their global (row, column), and the "transforms"
 * here are charged, not computed, so the data after each transpose is known
 * exactly.  Verification: after every forward transpose element (i, j)
 * holds the original (j, i), and after the back transpose the array is the
 * original, bit for bit; exit 1 otherwise. */
#include "app.h"

#include <math.h>

typedef struct {
    double re, im;
} cplx_t;

static cplx_t orig(long i, long j)
{
    return (cplx_t){(double)i, (double)j};
}

/* Global transpose of rows x N local rows: pack per destination, Alltoall,
 * then transpose each received block in place into out. */
static void transpose(const cplx_t *in, cplx_t *out, cplx_t *pack, long b, int p)
{
    long n = b * p;
    for (long d = 0; d < p; d++)
        for (long i = 0; i < b; i++)
            memcpy(pack + (d * b + i) * b, in + i * n + d * b, sizeof *in * (size_t)b);
    MPI_Alltoall(pack, (int)(2 * b * b), MPI_DOUBLE, out, (int)(2 * b * b), MPI_DOUBLE,
                 MPI_COMM_WORLD);
    /* block from source s holds its rows s*b.. restricted to my columns:
     * local element (i, s*b + j) of the result = block_s[j][i] */
    for (long s = 0; s < p; s++)
        for (long i = 0; i < b; i++)
            for (long j = 0; j < b; j++)
                pack[i * n + s * b + j] = out[(s * b + j) * b + i];
    memcpy(out, pack, sizeof *out * (size_t)(b * n));
}

static long count_bad(const cplx_t *a, long b, long n, int rank, int transposed)
{
    long bad = 0;
    for (long i = 0; i < b; i++)
        for (long j = 0; j < n; j++) {
            long gi = rank * b + i;
            cplx_t w = transposed ? orig(j, gi) : orig(gi, j);
            bad += a[i * n + j].re != w.re || a[i * n + j].im != w.im;
        }
    return bad;
}

int main(int argc, char **argv)
{
    long block = 4, iters = 4, warmup = -1, corrupt = 0;
    const app_opt_t opts[] = {
        {"--block", &block, 1, 4096, "rows per rank; Alltoall block = block^2 x 16 B"},
        {"--iters", &iters, 1, 1000000, "iterations (2 Alltoall each)"},
        {"--warmup", &warmup, -1, 1000000, "untimed iterations of the loop's collectives first (-1: three times the timed ones)"},
        {"--corrupt", &corrupt, 0, 1, "1: damage one element on rank 0 (tests the verifier)"},
    };
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (app_parse(argc, argv, opts, (int)(sizeof opts / sizeof *opts), rank)) {
        MPI_Finalize();
        return 2;
    }
    long n = block * p;
    size_t elems = (size_t)(block * n);
    cplx_t *a = malloc(sizeof *a * elems), *t = malloc(sizeof *t * elems),
           *pack = malloc(sizeof *pack * elems);
    if (!a || !t || !pack) {
        fprintf(stderr, "fft: out of memory for block %ld x %d ranks\n", block, p);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < block; i++)
        for (long j = 0; j < n; j++)
            a[i * n + j] = orig(rank * block + i, j);
    double row_flops = 5.0 * (double)n * log2((double)n) * (double)block;
    long bad = 0;
    /* the loop's collectives, untimed, three times as often as the timed
     * loop makes them (--warmup): one-time set-up, MPI's or hytune's (its
     * private communicator once the calls have repaid it, docs/memory.md),
     * stays out of the timed loop, which measures the steady state */
    for (long w = 0; w < app_warmup(warmup, iters); w++) {
        transpose(a, t, pack, block, p);
        transpose(t, a, pack, block, p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        app_compute(row_flops);
        transpose(a, t, pack, block, p);
        if (corrupt && rank == 0 && it == 0)
            t[n - 1].im += 1;
        bad += count_bad(t, block, n, rank, 1);
        app_compute(row_flops);
        transpose(t, a, pack, block, p);
        bad += count_bad(a, block, n, rank, 0);
    }
    double el = MPI_Wtime() - t0;
    if (bad)
        fprintf(stderr, "fft: rank %d: %ld elements wrong after transposes\n", rank, bad);
    char extra[64];
    snprintf(extra, sizeof extra, "iters %ld n %ld", iters, n);
    free(a);
    free(t);
    free(pack);
    int rc = app_finish("fft", el, bad == 0, extra);
    MPI_Finalize();
    return rc;
}
