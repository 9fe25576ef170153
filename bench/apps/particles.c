/* Particle exchange proxy (an SPH/N-body code exchanging particle data, as
 * SHAMROCK does): every step each rank publishes its particles' positions
 * and masses with one MPI_Allgather, then accumulates from the gathered set
 * the quantities it needs (centre of mass and a softened pull on each local
 * particle from the heaviest remote block, charged as flops) and moves its
 * particles.
 *
 * Positions follow a closed-form trajectory pos(rank, i, step), so every
 * rank can recompute what any other rank must have sent.  Verification:
 * each step, every gathered value is compared bit for bit with the closed
 * form; the run fails (exit 1) on any difference. */
#include "app.h"

#include <stdint.h>

enum { FIELDS = 4 }; /* x, y, z, mass */

/* Exactly representable values (k / 1024) so the comparison is bitwise. */
static double field(long rank, long i, long step, int f)
{
    uint64_t h = (uint64_t)rank * 2654435761u + (uint64_t)i * 40503u + (uint64_t)step * 977u +
                 (uint64_t)f * 7919u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 1048576u) / 1024.0;
}

static void fill(double *mine, long rank, long n, long step)
{
    for (long i = 0; i < n; i++)
        for (int f = 0; f < FIELDS; f++)
            mine[i * FIELDS + f] = field(rank, i, step, f);
}

/* Count gathered values that differ from what their owner must have sent. */
static long check_gathered(const double *all, int size, long n, long step)
{
    long bad = 0;
    for (long r = 0; r < size; r++)
        for (long i = 0; i < n; i++)
            for (int f = 0; f < FIELDS; f++)
                bad += all[(r * n + i) * FIELDS + f] != field(r, i, step, f);
    return bad;
}

/* The physics stand-in: centre of mass of everything gathered. */
static double centre_of_mass(const double *all, long total)
{
    double m = 0, mx = 0;
    for (long j = 0; j < total; j++) {
        m += all[j * FIELDS + 3];
        mx += all[j * FIELDS + 3] * all[j * FIELDS];
    }
    return m > 0 ? mx / m : 0;
}

int main(int argc, char **argv)
{
    long n = 64, steps = 20, warmup = -1, flops = 2000, corrupt = 0;
    const app_opt_t opts[] = {
        {"--particles", &n, 1, 1L << 20, "particles per rank (32 B each in the Allgather)"},
        {"--steps", &steps, 1, 1000000, "time steps (one Allgather each)"},
        {"--warmup", &warmup, -1, 1000000, "untimed iterations of the loop's collectives first (-1: three times the timed ones)"},
        {"--flops", &flops, 0, 1L << 30, "modelled flops per local particle per step"},
        {"--corrupt", &corrupt, 0, 1, "1: damage one gathered value on rank 0 (tests the verifier)"},
    };
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (app_parse(argc, argv, opts, (int)(sizeof opts / sizeof *opts), rank)) {
        MPI_Finalize();
        return 2;
    }
    double *mine = malloc(sizeof *mine * (size_t)(n * FIELDS));
    double *all = malloc(sizeof *all * (size_t)(n * FIELDS) * (size_t)size);
    if (!mine || !all) {
        fprintf(stderr, "particles: out of memory for %ld particles x %d ranks\n", n, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bad = 0;
    double com = 0;
    /* the loop's collectives, untimed, three times as often as the timed
     * loop makes them (--warmup): one-time set-up, MPI's or hytune's (its
     * private communicator once the calls have repaid it, docs/memory.md),
     * stays out of the timed loop, which measures the steady state */
    for (long w = 0; w < app_warmup(warmup, steps); w++) {
        fill(mine, rank, n, 0);
        MPI_Allgather(mine, (int)(n * FIELDS), MPI_DOUBLE, all, (int)(n * FIELDS), MPI_DOUBLE,
                      MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long s = 0; s < steps; s++) {
        fill(mine, rank, n, s); /* the move of step s */
        MPI_Allgather(mine, (int)(n * FIELDS), MPI_DOUBLE, all, (int)(n * FIELDS), MPI_DOUBLE,
                      MPI_COMM_WORLD);
        if (corrupt && rank == 0 && s == 0)
            all[n * FIELDS * (size - 1)] += 1;
        com += centre_of_mass(all, n * size);
        app_compute((double)flops * (double)n);
        bad += check_gathered(all, size, n, s);
    }
    double t = MPI_Wtime() - t0;
    if (bad)
        fprintf(stderr, "particles: rank %d: %ld gathered values differ from their owner's\n",
                rank, bad);
    char extra[96];
    snprintf(extra, sizeof extra, "steps %ld particles %ld com %.6f", steps, n, com / (double)steps);
    free(mine);
    free(all);
    int rc = app_finish("particles", t, bad == 0, extra);
    MPI_Finalize();
    return rc;
}
