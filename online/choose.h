/* Choosing among a rule's shortlist as a pure decision function
 * (online/choose.c).
 *
 * Like online/probe.h, the machine sees only global (rank-agreed) window
 * times, so every rank that feeds it the same values takes the same
 * decisions.  No MPI, no clock, no allocation: unit-tested in
 * test/unit/test_online_choose.c. */
#ifndef HYT_ONLINE_CHOOSE_H
#define HYT_ONLINE_CHOOSE_H

#include "online/probe.h"

#define HYT_CHOICE_MAX 8

typedef enum {
    HYT_CAND_PENDING,     /* not measured yet */
    HYT_CAND_MEASURED,    /* its window time is in t[] */
    HYT_CAND_UNSUPPORTED, /* its window's calls went to PMPI (the same on every rank) */
    HYT_CAND_SKIPPED,     /* the prediction says it cannot win by the guard: not measured */
    HYT_CAND_SETUP,       /* its run would make communicators the key's calls have not
                           * repaid yet (hyt_choice_setup): not measured */
} hyt_cand_status_t;

typedef struct hyt_choice {
    int n;                      /* candidates; 0 is the rule's own choice */
    double pred[HYT_CHOICE_MAX];/* predicted times (any unit; < 0: unknown) */
    double sd[HYT_CHOICE_MAX];  /* their deviations (< 0: unknown) */
    double t[HYT_CHOICE_MAX];   /* measured global window times */
    hyt_cand_status_t status[HYT_CHOICE_MAX];
    int order[HYT_CHOICE_MAX];  /* measuring order */
    int pos;                    /* order[pos] is being measured */
    int next;                   /* candidate to measure next; -1: done */
    int best;                   /* -1: none supported so far */
    double best_t;
    double min_gain, guard;     /* as in hyt_probe_t */
    double spread[HYT_CHOICE_MAX * 2];
    int windows;
    /* A candidate's radix headroom (hyt_choice_steps): step[i] > 0 is the
     * radix its radix probe would measure first (0: none to move); a
     * challenger is then seen at both radixes before it loses. */
    int step[HYT_CHOICE_MAX];
    double t_step[HYT_CHOICE_MAX]; /* its window there (< 0: none) */
    int stepped[HYT_CHOICE_MAX];   /* its step won by the guard: its time is t_step[]
                                    * (t[] stays its window at its k) */
    int stepping;                  /* c->next's window runs step[c->next] */
    /* The set-up gate (hyt_choice_setup): setup[i] > 0 is what running
     * candidate i first would cost (the communicators it makes, in the
     * unit of t[]); calls is the key's calls so far (kept current by the
     * caller before each feed). */
    double setup[HYT_CHOICE_MAX];
    double setup_mult;
    double calls;
} hyt_choice_t;

/* Start a choice among n candidates (n is clamped to HYT_CHOICE_MAX; pred
 * and sd may be NULL).  The rule's own choice (0) is measured first: it is
 * the incumbent, which another candidate must beat by the guard (min_gain,
 * or HYT_PROBE_NOISE_MULT x the median window spread when that is larger);
 * the others follow by predicted time (unknown last, ties by index).  With
 * n == 1 the choice is made at once (next = -1, best = 0, no window). */
void hyt_choice_start(hyt_choice_t *c, int n, const double *pred, const double *sd,
                      double min_gain);
/* Feed the global time t (relative spread s) of the window run with
 * candidate c->next; returns the next candidate to measure, or -1 when the
 * choice is made (c->best, c->best_t).  After each window the candidates
 * not measured yet whose optimistic estimate cannot beat the best by the
 * guard are skipped: estimate = (pred - 2 sd) x the lowest measured/predicted
 * ratio so far (the model's bias on this machine, taken in the candidate's
 * favour), sd at least guard x pred (a candidate predicted to tie the best
 * is measured); a candidate without a prediction is always measured. */
int hyt_choice_feed(hyt_choice_t *c, double t, double s);
/* Radix headroom.  A candidate's prediction and its window are at one
 * radix, but the one that wins is probed over its radixes after the choice,
 * so a family judged at one radix can lose a choice it would win at its
 * next (fattree-64 Reduce 64 KiB: composition:2 6% slower than k-nomial
 * k 4 over the loop, composition:4 13% faster).  With step[i] > 0 (the
 * radix candidate i's probe would measure first from its k,
 * hyt_choice_first_step; 0: no radix to move) set right after
 * hyt_choice_start:
 * - such a candidate is skipped on its prediction only when even that
 *   headroom cannot make it win: its estimate (above) over
 *   1 + HYT_CHOICE_HEADROOM is not below the best by the guard; and since
 *   predictions are at the table's radixes, the best they are held
 *   against is its window at its own k (the gain of its step is headroom
 *   the others' predictions do not see either);
 * - a challenger (not the incumbent, whose radix is probed if it stays)
 *   whose window is within 1 + HYT_CHOICE_HEADROOM of the best also runs
 *   one window at step[i] (c->stepping while it is c->next's); its time
 *   is the better of the two (the step taken only if it wins by the
 *   guard, c->stepped[i]), and it is compared with the best by the guard
 *   as before.  HYT_CHOICE_HEADROOM is the radix probe's own bound on a
 *   losing step worth looking past (online/probe.c, BUMP).
 * The winner's radix probe then starts at its better radix. */
#define HYT_CHOICE_HEADROOM 0.5
void hyt_choice_steps(hyt_choice_t *c, const int *step);
/* The set-up gate.  A candidate whose first run makes communicators (a
 * composition's node and leader communicators, when the communicator has
 * none yet) buys them on the first call of its window, whether it wins or
 * not, and windows time calls, not that set-up.  Set right after
 * hyt_choice_start, setup[i] > 0 (in the unit of the window times; 0 or
 * less: nothing to make, or its cost unknown) gates candidate i like the
 * private duplicate's rent (docs/memory.md): it is measured only once the
 * key's calls could have repaid the set-up, i.e.
 *   calls x gain >= setup  and  calls x best >= native_mult x setup
 * where gain is its optimistic gain per call (hyt_choice_gain) and best the
 * best's window (at its own k); until then it is skipped
 * (HYT_CAND_SETUP).  The first condition is ski rental: the gains forgone
 * reach the price before it is paid; the second bounds what a purchase
 * that gains nothing costs to 1/native_mult of the key's time so far.  A
 * candidate the prediction skips stays skipped for that (HYT_CAND_SKIPPED),
 * and one whose gain cannot be priced (no prediction, no best measured) is
 * measured. */
void hyt_choice_setup(hyt_choice_t *c, const double *setup, double native_mult);
/* Candidate j's optimistic gain per call over the best so far, in the unit
 * of the window times: the best's window at its own k less j's estimate
 * (its prediction less two deviations, at least the guard, times the
 * lowest measured/predicted ratio: the skip rule's estimate, without the
 * radix headroom, which the incumbent's probe may find as well); < 0 when
 * it cannot be priced (no prediction, no best measured), 0 when it gains
 * nothing. */
double hyt_choice_gain(const hyt_choice_t *c, int j);
/* The key's calls from which the gate lets candidate j be measured (the
 * gain and best as the choice holds them now): the larger of setup / gain
 * and native_mult x setup / best; 0 for a candidate with no set-up or an
 * unpriced gain, HUGE_VAL for one that gains nothing. */
double hyt_choice_setup_calls(const hyt_choice_t *c, int j);
/* calls >= hyt_choice_setup_calls(c, j): may candidate j be measured? */
int hyt_choice_setup_repaid(const hyt_choice_t *c, int j, double calls);
/* The radix a radix probe started at k0 (with its hints) measures after
 * k0's window: doubling, else halving at k_max, or the model's far hint;
 * 0 when k0 is the only radix in range. */
int hyt_choice_first_step(int k0, int k_min, int k_max, int k_hint, int k_round);
/* The radix candidate i won the choice at: step[i] if c->stepped[i], else k. */
static inline int hyt_choice_radix(const hyt_choice_t *c, int i, int k)
{
    return i >= 0 && i < c->n && c->stepped[i] ? c->step[i] : k;
}
/* The window of c->next did not run it (every call fell back to PMPI, for a
 * reason that is the same on every rank): mark it and go on.  Returns the
 * next candidate or -1; if no candidate ran, c->best stays -1. */
int hyt_choice_unsupported(hyt_choice_t *c);
/* Does the table doubt the rule's own choice: is another candidate of the
 * n predicted faster than candidate 0 by more than min_gain (pred[0] and
 * theirs known, > 0)?  A rule can keep such a choice for a reason the
 * predictions do not hold (the native guard measured MPI's own faster at
 * the job's shape); such a key's search starts early (hyt_probe_hot_calls). */
int hyt_choice_doubted(int n, const double *pred, double min_gain);
/* The candidate a key runs before its search and keeps on a tie (the
 * choice's incumbent): the rule's own (0), or when the table doubts it
 * (hyt_choice_doubted) the candidate predicted fastest (the lowest index
 * among equal predictions).  The rule's own choice is then measured like
 * any other candidate, and the calls before the search (a rotating root's
 * reference over the whole rotation among them) run the candidate the
 * table expects to win rather than one it expects to lose by more than
 * the guard.  online.c then gives the choice the rule's own candidate
 * without its prediction (measured last, never skipped). */
int hyt_choice_incumbent(int n, const double *pred, double min_gain);
/* A rooted key whose root rotates over more calls than its windows (online.c,
 * "the whole rotation") times references over the whole rotation: one
 * before it turns hot (the incumbent), one of the choice's winner at its
 * radix when another candidate wins, one of the settled radix when the
 * first search ends elsewhere.  Windows of a few roots each, scaled by the
 * profile of another candidate or radix, can misjudge a candidate whose
 * profile over the roots differs, or, under arrival noise, read one
 * period of noisy calls whose spread reads 0 (the guard stays at its
 * floor); a reference times every root, and its mean is one sample per
 * call of the whole rotation.  Should the key go back from its settled
 * radix (its reference's mean settled) to the fastest earlier reference
 * (best)?  Only if that is faster by the guard: the search's result stands
 * on a tie. */
int hyt_choice_rotation_back(double settled, double best, double guard);
/* The incumbent's time when a settled key's choice reopens with its winner,
 * at its settled radix, as the incumbent (online.c, choice_reopen), from
 * agreed values only: level, the settled radix's time over the whole
 * rotation (its reference's mean; <= 0: the key has no reference of it),
 * t, the drift window that reopens the choice, and first, the slow window
 * a confirmed drift started with (<= 0: nothing drifted, the choice reopens
 * for a repaid set-up).
 * - A confirmed drift: the mean of its two windows (the level is stale,
 *   and two windows of the new conditions are surer than one).
 * - A set-up reopening of a key with a reference: the level.  A drift
 *   window sees one period of the root's places, a few calls scaled by the
 *   reference's profile; the reference times every root (dragonfly-64
 *   Reduce 64 KiB, k-nomial k 7: drift windows 6.03, 6.61 and 6.61 us,
 *   its reference 6.48), so a challenger is not held against one low draw.
 * - Otherwise the window (a key without a reference: its settled time is
 *   the radix probe's best window, the lowest of several, no surer). */
double hyt_choice_reopen_time(double level, double t, double first);
static inline int hyt_choice_done(const hyt_choice_t *c)
{
    return c->next < 0;
}

/* Composition with the radix probe, for a winner with a radix (a winner
 * without one, k_min == k_max, is settled as chosen): start p at the
 * winner's radix k0 with its hints (hyt_probe_hint, hyt_probe_round_hint;
 * 0: none) and feed it the winner's window time (its start window,
 * measured already).  Returns the next radix to measure (p settled: the
 * winner's k, no more windows).  The noise guard carries over: the
 * choice's median spread. */
int hyt_choice_probe_start(const hyt_choice_t *c, hyt_probe_t *p, int k0, int k_min, int k_max,
                           double min_gain, int max_windows, int k_hint, int k_round);

#endif
