/* Choosing the algorithm among a rule's shortlist (see choose.h).
 *
 * The table's shortlist holds the candidates the tuner's model could not
 * rule out; which one is fastest on the application's own calls (back to
 * back, with its arrival skew and its traffic) is measured here, one window
 * of calls per candidate.  The rule's own choice runs first and stays unless
 * another wins by the guard, so noise does not move the choice; candidates
 * are tried in the order of their prediction, and the ones the prediction
 * says cannot win even in their favour are not measured at all. */
#include "online/choose.h"

#include <math.h>
#include <string.h>

static int cmp_before(const hyt_choice_t *c, int a, int b)
{
    double pa = c->pred[a], pb = c->pred[b];
    if ((pa < 0) != (pb < 0))
        return pb < 0; /* known predictions first */
    if (pa >= 0 && pa != pb)
        return pa < pb;
    return a < b;
}

void hyt_choice_start(hyt_choice_t *c, int n, const double *pred, const double *sd,
                      double min_gain)
{
    memset(c, 0, sizeof *c);
    c->n = n < 1 ? 1 : n > HYT_CHOICE_MAX ? HYT_CHOICE_MAX : n;
    for (int i = 0; i < c->n; i++) {
        c->pred[i] = pred ? pred[i] : -1;
        c->sd[i] = sd ? sd[i] : -1;
        c->t[i] = -1;
        c->t_step[i] = -1;
        c->status[i] = HYT_CAND_PENDING;
    }
    c->min_gain = c->guard = min_gain;
    c->best = -1;
    c->best_t = -1;
    /* the incumbent first, then insertion sort of the others */
    c->order[0] = 0;
    for (int i = 1; i < c->n; i++) {
        int j = i;
        while (j > 1 && cmp_before(c, i, c->order[j - 1])) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = i;
    }
    if (c->n == 1) {
        c->best = 0;
        c->next = -1;
    } else {
        c->next = 0;
    }
}

/* The lowest measured / predicted ratio so far: the model's bias
 * (HUGE_VAL: none). */
static double bias(const hyt_choice_t *c)
{
    double scale = HUGE_VAL;
    for (int i = 0; i < c->n; i++)
        if (c->status[i] == HYT_CAND_MEASURED && c->pred[i] > 0 && c->t[i] / c->pred[i] < scale)
            scale = c->t[i] / c->pred[i];
    return scale;
}

/* Predictions are at the table's radixes: they are held against the best's
 * window at its own (a step's gain is headroom they do not see). */
static double best_at_k(const hyt_choice_t *c)
{
    return c->best >= 0 && c->t[c->best] > 0 ? c->t[c->best] : c->best_t;
}

/* Candidate j's optimistic time (without headroom), or < 0 if unpriced.
 * No prediction is taken as surer than the guard: a tie with the best (a
 * jackknife spread of 0 from trees that all agree, or a time the arrival
 * skew dominates) is measured. */
static double estimate(const hyt_choice_t *c, int j, double scale)
{
    if (c->best < 0 || c->pred[j] < 0 || !(scale < HUGE_VAL))
        return -1;
    double sd = c->sd[j] > c->guard * c->pred[j] ? c->sd[j] : c->guard * c->pred[j];
    double lo = c->pred[j] - 2 * sd;
    return (lo > 0 ? lo : 0) * scale;
}

double hyt_choice_gain(const hyt_choice_t *c, int j)
{
    if (j < 0 || j >= c->n)
        return -1;
    double est = estimate(c, j, bias(c)), best = best_at_k(c);
    if (est < 0 || !(best > 0))
        return -1;
    return best > est ? best - est : 0;
}

double hyt_choice_setup_calls(const hyt_choice_t *c, int j)
{
    if (j < 0 || j >= c->n || !(c->setup[j] > 0))
        return 0;
    double gain = hyt_choice_gain(c, j);
    if (gain < 0)
        return 0; /* unpriced: measured, as without the gate */
    if (!(gain > 0))
        return HUGE_VAL;
    double rent = c->setup[j] / gain, native = c->setup_mult * c->setup[j] / best_at_k(c);
    return rent > native ? rent : native;
}

int hyt_choice_setup_repaid(const hyt_choice_t *c, int j, double calls)
{
    return calls >= hyt_choice_setup_calls(c, j);
}

void hyt_choice_setup(hyt_choice_t *c, const double *setup, double native_mult)
{
    for (int i = 0; i < c->n; i++)
        c->setup[i] = setup && setup[i] > 0 ? setup[i] : 0;
    c->setup_mult = native_mult > 0 ? native_mult : 0;
}

/* Candidates that cannot win any more are skipped, and those whose set-up
 * the key's calls have not repaid; the next one to measure, or -1. */
static int advance(hyt_choice_t *c)
{
    double scale = bias(c);
    double best_k_t = best_at_k(c);
    while (++c->pos < c->n) {
        int j = c->order[c->pos];
        double est = estimate(c, j, scale);
        if (est >= 0) {
            if (c->step[j] > 0) /* its radix probe may still gain this much */
                est /= 1 + HYT_CHOICE_HEADROOM;
            if (!(est < best_k_t * (1 - c->guard))) {
                c->status[j] = HYT_CAND_SKIPPED;
                continue;
            }
        }
        if (!hyt_choice_setup_repaid(c, j, c->calls)) {
            c->status[j] = HYT_CAND_SETUP;
            continue;
        }
        return c->next = j;
    }
    return c->next = -1;
}

/* One window's spread joins the guard's median. */
static void note_spread(hyt_choice_t *c, double s)
{
    c->spread[c->windows++] = s > 0 ? s : 0;
    double sp[HYT_CHOICE_MAX * 2];
    memcpy(sp, c->spread, (size_t)c->windows * sizeof sp[0]);
    double noise = HYT_PROBE_NOISE_MULT * hyt_probe_median(sp, c->windows);
    c->guard = noise > c->min_gain ? noise : c->min_gain;
}

/* Candidate j's time is t now: it leads if it beats the best by the guard
 * (a tie keeps the incumbent), or updates the best's own time. */
static void compare(hyt_choice_t *c, int j, double t)
{
    if (c->best == j)
        c->best_t = t;
    else if (c->best < 0 || t < c->best_t * (1 - c->guard)) {
        c->best = j;
        c->best_t = t;
    }
}

int hyt_choice_feed(hyt_choice_t *c, double t, double s)
{
    if (c->next < 0)
        return -1;
    int j = c->next;
    note_spread(c, s);
    if (c->stepping) {
        c->stepping = 0;
        c->t_step[j] = t;
        if (t < c->t[j] * (1 - c->guard)) { /* the step wins, as in the radix probe */
            c->stepped[j] = 1;
            compare(c, j, t);
        }
        return advance(c);
    }
    c->t[j] = t;
    c->status[j] = HYT_CAND_MEASURED;
    compare(c, j, t);
    if (c->step[j] > 0 && j != c->order[0] && t <= c->best_t * (1 + HYT_CHOICE_HEADROOM)) {
        c->stepping = 1; /* the challenger at its next radix too */
        return c->next;
    }
    return advance(c);
}

void hyt_choice_steps(hyt_choice_t *c, const int *step)
{
    for (int i = 0; i < c->n; i++)
        c->step[i] = step && step[i] > 0 ? step[i] : 0;
}

int hyt_choice_first_step(int k0, int k_min, int k_max, int k_hint, int k_round)
{
    hyt_probe_t p;
    hyt_probe_start(&p, k0, k_min, k_max, 0, 2);
    hyt_probe_hint(&p, k_hint);
    hyt_probe_round_hint(&p, k_round);
    int k = p.k_next;
    int next = hyt_probe_feed(&p, 1.0);
    return hyt_probe_settled(&p) || next == k ? 0 : next;
}

int hyt_choice_unsupported(hyt_choice_t *c)
{
    if (c->next < 0)
        return -1;
    if (c->stepping) /* its step fell back: the candidate stands at its k */
        c->stepping = 0;
    else
        c->status[c->next] = HYT_CAND_UNSUPPORTED;
    return advance(c);
}

int hyt_choice_probe_start(const hyt_choice_t *c, hyt_probe_t *p, int k0, int k_min, int k_max,
                           double min_gain, int max_windows, int k_hint, int k_round)
{
    hyt_probe_start(p, k0, k_min, k_max, min_gain, max_windows);
    hyt_probe_hint(p, k_hint);
    hyt_probe_round_hint(p, k_round);
    if (c->best < 0 || c->best_t < 0 || p->k_next != k0)
        return p->k_next; /* nothing measured at k0 itself: the probe measures it */
    double sp[HYT_CHOICE_MAX * 2];
    memcpy(sp, c->spread, (size_t)c->windows * sizeof sp[0]);
    return hyt_probe_feed_noisy(p, c->best_t, hyt_probe_median(sp, c->windows));
}

int hyt_choice_doubted(int n, const double *pred, double min_gain)
{
    if (!pred || n < 2 || !(pred[0] > 0))
        return 0;
    for (int i = 1; i < n && i < HYT_CHOICE_MAX; i++)
        if (pred[i] > 0 && pred[i] < pred[0] * (1 - min_gain))
            return 1;
    return 0;
}

int hyt_choice_incumbent(int n, const double *pred, double min_gain)
{
    if (!hyt_choice_doubted(n, pred, min_gain))
        return 0;
    int best = 0;
    for (int i = 1; i < n && i < HYT_CHOICE_MAX; i++)
        if (pred[i] > 0 && pred[i] < pred[best])
            best = i;
    return best;
}

int hyt_choice_rotation_back(double settled, double best, double guard)
{
    return settled > 0 && best > 0 && best < settled * (1 - guard);
}

double hyt_choice_reopen_time(double level, double t, double first)
{
    if (first > 0 && t > 0)
        return 0.5 * (first + t);
    return level > 0 ? level : t;
}
