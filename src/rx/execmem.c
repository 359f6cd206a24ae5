/* SPDX-License-Identifier: ISC */
/* src/rx/execmem.c — W^X executable memory for the JITs (see execmem.h):
 * the mapping, its permission flips, and the writer that installs code
 * through /proc/self/mem without flips.  The only permission sets used are
 * read+write, read+execute and none. */
#include "rx/execmem.h"
#include "rxlock/rx.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef RXLOCK_TESTING
int (*rx_execmem_fault_hook)(int site);
void (*rx_execmem_free_hook)(const uint8_t *base, size_t size);
#endif

#define PERM_RW (PROT_READ | PROT_WRITE)
#define PERM_RX (PROT_READ | PROT_EXEC)

static int injected(int site) {
#ifdef RXLOCK_TESTING
    int (*hook)(int) = rx_execmem_fault_hook;
    return hook && hook(site);
#else
    (void)site;
    return 0;
#endif
}

static int do_mprotect(int site, void *addr, size_t len, int prot) {
    if (injected(site)) { errno = EACCES; return -1; }
    return mprotect(addr, len, prot);
}

/* ---- the writer's descriptor ----------------------------------------- */
static unsigned long fork_gen;      /* bumped in every forked child        */
static int prepared = -1;           /* rx_execmem_writer_prepare's, or -1  */
static pthread_mutex_t prepared_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child's descriptors name its parent's memory: never use them. */
static void in_child(void) {
    __atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED);
    if (prepared >= 0) (void)close(prepared);
    prepared = -1;
}
static void atfork_register(void) { (void)pthread_atfork(NULL, NULL, in_child); }

/* The writer's open or write is refused: the fault hook, or (test build)
 * RXLOCK_TEST_PROCMEM_REFUSE=1, as a kernel that forbids the writes. */
static int writer_refused(int site) {
    if (injected(site)) return 1;
#ifdef RXLOCK_TESTING
    const char *e = getenv("RXLOCK_TEST_PROCMEM_REFUSE");
    if (e && *e && strcmp(e, "0") != 0) return 1;
#endif
    return 0;
}

static int open_self_mem(void) { return open("/proc/self/mem", O_WRONLY | O_CLOEXEC); }

int rx_execmem_writer_prepare(void) {
    (void)pthread_once(&atfork_once, atfork_register);
    if (writer_refused(RX_EXECMEM_SITE_WOPEN)) return RX_EPROT;
    pthread_mutex_lock(&prepared_lock);
    if (prepared < 0) prepared = open_self_mem();
    int ok = prepared >= 0;
    pthread_mutex_unlock(&prepared_lock);
    return ok ? 0 : RX_EPROT;
}

int rx_execmem_writer_open(rx_execmem *m) {
    if (!m || !m->base) return RX_EINVAL;
    if (m->writer) return 0;
    (void)pthread_once(&atfork_once, atfork_register);
    if (writer_refused(RX_EXECMEM_SITE_WOPEN)) return RX_EPROT;
    unsigned long gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
    int fd = open_self_mem();
    if (fd < 0) {       /* e.g. a non-dumpable process: the prepared one */
        pthread_mutex_lock(&prepared_lock);
        if (prepared >= 0) fd = fcntl(prepared, F_DUPFD_CLOEXEC, 3);
        pthread_mutex_unlock(&prepared_lock);
    }
    if (fd < 0) return RX_EPROT;
    m->writer = fd + 1;
    m->writer_gen = gen;
    return 0;
}

void rx_execmem_writer_close(rx_execmem *m) {
    if (!m || !m->writer) return;
    (void)close(m->writer - 1);
    m->writer = 0;
}

int rx_execmem_has_writer(const rx_execmem *m) { return m && m->writer != 0; }

/* Write code at off through the writer, with `fill` over the code the last
 * install left beyond len, in one write: /proc/self/mem has no vectored
 * write, so each iovec of a pwritev is a write of its own, every one with
 * its own page walk in the kernel.  Then read it back.  0, RX_EPROT
 * (refused, short, misdirected: the caller drops the writer) or RX_ENOMEM. */
static int writer_install(rx_execmem *m, size_t off, size_t cap, const uint8_t *code, size_t len,
                          uint8_t fill, void (*flush)(uint8_t *p, size_t n), uint64_t phase_ns[3]) {
    if (__atomic_load_n(&fork_gen, __ATOMIC_RELAXED) != m->writer_gen) return RX_EPROT;
    size_t stale = m->written > len ? m->written - len : 0;
    const uint8_t *src = code;
    if (stale) {
        if (m->wbuf_len < cap) {
            free(m->wbuf);
            m->wbuf_len = 0;
            m->wbuf = malloc(cap);
            if (!m->wbuf) return RX_ENOMEM;
            m->wbuf_len = cap;
        }
        memcpy(m->wbuf, code, len);
        memset(m->wbuf + len, fill, stale);
        src = m->wbuf;
    }
    if (phase_ns) phase_ns[0] = util_now_ns();
    uint8_t *dst = m->base + off;
    if (writer_refused(RX_EXECMEM_SITE_WRITE)) return RX_EPROT;
    ssize_t n = pwrite(m->writer - 1, src, len + stale, (off_t)(uintptr_t)dst);
    if (n < 0 || (size_t)n != len + stale) return RX_EPROT;
    if (flush) flush(dst, len + stale);
    if (memcmp(dst, code, len) != 0) return RX_EPROT;   /* not our memory */
    if (phase_ns) phase_ns[1] = phase_ns[2] = util_now_ns();
    return 0;
}

/* ---- the mapping ------------------------------------------------------- */
int rx_execmem_init(rx_execmem *m, size_t size) {
    if (!m) return RX_EINVAL;
    memset(m, 0, sizeof *m);
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096u;
    if (size == 0 || size > ((size_t)1 << 30)) return RX_EINVAL;
    size_t psize = (size + page - 1) / page * page;
    void *p;
    if (injected(RX_EXECMEM_SITE_MMAP)) { errno = ENOMEM; p = MAP_FAILED; }
    else p = mmap(NULL, psize, PERM_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return RX_ENOMEM;
    m->base = p;
    m->size = psize;
    m->page = page;
    m->rw_off = 0;
    m->rw_end = psize;   /* freshly mapped: all writable */
    return 0;
}

int rx_execmem_open(rx_execmem *m, size_t off, size_t len) {
    if (!m || !m->base || len == 0 || off > m->size || len > m->size - off) return RX_EINVAL;
    size_t lo = off / m->page * m->page;
    size_t hi = (off + len + m->page - 1) / m->page * m->page;
    if (m->rw_off != m->rw_end) {
        /* already partly open: open only what is not open yet */
        if (lo >= m->rw_off && hi <= m->rw_end) return 0;
        size_t nlo = lo < m->rw_off ? lo : m->rw_off;
        size_t nhi = hi > m->rw_end ? hi : m->rw_end;
        lo = nlo; hi = nhi;
    }
    m->flips++;
    if (do_mprotect(RX_EXECMEM_SITE_OPEN, m->base + lo, hi - lo, PERM_RW) != 0) return RX_EPROT;
    m->rw_off = lo;
    m->rw_end = hi;
    return 0;
}

int rx_execmem_seal(rx_execmem *m) {
    if (!m || !m->base) return RX_EINVAL;
    if (m->rw_off == m->rw_end) return 0;
    m->flips++;
    if (do_mprotect(RX_EXECMEM_SITE_SEAL, m->base + m->rw_off, m->rw_end - m->rw_off, PERM_RX) != 0)
        return RX_EPROT;   /* pages stay RW (not executable): never run them */
    m->rw_off = m->rw_end = 0;
    return 0;
}

/* Open, copy, fill, flush, seal: the install with flips. */
static int install_flip(rx_execmem *m, size_t off, size_t cap, const uint8_t *code, size_t len,
                        uint8_t fill, void (*flush)(uint8_t *p, size_t n), size_t *span,
                        uint64_t phase_ns[3]) {
    size_t need = (len + m->page - 1) / m->page * m->page;
    if (need < *span) need = *span;
    if (need > cap) return RX_EINTERNAL;
    int rc = rx_execmem_open(m, off, need);
    if (rc) return rc;
    if (phase_ns) phase_ns[0] = util_now_ns();
    uint8_t *dst = m->base + off;
    memcpy(dst, code, len);
    memset(dst + len, fill, need - len);
    *span = need;
    if (flush) flush(dst, need);
    if (phase_ns) phase_ns[1] = util_now_ns();
    rc = rx_execmem_seal(m);
    if (phase_ns) phase_ns[2] = util_now_ns();
    return rc;
}

int rx_execmem_install(rx_execmem *m, size_t off, size_t cap, const uint8_t *code, size_t len,
                       uint8_t fill, void (*flush)(uint8_t *p, size_t n), size_t *span,
                       uint64_t phase_ns[3]) {
    if (!m || !m->base || !code || !span || len == 0) return RX_EINVAL;
    if (off > m->size || cap > m->size - off || len > cap) return len > cap ? RX_EINTERNAL : RX_EINVAL;
    /* the writer, where every byte it writes lies in installed (RX) pages */
    if (m->writer && (len > m->written ? len : m->written) <= *span && !rx_execmem_is_open(m)) {
        int rc = writer_install(m, off, cap, code, len, fill, flush, phase_ns);
        if (rc == 0) { m->written = len; return 0; }
        if (rc != RX_EPROT) return rc;
        rx_execmem_writer_close(m);     /* refused: flips from now on */
    }
    int rc = install_flip(m, off, cap, code, len, fill, flush, span, phase_ns);
    if (rc == 0) m->written = len;
    return rc;
}

int rx_execmem_install_entry(rx_execmem *m, const uint8_t *code, size_t len, uint8_t fill,
                             void (*flush)(uint8_t *p, size_t n)) {
    if (!m || !m->base) return RX_EINVAL;
    if (!code || len == 0) return RX_EINVAL;
    if (len > m->page) return RX_EINTERNAL;
    size_t span = 0;
    int rc = install_flip(m, 0, m->page, code, len, fill, flush, &span, NULL);
    if (rc == 0 && m->size > m->page) rc = rx_execmem_forbid(m, m->page, m->size - m->page);
    return rc;
}

int rx_execmem_forbid(rx_execmem *m, size_t off, size_t len) {
    if (!m || !m->base || len == 0 || off > m->size || len > m->size - off) return RX_EINVAL;
    size_t lo = off / m->page * m->page;
    size_t hi = (off + len + m->page - 1) / m->page * m->page;
    if (m->rw_off != m->rw_end && lo < m->rw_end && hi > m->rw_off) return RX_EINVAL;
    if (do_mprotect(RX_EXECMEM_SITE_NONE, m->base + lo, hi - lo, PROT_NONE) != 0) return RX_EPROT;
    return 0;
}

int rx_execmem_is_open(const rx_execmem *m) {
    return m && m->base && m->rw_off != m->rw_end;
}

void rx_execmem_free(rx_execmem *m) {
    if (!m || !m->base) return;
    rx_execmem_writer_close(m);
    if (m->wbuf) sodium_memzero(m->wbuf, m->wbuf_len);
    free(m->wbuf);
    if (do_mprotect(RX_EXECMEM_SITE_FREE, m->base, m->size, PERM_RW) == 0) {
        sodium_memzero(m->base, m->size);
#ifdef RXLOCK_TESTING
        if (rx_execmem_free_hook) rx_execmem_free_hook(m->base, m->size);
#endif
    }
    /* if the pages could not be made writable they cannot be wiped either;
     * unmapping them is all that is left */
    (void)munmap(m->base, m->size);
    memset(m, 0, sizeof *m);
}
