/* `hytune tune`: what it writes (the table, MPICH's selection file, the
 * --dump file). */
#ifndef HYT_TUNE_OUT_H
#define HYT_TUNE_OUT_H
#include "offline/tune_sched.h"
#include "src/nbsel.h"

#include <stdio.h>

/* Rank 0: the table of every shape's rules (and nb's, the nonblocking
 * section, if not NULL), and with --mpich-json MPICH's selection file;
 * both written atomically.  0, or -1 (said). */
int hyt_tune_write_table(const tune_opts_t *t, const job_t *j, coll_state_t *cs, int ncs,
                         const hyt_nb_table_t *nb);

/* The --dump rows kept in mem become the file at path; frees *text. */
void hyt_tune_dump_close(FILE *mem, char **text, const char *path);

#endif
