/* SPDX-License-Identifier: ISC */
/* fuzz/fuzz_puzzle.c — libFuzzer target for the puzzle parser: parse any
 * bytes; when they parse, the canonical re-serialisation must parse back
 * to the same header digest, and verify must not crash. */
#include "rxlock/rxlock.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256];
    tl_puzzle *pz = NULL;
    if (tl_puzzle_parse((const char *)data, size, &pz, err, sizeof err) != 0) return 0;
    (void)tl_puzzle_verify(pz, NULL);
    (void)tl_puzzle_verify(pz, pz->signer);
    char *json = NULL;
    size_t len = 0;
    if (tl_puzzle_to_json(pz, &json, &len) == 0) {
        tl_puzzle *back = NULL;
        if (tl_puzzle_parse(json, len, &back, err, sizeof err) != 0) abort();
        if (memcmp(back->header_digest, pz->header_digest, 32) != 0) abort();
        char *again = NULL;
        size_t len2 = 0;
        if (tl_puzzle_to_json(back, &again, &len2) != 0 || len2 != len || memcmp(again, json, len) != 0) abort();
        free(again);
        tl_puzzle_free(back);
        free(json);
    }
    tl_puzzle_free(pz);
    return 0;
}
