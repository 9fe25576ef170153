/* The tuner's benchmark of MPICH's own nonblocking algorithms
 * (offline/nbtune.c): for Iallreduce, Ibcast, Ireduce, Iallgather and
 * Ialltoall, every algorithm MPIR_CVAR_I<COLL>_INTRA_ALGORITHM lists and
 * every radix its *_KVAL variables take (up to the k limit), selected
 * through MPI_T, against MPICH's own choice, per size.  The winners become
 * the table's "nonblocking" section (src/nbsel.h, docs/table-format.md)
 * and, with --mpich-json, entries of the MPICH selection file.
 *
 * MPICH only: SimGrid has no MPI_T, so there nothing is measured and the
 * caller says so. */
#ifndef HYT_NBTUNE_H
#define HYT_NBTUNE_H

#include "offline/mpich.h"
#include "src/nbsel.h"

#include <stdint.h>
#include <stdio.h>

typedef struct hyt_nbtune_opts {
    unsigned mask;        /* bit n: tune hyt_nb_t n */
    uint64_t max_bytes;   /* largest size key measured (8 B, x4, up to it) */
    int k_max;            /* largest radix (0: the communicator size, at most 8) */
    double budget_s;      /* stop starting new sizes after this long (0: no limit) */
} hyt_nbtune_opts_t;

/* "iallreduce,ibcast" or "all" into a mask; -1 with a message naming the
 * bad name and the valid ones. */
int hyt_nbtune_parse(const char *list, unsigned *mask, char *err, size_t errlen);

/* Every rank of comm (nodes x ppn, MPI_T open through hyt_mpich_init,
 * MPIR_CVAR_COLLECTIVE_FALLBACK "error"): measures and returns the rules
 * for one rule set of this shape (rank 0; NULL on other ranks or when
 * nothing could be measured).  Progress and winners on log (rank 0). */
hyt_nb_table_t *hyt_nbtune_run(MPI_Comm comm, int nodes, int ppn, const hyt_nbtune_opts_t *o,
                               FILE *log);

/* The table's nonblocking section is written with the table
 * (src/table.h: hyt_table_json). */

/* MPICH selection-file entries of t's winners (hyt_mpich_json_named's
 * input): fills up to max entries of colls and names (MPICH's names of the
 * collectives), using the storage in *keep (free with
 * hyt_nbtune_mpich_free).  A rule MPICH 4.0.2's file cannot express
 * exactly (its container for that algorithm takes no radix, so its radix
 * would be left unset) gets the collective's general algorithm and is
 * counted in *dropped. */
typedef struct hyt_nbtune_keep {
    hyt_mpich_set_t *sets;
    hyt_mpich_rule_t *rules;
    char **texts;
    int ntexts;
} hyt_nbtune_keep_t;
int hyt_nbtune_mpich(const hyt_nb_table_t *t, hyt_mpich_coll_t *colls, const char **names,
                     int max, hyt_nbtune_keep_t *keep, int *won, int *dropped);
void hyt_nbtune_mpich_free(hyt_nbtune_keep_t *keep);

#endif
