/* Files hytune writes and reads (src/file.c).
 *
 * Jobs write into shared directories where other users can create files, so
 * a file is written as a temporary file created exclusively next to the
 * target (O_CREAT | O_EXCL | O_NOFOLLOW under an unpredictable name: a
 * symlink planted there is never followed), flushed to disk and renamed over
 * the target.  On any error the temporary file is removed and the target is
 * untouched; a killed writer leaves the previous file.
 *
 * A file is read only if it is a regular file no larger than
 * HYT_FILE_MAX_BYTES: it is opened without blocking and checked with fstat
 * before the first read, so a FIFO, a directory or a device gives an error
 * at once instead of a hang or an endless read. */
#ifndef HYT_FILE_H
#define HYT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Largest file hytune reads (tables, statistics JSON, network groups,
 * oracle CSV). */
#define HYT_FILE_MAX_BYTES ((size_t)256 << 20)

/* A file being written: write to f between hyt_file_begin and
 * hyt_file_commit (or hyt_file_abort). */
typedef struct hyt_file_out {
    FILE *f;
    char *tmp;        /* the temporary file, "PATH.tmp.XXXXXX" */
    char *path;       /* the target */
} hyt_file_out_t;

/* Create the temporary file for path; 0, or -1 with errno set. */
int hyt_file_begin(hyt_file_out_t *out, const char *path);
/* Flush, fsync, close and rename over the target; 0, or -1 with errno set
 * (then the temporary file is removed and the target untouched).  Either
 * way out is released. */
int hyt_file_commit(hyt_file_out_t *out);
/* Remove the temporary file; the target is untouched. */
void hyt_file_abort(hyt_file_out_t *out);
/* The three above for a whole text: 0, or -1 with errno set. */
int hyt_file_write(const char *path, const char *text);

/* Open path for reading if it is a regular file of at most max bytes;
 * otherwise NULL with why set to a short reason that fits "cannot read
 * PATH (WHY)": the system's error, "a FIFO, not a regular file", or
 * "N bytes, more than the limit of M". */
FILE *hyt_file_open(const char *path, size_t max, char *why, size_t whylen);
/* The whole file (checked as hyt_file_open does), NUL-terminated and
 * malloc'ed, its length in *len; NULL with why set. */
char *hyt_file_read(const char *path, size_t max, size_t *len, char *why, size_t whylen);

#endif
