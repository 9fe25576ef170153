/* Agreement at init (src/agree.c): everything a rank reads at MPI_Init that
 * changes what it does (mode, selection table, warm start, forced
 * algorithms, every HYTUNE_* value that selects behaviour) is compared
 * across ranks before it is used.
 *
 * Each rank describes every item by a fingerprint of what it will do (equal
 * fingerprints: equal behaviour) and whether it failed to use what it was
 * given (a file it could not read, a value it could not parse).  A
 * minimum over the ranks of each item's fingerprint, its complement and its
 * success gives every rank the same verdict per item:
 *   OK          same fingerprint everywhere, no failure;
 *   ALL_FAILED  every rank failed the same way (every rank is already on the
 *               fallback; rank 0 prints the message once);
 *   DIFFER      anything else: every rank takes the item's fallback and
 *               rank 0 prints one error line saying which ranks saw what
 *               (MOOT below: a difference that another one makes irrelevant).
 * The verdict depends only on the reduced values, so it is the same on every
 * rank by construction. */
#ifndef HYT_AGREE_H
#define HYT_AGREE_H

#include "src/hyt.h"

#include <stdint.h>

#define HYT_AGREE_DESC 1024
/* Largest number of rank groups the error line lists for one item. */
#define HYT_AGREE_MAX_GROUPS 8

/* MOOT: an earlier item with `gates` set differs (the mode: every rank runs
 * off), so this one is not reported; its fallback is taken as for DIFFER. */
typedef enum {
    HYT_AGREE_OK,
    HYT_AGREE_ALL_FAILED,
    HYT_AGREE_DIFFER,
    HYT_AGREE_MOOT
} hyt_agree_verdict_t;

typedef struct hyt_agree_item {
    char name[48];            /* what is compared: "HYTUNE_TABLE" */
    hyt_topic_t topic;        /* topic of its messages */
    hyt_log_level_t level;    /* level of the ALL_FAILED message; HYT_LOG_DEBUG + 1: none
                               * (already said where it was found) */
    uint64_t fp;              /* fingerprint of what this rank does */
    int failed;               /* this rank could not use what it was given */
    char desc[HYT_AGREE_DESC];/* what this rank saw, for messages */
    char fallback[160];       /* what every rank does then, closing the message */
    int gates;                /* if this item differs, the items after it are moot */
    hyt_agree_verdict_t verdict; /* set by the step */
} hyt_agree_item_t;

#define HYT_AGREE_QUIET ((hyt_log_level_t)(HYT_LOG_DEBUG + 1))

/* FNV-1a, 64 bits: fingerprints.  Start from HYT_AGREE_HASH0. */
#define HYT_AGREE_HASH0 0xcbf29ce484222325ULL
uint64_t hyt_agree_hash(uint64_t h, const void *p, size_t n);
uint64_t hyt_agree_hash_str(uint64_t h, const char *s); /* NULL hashes as "" plus a tag */

/* Fill items[i] with name, topic, level and fallback; fp 0, no failure. */
void hyt_agree_item_init(hyt_agree_item_t *it, const char *name, hyt_topic_t topic,
                         hyt_log_level_t level, const char *fallback);
/* Mark a failure: the fingerprint becomes the message's (so equal failures
 * agree) and desc the message. */
void hyt_agree_item_fail(hyt_agree_item_t *it, const char *fmt, ...) HYT_PRINTF(2, 3);

/* The pure parts of the step (unit-tested with divergent inputs). */
/* 3 values per item into v: the MPI_MIN reduction of them over the ranks
 * gives min fp, ~max fp and whether every rank succeeded. */
void hyt_agree_pack(const hyt_agree_item_t *items, int n, uint64_t *v);
/* Element-wise minimum of two packed vectors (what MPI_MIN computes). */
void hyt_agree_combine(uint64_t *acc, const uint64_t *v, int n);
/* Verdicts from the reduced vector: the same on every rank. */
void hyt_agree_verdicts(hyt_agree_item_t *items, int n, const uint64_t *reduced);
/* "0", "0,2-3,7": the ranks r with member[r] != 0. */
void hyt_agree_ranks(const int *member, int nranks, char *out, size_t len);
/* The error line of a DIFFER item from every rank's description:
 * "NAME differs between ranks: rank 0: A; ranks 1-2: B; FALLBACK". */
void hyt_agree_line(const char *name, int nranks, const char *const *descs,
                    const char *fallback, char *out, size_t len);

/* Items of src/env.c: one per variable whose value every rank must share
 * (its parsed value; on DIFFER hyt_env_agree_fallback puts it back to its
 * default).  Returns how many, at most max. */
int hyt_env_agree_items(hyt_agree_item_t *items, int max);
void hyt_env_agree_fallback(const char *name);

/* The step: every rank's digest of all its fingerprints and whether it
 * failed to read anything go to every rank in one exchange (Bruck's
 * allgather, hyt_init_allgather), which also carries a rider: rlen bytes
 * of the caller's (the same rlen on every rank) that every rank receives,
 * so that MPI_Init's node model needs no exchange of its own.  Only when
 * the digests differ (or a rank failed) are the items compared one by one,
 * plus one gather of the descriptions to rank 0 for the error lines.  Runs
 * inside MPI_Init, on comm itself.  Sets every verdict and prints the
 * messages.  On an MPI error every verdict is DIFFER (every rank that
 * returns takes every fallback).  *riders (rlen > 0, exchange done, else
 * NULL): every rank's rider in rank order, size x rlen bytes; free it. */
int hyt_agree_run(hyt_agree_item_t *items, int n, MPI_Comm comm, const void *rider, int rlen,
                  void **riders);
/* The step's buffers are small allocations (src/small.c; *riders too: free
 * it with hyt_small_free): a rank without them would leave the others
 * waiting in the exchange.  Their bytes at most, for n items on size ranks
 * with a rider of rlen bytes (the descriptions rank 0 gathers when items
 * differ aside). */
size_t hyt_agree_bytes(int n, int size, int rlen);

/* Exchanges for MPI_Init only (no application message can be on comm yet):
 * point to point on comm with hytune's tag, so they cost what their
 * messages cost and set up nothing in the MPI library.
 * hyt_init_allmin: v[i] becomes the minimum of v[i] over comm's ranks.
 * hyt_init_bcast: rank 0's buffer to every rank.
 * hyt_init_allgather: every rank's len bytes (len the same on every rank)
 * to every rank, Bruck's allgather (log2 of the ranks rounds): all (size x
 * len bytes, the caller's) holds them in rank order.
 * hyt_init_gatherv: rank 0 receives, all at once, lens[r] bytes from each
 * rank r whose lens[r] (rank 0's array) is above 0, which sends its len
 * bytes; *all (rank 0, malloc'd, free it) holds them in rank order, rank r's
 * from displs[r] (rank 0's own len bytes first, lens[0] of them).  Rank 0
 * without memory for them still receives every message (each at most
 * HYT_INIT_GATHERV_MAX bytes then) and returns MPI_ERR_NO_MEM. */
#define HYT_INIT_GATHERV_MAX 1024
int hyt_init_allmin(uint64_t *v, int n, MPI_Comm comm);
int hyt_init_bcast(void *buf, int count, MPI_Datatype type, MPI_Comm comm);
int hyt_init_allgather(const void *mine, int len, void *all, MPI_Comm comm);
int hyt_init_gatherv(const void *mine, int len, const int *lens, char **all, int *displs,
                     MPI_Comm comm);

/* src/settings.c: read the mode, table, warm start, forced algorithms and
 * variables, run the step over them on MPI_COMM_WORLD and apply the
 * verdicts (hyt_cfg, hyt_table, the warm start and forced algorithms are
 * then the same on every rank).  Every rank calls it in MPI_Init, in every
 * mode.  downgraded: hybrid was turned offline by MPI_THREAD_MULTIPLE.
 * rider, rlen, riders: the step's rider (hyt_agree_run). */
int hyt_settings_init(int downgraded, const void *rider, int rlen, void **riders);
/* What hyt_settings_init allocates at most on size ranks with a rider of
 * rlen bytes (its items and hyt_agree_bytes): part of the emergency
 * reserve's size (src/small.c). */
size_t hyt_settings_bytes(int size, int rlen);

/* The settings slot of a layer above the core that reads a setting of its
 * own (online/: its warm start, HYTUNE_WARM_START): hyt_settings_init runs
 * item() on every rank to read it and fill one agreement item
 * (hyt_agree_item_init, then its fingerprint and desc, or
 * hyt_agree_item_fail), and after the step apply(ok): keep what it read
 * when every rank agreed (ok = 1), else drop it.  Registered before
 * MPI_Init's settings step (a static table; the last registration counts);
 * with none registered the item is "unused" on every rank. */
typedef struct hyt_settings_ext {
    void (*item)(hyt_agree_item_t *it);
    void (*apply)(int ok);
} hyt_settings_ext_t;
void hyt_settings_ext_register(const hyt_settings_ext_t *ext);

#endif
