/* SPDX-License-Identifier: ISC */
/* tests/test_rx_oracle.c — differential test against Debian's librandomx
 * 1.1.10 (RandomX v1; test-only oracle): 500 random (key, input) pairs of
 * random lengths give the same hash in light mode.  Keys are reused across
 * inputs to limit cache inits.  Seed: $RXLOCK_ORACLE_SEED or the time (printed). */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/cpu.h"
#include <randomx.h>
#include <time.h>

static uint64_t g_s;
static uint64_t next64(void) { return test_rng(&g_s); }
static void fill(uint8_t *p, size_t n) { test_rng_fill(&g_s, p, n); }

static void t_oracle(void) {
    const int nkeys = test_quick() ? 1 : 5;
    const int per_key = test_quick() ? 10 : 100;
    int agree = 0, total = 0;
    static uint8_t in[70000];
    for (int k = 0; k < nkeys; k++) {
        uint8_t key[200];
        size_t klen = k == 0 ? 0 : k == 1 ? 60 : (size_t)(next64() % 200);
        fill(key, klen);
        randomx_flags rf = randomx_get_flags() & ~(randomx_flags)RANDOMX_FLAG_LARGE_PAGES;
        randomx_cache *oc = randomx_alloc_cache(rf);
        if (!oc) { rf = RANDOMX_FLAG_DEFAULT; oc = randomx_alloc_cache(rf); }
        CHECK(oc != NULL);
        if (!oc) return;
        randomx_init_cache(oc, key, klen);
        randomx_vm *ovm = randomx_create_vm(rf, oc, NULL);
        CHECK(ovm != NULL);
        rx_cache *c = NULL;
        CHECK(rx_cache_new(&c, 0) == RX_OK && rx_cache_init(c, key, klen) == RX_OK);
        rx_vm *vh = NULL, *vs = NULL;
        CHECK(rx_vm_new(&vh, rx_cpu_has_hw_aes() ? RX_FLAG_HARD_AES : RX_FLAG_SOFT_AES, c, NULL) == RX_OK);
        CHECK(rx_vm_new(&vs, RX_FLAG_SOFT_AES, c, NULL) == RX_OK);
        for (int i = 0; i < per_key && ovm && vh && vs; i++) {
            size_t ilen;
            uint64_t pick = next64() % 100;
            if (i == 0) ilen = 0;
            else if (pick < 85) ilen = (size_t)(next64() % 400);
            else if (pick < 98) ilen = (size_t)(next64() % 4096);
            else ilen = (size_t)(next64() % sizeof in);
            fill(in, ilen);
            uint8_t want[32], got[32];
            randomx_calculate_hash(ovm, in, ilen, want);
            rx_vm *vm = (i % 10 == 3) ? vs : vh;   /* every 10th with software AES */
            CHECK(rx_vm_hash(vm, in, ilen, got) == RX_OK);
            if (memcmp(got, want, 32) == 0) agree++;
            else fprintf(stderr, "  mismatch: key len %zu, input len %zu\n", klen, ilen);
            CHECK_MEM(got, want, 32);
            total++;
        }
        rx_vm_free(vh); rx_vm_free(vs); rx_cache_free(c);
        if (ovm) randomx_destroy_vm(ovm);
        randomx_release_cache(oc);
    }
    fprintf(stderr, "oracle: %d/%d agree\n", agree, total);
    CHECK(total == nkeys * per_key);
}

int main(void) {
    const char *e = getenv("RXLOCK_ORACLE_SEED");
    g_s = e && *e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);
    fprintf(stderr, "seed %llu (set RXLOCK_ORACLE_SEED to repeat)\n", (unsigned long long)g_s);
    RUN(t_oracle);
    return test_summary();
}
