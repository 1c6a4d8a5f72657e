/* The C ABI's test program: the Meshtastic firmware's PKC radio frame and
 * channel vectors, peat-btle's mesh-wide frames, headers, and the refusals
 * (NULL pointers, bad memory, tampered data, a failing RNG), through
 * wireseal.h. The same file runs on the host (cargo test -p wireseal-ffi)
 * and under QEMU on a Cortex-M4 (make -C crates/wireseal-mcu/c run-ffi).
 * Ends with `N passed, M failed`. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "platform.h"
#include "wireseal.h"

/* The blocks are the sizes the header gives for this target (bare-metal
 * Arm: WS_TARGET_BARE_ARM), checked when this file compiles. */
_Static_assert(sizeof(ws_pkc_engine) == WS_PKC_ENGINE_BYTES, "ws_pkc_engine size");
_Static_assert(sizeof(ws_channel_key) == WS_CHANNEL_KEY_BYTES, "ws_channel_key size");
_Static_assert(sizeof(ws_mesh_key) == WS_MESH_KEY_BYTES, "ws_mesh_key size");
_Static_assert(sizeof(ws_xeddsa_signer) == WS_XEDDSA_SIGNER_BYTES, "ws_xeddsa_signer size");
_Static_assert(sizeof(ws_xeddsa_key) == WS_XEDDSA_KEY_BYTES, "ws_xeddsa_key size");

static int passed, failed;

static void put_uint(unsigned v) {
    char buf[12];
    int i = sizeof buf - 1;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    wsmcu_puts(&buf[i]);
}

static void check(const char *name, int ok) {
    wsmcu_puts(ok ? "test " : "FAILED ");
    wsmcu_puts(name);
    wsmcu_puts(ok ? " ... ok\n" : "\n");
    if (ok) {
        passed++;
    } else {
        failed++;
    }
}

static void check_status(const char *name, ws_status got, ws_status want) {
    check(name, got == want);
    if (got != want) {
        wsmcu_puts("  got ");
        wsmcu_puts(ws_status_str(got));
        wsmcu_puts(", want ");
        wsmcu_puts(ws_status_str(want));
        wsmcu_puts("\n");
    }
}

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (p[i]) {
            return 0;
        }
    }
    return 1;
}

/* A deterministic stand-in for the RNG peripheral (tests only). */
static int32_t counter_rng(void *ctx, uint8_t *buf, size_t len) {
    uint8_t *c = ctx;
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(*c * 29u + 7u);
        (*c)++;
    }
    return 0;
}

static int32_t failing_rng(void *ctx, uint8_t *buf, size_t len) {
    (void)ctx;
    (void)buf;
    (void)len;
    return -1;
}

/* vectors/meshtastic/vectors.json: pkc-decrypt-radio-frame. */
static const uint8_t pkc_our_private[32] = {160, 3, 48, 99, 62, 99, 82, 47, 138, 77, 129, 236, 109, 157, 30, 102,
                                            23, 246, 200, 255, 211, 164, 198, 152, 34, 149, 55, 212, 78, 82, 34, 119};
static const uint8_t pkc_sender_public[32] = {219, 24, 252, 80, 238, 164, 127, 0, 37, 28, 183,
                                              132, 129, 154, 60, 245, 252, 54, 24, 130, 89, 127,
                                              88, 159, 13, 127, 248, 32, 232, 6, 68, 87};
static const uint32_t pkc_from = 2345, pkc_id = 330487394;
static const uint8_t pkc_payload[22] = {64, 223, 36, 171, 252, 195, 10, 23, 163, 217, 4,
                                        103, 38, 9, 158, 121, 106, 28, 3, 106, 121, 43};
static const uint8_t pkc_plaintext[10] = {8, 1, 18, 4, 116, 101, 115, 116, 72, 0};

/* vectors/meshtastic/vectors.json: the channel vector (default key). */
static const uint8_t channel_psk[16] = {212, 241, 187, 58, 32, 41, 7, 89, 240, 188, 255, 171, 207, 78, 105, 1};
static const uint8_t channel_ciphertext[10] = {70, 242, 236, 208, 176, 42, 196, 207, 43, 229};

/* vectors/peat: mesh "DEMO", secret 0x42 * 32, "Hello, Peat mesh!". */
static const uint8_t peat_frame[47] = {174, 0,   0,   1,   2,   3,   4,   5,   6,   7,   8,   9,
                                       10,  11,  71,  133, 205, 25,  59,  37,  210, 144, 237, 45,
                                       40,  193, 153, 132, 231, 82,  110, 111, 91,  250, 21,  196,
                                       160, 14,  185, 166, 61,  158, 243, 213, 204, 120, 38};

static void pkc(void) {
    static ws_pkc_engine engine;
    static uint64_t slots[4 * WS_PKC_SLOT_BYTES / 8];
    uint8_t out[64];
    size_t n = 0;
    check_status("pkc init", ws_pkc_engine_init(&engine, pkc_our_private, (uint8_t *)slots, sizeof slots), WS_STATUS_OK);
    check_status("pkc open radio frame",
                 ws_pkc_open(&engine, 1, pkc_sender_public, pkc_from, pkc_id, pkc_payload, sizeof pkc_payload, out,
                             sizeof out, &n),
                 WS_STATUS_OK);
    check("pkc plaintext", n == sizeof pkc_plaintext && memcmp(out, pkc_plaintext, n) == 0);
    uint8_t bad[22];
    memcpy(bad, pkc_payload, sizeof bad);
    bad[3] ^= 1;
    memset(out, 0xff, sizeof out);
    check_status("pkc tampered", ws_pkc_open(&engine, 2, pkc_sender_public, pkc_from, pkc_id, bad, sizeof bad, out, sizeof out, &n),
                 WS_STATUS_AUTH);
    check("pkc tampered output wiped", all_zero(out, 10));
    check_status("pkc other id",
                 ws_pkc_open(&engine, 2, pkc_sender_public, pkc_from, pkc_id + 1, pkc_payload, sizeof pkc_payload, out,
                             sizeof out, &n),
                 WS_STATUS_AUTH);
    check_status("pkc short payload",
                 ws_pkc_open(&engine, 2, pkc_sender_public, pkc_from, pkc_id, pkc_payload, 11, out, sizeof out, &n),
                 WS_STATUS_TRUNCATED);
    check_status("pkc small output",
                 ws_pkc_open(&engine, 2, pkc_sender_public, pkc_from, pkc_id, pkc_payload, sizeof pkc_payload, out, 4, &n),
                 WS_STATUS_BUFFER_TOO_SMALL);
    check_status("pkc null peer",
                 ws_pkc_open(&engine, 2, NULL, pkc_from, pkc_id, pkc_payload, sizeof pkc_payload, out, sizeof out, &n),
                 WS_STATUS_NULL_POINTER);

    /* Seal to the sender; our own engine opens it as coming from the
     * sender (the key is symmetric). */
    uint8_t ctx = 1, sealed[64];
    check_status("pkc seal",
                 ws_pkc_seal(&engine, 3, counter_rng, &ctx, pkc_sender_public, 7, 8, pkc_plaintext, sizeof pkc_plaintext,
                             sealed, sizeof sealed, &n),
                 WS_STATUS_OK);
    check("pkc sealed length", n == ws_pkc_sealed_len(sizeof pkc_plaintext) && n == sizeof pkc_plaintext + WS_PKC_OVERHEAD);
    size_t m = 0;
    check_status("pkc round trip",
                 ws_pkc_open(&engine, 4, pkc_sender_public, 7, 8, sealed, n, out, sizeof out, &m), WS_STATUS_OK);
    check("pkc round trip plaintext", m == sizeof pkc_plaintext && memcmp(out, pkc_plaintext, m) == 0);
    memset(sealed, 0xff, sizeof sealed);
    check_status("pkc failing rng",
                 ws_pkc_seal(&engine, 5, failing_rng, NULL, pkc_sender_public, 7, 9, pkc_plaintext, sizeof pkc_plaintext,
                             sealed, sizeof sealed, &n),
                 WS_STATUS_RNG_FAILED);
    check("pkc failing rng output wiped", all_zero(sealed, sizeof pkc_plaintext + WS_PKC_OVERHEAD));
    check_status("pkc null rng",
                 ws_pkc_seal(&engine, 5, NULL, NULL, pkc_sender_public, 7, 9, pkc_plaintext, sizeof pkc_plaintext, sealed,
                             sizeof sealed, &n),
                 WS_STATUS_NULL_POINTER);
    check_status("pkc length out-parameter inside the output",
                 ws_pkc_open(&engine, 4, pkc_sender_public, 7, 8, sealed, n, out, sizeof out, (size_t *)(void *)(out + 8)),
                 WS_STATUS_INVALID_INPUT);
    check_status("pkc output over the engine",
                 ws_pkc_open(&engine, 4, pkc_sender_public, 7, 8, sealed, n, (uint8_t *)&engine + 8, 16, &m),
                 WS_STATUS_INVALID_INPUT);
    check_status("pkc invalidate", ws_pkc_invalidate_peer(&engine, pkc_sender_public), WS_STATUS_OK);
    ws_pkc_engine_deinit(&engine);
    check_status("pkc after deinit",
                 ws_pkc_open(&engine, 6, pkc_sender_public, pkc_from, pkc_id, pkc_payload, sizeof pkc_payload, out,
                             sizeof out, &n),
                 WS_STATUS_STATE);

    uint8_t unclamped[32];
    memcpy(unclamped, pkc_our_private, 32);
    unclamped[0] |= 1;
    check_status("pkc unclamped key", ws_pkc_engine_init(&engine, unclamped, (uint8_t *)slots, sizeof slots),
                 WS_STATUS_INVALID_KEY);
    check_status("pkc misaligned slots",
                 ws_pkc_engine_init(&engine, pkc_our_private, (uint8_t *)slots + 1, WS_PKC_SLOT_BYTES),
                 WS_STATUS_BAD_MEMORY);
    check_status("pkc no slot", ws_pkc_engine_init(&engine, pkc_our_private, (uint8_t *)slots, WS_PKC_SLOT_BYTES - 8),
                 WS_STATUS_BAD_MEMORY);
}

static void channel(void) {
    static ws_channel_key key;
    uint8_t buf[10];
    memcpy(buf, pkc_plaintext, sizeof buf);
    check_status("channel key", ws_channel_key_init(&key, channel_psk, sizeof channel_psk), WS_STATUS_OK);
    check_status("channel encrypt", ws_channel_crypt(&key, 0x0929, 0x13b2d662, buf, sizeof buf), WS_STATUS_OK);
    check("channel ciphertext", memcmp(buf, channel_ciphertext, sizeof buf) == 0);
    check_status("channel decrypt", ws_channel_crypt(&key, 0x0929, 0x13b2d662, buf, sizeof buf), WS_STATUS_OK);
    check("channel plaintext", memcmp(buf, pkc_plaintext, sizeof buf) == 0);
    uint8_t big[33] = {0};
    check_status("channel 33-byte psk", ws_channel_key_init(&key, big, sizeof big), WS_STATUS_INVALID_KEY);
    ws_channel_key_deinit(&key);
}

static void header(void) {
    uint8_t frame[20] = {0xff, 0xff, 0xff, 0xff, 0x29, 0x09, 0, 0, 0x62, 0xd6, 0xb2, 0x13, 0x63, 0x08, 0, 0};
    ws_header h;
    check_status("header parse", ws_header_parse(frame, sizeof frame, &h), WS_STATUS_OK);
    check("header fields", h.to == 0xffffffffu && h.from == 0x0929 && h.id == 0x13b2d662 && h.hop_limit == 3 &&
                               !h.want_ack && h.hop_start == 3 && h.channel == 8);
    uint8_t back[16];
    check_status("header write", ws_header_write(&h, back), WS_STATUS_OK);
    check("header round trip", memcmp(back, frame, 16) == 0);
    check_status("header short", ws_header_parse(frame, 15, &h), WS_STATUS_TRUNCATED);
}

static void mesh(void) {
    static ws_mesh_key key;
    uint8_t secret[32];
    memset(secret, 0x42, sizeof secret);
    check_status("mesh key", ws_mesh_key_init(&key, (const uint8_t *)"DEMO", 4, secret), WS_STATUS_OK);
    uint8_t frame[64];
    memcpy(frame, peat_frame, sizeof peat_frame);
    size_t n = 0;
    check_status("mesh open", ws_mesh_open_in_place(&key, frame, sizeof peat_frame, &n), WS_STATUS_OK);
    check("mesh plaintext", n == 17 && memcmp(frame + WS_MESH_HEADER_LEN, "Hello, Peat mesh!", 17) == 0);
    memcpy(frame, peat_frame, sizeof peat_frame);
    frame[20] ^= 4;
    check_status("mesh tampered", ws_mesh_open_in_place(&key, frame, sizeof peat_frame, &n), WS_STATUS_AUTH);
    frame[0] = 0xaf;
    check_status("mesh wrong marker", ws_mesh_open_in_place(&key, frame, sizeof peat_frame, &n), WS_STATUS_MALFORMED);
    uint8_t ctx = 9, out[64];
    check_status("mesh seal",
                 ws_mesh_seal(&key, counter_rng, &ctx, (const uint8_t *)"position report", 15, out, sizeof out, &n),
                 WS_STATUS_OK);
    size_t m = 0;
    check_status("mesh round trip", ws_mesh_open_in_place(&key, out, n, &m), WS_STATUS_OK);
    check("mesh round trip plaintext", m == 15 && memcmp(out + WS_MESH_HEADER_LEN, "position report", 15) == 0);
    check_status("mesh small output",
                 ws_mesh_seal(&key, counter_rng, &ctx, (const uint8_t *)"position report", 15, out, 20, &n),
                 WS_STATUS_BUFFER_TOO_SMALL);
    ws_mesh_key_deinit(&key);
}

static void xeddsa(void) {
    uint8_t sig[64] = {0};
    check_status("xeddsa bad signature",
                 ws_xeddsa_verify(pkc_sender_public, 1, 2, 1, pkc_plaintext, sizeof pkc_plaintext, sig, sizeof sig),
                 WS_STATUS_AUTH);
    check_status("xeddsa null key", ws_xeddsa_verify(NULL, 1, 2, 1, pkc_plaintext, 10, sig, 64), WS_STATUS_NULL_POINTER);

    /* Zeroed blocks, as C statics are: not set up until their init. */
    static ws_xeddsa_signer signer;
    static ws_xeddsa_key key;
    uint8_t ctx = 5;
    check_status("xeddsa sign unset",
                 ws_xeddsa_sign(&signer, counter_rng, &ctx, 1, 2, 3, pkc_plaintext, 10, sig), WS_STATUS_STATE);
    uint8_t zero[32] = {0};
    check_status("xeddsa zero private key", ws_xeddsa_signer_init(&signer, zero), WS_STATUS_INVALID_KEY);
    check_status("xeddsa signer", ws_xeddsa_signer_init(&signer, pkc_our_private), WS_STATUS_OK);
    check_status("xeddsa sign", ws_xeddsa_sign(&signer, counter_rng, &ctx, 0x929, 7, 1, pkc_plaintext, 10, sig),
                 WS_STATUS_OK);
    uint8_t pub[32];
    check_status("xeddsa our public key", ws_x25519_public_key(pkc_our_private, pub), WS_STATUS_OK);
    check_status("xeddsa one-shot verify", ws_xeddsa_verify(pub, 0x929, 7, 1, pkc_plaintext, 10, sig, 64),
                 WS_STATUS_OK);
    check_status("xeddsa verify unset key", ws_xeddsa_key_verify(&key, 0x929, 7, 1, pkc_plaintext, 10, sig, 64),
                 WS_STATUS_STATE);
    check_status("xeddsa key", ws_xeddsa_key_init(&key, pub), WS_STATUS_OK);
    check_status("xeddsa kept-key verify", ws_xeddsa_key_verify(&key, 0x929, 7, 1, pkc_plaintext, 10, sig, 64),
                 WS_STATUS_OK);
    check_status("xeddsa other portnum", ws_xeddsa_key_verify(&key, 0x929, 7, 2, pkc_plaintext, 10, sig, 64),
                 WS_STATUS_AUTH);
    check_status("xeddsa short signature", ws_xeddsa_key_verify(&key, 0x929, 7, 1, pkc_plaintext, 10, sig, 63),
                 WS_STATUS_AUTH);
    check_status("xeddsa other key", ws_xeddsa_verify(pkc_sender_public, 0x929, 7, 1, pkc_plaintext, 10, sig, 64),
                 WS_STATUS_AUTH);
    check_status("xeddsa failing rng",
                 ws_xeddsa_sign(&signer, failing_rng, NULL, 0x929, 7, 1, pkc_plaintext, 10, sig),
                 WS_STATUS_RNG_FAILED);
    check("xeddsa failing rng wipes", all_zero(sig, sizeof sig));
    ws_xeddsa_signer_deinit(&signer);
    ws_xeddsa_key_deinit(&key);
    check_status("xeddsa sign after deinit",
                 ws_xeddsa_sign(&signer, counter_rng, &ctx, 1, 2, 3, pkc_plaintext, 10, sig), WS_STATUS_STATE);
}

int main(void) {
    check("status names", strcmp(ws_status_str(WS_STATUS_AUTH), "auth") == 0 &&
                              strcmp(ws_status_str(WS_STATUS_BAD_MEMORY), "bad_memory") == 0);
    const char *version = ws_version();
    check("version", version != NULL && version[0] >= '0' && version[0] <= '9' && strchr(version, '.') != NULL);
    pkc();
    channel();
    header();
    mesh();
    xeddsa();
    put_uint((unsigned)passed);
    wsmcu_puts(" passed, ");
    put_uint((unsigned)failed);
    wsmcu_puts(" failed\n");
    wsmcu_exit(failed == 0 ? 0 : 1);
}
