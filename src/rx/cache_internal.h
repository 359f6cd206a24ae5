/* SPDX-License-Identifier: ISC */
/* src/rx/cache_internal.h — private layout of rx_cache and rx_dataset
 * (cache + dataset side only; the VM side uses internal.h's functions). */
#ifndef RX_CACHE_INTERNAL_H
#define RX_CACHE_INTERNAL_H
#include "rx/internal.h"
#include "rx/superscalar.h"

#define RX_CACHE_ACCESSES 8
#define RX_CACHE_LINES    (RX_CACHE_SIZE / 64u)     /* 4194304 64-byte items */
#define RX_ARGON_BLOCKS   (RX_CACHE_SIZE / 1024u)   /* 262144 KiB            */
#define RX_ARGON_PASSES   3u
#define RX_DATASET_BYTES  (RX_DATASET_ITEMS * 64ull)

struct rx_cache {
    uint8_t      *memory;          /* RX_CACHE_SIZE bytes, rx_mem_alloc'd */
    unsigned      flags;
    int           initialized;
    rx_ss_program prog[RX_CACHE_ACCESSES];
};

struct rx_dataset {
    uint8_t  *memory;              /* RX_DATASET_BYTES, rx_mem_alloc'd */
    unsigned  flags;
};

/* Argon2d implementation used by rx_cache_init (RX_ARGON2_*; tests/bench
 * may change it; default AUTO).  Not synchronised: set before use. */
extern int rx_cache_argon2_impl;
#endif
