/* SPDX-License-Identifier: ISC */
/* src/rx/execmem.c — W^X executable memory for the JITs (see execmem.h).
 * The only permission sets used are read+write, read+execute and none. */
#include "rx/execmem.h"
#include "rxlock/rx.h"
#include "util/util.h"
#include <errno.h>
#include <sodium.h>
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
    if (do_mprotect(RX_EXECMEM_SITE_OPEN, m->base + lo, hi - lo, PERM_RW) != 0) return RX_EPROT;
    m->rw_off = lo;
    m->rw_end = hi;
    return 0;
}

int rx_execmem_seal(rx_execmem *m) {
    if (!m || !m->base) return RX_EINVAL;
    if (m->rw_off == m->rw_end) return 0;
    if (do_mprotect(RX_EXECMEM_SITE_SEAL, m->base + m->rw_off, m->rw_end - m->rw_off, PERM_RX) != 0)
        return RX_EPROT;   /* pages stay RW (not executable): never run them */
    m->rw_off = m->rw_end = 0;
    return 0;
}

int rx_execmem_install(rx_execmem *m, size_t off, size_t cap, const uint8_t *code, size_t len,
                       uint8_t fill, void (*flush)(uint8_t *p, size_t n), size_t *span,
                       uint64_t phase_ns[3]) {
    if (!m || !m->base || !code || !span || len == 0) return RX_EINVAL;
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

int rx_execmem_install_entry(rx_execmem *m, const uint8_t *code, size_t len, uint8_t fill,
                             void (*flush)(uint8_t *p, size_t n)) {
    if (!m || !m->base) return RX_EINVAL;
    size_t span = 0;
    int rc = rx_execmem_install(m, 0, m->page, code, len, fill, flush, &span, NULL);
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
