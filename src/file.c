/* Files hytune writes and reads (see file.h). */
#include "src/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_SUFFIX ".tmp."
#define TMP_RANDOM 6
#define TMP_TRIES 100

/* Random letters for a temporary name: getrandom, else the clock and pid
 * (the name only has to be hard to guess; O_EXCL makes it safe). */
static void random_letters(char *out, int n)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[TMP_RANDOM];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 20 ^
                     (uint64_t)ts.tv_sec;
        for (size_t i = 0; i < sizeof r; i++, x >>= 8)
            r[i] = (unsigned char)x;
    }
    for (int i = 0; i < n; i++)
        out[i] = abc[r[i] % (sizeof abc - 1)];
}

int hyt_file_begin(hyt_file_out_t *out, const char *path)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(path);
    out->path = strdup(path);
    out->tmp = malloc(n + sizeof TMP_SUFFIX + TMP_RANDOM);
    if (!out->path || !out->tmp) {
        free(out->path);
        free(out->tmp);
        memset(out, 0, sizeof *out);
        errno = ENOMEM;
        return -1;
    }
    memcpy(out->tmp, path, n);
    memcpy(out->tmp + n, TMP_SUFFIX, sizeof TMP_SUFFIX - 1);
    char *rnd = out->tmp + n + sizeof TMP_SUFFIX - 1;
    rnd[TMP_RANDOM] = 0;
    int fd = -1;
    for (int i = 0; fd < 0 && i < TMP_TRIES; i++) {
        random_letters(rnd, TMP_RANDOM);
        /* O_EXCL: an existing name, a symlink included, is never opened */
        fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    int e = errno;
    if (fd >= 0 && !(out->f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        unlink(out->tmp);
    }
    if (!out->f) {
        free(out->tmp);
        out->tmp = NULL; /* nothing of ours to remove */
        hyt_file_abort(out);
        errno = e;
        return -1;
    }
    return 0;
}

void hyt_file_abort(hyt_file_out_t *out)
{
    int e = errno;
    if (out->f)
        fclose(out->f);
    if (out->tmp)
        unlink(out->tmp);
    free(out->tmp);
    free(out->path);
    memset(out, 0, sizeof *out);
    errno = e;
}

int hyt_file_commit(hyt_file_out_t *out)
{
    int ok = !ferror(out->f) && fflush(out->f) == 0 && fsync(fileno(out->f)) == 0;
    int e = ok ? 0 : errno ? errno : EIO;
    ok = fclose(out->f) == 0 && ok;
    out->f = NULL;
    if (ok && rename(out->tmp, out->path) == 0) {
        free(out->tmp);
        out->tmp = NULL; /* renamed: nothing to remove */
        hyt_file_abort(out);
        return 0;
    }
    if (!e)
        e = errno ? errno : EIO;
    hyt_file_abort(out);
    errno = e;
    return -1;
}

int hyt_file_write(const char *path, const char *text)
{
    hyt_file_out_t out;
    if (hyt_file_begin(&out, path) != 0)
        return -1;
    if (fputs(text, out.f) < 0) {
        hyt_file_abort(&out);
        return -1;
    }
    return hyt_file_commit(&out);
}

static const char *kind_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "a special file";
}

FILE *hyt_file_open(const char *path, size_t max, char *why, size_t whylen)
{
    /* O_NONBLOCK: opening a FIFO without a writer must not wait for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s, not a regular file", kind_name(st.st_mode));
    } else if ((uintmax_t)st.st_size > max) {
        snprintf(why, whylen, "%jd bytes, more than the limit of %zu", (intmax_t)st.st_size,
                 max);
    } else {
        int fl = fcntl(fd, F_GETFL);
        FILE *f = fl != -1 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "r") : NULL;
        if (f)
            return f;
        snprintf(why, whylen, "%s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

char *hyt_file_read(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
    FILE *f = hyt_file_open(path, max, why, whylen);
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n + 1 < cap || n > max)
            break;
        char *nb = realloc(buf, cap *= 2);
        if (!nb)
            free(buf);
        buf = nb;
    }
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (!buf || rerr || n > max) {
        if (!buf)
            snprintf(why, whylen, "out of memory");
        else if (rerr)
            snprintf(why, whylen, "%s", strerror(rerr));
        else /* grew past the limit while being read */
            snprintf(why, whylen, "more than the limit of %zu bytes", max);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
