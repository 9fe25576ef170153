/* Files hytune writes and reads (src/file.c) in a directory where someone
 * else plants symlinks and special files: a symlink at any name the writer
 * uses (the target, its old "PATH.tmp.PID" temporary name, the temporary
 * names it draws) is never followed and its target never changes; a failed
 * write leaves the target and no temporary file; a FIFO, a directory,
 * /dev/zero or an oversized file given to a reader (table, warm start,
 * network groups; the oracle CSV in test/mpi/files.sh) is refused in well under a second with a
 * message naming the file.
 *   test_file DIR   (an empty scratch directory) */
#include "online/warm.h"
#include "src/file.h"
#include "src/hyt.h"
#include "test/check.h"
#include "topology/topology.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The temporary names' randomness made predictable, as if an attacker had
 * guessed it: call n fills every byte with n, so its name ends in six times
 * the letter abc[n % 62] (the alphabet of src/file.c). */
static unsigned random_calls;
static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
    (void)flags;
    memset(buf, (int)(random_calls++ & 0xff), len);
    return (ssize_t)len;
}

static const char *dir;

/* the temporary name draw n gives for target */
static void drawn_name(char *buf, size_t len, const char *target, unsigned n)
{
    char c = abc[n % 62];
    snprintf(buf, len, "%s.tmp.%c%c%c%c%c%c", target, c, c, c, c, c, c);
}

static char *at(const char *name)
{
    static char bufs[8][4200];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot set up %s", path);
}

/* path's content equals text (read through the module's reader) */
static int holds(const char *path, const char *text)
{
    char why[256];
    size_t len;
    char *got = hyt_file_read(path, HYT_FILE_MAX_BYTES, &len, why, sizeof why);
    int ok = got && len == strlen(text) && memcmp(got, text, len) == 0;
    free(got);
    return ok;
}

static int is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int tmp_files(const char *path)
{
    char pat[4300];
    snprintf(pat, sizeof pat, "%s.tmp.*", path);
    glob_t g;
    int n = glob(pat, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    globfree(&g);
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void planted_symlinks(void)
{
    const char *victim = at("victim"), *target = at("stats");
    put(victim, "the owner's precious file\n");
    /* the old predictable temporary name, the next three names drawn, the
     * target and the JSON companion's name */
    char name[4300];
    snprintf(name, sizeof name, "%s.tmp.%ld", target, (long)getpid());
    CHECK(symlink(victim, name) == 0, "symlink %s", name);
    for (unsigned n = random_calls; n < random_calls + 3; n++) {
        drawn_name(name, sizeof name, target, n);
        /* the middle one dangles: O_CREAT alone would create its target */
        CHECK(symlink(n == random_calls + 1 ? at("created") : victim, name) == 0, "symlink %s",
              name);
    }
    CHECK(symlink(victim, target) == 0, "symlink at the target");
    CHECK(symlink(victim, at("stats.json")) == 0, "symlink at the JSON name");
    unsigned before = random_calls;

    CHECK(hyt_file_write(target, "report\n") == 0, "write: %s", strerror(errno));
    CHECK(hyt_file_write(at("stats.json"), "{}\n") == 0, "write json: %s", strerror(errno));
    CHECK(random_calls - before >= 4, "the three planted names were drawn and skipped (%u draws)",
          random_calls - before);
    CHECK(holds(victim, "the owner's precious file\n"), "the symlinks' target changed");
    CHECK(access(at("created"), F_OK) != 0, "a dangling symlink was followed");
    CHECK(!is_link(target) && holds(target, "report\n"), "target not replaced by the report");
    CHECK(!is_link(at("stats.json")) && holds(at("stats.json"), "{}\n"), "json not written");
    CHECK(tmp_files(target) == 4, "planted links kept, nothing else left: %d", tmp_files(target));
}

static void failed_writes(void)
{
    /* the target is a directory: rename fails, nothing is left */
    CHECK(mkdir(at("adir"), 0755) == 0, "mkdir");
    CHECK(hyt_file_write(at("adir"), "x") == -1 && errno == EISDIR, "over a directory: %s",
          strerror(errno));
    CHECK(tmp_files(at("adir")) == 0, "temporary file left next to adir");
    CHECK(hyt_file_write(at("missing/f"), "x") == -1 && errno == ENOENT, "no such directory: %s",
          strerror(errno));
    /* every name drawn is taken: an error, not an endless loop or a followed link */
    unsigned first = random_calls;
    for (unsigned n = first; n < first + 62; n++) {
        char name[4300];
        drawn_name(name, sizeof name, at("full"), n);
        CHECK(symlink(at("victim"), name) == 0, "symlink %s", name);
    }
    CHECK(hyt_file_write(at("full"), "x") == -1 && errno == EEXIST, "all names taken: %s",
          strerror(errno));
    CHECK(access(at("full"), F_OK) != 0 && holds(at("victim"), "the owner's precious file\n"),
          "nothing written");

    /* abort: the target keeps its content, the temporary file goes */
    put(at("kept"), "old\n");
    hyt_file_out_t out;
    CHECK(hyt_file_begin(&out, at("kept")) == 0, "begin: %s", strerror(errno));
    fputs("half", out.f);
    CHECK(tmp_files(at("kept")) == 1, "temporary file while writing");
    hyt_file_abort(&out);
    CHECK(holds(at("kept"), "old\n") && tmp_files(at("kept")) == 0, "abort left traces");

    /* the permissions a plain fopen(path, "w") would give */
    mode_t mask = umask(027);
    CHECK(hyt_file_write(at("mode"), "m") == 0, "write");
    struct stat st;
    CHECK(stat(at("mode"), &st) == 0 && (st.st_mode & 0777) == (0666 & ~027), "mode %o",
          (unsigned)(st.st_mode & 0777));
    umask(mask);
}

/* One reader given path: refused in under a second, message with path and want. */
typedef int (*reader_fn)(const char *path, char *err, size_t errlen);

static int read_table(const char *path, char *err, size_t errlen)
{
    hyt_table_t *t = hyt_table_load(path, err, errlen);
    hyt_table_free(t);
    return t ? 0 : -1;
}

static int read_warm(const char *path, char *err, size_t errlen)
{
    int rc = hyt_online_warm_load(path, err, errlen);
    hyt_online_warm_free();
    return rc;
}

static int read_groups(const char *path, char *err, size_t errlen)
{
    const char *names[1] = {"node-0"};
    char *paths[1] = {NULL};
    int rc = hyt_groups_parse_file(path, 1, names, paths, err, errlen);
    free(paths[0]);
    return rc;
}

static const struct {
    const char *name, *fix;
    reader_fn fn;
} readers[] = {
    {"table", "set HYTUNE_TABLE to a file", read_table},
    {"warm start", "point HYTUNE_WARM_START at", read_warm},
    {"network groups", "give a readable file", read_groups},
};

static void refused(const char *path, const char *want)
{
    for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++) {
        char err[1024] = "";
        double t0 = now();
        int rc = readers[r].fn(path, err, sizeof err);
        double dt = now() - t0;
        CHECK(rc != 0 && dt < 1.0, "%s of %s: rc %d after %.3f s", readers[r].name, path, rc, dt);
        CHECK(strstr(err, path) && strstr(err, want) && strstr(err, readers[r].fix),
              "%s of %s: message names the file, \"%s\" and the fix: %s", readers[r].name, path,
              want, err);
    }
}

static void special_files(void)
{
    CHECK(mkfifo(at("fifo"), 0644) == 0, "mkfifo: %s", strerror(errno));
    refused(at("fifo"), "a FIFO, not a regular file");
    refused(at("adir"), "a directory, not a regular file");
    refused("/dev/zero", "a character device, not a regular file");
    refused(at("nothing-here"), strerror(ENOENT));
    /* larger than the limit: a sparse file, refused before any read */
    int fd = open(at("huge"), O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)HYT_FILE_MAX_BYTES + 1) == 0, "sparse file");
    if (fd >= 0)
        close(fd);
    char want[128];
    snprintf(want, sizeof want, "%zu bytes, more than the limit of %zu", HYT_FILE_MAX_BYTES + 1,
             HYT_FILE_MAX_BYTES);
    refused(at("huge"), want);
    unlink(at("huge"));
    /* the limit is the caller's */
    char why[256];
    size_t len = 0;
    put(at("small"), "0123456789");
    char *s = hyt_file_read(at("small"), 10, &len, why, sizeof why);
    CHECK(s && len == 10 && strcmp(s, "0123456789") == 0, "10 bytes at limit 10");
    free(s);
    CHECK(!hyt_file_read(at("small"), 9, &len, why, sizeof why) &&
              strcmp(why, "10 bytes, more than the limit of 9") == 0, "limit 9: %s", why);
    /* a symlink to a regular file is read (users link tables) */
    CHECK(symlink(at("small"), at("small-link")) == 0, "symlink");
    s = hyt_file_read(at("small-link"), 10, &len, why, sizeof why);
    CHECK(s && len == 10, "read through a symlink: %s", s ? "" : why);
    free(s);
    FILE *f = hyt_file_open(at("small"), 10, why, sizeof why);
    CHECK(f && fgetc(f) == '0', "hyt_file_open reads");
    CHECK(f && (fcntl(fileno(f), F_GETFL) & O_NONBLOCK) == 0, "left non-blocking");
    if (f)
        fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_file DIR\n");
        return 2;
    }
    dir = argv[1];
    alarm(20); /* a hang is a failure */
    planted_symlinks();
    failed_writes();
    special_files();
    return check_done("file");
}
