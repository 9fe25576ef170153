/* Logging: levels, topics, warn-once.  Errors are printed by whichever rank
 * finds them; warnings and INFO come from rank 0 only unless
 * HYTUNE_LOG_RANKS=all (or HYTUNE_LOG=debug).  An error every rank finds
 * alike (a setting compared at init, src/agree.h) is printed once by rank 0
 * by its caller.  Messages are lowercase with a "topic:" prefix so they can
 * be grepped. */
#include "hyt.h"

#include <stdarg.h>
#include <stdio.h>

static int log_rank = -1; /* -1: before MPI is up, print */

void hyt_log_set_rank(int world_rank)
{
    log_rank = world_rank;
}

static const char *topic_name(hyt_topic_t t)
{
    switch (t) {
    case HYT_TOPIC_CORE: return "core";
    case HYT_TOPIC_TABLE: return "table";
    case HYT_TOPIC_ALG: return "alg";
    case HYT_TOPIC_TOPO: return "topo";
    case HYT_TOPIC_ONLINE: return "online";
    case HYT_TOPIC_TUNE: return "tune";
    default: return "hytune";
    }
}

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static int enabled(hyt_log_level_t lvl, hyt_topic_t topic)
{
    if (lvl > hyt_cfg.log_level)
        return 0;
    if (lvl > HYT_LOG_ERROR && !(hyt_cfg.log_topics & topic))
        return 0;
    /* rank filtering is for noise, never for errors */
    if (lvl > HYT_LOG_ERROR && log_rank > 0 && !hyt_cfg.log_all_ranks &&
        hyt_cfg.log_level < HYT_LOG_DEBUG)
        return 0;
    return 1;
}

static void vlog(hyt_log_level_t lvl, hyt_topic_t topic, const char *fmt, va_list ap)
{
    char buf[4096]; /* agreement errors list several ranks' settings */
    int n = snprintf(buf, sizeof buf, "hytune[%d] %s %s: ", log_rank < 0 ? 0 : log_rank,
                     level_names[lvl], topic_name(topic));
    if (n < 0 || (size_t)n >= sizeof buf)
        n = 0;
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    /* one fputs per message so lines from ranks and threads do not interleave */
    fprintf(stderr, "%s\n", buf);
}

void hyt_log(hyt_log_level_t lvl, hyt_topic_t topic, const char *fmt, ...)
{
    if (!enabled(lvl, topic))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(lvl, topic, fmt, ap);
    va_end(ap);
}

void hyt_log_once(int *flag, hyt_log_level_t lvl, hyt_topic_t topic, const char *fmt, ...)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        return;
    if (!enabled(lvl, topic))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(lvl, topic, fmt, ap);
    va_end(ap);
}
