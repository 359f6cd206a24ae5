/* SPDX-License-Identifier: ISC */
/* bench/bench_workers.c — W bench workers at once, as threads (released by
 * a barrier) or as forked processes (released through a pipe, each sending
 * its result back through its own pipe); see bench_workers.h. */
#include "bench_workers.h"
#include "util/util.h"
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct thread_arg { struct bench_job *job; pthread_barrier_t *bar; };

static int barrier_go(void *ctx) { pthread_barrier_wait(ctx); return 0; }
static void *thread_main(void *arg) {
    struct thread_arg *t = arg;
    t->job->run(t->job, barrier_go, t->bar, RUSAGE_THREAD);
    return NULL;
}

int bench_run_threads(struct bench_job **jobs, unsigned W, double *wall) {
    pthread_t th[BENCH_MAX_WORKERS];
    struct thread_arg ta[BENCH_MAX_WORKERS];
    pthread_barrier_t bar;
    unsigned started = 0;
    if (W > BENCH_MAX_WORKERS || pthread_barrier_init(&bar, NULL, W + 1) != 0) return -1;
    for (unsigned i = 0; i < W; i++) {
        ta[i].job = jobs[i]; ta[i].bar = &bar;
        if (pthread_create(&th[i], NULL, thread_main, &ta[i]) != 0) break;
        started++;
    }
    if (started != W) {           /* cannot release a W+1 barrier: bail out hard */
        fprintf(stderr, "bench: pthread_create failed\n");
        exit(1);
    }
    pthread_barrier_wait(&bar);
    double t0 = util_now();
    for (unsigned i = 0; i < W; i++) pthread_join(th[i], NULL);
    *wall = util_now() - t0;
    pthread_barrier_destroy(&bar);
    for (unsigned i = 0; i < W; i++) if (jobs[i]->rc) return -1;
    return 0;
}

struct pipe_go { int ready_fd, go_fd; };
static int pipe_go(void *ctx) {
    struct pipe_go *p = ctx;
    char c = 'R';
    if (write(p->ready_fd, &c, 1) != 1) return -1;
    ssize_t k;
    do k = read(p->go_fd, &c, 1); while (k < 0 && errno == EINTR);
    return k == 1 ? 0 : -1;
}

static int read_full(int fd, void *buf, size_t len) {
    uint8_t *p = buf;
    while (len) {
        ssize_t k = read(fd, p, len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k; len -= (size_t)k;
    }
    return 0;
}

/* The supervisor is single-threaded here (dataset threads are joined).
 * A child sends its rc, then its result bytes. */
int bench_run_procs(struct bench_job **jobs, unsigned W, double *wall) {
    int gofd[2], res[BENCH_MAX_WORKERS][2];
    pid_t pid[BENCH_MAX_WORKERS];
    unsigned started = 0;
    int ok = 0;
    if (W > BENCH_MAX_WORKERS || pipe(gofd) != 0) return -1;
    fflush(NULL);
    for (unsigned i = 0; i < W; i++) {
        if (pipe(res[i]) != 0) break;
        pid[i] = fork();
        if (pid[i] < 0) { close(res[i][0]); close(res[i][1]); break; }
        if (pid[i] == 0) {
            close(gofd[1]);
            close(res[i][0]);
            struct pipe_go pg = { res[i][1], gofd[0] };
            jobs[i]->run(jobs[i], pipe_go, &pg, RUSAGE_SELF);
            int rc = jobs[i]->rc;
            _exit(util_write_all(res[i][1], &rc, sizeof rc) == 0 &&
                  util_write_all(res[i][1], jobs[i]->result, jobs[i]->result_size) == 0 && rc == 0 ? 0 : 1);
        }
        close(res[i][1]);
        started++;
    }
    close(gofd[0]);
    if (started == W) {
        ok = 1;
        for (unsigned i = 0; i < W; i++) {
            char c;
            if (read_full(res[i][0], &c, 1) || c != 'R') ok = 0;
        }
    }
    double t0 = util_now();
    if (ok) {
        char go[BENCH_MAX_WORKERS];
        memset(go, 'G', W);
        if (util_write_all(gofd[1], go, W) != 0) ok = 0;
    }
    close(gofd[1]);             /* unstarted / waiting children see EOF */
    for (unsigned i = 0; i < started; i++) {
        int rc = -1;
        if (!ok || read_full(res[i][0], &rc, sizeof rc) != 0 ||
            read_full(res[i][0], jobs[i]->result, jobs[i]->result_size) != 0) {
            rc = -1;
            ok = 0;
        }
        jobs[i]->rc = rc;
        if (rc) ok = 0;
    }
    *wall = util_now() - t0;
    for (unsigned i = 0; i < started; i++) {
        int st;
        close(res[i][0]);
        while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR) {}
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ok = 0;
    }
    return ok ? 0 : -1;
}
