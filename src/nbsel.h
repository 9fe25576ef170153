/* MPICH's own algorithms for the nonblocking collectives, chosen per call
 * through MPI_T (src/nbsel.c): the selection table's "nonblocking" section
 * (docs/table-format.md) names, per collective, communicator shape and size,
 * an MPICH algorithm of MPIR_CVAR_I<COLL>_INTRA_ALGORITHM and the radix its
 * *_KVAL variables take.  hytune tune writes the section (offline/nbtune.c,
 * MPICH only: SimGrid has no MPI_T).
 *
 * MPICH's variables are global (bound to no object, scope ALL_EQ) and read
 * when a nonblocking collective starts, so the runtime writes them right
 * before the MPI_I<coll> call the rule covers and writes the previous values
 * back right after it.  Every rank of the communicator looks up the same
 * rule (the size key is the same on every rank, the table is agreed), so
 * every rank writes the same values for the same call. */
#ifndef HYT_NBSEL_H
#define HYT_NBSEL_H

#include "src/hyt.h"

#include <stdint.h>

typedef enum {
    HYT_NB_IALLREDUCE,
    HYT_NB_IBCAST,
    HYT_NB_IREDUCE,
    HYT_NB_IALLGATHER,
    HYT_NB_IALLTOALL,
    HYT_NB_IBARRIER,
    HYT_NB_IGATHER,
    HYT_NB_ISCATTER,
    HYT_NB_IALLGATHERV,
    HYT_NB_IALLTOALLV,
    HYT_NB_IREDUCE_SCATTER,
    HYT_NB_IREDUCE_SCATTER_BLOCK,
    HYT_NB_ISCAN,
    HYT_NB_IGATHERV,
    HYT_NB_ISCATTERV,
    HYT_NB_NCOLL
} hyt_nb_t;

#define HYT_NB_ALG_NAME 64
#define HYT_NB_MAX_KVARS 2

typedef struct hyt_nb_rule {
    uint64_t bytes_max;          /* UINT64_MAX: no bound */
    char alg[HYT_NB_ALG_NAME];   /* MPICH's name ("tsp_tree"), or "auto": MPICH's own choice */
    int k;                       /* radix (0: the algorithm has none) */
    double predicted_us, native_us; /* the tuner's times (< 0: unknown) */
    /* resolved at MPI_Init (src/nbsel.c): the algorithm variable's value
     * (-1: auto, nothing written) and the radix variables' slots */
    int value;
    int kv[HYT_NB_MAX_KVARS];
} hyt_nb_rule_t;

typedef struct hyt_nb_set {
    int nodes_max, ppn_max;      /* INT32_MAX: no bound */
    int nrules;
    hyt_nb_rule_t *rules;
} hyt_nb_set_t;

typedef struct hyt_nb_table {
    int nsets[HYT_NB_NCOLL];
    hyt_nb_set_t *sets[HYT_NB_NCOLL];
} hyt_nb_table_t;

const char *hyt_nb_name(hyt_nb_t n);          /* "iallreduce" */
hyt_coll_t hyt_nb_coll(hyt_nb_t n);           /* HYT_COLL_ALLREDUCE */
int hyt_nb_from_name(const char *name);       /* -1 if not one */
int hyt_nb_from_coll(hyt_coll_t c);           /* -1 if not one */
/* Every name, ", "-separated, into buf (256 bytes hold them); returns buf. */
const char *hyt_nb_names(char *buf, size_t len);
/* The radix variables algorithm alg of n sets (MPICH 4.0.2), as suffixes of
 * MPIR_CVAR_<NB>_: "TREE_KVAL"; returns how many (0: no radix). */
int hyt_nb_kvars(hyt_nb_t n, const char *alg, const char *out[HYT_NB_MAX_KVARS]);
/* MPIR_CVAR_<NB>_<suffix> into buf. */
const char *hyt_nb_cvar_name(hyt_nb_t n, const char *suffix, char *buf, size_t len);

void hyt_nb_table_free(hyt_nb_table_t *t);
uint64_t hyt_nb_fingerprint(const hyt_nb_table_t *t, uint64_t h);

/* Run time.  hyt_nb_resolve opens the variables t names (MPI_T) and maps its
 * algorithm names to values; on any problem (no MPI_T, a variable MPICH does
 * not have, an algorithm name it does not list) one message in err naming
 * the JSON path and the fix, and -1.  hyt_nb_enable makes the calls use it
 * (after the agreement: every rank resolved the same table); hyt_nb_release
 * writes the saved values back and closes the handles. */
int hyt_nb_resolve(hyt_nb_table_t *t, const char *file, char *err, size_t errlen);
void hyt_nb_enable(void);
void hyt_nb_release(void);
extern int hyt_nb_active;
/* Before a nonblocking call of c on ctx with selection size bytes: write
 * the rule's variables (a collective whose size differs between ranks,
 * Ialltoallv, takes the rule set's last rule whatever the size, as blocking
 * selection does).  Returns the hyt_nb_t written, or -1 (nothing
 * written: no rule, "auto", an intercommunicator). */
int hyt_nb_apply(hyt_coll_t c, const hyt_comm_t *ctx, size_t bytes);
/* After it: the previous values back. */
void hyt_nb_restore(int n);
/* Do nonblocking calls of c on ctx take MPICH algorithms from the section
 * (a rule set for ctx's shape with a rule other than "auto")?  For the
 * statistics. */
int hyt_nb_covers(hyt_coll_t c, const hyt_comm_t *ctx);

#endif
