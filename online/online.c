/* Online component entry points (see online.h). */
#include "online/online.h"

int hyt_online_init(void)
{
    return 0;
}

void hyt_online_finalize(void)
{
}

int hyt_online_before(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int *k)
{
    (void)ctx;
    (void)key;
    (void)alg;
    (void)k;
    return 0;
}

void hyt_online_after(hyt_comm_t *ctx, hyt_key_t *key, const hyt_alg_t *alg, int k,
                      double seconds)
{
    (void)ctx;
    (void)key;
    (void)alg;
    (void)k;
    (void)seconds;
}

void hyt_online_key_free(hyt_key_t *key)
{
    (void)key;
}

void hyt_online_key_report(const hyt_key_t *key, FILE *out)
{
    (void)key;
    (void)out;
}

void hyt_online_key_json(const hyt_key_t *key, struct json_object *obj)
{
    (void)key;
    (void)obj;
}
