/* Statistics on a signal (HYTUNE_STATS_SIGNALS, default TERM,USR1): a job
 * killed at its time limit (Slurm sends SIGTERM, or a signal chosen with
 * --signal, some time before SIGKILL) keeps its statistics, written
 * atomically as at MPI_Finalize.
 *
 * A signal handler may only call async-signal-safe functions, and writing
 * the report needs malloc, stdio and json-c.  So the handler does no
 * formatting: it writes one byte to a pipe and waits (poll on a second pipe,
 * at most HYT_SIGNAL_WAIT_S seconds) while a helper thread, started at
 * MPI_Init and blocked in read(2) until then, writes the statistics with
 * the same code as MPI_Finalize.  Then the handler lets the signal take the
 * course it would have taken without hytune: the handler installed before
 * MPI_Init is called, an ignored signal stays ignored, and a default action
 * is re-raised with the default disposition (the process ends by the same
 * signal, with the same exit status).  The helper thread blocks every signal
 * and makes no MPI call.
 *
 * Limits, said plainly:
 * - The handler runs in the thread that called MPI_Init (a signal another
 *   thread receives is passed on to it with pthread_kill).  While it waits
 *   that thread is stopped, so in a program that calls MPI from one thread
 *   the counters are a consistent snapshot; other application threads go
 *   on, their counters are read as they are.
 * - If the interrupted thread held a lock the report needs (hytune's context
 *   list while creating a context, the malloc arena, stderr's lock for
 *   HYTUNE_STATS=stderr), the helper blocks: the handler gives up after
 *   HYT_SIGNAL_WAIT_S seconds and the signal takes its course without
 *   statistics.  The previous statistics file, if any, is left whole.
 * - A handler the application installs after MPI_Init replaces hytune's.
 * - SIGKILL cannot be caught: only a signal before it helps.
 * - Under SimGrid all ranks share one process; nothing is installed there. */
#include "hyt.h"

#ifndef HYT_SMPI
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define HYT_SIGNAL_WAIT_S 10
#define NSIG_MAX 32

void hyt_stats_dump(void);

static struct sigaction previous[NSIG_MAX];
static unsigned installed;          /* bit per signal whose handler is ours */
static int req_pipe[2] = {-1, -1};  /* handler -> helper */
static int ack_pipe[2] = {-1, -1};  /* helper -> handler */
static pthread_t helper;
static int helper_running;
static volatile sig_atomic_t dumping; /* a handler is waiting for the helper */
static pthread_t mpi_thread;          /* the thread that called MPI_Init */

static void *helper_main(void *arg)
{
    (void)arg;
    unsigned char b;
    for (;;) {
        ssize_t n = read(req_pipe[0], &b, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the write end closed: MPI_Finalize */
        hyt_stats_dump();
        while (write(ack_pipe[1], &b, 1) < 0 && errno == EINTR)
            ;
    }
    return NULL;
}

/* Continue as without hytune (async-signal-safe calls only). */
static void chain(int sig, siginfo_t *info, void *uctx)
{
    const struct sigaction *p = &previous[sig];
    if (p->sa_flags & SA_SIGINFO) {
        if (p->sa_sigaction)
            p->sa_sigaction(sig, info, uctx);
    } else if (p->sa_handler == SIG_IGN) {
        return;
    } else if (p->sa_handler == SIG_DFL) {
        /* the signal is blocked while this handler runs: the default action
         * happens as soon as it returns */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        raise(sig);
    } else {
        p->sa_handler(sig);
    }
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    if (!pthread_equal(pthread_self(), mpi_thread)) {
        /* a process-directed signal can land in any thread that does not
         * block it (the MPI library's own threads too): hand it to the
         * thread that called MPI_Init, which stops while its counters are
         * written; left running, it could end the process from inside MPI
         * when another rank dies first */
        pthread_kill(mpi_thread, sig);
        errno = saved;
        return;
    }
    if (!dumping && req_pipe[1] >= 0) {
        dumping = 1;
        unsigned char b = (unsigned char)sig;
        /* an acknowledgement a timed-out wait left behind is not this dump's */
        while (read(ack_pipe[0], &b, 1) == 1)
            ;
        if (write(req_pipe[1], &b, 1) == 1) {
            struct pollfd pf = {.fd = ack_pipe[0], .events = POLLIN};
            for (int slice = 0; slice < HYT_SIGNAL_WAIT_S * 10; slice++)
                if (poll(&pf, 1, 100) > 0 && read(ack_pipe[0], &b, 1) == 1)
                    break;
        }
        dumping = 0;
    }
    chain(sig, info, uctx);
    errno = saved;
}

static int make_pipe(int fd[2])
{
    if (pipe(fd) != 0)
        return -1;
    for (int i = 0; i < 2; i++)
        fcntl(fd[i], F_SETFD, FD_CLOEXEC);
    return 0;
}

void hyt_stats_signals_init(void)
{
    unsigned mask = hyt_cfg.stats_signals;
    if (!hyt_cfg.stats || !mask || helper_running)
        return;
    if (make_pipe(req_pipe) != 0 || make_pipe(ack_pipe) != 0 ||
        fcntl(ack_pipe[0], F_SETFL, O_NONBLOCK) != 0) {
        hyt_warn(HYT_TOPIC_CORE, "HYTUNE_STATS_SIGNALS: no pipe (%s); statistics are written at "
                 "MPI_Finalize only", strerror(errno));
        goto fail;
    }
    /* the helper takes no signal: they go to the application's threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    int rc = pthread_create(&helper, &attr, helper_main, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        hyt_warn(HYT_TOPIC_CORE, "HYTUNE_STATS_SIGNALS: no helper thread (%s); statistics are "
                 "written at MPI_Finalize only", strerror(rc));
        goto fail;
    }
    helper_running = 1;
    mpi_thread = pthread_self();
    /* while one of them is handled the others wait: a TERM during a USR1
     * dump comes after it, not in the middle */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG_MAX; sig++)
        if (mask & 1u << sig)
            sigaddset(&sa.sa_mask, sig);
    for (int sig = 1; sig < NSIG_MAX; sig++)
        if ((mask & 1u << sig) && sigaction(sig, &sa, &previous[sig]) == 0)
            installed |= 1u << sig;
    return;
fail:
    for (int i = 0; i < 2; i++) {
        if (req_pipe[i] >= 0)
            close(req_pipe[i]);
        if (ack_pipe[i] >= 0)
            close(ack_pipe[i]);
        req_pipe[i] = ack_pipe[i] = -1;
    }
}

/* At MPI_Finalize, before its own statistics dump: the previous handlers
 * back, the helper stopped. */
void hyt_stats_signals_finalize(void)
{
    for (int sig = 1; sig < NSIG_MAX; sig++)
        if (installed & 1u << sig)
            sigaction(sig, &previous[sig], NULL);
    installed = 0;
    if (!helper_running)
        return;
    close(req_pipe[1]);
    req_pipe[1] = -1;
    pthread_join(helper, NULL);
    helper_running = 0;
    close(req_pipe[0]);
    close(ack_pipe[0]);
    close(ack_pipe[1]);
    req_pipe[0] = ack_pipe[0] = ack_pipe[1] = -1;
}

#else

void hyt_stats_signals_init(void)
{
}

void hyt_stats_signals_finalize(void)
{
}

#endif
