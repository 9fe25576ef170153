/* `hytune tune`: shapes, candidates, the memory bound, the grid. */
#include "offline/tune_cands.h"
#include "offline/forest.h"
#include "offline/memory.h"
#include "offline/mpich.h"
#include "topology/topology.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cand_t mk_cand(const hyt_alg_t *a, int cat, int k)
{
    cand_t c = {.alg = a, .cat = cat, .k = k, .mpich = -1};
    snprintf(c.label, sizeof c.label, "%s", a->name);
    return c;
}

static int add_k(int *ks, int n, int k)
{
    for (int i = 0; i < n; i++)
        if (ks[i] == k)
            return n;
    ks[n] = k;
    return n + 1;
}

int hyt_tune_make_cands(int c, const job_t *j, int k_cap, int use_mpich, cand_t *out, int max)
{
    int n = 0, cat = 0, p = j->nodes * j->ppn;
    for (int i = 0; i < hyt_nalgs; i++) {
        const hyt_alg_t *a = &hyt_algs[i];
        if ((int)a->coll != c)
            continue;
        if (!hyt_alg_has_radix(a)) {
            if (n < max)
                out[n++] = mk_cand(a, cat, 0);
        } else {
            int ks[40], nk = 0, kmax = hyt_alg_k_max(a, p);
            if (k_cap > 0 && kmax > k_cap) /* --k-max */
                kmax = k_cap;
            for (int k = 2; k <= kmax && nk < 30; k *= 2)
                if (k >= a->k_min)
                    nk = add_k(ks, nk, k);
            if (a->k_min >= 1 && a->k_min <= kmax)
                nk = add_k(ks, nk, a->k_min);
            hyt_comm_t fake = {.size = p, .nodes = j->nodes, .ppn = j->ppn, .ppn_min = j->ppn,
                               .node_consecutive = 1};
            nk = add_k(ks, nk, hyt_topo_prior_k(a, &fake, 8));
            nk = add_k(ks, nk, hyt_topo_prior_k(a, &fake, 1 << 20));
            for (int q = 0; q < nk && n < max; q++)
                if (ks[q] >= a->k_min && ks[q] <= kmax)
                    out[n++] = mk_cand(a, cat, ks[q]);
        }
        cat++;
        if (cat == HYT_FOREST_MAX_CAT)
            break;
    }
    /* MPICH's own algorithms (MPI_T), when available: one category each */
    const char *mn[HYT_MPICH_MAX_ALGS];
    int mv[HYT_MPICH_MAX_ALGS];
    int nm = use_mpich ? hyt_mpich_algs((hyt_coll_t)c, mn, mv, HYT_MPICH_MAX_ALGS) : 0;
    for (int i = 0; i < nm && n < max && cat < HYT_FOREST_MAX_CAT; i++) {
        out[n] = mk_cand(hyt_alg_native((hyt_coll_t)c), cat++, 0);
        out[n].mpich = mv[i];
        out[n].mname = mn[i];
        snprintf(out[n].label, sizeof out[n].label, "mpich:%s", mn[i]);
        n++;
    }
    return n;
}

int hyt_tune_cand_ok(const cand_t *cd, int c, int nodes, int ppn, uint64_t bytes)
{
    if (cd->mpich >= 0)
        return hyt_mpich_alg_ok((hyt_coll_t)c, cd->mname, nodes, ppn, bytes);
    return !cd->k || cd->k <= hyt_alg_k_max(cd->alg, nodes * ppn);
}

uint64_t hyt_tune_point_need(const mem_plan_t *m, int c, const cand_t *cd, int p, uint64_t b)
{
    uint64_t buf = hyt_mem_buffer((hyt_coll_t)c, b, p);
    uint64_t scratch = hyt_mem_scratch((hyt_coll_t)c, cd->alg, cd->k, b, p);
    if (m->sharing == HYT_BUF_PRIVATE)
        return (2 * buf + scratch) * (uint64_t)m->count;
    /* shared buffers (SimGrid): one memory for all ranks, a buffer's size
     * (local mode: both buffers map it) or at most the block file (global
     * mode); per rank its scratch and the page tables of its two mappings
     * (8 bytes per 4 KiB page: every page is mapped) */
    uint64_t once = m->sharing == HYT_BUF_SHARED_ALL && m->block < buf ? m->block : buf;
    return once + (scratch + 2 * 8 * ((buf + 4095) / 4096)) * (uint64_t)m->count;
}

/* Memory mappings the benchmark buffers of all ranks take (global mode: one
 * per block of each buffer, and one for a buffer's last partial block). */
static uint64_t point_maps(const mem_plan_t *m, int c, int p, uint64_t b)
{
    if (m->sharing != HYT_BUF_SHARED_ALL)
        return 0;
    return 2 * (hyt_mem_buffer((hyt_coll_t)c, b, p) / m->block + 1) * (uint64_t)m->count;
}

int hyt_tune_size_fits(const mem_plan_t *m, int c, const cand_t *cd, int p, uint64_t bytes)
{
    return hyt_tune_point_need(m, c, cd, p, bytes) <= m->limit && point_maps(m, c, p, bytes) <= m->maps;
}

/* Is the grid point of (cd, p) at the power of two b within the limit?
 * Checked at 1.4 b, the largest size a chosen point is moved to (active.c). */
int hyt_tune_point_fits(const mem_plan_t *m, int c, const cand_t *cd, int p, uint64_t b)
{
    return hyt_tune_size_fits(m, c, cd, p, b + 2 * b / 5);
}

/* The grid; top[q]: candidate q's largest size kept at the job's own shape
 * (0: none), for the report of what the limit skipped. */
int hyt_tune_make_grid(const mem_plan_t *m, int c, const job_t *j, const cand_t *cands, int ncand,
                       uint64_t max_bytes, hyt_al_point_t **out, uint64_t *top)
{
    int cap = j->nshapes * 64 * ncand, n = 0;
    hyt_al_point_t *g = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *g);
    if (!g)
        return -1;
    for (int q = 0; q < ncand; q++)
        top[q] = 0;
    for (int s = 0; s < j->nshapes; s++) {
        int nodes = j->shapes[s][0], ppn = j->shapes[s][1], job = nodes == j->nodes && ppn == j->ppn;
        for (uint64_t b = coll_gran(c); b <= max_bytes; b *= 2)
            for (int q = 0; q < ncand; q++)
                if (hyt_tune_cand_ok(&cands[q], c, nodes, ppn, b) &&
                    hyt_tune_point_fits(m, c, &cands[q], nodes * ppn, b)) {
                    g[n++] = (hyt_al_point_t){nodes, ppn, b, cands[q].cat, cands[q].k};
                    if (job)
                        top[q] = b;
                }
    }
    *out = g;
    return n;
}

/* Rank 0: one line per collective the limit cut: its largest size, and
 * the candidates stopped below it. */
void hyt_tune_report_mem(const mem_plan_t *m, int c, const job_t *j, const cand_t *cands,
                         int ncand, const uint64_t *top, uint64_t max_bytes)
{
    uint64_t hi = 0, want = coll_gran(c);
    while (want * 2 <= max_bytes)
        want *= 2;
    for (int q = 0; q < ncand; q++)
        hi = top[q] > hi ? top[q] : hi;
    char line[1024], a[32], b[32], d[32];
    int len = 0;
    if (hi < want) {
        uint64_t next = hi ? 2 * hi : coll_gran(c);
        uint64_t need = UINT64_MAX;
        for (int q = 0; q < ncand; q++) {
            uint64_t v = hyt_tune_point_need(m, c, &cands[q], j->nodes * j->ppn,
                                             next + 2 * next / 5);
            need = v < need ? v : need;
        }
        uint64_t at = next + 2 * next / 5, maps = point_maps(m, c, j->nodes * j->ppn, at);
        len = snprintf(line, sizeof line, "sizes above %s not benchmarked (%s, moved up to 1.4x, ",
                       hi ? hyt_mem_fmt(hi, a, sizeof a) : "none", hyt_mem_fmt(next, b, sizeof b));
        if (need <= m->limit && maps > m->maps) /* memory fits: the mappings do not */
            len += snprintf(line + len, sizeof line - (size_t)len, "needs %llu memory mappings "
                            "for %d ranks' shared buffers, above %llu, half of vm.max_map_count)",
                            (unsigned long long)maps, m->count, (unsigned long long)m->maps);
        else
            len += snprintf(line + len, sizeof line - (size_t)len, "needs %s at least for %d "
                            "ranks)", hyt_mem_fmt(need, d, sizeof d), m->count);
    }
    /* candidates stopped below hi, grouped by their largest size */
    for (uint64_t at = hi; at > 0 && len < (int)sizeof line - 96;) {
        uint64_t next = 0;
        int first = 1;
        for (int q = 0; q < ncand; q++) {
            if (top[q] < at && top[q] > next)
                next = top[q];
            if (top[q] != at || at == hi || len >= (int)sizeof line - 96)
                continue;
            char k[16] = "";
            if (cands[q].k)
                snprintf(k, sizeof k, ":%d", cands[q].k);
            len += snprintf(line + len, sizeof line - (size_t)len, "%s%s%s%s",
                            first ? (len ? "; up to " : "up to ") : ", ",
                            first ? hyt_mem_fmt(at, a, sizeof a) : "", first ? " only: " : "",
                            cands[q].label);
            len += snprintf(line + len, sizeof line - (size_t)len, "%s", k);
            first = 0;
        }
        at = next;
    }
    if (len)
        fprintf(stderr, "tune: memory: %s: %s\n", hyt_coll_name((hyt_coll_t)c), line);
}

const cand_t *hyt_tune_find_cand(const cand_t *cands, int n, const hyt_al_point_t *p)
{
    for (int q = 0; q < n; q++)
        if (cands[q].cat == p->alg && cands[q].k == p->k)
            return &cands[q];
    return NULL;
}

/* Shapes: powers of two up to the job's nodes and ppn, plus the job's own
 * (only the job's own with --shapes job: its rules then serve every
 * communicator, and tuning costs one shape's benchmarks). */
static void make_shapes(job_t *j, int job_only)
{
    int ns[40], nn = 0, ps[40], np = 0;
    for (int s = 0; s < 64; s++) {
        j->setup_us[s] = -1; /* measured after tuning (hyt_tune_setup_cost) */
        j->setup_fit[s].x = HYT_SETUP_FIT_NONE;
    }
    if (job_only) {
        j->shapes[0][0] = j->nodes;
        j->shapes[0][1] = j->ppn;
        j->nshapes = 1;
        return;
    }
    for (int v = 1; v <= j->nodes; v *= 2)
        ns[nn++] = v;
    if (ns[nn - 1] != j->nodes)
        ns[nn++] = j->nodes;
    for (int v = 1; v <= j->ppn; v *= 2)
        ps[np++] = v;
    if (ps[np - 1] != j->ppn)
        ps[np++] = j->ppn;
    j->nshapes = 0;
    for (int a = 0; a < nn; a++)
        for (int b = 0; b < np; b++)
            if (ns[a] * ps[b] >= 2 && j->nshapes < 64) {
                j->shapes[j->nshapes][0] = ns[a];
                j->shapes[j->nshapes++][1] = ps[b];
            }
}

int hyt_tune_job_init(job_t *j, int job_only, int no_parallel, int tune_nodes)
{
    memset(j, 0, sizeof *j);
    int N = hyt_world_nodes, W = hyt_world_size;
    int *count = calloc((size_t)N, sizeof *count);
    int *grp = malloc((size_t)N * sizeof *grp);
    j->node_order = malloc((size_t)N * sizeof *j->node_order);
    j->node_pos = malloc((size_t)N * sizeof *j->node_pos);
    if (!count || !grp || !j->node_order || !j->node_pos) {
        free(count);
        free(grp);
        return -1;
    }
    for (int r = 0; r < W; r++) {
        if (r == hyt_world_rank)
            j->my_local = count[hyt_world_node_of[r]];
        count[hyt_world_node_of[r]]++;
    }
    j->nodes = N;
    j->ppn = W;
    for (int n = 0; n < N; n++)
        if (count[n] < j->ppn)
            j->ppn = count[n];
    /* nodes ordered by group (stable): concurrent points get whole groups */
    int ng = hyt_topo_ngroups(), k = 0;
    for (int g = 0; g < ng; g++)
        for (int n = 0; n < N; n++)
            if (hyt_topo_node_group(n) == g)
                j->node_order[k++] = n;
    for (int n = 0; n < N && k < N; n++)
        if (hyt_topo_node_group(n) < 0 || hyt_topo_node_group(n) >= ng)
            j->node_order[k++] = n;
    for (int p = 0; p < N; p++)
        j->node_pos[j->node_order[p]] = p;
    j->parallel = ng > 1 && ng < N && !no_parallel;
    j->all_nodes = N;
    if (tune_nodes > 0 && tune_nodes < N) /* the search's slice: the first nodes in group order */
        j->nodes = tune_nodes;
    free(count);
    free(grp);
    make_shapes(j, job_only);
    return 0;
}

/* The memory limit, the same on every rank: --mem-limit, or a share of
 * the smallest node's memory (hwloc on every rank; under SimGrid rank 0
 * looks at the one host running the simulation). */
void hyt_tune_mem_agree(uint64_t mem_limit, const job_t *j, mem_plan_t *m)
{
    unsigned long long mine = ULLONG_MAX, node = 0;
#ifdef HYT_SMPI
    int look = hyt_world_rank == 0;
    m->count = hyt_world_size;
    (void)j;
#else
    int look = 1, *per = calloc((size_t)j->all_nodes, sizeof *per);
    m->count = 1;
    for (int r = 0; per && r < hyt_world_size; r++)
        if (++per[hyt_world_node_of[r]] > m->count)
            m->count = per[hyt_world_node_of[r]];
    if (!per)
        m->count = hyt_world_size;
    free(per);
#endif
    m->sharing = hyt_mem_buf_sharing(&m->block);
    m->maps = hyt_mem_max_maps() / 2; /* the other half: SimGrid's stacks, the heap, ... */
    if (look && !mem_limit)
        mine = hyt_mem_node_bytes();
    PMPI_Allreduce(&mine, &node, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    m->node = node == ULLONG_MAX ? 0 : node;
    m->limit = mem_limit ? mem_limit
                     : m->node ? (uint64_t)((double)m->node * HYT_MEM_DEFAULT_SHARE)
                                     : (uint64_t)((double)(4ull << 30) * HYT_MEM_DEFAULT_SHARE);
    if (hyt_world_rank == 0) {
        char a[32], n[32], why[64] = "--mem-limit";
        if (!mem_limit)
            snprintf(why, sizeof why, "%.0f%% of %s", 100 * HYT_MEM_DEFAULT_SHARE,
                     m->node ? hyt_mem_fmt(m->node, n, sizeof n)
                                   : "4 GiB: the node's memory is unknown");
        char how[160] = "the most ranks on one node";
#ifdef HYT_SMPI
        if (m->sharing == HYT_BUF_PRIVATE)
            snprintf(how, sizeof how, "SimGrid: all ranks share one process; smpi/shared-malloc "
                     "is off: each rank's benchmark buffers count");
        else
            snprintf(how, sizeof how, "SimGrid: all ranks share one process; their benchmark "
                     "buffers map one memory (smpi/shared-malloc:%s), counted once, their scratch "
                     "per rank", m->sharing == HYT_BUF_SHARED_ALL ? "global" : "local");
#endif
        fprintf(stderr, "tune: memory: limit %s (%s), counted for %d ranks (%s); sizes whose "
                "buffers and scratch exceed it are not benchmarked\n",
                hyt_mem_fmt(m->limit, a, sizeof a), why, m->count, how);
    }
}
