/*
 * ChaCha20 and Poly1305 (RFC 8439) for the BIP324 kernels (bip324.cu), as
 * device functions. With WS_HOST defined, kernel/host_shim.h supplies the
 * types and qualifiers instead and the same code compiles for the host,
 * where the tests hold it to RFC 8439's vectors and to the library.
 */

#ifndef WS_PRIMITIVES_CUH
#define WS_PRIMITIVES_CUH

#ifndef WS_HOST
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
#define WS_DEV static __device__ __forceinline__
#define WS_KERNEL extern "C" __global__ void
#define WS_ROTL(x, n) __funnelshift_l((x), (x), (n))
/* 16-byte aligned loads and stores of one 64-byte block (a seal's body
 * blocks are 16-byte aligned: the host places them at multiples of 16; a
 * block that is not moves by aligned words, bip324.cu). */
WS_DEV void ws_load64(const u8 *p, u32 w[16])
{
    const uint4 *q = (const uint4 *)p;
    for (int i = 0; i < 4; i++) {
        uint4 v = q[i];
        w[4 * i] = v.x;
        w[4 * i + 1] = v.y;
        w[4 * i + 2] = v.z;
        w[4 * i + 3] = v.w;
    }
}
/* One aligned 4-byte word. */
WS_DEV u32 ws_word(const u8 *p)
{
    return *(const u32 *)p;
}
WS_DEV void ws_put_word(u8 *p, u32 v)
{
    *(u32 *)p = v;
}
WS_DEV void ws_store64(u8 *p, const u32 w[16])
{
    uint4 *q = (uint4 *)p;
    for (int i = 0; i < 4; i++)
        q[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
}
/* Adds `v` to `*p` atomically; returns the value before. */
WS_DEV u32 ws_atomic_add(u32 *p, u32 v)
{
    return atomicAdd(p, v);
}
#endif

#define WS_TAG 16
#define WS_MASK26 0x3ffffffu
#define WS_HIBIT (1u << 24)
#define WS_FOR(i, n) \
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

#define WS_QR(a, b, c, d)                    \
    a += b; d ^= a; d = WS_ROTL(d, 16);      \
    c += d; b ^= c; b = WS_ROTL(b, 12);      \
    a += b; d ^= a; d = WS_ROTL(d, 8);       \
    c += d; b ^= c; b = WS_ROTL(b, 7)

/* One ChaCha20 block (RFC 8439 2.3): key words, block counter, nonce words. */
WS_DEV void ws_chacha(const u32 k[8], u32 counter, u32 n0, u32 n1, u32 n2, u32 out[16])
{
    u32 x0 = 0x61707865u, x1 = 0x3320646eu, x2 = 0x79622d32u, x3 = 0x6b206574u;
    u32 x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
    u32 x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
    u32 x12 = counter, x13 = n0, x14 = n1, x15 = n2;
    for (int i = 0; i < 10; i++) {
        WS_QR(x0, x4, x8, x12);
        WS_QR(x1, x5, x9, x13);
        WS_QR(x2, x6, x10, x14);
        WS_QR(x3, x7, x11, x15);
        WS_QR(x0, x5, x10, x15);
        WS_QR(x1, x6, x11, x12);
        WS_QR(x2, x7, x8, x13);
        WS_QR(x3, x4, x9, x14);
    }
    out[0] = x0 + 0x61707865u;
    out[1] = x1 + 0x3320646eu;
    out[2] = x2 + 0x79622d32u;
    out[3] = x3 + 0x6b206574u;
    out[4] = x4 + k[0];
    out[5] = x5 + k[1];
    out[6] = x6 + k[2];
    out[7] = x7 + k[3];
    out[8] = x8 + k[4];
    out[9] = x9 + k[5];
    out[10] = x10 + k[6];
    out[11] = x11 + k[7];
    out[12] = x12 + counter;
    out[13] = x13 + n0;
    out[14] = x14 + n1;
    out[15] = x15 + n2;
}

WS_DEV u8 ws_byte(const u32 *w, u32 i)
{
    return (u8)(w[i >> 2] >> (8 * (i & 3)));
}

/* Poly1305 (RFC 8439 2.5) in radix 2^26. */

/* r from the one-time key (block 0's first 16 bytes), clamped. */
WS_DEV void ws_poly_r(const u32 b[16], u32 r[5])
{
    r[0] = b[0] & 0x3ffffffu;
    r[1] = ((b[0] >> 26) | (b[1] << 6)) & 0x3ffff03u;
    r[2] = ((b[1] >> 20) | (b[2] << 12)) & 0x3ffc0ffu;
    r[3] = ((b[2] >> 14) | (b[3] << 18)) & 0x3f03fffu;
    r[4] = (b[3] >> 8) & 0x00fffffu;
}

/* h = h * b mod 2^130 - 5, partly reduced (limbs below 2^26 but h[1], a
 * little above). Operands' limbs stay below 2^27. */
WS_DEV void ws_poly_mul(u32 h[5], const u32 b[5])
{
    u32 s1 = b[1] * 5, s2 = b[2] * 5, s3 = b[3] * 5, s4 = b[4] * 5;
    u64 d0 = (u64)h[0] * b[0] + (u64)h[1] * s4 + (u64)h[2] * s3 + (u64)h[3] * s2 + (u64)h[4] * s1;
    u64 d1 = (u64)h[0] * b[1] + (u64)h[1] * b[0] + (u64)h[2] * s4 + (u64)h[3] * s3 + (u64)h[4] * s2;
    u64 d2 = (u64)h[0] * b[2] + (u64)h[1] * b[1] + (u64)h[2] * b[0] + (u64)h[3] * s4 + (u64)h[4] * s3;
    u64 d3 = (u64)h[0] * b[3] + (u64)h[1] * b[2] + (u64)h[2] * b[1] + (u64)h[3] * b[0] + (u64)h[4] * s4;
    u64 d4 = (u64)h[0] * b[4] + (u64)h[1] * b[3] + (u64)h[2] * b[2] + (u64)h[3] * b[1] + (u64)h[4] * b[0];
    u64 c;
    c = d0 >> 26; h[0] = (u32)d0 & WS_MASK26;
    d1 += c; c = d1 >> 26; h[1] = (u32)d1 & WS_MASK26;
    d2 += c; c = d2 >> 26; h[2] = (u32)d2 & WS_MASK26;
    d3 += c; c = d3 >> 26; h[3] = (u32)d3 & WS_MASK26;
    d4 += c; c = d4 >> 26; h[4] = (u32)d4 & WS_MASK26;
    c = (u64)h[0] + c * 5;
    h[0] = (u32)c & WS_MASK26;
    h[1] += (u32)(c >> 26);
}

/* Absorbs one 16-byte block (four little-endian words) and multiplies by r. */
WS_DEV void ws_poly_block(u32 h[5], const u32 r[5], u32 w0, u32 w1, u32 w2, u32 w3, u32 hibit)
{
    h[0] += w0 & WS_MASK26;
    h[1] += ((w0 >> 26) | (w1 << 6)) & WS_MASK26;
    h[2] += ((w1 >> 20) | (w2 << 12)) & WS_MASK26;
    h[3] += ((w2 >> 14) | (w3 << 18)) & WS_MASK26;
    h[4] += (w3 >> 8) | hibit;
    ws_poly_mul(h, r);
}

/* Carries every limb below 2^26 (the value stays the same mod 2^130 - 5).
 * Limbs below 2^27 on entry need two passes; the third leaves h0 below 2^26
 * too (the second pass's carry out of h4 is at most 1). */
WS_DEV void ws_poly_carry(u32 h[5])
{
    u32 c;
    for (int pass = 0; pass < 3; pass++) {
        c = h[0] >> 26; h[0] &= WS_MASK26; h[1] += c;
        c = h[1] >> 26; h[1] &= WS_MASK26; h[2] += c;
        c = h[2] >> 26; h[2] &= WS_MASK26; h[3] += c;
        c = h[3] >> 26; h[3] &= WS_MASK26; h[4] += c;
        c = h[4] >> 26; h[4] &= WS_MASK26; h[0] += c * 5;
    }
}

/* h = h * r^m. */
WS_DEV void ws_poly_mul_pow(u32 h[5], const u32 r[5], u32 m)
{
    u32 base[5] = {r[0], r[1], r[2], r[3], r[4]};
    while (m) {
        if (m & 1)
            ws_poly_mul(h, base);
        m >>= 1;
        if (m) {
            u32 sq[5] = {base[0], base[1], base[2], base[3], base[4]};
            ws_poly_mul(sq, base);
            for (int i = 0; i < 5; i++)
                base[i] = sq[i];
        }
    }
}

/* tag = (h mod 2^130 - 5) + s mod 2^128, from block 0's words 4..7 (s). */
WS_DEV void ws_poly_finish(u32 h[5], const u32 b0[16], u32 tag[4])
{
    ws_poly_carry(h);
    u32 g0, g1, g2, g3, g4, c, mask;
    g0 = h[0] + 5; c = g0 >> 26; g0 &= WS_MASK26;
    g1 = h[1] + c; c = g1 >> 26; g1 &= WS_MASK26;
    g2 = h[2] + c; c = g2 >> 26; g2 &= WS_MASK26;
    g3 = h[3] + c; c = g3 >> 26; g3 &= WS_MASK26;
    g4 = h[4] + c - (1u << 26);
    mask = (g4 >> 31) - 1; /* all ones when h >= p */
    u32 h0 = (h[0] & ~mask) | (g0 & mask);
    u32 h1 = (h[1] & ~mask) | (g1 & mask);
    u32 h2 = (h[2] & ~mask) | (g2 & mask);
    u32 h3 = (h[3] & ~mask) | (g3 & mask);
    u32 h4 = (h[4] & ~mask) | (g4 & mask);
    u32 t0 = h0 | (h1 << 26);
    u32 t1 = (h1 >> 6) | (h2 << 20);
    u32 t2 = (h2 >> 12) | (h3 << 14);
    u32 t3 = (h3 >> 18) | (h4 << 8);
    u64 f;
    f = (u64)t0 + b0[4]; tag[0] = (u32)f;
    f = (u64)t1 + b0[5] + (f >> 32); tag[1] = (u32)f;
    f = (u64)t2 + b0[6] + (f >> 32); tag[2] = (u32)f;
    f = (u64)t3 + b0[7] + (f >> 32); tag[3] = (u32)f;
}

#endif /* WS_PRIMITIVES_CUH */
