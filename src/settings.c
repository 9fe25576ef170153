/* Settings read at MPI_Init, agreed across ranks before any is used.
 *
 * Each rank parses its HYTUNE_* variables, forced algorithms, selection
 * table and warm start on its own (files are read locally: a node may miss
 * one or hold a stale copy; an MPMD launch may give programs different
 * environments).  hyt_settings_init then runs the agreement step
 * (src/agree.h) over all of them on every rank, whatever the mode: a
 * difference on any item, or a failure on some ranks only, makes every rank
 * take the same fallback, and one error line from rank 0 says which ranks saw
 * what:
 *   HYTUNE_MODE (the mode in force)   off on every rank (pass-through); the
 *                                     other items do not matter then
 *   HYTUNE_TABLE (rules as loaded)    no table: the MPI library's own selection
 *   HYTUNE_WARM_START (radixes)       no warm start (the item of the layer
 *                                     that registered the settings slot)
 *   HYTUNE_FORCE_<COLL> (as parsed)   nothing forced for that collective
 *   other variables that select       their default
 *   behaviour (src/env.c, by value)
 * Fingerprints compare what the rank will do, not file names: two copies of
 * one table under different paths agree. */
#include "hyt.h"
#include "src/agree.h"
#include "src/nbsel.h"

#include <stdlib.h>
#include <string.h>

extern const hyt_alg_t *hyt_forced_alg[HYT_NCOLL];
extern int hyt_forced_k[HYT_NCOLL];

enum { IT_MODE, IT_TABLE, IT_NB, IT_WARM, IT_FORCE, IT_ENV = IT_FORCE + HYT_NCOLL, IT_MAX = IT_ENV + 64 };

static const char *const mode_names[] = {"off", "offline", "hybrid"};

/* Fingerprint of an item the mode makes unused (off mode: nothing is read). */
static uint64_t unused_fp(void)
{
    return hyt_agree_hash_str(HYT_AGREE_HASH0, "unused");
}

/* What a table makes ranks do: its rule sets and rules in order, with the
 * set-up costs and the predicted, native and measured-gain times the private duplicate's
 * set-up rule reads, and shortlists, whose order and early stop read their
 * predictions (the platform it was tuned on changes nothing). */
static uint64_t table_fingerprint(const hyt_table_t *t)
{
    uint64_t h = hyt_agree_hash_str(HYT_AGREE_HASH0, "table");
    /* the early duplicate of MPI_COMM_WORLD (src/runtime.c world_first_call) */
    h = hyt_agree_hash(h, &t->world.ranks, sizeof t->world.ranks);
    h = hyt_agree_hash(h, &t->world.dup_us, sizeof t->world.dup_us);
    h = hyt_agree_hash(h, &t->world.first_us, sizeof t->world.first_us);
    for (int c = 0; c < HYT_NCOLL; c++) {
        h = hyt_agree_hash(h, &t->nsets[c], sizeof t->nsets[c]);
        for (int i = 0; i < t->nsets[c]; i++) {
            const hyt_rule_set_t *s = &t->sets[c][i];
            h = hyt_agree_hash(h, &s->nodes_max, sizeof s->nodes_max);
            h = hyt_agree_hash(h, &s->ppn_max, sizeof s->ppn_max);
            h = hyt_agree_hash(h, &s->nrules, sizeof s->nrules);
            /* the private duplicate's set-up rule (src/runtime.c setup_unpaid) */
            h = hyt_agree_hash(h, &s->setup_us, sizeof s->setup_us);
            const hyt_setup_fit_t *f = &s->setup_fit;
            h = hyt_agree_hash(h, &f->x, sizeof f->x);
            h = hyt_agree_hash(h, &f->a_us, sizeof f->a_us);
            h = hyt_agree_hash(h, &f->b_us, sizeof f->b_us);
            h = hyt_agree_hash(h, &f->ranks_max, sizeof f->ranks_max);
            h = hyt_agree_hash(h, &f->job_ranks, sizeof f->job_ranks);
            h = hyt_agree_hash(h, &f->job_us, sizeof f->job_us);
            for (int r = 0; r < s->nrules; r++) {
                h = hyt_agree_hash(h, &s->rules[r].bytes_max, sizeof s->rules[r].bytes_max);
                h = hyt_agree_hash_str(h, s->rules[r].alg->name);
                h = hyt_agree_hash(h, &s->rules[r].k, sizeof s->rules[r].k);
                h = hyt_agree_hash(h, &s->rules[r].native_us, sizeof s->rules[r].native_us);
                h = hyt_agree_hash(h, &s->rules[r].predicted_us, sizeof(double));
                /* the measured gains the set-up rule credits */
                h = hyt_agree_hash(h, &s->rules[r].ngains, sizeof s->rules[r].ngains);
                for (int g = 0; g < s->rules[r].ngains; g++) {
                    const hyt_gain_t *gv = &s->rules[r].gains[g];
                    h = hyt_agree_hash(h, &gv->ranks, sizeof gv->ranks);
                    h = hyt_agree_hash(h, &gv->bytes, sizeof gv->bytes);
                    h = hyt_agree_hash(h, &gv->us, sizeof gv->us);
                }
                /* a shortlist and its predictions decide the online choice */
                const hyt_rule_t *ru = &s->rules[r];
                h = hyt_agree_hash(h, &ru->nshort, sizeof ru->nshort);
                for (int q = 0; ru->nshort > 1 && q < ru->nshort; q++) {
                    h = hyt_agree_hash_str(h, ru->shortlist[q].alg->name);
                    h = hyt_agree_hash(h, &ru->shortlist[q].k, sizeof ru->shortlist[q].k);
                    h = hyt_agree_hash(h, &ru->shortlist[q].predicted_us, sizeof(double));
                    h = hyt_agree_hash(h, &ru->shortlist[q].spread_us, sizeof(double));
                }
            }
        }
    }
    return h;
}

static void item_mode(hyt_agree_item_t *it, int downgraded)
{
    hyt_agree_item_init(it, "HYTUNE_MODE", HYT_TOPIC_CORE, HYT_AGREE_QUIET,
                        "every rank runs in off mode (pass-through to MPI)");
    it->gates = 1;
    it->fp = hyt_agree_hash(HYT_AGREE_HASH0, &hyt_cfg.mode, sizeof hyt_cfg.mode);
    snprintf(it->desc, sizeof it->desc, "mode %s%s", mode_names[hyt_cfg.mode],
             downgraded ? " (hybrid, run as offline under MPI_THREAD_MULTIPLE)" : "");
}

static void item_table(hyt_agree_item_t *it)
{
    hyt_agree_item_init(it, "HYTUNE_TABLE", HYT_TOPIC_TABLE, HYT_LOG_ERROR,
                        "every rank continues with the MPI library's own selection");
    if (hyt_cfg.mode == HYT_MODE_OFF || !hyt_cfg.table) {
        it->fp = unused_fp();
        snprintf(it->desc, sizeof it->desc, "%s", hyt_cfg.table ? "not read (mode off)" : "unset");
        return;
    }
    char err[HYT_AGREE_DESC];
    hyt_table = hyt_table_load(hyt_cfg.table, err, sizeof err);
    if (!hyt_table) {
        hyt_agree_item_fail(it, "%s", err);
        return;
    }
    it->fp = table_fingerprint(hyt_table);
    snprintf(it->desc, sizeof it->desc, "table %s (rules checksum %016llx)", hyt_cfg.table,
             (unsigned long long)it->fp);
}

/* The table's "nonblocking" section: MPICH's variables resolved through
 * MPI_T on every rank (a rank whose MPI lacks one fails the item). */
static void item_nb(hyt_agree_item_t *it)
{
    hyt_agree_item_init(it, "HYTUNE_TABLE nonblocking", HYT_TOPIC_TABLE, HYT_LOG_ERROR,
                        "every rank leaves MPICH's own selection for the nonblocking "
                        "collectives");
    if (!hyt_table || !hyt_table->nb) {
        it->fp = unused_fp();
        snprintf(it->desc, sizeof it->desc, "no nonblocking section");
        return;
    }
    char err[HYT_AGREE_DESC];
    if (hyt_nb_resolve(hyt_table->nb, hyt_cfg.table, err, sizeof err) != 0) {
        hyt_agree_item_fail(it, "%s", err);
        return;
    }
    it->fp = hyt_nb_fingerprint(hyt_table->nb, HYT_AGREE_HASH0);
    snprintf(it->desc, sizeof it->desc, "nonblocking section (checksum %016llx)",
             (unsigned long long)it->fp);
}

static const hyt_settings_ext_t *settings_ext; /* the settings slot (src/agree.h) */

void hyt_settings_ext_register(const hyt_settings_ext_t *ext)
{
    settings_ext = ext;
}

/* HYTUNE_WARM_START, read by the layer that registered the slot (online/);
 * used only in hybrid mode. */
static void item_warm(hyt_agree_item_t *it)
{
    if (hyt_cfg.mode == HYT_MODE_HYBRID && hyt_cfg.warm_start && settings_ext) {
        settings_ext->item(it);
        return;
    }
    hyt_agree_item_init(it, "HYTUNE_WARM_START", HYT_TOPIC_ONLINE, HYT_LOG_ERROR,
                        "every rank starts without warm start");
    it->fp = unused_fp();
    snprintf(it->desc, sizeof it->desc, "%s%s", hyt_cfg.warm_start ? "not read in mode " : "unset",
             hyt_cfg.warm_start ? mode_names[hyt_cfg.mode] : "");
}

static void item_force(hyt_agree_item_t *it, hyt_coll_t c)
{
    char var[64], fallback[96];
    snprintf(var, sizeof var, "HYTUNE_FORCE_%s", hyt_coll_name(c));
    for (char *p = var; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    snprintf(fallback, sizeof fallback, "no rank forces an algorithm for %s", hyt_coll_name(c));
    hyt_agree_item_init(it, var, HYT_TOPIC_CORE, HYT_LOG_WARN, fallback);
    hyt_forced_alg[c] = NULL;
    hyt_forced_k[c] = 0;
    const char *spec = hyt_cfg.force[c];
    if (hyt_cfg.mode == HYT_MODE_OFF || !spec) {
        it->fp = unused_fp();
        snprintf(it->desc, sizeof it->desc, "%s %s", var, spec ? "not read (mode off)" : "unset");
        return;
    }
    char err[600];
    if (hyt_alg_parse(c, spec, &hyt_forced_alg[c], &hyt_forced_k[c], err, sizeof err) != 0) {
        hyt_forced_alg[c] = NULL;
        hyt_forced_k[c] = 0;
        hyt_agree_item_fail(it, "%s=%s ignored: %s", var, spec, err);
        return;
    }
    it->fp = hyt_agree_hash_str(HYT_AGREE_HASH0, hyt_forced_alg[c]->name);
    it->fp = hyt_agree_hash(it->fp, &hyt_forced_k[c], sizeof hyt_forced_k[c]);
    snprintf(it->desc, sizeof it->desc, "%s=%s", var, spec);
}

/* What every rank does with an item after the step. */
static void apply(const hyt_agree_item_t *items, int n)
{
    int keep = items[IT_MODE].verdict == HYT_AGREE_OK;
    if (!keep)
        hyt_cfg.mode = HYT_MODE_OFF;
    if (items[IT_TABLE].verdict != HYT_AGREE_OK && hyt_table) {
        hyt_table_free(hyt_table);
        hyt_table = NULL;
    } else if (hyt_table) {
        hyt_info(HYT_TOPIC_TABLE, "loaded %s", hyt_cfg.table);
    }
    if (items[IT_NB].verdict != HYT_AGREE_OK || !hyt_table || hyt_thread_level == MPI_THREAD_MULTIPLE) {
        if (hyt_table && hyt_table->nb && hyt_thread_level == MPI_THREAD_MULTIPLE &&
            items[IT_NB].verdict == HYT_AGREE_OK)
            hyt_info(HYT_TOPIC_TABLE, "MPI_THREAD_MULTIPLE: the table's nonblocking section is "
                     "not applied (MPICH's variables are global to the process)");
        hyt_nb_release();
    } else if (hyt_table->nb) {
        hyt_nb_enable();
        hyt_info(HYT_TOPIC_TABLE, "nonblocking section: MPICH algorithms set through MPI_T");
    }
    if (settings_ext)
        settings_ext->apply(items[IT_WARM].verdict == HYT_AGREE_OK);
    for (int c = 0; c < HYT_NCOLL; c++) {
        if (items[IT_FORCE + c].verdict != HYT_AGREE_OK) {
            hyt_forced_alg[c] = NULL;
            hyt_forced_k[c] = 0;
        } else if (hyt_forced_alg[c]) {
            hyt_info(HYT_TOPIC_CORE, "HYTUNE_FORCE: %s uses %s%s%.0d (overrides table and "
                     "online tuning)", hyt_coll_name((hyt_coll_t)c), hyt_forced_alg[c]->name,
                     hyt_forced_k[c] ? ":k=" : "", hyt_forced_k[c]);
        }
    }
    for (int i = IT_ENV; i < n; i++)
        if (items[i].verdict != HYT_AGREE_OK)
            hyt_env_agree_fallback(items[i].name);
}

int hyt_settings_init(int downgraded, const void *rider, int rlen, void **riders)
{
    if (riders)
        *riders = NULL;
    /* a small allocation (src/small.c): a rank without it would leave the
     * others waiting in the exchange */
    hyt_agree_item_t *items = hyt_small_alloc(IT_MAX * sizeof *items, "the settings exchange",
                                              HYT_TEST_FAIL_INIT);
    item_mode(&items[IT_MODE], downgraded);
    item_table(&items[IT_TABLE]);
    item_nb(&items[IT_NB]);
    item_warm(&items[IT_WARM]);
    for (int c = 0; c < HYT_NCOLL; c++)
        item_force(&items[IT_FORCE + c], (hyt_coll_t)c);
    int n = IT_ENV + hyt_env_agree_items(items + IT_ENV, IT_MAX - IT_ENV);
    if (hyt_cfg.mode == HYT_MODE_OFF)
        for (int i = IT_ENV; i < n; i++) {
            items[i].fp = unused_fp();
            items[i].failed = 0;
        }
    int rc = hyt_agree_run(items, n, MPI_COMM_WORLD, rider, rlen, riders);
    apply(items, n);
    hyt_small_free(items);
    return rc;
}

size_t hyt_settings_bytes(int size, int rlen)
{
    return IT_MAX * sizeof(hyt_agree_item_t) + hyt_agree_bytes(IT_MAX, size, rlen);
}
