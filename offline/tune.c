/* `hytune tune`: see tune.h. */
#include "offline/tune.h"

#include <stdio.h>

int hyt_tune_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hytune tune: the allocation-time tuner is not part of this build yet\n");
    return 2;
}
