/* MPICH algorithm names and the MPICH selection-file export (offline/mpich.c).
 *   test_mpich_json                  checks (no MPI calls)
 *   test_mpich_json write FILE SPEC  write a selection file whose tuned rules
 *       are SPEC: "coll=alg[@bytes],..." per collective, one shape (2 nodes x 4 ppn
 *       and 1 x 2); "-" as alg: a range hytune serves itself (tests under test/mpi). */
#include "offline/mpich.c"
#include "test/check.h"

#include <json.h>
#include <stdio.h>
#include <string.h>

/* Descriptions as MPICH 4.0.2 reports them through MPI_T_cvar_get_info. */
static const char *desc_bcast =
    "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden "
    "with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - "
    "Force Binomial Treenb                                      - Force nonblocking "
    "algorithmsmp                                     - Force smp "
    "algorithmscatter_recursive_doubling_allgather    - Force Scatter Recursive-Doubling "
    "Allgatherscatter_ring_allgather                  - Force Scatter Ring";
static const char *desc_allreduce =
    "Variable to select allreduce algorithmauto - Internal algorithm selection (can be "
    "overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb                       - Force "
    "nonblocking algorithmsmp                      - Force smp algorithmrecursive_doubling       "
    "- Force recursive doubling algorithmreduce_scatter_allgather - Force reduce scatter "
    "allgather algorithm";

static int count_leaves(json_object *o, int *bad)
{
    int n = 0;
    json_object_object_foreach(o, key, val) {
        if (!strncmp(key, "algorithm=MPIR_", 15)) {
            n++;
            if (json_object_object_length(val) != 0)
                (*bad)++;
        } else if (json_object_get_type(val) == json_type_object) {
            n += count_leaves(val, bad);
        } else {
            (*bad)++;
        }
    }
    return n;
}

/* The sibling keys of a size level: thresholds strictly increasing, "=any" last. */
static int check_sizes(json_object *o, const char *key)
{
    long long last = -1;
    int n = json_object_object_length(o), i = 0, ok = 1;
    json_object_object_foreach(o, k, v) {
        (void)v;
        i++;
        size_t kl = strlen(key);
        if (n == 1 && !strncmp(k, "algorithm=", 10))
            return 1; /* one choice for every size */
        if (strncmp(k, key, kl))
            return 0;
        if (!strcmp(k + kl, "=any"))
            ok &= i == n;
        else if (!strncmp(k + kl, "<=", 2)) {
            long long t = atoll(k + kl + 2);
            ok &= t > last;
            last = t;
        } else
            ok = 0;
    }
    return ok;
}

static int write_mode(const char *file, const char *spec)
{
    static hyt_mpich_rule_t rules[8][4];
    static hyt_mpich_set_t sets[8][2];
    static hyt_mpich_coll_t colls[8];
    static char algs[8][64];
    int n = 0;
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *t = strtok_r(buf, ",", &save); t && n < 8; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            return 2;
        *eq = 0;
        int c = hyt_coll_from_name(t);
        if (c < 0)
            return 2;
        char *at = strchr(eq + 1, '@');
        uint64_t lim = UINT64_MAX;
        if (at) {
            *at = 0;
            lim = strtoull(at + 1, NULL, 10);
        }
        snprintf(algs[n], sizeof algs[n], "%s", eq + 1);
        int nr = 0;
        rules[n][nr++] = (hyt_mpich_rule_t){lim, strcmp(algs[n], "-") ? algs[n] : NULL, NULL};
        if (lim != UINT64_MAX)
            rules[n][nr++] = (hyt_mpich_rule_t){UINT64_MAX, NULL, NULL};
        sets[n][0] = (hyt_mpich_set_t){1, 2, nr, rules[n]};
        sets[n][1] = (hyt_mpich_set_t){2, 4, nr, rules[n]};
        colls[n] = (hyt_mpich_coll_t){(hyt_coll_t)c, 2, sets[n]};
        n++;
    }
    char *txt = hyt_mpich_json(colls, n);
    FILE *f = txt ? fopen(file, "w") : NULL;
    if (!f || fputs(txt, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", file);
        free(txt);
        return 1;
    }
    free(txt);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "write"))
        return write_mode(argv[2], argv[3]);

    char names[HYT_MPICH_MAX_ALGS][HYT_MPICH_NAME];
    int n = hyt_mpich_parse_desc(desc_bcast, names, HYT_MPICH_MAX_ALGS);
    CHECK(n == 6, "bcast: %d names", n);
    const char *want_b[] = {"auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                            "scatter_ring_allgather"};
    for (int i = 0; i < n && i < 6; i++)
        CHECK(!strcmp(names[i], want_b[i]), "bcast value %d: %s, want %s", i, names[i], want_b[i]);
    n = hyt_mpich_parse_desc(desc_allreduce, names, HYT_MPICH_MAX_ALGS);
    CHECK(n == 5 && !strcmp(names[0], "auto") && !strcmp(names[3], "recursive_doubling") &&
              !strcmp(names[4], "reduce_scatter_allgather"),
          "allreduce: %d names", n);
    /* an unknown name makes the whole list unusable (positions would be wrong) */
    CHECK(hyt_mpich_parse_desc("select xauto - Internalfancy_new   - Force it", names, 8) == 0,
          "unknown name accepted");
    CHECK(hyt_mpich_parse_desc("no list here", names, 8) == 0, "no list");

    char cont[128];
    CHECK(!strcmp(hyt_mpich_container(HYT_COLL_ALLREDUCE, "recursive_doubling", cont, sizeof cont),
                  "MPIR_Allreduce_intra_recursive_doubling"), "%s", cont);
    CHECK(!strcmp(hyt_mpich_container(HYT_COLL_BCAST, "nb", cont, sizeof cont),
                  "MPIR_Bcast_allcomm_nb"), "%s", cont);
    CHECK(!strcmp(hyt_mpich_container(HYT_COLL_REDUCE_SCATTER_BLOCK, "pairwise", cont, sizeof cont),
                  "MPIR_Reduce_scatter_block_intra_pairwise"), "%s", cont);

    CHECK(!hyt_mpich_alg_ok(HYT_COLL_ALLREDUCE, "auto", 2, 2, 64), "auto is native");
    CHECK(!hyt_mpich_alg_ok(HYT_COLL_ALLREDUCE, "smp", 1, 4, 64), "smp on one node");
    CHECK(hyt_mpich_alg_ok(HYT_COLL_ALLREDUCE, "smp", 2, 2, 64), "smp on 2x2");
    CHECK(!hyt_mpich_alg_ok(HYT_COLL_ALLREDUCE, "reduce_scatter_allgather", 3, 2, 12),
          "rsa needs count >= pof2: 3 ints on 6 ranks");
    CHECK(hyt_mpich_alg_ok(HYT_COLL_ALLREDUCE, "reduce_scatter_allgather", 3, 2, 16 * 4), "rsa");
    CHECK(!hyt_mpich_alg_ok(HYT_COLL_ALLTOALL, "pairwise_sendrecv_replace", 2, 2, 64), "inplace");
    CHECK(!hyt_mpich_alg_ok(HYT_COLL_REDUCE_SCATTER_BLOCK, "noncommutative", 3, 1, 64), "pof2");

    /* export: two shapes, allreduce RD up to 1 KiB then hytune, bcast scatter-ring from
     * 64 KiB, allgather RD (pof2 guard) with total size keys, alltoall in-place guard */
    hyt_mpich_rule_t ar[] = {{1024, "recursive_doubling", NULL}, {UINT64_MAX, NULL, NULL}};
    hyt_mpich_rule_t ar2[] = {{512, "reduce_scatter_allgather", NULL}, {4096, "smp", NULL}, {UINT64_MAX, "nb", NULL}};
    hyt_mpich_rule_t bc[] = {{100, NULL, NULL}, {65536, "binomial", NULL}, {UINT64_MAX, "scatter_ring_allgather", NULL}};
    hyt_mpich_rule_t ag[] = {{256, "recursive_doubling", NULL}, {UINT64_MAX, "ring", NULL}};
    hyt_mpich_rule_t aa[] = {{UINT64_MAX, "scattered", NULL}};
    hyt_mpich_set_t sar[] = {{4, 2, 3, ar2}, {1, 2, 2, ar}, {2, 2, 2, ar}, {4, 1, 2, ar}};
    hyt_mpich_set_t sbc[] = {{2, 2, 3, bc}};
    hyt_mpich_set_t sag[] = {{2, 2, 2, ag}};
    hyt_mpich_set_t saa[] = {{2, 2, 1, aa}};
    hyt_mpich_coll_t colls[] = {{HYT_COLL_ALLREDUCE, 4, sar}, {HYT_COLL_BCAST, 1, sbc},
                                {HYT_COLL_ALLGATHER, 1, sag}, {HYT_COLL_ALLTOALL, 1, saa}};
    char *txt = hyt_mpich_json(colls, 4);
    CHECK(txt != NULL, "json");
    json_object *root = txt ? json_tokener_parse(txt) : NULL;
    CHECK(root != NULL, "not JSON:\n%s", txt ? txt : "");
    if (root) {
        int bad = 0, leaves = count_leaves(root, &bad);
        CHECK(bad == 0 && leaves > 60, "leaves %d, bad %d", leaves, bad);
        CHECK(json_object_object_length(root) == 44, "%d collectives",
              json_object_object_length(root));
        json_object *a, *intra, *o;
        CHECK(json_object_object_get_ex(root, "collective=allreduce", &a) &&
                  json_object_object_get_ex(a, "comm_type=intra", &intra) &&
                  json_object_object_get_ex(a, "comm_type=inter", &o),
              "allreduce intra/inter");
        /* ppn level: <=1 (4x1), then the ppn-2 sets unbounded; inside: comm_size <= 2, <= 4, any */
        int i = 0;
        json_object_object_foreach(intra, k, v) {
            if (i == 0)
                CHECK(!strcmp(k, "comm_avg_ppn<=1"), "first ppn key %s", k);
            if (i == 1) {
                CHECK(!strcmp(k, "comm_size=any"), "last ppn key %s", k);
                int q = 0;
                json_object_object_foreach(v, k2, v2) {
                    const char *want[] = {"comm_size<=2", "comm_size<=4", "comm_size=any"};
                    CHECK(q < 3 && !strcmp(k2, want[q]), "nodes key %d %s", q, k2);
                    CHECK(check_sizes(v2, "avg_msg_size"), "sizes of %s", k2);
                    q++;
                }
                CHECK(q == 3, "%d node keys", q);
            }
            i++;
        }
        CHECK(i == 2, "%d ppn keys", i);
        CHECK(strstr(txt, "\"avg_msg_size<=1024\":{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}},"
                          "\"avg_msg_size=any\":{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}") == NULL,
              "equal neighbours not merged");
        CHECK(strstr(txt, "\"is_op_built_in=yes\":{\"count<pow2\":{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}},"
                          "\"count=any\":{\"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather\":{}}}") != NULL,
              "rsa guard");
        CHECK(strstr(txt, "\"comm_hierarchy=parent\":{\"is_commutative=yes\":{\"algorithm=MPIR_Allreduce_intra_smp\":{}}") != NULL,
              "smp guard");
        CHECK(strstr(txt, "\"algorithm=MPIR_Allreduce_allcomm_nb\":{}") != NULL, "nb");
        CHECK(strstr(txt, "\"collective=bcast\":{\"comm_type=intra\":{\"avg_msg_size<=100\":{\"algorithm=MPIR_Bcast_intra_binomial\":{}},"
                          "\"avg_msg_size=any\"") == NULL,
              "hytune range and binomial merge: %s", txt);
        CHECK(strstr(txt, "\"avg_msg_size<=65536\":{\"algorithm=MPIR_Bcast_intra_binomial\":{}},"
                          "\"avg_msg_size=any\":{\"algorithm=MPIR_Bcast_intra_scatter_ring_allgather\":{}}") != NULL,
              "bcast rules");
        /* allgather: total size = threshold x 4 ranks */
        CHECK(strstr(txt, "\"total_msg_size<=1024\":{\"comm_size=pow2\":{\"algorithm=MPIR_Allgather_intra_recursive_doubling\":{}}") != NULL,
              "allgather total size");
        CHECK(strstr(txt, "\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Alltoall_intra_scattered\":{}}") != NULL,
              "alltoall guard");
        json_object_put(root);
    }
    free(txt);
    return check_done("test_mpich_json");
}
