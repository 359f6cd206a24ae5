/* src/lock/worker.c — generation worker processes (docs/DESIGN.md §3): the
 * single-threaded supervisor forks one child per running group after the
 * work function (cache / dataset) is built; each child runs its group's
 * chain and reports fixed-size, MAC'd messages over a pipe.  The parent
 * polls, aggregates progress, enforces a silence deadline, reaps children,
 * re-runs a failed group up to `retries` times, and otherwise fails. */
#include "tl_internal.h"
#include "util/util.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG_MAGIC   0x4d575852u   /* "RXWM" */
#define MSG_PROGRESS 1u
#define MSG_RESULT   2u
#define MSG_SIZE     72           /* < PIPE_BUF: written atomically */

typedef struct {
    pid_t pid;
    int fd;
    uint32_t g;
    uint64_t done;
    double last;
    int have_result;
    size_t fill;
    uint8_t buf[MSG_SIZE];
} slot;

static void msg_make(uint8_t m[MSG_SIZE], const uint8_t mk[32], uint32_t type, uint32_t g,
                     uint64_t steps, const uint8_t *d) {
    memset(m, 0, MSG_SIZE);
    tl_put32(m, MSG_MAGIC);
    tl_put32(m + 4, type);
    tl_put32(m + 8, g);
    tl_put64(m + 16, steps);
    if (d) memcpy(m + 24, d, 32);
    crypto_generichash(m + 56, 16, m, 56, mk, 32);
}

#ifdef RXLOCK_TESTING
/* Test-only fault injection: RXLOCK_TEST_WORKER_FAULT=KIND:G[:all] with
 * KIND crash | hang | garbage, honoured only in the insecure test mode. */
static int fault_for(uint32_t g, unsigned attempt, char kind[16]) {
    const char *f = getenv("RXLOCK_TEST_WORKER_FAULT");
    if (!f || !tl_test_mode()) return 0;
    unsigned fg = 0;
    char all[8] = "";
    if (sscanf(f, "%15[a-z]:%u:%7s", kind, &fg, all) < 2) return 0;
    return fg == g && (attempt == 0 || !strcmp(all, "all"));
}
#else
static int fault_for(uint32_t g, unsigned attempt, char kind[16]) {
    (void)g; (void)attempt; (void)kind;
    return 0;
}
#endif

static void child_main(tl_work *w, uint32_t g, uint64_t S, uint8_t seed[32], int fd,
                       const uint8_t mk[32], unsigned attempt, void *secrets, size_t secrets_len) {
    uint8_t d[32], m[MSG_SIZE], key[32];
    char kind[16] = "";
    int rc = 0, fault = fault_for(g, attempt, kind);
    memcpy(d, seed, 32);
    sodium_memzero(seed, 32);               /* the caller's copy: child_main never returns */
    memcpy(key, mk, 32);
    sodium_memzero(secrets, secrets_len);   /* this child needs only its own seed */
    uint64_t i = 0, batch = 1;
    double last = tl_now();
    while (i < S && rc == 0) {
        uint64_t n = S - i < batch ? S - i : batch;
        double t0 = tl_now();
        rc = tl_work_steps(w, g, i, n, d);
        i += n;
        double t1 = tl_now();
        if (t1 - t0 < 0.02 && batch < (1u << 22)) batch *= 2;
        if (fault && i >= S / 2) {
            if (!strcmp(kind, "crash")) abort();
            if (!strcmp(kind, "hang")) for (;;) pause();
            if (!strcmp(kind, "garbage")) {
                memset(m, 0x41, sizeof m);
                (void)!write(fd, m, sizeof m);
                fault = 0;
            }
        }
        if (t1 - last >= 0.25 && i < S) {
            msg_make(m, key, MSG_PROGRESS, g, i, NULL);
            if (write(fd, m, sizeof m) != (ssize_t)sizeof m) rc = -1;
            last = t1;
        }
    }
    if (rc == 0) {
        msg_make(m, key, MSG_RESULT, g, S, d);
        if (write(fd, m, sizeof m) != (ssize_t)sizeof m) rc = -1;
    }
    sodium_memzero(d, sizeof d);
    sodium_memzero(m, sizeof m);
    sodium_memzero(key, sizeof key);
    tl_work_free_vm(w);
    close(fd);
    _exit(rc == 0 ? 0 : 1);
}

void tl_event_emit(const tl_gen_opts *o, tl_event_kind kind, uint32_t group, double seconds,
                   const char *fmt, ...) {
    if (!o || !o->event) return;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tl_event ev = { .kind = kind, .group = group, .seconds = seconds, .message = msg };
    o->event(&ev, o->event_ctx);
}

static void kill_slot(slot *s) {
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (s->fd >= 0) close(s->fd);
    s->pid = -1;
    s->fd = -1;
}

int tl_run_workers(tl_work *w, uint32_t G, uint64_t S, uint8_t (*seeds)[32], uint8_t (*e)[32],
                   void *secrets, size_t secrets_len, const tl_gen_opts *o);
int tl_run_workers(tl_work *w, uint32_t G, uint64_t S, uint8_t (*seeds)[32], uint8_t (*e)[32],
                   void *secrets, size_t secrets_len, const tl_gen_opts *o) {
    unsigned nw = o && o->workers ? o->workers : util_cpus_usable();
    if (nw < 1) nw = 1;
    if (nw > G) nw = G;
    if (nw > 1024) nw = 1024;
    double timeout = o && o->worker_timeout ? o->worker_timeout : 120;
    double pint = o && o->progress_interval > 0 ? o->progress_interval : 0.5;
    unsigned retries = o ? o->retries : 0;
    slot *sl = calloc(nw, sizeof *sl);
    struct pollfd *pf = calloc(nw, sizeof *pf);
    unsigned *attempts = calloc(G, sizeof *attempts);
    uint32_t *queue = calloc(G + (size_t)G * retries + 1, sizeof *queue);
    uint8_t mk[32];
    if (!sl || !pf || !attempts || !queue) { free(sl); free(pf); free(attempts); free(queue); return TL_ENOMEM; }
    if (tl_random(mk, sizeof mk, "ipc-mac", 0) != 0) { free(sl); free(pf); free(attempts); free(queue); return TL_ERANDOM; }
    for (unsigned k = 0; k < nw; k++) { sl[k].pid = -1; sl[k].fd = -1; }
    size_t qh = 0, qt = 0;
    for (uint32_t g = 1; g <= G; g++) queue[qt++] = g;
    uint32_t finished = 0;
    uint64_t done_finished = 0;
    double t_start = tl_now(), t_prog = t_start;
    int rc = TL_OK;
    while (finished < G && rc == TL_OK) {
        /* Spawn into free slots. */
        for (unsigned k = 0; k < nw && qh < qt; k++) {
            if (sl[k].pid > 0) continue;
            uint32_t g = queue[qh++];
            int p[2];
            if (pipe(p) != 0) { rc = TL_EWORKER; break; }
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) { close(p[0]); close(p[1]); rc = TL_EWORKER; break; }
            if (pid == 0) {
                close(p[0]);
                for (unsigned j = 0; j < nw; j++) if (sl[j].fd >= 0) close(sl[j].fd);
                signal(SIGINT, SIG_DFL);
                signal(SIGTERM, SIG_DFL);
                signal(SIGPIPE, SIG_DFL);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() == 1) _exit(1);
                uint8_t seed[32];
                memcpy(seed, seeds[g - 1], 32);
                child_main(w, g, S, seed, p[1], mk, attempts[g - 1], secrets, secrets_len);
            }
            close(p[1]);
            sl[k] = (slot){ .pid = pid, .fd = p[0], .g = g, .last = tl_now() };
            attempts[g - 1]++;
        }
        if (rc) break;
        unsigned np = 0;
        for (unsigned k = 0; k < nw; k++)
            if (sl[k].pid > 0) { pf[np].fd = sl[k].fd; pf[np].events = POLLIN; pf[np].revents = 0; np++; }
        int pr = poll(pf, np, 100);
        if (pr < 0 && errno != EINTR) { rc = TL_EWORKER; break; }
        double now = tl_now();
        for (unsigned k = 0, q = 0; k < nw; k++) {
            slot *s = &sl[k];
            if (s->pid <= 0) continue;
            short rev = pr > 0 ? pf[q].revents : 0;
            q++;
            int failed = 0, eof = 0;
            if (rev & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t r = read(s->fd, s->buf + s->fill, MSG_SIZE - s->fill);
                if (r < 0 && errno != EINTR && errno != EAGAIN) failed = 1;
                else if (r == 0) eof = 1;
                else if (r > 0) {
                    s->fill += (size_t)r;
                    s->last = now;
                    if (s->fill == MSG_SIZE) {
                        uint8_t mac[16];
                        s->fill = 0;
                        crypto_generichash(mac, 16, s->buf, 56, mk, 32);
                        uint32_t type = tl_get32(s->buf + 4);
                        uint64_t steps = tl_get64(s->buf + 16);
                        if (sodium_memcmp(mac, s->buf + 56, 16) != 0 || tl_get32(s->buf) != MSG_MAGIC ||
                            tl_get32(s->buf + 8) != s->g || s->have_result ||
                            steps < s->done || steps > S) failed = 1;
                        else if (type == MSG_PROGRESS && steps < S) s->done = steps;
                        else if (type == MSG_RESULT && steps == S) {
                            memcpy(e[s->g - 1], s->buf + 24, 32);
                            s->done = S;
                            s->have_result = 1;
                        } else failed = 1;
                        sodium_memzero(s->buf, sizeof s->buf);
                    }
                }
            }
            if (eof) {
                int st = 0;
                pid_t wr;
                while ((wr = waitpid(s->pid, &st, 0)) < 0 && errno == EINTR) {}
                s->pid = -1;
                close(s->fd);
                s->fd = -1;
                if (wr > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && s->have_result && s->fill == 0) {
                    finished++;
                    done_finished += S;
                    continue;
                }
                failed = 1;
            }
            if (!failed && now - s->last > timeout) {
                tl_event_emit(o, TL_EVENT_WORKER_HUNG, s->g, now - s->last,
                              "worker for group %u silent for %.0f s: killing it", s->g, now - s->last);
                failed = 1;
            }
            if (failed) {
                uint32_t g = s->g;
                kill_slot(s);
                if (s->have_result) sodium_memzero(e[g - 1], 32);
                if (attempts[g - 1] <= retries) {
                    tl_event_emit(o, TL_EVENT_WORKER_RETRY, g, 0, "worker for group %u failed; re-running the group", g);
                    queue[qt++] = g;
                } else {
                    tl_event_emit(o, TL_EVENT_WORKER_FAILED, g, 0, "worker for group %u failed", g);
                    rc = TL_EWORKER;
                }
                *s = (slot){ .pid = -1, .fd = -1 };
            }
        }
        if (o && o->stop && *o->stop) rc = TL_EINTR;
        if (rc == TL_OK && o && o->progress && (now - t_prog >= pint || finished == G)) {
            t_prog = now;
            tl_progress p = {0};
            p.hashes_total = (uint64_t)G * S;
            p.hashes_done = done_finished;
            for (unsigned k = 0; k < nw; k++) if (sl[k].pid > 0) p.hashes_done += sl[k].done;
            p.rate = now > t_start ? (double)p.hashes_done / (now - t_start) : 0;
            p.eta_seconds = p.rate > 0 ? (double)(p.hashes_total - p.hashes_done) / p.rate : -1;
            p.groups_done = finished;
            p.groups_total = G;
            if (o->progress(&p, o->progress_ctx)) rc = TL_EINTR;
        }
    }
    for (unsigned k = 0; k < nw; k++) if (sl[k].pid > 0 || sl[k].fd >= 0) kill_slot(&sl[k]);
    sodium_memzero(mk, sizeof mk);
    for (unsigned k = 0; k < nw; k++) sodium_memzero(sl[k].buf, sizeof sl[k].buf);
    free(sl); free(pf); free(attempts); free(queue);
    return rc;
}
