/* tests/test_util.c — hex codec, bounded reads, atomic no-clobber writes. */
#include "test.h"
#include "util/util.h"
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static void t_hex(void) {
    uint8_t b[4]; size_t n; char s[9];
    CHECK(util_hex_decode("00fFa1", b, sizeof b, &n) == 0 && n == 3);
    CHECK(b[0] == 0 && b[1] == 0xff && b[2] == 0xa1);
    CHECK(util_hex_decode("", b, sizeof b, &n) == 0 && n == 0);
    CHECK(util_hex_decode("abc", b, sizeof b, &n) == -1);
    CHECK(util_hex_decode("zz", b, sizeof b, &n) == -1);
    CHECK(util_hex_decode("0011223344", b, sizeof b, &n) == -1);
    util_hex_encode(s, b, 3);
    CHECK(strcmp(s, "00ffa1") == 0);
}

static void t_atomic(void) {
    char dir[] = "/tmp/rxlock-test-XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(util_write_file_atomic(path, "one", 3, 0, 0600) == 0);
    errno = 0;
    CHECK(util_write_file_atomic(path, "two", 3, 0, 0600) == -1 && errno == EEXIST);
    uint8_t *d; size_t n;
    CHECK(util_read_file(path, 100, &d, &n) == 0 && n == 3 && memcmp(d, "one", 3) == 0);
    free(d);
    CHECK(util_write_file_atomic(path, "two", 3, 1, 0600) == 0);
    CHECK(util_read_file(path, 100, &d, &n) == 0 && n == 3 && memcmp(d, "two", 3) == 0);
    free(d);
    errno = 0;
    CHECK(util_read_file(path, 2, &d, &n) == -1 && errno == EFBIG);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    util_atomic a;
    CHECK(util_atomic_open(&a, path, 1, 0600) == 0);
    char tmp[PATH_MAX]; strcpy(tmp, a.tmp);
    util_atomic_abort(&a);
    CHECK(access(tmp, F_OK) != 0);
    unlink(path); rmdir(dir);
}

int main(void) {
    RUN(t_hex);
    RUN(t_atomic);
    return test_summary();
}
