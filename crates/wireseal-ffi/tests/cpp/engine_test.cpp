/* wireseal::CryptoEngine (cpp/wireseal_crypto_engine.hpp) on the Meshtastic
 * firmware's vectors and on random round trips between two engines, with
 * tampering, a wrong sender, a small cache that evicts, and the firmware's
 * public-key field type; XEdDSA signing and verification on the firmware's
 * test scenarios, against the C ABI's verification and libxeddsa's
 * signatures. Runs under QEMU on the Cortex-M4 against the no_std
 * staticlib (make -C crates/wireseal-mcu/c run-cpp) and on the host against
 * the std one (cargo test -p wireseal-ffi). Ends with `N passed, M failed`. */
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

/* A random clamped X25519 private key, as a node generates one. */
static void new_private_key(uint8_t priv[32]) {
    test_random(nullptr, priv, 32);
    priv[0] &= 248;
    priv[31] = static_cast<uint8_t>((priv[31] & 127) | 64);
}

typedef wireseal::CryptoEngine<1> SigningEngine;

/* Sets a fresh random key on `engine`; its public key is engine.public_key. */
static bool new_key_pair(SigningEngine &engine) {
    uint8_t priv[32];
    new_private_key(priv);
    return engine.setDHPrivateKey(priv);
}

/* The firmware's test_XEdDSA: a round trip, then each signed field changed. */
static void xeddsa_round_trips(SigningEngine &engine) {
    static const uint8_t message[] = "This is a test!";
    static const uint8_t message2[] = "This is a test.";
    const uint32_t from = 0x1234, id = 0xDEADBEEF, port = 1;
    uint8_t sig[64];
    unsigned ok = 0, refused = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (!new_key_pair(engine) || !engine.xeddsa_sign(from, id, port, message, sizeof message, sig)) {
            continue;
        }
        const uint8_t *pub = engine.public_key;
        ok += engine.xeddsa_verify(pub, from, id, port, message, sizeof message, sig);
        refused += !engine.xeddsa_verify(pub, from, id, port, message2, sizeof message2, sig) &&
                   engine.lastStatus() == WS_STATUS_AUTH;
        refused += !engine.xeddsa_verify(pub, from + 1, id, port, message, sizeof message, sig);
        refused += !engine.xeddsa_verify(pub, from, id + 1, port, message, sizeof message, sig);
        refused += !engine.xeddsa_verify(pub, from, id, port + 1, message, sizeof message, sig);
        /* The Rust library's VerifyingKey, through the C ABI, one-shot and
         * kept. */
        static ws_xeddsa_key key;
        ok += ws_xeddsa_verify(pub, from, id, port, message, sizeof message, sig, sizeof sig) == WS_STATUS_OK;
        ok += ws_xeddsa_key_init(&key, pub) == WS_STATUS_OK &&
              ws_xeddsa_key_verify(&key, from, id, port, message, sizeof message, sig, sizeof sig) == WS_STATUS_OK;
        ws_xeddsa_key_deinit(&key);
    }
    check("xeddsa: 10 round trips, through the C ABI too", ok == 30);
    check("xeddsa: other payload, from, id, portnum refused", refused == 40);
}

/* The firmware's cross-key, empty-key and randomised-signing tests. */
static void xeddsa_keys(SigningEngine &engine) {
    static const uint8_t message[] = "cross-key check";
    uint8_t pubA[32], sig[64], sig2[64];
    check("xeddsa: key A", new_key_pair(engine));
    memcpy(pubA, engine.public_key, 32);
    check("xeddsa: sign with A", engine.xeddsa_sign(0x4242, 0xABCD1234, 7, message, sizeof message, sig));
    check("xeddsa: key B", new_key_pair(engine));
    check("xeddsa: A's signature verifies with A", engine.xeddsa_verify(pubA, 0x4242, 0xABCD1234, 7, message,
                                                                        sizeof message, sig));
    check("xeddsa: not with B", !engine.xeddsa_verify(engine.public_key, 0x4242, 0xABCD1234, 7, message,
                                                      sizeof message, sig));
    static const uint8_t zero[32] = {0};
    check("xeddsa: not with an all-zero key",
          !engine.xeddsa_verify(zero, 0x4242, 0xABCD1234, 7, message, sizeof message, sig));
    check("xeddsa: NULL key refused", !engine.xeddsa_verify(nullptr, 1, 2, 3, message, sizeof message, sig) &&
                                          engine.lastStatus() == WS_STATUS_NULL_POINTER);

    static SigningEngine fresh(test_random);
    memset(sig2, 0xaa, sizeof sig2);
    check("xeddsa: no key, no signature", !fresh.xeddsa_sign(1, 2, 3, message, sizeof message, sig2) &&
                                              fresh.lastStatus() == WS_STATUS_STATE);
    check("xeddsa: all-zero private key refused", !fresh.setDHPrivateKey(zero) &&
                                                      fresh.lastStatus() == WS_STATUS_INVALID_KEY);
    check("xeddsa: still no signature", !fresh.xeddsa_sign(1, 2, 3, message, sizeof message, sig2));
    check("xeddsa: a refused key leaves no public key", memcmp(fresh.public_key, zero, 32) == 0);
    /* A good key, then a refused one: the good one is gone too. */
    check("xeddsa: key then zero key", new_key_pair(fresh) && !fresh.setDHPrivateKey(zero) &&
                                           !fresh.xeddsa_sign(1, 2, 3, message, sizeof message, sig2));

    check("xeddsa: sign twice", engine.xeddsa_sign(9, 9, 9, message, sizeof message, sig) &&
                                    engine.xeddsa_sign(9, 9, 9, message, sizeof message, sig2));
    check("xeddsa: hedged signatures differ", memcmp(sig, sig2, sizeof sig) != 0);
    check("xeddsa: both verify", engine.xeddsa_verify(engine.public_key, 9, 9, 9, message, sizeof message, sig) &&
                                     engine.xeddsa_verify(engine.public_key, 9, 9, 9, message, sizeof message, sig2));

    static SigningEngine broken(broken_random);
    check("xeddsa: broken rng, key", new_key_pair(broken));
    check("xeddsa: broken rng refused", !broken.xeddsa_sign(1, 2, 3, message, sizeof message, sig) &&
                                            broken.lastStatus() == WS_STATUS_RNG_FAILED);
    check("xeddsa: broken rng, signature wiped", memcmp(sig, zero, 32) == 0 && memcmp(sig + 32, zero, 32) == 0);
}

/* The firmware's cache test (A, B, A), on a single kept key as the firmware
 * has and on two; then the largest signable payload. */
template <size_t Kept> static void xeddsa_cache(const char *name, wireseal::CryptoEngine<1, Kept> &engine) {
    static const uint8_t message[] = "cache check";
    uint8_t pubA[32], pubB[32], sigA[64], sigB[64];
    bool made = engine.setDHPrivateKey(our_private) &&
                engine.xeddsa_sign(0x11, 0x22, 3, message, sizeof message, sigA);
    memcpy(pubA, engine.public_key, 32);
    uint8_t priv[32];
    new_private_key(priv);
    made = made && engine.setDHPrivateKey(priv) && engine.xeddsa_sign(0x11, 0x22, 3, message, sizeof message, sigB);
    memcpy(pubB, engine.public_key, 32);
    check(name, made);
    uint32_t before = engine.xeddsaKeyConversions();
    bool ok = engine.xeddsa_verify(pubA, 0x11, 0x22, 3, message, sizeof message, sigA) &&
              engine.xeddsa_verify(pubB, 0x11, 0x22, 3, message, sizeof message, sigB) &&
              engine.xeddsa_verify(pubA, 0x11, 0x22, 3, message, sizeof message, sigA) &&
              !engine.xeddsa_verify(pubA, 0x11, 0x22, 3, message, sizeof message, sigB) &&
              engine.xeddsa_verify(pubB, 0x11, 0x22, 3, message, sizeof message, sigB);
    check(name, ok);
    /* One kept key converts on every change of signer, two only once each. */
    check(name, engine.xeddsaKeyConversions() - before == (Kept == 1 ? 4u : 2u));

    static uint8_t payload[233];
    const size_t len = sizeof payload - 64;
    for (size_t i = 0; i < len; i++) {
        payload[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    uint8_t sig[64];
    check("xeddsa: 169-byte payload", engine.xeddsa_sign(0xFEED, 0xC0DE, 1, payload, len, sig) &&
                                          engine.xeddsa_verify(pubB, 0xFEED, 0xC0DE, 1, payload, len, sig));
    payload[0] ^= 0x01;
    check("xeddsa: 169-byte payload, a flipped bit refused",
          !engine.xeddsa_verify(pubB, 0xFEED, 0xC0DE, 1, payload, len, sig));
}

/* crates/wireseal-mcu/vectors/xeddsa_libxeddsa.json (python-xeddsa 1.2.0):
 * private key, public key, message from | id | portnum | payload, the random
 * input Z and libxeddsa's signature; then whether signing with that key and
 * Z gives libxeddsa's bytes. The nonce hashes the Ed25519 scalar a: wireseal
 * hashes a reduced mod q (XEdDSA's calculate_key_pair), libxeddsa the
 * clamped X25519 scalar as it is when it need not negate it, so the bytes
 * agree only for the keys whose scalar it negated (and reduced). Both are
 * valid signatures of the same key. */
static const struct {
    const char *priv, *pub, *message, *z, *sig;
    bool same_bytes;
} libxeddsa[] = {
    {"c0b97bd15593dda2d70e69c5ba6913877edd60291238dc34155c53fbf4446779",
     "a83f26d0ea5ffaa949a30cca602ec88118c917b9284178833684bbe018485608",
     "647b6ebc43fc056401000000",
     "f8b9d525e24609f8189a471450ca28f00838fdac5487625acc7d2dab4c0d4c1c"
     "8aa27225da5adf5a99a1e9258ebc93e4ebbba7638b683b6b333778e836171cfd",
     "9e22a52c1484b29a1e64261f77a0a4ab3b42fd7febf2a7e67f7aedc56f38b9f7"
     "9a73881aa6722f159778c935b23290481026e6e21ec9f90d9cf34cd8ca417800",
     true},
    {"000fc0f0903e08f7c9f72e58d92988da66bc30660b9efb65d040fea6c7f83054",
     "a6bd6e9879893f349b62342a74cde60fea6b951b260e7187ba38780507abff24",
     "74d442ac27db27190300000073",
     "b2b916a7600878e98fe685f81f2326432d28919dd09c24f4bcffdfdfed0dd3c4"
     "f0cee3fc3cf535906251d2390778a4085a0376f5d6175f70e5ab52c9214d178e",
     "2f0719f62da964902e7b52e1b2a19b64effc82a552c6ccb1a824d0c179dc4bef"
     "d6d8706750375c50838c8c3a4466b88c8ec07c145b47585da3214b4f481a2b08",
     true},
    {"a86f94531d0f3a706170dc49e780b7302931ecea0581a7462f361ef629f58570",
     "7740da4bc717447cd1bf9bb9224cd27436d7032e3c73cc825c6b3a04a3479776",
     "78fc4685803d8712040000006f2e",
     "961a0147ac77959a5ae03fbb50646cbf032bc089bdd06ffc7e92e7111717d53d"
     "6936dba3f22cca9b55a0ffd0a4f246596eac60f6b14bd5947905a045ba9d8543",
     "3230935c28b4d55be20783ef1bd0334dac159d2328cd20c559d5c91d32ee66ba"
     "2404272dfda098909f7af391444efc061baa08248f94e5aeefe4b7361b6a1105",
     false},
    {"487391d981e8e1c8eded7b641c6f0df61dba5498927fa81749e3ed9a31613e5c",
     "2b9bae576fcf241036b6fef70c30d11b4161c8a0a4cf0932075dc66373c4575b",
     "eab5bd6d83c05f724300000003407b",
     "fa820bcc21eabb6d1ff2f8ebd2248dd05bfdea75c2cff16e03df01cb9a249110"
     "2cc6020cf8d1eafef6662c5b25ae60419bea1f94dcc1a135f73178ec2a764f7a",
     "7085dda3931c1f8da6058070fd38f1d0f4fd60e9e8bf3ac608f1b59d331841ff"
     "1dd298b9ea2c354ea4b74a872a95c1888c71f7b9f6ae62142e4525ae4026f10b",
     false},
    {"7871656e43fd2ce24331640355da9421c05e92983c3e05c15948585ac9ee4079",
     "b67f0cbe77cb48a2665fb29abc953ab72a67b23882b7480eeb3fdd24734e883f",
     "9f1d5808b9f948f801000000e61cf406",
     "f15a9857dcd16814738711257bd8415749251c6f67b1e5d076736072f0c14577"
     "689b65d79b07c9e26c1942f8503bf8114fef34435d9a881a580585ee7841b19c",
     "aa8ca5ddef0770ff6d54fbd7e26faa63d6f93b018fc482969e59e711b504b426"
     "0778efe898789f21f119823904d41781605fd1c60e2861b6657bb20b38bdee0d",
     false},
    {"f0a99e2540848892f508b7bca5822bd5dc06ae47a61fb3a9fd343bf77b0bff5f",
     "0b90e72db00fe9582efa05d0914b4be1aec918b0eb140068e90576646fe73272",
     "8c7e9f850e4482be030000007f2c85f169",
     "d2055b88f1bdb13db575d5cc5466f6a3cd76efb6c4bd4a518c4fec2990c5dc43"
     "1bd25eed79388fe692702a0ab72206219552059719795ea7bc6c93f21c6dc66d",
     "97a4af9836cd0a223b1e708859425c62e603dce76f2b12303cfbfd49eb920ca6"
     "a9eb96388da7e7a677e7e1c24b038f146c9207f6452a7ad357621c98bc7eb804",
     false},
    {"182ae623800099d4da8c9de36adfa51ff24435784dd7709d677e798de5f39e71",
     "2c89653ed8c210027b8dfd33873c11b2bebba20e6bef9a0d74329f41510cfe59",
     "b154f826d4a90ec004000000bffa40db10f2",
     "0cb29ebfac47fde9cca3b13b8bf234fa5ab8cc0b7a712219dae7d00f3de4dad9"
     "e94f45076723d36555f17d9dffee966111091315695e2e4f38fe4fede6ba09e3",
     "2d6c5811a92e61e52628da8f915f6b6f7e33cf006b601ccffe0e27f151c5f5a8"
     "85f9aec29c706bd5d306467f3fe55f6155d168bfdee391e2205979b8cce66306",
     true},
    {"48346b22f198ad71ccc000b271fa4840aff517cbf1c6a43d0f538b5adbebe751",
     "621e916baafc577909af581e9dcc11175d4ad39956d2537e9f643fee2aa8574a",
     "280a2251058dc2d04300000084956fc1a3730f",
     "90e27f4f46d6b6cc289422b51cb748e15833452b2faa1a8f46a3398f3ebbb90a"
     "c042e1b97872b2989257d79cb2319658b2867bb3e5e48a9de9de810654c0b1d7",
     "7ce5061835c73d98b1ff0f174b239174c032a8cedb913bfcc260fe36fae532a6"
     "375750a073bd331956398642558a7db0a4e502e7c72d89bc90d188da0024f206",
     false},
};

static size_t unhex(const char *hex, uint8_t *out, size_t cap) {
    size_t n = 0;
    for (; hex[0] && hex[1] && n < cap; hex += 2) {
        uint8_t b = 0;
        for (int i = 0; i < 2; i++) {
            char c = hex[i];
            b = static_cast<uint8_t>(b * 16 + (c <= '9' ? c - '0' : c - 'a' + 10));
        }
        out[n++] = b;
    }
    return n;
}

static uint32_t le32(const uint8_t *p) {
    return p[0] | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
           static_cast<uint32_t>(p[3]) << 24;
}

/* Hands out the 64 bytes at `ctx`: a vector's Z. */
static int32_t fixed_random(void *ctx, uint8_t *buf, size_t len) {
    if (len != 64) {
        return -1;
    }
    memcpy(buf, ctx, len);
    return 0;
}

/* libxeddsa's signatures verify through xeddsa_verify (their messages are
 * the firmware's shape); the engine given the same key and Z makes a
 * signature that verifies one-shot through the C ABI, the same bytes where
 * the table says so. */
static void xeddsa_libxeddsa() {
    static uint8_t z[64];
    static wireseal::CryptoEngine<1> engine(fixed_random, z);
    unsigned verified = 0, refused = 0, signed_ok = 0, same = 0, want_same = 0;
    const unsigned count = sizeof libxeddsa / sizeof libxeddsa[0];
    for (unsigned i = 0; i < count; i++) {
        uint8_t priv[32], pub[32], msg[64], sig[64], mine[64];
        size_t n = unhex(libxeddsa[i].message, msg, sizeof msg);
        unhex(libxeddsa[i].priv, priv, 32);
        unhex(libxeddsa[i].pub, pub, 32);
        unhex(libxeddsa[i].z, z, 64);
        unhex(libxeddsa[i].sig, sig, 64);
        if (n < 12) {
            continue;
        }
        uint32_t from = le32(msg), id = le32(msg + 4), port = le32(msg + 8);
        verified += engine.xeddsa_verify(pub, from, id, port, msg + 12, n - 12, sig);
        sig[i % 64] ^= 0x10;
        refused += !engine.xeddsa_verify(pub, from, id, port, msg + 12, n - 12, sig);
        sig[i % 64] ^= 0x10;
        if (engine.setDHPrivateKey(priv) && memcmp(engine.public_key, pub, 32) == 0 &&
            engine.xeddsa_sign(from, id, port, msg + 12, n - 12, mine) &&
            ws_xeddsa_verify(pub, from, id, port, msg + 12, n - 12, mine, 64) == WS_STATUS_OK) {
            signed_ok++;
            same += (memcmp(mine, sig, 64) == 0) == libxeddsa[i].same_bytes;
        }
        want_same += libxeddsa[i].same_bytes;
    }
    check("libxeddsa: 8 vectors", count == 8);
    check("libxeddsa: signatures verify", verified == count);
    check("libxeddsa: tampered signatures refused", refused == count);
    check("libxeddsa: the same key and Z sign, and it verifies", signed_ok == count);
    check("libxeddsa: the same bytes exactly for the negated keys", same == count && want_same == 3);
}

static void xeddsa() {
    static SigningEngine engine(test_random);
    xeddsa_round_trips(engine);
    xeddsa_keys(engine);
    static wireseal::CryptoEngine<1, 1> one(test_random);
    static wireseal::CryptoEngine<1, 2> two(test_random);
    xeddsa_cache("xeddsa: cache of one key, A B A", one);
    xeddsa_cache("xeddsa: cache of two keys, A B A", two);
    xeddsa_libxeddsa();
}

int main() {
    firmware_vectors();
    random_round_trips();
    xeddsa();
    put_uint(passed);
    wsmcu_puts(" passed, ");
    put_uint(failed);
    wsmcu_puts(" failed\n");
    wsmcu_exit(failed == 0 ? 0 : 1);
}
