/* Unit test of the algorithm registry (algorithms/registry.c) and the small
 * core helpers every part relies on (collective names, size buckets,
 * fallback reasons, restriction checks).
 *
 * The registry grows while others add algorithms: every check iterates the
 * table, so each new row is checked for the invariants dispatch, name
 * parsing, `hytune list` and the tuner depend on. */
#include "src/hyt.h"
#include "test/check.h"
#include "topology/topology.h"

#include <string.h>

static void test_rows(void)
{
    CHECK(hyt_nalgs >= HYT_NCOLL, "%d rows, fewer than the native rows", hyt_nalgs);
    for (int c = 0; c < HYT_NCOLL; c++) {
        const hyt_alg_t *n = hyt_alg_native((hyt_coll_t)c);
        CHECK(n == &hyt_algs[c], "native row of %s is not row %d", hyt_coll_name(c), c);
        CHECK(n->coll == (hyt_coll_t)c && strcmp(n->name, "native") == 0 &&
                  (n->flags & HYT_ALG_NATIVE) && !hyt_alg_has_radix(n),
              "row %d is not %s's native row", c, hyt_coll_name(c));
        CHECK(hyt_alg_find((hyt_coll_t)c, "native") == n, "find native %s", hyt_coll_name(c));
    }
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        const char *cn = hyt_coll_name(a->coll);
        CHECK((unsigned)a->coll < HYT_NCOLL, "row %d: collective %d", i, a->coll);
        CHECK(a->name && a->name[0] && strlen(a->name) < 64 && !strchr(a->name, ':') &&
                  !strchr(a->name, ' '),
              "row %d: name \"%s\" (short, no ':' or space)", i, a->name ? a->name : "(null)");
        CHECK(a->fn != NULL, "row %d %s %s: no function", i, cn, a->name);
        CHECK(a->desc && a->desc[0] && !strchr(a->desc, '\n'), "row %d %s %s: description",
              i, cn, a->name);
        CHECK(hyt_alg_find(a->coll, a->name) == a, "row %d %s %s: name not unique", i, cn,
              a->name);
        if (hyt_alg_has_radix(a)) {
            CHECK(a->k_min >= 1, "%s %s: k_min %d", cn, a->name, a->k_min);
            CHECK(a->k_max == HYT_K_P || (a->k_max >= a->k_min && a->k_max <= HYT_K_LIMIT),
                  "%s %s: k range %d..%d", cn, a->name, a->k_min, a->k_max);
            CHECK(hyt_alg_k_max(a, 1000) >= a->k_min, "%s %s: k_max(1000)", cn, a->name);
            if (a->k_max == HYT_K_P) {
                CHECK(hyt_alg_k_max(a, 37) == (37 > a->k_min ? 37 : a->k_min),
                      "%s %s: k_max(p=37) = %d", cn, a->name, hyt_alg_k_max(a, 37));
                CHECK(hyt_alg_k_max(a, 1) == a->k_min, "%s %s: k_max(p=1)", cn, a->name);
            } else {
                CHECK(hyt_alg_k_max(a, 3) == a->k_max, "%s %s: fixed k_max", cn, a->name);
            }
        } else {
            CHECK(a->k_min == 0 && a->k_max == 0, "%s %s: no radix but k_min %d", cn, a->name,
                  a->k_min);
        }
        CHECK(!(a->flags & HYT_ALG_NO_INPLACE) ||
                  (a->coll != HYT_COLL_BCAST && a->coll != HYT_COLL_REDUCE),
              "%s %s: NO_INPLACE is never used for bcast/reduce (only the root passes it)", cn,
              a->name);
        CHECK(!(a->flags & HYT_ALG_NEEDS_COMMUTATIVE) || hyt_coll_has_op(a->coll),
              "%s %s: needs a commutative op but takes no op", cn, a->name);
        CHECK(!(a->flags & HYT_ALG_NATIVE) || !hyt_alg_has_radix(a),
              "%s %s: HYT_ALG_NATIVE rows take no radix (dispatch relies on it)", cn, a->name);
        /* the fields code reads instead of names: one family, one name */
        for (int j = 0; j < i; j++)
            CHECK((hyt_algs[j].family == a->family) == !strcmp(hyt_algs[j].name, a->name),
                  "rows %d %s and %d %s: family and name disagree", j, hyt_algs[j].name, i,
                  a->name);
        CHECK(hyt_alg_find_family(a->coll, a->family) == a, "%s %s: family not unique", cn,
              a->name);
        CHECK((a->family == HYT_FAM_NATIVE) == !!(a->flags & HYT_ALG_NATIVE),
              "%s %s: native family and flag disagree", cn, a->name);
        CHECK((a->family == HYT_FAM_COMPOSITION) == !!(a->flags & HYT_ALG_COMPOSITION),
              "%s %s: composition family and flag disagree", cn, a->name);
        CHECK((a->prior != HYT_PRIOR_NONE) == hyt_alg_has_radix(a),
              "%s %s: a prior exactly when there is a radix", cn, a->name);
        CHECK(a->prior != HYT_PRIOR_INNER ||
                  (hyt_alg_inner(a->coll) && hyt_alg_has_radix(hyt_alg_inner(a->coll))),
              "%s %s: inner prior without a k-nomial or recmult row", cn, a->name);
        /* a composition's inter-node step, flat or not: one kernel, one k rule
         * (the prior's inner row for k > 0, the MPI library's for k <= 0) */
        if (a->flags & HYT_ALG_COMPOSITION) {
            for (int k = -1; k <= 1; k++)
                CHECK(hyt_compose_kernel(a->coll, k) == (k > 0 ? hyt_alg_inner(a->coll) : NULL),
                      "%s composition: kernel at k=%d", cn, k);
            CHECK(hyt_compose_kernel(a->coll, 64) == hyt_alg_inner(a->coll),
                  "%s composition: kernel at k=64", cn);
        }
        CHECK(!a->k_one_round || hyt_alg_has_radix(a), "%s %s: one-round k without a radix",
              cn, a->name);
        CHECK(hyt_alg_one_round_k(a, 37) ==
                  (a->family == HYT_FAM_KNOMIAL || a->family == HYT_FAM_RECMULT ? 37 : 0),
              "%s %s: one-round k %d at p=37", cn, a->name, hyt_alg_one_round_k(a, 37));
        const hyt_alg_t *p = NULL;
        int k = -1;
        char err[600];
        CHECK(hyt_alg_parse(a->coll, a->name, &p, &k, err, sizeof err) == 0 && p == a,
              "%s %s does not parse: %s", cn, a->name, err);
    }
    CHECK(hyt_alg_find(HYT_COLL_ALLREDUCE, "") == NULL, "empty name found");
    CHECK(hyt_alg_find(HYT_COLL_ALLREDUCE, "Native") == NULL, "names are case-sensitive");
}

/* A non-commutative op for the restriction check (never applied here). */
static void first_wins(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

/* Restriction checks on captured calls; the context is filled by hand. */
static void test_restrictions(void)
{
    hyt_comm_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.node_consecutive = 0;
    int buf = 0;
    hyt_args_t a = {.coll = HYT_COLL_ALLREDUCE, .sbuf = MPI_IN_PLACE, .rbuf = &buf, .count = 1,
                    .type = MPI_INT, .op = MPI_SUM, .comm = MPI_COMM_WORLD, .ctx = &ctx};
    static const hyt_alg_t in_place = {.name = "t", .flags = HYT_ALG_NO_INPLACE};
    static const hyt_alg_t layout = {.name = "t", .flags = HYT_ALG_NODE_CONSECUTIVE};
    static const hyt_alg_t native = {.name = "native", .flags = HYT_ALG_NATIVE |
                                                                HYT_ALG_NO_INPLACE};
    static const hyt_alg_t commut = {.name = "t", .flags = HYT_ALG_NEEDS_COMMUTATIVE};
    CHECK(hyt_alg_check(&in_place, &a) == HYT_FB_INPLACE, "in place refused");
    CHECK(hyt_alg_check(&layout, &a) == HYT_FB_LAYOUT, "layout refused");
    CHECK(hyt_alg_check(&native, &a) == HYT_FB_NONE, "native takes everything");
    CHECK(hyt_alg_check(&commut, &a) == HYT_FB_NONE, "MPI_SUM is commutative");
    ctx.node_consecutive = 1;
    a.sbuf = &buf;
    CHECK(hyt_alg_check(&layout, &a) == HYT_FB_NONE, "consecutive layout refused");
    CHECK(hyt_alg_check(&in_place, &a) == HYT_FB_NONE, "not in place refused");
    MPI_Op nc;
    MPI_Op_create(first_wins, 0, &nc);
    a.op = nc;
    CHECK(hyt_alg_check(&commut, &a) == HYT_FB_NONCOMMUTATIVE, "non-commutative op taken");
    a.coll = HYT_COLL_BCAST; /* no op: the commutativity check does not apply */
    CHECK(hyt_alg_check(&commut, &a) == HYT_FB_NONE, "bcast has no op");
    MPI_Op_free(&nc);
}

static void test_helpers(void)
{
    static const char *const names[HYT_NCOLL] = {
        "allreduce", "bcast", "reduce", "allgather", "alltoall", "reduce_scatter_block",
        "barrier", "gather", "gatherv", "scatter", "scatterv", "allgatherv", "alltoallv",
        "alltoallw", "reduce_scatter", "scan", "exscan", "neighbor_allgather",
        "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};
    for (int c = 0; c < HYT_NCOLL; c++) {
        CHECK(names[c] && strcmp(hyt_coll_name((hyt_coll_t)c), names[c]) == 0, "name of %d", c);
        CHECK(names[c] && hyt_coll_from_name(names[c]) == c, "from_name %s", names[c]);
    }
    CHECK(hyt_coll_from_name("Allreduce") == -1 && hyt_coll_from_name("") == -1, "bad names");
    CHECK(strcmp(hyt_coll_name(HYT_NCOLL), "?") == 0, "out of range name");
    /* properties: op, root, per-rank counts, sizes only known locally */
    static const hyt_coll_t with_op[] = {HYT_COLL_ALLREDUCE, HYT_COLL_REDUCE,
                                         HYT_COLL_REDUCE_SCATTER_BLOCK, HYT_COLL_REDUCE_SCATTER,
                                         HYT_COLL_SCAN, HYT_COLL_EXSCAN};
    static const hyt_coll_t with_root[] = {HYT_COLL_BCAST, HYT_COLL_REDUCE, HYT_COLL_GATHER,
                                           HYT_COLL_GATHERV, HYT_COLL_SCATTER, HYT_COLL_SCATTERV};
    int nop = 0, nroot = 0;
    for (int c = 0; c < HYT_NCOLL; c++) {
        int op = 0, root = 0;
        for (size_t i = 0; i < sizeof with_op / sizeof with_op[0]; i++)
            op |= with_op[i] == (hyt_coll_t)c;
        for (size_t i = 0; i < sizeof with_root / sizeof with_root[0]; i++)
            root |= with_root[i] == (hyt_coll_t)c;
        CHECK(hyt_coll_has_op((hyt_coll_t)c) == op, "has_op %s", names[c]);
        CHECK(hyt_coll_has_root((hyt_coll_t)c) == root, "has_root %s", names[c]);
        nop += op;
        nroot += root;
        unsigned pr = hyt_coll_props((hyt_coll_t)c);
        int vec = strchr("vw", names[c][strlen(names[c]) - 1]) != NULL ||
                  c == HYT_COLL_REDUCE_SCATTER;
        CHECK(!!(pr & HYT_CP_VECTOR) == vec, "vector property of %s", names[c]);
        CHECK(!!(pr & HYT_CP_NEIGHBOR) == (strncmp(names[c], "neighbor_", 9) == 0),
              "neighbor property of %s", names[c]);
        /* a size every rank knows alike: not for per-rank send counts, nor neighbors */
        int local = (pr & HYT_CP_NEIGHBOR) || c == HYT_COLL_ALLTOALLV ||
                    c == HYT_COLL_ALLTOALLW || c == HYT_COLL_GATHERV || c == HYT_COLL_SCATTERV;
        CHECK(!!(pr & HYT_CP_LOCAL_SIZE) == local, "local-size property of %s", names[c]);
    }
    CHECK(nop == 6 && nroot == 6, "op and root lists");
    CHECK(hyt_coll_tunable(HYT_COLL_ALLREDUCE) && hyt_coll_tunable(HYT_COLL_ALLTOALL),
          "the six tuned collectives have algorithms");
    /* entry point names of every form */
    char buf[64];
    hyt_entry_name(HYT_COLL_ALLREDUCE, HYT_VARIANT(HYT_FORM_BLOCKING, 0), buf, sizeof buf);
    CHECK(strcmp(buf, "MPI_Allreduce") == 0, "entry %s", buf);
    hyt_entry_name(HYT_COLL_NEIGHBOR_ALLTOALLW, HYT_VARIANT(HYT_FORM_NONBLOCKING, 1), buf,
                   sizeof buf);
    CHECK(strcmp(buf, "MPI_Ineighbor_alltoallw_c") == 0, "entry %s", buf);
    hyt_entry_name(HYT_COLL_BARRIER, HYT_VARIANT(HYT_FORM_PERSISTENT, 0), buf, sizeof buf);
    CHECK(strcmp(buf, "MPI_Barrier_init") == 0, "entry %s", buf);
    /* bucket b holds floor(log2(bytes)) + 1 */
    static const struct { size_t bytes; int bucket; } bk[] = {
        {0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {1023, 10}, {1024, 11},
        {(size_t)1 << 40, 41}, {SIZE_MAX, 64}};
    for (size_t i = 0; i < sizeof bk / sizeof bk[0]; i++)
        CHECK(hyt_bucket(bk[i].bytes) == bk[i].bucket, "bucket(%zu) = %d, want %d", bk[i].bytes,
              hyt_bucket(bk[i].bytes), bk[i].bucket);
    CHECK(hyt_bucket(SIZE_MAX) < HYT_NBUCKETS + 1, "bucket range");
    /* the reason names the statistics print (tests and docs match them) */
    static const struct { hyt_fallback_t f; const char *name; } fb[] = {
        {HYT_FB_NONE, "none"}, {HYT_FB_INTERCOMM, "intercommunicator"},
        {HYT_FB_NONCOMMUTATIVE, "non-commutative op"}, {HYT_FB_INPLACE, "in-place not supported"},
        {HYT_FB_LAYOUT, "rank layout"}, {HYT_FB_ALGORITHM, "declined by algorithm"},
        {HYT_FB_SCRATCH, "scratch memory"}, {HYT_FB_SETUP, "set-up not yet repaid"}};
    for (size_t i = 0; i < sizeof fb / sizeof fb[0]; i++)
        CHECK(strcmp(hyt_fallback_name(fb[i].f), fb[i].name) == 0, "fallback %d is \"%s\"",
              (int)fb[i].f, hyt_fallback_name(fb[i].f));
    for (int f = 0; f < HYT_NFB; f++)
        for (int g = 0; g < f; g++)
            CHECK(strcmp(hyt_fallback_name((hyt_fallback_t)f),
                         hyt_fallback_name((hyt_fallback_t)g)) != 0 &&
                      strcmp(hyt_fallback_name((hyt_fallback_t)f), "?") != 0,
                  "fallback %d: name \"%s\" not unique", f, hyt_fallback_name((hyt_fallback_t)f));
    CHECK(strcmp(hyt_fallback_name(HYT_NFB), "?") == 0, "fallback out of range");
    CHECK(hyt_type_is_contig(MPI_INT) && hyt_type_is_contig(MPI_DOUBLE), "basic types contig");
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK(!hyt_type_is_contig(vec), "strided vector is not contiguous");
    MPI_Type_free(&vec);
    CHECK(hyt_op_is_commutative(MPI_SUM) && hyt_op_is_commutative(MPI_BAND), "builtin ops");
}

/* hyt_selection_bytes reads predefined types' sizes from MPICH's handles:
 * it must agree with MPI_Type_size on every predefined and derived type. */
static void test_selection_bytes(void)
{
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Datatype types[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_FLOAT,
        MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_PACKED,
        MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_2INT,
        MPI_LONG_DOUBLE_INT, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
        MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER, MPI_REAL,
        MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER,
        MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER, vec};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (types[i] == MPI_DATATYPE_NULL)
            continue; /* not provided by this MPI */
        int size = -1;
        MPI_Type_size(types[i], &size);
        hyt_args_t a = {.coll = HYT_COLL_BCAST, .count = 3, .type = types[i]};
        CHECK(hyt_selection_bytes(&a) == (size_t)size * 3, "type #%zu: %zu bytes, want %d x 3",
              i, hyt_selection_bytes(&a), size);
    }
    hyt_args_t neg = {.coll = HYT_COLL_BCAST, .count = -1, .type = MPI_INT};
    CHECK(hyt_selection_bytes(&neg) == 0, "negative count");
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    /* a singleton MPI (no launcher) for the op and datatype queries */
    MPI_Init(&argc, &argv);
    test_rows();
    test_restrictions();
    test_helpers();
    test_selection_bytes();
    int rc = check_done("test_registry");
    MPI_Finalize();
    return rc;
}
