/* The runtime core's pass-through test: every collective hytune interposes,
 * called through MPI_* (hytune) and PMPI_* (the MPI library) on the same
 * input, must give byte-identical results.
 *
 * Matrix: communicators (world, self, dup, split by parity, split with the
 * rank order reversed) x the six tuned collectives x counts (0 .. 70000) x types
 * (int, double with exact values, a contiguous derived type, a 2x2 unsigned
 * matrix with a non-commutative product) x ops x in place or not x roots.
 * When hytune is active (linked or preloaded, mode not off) the number of
 * calls it counted on each communicator must equal the calls made; in off
 * mode it must count nothing.  Usage: test_core_pass [quick] */
#define _GNU_SOURCE
#include "test/mpi/core_util.h"

#include <stdio.h>

typedef enum { E_INT, E_DOUBLE, E_TRI, E_MAT } elem_t;

typedef struct kind {
    const char *name;
    elem_t elem;
    MPI_Datatype type; /* set at start: derived types are created */
    size_t size;       /* bytes per element */
    MPI_Op op;         /* for reductions; MPI_OP_NULL: not reducible */
} kind_t;

/* the collectives of this matrix: the six list entries before Barrier */
#define PASS_NCOLL HYT_COLL_BARRIER

static kind_t kinds[6];
static int nkinds;
static long long made[8][HYT_NCOLL]; /* MPI_* calls made per communicator */

/* 2x2 unsigned matrix product (wraps mod 2^32): associative, not commutative. */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

static void make_kinds(void)
{
    static MPI_Datatype tri, mat;
    static MPI_Op mat_op;
    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_commit(&tri);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(mat_mul, 0, &mat_op);
    kinds[nkinds++] = (kind_t){"int-sum", E_INT, MPI_INT, 4, MPI_SUM};
    kinds[nkinds++] = (kind_t){"int-max", E_INT, MPI_INT, 4, MPI_MAX};
    kinds[nkinds++] = (kind_t){"int-bxor", E_INT, MPI_INT, 4, MPI_BXOR};
    kinds[nkinds++] = (kind_t){"double-sum", E_DOUBLE, MPI_DOUBLE, 8, MPI_SUM};
    kinds[nkinds++] = (kind_t){"tri", E_TRI, tri, 12, MPI_OP_NULL};
    kinds[nkinds++] = (kind_t){"mat-noncommutative", E_MAT, mat, 16, mat_op};
}

/* Deterministic content for element i of rank r (salt: which buffer). */
static void fill(const kind_t *k, void *buf, size_t n, int r, int salt)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(r * 131 + (int)i * 7 + salt * 1009) % 2003;
        switch (k->elem) {
        case E_INT:
            ((int *)buf)[i] = (int)v - 1000;
            break;
        case E_DOUBLE: /* integers below 2^53: sums exact in any order */
            ((double *)buf)[i] = (double)v - 1000.5 + 0.25 * (double)(r % 3);
            break;
        case E_TRI:
            for (int j = 0; j < 3; j++)
                ((int *)buf)[3 * i + (size_t)j] = (int)v + j;
            break;
        case E_MAT:
            for (int j = 0; j < 4; j++)
                ((unsigned *)buf)[4 * i + (size_t)j] = v * 2654435761u + (unsigned)j * 40503u;
            break;
        }
    }
}

typedef struct call {
    hyt_coll_t coll;
    const kind_t *k;
    int count, root, in_place;
    MPI_Comm comm;
    int comm_idx;
} call_t;

/* Run one collective through fn (0: PMPI, 1: MPI) into out (p*count elems). */
static int run(const call_t *c, int via_mpi, char *out, const char *in)
{
    int p, r;
    MPI_Comm_size(c->comm, &p);
    MPI_Comm_rank(c->comm, &r);
    size_t es = c->k->size, n = (size_t)c->count;
    MPI_Datatype t = c->k->type;
    const void *s = c->in_place ? MPI_IN_PLACE : in;
    if (via_mpi)
        made[c->comm_idx][c->coll]++;
    switch (c->coll) {
    case HYT_COLL_ALLREDUCE:
        if (c->in_place)
            memcpy(out, in, n * es);
        return via_mpi ? MPI_Allreduce(s, out, c->count, t, c->k->op, c->comm)
                       : PMPI_Allreduce(s, out, c->count, t, c->k->op, c->comm);
    case HYT_COLL_BCAST:
        if (r == c->root)
            memcpy(out, in, n * es);
        return via_mpi ? MPI_Bcast(out, c->count, t, c->root, c->comm)
                       : PMPI_Bcast(out, c->count, t, c->root, c->comm);
    case HYT_COLL_REDUCE: {
        int inp = c->in_place && r == c->root; /* only the root may pass MPI_IN_PLACE */
        if (inp)
            memcpy(out, in, n * es);
        const void *ss = inp ? MPI_IN_PLACE : in;
        return via_mpi ? MPI_Reduce(ss, out, c->count, t, c->k->op, c->root, c->comm)
                       : PMPI_Reduce(ss, out, c->count, t, c->k->op, c->root, c->comm);
    }
    case HYT_COLL_ALLGATHER:
        if (c->in_place)
            memcpy(out + (size_t)r * n * es, in, n * es);
        return via_mpi ? MPI_Allgather(s, c->count, t, out, c->count, t, c->comm)
                       : PMPI_Allgather(s, c->count, t, out, c->count, t, c->comm);
    case HYT_COLL_ALLTOALL:
        if (c->in_place)
            memcpy(out, in, (size_t)p * n * es);
        return via_mpi ? MPI_Alltoall(s, c->count, t, out, c->count, t, c->comm)
                       : PMPI_Alltoall(s, c->count, t, out, c->count, t, c->comm);
    case HYT_COLL_REDUCE_SCATTER_BLOCK:
        if (c->in_place)
            memcpy(out, in, (size_t)p * n * es);
        return via_mpi ? MPI_Reduce_scatter_block(s, out, c->count, t, c->k->op, c->comm)
                       : PMPI_Reduce_scatter_block(s, out, c->count, t, c->k->op, c->comm);
    default: /* the other collectives: test_core_entries */
        break;
    }
    return MPI_ERR_OTHER;
}

static void check_call(const call_t *c, const char *comm_name)
{
    int p, r;
    MPI_Comm_size(c->comm, &p);
    MPI_Comm_rank(c->comm, &r);
    size_t bytes = (size_t)p * (size_t)(c->count > 0 ? c->count : 1) * c->k->size;
    char *in = malloc(bytes), *ref = malloc(bytes), *out = malloc(bytes);
    fill(c->k, in, bytes / c->k->size, r, 1);
    /* both outputs start from the same garbage, so untouched bytes must agree too */
    fill(c->k, ref, bytes / c->k->size, r, 2);
    memcpy(out, ref, bytes);
    if (getenv("CORE_TRACE"))
        fprintf(stderr, "%s %s %s count %d root %d inplace %d\n", comm_name,
                core_coll_name(c->coll), c->k->name, c->count, c->root, c->in_place);
    int rc_ref = run(c, 0, ref, in);
    int rc = run(c, 1, out, in);
    CHECK(rc == MPI_SUCCESS && rc_ref == MPI_SUCCESS, "%s %s %s count %d: rc %d (PMPI %d)",
          comm_name, core_coll_name(c->coll), c->k->name, c->count, rc, rc_ref);
    CHECK(memcmp(out, ref, bytes) == 0,
          "%s %s %s count %d root %d%s: result differs from PMPI's", comm_name,
          core_coll_name(c->coll), c->k->name, c->count, c->root,
          c->in_place ? " in place" : "");
    free(in);
    free(ref);
    free(out);
}

static void run_matrix(MPI_Comm comm, int idx, const char *name, int quick)
{
    static const int counts_full[] = {0, 1, 3, 64, 4099, 70000};
    static const int counts_quick[] = {1, 1000};
    const int *counts = quick ? counts_quick : counts_full;
    int ncounts = quick ? 2 : 6;
    int p;
    MPI_Comm_size(comm, &p);
    for (int coll = 0; coll < PASS_NCOLL; coll++)
        for (int ki = 0; ki < nkinds; ki++) {
            const kind_t *k = &kinds[ki];
            if (core_has_op((hyt_coll_t)coll) && k->op == MPI_OP_NULL)
                continue;
            if (!core_has_op((hyt_coll_t)coll) && ki > 0 && k->op != MPI_OP_NULL &&
                k->elem == E_INT)
                continue; /* int ops repeat int data for non-reductions */
            for (int ci = 0; ci < ncounts; ci++) {
                int count = counts[ci];
                if (coll == HYT_COLL_ALLTOALL || coll == HYT_COLL_REDUCE_SCATTER_BLOCK ||
                    coll == HYT_COLL_ALLGATHER)
                    count = count / (p > 1 ? p : 1) + (count > 0);
                for (int inp = 0; inp < 2; inp++) {
                    int roots = core_has_root((hyt_coll_t)coll) ? (p > 1 ? 2 : 1) : 1;
                    for (int ri = 0; ri < roots; ri++) {
                        if (inp && coll == HYT_COLL_BCAST)
                            continue;
                        /* MPICH 4.0.2 (ch4:ucx) itself segfaults in
                         * MPI_Reduce(MPI_IN_PLACE) at a non-zero root from
                         * 4 KiB up, with or without hytune */
                        if (inp && ri && coll == HYT_COLL_REDUCE &&
                            (size_t)count * k->size >= 1024)
                            continue;
                        call_t c = {.coll = (hyt_coll_t)coll, .k = k, .count = count,
                                    .root = ri ? p - 1 : 0, .in_place = inp, .comm = comm,
                                    .comm_idx = idx};
                        check_call(&c, name);
                    }
                }
            }
        }
}

static void check_counts(MPI_Comm comm, int idx, const char *name)
{
    int active = core_active();
    if (!core_expect_active()) {
        CHECK(!active, "HYTUNE_MODE=off but hytune is active");
        return;
    }
    if (getenv("HYT_EXPECT_HYTUNE"))
        CHECK(core_interposed(), "hytune is not in the process (LD_PRELOAD?)");
    if (!core_hytune())
        return; /* a plain run without hytune: nothing to count */
    CHECK(active, "hytune present but not initialized");
    for (int c = 0; c < HYT_NCOLL; c++) {
        long long n = core_calls(comm, (hyt_coll_t)c);
        CHECK(n == made[idx][c], "%s: hytune counted %lld %s calls, %lld were made", name, n,
              core_coll_name((hyt_coll_t)c), made[idx][c]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    make_kinds();
    MPI_Comm comms[5];
    const char *names[5] = {"world", "self", "dup", "split-parity", "split-reversed"};
    comms[0] = MPI_COMM_WORLD;
    comms[1] = MPI_COMM_SELF;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[2]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[3]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - rank, &comms[4]);
    for (int i = 0; i < 5; i++)
        run_matrix(comms[i], i, names[i], quick);
    for (int i = 0; i < 5; i++)
        check_counts(comms[i], i, names[i]);
    int r4;
    MPI_Comm_rank(comms[4], &r4);
    CHECK(r4 == p - 1 - rank, "reversed split: rank %d in world is %d", rank, r4);
    for (int i = 2; i < 5; i++)
        MPI_Comm_free(&comms[i]);
    MPI_Type_free(&kinds[4].type);
    MPI_Type_free(&kinds[5].type);
    MPI_Op_free(&kinds[5].op);
    int rc = core_done("test_core_pass");
    MPI_Finalize();
    return rc;
}
