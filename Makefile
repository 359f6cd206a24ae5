# SPDX-License-Identifier: ISC
# rxlock — top-level build.  GNU make.  Targets:
#   all (default)  build/librxlock.a build/librxlock.so build/rxlock
#   deps           install the Debian packages the build and tests need
#   check          unit, vector, differential and CLI tests (light mode)
#   check-full     full-mode (2 GiB dataset) vector tests
#   check-sanitize ASan+UBSan build of the C tests (quick mode) and of the
#                  CLI, which runs the CLI suites in SAN_CLI_SUITES
#   check-mlkem-1m the 1,000,000-test accumulated ML-KEM-768 hash (slow)
#   demo           lock a small secret, solve it, open it; epoch puzzles; a
#                  local beacon end to end (tools/demo.sh)
#   bench          build the benchmarks in bench/
#   fuzz-build     build the libFuzzer targets in fuzz/ (clang) into build-fuzz/fuzz/
#   fuzz           build them and run each for a bounded time (fuzz/run.sh)
#   install        PREFIX=/usr/local (DESTDIR honoured): library, headers, CLI,
#                  rxlock.1 and rxlock.3, LICENSE and the docs the man pages name
#   uninstall      removes what install wrote
#   lint-man       check docs/rxlock.1 (mandoc -T lint, else groff -ww)
#   static         build/static/rxlock: the CLI as a static PIE (Debian's
#                  libsodium.a and libjansson.a, glibc), for the container image
#   image          the container image rxlock:VERSION (tools/container.sh build)
#   web            the beacon's web page into build/web/ (npm ci of
#                  web/package-lock.json into build/web-npm, esbuild bundle);
#                  make install installs it when built; make all never needs npm
VERSION   := $(shell sed -n 's/^#define RXLOCK_VERSION_STRING "\(.*\)"/\1/p' include/rxlock/version.h)
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
CC        ?= cc
OPT       ?= -O2
PKGS      := libsodium jansson

HARDEN_CFLAGS  := -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIC
# Only what include/rxlock/*.h declares (inside #pragma GCC visibility
# push(default)) is exported from librxlock.so; tests/cli/test_exports.sh.
VIS_CFLAGS     := -fvisibility=hidden
HARDEN_LDFLAGS := -Wl,-z,relro,-z,now -Wl,-z,noexecstack
WARN      := -Wall -Wextra -Wconversion -Wshadow -Wstrict-prototypes
ifeq ($(WERROR),1)
WARN      += -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsodium -ljansson)
CFLAGS    ?=
CFLAGS    += -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) $(HARDEN_CFLAGS) $(VIS_CFLAGS) -Iinclude -Isrc \
             -DRXLOCK_VERSION='"$(VERSION)"' $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS   += $(HARDEN_LDFLAGS) $(EXTRA_LDFLAGS)
LIBS      := $(PKG_LIBS) -lpthread -lm
# libcurl: only the CLI's beacon fetching (src/cli/feed_fetch.c) uses it
CURL_LIBS := $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
TEST_LIBS := $(LIBS) -lcrypto -lrandomx -lstdc++

LIB_SRC   := $(sort $(wildcard src/rx/*.c src/sha3/*.c src/pq/*.c src/age/*.c src/lock/*/*.c src/util/*.c))
CLI_SRC   := $(sort $(wildcard src/cli/*.c src/cli/*/*.c))
# tests/test_api_age.c is built as a library user would build it (below).
API_TEST  := tests/test_api_age.c
TEST_SRC  := $(filter-out $(API_TEST),$(sort $(wildcard tests/test_*.c)))
# bench/: one program per bench/*.c, except the harness's helper files,
# which go into build/libbench.a with the CLI's progress display; every
# bench links the library (no copies of its code in bench/).
BENCH_HELPERS := bench/bench_variant.c bench/bench_host.c bench/bench_workers.c bench/bench_gen_pair.c
BENCH_SRC := $(filter-out $(BENCH_HELPERS),$(sort $(wildcard bench/*.c)))
FUZZ_SRC  := $(sort $(wildcard fuzz/fuzz_*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# The test build: the same library compiled with -DRXLOCK_TESTING, which adds
# the fault-injection hooks and the deterministic test mode.  Only tests link
# it (build/librxlock-test.a, build/rxlock-test); nothing of it is installed.
TLIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/tobj/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%) $(API_TEST:tests/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# the CLI's progress display (src/cli/progress.c), also linked by bench/ and tests
PROGRESS_OBJ := $(BUILD)/obj/src/cli/progress.o
BENCH_HOBJ := $(BENCH_HELPERS:%.c=$(BUILD)/obj/%.o)

.PHONY: uninstall
.PHONY: web all deps check check-full check-mlkem-1m check-sanitize demo bench fuzz fuzz-build fuzz-targets install clean tests lint-man static image
all: $(BUILD)/librxlock.a $(BUILD)/librxlock.so $(BUILD)/rxlock

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# the installed web page's directory, the last place cli_beacon_web_publish looks
$(BUILD)/obj/src/cli/beacon/web.o: CFLAGS += -DRXLOCK_WEB_DIR_BUILT='"$(PREFIX)/share/rxlock/web"'

$(BUILD)/tobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DRXLOCK_TESTING -MMD -MP -c $< -o $@

$(BUILD)/librxlock-test.a: $(TLIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/rxlock-test: $(CLI_OBJ) $(BUILD)/librxlock-test.a
	$(CC) $(LDFLAGS) -pie -o $@ $(CLI_OBJ) $(BUILD)/librxlock-test.a $(LIBS) $(CURL_LIBS)

$(BUILD)/librxlock.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librxlock.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,librxlock.so.0 $(LDFLAGS) -o $@ $^ $(LIBS)
	ln -sf librxlock.so $(BUILD)/librxlock.so.0

$(BUILD)/rxlock: $(CLI_OBJ) $(BUILD)/librxlock.a
	$(CC) $(LDFLAGS) -pie -o $@ $(CLI_OBJ) $(BUILD)/librxlock.a $(LIBS) $(CURL_LIBS)

# A static PIE: no shared library at run time (a FROM scratch image).
STATIC_LIBS := $(shell pkg-config --static --libs $(PKGS) 2>/dev/null || echo -lsodium -ljansson) -lpthread -lm
# No libcurl in it: feed_fetch.c is built with -DRXLOCK_NO_CURL (URLs are
# refused with a message saying so; directories still work).
STATIC_CLI_OBJ := $(filter-out $(BUILD)/obj/src/cli/feed_fetch.o,$(CLI_OBJ)) $(BUILD)/sobj/src/cli/feed_fetch.o
$(BUILD)/sobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DRXLOCK_NO_CURL -MMD -MP -c $< -o $@
static: $(BUILD)/static/rxlock
$(BUILD)/static/rxlock: $(STATIC_CLI_OBJ) $(BUILD)/librxlock.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -static-pie -o $@ $(STATIC_CLI_OBJ) $(BUILD)/librxlock.a $(STATIC_LIBS)

image: static
	@sh tools/container.sh build $(BUILD)/static/rxlock

$(BUILD)/tests/%: tests/%.c tests/test.h $(BUILD)/librxlock-test.a $(PROGRESS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DRXLOCK_TESTING -MMD -MP -Itests -o $@ $< $(PROGRESS_OBJ) $(BUILD)/librxlock-test.a $(LDFLAGS) $(TEST_LIBS)

# The public API alone: only -Iinclude (no src/), linked against the shared
# library (found at run time through the rpath; librxlock.so.0 is its soname).
$(BUILD)/tests/test_api_age: $(API_TEST) tests/test.h $(BUILD)/librxlock.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) -g $(WARN) -MMD -MP -Iinclude $(EXTRA_CFLAGS) -o $@ $< \
	  -L$(BUILD) -lrxlock -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS)

$(BUILD)/libbench.a: $(BENCH_HOBJ) $(PROGRESS_OBJ)
	@rm -f $@
	ar rcs $@ $^

# bench_stall switches the test build's loop variants (rx_jit_test_stall)
$(BUILD)/bench/bench_stall: bench/bench_stall.c $(BUILD)/libbench.a $(BUILD)/librxlock-test.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DRXLOCK_TESTING -MMD -MP -Ibench -o $@ $< $(BUILD)/libbench.a $(BUILD)/librxlock-test.a $(LDFLAGS) $(TEST_LIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libbench.a $(BUILD)/librxlock.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -Ibench -o $@ $< $(BUILD)/libbench.a $(BUILD)/librxlock.a $(LDFLAGS) $(TEST_LIBS)

# the enumerated crash test's LD_PRELOAD shim (tests/shim/killshim.c)
$(BUILD)/tests/killshim.so: tests/shim/killshim.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -fPIC -shared -o $@ $< -ldl

tests: all $(BUILD)/rxlock-test $(TEST_BIN) $(BUILD)/tests/killshim.so

deps:
	@sh tools/deps.sh

check: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) sh tests/run.sh

check-full: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) RXLOCK_TEST_FULL=1 sh tests/run.sh full

check-mlkem-1m: $(BUILD)/tests/test_pq_mlkem
	@RXLOCK_MLKEM_1M=1 $(BUILD)/tests/test_pq_mlkem

# ASan+UBSan: separate build tree, the C tests in quick mode, then the CLI
# suites below against build-san/rxlock and build-san/rxlock-test (every
# sanitizer report is logged and fails its suite: tests/run.sh).  The CLI
# suites that drive untrusted input and the everyday commands; not run here:
# test_pq_ct (valgrind, which cannot run ASan binaries), test_resume,
# test_lockfile_resume and
# test_crash_solve (kill -9 at points timed from a reference run: ASan's
# slowdown moves them; make check runs them), test_progress (TTY timing),
# test_cluster (plan/group/assemble at length: the Slurm stage runs it),
# test_demo (tools/demo.sh's beacon in real time), the static checks of the
# tree (test_layers, test_exports, test_shipping,
# test_man) and the external oracles and tools (age interop, typage, noble,
# the Kubernetes schema, the container, the benchmarks).
SAN_CLI_SUITES ?= test_basic test_refusal test_misuse test_lock test_lockfile test_age_bad test_age_pq
check-sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build-san OPT=-O1 \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -U_FORTIFY_SOURCE" \
	  EXTRA_LDFLAGS="-fsanitize=address,undefined" tests
	@BUILD=build-san RXLOCK_TEST_QUICK=1 ASAN_OPTIONS=detect_leaks=1 RXLOCK_CLI_SUITES="$(SAN_CLI_SUITES)" sh tests/run.sh

demo: deps all
	@sh tools/demo.sh $(BUILD)/rxlock

bench: all $(BENCH_BIN)

# libFuzzer targets: the whole library compiled with clang and the fuzzer
# instrumentation (ASan + UBSan) in its own tree, each fuzz/fuzz_*.c linked
# against it.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_BIN   := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)
fuzz-build:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) OPT=-O1 \
	  EXTRA_CFLAGS="$(FUZZ_FLAGS) -U_FORTIFY_SOURCE" EXTRA_LDFLAGS="-fsanitize=address,undefined" fuzz-targets

fuzz-targets: $(FUZZ_BIN)

$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/librxlock.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(BUILD)/librxlock.a $(LDFLAGS) $(LIBS)

fuzz: all fuzz-build
	@sh fuzz/run.sh

# what make install puts in PREFIX/share/doc/rxlock (the man pages refer to them)
INSTALL_DOCS := LICENSE README.md docs/SECURITY.md docs/FORMAT.md docs/AGE.md docs/DESIGN.md

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/rxlock $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(BUILD)/librxlock.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/librxlock.so $(DESTDIR)$(PREFIX)/lib/librxlock.so.$(VERSION)
	ln -sf librxlock.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/librxlock.so.0
	ln -sf librxlock.so.0 $(DESTDIR)$(PREFIX)/lib/librxlock.so
	install -m 644 include/rxlock/*.h $(DESTDIR)$(PREFIX)/include/rxlock/
	install -m 755 $(BUILD)/rxlock $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/rxlock.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 docs/rxlock.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -d $(DESTDIR)$(PREFIX)/share/doc/rxlock
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(PREFIX)/share/doc/rxlock/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' rxlock.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/rxlock.pc
	@# the beacon's web page, when make web built it
	if [ -f $(BUILD)/web/app.js ]; then install -d $(DESTDIR)$(PREFIX)/share/rxlock/web && \
	  install -m 644 $(WEB_OUT) $(DESTDIR)$(PREFIX)/share/rxlock/web/; fi

# The beacon's web page (docs/DESIGN.md, "Beacon web page"): the pinned npm
# packages (typage, @noble/curves, esbuild) go into the git-ignored
# build/web-npm from web/package-lock.json (no install scripts run), esbuild
# bundles web/src/ into one app.js; index.html and style.css are copied.
WEB_NPM := $(BUILD)/web-npm
WEB_OUT := $(BUILD)/web/index.html $(BUILD)/web/app.js $(BUILD)/web/style.css
web: $(WEB_OUT)

$(WEB_NPM)/.installed: web/package.json web/package-lock.json
	@mkdir -p $(WEB_NPM)
	cp web/package.json web/package-lock.json $(WEB_NPM)/
	cd $(WEB_NPM) && npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# The page's client floor (web/src/rule.js) is generated from the one
# built-in floor table, src/lock/measure/floor.c (web/tools/floor_rows.mjs):
# a package in build/web-gen that esbuild finds through NODE_PATH.
WEB_GEN := $(BUILD)/web-gen
$(WEB_GEN)/rxlock-floor-rows/index.js: src/lock/measure/floor.c web/tools/floor_rows.mjs
	node web/tools/floor_rows.mjs src/lock/measure/floor.c $(WEB_GEN)

$(BUILD)/web/app.js: $(wildcard web/src/*.js) $(WEB_NPM)/.installed $(WEB_GEN)/rxlock-floor-rows/index.js
	@mkdir -p $(dir $@)
	NODE_PATH=$(abspath $(WEB_NPM))/node_modules:$(abspath $(WEB_GEN)) $(WEB_NPM)/node_modules/.bin/esbuild web/src/app.js \
	  --bundle --format=iife --target=es2020 --minify --legal-comments=eof --log-level=warning --outfile=$@

$(BUILD)/web/%: web/%
	@mkdir -p $(dir $@)
	cp $< $@

# Removes exactly what install wrote (the public headers by name).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/librxlock.a $(DESTDIR)$(PREFIX)/lib/librxlock.so.$(VERSION) \
	      $(DESTDIR)$(PREFIX)/lib/librxlock.so.0 $(DESTDIR)$(PREFIX)/lib/librxlock.so \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/rxlock.pc $(DESTDIR)$(PREFIX)/bin/rxlock \
	      $(DESTDIR)$(PREFIX)/share/man/man1/rxlock.1 $(DESTDIR)$(PREFIX)/share/man/man3/rxlock.3
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/rxlock/,$(notdir $(wildcard include/rxlock/*.h)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/doc/rxlock/,$(notdir $(INSTALL_DOCS)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/rxlock/web/,index.html app.js style.css)
	-rmdir $(DESTDIR)$(PREFIX)/share/rxlock/web $(DESTDIR)$(PREFIX)/share/rxlock 2>/dev/null
	-rmdir $(DESTDIR)$(PREFIX)/include/rxlock $(DESTDIR)$(PREFIX)/share/doc/rxlock 2>/dev/null

lint-man:
	@if command -v mandoc >/dev/null 2>&1; then mandoc -T lint -W all docs/rxlock.1 docs/rxlock.3; \
	 else out=$$(groff -ww -man -z docs/rxlock.1 docs/rxlock.3 2>&1); echo "$$out"; test -z "$$out"; fi

clean:
	rm -rf build build-san build-fuzz

-include $(BUILD)/sobj/src/cli/feed_fetch.d $(LIB_OBJ:.o=.d) $(TLIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d) $(BENCH_BIN:=.d) $(BENCH_HOBJ:.o=.d) $(FUZZ_BIN:=.d)
