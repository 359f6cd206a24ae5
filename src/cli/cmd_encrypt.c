/* src/cli/cmd_encrypt.c — `rxlock encrypt`: encrypt a file or stdin to one
 * or more age X25519 recipients (age v1 format, optional ASCII armor). */
#include "cli/cli.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char cmd_encrypt_usage[] =
    "usage: rxlock encrypt -r RECIPIENT [-r RECIPIENT ...] [-a] [-o OUT] [--force] [FILE|-]\n"
    "  Encrypt FILE (default: stdin) in the age v1 format; 'age -d' opens it.\n"
    "  -r, --recipient R  an age X25519 recipient (age1...), e.g. an epoch key\n"
    "  -a, --armor        write PEM ASCII armor instead of binary\n"
    "  -o, --output OUT   write to OUT atomically (default: stdout)\n"
    "      --force        replace an existing OUT\n";

int cmd_encrypt(int argc, char **argv) {
    static const struct option opts[] = {
        {"recipient", required_argument, NULL, 'r'},
        {"armor", no_argument, NULL, 'a'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'F'},
        {NULL, 0, NULL, 0}};
    uint8_t pks[TL_AGE_MAX_RECIPIENTS][32];
    size_t npk = 0;
    int armor = 0, force = 0, c;
    const char *out = NULL, *in_path = "-";
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:ao:", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (npk == TL_AGE_MAX_RECIPIENTS) return cli_usage_error(argv[0], "too many recipients");
            if (tl_age_recipient_decode(optarg, pks[npk]) != 0)
                return cli_usage_error(argv[0], "'%s' is not an age X25519 recipient (age1...)", optarg);
            npk++;
            break;
        case 'a': armor = 1; break;
        case 'o': out = optarg; break;
        case 'F': force = 1; break;
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (npk == 0) return cli_usage_error(argv[0], "missing -r RECIPIENT");
    if (argc - optind > 1) return cli_usage_error(argv[0], "too many arguments");
    if (argc - optind == 1) in_path = argv[optind];

    int in_fd = 0;
    if (strcmp(in_path, "-") != 0 && (in_fd = open(in_path, O_RDONLY | O_CLOEXEC)) < 0)
        return cli_error("%s: %s", in_path, strerror(errno));
    util_atomic a;
    int out_fd = 1, rc;
    if (out) {
        if (util_atomic_open(&a, out, force, 0644) != 0) {
            rc = cli_error("%s: %s%s", out, strerror(errno), errno == EEXIST ? " (use --force to replace it)" : "");
            if (in_fd > 0) close(in_fd);
            return rc;
        }
        out_fd = a.fd;
    } else if (!armor && isatty(1)) {
        if (in_fd > 0) close(in_fd);
        return cli_error("refusing to write binary ciphertext to a terminal (use -a or -o)");
    }
    int e = tl_age_encrypt_fd(in_fd, out_fd, (const uint8_t (*)[32])pks, npk, armor);
    int saved = errno;
    if (in_fd > 0) close(in_fd);
    if (e != 0) {
        if (out) util_atomic_abort(&a);
        if (e == TL_AGE_EIO) return cli_error("encrypt: %s: %s", tl_age_strerror(e), strerror(saved));
        return cli_error("encrypt: %s", tl_age_strerror(e));
    }
    if (out && util_atomic_commit(&a) != 0)
        return cli_error("%s: %s%s", out, strerror(errno), errno == EEXIST ? " (use --force to replace it)" : "");
    return CLI_OK;
}
