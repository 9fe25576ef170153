/* `hytune tune`: allocation-time tuning inside one MPI job.
 *
 * Rank 0 runs the active-learning loop (offline/active.c) of each collective
 * and decides every batch; the batch is broadcast, every point is benchmarked
 * on a sub-communicator of the wanted node count and processes per node
 * (MPI_Comm_split over the world node map, ranks node-consecutive), and the
 * answers are reduced back to rank 0.  So all ranks take the same decisions
 * and only rank 0 looks at clocks.  Points of one batch run concurrently on
 * disjoint node sets in different network groups when the groups are known
 * (topology/), one at a time otherwise.  At the end the rules of every tuned
 * shape are written as one table, atomically.
 *
 * Modules: tune_opts.c (command line), tune_cands.c (shapes, candidates,
 * memory bound, grid), tune_bench.c (benchmark harness), tune_sched.c (the
 * search of one collective), tune_out.c (files written); this file: the
 * run, and the --oracle replay without MPI. */
#include "offline/tune.h"
#include "offline/mpich.h"
#include "offline/nbtune.h"
#include "offline/oracle.h"
#include "offline/tune_out.h"
#include "src/hyt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int oracle_main(const tune_opts_t *t)
{
    char err[512];
    hyt_oracle_t *o = hyt_oracle_read(t->oracle, err, sizeof err);
    if (!o) {
        fprintf(stderr, "hytune tune: %s\n", err);
        return 2;
    }
    if (t->k_max > 0) { /* --k-max: drop the oracle's larger radices */
        int n = 0;
        for (int i = 0; i < o->n; i++)
            if (o->rows[i].k <= t->k_max)
                o->rows[n++] = o->rows[i];
        o->n = n;
    }
    int rc = 0;
    if (t->score) {
        hyt_table_t *tab = hyt_table_load(t->score, err, sizeof err);
        if (!tab) {
            fprintf(stderr, "hytune tune: --score: %s\n", err);
            hyt_oracle_free(o);
            return 2;
        }
        for (int i = 0; i < t->ncolls; i++)
            if (hyt_oracle_score_table(o, hyt_coll_name((hyt_coll_t)t->colls[i]), tab, stdout))
                rc = 1;
        hyt_table_free(tab);
        hyt_oracle_free(o);
        return rc;
    }
    hyt_oracle_noise_t nz = {0};
    if (t->oracle_noise) { /* parsed in hyt_tune_parse_args */
        char e[256];
        hyt_oracle_noise_parse(t->oracle_noise, &nz, e, sizeof e);
        nz.seed = t->seed;
    }
    hyt_oracle_set_noise(&nz);
    hyt_oracle_total_t tot = {0};
    for (int i = 0; i < t->ncolls; i++) {
        hyt_al_opts_t ao;
        hyt_tune_al_opts(t, coll_gran(t->colls[i]), &ao);
        if (hyt_oracle_simulate(o, hyt_coll_name((hyt_coll_t)t->colls[i]), &ao, t->random_to, &tot,
                                stdout))
            rc = 1;
    }
    if (t->ncolls > 1)
        hyt_oracle_print_total(&tot, stdout);
    hyt_oracle_free(o);
    return rc;
}

static int mpi_main(const tune_opts_t *t)
{
    int rank = hyt_world_rank;
    if (!hyt_world_node_of) {
        if (rank == 0)
            fprintf(stderr, "hytune tune: the node model is not available (HYTUNE_MODE=off?); "
                    "run without HYTUNE_MODE=off\n");
        return 2;
    }
    tune_ctx_t x = {.opts = t};
    if (hyt_tune_job_init(&x.job, t->job_shape_only, t->no_parallel, t->tune_nodes) != 0)
        return 2;
    hyt_tune_world_setup(&x.job); /* first: MPI_COMM_WORLD has had no collective yet */
    hyt_oracle_t *ws = NULL;
    FILE *dump = NULL;
    char err[512];
    if (rank == 0 && t->warm_start && !(ws = hyt_oracle_read(t->warm_start, err, sizeof err)))
        fprintf(stderr, "hytune tune: --warm-start ignored: %s\n", err);
    char *dump_text = NULL;
    size_t dump_len = 0;
    if (rank == 0 && t->dump && !(dump = open_memstream(&dump_text, &dump_len)))
        fprintf(stderr, "hytune tune: --dump %s: out of memory; no dump written\n", t->dump);
    char kbuf[16], slice[96] = "";
    snprintf(kbuf, sizeof kbuf, "%d", t->k_max);
    if (x.job.all_nodes > x.job.nodes) /* --tune-nodes */
        snprintf(slice, sizeof slice, " (of the job's %d nodes: gains and set-up measured on "
                 "all)", x.job.all_nodes);
    if (rank == 0)
        fprintf(stderr, "tune: %d nodes x %d ppn%s, %d shapes, %s benchmarking%s, sizes up to "
                "%llu bytes, k up to %s\n", x.job.nodes, x.job.ppn, slice, x.job.nshapes,
                x.job.parallel ? "parallel" : "serial",
                x.job.parallel ? "" : t->no_parallel ? " (--no-parallel)"
                : " (no two network groups known)", (unsigned long long)t->max_bytes,
                t->k_max ? kbuf : "each algorithm's limit");
    /* MPICH algorithms are candidates where MPI_T reaches them on every rank */
    int mine = !t->no_mpich && hyt_mpich_init() == 0, all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    x.use_mpich = all;
    if (rank == 0 && !t->no_mpich)
        fprintf(stderr, "tune: MPICH algorithms (MPI_T): %s\n", x.use_mpich ? "candidates" :
                "not available (only \"native\", the library's own selection)");
    if (t->mpich_json && !x.use_mpich) {
        if (rank == 0)
            fprintf(stderr, "hytune tune: --mpich-json %s: MPICH's algorithm variables are not "
                    "reachable through MPI_T; no file written\n", t->mpich_json);
        hyt_mpich_finalize();
        free(x.job.node_order);
        free(x.job.node_pos);
        hyt_oracle_free(ws);
        hyt_tune_dump_close(dump, &dump_text, t->dump);
        return 2;
    }
    hyt_tune_mem_agree(t->mem_limit, &x.job, &x.mem);
    coll_state_t *cs = calloc((size_t)t->ncolls, sizeof *cs);
    int rc = 0;
    double start = PMPI_Wtime();
    for (int i = 0; i < t->ncolls && cs && rc == 0; i++)
        if (hyt_tune_setup_coll(&x, &cs[i], t->colls[i]) != 0)
            rc = 2;
    if (rc == 0 && cs && t->inject_fail) { /* every rank checks the same lists */
        int found = 0;
        for (int i = 0; i < t->ncolls; i++)
            for (int q = 0; q < cs[i].ncand; q++)
                found |= !strcmp(cs[i].cands[q].label, t->inject_fail);
        if (!found) {
            if (rank == 0)
                fprintf(stderr, "hytune tune: --inject-fail%s %s: no candidate has this label; "
                        "give one of the algorithm column of --dump (e.g. knomial)\n",
                        t->inject_attempts == 1 ? "-once" : "", t->inject_fail);
            rc = 2;
        }
        x.bench.inject_label = t->inject_fail;
        x.bench.inject_attempts = t->inject_attempts;
    }
    x.bench.arrival_kind = t->arrival_kind;
    x.bench.arrival_us = t->arrival_us;
    x.bench.arrival_seed = t->seed * 0x100000001b3ull + 0xa77;
    for (int i = 0; i < t->ncolls && cs && rc == 0; i++) {
        if (rank == 0) {
            hyt_tune_warm_start(&cs[i], ws);
            fprintf(stderr, "tune: %s: %d candidates, %d grid points\n",
                    hyt_coll_name((hyt_coll_t)cs[i].c), cs[i].ncand, cs[i].ngrid);
            double left = t->timeout - (PMPI_Wtime() - start);
            /* --nonblocking takes one share more */
            hyt_tune_coll_root(&x, &cs[i], PMPI_Wtime() + left / (t->ncolls - i +
                                                                  (t->nonblocking != 0)), dump);
        } else {
            hyt_tune_coll_follow(&x, &cs[i]);
        }
    }
    if (rc == 0 && cs) /* the set-up the table's rules must repay (docs/memory.md) */
        hyt_tune_setup_cost(&x.bench, &x.job);
    hyt_nb_table_t *nb = NULL;
    if (rc == 0 && cs && t->nonblocking) {
        if (!x.use_mpich) {
            if (rank == 0)
                fprintf(stderr, "tune: --nonblocking: skipped: MPICH's nonblocking algorithms are "
                        "selected through MPI_T, which %s; the table gets no nonblocking "
                        "section\n",
#ifdef HYT_SMPI
                        "SimGrid does not have"
#else
                        "does not reach them here"
#endif
                );
        } else {
            double left = t->timeout - (PMPI_Wtime() - start);
            hyt_nbtune_opts_t no = {t->nonblocking, t->max_bytes, t->k_max, left > 1 ? left : 1};
            nb = hyt_nbtune_run(MPI_COMM_WORLD, x.job.all_nodes, x.job.ppn, &no, stderr);
        }
    }
    if (rank == 0 && rc == 0 && cs && hyt_tune_write_table(t, &x.job, cs, t->ncolls, nb) != 0)
        rc = 1;
    hyt_nb_table_free(nb);
    if (rank == 0 && rc == 0 && cs) { /* the whole run, for scripts (bench/tune_scale.sh) */
        int iters = 0, points = 0, failed = 0, retried = 0, ncut = 0, again = 0;
        double bench_s = 0;
        for (int i = 0; i < t->ncolls; i++) {
            hyt_al_status_t st;
            hyt_al_status(cs[i].al, &st);
            iters += st.iterations;
            points += st.points;
            bench_s += st.cost_s + cs[i].guard_cost;
            failed += st.failed;
            retried += cs[i].retried;
            ncut += cs[i].cut;
            again += st.remeasured;
        }
        fprintf(stderr, "tune: done: %d collectives, %d iterations, %d points, benchmark %.6f s, "
                "elapsed %.6f s (MPI_Wtime), %d measured again, %d retried, %d failed, %d cut\n",
                t->ncolls, iters, points, bench_s, PMPI_Wtime() - start, again, retried, failed,
                ncut);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; cs && i < t->ncolls; i++) {
        hyt_al_free(cs[i].al);
        free(cs[i].grid);
        free(cs[i].rules);
        free(cs[i].job_rules);
        free(cs[i].meas);
    }
    free(cs);
    hyt_mpich_finalize();
    hyt_tune_bench_free(&x.bench);
    free(x.job.node_order);
    free(x.job.node_pos);
    hyt_oracle_free(ws);
    hyt_tune_dump_close(dump, &dump_text, t->dump);
    return rc;
}

int hyt_tune_main(int argc, char **argv)
{
    tune_opts_t t;
    char err[512];
    int prc = hyt_tune_parse_args(argc, argv, &t, err, sizeof err);
    if (t.oracle && prc == 0)
        return oracle_main(&t);
    if (t.progress == PROGRESS_AUTO) /* asked before MPI_Init: a launcher may redirect */
        t.progress = isatty(STDERR_FILENO) ? PROGRESS_LINE : PROGRESS_LOG;
    MPI_Init(&argc, &argv);
    int rank = 0, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (prc != 0) { /* every rank parsed the same argv: all stop here */
        if (rank == 0) {
            if (prc > 0)
                hyt_tune_usage(stdout);
            else
                fprintf(stderr, "hytune tune: %s\n", err);
        }
        rc = prc > 0 ? 0 : 2;
    } else {
        rc = mpi_main(&t);
    }
    MPI_Finalize();
    return rc;
}
