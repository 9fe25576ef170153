/* Allocation-time tuner (`hytune tune`). */
#ifndef HYT_TUNE_H
#define HYT_TUNE_H

/* Entry point of `hytune tune`: an MPI program over the whole allocation.
 * argv[0] is "tune".  Returns the process exit status. */
int hyt_tune_main(int argc, char **argv);

#endif
