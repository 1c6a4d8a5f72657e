/* wireseal::CryptoEngine (cpp/wireseal_crypto_engine.hpp) on the Meshtastic
 * firmware's vectors and on random round trips between two engines, with
 * tampering, a wrong sender, a small cache that evicts, and the firmware's
 * public-key field type. Runs under QEMU on the Cortex-M4 against the
 * no_std staticlib (make -C crates/wireseal-mcu/c run-cpp). Ends with
 * `N passed, M failed`. */
#include <stdint.h>
#include <string.h>

extern "C" {
#include "platform.h"
}
#include "wireseal_crypto_engine.hpp"

static unsigned passed, failed;

static void put_uint(unsigned v) {
    char buf[12];
    int i = sizeof buf - 1;
    buf[i] = 0;
    do {
        buf[--i] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    wsmcu_puts(&buf[i]);
}

static void check(const char *name, bool ok) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    wsmcu_puts("FAILED ");
    wsmcu_puts(name);
    wsmcu_puts("\n");
}

/* xorshift32: the test's deterministic stand-in for the RNG peripheral. */
static uint32_t rng_state = 0x9e3779b9u;
static uint32_t next_u32() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static int32_t test_random(void *, uint8_t *buf, size_t len) {
    for (size_t i = 0; i < len; i++) {
        buf[i] = static_cast<uint8_t>(next_u32());
    }
    return 0;
}
static int32_t broken_random(void *, uint8_t *, size_t) { return -1; }

static uint64_t clock_ms;
static uint64_t millis() { return clock_ms; }

/* The firmware's public-key field: size and bytes. */
struct PublicKeyField {
    uint16_t size;
    uint8_t bytes[32];
};

/* vectors/meshtastic/vectors.json: pkc-decrypt-radio-frame. */
static const uint8_t our_private[32] = {160, 3,   48,  99,  62,  99,  82,  47,  138, 77, 129,
                                        236, 109, 157, 30,  102, 23,  246, 200, 255, 211, 164,
                                        198, 152, 34,  149, 55,  212, 78,  82,  34,  119};
static const uint8_t sender_public[32] = {219, 24,  252, 80,  238, 164, 127, 0,   37,  28,  183,
                                          132, 129, 154, 60,  245, 252, 54,  24,  130, 89,  127,
                                          88,  159, 13,  127, 248, 32,  232, 6,   68,  87};
static const uint8_t payload[22] = {64, 223, 36, 171, 252, 195, 10, 23,  163, 217, 4,
                                    103, 38, 9,  158, 121, 106, 28, 3, 106, 121, 43};
static const uint8_t plaintext[10] = {8, 1, 18, 4, 116, 101, 115, 116, 72, 0};
/* The channel vector (default key, LongFast). */
static const uint8_t channel_psk[16] = {212, 241, 187, 58, 32, 41, 7, 89, 240, 188, 255, 171, 207, 78, 105, 1};
static const uint8_t channel_ct[10] = {70, 242, 236, 208, 176, 42, 196, 207, 43, 229};

static void firmware_vectors() {
    static wireseal::CryptoEngine<4> engine(test_random, nullptr, millis);
    check("set private key", engine.setDHPrivateKey(our_private));
    uint8_t out[32];
    check("radio frame opens", engine.decryptCurve25519(2345, sender_public, 330487394, sizeof payload, payload, out));
    check("radio frame plaintext", memcmp(out, plaintext, sizeof plaintext) == 0);
    check("again from the cache", engine.decryptCurve25519(2345, sender_public, 330487394, sizeof payload, payload, out));
    PublicKeyField field = {32, {0}};
    memcpy(field.bytes, sender_public, 32);
    check("firmware key field", engine.decryptCurve25519(2345u, field, 330487394u, sizeof payload, payload, out));
    field.size = 0;
    check("empty key field refused", !engine.decryptCurve25519(2345u, field, 330487394u, sizeof payload, payload, out) &&
                                         engine.lastStatus() == WS_STATUS_INVALID_KEY);
    uint8_t bad[22];
    memcpy(bad, payload, sizeof bad);
    bad[5] ^= 0x20;
    memset(out, 0xaa, sizeof out);
    check("tampered refused", !engine.decryptCurve25519(2345, sender_public, 330487394, sizeof bad, bad, out) &&
                                  engine.lastStatus() == WS_STATUS_AUTH);
    bool wiped = true;
    for (size_t i = 0; i < sizeof plaintext; i++) {
        wiped = wiped && out[i] == 0;
    }
    check("tampered output wiped", wiped);
    check("other packet id refused", !engine.decryptCurve25519(2345, sender_public, 330487395, sizeof payload, payload, out));
    check("short payload refused", !engine.decryptCurve25519(2345, sender_public, 330487394, 5, payload, out) &&
                                       engine.lastStatus() == WS_STATUS_TRUNCATED);

    uint8_t buf[10];
    memcpy(buf, plaintext, sizeof buf);
    check("channel key", engine.setKey(channel_psk, sizeof channel_psk));
    check("channel encrypt", engine.encryptPacket(0x0929, 0x13b2d662, sizeof buf, buf));
    check("channel ciphertext", memcmp(buf, channel_ct, sizeof buf) == 0);
    check("channel decrypt", engine.decrypt(0x0929, 0x13b2d662, sizeof buf, buf));
    check("channel plaintext", memcmp(buf, plaintext, sizeof buf) == 0);
    uint8_t long_psk[33] = {0};
    check("33-byte psk refused", !engine.setKey(long_psk, sizeof long_psk));
}

static void random_round_trips() {
    /* Two cache slots for three peers: evictions on the way. */
    static wireseal::CryptoEngine<2> a(test_random, nullptr, millis), b(test_random, nullptr, millis),
        c(test_random, nullptr, millis);
    static wireseal::CryptoEngine<2> *nodes[3] = {&a, &b, &c};
    for (unsigned i = 0; i < 3; i++) {
        uint8_t priv[32];
        test_random(nullptr, priv, sizeof priv);
        priv[0] &= 248;
        priv[31] = static_cast<uint8_t>((priv[31] & 127) | 64);
        check("random key", nodes[i]->setDHPrivateKey(priv));
    }
    static uint8_t msg[WS_PKC_MAX_PLAINTEXT_LEN + 1], sealed[sizeof msg + WS_PKC_OVERHEAD], opened[sizeof msg];
    unsigned ok = 0, refused = 0;
    for (unsigned round = 0; round < 300; round++) {
        clock_ms += 10;
        unsigned from = next_u32() % 3, to = (from + 1 + next_u32() % 2) % 3;
        size_t len = next_u32() % (WS_PKC_MAX_PLAINTEXT_LEN + 1);
        test_random(nullptr, msg, len);
        uint32_t id = next_u32();
        if (!nodes[from]->encryptCurve25519(to, 100 + from, nodes[to]->public_key, id, len, msg, sealed)) {
            check("encrypt", false);
            continue;
        }
        size_t n = len + WS_PKC_OVERHEAD;
        if (nodes[to]->decryptCurve25519(100 + from, nodes[from]->public_key, id, n, sealed, opened) &&
            memcmp(opened, msg, len) == 0) {
            ok++;
        }
        /* One flipped bit anywhere, or the wrong sender: refused. */
        size_t at = next_u32() % n;
        uint8_t was = sealed[at];
        sealed[at] ^= static_cast<uint8_t>(1u << (next_u32() % 8));
        if (!nodes[to]->decryptCurve25519(100 + from, nodes[from]->public_key, id, n, sealed, opened)) {
            refused++;
        }
        sealed[at] = was;
        unsigned other = 3 - from - to;
        if (!nodes[to]->decryptCurve25519(100 + from, nodes[other]->public_key, id, n, sealed, opened)) {
            refused++;
        }
    }
    check("300 random round trips open", ok == 300);
    check("oversized plaintext refused",
          !a.encryptCurve25519(1, 100, b.public_key, 7, sizeof msg, msg, sealed) && a.lastStatus() == WS_STATUS_TOO_LONG);
    check("600 tampered or misattributed payloads refused", refused == 600);

    static wireseal::CryptoEngine<1> broken(broken_random);
    check("broken rng: key", broken.setDHPrivateKey(our_private));
    uint8_t out[10 + WS_PKC_OVERHEAD];
    check("broken rng refused", !broken.encryptCurve25519(1, 2, sender_public, 3, sizeof plaintext, plaintext, out) &&
                                    broken.lastStatus() == WS_STATUS_RNG_FAILED);
}

int main() {
    firmware_vectors();
    random_round_trips();
    put_uint(passed);
    wsmcu_puts(" passed, ");
    put_uint(failed);
    wsmcu_puts(" failed\n");
    wsmcu_exit(failed == 0 ? 0 : 1);
}
