/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/beacon_cli.h — what the beacon room's files share
 * (`rxlock beacon init / run / solve / status`): the beacon directory and
 * its files (dir.c), the feed rebuilt from those files and published
 * (publish.c), the one log line per event, the web page (web.c).  Reading
 * a feed (sources, times as text) is the shared CLI's (cli/feed.h), since
 * the keys room's `encrypt / decrypt --feed` reads feeds too; the pure
 * parts live in the library (include/rxlock/beacon.h). */
#ifndef RXLOCK_CLI_BEACON_H
#define RXLOCK_CLI_BEACON_H
#include "cli/feed.h"
#include "cli/plan_scripts.h"
#include "rxlock/beacon.h"
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* ---- an epoch as a generation job (epoch_plan.c) --------------------------- */
/* Epoch puzzle parameters from beacon.json (unsigned: sign_sk NULL). */
void bcn_epoch_params(const tl_beacon_config *c, int kind, tl_params *p);
/* A cluster plan for epoch E's key of a kind in DIR/plans/STEM (its keys in
 * DIR/private/plans/), unless its plan.json is there; with jobs, also the
 * job files.  *made (may be NULL): 1 when written now.  CLI_OK, or CLI_FAIL
 * with the reason in why (said on stderr when why is NULL). */
int bcn_plan_epoch(const bcn_dir *b, uint64_t E, int kind, cli_plan_jobs *jobs, int *made, char *why, size_t cap);

/* ---- the service's own state, for the operator (metrics.c) ------------------ */
typedef struct {
    const char *mode;             /* "local", "slurm" or "k8s"               */
    int64_t  epoch;               /* the epoch being made, -1 none            */
    char     stem[48];
    double   done, total;         /* its progress, in unit                    */
    const char *unit;             /* "hashes" or "tasks"                      */
    double   started;             /* when its generation began (Unix s), 0 unknown */
    double   eta;                 /* seconds from now until it is done, -1 unknown */
    int64_t  release;             /* its release time                         */
    int64_t  next_release;        /* the next release of any epoch            */
    double   margin;              /* period / a period's generation (>= 1 keeps up), 0 unknown */
    char     jobs[80];            /* cluster jobs of the epoch being made     */
    char     last_error[400];
    int64_t  last_error_at;
    uint64_t failures;            /* failed generations, submissions, assemblies, skipped epochs */
    uint64_t resubmissions;
    const char *metrics;          /* --metrics FILE, or NULL                 */
} bcn_service;
/* A local `beacon run` rewrites its record at least this often (s), also
 * while it sleeps (`run --cluster`: at every --poll). */
#define BCN_SERVICE_REFRESH 60
/* Write DIR/private/service.json (read by `beacon status DIR`) and, with
 * sv->metrics, the Prometheus text file, each atomically; a failure is
 * logged once per kind, never fatal. */
void bcn_service_write(const bcn_dir *b, const bcn_service *sv);
/* `beacon status DIR` for the operator: the service's record, as text or
 * one JSON line.  0 printed, 1 none there (not a DIR, or never served). */
int bcn_service_print(const char *dir, int json);

/* ---- generation on a cluster (cluster_run.c, cluster_epoch.c, cluster_sched.c) --- */
typedef struct {
    int k8s;                      /* 0 Slurm, 1 Kubernetes                    */
    unsigned retries;             /* resubmissions of an epoch before it is given up */
    double poll;                  /* seconds between looks at the cluster      */
    double cmd_timeout;           /* seconds a scheduler command may take      */
    const char *k8s_namespace;
    const char *metrics;
    int once;                     /* one pass, then exit                       */
    unsigned in_flight;           /* epoch keys on the cluster at once (0 = 1) */
    cli_plan_jobs jobs;           /* job-file settings (sbatch lines, image, claim) */
} bcn_cluster_opts;
int bcn_cluster_run(const char *dir, const bcn_cluster_opts *o);
/* One epoch key's submissions (cluster_state.c; DIR/private/cluster/STEM.state). */
typedef struct {
    unsigned attempt;             /* submissions made, of every plan of it   */
    char     name[96];            /* the job name of the last submission    */
    char     jobs[2][32];         /* its group and verification jobs        */
    int64_t  first_submit;        /* Unix s, 0 = never (kept when replanned) */
    int64_t  submitted;           /* the last submission's time, 0 = never   */
    int      gave_up;
    int      verify_applied;      /* k8s: the verification Job applied      */
} bcn_cl_state;
/* 1 read, 0 none (all zero), -1 unreadable. */
int  bcn_cl_state_read(const bcn_dir *b, const char *stem, bcn_cl_state *st);
/* Replace it atomically (0600): 0, or -1 with err. */
int  bcn_cl_state_write(const bcn_dir *b, const char *stem, const bcn_cl_state *st, char *err, size_t errlen);
/* The Indexed Job's name from DIR/k8s-job.yaml: 0, or -1. */
int  bcn_k8s_job_name(const char *dir, char name[64]);
/* `beacon run`'s options for the cluster and the instruments (BCN_RUN_OPTS in
 * its option table): -1 not one of them, 0 taken, else a usage error's code. */
enum { BCN_OPT_CLUSTER = 0x300, BCN_OPT_RETRIES, BCN_OPT_POLL, BCN_OPT_CMDTIME, BCN_OPT_METRICS, BCN_OPT_SBATCH,
       BCN_OPT_IMAGE, BCN_OPT_PVC, BCN_OPT_NS, BCN_OPT_INFLIGHT };
#define BCN_RUN_OPTS \
    {"cluster", required_argument, 0, BCN_OPT_CLUSTER}, {"retries", required_argument, 0, BCN_OPT_RETRIES}, \
    {"poll", required_argument, 0, BCN_OPT_POLL}, {"cmd-timeout", required_argument, 0, BCN_OPT_CMDTIME}, \
    {"metrics", required_argument, 0, BCN_OPT_METRICS}, {"sbatch", required_argument, 0, BCN_OPT_SBATCH}, \
    {"image", required_argument, 0, BCN_OPT_IMAGE}, {"pvc", required_argument, 0, BCN_OPT_PVC}, \
    {"namespace", required_argument, 0, BCN_OPT_NS}, {"in-flight", required_argument, 0, BCN_OPT_INFLIGHT}
int bcn_cluster_opt(bcn_cluster_opts *o, int *cluster, int c, const char *arg);
int  bcn_exec(const char *const *argv, double timeout, char *out, size_t cap);
void bcn_exec_line(const char *out, char line[208]);
/* What the last failed scheduler command said (its words, or that it hung
 * or is not installed), for one log line with the way out. */
const char *bcn_sched_error(void);
/* 1 when the reason a job waits for needs an operator (held, a partition
 * down, an image not pulled, ...): said at once, not after a while. */
int  bcn_sched_needs_operator(const char *why);
int  bcn_slurm_submit(const char *plan_dir, const char *name, int verifies, double timeout, char jobs[2][32]);
int  bcn_slurm_active(const char jobs[2][32], const char *name, double timeout, char *why, size_t cap, int *which);
int  bcn_slurm_find(const char *name, double timeout, char jobs[2][32]);
int  bcn_slurm_cancel(const char jobs[2][32], double timeout);
int  bcn_k8s_apply(const char *ns, const char *file, double timeout);
int  bcn_k8s_secret(const char *ns, const char *name, const char *worker_key, double timeout);
int  bcn_k8s_active(const char *ns, const char *job, double timeout);
int  bcn_k8s_pending(const char *ns, const char *job, double timeout, char *why, size_t cap);
int  bcn_k8s_delete(const char *ns, const char *kind, const char *name, double timeout);

/* ---- keeping up (keepup.c) ------------------------------------------------ */
typedef struct {
    double rate;                  /* generation throughput, hashes/s, all workers */
    unsigned workers, lanes;      /* what was measured (0: given)              */
    double gen_seconds;           /* one epoch key's generation at the rate    */
    double verify_share;          /* the share of each chain recomputed (0..1) */
    char source[200];             /* how the rate was had, for texts           */
    tl_beacon_keepup k;
} bcn_keepup;
/* Measure (unless given_rate > 0) and judge; says the verdict (at_init: on
 * stderr, else as a log line).  CLI_OK when it keeps up, else CLI_FAIL after
 * a refusal naming the flags that fix it. */
int bcn_keepup_check(const tl_beacon_config *c, tl_mode mode, double given_rate, const char *given_source, int at_init,
                     const volatile int *stop, bcn_keepup *out);
/* given_source: how given_rate was had (NULL: "given by --gen-rate"). */
/* `beacon init`'s sealing line (stderr): the sealing rule, or, when every
 * epoch is operator-only, the --every or --opens-after that seals it and
 * that ku's throughput keeps up with (ku NULL: not measured, a cluster's),
 * or that none does. */
void bcn_say_sealing(const tl_beacon_sched *s, const bcn_keepup *ku);
/* The share of each chain recomputed (0..1). */
double bcn_verify_share(const tl_beacon_config *c);
/* Workers generation may count on here: the configured ones up to the CPUs. */
unsigned bcn_workers_here(unsigned configured);
/* Groups that fill the workers x SIMD lanes of this machine. */
uint32_t bcn_fill_groups(tl_work_type work, unsigned workers);

/* ---- the local service's generation pace, kept (gen_pace.c) --------------- */
/* Record an epoch key's generation: hashes over wall seconds, on this CPU
 * with these workers (nothing when shorter than a second). */
void bcn_gen_pace_add(const bcn_dir *b, double hashes, double seconds, unsigned workers);
/* The median of the records made on this CPU with these workers: 1 when
 * there are enough (then *median, *lo, *hi in hashes/s, *count), else 0. */
int  bcn_gen_pace_median(const bcn_dir *b, unsigned workers, double *median, double *lo, double *hi, unsigned *count);

/* ---- the service's clock (clock.c) ---------------------------------- */
typedef struct { int64_t wall; double mono; int init; } bcn_clock;
/* The wall clock now (tl_beacon_now); *jump: how far it moved beyond the
 * monotonic clock since the last read, in s (0: less than 2 s). */
int64_t bcn_clock_read(bcn_clock *c, int64_t *jump);
/* Sleep until the wall clock reaches `at` (returns 0), a stop (0), or a
 * wall-clock change (returns the jump), on the monotonic clock, waking
 * just after each second. */
int64_t bcn_clock_sleep_until(bcn_clock *c, int64_t at, const volatile int *stop);

/* ---- releasing on the clock, for both ways of generating (releaser.c) ---- */
typedef struct {
    bcn_dir *b;
    const uint8_t *sk;            /* the signer key (the caller's, locked)   */
    bcn_service *sv;              /* the operator's record, kept fresh       */
    bcn_clock ck;
    int64_t next_due;             /* the next release time (by the clock now) */
    uint64_t skipped_to;          /* epochs below: their passing was said    */
    uint64_t gen_hi;              /* none at or above was ever generated     */
    double sv_written;            /* when sv was last written (util_now)     */
    int publish_pending;          /* the feed could not be written: said once, tried at every tick */
    int seal_pending;             /* a sealed file could not be written: said once, tried at every pass */
} bcn_releaser;
/* The next release time after now, and the first epoch still open for
 * encryption (its release in the future). */
int64_t  bcn_next_release(const tl_beacon_sched *s, int64_t now);
uint64_t bcn_first_open(const tl_beacon_sched *s, int64_t now);
/* Start on the clock as it reads now (nothing released yet: call tick). */
void bcn_rel_start(bcn_releaser *r, bcn_dir *b, const uint8_t *sk, bcn_service *sv);
/* Release what is due, republish the feed when anything changed (or when
 * force, or while a publish is pending: one that failed is said once and
 * tried again at every tick, CLI_OK meanwhile), refresh the record; jump:
 * a wall-clock change just noticed, said in one line with the epochs it
 * passed.  CLI_OK or CLI_FAIL (a release that failed). */
int  bcn_rel_tick(bcn_releaser *r, int force, int64_t jump);
/* Seal epoch E (bcn_seal); one that fails (a full disk) is said once and
 * left pending: CLI_FAIL, the epoch unlisted until it is sealed.  reseal:
 * while one is pending, seal the window from n0 again (then tick). */
int  bcn_rel_seal(bcn_releaser *r, uint64_t E, int *changed);
int  bcn_rel_reseal(bcn_releaser *r, uint64_t n0);
/* At a start: the sealed files a kill left missing, for every epoch made
 * from the oldest the feed can list to the window's end.  CLI_OK/CLI_FAIL. */
int  bcn_rel_repair(bcn_releaser *r);
/* tick when the clock changed or a release is due (cheap otherwise: for
 * a generation's progress callback). */
int  bcn_rel_poll(bcn_releaser *r);
/* Sleep on the monotonic clock until the next release, a clock change, a
 * stop, or at_most seconds (at most BCN_SERVICE_REFRESH), then tick. */
int  bcn_rel_sleep(bcn_releaser *r, double at_most, const volatile int *stop);
/* The epochs from the last call up to n0 (release times passed) that were
 * never generated: how many (added to the record's failures), the first
 * and the last; and one line saying them (nothing when n is 0). */
uint64_t bcn_rel_passed(bcn_releaser *r, uint64_t n0, uint64_t *first, uint64_t *last);
void bcn_rel_say_passed(uint64_t n, uint64_t first, uint64_t last);

/* ---- the beacon directory (dir.c) ---------------------------------- */
/* The signer key from DIR/private/signer.key, checked against beacon.json
 * (sk is the caller's, in locked memory, wiped by the caller). */
int  bcn_signer_load(const bcn_dir *b, uint8_t sk[64]);
/* The kinds of a schedule in feed order: returns their count (1 or 2). */
unsigned bcn_kinds(unsigned kinds, int out[2]);
/* Epoch E's puzzle of a kind: the public copy when released, else the
 * private one.  1 found (*buf malloc'd), 0 none, -1 error (message). */
int  bcn_puzzle_read(const bcn_dir *b, uint64_t E, int kind, uint8_t **buf, size_t *len, int *is_public);
/* 1 when every kind's puzzle of epoch E is there (private or public). */
int  bcn_epoch_made(const bcn_dir *b, uint64_t E);
/* Publish every generated puzzle whose release time has come (never one
 * before it).  *changed += the number published.  CLI_OK or CLI_FAIL. */
int  bcn_release_due(const bcn_dir *b, int64_t now, int *changed);
/* Write epoch E's sealed files (docs/FORMAT.md §Sealed file) that are
 * missing: E's puzzle encrypted to seal(E)'s recipient.  CLI_OK/CLI_FAIL. */
int  bcn_seal(const bcn_dir *b, uint64_t E, int *changed);
/* Rebuild feed.json from the files (publish.c), sign it and
 * replace public/feed.json atomically, under private/feed.lock.  *listed
 * (may be NULL) gets the number of epochs listed.  CLI_OK or CLI_FAIL. */
/* The feed entries of the epochs v[0..n) (sorted) from the files: those
 * complete (publish.c's rule), with the schedule.  CLI_OK or CLI_FAIL. */
int  bcn_epochs_from_files(const bcn_dir *b, const uint64_t *v, size_t n, tl_beacon_feed **out);
/* Write archive pages from .. to-1 (archive.c) of the epochs v[0..n) (sorted,
 * every generated one): each once, never replaced; a page without epochs
 * is not written.  CLI_OK or CLI_FAIL. */
int  bcn_archive_write(const bcn_dir *b, const uint8_t sk[64], const uint64_t *v, size_t n, uint64_t from,
                       uint64_t to, int64_t now);
int  bcn_feed_publish(const bcn_dir *b, const uint8_t sk[64], int64_t now, size_t *listed);

/* ---- text ---------------------------------------------------------------- */
/* One log line: "YYYY-MM-DDTHH:MM:SSZ rxlock beacon: MSG" on stderr. */
void bcn_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* SHA-256 of a buffer. */
void bcn_sha256(const uint8_t *buf, size_t len, uint8_t out[32]);

/* The web page (web.c): copy index.html, app.js, style.css into
 * public_dir, each atomically, from $RXLOCK_WEB_DIR, else build/web beside
 * the binary, else the installed share/rxlock/web; 0 and nothing done
 * (with a note on stderr) when none is built; -1 with the reason in err
 * when a read or write fails. */
int cli_beacon_web_publish(const char *public_dir, char *err, size_t errlen);

/* `rxlock beacon run / solve / status` (run.c, solve.c, status.c). */
int bcn_cmd_run(int argc, char **argv);
int bcn_cmd_solve(int argc, char **argv);
int bcn_cmd_status(int argc, char **argv);
#endif
