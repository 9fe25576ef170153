/* hytune public header.  Applications need nothing from it: linking
 * -lhytune (or LD_PRELOAD=libhytune.so) interposes the MPI collectives.
 * It is here for programs that want to know which hytune they run with. */
#ifndef HYTUNE_H
#define HYTUNE_H

#define HYTUNE_VERSION "0.1.0"

#endif
