/* SPDX-License-Identifier: ISC */
/* tests/test_rx_execmem.c — W^X executable memory: permissions of every page
 * (read from /proc/self/maps), narrow reopen, rewrite + rerun, injected
 * mmap/mprotect failures at each call site, free. */
#include "test.h"
#include "rx/execmem.h"
#include "rxlock/rx.h"
#include <stdint.h>
#include <unistd.h>

/* Permissions ("r-xp" ...) of the mapping containing addr; "" if none. */
static void perms_of(const void *addr, char out[5]) {
    out[0] = 0;
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp) return;
    char line[512];
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, fp)) {
        unsigned long lo, hi; char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) != 3) continue;
        if (a >= lo && a < hi) { memcpy(out, p, 5); break; }
    }
    fclose(fp);
}

/* No mapping of this process is ever writable and executable at once. */
static int no_wx_mapping(void) {
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp) return 0;
    char line[512]; int ok = 1;
    while (fgets(line, sizeof line, fp)) {
        unsigned long lo, hi; char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) != 3) continue;
        if (p[1] == 'w' && p[2] == 'x') ok = 0;
    }
    fclose(fp);
    return ok;
}

#if defined(__x86_64__)
/* mov eax, imm32 ; ret */
static void put_ret(uint8_t *p, uint32_t v) {
    p[0] = 0xb8; memcpy(p + 1, &v, 4); p[5] = 0xc3;
}
typedef int (*fn_t)(void);
static int call(const uint8_t *p) {
    fn_t f;
    memcpy(&f, &p, sizeof f);
    return f();
}
#endif

static void t_lifecycle(void) {
    rx_execmem m;
    CHECK(rx_execmem_init(&m, 3 * 4096 + 10) == 0);
    CHECK(m.size % m.page == 0 && m.size >= 3 * 4096 + 10);
    char p[5];
    perms_of(m.base, p);
    CHECK(strcmp(p, "rw-p") == 0);
    CHECK(rx_execmem_is_open(&m));
#if defined(__x86_64__)
    for (size_t i = 0; i < m.size / m.page; i++) put_ret(m.base + i * m.page, (uint32_t)(100 + i));
#endif
    CHECK(rx_execmem_seal(&m) == 0);
    CHECK(!rx_execmem_is_open(&m));
    for (size_t i = 0; i < m.size / m.page; i++) {
        perms_of(m.base + i * m.page, p);
        CHECK(strcmp(p, "r-xp") == 0);
    }
    CHECK(no_wx_mapping());
#if defined(__x86_64__)
    CHECK(call(m.base) == 100);
    CHECK(call(m.base + m.page) == 101);
#endif
    /* reopen only the second page (a range inside it) */
    CHECK(rx_execmem_open(&m, m.page + 100, 200) == 0);
    perms_of(m.base, p);              CHECK(strcmp(p, "r-xp") == 0);
    perms_of(m.base + m.page, p);     CHECK(strcmp(p, "rw-p") == 0);
    perms_of(m.base + 2 * m.page, p); CHECK(strcmp(p, "r-xp") == 0);
    CHECK(no_wx_mapping());
#if defined(__x86_64__)
    CHECK(call(m.base) == 100);       /* other pages still run while one is open */
    put_ret(m.base + m.page, 777);
#endif
    /* a range straddling a page boundary opens both pages */
    CHECK(rx_execmem_open(&m, 2 * m.page - 2, 4) == 0);
    perms_of(m.base + 2 * m.page, p); CHECK(strcmp(p, "rw-p") == 0);
    perms_of(m.base, p);              CHECK(strcmp(p, "r-xp") == 0);
    CHECK(rx_execmem_seal(&m) == 0);
    perms_of(m.base + m.page, p);     CHECK(strcmp(p, "r-xp") == 0);
    perms_of(m.base + 2 * m.page, p); CHECK(strcmp(p, "r-xp") == 0);
#if defined(__x86_64__)
    CHECK(call(m.base + m.page) == 777);
#endif
    CHECK(rx_execmem_open(&m, 0, 0) == RX_EINVAL);
    CHECK(rx_execmem_open(&m, m.size, 1) == RX_EINVAL);
    CHECK(rx_execmem_open(&m, 1, m.size) == RX_EINVAL);
    uint8_t *base = m.base;
    rx_execmem_free(&m);
    CHECK(m.base == NULL && m.size == 0);
    perms_of(base, p);
    CHECK(p[0] == 0 || strcmp(p, "r-xp") != 0);
    rx_execmem_free(&m);   /* second free of a zeroed struct is a no-op */
}

static int fail_site, calls_seen;
static int hook(int site) { calls_seen++; return site == fail_site; }

static void t_faults(void) {
    rx_execmem m;
    rx_execmem_fault_hook = hook;
    fail_site = RX_EXECMEM_SITE_MMAP;
    CHECK(rx_execmem_init(&m, 4096) == RX_ENOMEM);
    CHECK(m.base == NULL);

    fail_site = RX_EXECMEM_SITE_SEAL;
    CHECK(rx_execmem_init(&m, 8192) == 0);
    CHECK(rx_execmem_seal(&m) == RX_EPROT);
    char p[5];
    perms_of(m.base, p);
    CHECK(strcmp(p, "rw-p") == 0);          /* failed seal: never executable */
    CHECK(rx_execmem_is_open(&m));
    fail_site = 0;
    CHECK(rx_execmem_seal(&m) == 0);

    fail_site = RX_EXECMEM_SITE_OPEN;
    CHECK(rx_execmem_open(&m, 0, 10) == RX_EPROT);
    CHECK(!rx_execmem_is_open(&m));
    perms_of(m.base, p);
    CHECK(strcmp(p, "r-xp") == 0);

    fail_site = RX_EXECMEM_SITE_FREE;       /* free still unmaps */
    uint8_t *base = m.base;
    calls_seen = 0;
    rx_execmem_free(&m);
    CHECK(calls_seen == 1);
    CHECK(m.base == NULL);
    perms_of(base, p);
    CHECK(p[0] == 0 || strcmp(p, "r-xp") != 0);
    rx_execmem_fault_hook = NULL;
    fail_site = 0;
}

static void t_forbid(void) {
    rx_execmem m;
    char p[5];
    CHECK(rx_execmem_init(&m, 4 * 4096) == 0);
    CHECK(rx_execmem_forbid(&m, 4096, 4096) == RX_EINVAL);   /* still open */
    CHECK(rx_execmem_seal(&m) == 0);
    CHECK(rx_execmem_forbid(&m, 4096, 2 * 4096) == 0);
    perms_of(m.base, p);            CHECK(strcmp(p, "r-xp") == 0);
    perms_of(m.base + 4096, p);     CHECK(strcmp(p, "---p") == 0);
    perms_of(m.base + 3 * 4096, p); CHECK(strcmp(p, "r-xp") == 0);
    CHECK(rx_execmem_open(&m, 4096, 100) == 0);               /* none -> RW */
    perms_of(m.base + 4096, p);     CHECK(strcmp(p, "rw-p") == 0);
    perms_of(m.base + 2 * 4096, p); CHECK(strcmp(p, "---p") == 0);
    CHECK(rx_execmem_seal(&m) == 0);
    perms_of(m.base + 4096, p);     CHECK(strcmp(p, "r-xp") == 0);
    CHECK(no_wx_mapping());
    rx_execmem_fault_hook = hook;
    fail_site = RX_EXECMEM_SITE_NONE;
    CHECK(rx_execmem_forbid(&m, 0, 4096) == RX_EPROT);
    rx_execmem_fault_hook = NULL;
    fail_site = 0;
    rx_execmem_free(&m);              /* wipes forbidden pages too */
}

/* the JITs' one install path: entry in page 0 and the rest forbidden; a
 * program installed, grown and shrunk (the span keeps the pages once used,
 * filled with the trap byte), the flush called on them, too large refused */
static size_t flushed_off, flushed_len;
static uint8_t *flush_base;
static void flush_rec(uint8_t *q, size_t n) { flushed_off = (size_t)(q - flush_base); flushed_len = n; }
static void t_install(void) {
    rx_execmem m;
    char p[5];
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), span = 0;
    uint8_t *code = malloc(2 * pg + 1);
    if (!code) { CHECK(0); return; }
    memset(code, 0x90, 2 * pg + 1);
    CHECK(rx_execmem_init(&m, 5 * pg) == 0 && m.page == pg);
    flush_base = m.base;
    CHECK(rx_execmem_install_entry(&m, code, 10, 0xCC, flush_rec) == 0);
    CHECK(flushed_off == 0 && flushed_len == pg);
    perms_of(m.base, p);      CHECK(strcmp(p, "r-xp") == 0);
    perms_of(m.base + pg, p); CHECK(strcmp(p, "---p") == 0);
    CHECK(m.base[9] == 0x90 && m.base[10] == 0xCC && m.base[pg - 1] == 0xCC);
    CHECK(rx_execmem_install(&m, pg, 3 * pg, code, pg + 1, 0xCC, NULL, &span, NULL) == 0);
    CHECK(span == 2 * pg && m.base[2 * pg] == 0x90 && m.base[2 * pg + 1] == 0xCC);
    perms_of(m.base + pg, p); CHECK(strcmp(p, "r-xp") == 0);
    uint64_t ph[3] = { 0, 0, 0 };
    CHECK(rx_execmem_install(&m, pg, 3 * pg, code, 5, 0xCC, flush_rec, &span, ph) == 0);
    CHECK(span == 2 * pg && flushed_off == pg && flushed_len == 2 * pg);   /* old pages overwritten */
    CHECK(m.base[pg + 5] == 0xCC && m.base[2 * pg] == 0xCC);
    CHECK(ph[0] > 0 && ph[1] >= ph[0] && ph[2] >= ph[1]);
    CHECK(rx_execmem_install(&m, pg, 2 * pg, code, 2 * pg + 1, 0xCC, NULL, &span, NULL) == RX_EINTERNAL);
    CHECK(rx_execmem_install(&m, pg, 3 * pg, code, 0, 0xCC, NULL, &span, NULL) == RX_EINVAL);
    CHECK(!rx_execmem_is_open(&m) && no_wx_mapping());
    rx_execmem_fault_hook = hook;
    fail_site = RX_EXECMEM_SITE_SEAL;
    CHECK(rx_execmem_install(&m, pg, 3 * pg, code, 5, 0xCC, NULL, &span, NULL) == RX_EPROT);
    rx_execmem_fault_hook = NULL;
    fail_site = 0;
    rx_execmem_free(&m);
    free(code);
}

static void t_many_cycles(void) {
    rx_execmem m;
    CHECK(rx_execmem_init(&m, 64 * 1024) == 0);
    CHECK(rx_execmem_seal(&m) == 0);
    int n = test_quick() ? 200 : 5000, bad = 0;
    for (int i = 0; i < n; i++) {
        size_t off = (size_t)(i * 97) % (64 * 1024 - 4500);
        if (rx_execmem_open(&m, off, 4500) != 0) bad++;
#if defined(__x86_64__)
        put_ret(m.base + off, (uint32_t)i);
#endif
        if (rx_execmem_seal(&m) != 0) bad++;
#if defined(__x86_64__)
        if (call(m.base + off) != i) bad++;
#endif
    }
    CHECK(bad == 0);
    CHECK(no_wx_mapping());
    rx_execmem_free(&m);
}

int main(void) {
    RUN(t_lifecycle);
    RUN(t_faults);
    RUN(t_forbid);
    RUN(t_many_cycles);
    RUN(t_install);
    return test_summary();
}
