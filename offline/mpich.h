/* MPICH native algorithms for the tuner (offline/mpich.c).
 *
 * Candidates: MPICH's MPIR_CVAR_<COLL>_INTRA_ALGORITHM, read through MPI_T
 * (src/mpit.h).  A candidate is selected by writing the variable on
 * every rank of the benchmark communicator right before the call and
 * writing "auto" back right after it.
 *
 * Export: hyt_mpich_json writes an MPICH 4.0.2 collective-selection file
 * (the format MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE loads) whose tuned
 * collectives choose the tuner's MPICH winners.  The file replaces MPICH's
 * whole built-in tree, so every collective MPICH knows gets an entry: the
 * untuned ones (and the size ranges hytune serves itself) a general
 * algorithm that accepts every argument. */
#ifndef HYT_MPICH_H
#define HYT_MPICH_H

#include "src/hyt.h"
#include "src/mpit.h"

#include <stddef.h>
#include <stdint.h>

/* Can MPICH run algorithm name of collective c in the tuner's benchmark
 * (MPI_INT / MPI_SUM, not in place) on nodes x ppn ranks at bytes?  Exact
 * for the restrictions MPICH 4.0.2 checks before running a user-set
 * algorithm that the tuner knows of; the benchmark also runs with
 * MPIR_CVAR_COLLECTIVE_FALLBACK=error, so any other refusal is an error
 * (recorded as a failed point), never a silent substitute. */
int hyt_mpich_alg_ok(hyt_coll_t c, const char *name, int nodes, int ppn, uint64_t bytes);

/* The largest power of two <= p (p >= 1). */
int hyt_mpich_pof2_below(int p);

/* csel container of algorithm name for c: "MPIR_Allreduce_intra_recursive_doubling",
 * "MPIR_Allreduce_allcomm_nb".  buf returned. */
const char *hyt_mpich_container(hyt_coll_t c, const char *name, char *buf, size_t len);

/* ---- run time (MPICH build; stubs returning -1 / 0 under SimGrid) ---- */
/* MPI_T_init_thread and the algorithm variables of every collective; sets
 * MPIR_CVAR_COLLECTIVE_FALLBACK to "error" while the tuner runs.  0 if MPICH
 * algorithms can be selected, -1 otherwise (then none are candidates). */
int hyt_mpich_init(void);
/* Restores MPIR_CVAR_COLLECTIVE_FALLBACK and frees the handles. */
void hyt_mpich_finalize(void);
/* Algorithms of c usable as candidates (auto excluded), names and values. */
int hyt_mpich_algs(hyt_coll_t c, const char **names, int *values, int max);
/* Write the variable of c (value < 0: "auto").  0 or -1. */
int hyt_mpich_select(hyt_coll_t c, int value);
/* Read it back (tests); -1 on error. */
int hyt_mpich_current(hyt_coll_t c);

/* ---- export ---- */
typedef struct hyt_mpich_rule {
    uint64_t bytes_max;   /* UINT64_MAX: no bound */
    const char *alg;      /* MPICH algorithm name, or NULL: not an MPICH winner */
    const char *text;     /* alg NULL: this subtree as it is (a nonblocking winner with its
                           * parameters, offline/nbtune.c), or NULL: the general algorithm */
} hyt_mpich_rule_t;

typedef struct hyt_mpich_set {
    int nodes, ppn;
    int nrules;
    const hyt_mpich_rule_t *rules;
} hyt_mpich_set_t;

typedef struct hyt_mpich_coll {
    hyt_coll_t coll;               /* its size key (a nonblocking form: the blocking one's) */
    int nsets;
    const hyt_mpich_set_t *sets;   /* any order */
} hyt_mpich_coll_t;

/* The general algorithm the file gives an untuned collective (MPICH's name,
 * "iallreduce"): a subtree text, or NULL if MPICH 4.0.2 has no such name. */
const char *hyt_mpich_general(const char *coll);

/* JSON text (malloc'ed) or NULL.  Sets are grouped by ppn ascending
 * ("comm_avg_ppn<=P"), inside by nodes ascending ("comm_size<=nodes*ppn");
 * the largest of each level has no bound. */
char *hyt_mpich_json(const hyt_mpich_coll_t *colls, int ncolls);
/* The same where colls[i] is MPICH's collective names[i] ("iallreduce", a
 * nonblocking form whose size key is colls[i].coll's); names NULL or
 * names[i] NULL: hyt_coll_name(colls[i].coll). */
char *hyt_mpich_json_named(const hyt_mpich_coll_t *colls, const char *const *names, int ncolls);

#endif
