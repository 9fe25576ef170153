/* MPICH's control variables through MPI_T (src/mpit.c), for the tuner's
 * MPICH candidates (offline/mpich.c) and the nonblocking selection the
 * table carries (src/nbsel.c).
 *
 * MPICH 4.0.2 exposes MPIR_CVAR_<COLL>_INTRA_ALGORITHM as an MPI_INT
 * without an MPI_T enum; its values are the positions of the names in the
 * variable's description ("auto - ...", "nb - ...", ...), which
 * hyt_mpich_parse_desc reads (an MPI_T enum is used instead where the
 * library has one).  Every variable hytune writes is bound to no object and
 * has scope MPI_T_SCOPE_ALL_EQ: one value per process, the same on every
 * process. */
#ifndef HYT_MPIT_H
#define HYT_MPIT_H

#include "src/hyt.h"

#define HYT_MPICH_MAX_ALGS 16
#define HYT_MPICH_NAME 64

/* Names of the values of one algorithm variable, from its MPI_T
 * description; value i is names[i].  Returns the count (0 if the text has
 * no list or a name this build does not know).  Pure: no MPI. */
int hyt_mpich_parse_desc(const char *desc, char names[][HYT_MPICH_NAME], int max);

/* "MPIR_CVAR_<COLL>_<suffix>" into buf (coll upper-cased: "iallreduce",
 * "INTRA_ALGORITHM" -> MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM).  Pure. */
const char *hyt_cvar_name(const char *coll, const char *suffix, char *buf, size_t len);

/* One control variable: an MPI_INT scalar, with the names of its values
 * when it is an algorithm variable (n > 0). */
typedef struct hyt_cvar {
    int ok;
#ifndef HYT_SMPI
    MPI_T_cvar_handle h;
#else
    void *h; /* SimGrid has no MPI_T */
#endif
    int n;
    int values[HYT_MPICH_MAX_ALGS];
    char names[HYT_MPICH_MAX_ALGS][HYT_MPICH_NAME];
    int auto_value; /* value of "auto" (or "silent"), -1 if none */
} hyt_cvar_t;

/* MPI_T for one user (each hyt_mpit_begin has its hyt_mpit_end): 0 or -1
 * (SimGrid: always -1, it has no MPI_T).  MPI_T_init_thread runs once;
 * MPI_T_finalize only in hyt_mpit_shutdown, at MPI_Finalize, when no user is
 * left (see src/mpit.c). */
int hyt_mpit_begin(void);
void hyt_mpit_end(void);
void hyt_mpit_shutdown(void);
/* Open variable index i (list: read the names of its values, and refuse
 * it if it has none).  0 or -1. */
int hyt_cvar_open_index(int i, int list, hyt_cvar_t *v);
/* The same by name ("MPIR_CVAR_IALLREDUCE_TREE_KVAL"): 0, or -1 if MPI_T
 * has no such MPI_INT variable. */
int hyt_cvar_open(const char *name, int list, hyt_cvar_t *v);
void hyt_cvar_close(hyt_cvar_t *v);
/* The value named name, or -1. */
int hyt_cvar_value(const hyt_cvar_t *v, const char *name);
int hyt_cvar_write(hyt_cvar_t *v, int value);
int hyt_cvar_read(hyt_cvar_t *v, int *value);
/* A string variable's value (MPIR_CVAR_IALLREDUCE_TREE_TYPE): 0, or -1. */
int hyt_cvar_read_string(const char *name, char *buf, int len);

#endif
