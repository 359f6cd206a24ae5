#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# src/sha3/gen_rounds.py — generates src/sha3/keccak_round.h: one Keccak-f[1600]
# round (FIPS 202 §3.2: theta, rho, pi, chi, iota) as macros over 25 named
# lane variables, for the scalar C backends, the AArch64 SHA3 backend and the
# x86-64 vector backends (AVX-512VL one lane per xmm; AVX-512F eight states per
# zmm and AVX2 four per ymm for the multi-chain backends).
# Lane A[x,y] is variable <prefix><x+5y, two digits>.   Usage: gen_rounds.py > keccak_round.h
R = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61],
     [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]]          # R[x][y], FIPS 202 Table 2

def n(p, x, y):
    return "%s##%02d" % (p, x + 5 * y)

def src_of(X, Y):
    # pi: B[X,Y] = A[x,y] with X = y, Y = 2x+3y  =>  x = 3(Y-3X) mod 5
    return ((Y - 3 * X) * 3) % 5, X

def scalar():
    o = []
    o.append("/* One round, lanes A -> E, round constant rc.  ROTL/ANDN from the includer. */")
    o.append("#define KECCAK_ROUND(A, E, rc) do { \\")
    for x in range(5):
        o.append("    uint64_t C%d_ = %s; \\" % (x, " ^ ".join(n("A", x, y) for y in range(5))))
    for x in range(5):
        o.append("    uint64_t D%d_ = C%d_ ^ ROTL(C%d_, 1); \\" % (x, (x + 4) % 5, (x + 1) % 5))
    for Y in range(5):
        for X in range(5):
            x, y = src_of(X, Y)
            r = R[x][y]
            v = "(%s ^ D%d_)" % (n("A", x, y), x)
            o.append("    uint64_t B%d%d_ = %s; \\" % (X, Y, ("ROTL(%s, %d)" % (v, r)) if r else v))
        for X in range(5):
            e = "B%d%d_ ^ ANDN(B%d%d_, B%d%d_)" % (X, Y, (X + 1) % 5, Y, (X + 2) % 5, Y)
            if X == 0 and Y == 0:
                e += " ^ (rc)"
            o.append("    %s = %s; \\" % (n("E", X, Y), e))
    o.append("} while (0)")
    return o

def neon():
    # EOR3 (a^b^c), RAX1 (a ^ rol(b,1)), XAR (ror(a^b, k)), BCAX (a ^ (b & ~c)).
    o = []
    o.append("/* The same round with the ARMv8.2 SHA3 instructions, lanes in uint64x2_t. */")
    o.append("#define KECCAK_ROUND_SHA3(A, E, rcv) do { \\")
    for x in range(5):
        o.append("    uint64x2_t C%d_ = veor3q_u64(veor3q_u64(%s, %s, %s), %s, %s); \\"
                 % ((x,) + tuple(n("A", x, y) for y in range(5))))
    for x in range(5):
        o.append("    uint64x2_t D%d_ = vrax1q_u64(C%d_, C%d_); \\" % (x, (x + 4) % 5, (x + 1) % 5))
    for Y in range(5):
        for X in range(5):
            x, y = src_of(X, Y)
            r = R[x][y]
            if r:
                o.append("    uint64x2_t B%d%d_ = vxarq_u64(%s, D%d_, %d); \\" % (X, Y, n("A", x, y), x, 64 - r))
            else:
                o.append("    uint64x2_t B%d%d_ = veorq_u64(%s, D%d_); \\" % (X, Y, n("A", x, y), x))
        for X in range(5):
            e = "vbcaxq_u64(B%d%d_, B%d%d_, B%d%d_)" % (X, Y, (X + 2) % 5, Y, (X + 1) % 5, Y)
            if X == 0 and Y == 0:
                e = "veorq_u64(%s, rcv)" % e
            o.append("    %s = %s; \\" % (n("E", X, Y), e))
    o.append("} while (0)")
    return o

def rc_bit(t):
    # FIPS 202 Algorithm 5: rc(t) from the LFSR x^8 + x^6 + x^5 + x^4 + 1
    if t % 255 == 0:
        return 1
    R = [1, 0, 0, 0, 0, 0, 0, 0]
    for _ in range(t % 255):
        R = [0] + R
        R[0] ^= R[8]; R[4] ^= R[8]; R[5] ^= R[8]; R[6] ^= R[8]
        R = R[:8]
    return R[0]

def rc_table():
    out = []
    for i in range(24):
        rc = 0
        for j in range(7):
            if rc_bit(j + 7 * i):
                rc |= 1 << ((1 << j) - 1)
        out.append("UINT64_C(0x%016x)" % rc)
    o = ["/* Round constants RC[i], FIPS 202 Algorithm 6. */", "#define KECCAK_RC_INIT { \\"]
    for i in range(0, 24, 4):
        o.append("    " + ", ".join(out[i:i + 4]) + ", \\")
    o.append("}")
    return o

def helpers():
    ids = ["%02d" % i for i in range(25)]
    o = ["/* Declare / load / store the 25 lanes of prefix P from / to array S. */"]
    o.append("#define KECCAK_DECL(T, P) T " + ", ".join("P##" + i for i in ids))
    o.append("#define KECCAK_LOAD(P, S) do { " + " ".join("P##%s = (S)[%d];" % (i, int(i)) for i in ids) + " } while (0)")
    o.append("#define KECCAK_STORE(P, S) do { " + " ".join("(S)[%d] = P##%s;" % (int(i), i) for i in ids) + " } while (0)")
    return o

def vector_round(name, T, comment, xor3, xor, rol, chi):
    # The theta-in-place form: C from two three-way XORs, D applied to every
    # lane first (the D's then die: at most 30 values live), then rho/pi as
    # rotations of the updated lanes and chi / iota.  xor3(a,b,c), xor(a,b),
    # rol(a,r) and chi(a,b,c) = a ^ (~b & c) give the instruction spelling.
    o = []
    o.append("/* %s */" % comment)
    o.append("#define %s(A, E, rcv) do { \\" % name)
    for x in range(5):
        a = [n("A", x, y) for y in range(5)]
        o.append("    %s C%d_ = %s; \\" % (T, x, xor3(xor3(a[0], a[1], a[2]), a[3], a[4])))
    for x in range(5):
        o.append("    %s D%d_ = %s; \\" % (T, x, xor("C%d_" % ((x + 4) % 5), rol("C%d_" % ((x + 1) % 5), 1))))
    for y in range(5):
        o.append("    " + " ".join("%s = %s;" % (n("A", x, y), xor(n("A", x, y), "D%d_" % x)) for x in range(5)) + " \\")
    for Y in range(5):
        for X in range(5):
            x, y = src_of(X, Y)
            r = R[x][y]
            t = n("A", x, y)
            o.append("    %s B%d%d_ = %s; \\" % (T, X, Y, rol(t, r) if r else t))
        for X in range(5):
            e = chi("B%d%d_" % (X, Y), "B%d%d_" % ((X + 1) % 5, Y), "B%d%d_" % ((X + 2) % 5, Y))
            if X == 0 and Y == 0:
                e = xor(e, "rcv")
            o.append("    %s = %s; \\" % (n("E", X, Y), e))
    o.append("} while (0)")
    return o

def avx512(p, T, comment, name):
    # VPTERNLOGQ does the three-way XORs (imm 0x96) and chi's a ^ (~b & c)
    # (imm 0xd2) in one instruction, VPROLQ the rotations; no shuffles.
    return vector_round(name, T, comment,
                        lambda a, b, c: "%s_ternarylogic_epi64(%s, %s, %s, 0x96)" % (p, a, b, c),
                        lambda a, b: "%s_xor_si%s(%s, %s)" % (p, T[-4:-1], a, b),
                        lambda a, r: "%s_rol_epi64(%s, %d)" % (p, a, r),
                        lambda a, b, c: "%s_ternarylogic_epi64(%s, %s, %s, 0xd2)" % (p, a, b, c))

def avx2():
    # AVX2: no rotate or three-way instructions: shifts and OR, ANDNOT; the
    # byte rotations (8, 56) as one VPSHUFB each.
    x = lambda a, b: "_mm256_xor_si256(%s, %s)" % (a, b)
    return vector_round("KECCAK_ROUND_AVX2", "__m256i",
                        "The same round with AVX2, four independent states in the 64-bit lanes of __m256i.",
                        lambda a, b, c: x(x(a, b), c), x,
                        lambda a, r: ("_mm256_shuffle_epi8(%s, KECCAK_AVX2_ROL%d)" % (a, r)) if r in (8, 56) else
                                     "_mm256_or_si256(_mm256_slli_epi64(%s, %d), _mm256_srli_epi64(%s, %d))" % (a, r, a, 64 - r),
                        lambda a, b, c: x(a, "_mm256_andnot_si256(%s, %s)" % (b, c)))

print("/* SPDX-License-Identifier: ISC */")
print("/* src/sha3/keccak_round.h — GENERATED by gen_rounds.py; do not edit.")
print(" * One Keccak-f[1600] round over 25 named lanes (A[x,y] = <prefix><x+5y>). */")
print("#ifndef RXLOCK_SHA3_KECCAK_ROUND_H")
print("#define RXLOCK_SHA3_KECCAK_ROUND_H")
print("\n".join(rc_table()))
print("\n".join(helpers()))
print("\n".join(scalar()))
print()
print("\n".join(neon()))
print()
print("\n".join(avx512("_mm", "__m128i", "The same round with AVX-512VL on one lane per __m128i.", "KECCAK_ROUND_AVX512")))
print()
print("\n".join(avx512("_mm512", "__m512i", "The same round with AVX-512F, eight independent states in the 64-bit lanes of __m512i.", "KECCAK_ROUND_AVX512X8")))
print()
print("/* VPSHUFB masks rotating each 64-bit lane left by 8 / 56 bits. */")
print("#define KECCAK_AVX2_ROL8 _mm256_set_epi8(14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1, 0, 7, \\")
print("                                     14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1, 0, 7)")
print("#define KECCAK_AVX2_ROL56 _mm256_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1, \\")
print("                                      8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1)")
print("\n".join(avx2()))
print("#endif")
