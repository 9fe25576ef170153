/* `hytune tune`: the table, MPICH's selection file, the --dump file. */
#include "offline/tune_out.h"
#include "offline/mpich.h"
#include "offline/nbtune.h"
#include "src/file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The --dump rows, kept in memory, become the file when the run ends
 * (src/file.c): an interrupted run leaves no partial or temporary file. */
void hyt_tune_dump_close(FILE *mem, char **text, const char *path)
{
    if (mem && fclose(mem) == 0 && hyt_file_write(path, *text) != 0)
        fprintf(stderr, "hytune tune: --dump %s: cannot write (%s); no dump written\n", path,
                strerror(errno));
    free(*text);
}

/* The MPICH selection file of the rules (rank 0). */
static int write_mpich_json(const tune_opts_t *t, coll_state_t *cs, int ncs,
                            const hyt_tune_coll_t *colls, const hyt_nb_table_t *nb)
{
    hyt_mpich_coll_t mc[MAX_COLLS + HYT_NB_NCOLL];
    const char *mnames[MAX_COLLS + HYT_NB_NCOLL] = {NULL};
    hyt_nbtune_keep_t keep = {0};
    int nnb = 0, nb_won = 0, nb_dropped = 0;
    hyt_mpich_set_t *ms = calloc((size_t)ncs * 64, sizeof *ms);
    hyt_mpich_rule_t *mr = calloc((size_t)ncs * 64 * MAX_RULES, sizeof *mr);
    int rc = -1, won = 0, total = 0;
    if (!ms || !mr)
        goto out;
    for (int i = 0; i < ncs; i++) {
        mc[i] = (hyt_mpich_coll_t){(hyt_coll_t)cs[i].c, colls[i].nsets, ms + i * 64};
        for (int s = 0; s < colls[i].nsets; s++) {
            const hyt_tune_set_t *ts = &colls[i].sets[s];
            hyt_mpich_rule_t *r = mr + ((size_t)i * 64 + (size_t)s) * MAX_RULES;
            for (int q = 0; q < ts->nrules; q++) {
                hyt_al_point_t p = {.alg = ts->rules[q].alg, .k = ts->rules[q].k};
                const cand_t *cd = hyt_tune_find_cand(cs[i].cands, cs[i].ncand, &p);
                r[q].bytes_max = ts->rules[q].bytes_max;
                r[q].alg = cd && cd->mpich >= 0 ? cd->mname : NULL;
                won += r[q].alg != NULL;
                total++;
            }
            ms[i * 64 + s] = (hyt_mpich_set_t){ts->nodes, ts->ppn, ts->nrules, r};
        }
    }
    if (nb && (nnb = hyt_nbtune_mpich(nb, mc + ncs, mnames + ncs, HYT_NB_NCOLL, &keep, &nb_won,
                                      &nb_dropped)) < 0) {
        fprintf(stderr, "hytune tune: out of memory building the MPICH file\n");
        goto out;
    }
    char *txt = hyt_mpich_json_named(mc, mnames, ncs + nnb), err[600];
    if (!txt) {
        fprintf(stderr, "hytune tune: out of memory building the MPICH file\n");
        goto out;
    }
    rc = hyt_tune_write_atomic(t->mpich_json, txt, err, sizeof err);
    if (rc)
        fprintf(stderr, "hytune tune: %s\n", err);
    else
        fprintf(stderr, "tune: wrote %s (%d of %d rules chose an MPICH algorithm; load it with "
                "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)\n", t->mpich_json, won, total);
    if (rc == 0 && nb)
        fprintf(stderr, "tune: %s: %d nonblocking rules carry an MPICH algorithm; %d left to "
                "the general algorithm (MPICH 4.0.2's file cannot set their radix; the "
                "table's nonblocking section sets it through MPI_T)\n", t->mpich_json, nb_won,
                nb_dropped);
    free(txt);
out:
    hyt_nbtune_mpich_free(&keep);
    free(ms);
    free(mr);
    return rc;
}

/* Rules of every shape; written by rank 0. */
int hyt_tune_write_table(const tune_opts_t *t, const job_t *j, coll_state_t *cs, int ncs,
                         const hyt_nb_table_t *nb)
{
    hyt_tune_coll_t colls[MAX_COLLS];
    hyt_tune_job_native_t jn = {0};
    hyt_tune_set_t *sets = calloc((size_t)ncs * 64, sizeof *sets);
    const char **names = calloc((size_t)ncs * 256, sizeof *names);
    int rc = -1;
    if (!sets || !names)
        goto out;
    for (int i = 0; i < ncs; i++) {
        colls[i].name = hyt_coll_name((hyt_coll_t)cs[i].c);
        colls[i].sets = sets + i * 64;
        colls[i].nsets = 0;
        /* rules use candidate indices as categories: names indexed the same */
        hyt_tune_cand_names(&cs[i], names + i * 256);
        for (int s = 0; s < j->nshapes; s++) {
            if (!cs[i].rules || cs[i].nrules[s] < 1 ||
                hyt_tune_shortlist(j, &cs[i], s, t->max_bytes, names + i * 256, cs[i].rules[s],
                                   cs[i].nrules[s]) != 0) {
                fprintf(stderr, "hytune tune: %s: no rules for %d nodes x %d ranks (no model "
                        "fitted, or out of memory); %s not written\n", colls[i].name,
                        j->shapes[s][0], j->shapes[s][1], t->out);
                goto out;
            }
            sets[i * 64 + colls[i].nsets++] = (hyt_tune_set_t){
                j->shapes[s][0], j->shapes[s][1], cs[i].nrules[s], cs[i].rules[s], names + i * 256,
                j->setup_us[s], j->setup_fit[s]};
        }
        /* --tune-nodes: the job's own set, where native or a challenger
         * beat the largest shape's rules on the whole job (that shape then
         * serves up to its own nodes: sets are written by nodes ascending);
         * its shortlists carry the whole job's measurements */
        int s = cs[i].job_shape;
        if (cs[i].job_rules && colls[i].nsets < 64) {
            int dropped = 0;
            if (hyt_tune_job_shortlist(j, &cs[i], t->max_bytes, names + i * 256, &dropped) != 0) {
                fprintf(stderr, "hytune tune: %s: out of memory; %s not written\n",
                        colls[i].name, t->out);
                goto out;
            }
            fprintf(stderr, "tune: %s: the job's own rule set: %d shortlist entries dropped "
                    "(measured slower than their rule on the job's %d nodes beyond the noise and "
                    "the margin)\n", colls[i].name, dropped, j->all_nodes);
            sets[i * 64 + colls[i].nsets++] = (hyt_tune_set_t){
                j->all_nodes, j->shapes[s][1], cs[i].njob_rules, cs[i].job_rules,
                names + i * 256, j->setup_us[s], j->setup_fit[s]};
        }
        if (cs[i].job_measured > 0) {
            jn.nodes = j->all_nodes;
            jn.measured += cs[i].job_measured;
            jn.sizes += cs[i].job_sizes;
            jn.rules += cs[i].job_changed;
        }
    }
    char ver[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown";
    int vlen = 0;
    MPI_Get_library_version(ver, &vlen);
    ver[strcspn(ver, "\n")] = 0; /* first line: library and version */
    int k_max = 0; /* the largest radix benchmarked: bounds the online probe */
    for (int i = 0; i < ncs; i++)
        for (int q = 0; q < cs[i].ncand; q++)
            if (cs[i].cands[q].k > k_max)
                k_max = cs[i].cands[q].k;
    char *txt = hyt_table_json(j->all_nodes, j->ppn, ver, t->arrival ? t->arrival : "sync",
                               k_max >= 2 ? k_max : 0, &jn, &j->world, colls, ncs, nb);
    char err[600];
    if (!txt) {
        fprintf(stderr, "hytune tune: out of memory building the table\n");
        goto out;
    }
    rc = hyt_tune_write_atomic(t->out, txt, err, sizeof err);
    if (rc)
        fprintf(stderr, "hytune tune: %s\n", err);
    else
        fprintf(stderr, "tune: wrote %s\n", t->out);
    free(txt);
    if (rc == 0 && t->mpich_json)
        rc = write_mpich_json(t, cs, ncs, colls, nb);
out:
    free(sets);
    free(names);
    return rc;
}
