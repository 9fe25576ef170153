/* Minimal checking for hytune tests: every CHECK counts; a test program
 * exits non-zero when any check failed, and says which. */
#ifndef HYT_TEST_CHECK_H
#define HYT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        check_count++;                                                                        \
        if (!(cond)) {                                                                        \
            check_failures++;                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, "\n");                                                            \
        }                                                                                     \
    } while (0)

/* Call at the end of main: prints the tally, returns the exit status. */
static inline int check_done(const char *what)
{
    if (check_count == 0) {
        fprintf(stderr, "%s: no checks ran\n", what);
        return 1;
    }
    fprintf(check_failures ? stderr : stdout, "%s: %d checks, %d failed\n", what, check_count,
            check_failures);
    return check_failures ? 1 : 0;
}

#endif
