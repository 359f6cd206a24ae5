/* SPDX-License-Identifier: ISC */
/* src/rx/execmem.h — executable memory with strict W^X for the JITs.
 *
 * A region is mapped read+write, written, then sealed read+execute.  To
 * rewrite part of it, only the pages covering [off, off+len) are reopened
 * read+write and sealed again afterwards; the rest stays read+execute.  A
 * mapping is never writable and executable at the same time.  Every mmap /
 * mprotect / munmap result is checked and returned (RX_ENOMEM / RX_EPROT).
 * rx_execmem_install is the one way the JITs put code in: open, copy, fill
 * the rest of the pages with a trapping byte, flush, seal.
 * rx_execmem_free makes the whole region writable, wipes it and unmaps it.
 *
 * Install without flips (the writer): once a region has a writer
 * (rx_execmem_writer_open), rx_execmem_install writes the code through a
 * /proc/self/mem descriptor into pages that stay read+execute: no page is
 * ever writable, and there is no second (writable) mapping.  The
 * descriptor is opened write-only and close-on-exec for this region alone
 * (or duplicated from the one rx_execmem_writer_prepare opened for the
 * process), never handed out, and closed by rx_execmem_free.  Every write
 * is read back through the executable mapping; a refused, short or
 * misdirected write (a kernel with proc_mem.force_override=never, seccomp,
 * a security module; a descriptor inherited across fork, which names the
 * parent's memory and is never used in the child) drops the writer and
 * that install and every later one flips permissions as before.
 *
 * Test hook: when rx_execmem_fault_hook is set, every system call site asks
 * it first; a non-zero answer makes that call fail as if the kernel had
 * refused (errno = EACCES / ENOMEM), so tests can inject a failure at each
 * call site.  The hooks exist only in the test build (-DRXLOCK_TESTING,
 * build/librxlock-test.a); the shipping library has neither.  In the test
 * build, RXLOCK_TEST_PROCMEM_REFUSE=1 refuses every writer open and write
 * (as a kernel that forbids /proc/self/mem writes would).
 */
#ifndef RX_EXECMEM_H
#define RX_EXECMEM_H
#include <stddef.h>
#include <stdint.h>

enum rx_execmem_site {
    RX_EXECMEM_SITE_MMAP = 1,  /* rx_execmem_init: mmap RW              */
    RX_EXECMEM_SITE_OPEN,      /* rx_execmem_open: pages -> RW          */
    RX_EXECMEM_SITE_SEAL,      /* rx_execmem_seal: pages -> RX          */
    RX_EXECMEM_SITE_FREE,      /* rx_execmem_free: all -> RW before wipe */
    RX_EXECMEM_SITE_NONE,      /* rx_execmem_forbid: pages -> no access */
    RX_EXECMEM_SITE_WOPEN,     /* rx_execmem_writer_open: open /proc/self/mem */
    RX_EXECMEM_SITE_WRITE      /* rx_execmem_install: write through it  */
};

typedef struct rx_execmem {
    uint8_t *base;     /* page aligned                                  */
    size_t   size;     /* mapping size, whole pages                     */
    size_t   page;     /* system page size                              */
    size_t   rw_off;   /* page range currently writable: [rw_off, rw_end) */
    size_t   rw_end;   /* rw_off == rw_end: nothing writable (sealed)   */
    int      writer;   /* /proc/self/mem descriptor + 1; 0: none (flips) */
    unsigned long writer_gen;  /* the fork generation it was opened in  */
    size_t   written;  /* writer installs: bytes of code last written   */
    uint8_t *wbuf;     /* writer installs: code + trap bytes over stale code,
                        * joined for one write (cap bytes, or NULL)       */
    size_t   wbuf_len;
    uint64_t flips;    /* mprotect calls made since rx_execmem_init     */
} rx_execmem;

#ifdef RXLOCK_TESTING  /* test build only (build/librxlock-test.a) */
/* Returns non-zero to make the call at `site` fail.  NULL: never. */
extern int (*rx_execmem_fault_hook)(int site);
/* Called by rx_execmem_free after wiping, before unmapping (tests prove
 * the wipe with it).  NULL: not called. */
extern void (*rx_execmem_free_hook)(const uint8_t *base, size_t size);
#endif

/* Map `size` bytes (rounded up to pages) read+write.  0 or RX_ENOMEM. */
int  rx_execmem_init(rx_execmem *m, size_t size);
/* Make the pages covering [off, off+len) read+write (the others keep their
 * permission).  0, RX_EINVAL (out of range) or RX_EPROT. */
int  rx_execmem_open(rx_execmem *m, size_t off, size_t len);
/* Make every page opened since the last seal read+execute.  0 or RX_EPROT;
 * after a failure the region is unusable (the caller must not run it). */
int  rx_execmem_seal(rx_execmem *m);
/* Install `len` bytes of code at `off`, in a slot of `cap` bytes: open the
 * pages the code needs, and at least the *span bytes installed last time
 * (so no stale code stays reachable), copy the code, fill the rest of those
 * pages with `fill` (a trapping instruction byte), call `flush` on them
 * when not NULL (AArch64: the instruction cache), and seal.  *span (whole
 * pages; 0 before the first install) gets the bytes now in use.  When
 * phase_ns is not NULL it gets util_now_ns() after the open, the copy and
 * the seal (the JITs' phase profile).  0, RX_EINVAL, RX_EINTERNAL (the code
 * does not fit in `cap`) or RX_EPROT; after a failure nothing may run. */
int  rx_execmem_install(rx_execmem *m, size_t off, size_t cap, const uint8_t *code, size_t len,
                        uint8_t fill, void (*flush)(uint8_t *p, size_t n), size_t *span,
                        uint64_t phase_ns[3]);
/* The JITs' first install into a fresh region: the entry code in page 0
 * (as rx_execmem_install, one page), every other page made inaccessible
 * (guards, program pages not installed yet).  0, RX_EINVAL, RX_EINTERNAL
 * or RX_EPROT. */
int  rx_execmem_install_entry(rx_execmem *m, const uint8_t *code, size_t len, uint8_t fill,
                              void (*flush)(uint8_t *p, size_t n));
/* Make the pages covering [off, off+len) inaccessible (guard pages, unused
 * code pages).  Nothing of the range may be open.  0, RX_EINVAL or RX_EPROT.
 * A later rx_execmem_open of such pages makes them RW again. */
int  rx_execmem_forbid(rx_execmem *m, size_t off, size_t len);
/* Give the region a writer (see above).  Every page an install will write
 * must already be read+execute.  0, RX_EINVAL, or RX_EPROT when the system
 * refuses (the region keeps flipping). */
int  rx_execmem_writer_open(rx_execmem *m);
/* Drop the writer (close the descriptor); later installs flip. */
void rx_execmem_writer_close(rx_execmem *m);
/* 1 when installs go through the writer. */
int  rx_execmem_has_writer(const rx_execmem *m);
/* Open the process's /proc/self/mem descriptor now, for the regions given
 * a writer later (a non-dumpable process cannot open it: call this before
 * PR_SET_DUMPABLE 0).  Idempotent; closed in a forked child.  0 or RX_EPROT. */
int  rx_execmem_writer_prepare(void);
/* 1 when some page of the region is currently writable. */
int  rx_execmem_is_open(const rx_execmem *m);
/* Make writable, wipe, unmap; then zero *m.  A zeroed *m is ignored. */
void rx_execmem_free(rx_execmem *m);
#endif
