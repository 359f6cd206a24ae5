/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/cluster_sched.c — what `beacon run --cluster` asks the
 * cluster's own tools, each command bounded in time (a scheduler command
 * that hangs is killed and reported, never waited on forever) and its
 * output bounded: Slurm (sbatch of the plan's generated array job and,
 * for a verified plan, its verification array after it with
 * --dependency=afterok; squeue for the jobs' state and to find a job by
 * its name after a kill; scancel), Kubernetes (kubectl: the worker key's
 * Secret, apply of the Indexed Job and then of the verification Job, get
 * for their state and whether a pod started, delete before a
 * resubmission).  No decision is made and nothing is logged here: a failed
 * command's words are kept (bcn_sched_error) for cluster_epoch.c, which
 * decides from these answers and the plan's results and says each fault
 * once with its way out. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMD_MAX_ARGS 24

/* Run argv (PATH searched) for at most `timeout` seconds with stdin from
 * /dev/null, stdout + stderr into out (NUL-terminated, truncated to cap).
 * Returns its exit status, or -1 when it could not start, -2 when it was
 * killed at the timeout, -3 when it died on a signal. */
int bcn_exec(const char *const *argv, double timeout, char *out, size_t cap) {
    int pfd[2];
    out[0] = 0;
    if (pipe2(pfd, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); return -1; }
    if (pid == 0) {
        setpgid(0, 0);   /* its own group: a timeout kills what it started too */
        int nul = open("/dev/null", O_RDONLY);
        if (nul < 0 || dup2(nul, 0) < 0 || dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0) _exit(127);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);
    close(pfd[1]);
    size_t n = 0;
    double end = util_now() + timeout;
    int timed_out = 0;
    for (;;) {
        double left = end - util_now();
        if (left <= 0) { timed_out = 1; break; }
        struct pollfd p = { pfd[0], POLLIN, 0 };
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        char buf[1024];
        ssize_t k = read(pfd[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        size_t take = (size_t)k < cap - 1 - n ? (size_t)k : cap - 1 - n;
        memcpy(out + n, buf, take);
        n += take;
    }
    close(pfd[0]);
    out[n] = 0;
    if (timed_out) kill(-pid, SIGKILL);
    int st = 0;
    if (!timed_out) {   /* the output closed: give it the rest of the time to exit */
        while (util_now() < end) {
            pid_t w = waitpid(pid, &st, WNOHANG);
            if (w == pid) goto reaped;
            if (w < 0 && errno != EINTR) return -1;
            usleep(20000);
        }
        timed_out = 1;
        kill(-pid, SIGKILL);
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (timed_out) return -2;
reaped:
    if (WIFEXITED(st)) return WEXITSTATUS(st) == 127 && n == 0 ? -1 : WEXITSTATUS(st);
    return -3;
}

/* The first line of out, for a log line (at most 200 characters). */
void bcn_exec_line(const char *out, char line[208]) {
    size_t k = 0;
    while (out[k] && out[k] != '\n' && k < 200) { line[k] = (char)(out[k] >= ' ' && out[k] < 127 ? out[k] : '?'); k++; }
    line[k] = 0;
    if (!k) snprintf(line, 208, "(no output)");
}

/* What the last failed command said, for the caller's one log line with
 * the way out (bcn_sched_error); nothing is logged here. */
static char sched_err[320];

const char *bcn_sched_error(void) { return sched_err[0] ? sched_err : "no answer"; }

static int say_fail(const char *what, int rc, const char *out) {
    char line[208];
    bcn_exec_line(out, line);
    if (rc == -1) snprintf(sched_err, sizeof sched_err, "%s: could not run it (not installed or not on PATH?)", what);
    else if (rc == -2)
        snprintf(sched_err, sizeof sched_err, "%s: no answer within the time limit: killed (the scheduler hangs?)", what);
    else snprintf(sched_err, sizeof sched_err, "%s failed (%s%d): %s", what, rc == -3 ? "signal, " : "exit ", rc, line);
    return -1;
}

/* 1 when a reason a job waits for (squeue's %r; a pod's) needs an operator:
 * held, a partition down or inactive, an account, QOS or constraint the
 * cluster refuses, a dependency never satisfied, an image not pulled. */
int bcn_sched_needs_operator(const char *why) {
    static const char *const stuck[] = { "Held", "held", "PartitionDown", "PartitionInactive", "PartitionNodeLimit",
                                         "PartitionTimeLimit", "Invalid", "NotAllowed", "NeverSatisfied",
                                         "BadConstraints", "ImagePull", "ErrImage", "CreateContainerConfigError" };
    for (size_t k = 0; k < sizeof stuck / sizeof stuck[0]; k++)
        if (strstr(why, stuck[k])) return 1;
    return 0;
}

/* ---- Slurm -------------------------------------------------------------- */
static int parse_jobid(const char *out, char id[32]) {
    size_t k = 0;
    while (out[k] >= '0' && out[k] <= '9' && k < 31) { id[k] = out[k]; k++; }
    id[k] = 0;
    return k ? 0 : -1;
}

int bcn_slurm_submit(const char *plan_dir, const char *name, int verifies, double timeout, char jobs[2][32]) {
    char out[4096], chdir_opt[PATH_MAX + 16], name_opt[128], dep[64], script[PATH_MAX + 32];
    snprintf(chdir_opt, sizeof chdir_opt, "--chdir=%s", plan_dir);
    snprintf(name_opt, sizeof name_opt, "--job-name=%s", name);
    snprintf(script, sizeof script, "%s/slurm.sbatch", plan_dir);
    jobs[0][0] = jobs[1][0] = 0;
    const char *a1[] = { "sbatch", "--parsable", name_opt, chdir_opt, script, NULL };
    int rc = bcn_exec(a1, timeout, out, sizeof out);
    if (rc != 0 || parse_jobid(out, jobs[0])) return say_fail("sbatch slurm.sbatch", rc ? rc : 1, out);
    if (!verifies) return 0;
    snprintf(dep, sizeof dep, "--dependency=afterok:%s", jobs[0]);
    snprintf(script, sizeof script, "%s/slurm-verify.sbatch", plan_dir);
    const char *a2[] = { "sbatch", "--parsable", name_opt, chdir_opt, dep, "--kill-on-invalid-dep=yes", script, NULL };
    rc = bcn_exec(a2, timeout, out, sizeof out);
    if (rc != 0 || parse_jobid(out, jobs[1])) {
        say_fail("sbatch slurm-verify.sbatch", rc ? rc : 1, out);
        jobs[1][0] = 0;
        bcn_slurm_cancel((const char (*)[32])jobs, timeout);   /* no half submission: the next one submits both */
        jobs[0][0] = 0;
        return -1;
    }
    return 0;
}

/* 1 while a job of the list is pending or running, 0 when none is (done,
 * failed, cancelled, forgotten by the controller, or an id that now names
 * another job than `name`), -1 when squeue did not answer (nothing is
 * known: the caller waits).  When every task of the group job (jobs[0])
 * is still pending, why gets squeue's reason and *which 0; once the group
 * job is gone, the same of the verification job (*which 1); else "". */
int bcn_slurm_active(const char jobs[2][32], const char *name, double timeout, char *why, size_t cap, int *which) {
    char out[8192], list[80];
    why[0] = 0;
    snprintf(list, sizeof list, "%s%s%s", jobs[0], jobs[1][0] ? "," : "", jobs[1]);
    if (!list[0]) return 0;
    const char *a[] = { "squeue", "-h", "-j", list, "-o", "%F %T %j %r", NULL };
    int rc = bcn_exec(a, timeout, out, sizeof out);
    if (rc != 0) {
        if (strstr(out, "Invalid job id")) return 0;   /* purged: finished long ago, or lost */
        return say_fail("squeue", rc, out);
    }
    static const char *const live[] = { "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUE",
                                        "RESIZING", "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD" };
    int any = 0, n[2] = { 0, 0 }, pending[2] = { 0, 0 };
    char reason[2][208] = { "", "" };
    *which = 0;
    for (char *p = out; *p;) {   /* each line: ARRAY_JOB_ID STATE NAME REASON */
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        char id[32], state[32], nm[128];
        int off = 0;
        if (sscanf(p, "%31s %31s %127s %n", id, state, nm, &off) >= 3 && (!name[0] || !strcmp(nm, name))) {
            for (size_t k = 0; k < sizeof live / sizeof live[0]; k++)
                if (!strcmp(state, live[k])) any = 1;
            int k = !strcmp(id, jobs[0]) ? 0 : jobs[1][0] && !strcmp(id, jobs[1]) ? 1 : -1;
            if (k >= 0) {
                n[k]++;
                if (!strcmp(state, "PENDING") && !pending[k]++) bcn_exec_line(off > 0 ? p + off : "", reason[k]);
            }
        }
        if (!nl) break;
        p = nl + 1;
    }
    int k = n[0] ? 0 : 1;
    if (any && n[k] && pending[k] == n[k]) {
        snprintf(why, cap, "%s", reason[k]);
        *which = k;
    }
    return any;
}

/* The ids of live jobs named `name` (after a kill between sbatch and the
 * state record): 0 and jobs (group job first) when found, 1 none, -1 no answer. */
int bcn_slurm_find(const char *name, double timeout, char jobs[2][32]) {
    char out[8192], nm[128];
    snprintf(nm, sizeof nm, "--name=%s", name);
    const char *a[] = { "squeue", "-h", nm, "-o", "%A %F", NULL };
    int rc = bcn_exec(a, timeout, out, sizeof out);
    if (rc != 0) return say_fail("squeue --name", rc, out);
    jobs[0][0] = jobs[1][0] = 0;
    /* each line: JOBID ARRAY_JOB_ID; the array job ids in order of submission */
    unsigned long ids[2] = { 0, 0 };
    for (char *p = out; *p;) {
        unsigned long a1 = 0, f = 0;
        if (sscanf(p, "%lu %lu", &a1, &f) == 2 && f) {
            if (!ids[0] || f == ids[0]) ids[0] = f;
            else if (!ids[1] || f == ids[1]) ids[1] = f;
        }
        char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    if (!ids[0]) return 1;
    if (ids[1] && ids[1] < ids[0]) { unsigned long t = ids[0]; ids[0] = ids[1]; ids[1] = t; }
    snprintf(jobs[0], 32, "%lu", ids[0]);
    if (ids[1]) snprintf(jobs[1], 32, "%lu", ids[1]);
    return 0;
}

/* scancel each job: 0, or -1 (bcn_sched_error says why). */
int bcn_slurm_cancel(const char jobs[2][32], double timeout) {
    char out[1024];
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        if (!jobs[k][0]) continue;
        const char *a[] = { "scancel", jobs[k], NULL };
        int rc = bcn_exec(a, timeout, out, sizeof out);
        if (rc != 0) bad = say_fail("scancel", rc, out);
    }
    return bad;
}

/* ---- Kubernetes --------------------------------------------------------- */
static int kubectl(const char *ns, const char *const *args, double timeout, char *out, size_t cap) {
    const char *a[CMD_MAX_ARGS];
    size_t n = 0;
    a[n++] = "kubectl";
    if (ns) { a[n++] = "-n"; a[n++] = ns; }
    while (*args && n < CMD_MAX_ARGS - 1) a[n++] = *args++;
    a[n] = NULL;
    return bcn_exec(a, timeout, out, cap);
}

/* The Indexed Job's name, from k8s-job.yaml ("  name: rxlock-ID"). */
int bcn_k8s_job_name(const char *dir, char name[64]) {
    char p[PATH_MAX];
    uint8_t *buf = NULL;
    size_t len = 0;
    if ((size_t)snprintf(p, sizeof p, "%s/k8s-job.yaml", dir) >= sizeof p) return -1;
    if (util_read_file(p, 1u << 20, &buf, &len) != 0) return -1;
    const char *m = strstr((const char *)buf, "\n  name: rxlock-");
    int rc = m && sscanf(m, "\n  name: %63[a-z0-9-]", name) == 1 ? 0 : -1;
    free(buf);
    return rc;
}

int bcn_k8s_apply(const char *ns, const char *file, double timeout) {
    char out[4096];
    const char *a[] = { "apply", "-f", file, NULL };
    int rc = kubectl(ns, a, timeout, out, sizeof out);
    return rc == 0 ? 0 : say_fail("kubectl apply", rc, out);
}

int bcn_k8s_secret(const char *ns, const char *name, const char *worker_key, double timeout) {
    char out[4096], from[PATH_MAX + 32];
    snprintf(from, sizeof from, "--from-file=worker.key=%s", worker_key);
    const char *d[] = { "delete", "secret", name, "--ignore-not-found", NULL };
    int rc = kubectl(ns, d, timeout, out, sizeof out);
    if (rc != 0) return say_fail("kubectl delete secret", rc, out);
    const char *a[] = { "create", "secret", "generic", name, from, NULL };
    rc = kubectl(ns, a, timeout, out, sizeof out);
    return rc == 0 ? 0 : say_fail("kubectl create secret", rc, out);
}

/* A Job's state: 1 active (or not finished), 0 finished (Complete or
 * Failed) or not there, -1 no answer. */
int bcn_k8s_active(const char *ns, const char *job, double timeout) {
    char out[4096], jn[96];
    snprintf(jn, sizeof jn, "job/%s", job);
    const char *a[] = { "get", jn, "--ignore-not-found", "-o",
                        "jsonpath={.status.conditions[?(@.status==\"True\")].type}", NULL };
    int rc = kubectl(ns, a, timeout, out, sizeof out);
    if (rc != 0) return say_fail("kubectl get job", rc, out);
    if (!out[0]) {   /* no condition yet, or no such Job: tell them apart */
        const char *b[] = { "get", jn, "--ignore-not-found", "-o", "name", NULL };
        rc = kubectl(ns, b, timeout, out, sizeof out);
        if (rc != 0) return say_fail("kubectl get job", rc, out);
        return out[0] ? 1 : 0;
    }
    return strstr(out, "Complete") || strstr(out, "Failed") ? 0 : 1;
}

/* 1 when no pod of the Job has started (every one Pending, or none made
 * yet), why: the first pending pod's reason (unscheduled, an image not
 * pulled); 0 when one runs or ran; -1 no answer. */
int bcn_k8s_pending(const char *ns, const char *job, double timeout, char *why, size_t cap) {
    char out[8192], sel[96];
    why[0] = 0;
    snprintf(sel, sizeof sel, "job-name=%s", job);
    const char *a[] = { "get", "pods", "-l", sel, "-o",
                        "jsonpath={range .items[*]}{.status.phase} {.status.conditions[?(@.type==\"PodScheduled\")]"
                        ".reason} {.status.containerStatuses[*].state.waiting.reason}{\"\\n\"}{end}", NULL };
    int rc = kubectl(ns, a, timeout, out, sizeof out);
    if (rc != 0) return say_fail("kubectl get pods", rc, out);
    if (!out[0]) { snprintf(why, cap, "no pod made yet: kubectl describe job %s", job); return 1; }
    for (char *p = out; *p;) {   /* each line: PHASE [SCHEDULED_REASON] [WAITING_REASON...] */
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        char phase[32] = "", r1[64] = "", r2[64] = "";
        if (sscanf(p, "%31s %63s %63s", phase, r1, r2) >= 1 && strcmp(phase, "Pending")) return 0;
        if (!why[0]) snprintf(why, cap, "Pending%s%s%s%s", r1[0] ? ": " : "", r1, r2[0] ? ", " : "", r2);
        if (!nl) break;
        p = nl + 1;
    }
    return 1;
}

int bcn_k8s_delete(const char *ns, const char *kind, const char *name, double timeout) {
    char out[4096], what[64];
    const char *a[] = { "delete", kind, name, "--ignore-not-found", NULL };
    int rc = kubectl(ns, a, timeout, out, sizeof out);
    snprintf(what, sizeof what, "kubectl delete %s", kind);
    return rc == 0 ? 0 : say_fail(what, rc, out);
}
