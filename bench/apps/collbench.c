/* Collective latency driver used by every evaluation script.
 *
 * For each message size from --min-bytes to --max-bytes (times --step) it
 * runs --warmup untimed calls, then --iters timed calls, each (warm-up
 * included) preceded by a barrier so every call starts with synchronised
 * arrival; a rank's time is
 * the mean of its own call durations and the reported time the largest
 * over ranks (the last rank to finish decides the collective's cost).  Once
 * per size the result is compared bit for bit with the same call through
 * PMPI, and for small sizes with the closed-form integer answer too.  Output, one CSV line per size:
 *     coll,bytes,ranks,time_us,verified
 * "bytes" is hytune's selection size: the whole buffer for allreduce, bcast
 * and reduce, one rank's block for allgather and alltoall.  Sizes whose
 * per-rank buffers would exceed --max-total bytes are skipped (say so on
 * stderr): an allgather of 1 MiB blocks at 256 ranks needs 256 MiB a rank. */
#include "app.h"

#include <stdint.h>

enum { C_ALLREDUCE, C_ALLGATHER, C_BCAST, C_REDUCE, C_ALLTOALL, C_N };
static const char *const coll_names[C_N] = {"allreduce", "allgather", "bcast", "reduce",
                                            "alltoall"};

typedef struct bench {
    int coll, rank, size;
    long count; /* int32 elements per call (per block for allgather/alltoall) */
    int32_t *sbuf, *rbuf;
} bench_t;

static int32_t val(long rank, long i)
{
    return (int32_t)((rank * 7919 + i * 31) % 65521);
}

static void fill(bench_t *b)
{
    long n = b->coll == C_ALLTOALL ? b->count * b->size : b->count;
    for (long i = 0; i < n; i++)
        b->sbuf[i] = val(b->rank, i);
}

static void run_once(bench_t *b)
{
    int c = (int)b->count;
    switch (b->coll) {
    case C_ALLREDUCE:
        MPI_Allreduce(b->sbuf, b->rbuf, c, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
        break;
    case C_ALLGATHER:
        MPI_Allgather(b->sbuf, c, MPI_INT32_T, b->rbuf, c, MPI_INT32_T, MPI_COMM_WORLD);
        break;
    case C_BCAST:
        MPI_Bcast(b->rank == 0 ? b->sbuf : b->rbuf, c, MPI_INT32_T, 0, MPI_COMM_WORLD);
        break;
    case C_REDUCE:
        MPI_Reduce(b->sbuf, b->rbuf, c, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    default:
        MPI_Alltoall(b->sbuf, c, MPI_INT32_T, b->rbuf, c, MPI_INT32_T, MPI_COMM_WORLD);
    }
}

/* The expected value of result element i (sums fit in int32: < 65521 x ranks). */
static int32_t expect(const bench_t *b, long i)
{
    int32_t s = 0;
    switch (b->coll) {
    case C_ALLREDUCE:
    case C_REDUCE:
        for (long r = 0; r < b->size; r++)
            s += val(r, i);
        return s;
    case C_ALLGATHER:
        return val(i / b->count, i % b->count);
    case C_BCAST:
        return val(0, i);
    default: /* block from rank r = r's block for me */
        return val(i / b->count, (long)b->rank * b->count + i % b->count);
    }
}

/* The same call through PMPI into ref: the reference result. */
static void run_reference(bench_t *b, int32_t *ref)
{
    int c = (int)b->count;
    switch (b->coll) {
    case C_ALLREDUCE:
        PMPI_Allreduce(b->sbuf, ref, c, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
        break;
    case C_ALLGATHER:
        PMPI_Allgather(b->sbuf, c, MPI_INT32_T, ref, c, MPI_INT32_T, MPI_COMM_WORLD);
        break;
    case C_BCAST:
        if (b->rank == 0)
            memcpy(ref, b->sbuf, sizeof *ref * (size_t)c);
        PMPI_Bcast(ref, c, MPI_INT32_T, 0, MPI_COMM_WORLD);
        break;
    case C_REDUCE:
        PMPI_Reduce(b->sbuf, ref, c, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    default:
        PMPI_Alltoall(b->sbuf, c, MPI_INT32_T, ref, c, MPI_INT32_T, MPI_COMM_WORLD);
    }
}

/* Check the last result: bit for bit against the PMPI reference, and for
 * small sizes also against the closed form (independent of any MPI). */
static int verify(bench_t *b)
{
    long n = b->coll == C_ALLGATHER || b->coll == C_ALLTOALL ? b->count * b->size : b->count;
    const int32_t *res = b->coll == C_BCAST && b->rank == 0 ? b->sbuf : b->rbuf;
    int32_t *ref = malloc(sizeof *ref * (size_t)n);
    if (!ref) {
        fprintf(stderr, "collbench: out of memory for the reference result\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    run_reference(b, ref);
    int ok = 1;
    if (b->coll == C_REDUCE && b->rank != 0)
        n = 0; /* only the root has a result */
    for (long i = 0; i < n && ok; i++)
        if (res[i] != ref[i] || (n * b->size <= (1L << 20) && res[i] != expect(b, i))) {
            fprintf(stderr, "collbench: %s rank %d: element %ld is %d, PMPI gives %d\n",
                    coll_names[b->coll], b->rank, i, res[i], ref[i]);
            ok = 0;
        }
    free(ref);
    return ok;
}

/* Mean call time of this rank over iters calls, in seconds. */
static double time_size(bench_t *b, long warmup, long iters)
{
    /* warm-up calls follow the timed calls' pattern (a barrier before each):
     * hybrid mode tunes its radix during them, on what is then measured */
    for (long w = 0; w < warmup; w++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        run_once(b);
    }
    double sum = 0;
    for (long it = 0; it < iters; it++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        run_once(b);
        sum += MPI_Wtime() - t;
    }
    return sum / (double)iters;
}

static int parse_coll(int argc, char **argv)
{
    for (int a = 1; a + 1 < argc; a++)
        if (strcmp(argv[a], "--coll") == 0)
            for (int c = 0; c < C_N; c++)
                if (strcmp(argv[a + 1], coll_names[c]) == 0)
                    return c;
    return -1;
}

/* argv without "--coll NAME" for app_parse. */
static int strip_coll(int argc, char **argv, char **out)
{
    int n = 0;
    for (int a = 0; a < argc; a++) {
        if (a > 0 && strcmp(argv[a], "--coll") == 0 && a + 1 < argc) {
            a++;
            continue;
        }
        out[n++] = argv[a];
    }
    return n;
}

int main(int argc, char **argv)
{
    long minb = 8, maxb = 1L << 20, step = 2, iters = 10, warmup = 2, max_total = 64L << 20;
    const app_opt_t opts[] = {
        {"--min-bytes", &minb, 4, 1L << 30, "smallest size (rounded down to a multiple of 4)"},
        {"--max-bytes", &maxb, 4, 1L << 30, "largest size"},
        {"--step", &step, 2, 1024, "size factor from one size to the next"},
        {"--iters", &iters, 1, 1000000, "timed calls per size"},
        {"--warmup", &warmup, 0, 1000000, "untimed calls per size"},
        {"--max-total", &max_total, 1024, 1L << 34, "skip sizes needing more buffer per rank"},
    };
    MPI_Init(&argc, &argv);
    bench_t b = {.coll = parse_coll(argc, argv)};
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    char **rest = malloc(sizeof *rest * (size_t)(argc + 1));
    int nrest = strip_coll(argc, argv, rest);
    if (b.coll < 0 || app_parse(nrest, rest, opts, 6, b.rank)) {
        if (b.coll < 0 && b.rank == 0)
            fprintf(stderr, "collbench: give --coll allreduce|allgather|bcast|reduce|alltoall\n");
        free(rest);
        MPI_Finalize();
        return 2;
    }
    free(rest);
    int ok = 1;
    for (long bytes = minb; bytes <= maxb; bytes *= step) {
        b.count = bytes / 4;
        long per_rank = b.coll == C_ALLGATHER || b.coll == C_ALLTOALL ? b.size : 1;
        long sendn = b.coll == C_ALLTOALL ? b.count * b.size : b.count;
        if ((sendn + b.count * per_rank) * 4 > max_total) {
            if (b.rank == 0)
                fprintf(stderr, "collbench: %s %ld B skipped: needs %ld B a rank (> --max-total)\n",
                        coll_names[b.coll], bytes, (sendn + b.count * per_rank) * 4);
            continue;
        }
        b.sbuf = malloc(sizeof(int32_t) * (size_t)sendn);
        b.rbuf = malloc(sizeof(int32_t) * (size_t)(b.count * per_rank));
        if (!b.sbuf || !b.rbuf) {
            fprintf(stderr, "collbench: out of memory at %ld B\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fill(&b);
        double t = time_size(&b, warmup, iters), tmax;
        int good = verify(&b), all_good;
        PMPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        PMPI_Allreduce(&good, &all_good, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        ok &= all_good;
        if (b.rank == 0) {
            printf("%s,%ld,%d,%.3f,%s\n", coll_names[b.coll], bytes, b.size, tmax * 1e6,
                   all_good ? "yes" : "no");
            fflush(stdout);
        }
        free(b.sbuf);
        free(b.rbuf);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
