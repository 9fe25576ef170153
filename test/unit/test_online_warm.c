/* Unit test of the warm-start reader (online/warm.c): a statistics JSON of
 * the shape src/stats.c writes loads into the (size, nodes, ppn, collective,
 * bucket) table; keys without a settled radix are skipped; the algorithm
 * must match; broken files give one message naming the file and field. */
#include "online/warm.h"
#include "src/hyt.h"
#include "test/check.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[256];

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static const char *good =
    "{\"format\": 1, \"rank\": 0, \"communicators\": [\n"
    " {\"id\": 0, \"size\": 64, \"nodes\": 8, \"ppn\": 8, \"keys\": [\n"
    "   {\"collective\": \"allreduce\", \"bucket\": 4, \"calls\": 100,\n"
    "    \"online\": {\"algorithm\": \"knomial\", \"settled_k\": 16, \"state\": \"settled\"}},\n"
    "   {\"collective\": \"bcast\", \"bucket\": 11,\n"
    "    \"online\": {\"algorithm\": \"kring\", \"settled_k\": null}},\n"
    "   {\"collective\": \"allgather\", \"bucket\": 20}\n"
    " ]},\n"
    " {\"id\": 1, \"size\": 64, \"nodes\": 8, \"ppn\": 8, \"keys\": [\n"
    "   {\"collective\": \"allreduce\", \"bucket\": 4,\n"
    "    \"online\": {\"algorithm\": \"knomial\", \"settled_k\": 32}}]},\n"
    " {\"id\": 2, \"size\": 32, \"nodes\": 4, \"ppn\": 8, \"keys\": [\n"
    "   {\"collective\": \"allreduce\", \"bucket\": 4,\n"
    "    \"online\": {\"algorithm\": \"knomial\", \"settled_k\": 4}}]}\n"
    "]}\n";

static void good_file(void)
{
    char err[1024] = "";
    write_file(good);
    int rc = hyt_online_warm_load(path, err, sizeof err);
    CHECK(rc == 0, "good file rejected: %s", err);
    CHECK(hyt_online_warm_count() == 2, "entries: %d", hyt_online_warm_count());
    int k = 0;
    CHECK(hyt_online_warm_lookup(64, 8, 8, HYT_COLL_ALLREDUCE, 4, "knomial", &k) == 1 && k == 16,
          "first communicator of a shape wins: k=%d", k);
    CHECK(hyt_online_warm_lookup(32, 4, 8, HYT_COLL_ALLREDUCE, 4, "knomial", &k) == 1 && k == 4,
          "second shape: k=%d", k);
    CHECK(!hyt_online_warm_lookup(64, 8, 8, HYT_COLL_ALLREDUCE, 4, "recmult", &k),
          "another algorithm must not match");
    CHECK(!hyt_online_warm_lookup(64, 8, 8, HYT_COLL_ALLREDUCE, 5, "knomial", &k),
          "another bucket must not match");
    CHECK(!hyt_online_warm_lookup(64, 8, 4, HYT_COLL_ALLREDUCE, 4, "knomial", &k),
          "another ppn must not match");
    CHECK(!hyt_online_warm_lookup(64, 8, 8, HYT_COLL_BCAST, 11, "kring", &k),
          "unsettled key must be skipped");
    hyt_online_warm_free();
    CHECK(hyt_online_warm_count() == 0 &&
              !hyt_online_warm_lookup(32, 4, 8, HYT_COLL_ALLREDUCE, 4, "knomial", &k),
          "free empties the table");
}

static void bad(const char *text, const char *want)
{
    char err[1024] = "";
    write_file(text);
    int rc = hyt_online_warm_load(path, err, sizeof err);
    CHECK(rc == -1, "accepted bad file (wanted \"%s\")", want);
    CHECK(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
    CHECK(strstr(err, path) != NULL, "message \"%s\" does not name the file", err);
    CHECK(strstr(err, "HYTUNE_STATS") != NULL, "message \"%s\" names no fix", err);
    CHECK(hyt_online_warm_count() == 0, "a rejected file left entries");
}

static void bad_files(void)
{
    bad("{not json", "cannot read it as JSON");
    bad("[1,2]", "communicators: expected an array");
    bad("{\"communicators\": [{\"size\": 4, \"nodes\": 1, \"keys\": []}]}",
        "communicators[0].ppn");
    bad("{\"communicators\": [{\"size\": 4, \"nodes\": 1, \"ppn\": 4}]}",
        "communicators[0].keys: expected an array");
    bad("{\"communicators\": [{\"size\": 4, \"nodes\": 1, \"ppn\": 4, \"keys\": "
        "[{\"collective\": \"allreduce\", \"bucket\": 99}]}]}",
        "communicators[0].keys[0].bucket = 99");
    bad("{\"communicators\": [{\"size\": 4, \"nodes\": 1, \"ppn\": 4, \"keys\": "
        "[{\"collective\": \"allreduse\", \"bucket\": 3}]}]}",
        "communicators[0].keys[0].collective = \"allreduse\"");
    bad("{\"communicators\": [{\"size\": 4, \"nodes\": 1, \"ppn\": 4, \"keys\": "
        "[{\"collective\": \"bcast\", \"bucket\": 3, \"online\": {\"settled_k\": \"8\"}}]}]}",
        "communicators[0].keys[0].online.settled_k");
    bad("{\"communicators\": [{\"size\": 4, \"nodes\": 1, \"ppn\": 4, \"keys\": "
        "[{\"collective\": \"bcast\", \"bucket\": 3, \"online\": {\"settled_k\": 8}}]}]}",
        "communicators[0].keys[0].online.algorithm");
    char err[1024] = "";
    CHECK(hyt_online_warm_load("/nonexistent/x.json", err, sizeof err) == -1 &&
              strstr(err, "/nonexistent/x.json"),
          "missing file: %s", err);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/test_online_warm.%ld.json", (long)getpid());
    good_file();
    bad_files();
    unlink(path);
    return check_done("test_online_warm");
}
