# SPDX-License-Identifier: ISC
# tests/cli/test_bench.sh — the bench harness (bench/bench.c, bench/compare):
# it must fail loudly when two variants disagree on the chain digest (the
# test-only deliberately wrong variant), keep A B B A order, write complete
# JSON lines, and agree with librandomx on a tiny v1 light chain; pair
# mode interleaves engines hash by hash and stops at the first step they
# disagree on, and --ref-prefix finds a peer's API under other names; and
# bench_dataset's label for our build names the form that ran; bench_gen
# prints one line per setting and a summary (figures not checked), and
# paired with a peer (the same prefixed shim) checks the chain steps agree
# and runs its windows A B B A.
. tests/cli/lib.sh
BENCH=${RXLOCK_BENCH:-$PWD/build/bench/bench}
if ! make -s build/bench/bench >"$TMP/make.log" 2>&1; then
  fail "build/bench/bench does not build"; cat "$TMP/make.log" >&2; summary; exit 1
fi
J=$TMP/good.jsonl
expect_rc 0 "sha3 vs openssl-sha3 agree" "$BENCH" screen -n 20000 -r 2 sha3 openssl-sha3 -o "$J"
check "summary says digests agree" grep -q 'digests: all runs of each work function agree' "$TMP/.out"
check "JSON lines complete, order A B B A" python3 - "$J" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
runs = [r for r in rows if r["event"] == "run"]
assert [r["variant"] for r in sorted(runs, key=lambda r: r["order"])] == ["sha3", "openssl-sha3", "openssl-sha3", "sha3"]
for r in runs:
    for k in ("variant", "version", "mode", "n", "seconds", "rate", "digest", "engine", "run_id", "key", "seed"):
        assert k in r, k
    for k in ("cpu", "cpu_flags", "thp", "kernel", "cpus"):
        assert k in r["host"], k
    assert r["n"] == 20000 and r["rate"] > 0 and len(r["digest"]) == 64
assert len({r["digest"] for r in runs}) == 1
PY
expect_rc 0 "compare on agreeing runs" bench/compare "$J"
check "compare prints the ratio table" grep -q 'openssl-sha3 / sha3' "$TMP/.out"

W=$TMP/wrong.jsonl
expect_rc 1 "a deliberately wrong variant fails the bench" "$BENCH" screen --test-wrong -n 1000 -r 2 sha3 test-wrong-sha3 -o "$W"
check "fails loudly: DIGEST MISMATCH" grep -q 'DIGEST MISMATCH' "$TMP/.err"
check "fails loudly: FAILED" grep -q 'FAILED' "$TMP/.err"
check "mismatch recorded in the JSON lines" grep -q '"event":"digest_mismatch"' "$W"
expect_rc 1 "compare fails on the mismatching file" bench/compare "$W"
check "compare names the mismatch" grep -q 'DIGEST MISMATCH' "$TMP/.err"
expect_rc 2 "test-only variant refused without --test-wrong" "$BENCH" screen -n 10 sha3 test-wrong-sha3
expect_rc 2 "unknown variant" "$BENCH" screen v3-interp
expect_rc 2 "ours has no JIT without W^X: v2-jit refused" "$BENCH" screen -n 1 v2-jit
expect_rc 2 "unknown mode" "$BENCH" frobnicate sha3
expect_rc 2 "unknown flag" "$BENCH" screen --frob sha3
# ref-* (a reference library dlopen'ed at run time, never linked): clear usage errors
expect_rc 2 "ref-v2 without --ref-lib / RXLOCK_BENCH_REF_LIB" env -u RXLOCK_BENCH_REF_LIB "$BENCH" screen -n 1 ref-v2-jit
check "says how to point it at a library" grep -q 'RXLOCK_BENCH_REF_LIB' "$TMP/.err"
expect_rc 2 "ref-v2 with a library that does not load" "$BENCH" screen -n 1 --ref-lib "$TMP/none.so" ref-v2-jit
check "names the dlopen failure" grep -q 'dlopen' "$TMP/.err"
expect_rc 2 "ref has no THP switch" "$BENCH" screen -n 1 --ref-lib "$TMP/none.so" ref-v2-jit-nothp

S=$TMP/scale.jsonl
expect_rc 0 "scale: sha3, 1 and 2 workers" "$BENCH" scale -n 20000 -r 1 -w 1,2 sha3 -o "$S"
check "scale lines for threads and processes" python3 - "$S" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"scale"' in l]
kinds = {(r["kind"], r["workers"]) for r in rows if r["event"] == "scale"}
assert kinds == {("threads", 1), ("processes", 1), ("threads", 2), ("processes", 2)}, kinds
for r in rows:
    if r["event"] == "scale":
        assert r["rate"] > 0 and len(r["worker_rates"]) == r["workers"] and "user_s" in r and "sys_s" in r
PY
expect_rc 0 "compare scale" bench/compare "$S"
check "compare prints processes/threads" grep -q 'processes/threads' "$TMP/.out"

# pair: engines interleaved hash by hash; every step must agree.
P=$TMP/pair.jsonl
expect_rc 0 "pair: sha3-sponge vs openssl-sha3, 1 and 2 workers" "$BENCH" pair -n 5000 -r 2 -w 1,2 sha3-sponge openssl-sha3 -o "$P"
check "pair lines: both variants, both kinds, both worker counts" python3 - "$P" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["event"] == "pair"]
keys = {(r["variant"], r["kind"], r["workers"]) for r in rows}
assert keys == {(v, k, w) for v in ("sha3-sponge", "openssl-sha3") for k in ("threads", "processes") for w in (1, 2)}, keys
for r in rows:
    assert r["rate"] > 0 and len(r["worker_rates"]) == r["workers"] and r["first"] == "sha3-sponge"
    assert (r["ratio_to_first"] == 1.0) == (r["variant"] == "sha3-sponge")
    assert len(set(r["digests"])) == r["workers"]   # each worker its own chain
PY
expect_rc 0 "compare pair" bench/compare "$P"
check "compare prints the pair table" grep -q '^pair run' "$TMP/.out"
expect_rc 1 "pair: a deliberately wrong variant fails at its first step" "$BENCH" pair --test-wrong -n 100 -r 1 sha3-sponge test-wrong-sha3
check "pair names the step" grep -q 'disagree at step 0' "$TMP/.err"
expect_rc 2 "pair: one variant is refused" "$BENCH" pair -n 1 sha3
expect_rc 2 "pair: different work functions are refused" "$BENCH" pair -n 1 sha3 v2-interp
expect_rc 2 "-mprotect is ours only" "$BENCH" screen -n 1 librandomx-v1-jit-mprotect
expect_rc 2 "-mprotect needs the JIT" "$BENCH" screen -n 1 v2-interp-mprotect
# --ref-prefix: a library exporting the randomx_* API under other names
# (here Debian's librandomx behind a test-only forwarding shim, "t_").
if [ "${RXLOCK_TEST_QUICK:-0}" = 0 ] && [ -e /usr/include/randomx.h ]; then
  cat > "$TMP/pfx.c" <<'C'
#include <randomx.h>
randomx_flags t_randomx_get_flags(void) { return randomx_get_flags(); }
randomx_cache *t_randomx_alloc_cache(randomx_flags f) { return randomx_alloc_cache(f); }
void t_randomx_init_cache(randomx_cache *c, const void *k, size_t n) { randomx_init_cache(c, k, n); }
void t_randomx_release_cache(randomx_cache *c) { randomx_release_cache(c); }
randomx_dataset *t_randomx_alloc_dataset(randomx_flags f) { return randomx_alloc_dataset(f); }
unsigned long t_randomx_dataset_item_count(void) { return randomx_dataset_item_count(); }
void t_randomx_init_dataset(randomx_dataset *d, randomx_cache *c, unsigned long a, unsigned long n) { randomx_init_dataset(d, c, a, n); }
void *t_randomx_get_dataset_memory(randomx_dataset *d) { return randomx_get_dataset_memory(d); }
void t_randomx_release_dataset(randomx_dataset *d) { randomx_release_dataset(d); }
randomx_vm *t_randomx_create_vm(randomx_flags f, randomx_cache *c, randomx_dataset *d) { return randomx_create_vm(f, c, d); }
void t_randomx_destroy_vm(randomx_vm *v) { randomx_destroy_vm(v); }
void t_randomx_calculate_hash(randomx_vm *v, const void *i, size_t n, void *o) { randomx_calculate_hash(v, i, n, o); }
C
  if ${CC:-cc} -shared -fPIC -o "$TMP/libpfx.so" "$TMP/pfx.c" -lrandomx 2>"$TMP/cc.err"; then
    expect_rc 0 "pair: ours vs a prefixed peer (--ref-prefix t_), v1 light, every step agrees" \
      "$BENCH" pair --no-warmup -n 2 -r 1 --ref-lib "$TMP/libpfx.so" --ref-prefix t_ v1-interp ref-v1-interp
    expect_rc 2 "--ref-prefix that the library lacks names the symbol" \
      "$BENCH" screen -n 1 --ref-lib "$TMP/libpfx.so" --ref-prefix no_ ref-v1-interp
    check "names the missing prefixed symbol" grep -q 'no symbol no_randomx_get_flags' "$TMP/.err"
    # bench_gen paired with a peer: our 2 workers against the peer's 2
    # threads, windows A B B A, after both computed the same chain steps
    if make -s build/bench/bench_gen >"$TMP/make.log" 2>&1; then
      expect_rc 0 "bench_gen paired: v1 light, 2 workers against the prefixed peer" \
        build/bench/bench_gen --work randomx-v1 --mode light --workers 2 --seconds 1 \
          --ref-lib "$TMP/libpfx.so" --ref-prefix t_
      check "bench_gen paired: both sides computed the same steps" \
        grep -q '^gen_pair_check work=randomx-v1 mode=light steps=3 agree=yes ' "$TMP/.out"
      check "bench_gen paired: windows A B B A" awk '/^gen_pair_window /{for (i = 1; i <= NF; i++) if ($i ~ /^side=/) s = s substr($i, 6) " "} END {exit s != "ours peer peer ours "}' "$TMP/.out"
      check "bench_gen paired: a round line and the summary" sh -c \
        "grep -Eq '^gen_pair work=randomx-v1 mode=light workers=2 ours=[0-9.]+ peer=[0-9.]+ ratio=[0-9.]+ .*round=1 load=' '$TMP/.out' &&
         grep -Eq '^gen_pair_summary .* rounds=1 peer_variant=ref-v1-jit .* ratio=[0-9.]+ min=[0-9.]+ max=[0-9.]+ ' '$TMP/.out'"
      expect_rc 2 "bench_gen paired: sha3 refused" build/bench/bench_gen --ref-lib "$TMP/libpfx.so"
      check "bench_gen paired: says how" grep -q 'add --work randomx-v2' "$TMP/.err"
      expect_rc 2 "bench_gen paired: a peer of another version refused" \
        build/bench/bench_gen --work randomx-v2 --ref-lib "$TMP/libpfx.so" --ref-prefix t_ --peer ref-v1-jit
    fi
  else
    fail "the test-only prefix shim does not build"; cat "$TMP/cc.err" >&2
  fi
fi

# bench_dataset labels our dataset build by the SuperscalarHash form that
# ran (SHA3 lanes and the fused chain: it said "(JIT)" for the vector form); 64 items, byte-checked.
if make -s build/bench/bench_dataset >"$TMP/make.log" 2>&1; then
  DS=$PWD/build/bench/bench_dataset
  expect_rc 0 "bench_dataset: 64 items, datasets identical" "$DS" -n 64 -r 1 -s
  check "bench_dataset: datasets identical" grep -q '^datasets identical' "$TMP/.out"
  check "bench_dataset: ours labelled by its form" grep -Eq 'rxlock   \(JIT (avx512|avx2|scalar|C)\) ' "$TMP/.out"
  if [ "$(uname -m)" = x86_64 ]; then
    expect_rc 0 "bench_dataset: forced scalar form" env RXLOCK_SUPERSCALAR=scalar "$DS" -n 64 -r 1 -s
    check "bench_dataset: forced scalar form labelled scalar" grep -q 'rxlock   (JIT scalar) ' "$TMP/.out"
  fi
  expect_rc 2 "bench_dataset -x refuses -n (it times the whole dataset)" "$DS" -x -n 64
else
  fail "build/bench/bench_dataset does not build"; cat "$TMP/make.log" >&2
fi

# Ours vs librandomx 1.1.10 on a tiny v1 light chain: the digests must agree.
if [ "${RXLOCK_TEST_QUICK:-0}" = 0 ]; then
  expect_rc 0 "v1 light: ours == librandomx" "$BENCH" screen --no-warmup -n 2 -r 1 v1-interp librandomx-v1-interp
fi
# bench_gen: generation throughput per setting (the lines' shape, not the figures)
if make -s build/bench/bench_gen >"$TMP/make.log" 2>&1; then
  expect_rc 0 "bench_gen sha3, 2 workers" build/bench/bench_gen --workers 2 --seconds 0.3
  check "bench_gen: a line per setting" sh -c "test \$(grep -c '^gen work=sha3-256 mode=light setting=' '$TMP/.out') -ge 4"
  check "bench_gen: the summary's ratios" grep -q '^gen_summary work=sha3-256 setting=one-chain workers=1 groups=1 rate=[0-9]* ratio_to_one_chain=1.00$' "$TMP/.out"
  expect_rc 2 "bench_gen: usage" build/bench/bench_gen --workers 0
else
  fail "build/bench/bench_gen does not build"; cat "$TMP/make.log" >&2
fi
summary
