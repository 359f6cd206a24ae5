/* SPDX-License-Identifier: ISC */
/* src/cli/measure/hash.c — `rxlock hash`: one RandomX v1/v2 hash of an input
 * under a key, printed as 64 lowercase hex characters (vectors, debugging).
 * Light mode by default; --full builds the 2080 MiB dataset first. */
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include "rxlock/rx.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_hash_usage[] =
    "usage: rxlock hash [--v1|--v2] [--full] [--threads N] [-v|--verbose]\n"
    "                   (--key HEX | --key-file F) (--input HEX | --input-file F | -)\n"
    "  Prints RandomX(key, input) as 64 lowercase hex characters.\n"
    "  --v1, --v2        RandomX version (default v2)\n"
    "  --full            full mode: build the 2080 MiB dataset (else light mode)\n"
    "  --threads N       dataset build threads, 0 = usable CPUs (default 0)\n"
    "  -v, --verbose     name the engine that ran on stderr (jit / interpreter,\n"
    "                    hardware / software AES, light / full)\n"
    "  --key HEX         key bytes as hex (may be empty: --key '')\n"
    "  --key-file F      key = the raw bytes of file F ('-' = stdin)\n"
    "  --input HEX       input bytes as hex\n"
    "  --input-file F    input = the raw bytes of file F\n"
    "  -                 input = the raw bytes of stdin\n"
    "  Keys and inputs may be 0..1 MiB.  Environment: RXLOCK_ENGINE=interp|jit\n"
    "  (jit: an error when the JIT cannot start), RXLOCK_AES=soft|hard.  A JIT\n"
    "  that cannot start otherwise falls back to the interpreter with one\n"
    "  warning line on stderr.\n";

static int decode_hex_arg(const char *cmd, const char *what, const char *hex,
                          size_t max, uint8_t **out, size_t *len) {
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > max)
        return cli_usage_error(cmd, "bad %s hex (odd length or over %zu bytes)", what, max);
    uint8_t *buf = malloc(n / 2 + 1);
    if (!buf) return cli_error("out of memory");
    if (util_hex_decode(hex, buf, n / 2 + 1, len) != 0 || *len != n / 2) {
        free(buf);
        return cli_usage_error(cmd, "bad %s hex", what);
    }
    *out = buf;
    return 0;
}

typedef struct {
    const char *key_hex, *key_file, *in_hex, *in_file;
    int version, full, verbose;
    uint64_t threads;
} hash_args;

static int parse_args(int argc, char **argv, hash_args *a) {
    static const struct option lo[] = {
        {"v1", no_argument, 0, '1'}, {"v2", no_argument, 0, '2'},
        {"full", no_argument, 0, 'F'}, {"threads", required_argument, 0, 't'},
        {"key", required_argument, 0, 'k'}, {"key-file", required_argument, 0, 'K'},
        {"input", required_argument, 0, 'i'}, {"input-file", required_argument, 0, 'I'},
        {"verbose", no_argument, 0, 'v'}, {0, 0, 0, 0}
    };
    const char *cmd = argv[0];
    int c, stdin_input = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":v", lo, NULL)) != -1) {
        switch (c) {
        case '1': a->version = 1; break;
        case '2': a->version = 2; break;
        case 'F': a->full = 1; break;
        case 't':
            if (cli_parse_u64(optarg, 0, 1024, &a->threads)) return cli_usage_error(cmd, "bad --threads '%s' (0..1024)", optarg);
            break;
        case 'v': a->verbose = 1; break;
        case 'k': a->key_hex = optarg; break;
        case 'K': a->key_file = optarg; break;
        case 'i': a->in_hex = optarg; break;
        case 'I': a->in_file = optarg; break;
        default: return cli_bad_option(cmd, optopt, argv[optind - 1]);
        }
    }
    for (; optind < argc; optind++) {
        if (!strcmp(argv[optind], "-") && !stdin_input) stdin_input = 1;
        else return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    }
    if (!!a->key_hex + !!a->key_file != 1) return cli_usage_error(cmd, "give exactly one of --key, --key-file");
    if (!!a->in_hex + !!a->in_file + stdin_input != 1)
        return cli_usage_error(cmd, "give exactly one of --input, --input-file, -");
    if (stdin_input) a->in_file = "-";
    if (a->key_file && a->in_file && !strcmp(a->key_file, "-") && !strcmp(a->in_file, "-"))
        return cli_usage_error(cmd, "key and input cannot both come from stdin");
    return CLI_OK;
}

/* The bytes of --key/--input HEX or of a file ('-' = stdin), at most max. */
static int load_bytes(const char *cmd, const char *what, const char *hex, const char *file, size_t max,
                      uint8_t **out, size_t *len) {
    if (hex) return decode_hex_arg(cmd, what, hex, max, out, len);
    if (util_read_file(file, max, out, len) == 0) return CLI_OK;
    return cli_error("%s: %s", file, errno == EFBIG ? "over 1 MiB" : strerror(errno));
}

/* One warning line for a JIT fallback; with --verbose the engine. */
static void report_engine(const rx_vm *vm, int verbose) {
    unsigned f = rx_vm_flags(vm);
    const char *why = rx_vm_fallback_reason(vm);
    if (why) cli_warn_fallback(why);
    if (!verbose) return;
    tl_engine_info e = { .work = (f & RX_FLAG_V2) ? TL_WORK_RANDOMX_V2 : TL_WORK_RANDOMX_V1,
                         .engine = (f & RX_FLAG_JIT) ? "jit" : "interpreter",
                         .aes = (f & RX_FLAG_HARD_AES) ? "hardware" : "software",
                         .mode = (f & RX_FLAG_FULL) ? "full" : "light",
                         .install = (f & RX_FLAG_JIT) ? rx_vm_jit_install(vm) : NULL };
    char eng[160];
    cli_engine_text(&e, eng, sizeof eng);
    fprintf(stderr, "rxlock: engine: %s, RandomX v%d\n", eng, (f & RX_FLAG_V2) ? 2 : 1);
}

/* cache [+ dataset] -> VM -> one hash; CLI_OK or the exit code after a message. */
static int compute(const hash_args *a, const uint8_t *key, size_t key_len, const uint8_t *in, size_t in_len,
                   uint8_t out[RX_HASH_SIZE]) {
    unsigned flags = rx_flags_from_env(rx_flags_default()) & ~(unsigned)(RX_FLAG_V2 | RX_FLAG_FULL);
    flags |= (a->version == 2 ? RX_FLAG_V2 : 0u) | (a->full ? RX_FLAG_FULL : 0u);
    rx_cache *cache = NULL;
    rx_dataset *ds = NULL;
    rx_vm *vm = NULL;
    const char *stage = "cache";
    int rc = rx_cache_new(&cache, flags);
    if (rc == RX_OK) rc = rx_cache_init(cache, key, key_len);
    if (rc == RX_OK && a->full) {
        stage = "dataset";
        rc = rx_dataset_new(&ds, flags);
        if (rc == RX_OK) rc = rx_dataset_init_parallel(ds, cache, (unsigned)a->threads);
    }
    if (rc == RX_OK) { stage = "vm"; rc = rx_vm_new(&vm, flags, a->full ? NULL : cache, ds); }
    if (rc == RX_OK) { stage = "hash"; report_engine(vm, a->verbose); rc = rx_vm_hash(vm, in, in_len, out); }
    rx_vm_free(vm);
    rx_dataset_free(ds);
    rx_cache_free(cache);
    if (rc == RX_EJIT) return cli_jit_error("vm", rx_engine_check(flags));
    if (rc != RX_OK) return cli_error("%s: %s", stage, rx_strerror(rc));
    return CLI_OK;
}

int cmd_hash(int argc, char **argv) {
    hash_args a = { .version = 2 };
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    uint8_t *key = NULL, *in = NULL, out[RX_HASH_SIZE];
    size_t key_len = 0, in_len = 0;
    rc = load_bytes(argv[0], "--key", a.key_hex, a.key_file, RX_MAX_KEY_SIZE, &key, &key_len);
    if (rc == CLI_OK) rc = load_bytes(argv[0], "--input", a.in_hex, a.in_file, RX_MAX_INPUT_SIZE, &in, &in_len);
    if (rc == CLI_OK) rc = compute(&a, key, key_len, in, in_len, out);
    if (key) { sodium_memzero(key, key_len); free(key); }
    if (in) { sodium_memzero(in, in_len); free(in); }
    if (rc) return rc;
    char hex[2 * RX_HASH_SIZE + 1];
    util_hex_encode(hex, out, RX_HASH_SIZE);
    if (printf("%s\n", hex) < 0 || fflush(stdout) != 0) return cli_error("stdout: write failed");
    return CLI_OK;
}
