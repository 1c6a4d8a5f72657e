/* A crypto engine shaped like the Meshtastic firmware's CryptoEngine (PKC
 * direct messages, channel packets and XEdDSA packet signatures), over
 * wireseal's C ABI, holding the per-peer shared-secret cache: a repeat
 * message from a peer costs one AES-256-CCM instead of X25519 + SHA-256 +
 * AES-256-CCM.
 *
 * Header-only C++11, no exceptions, no RTTI, no heap: the engine, its
 * cache slots (80 bytes per peer), the channel key, our XEdDSA signing key
 * and the converted keys of the last VerifyKeys signers live inside the
 * object. Randomness (the PKC extraNonce, XEdDSA's 64 hedging bytes) comes
 * from the caller's ws_fill_random (the RNG peripheral); time, for cache
 * ages, from an optional millisecond clock. Not thread-safe: take the
 * firmware's cryptLock around every call, as it does for its own engine.
 *
 *   static wireseal::CryptoEngine<16> engine(hw_random, nullptr, millis64);
 *   engine.setDHPrivateKey(private_key);
 *   engine.decryptCurve25519(from, remote_public, id, n, payload, plaintext);
 *
 * Every call returns false on any failure (tampered packet, wrong key,
 * buffer overlap, RNG failure, ...), with lastStatus() saying which, and
 * leaves no unauthenticated plaintext in its output. */
#ifndef WIRESEAL_CRYPTO_ENGINE_HPP
#define WIRESEAL_CRYPTO_ENGINE_HPP

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "wireseal.h"

namespace wireseal {

template <size_t Slots = 16, size_t VerifyKeys = 2> class CryptoEngine {
    static_assert(Slots >= 1 && Slots <= 65535, "1 to 65,535 cache slots");
    static_assert(VerifyKeys >= 1, "at least one kept verifying key");

  public:
    /** Bytes a PKC payload adds to its plaintext (tag and extraNonce). */
    static const size_t PKC_OVERHEAD = WS_PKC_OVERHEAD;
    /** Bytes of an XEdDSA signature (Data.xeddsa_signature). */
    static const size_t XEDDSA_SIGNATURE_LEN = WS_XEDDSA_SIGNATURE_LEN;

    /** `fill_random` is required for encryptCurve25519 and xeddsa_sign;
     * `now_ms` may be NULL (cache entries never age then). */
    explicit CryptoEngine(ws_fill_random fill_random, void *rng_ctx = nullptr, uint64_t (*now_ms)() = nullptr)
        : pkc_(), channel_(), signer_(), verify_(), uses_(0), conversions_(0), rng_(fill_random), rng_ctx_(rng_ctx),
          now_(now_ms), last_(WS_STATUS_OK) {}

    ~CryptoEngine() {
        ws_pkc_engine_deinit(&pkc_);
        ws_channel_key_deinit(&channel_);
        ws_xeddsa_signer_deinit(&signer_);
        for (size_t i = 0; i < VerifyKeys; i++) {
            ws_xeddsa_key_deinit(&verify_[i].key);
        }
    }

    CryptoEngine(const CryptoEngine &) = delete;
    CryptoEngine &operator=(const CryptoEngine &) = delete;

    /** Sets our X25519 private key (32 bytes, clamped as every Meshtastic
     * key is), empties the cache, derives our XEdDSA signing key and fills
     * `public_key` with ours. On failure (an unclamped or all-zero key) the
     * engine is left without a key: PKC and signing calls fail, and
     * `public_key` is zero. */
    bool setDHPrivateKey(const uint8_t *private_key) {
        ws_pkc_engine_deinit(&pkc_);
        ws_xeddsa_signer_deinit(&signer_);
        if (ok(ws_pkc_engine_init(&pkc_, private_key, slots_, sizeof slots_)) &&
            ok(ws_x25519_public_key(private_key, public_key)) && ok(ws_xeddsa_signer_init(&signer_, private_key))) {
            return true;
        }
        ws_pkc_engine_deinit(&pkc_);
        ws_xeddsa_signer_deinit(&signer_);
        for (size_t i = 0; i < sizeof public_key; i++) {
            public_key[i] = 0;
        }
        return false;
    }

    /** Encrypts `numBytes` of `bytes` for the node with `remotePublic`
     * into `bytesOut` (numBytes + PKC_OVERHEAD bytes: ciphertext, tag,
     * extraNonce). `toNode` is not part of the nonce (as in the firmware). */
    bool encryptCurve25519(uint32_t toNode, uint32_t fromNode, const uint8_t *remotePublic, uint64_t packetNum,
                           size_t numBytes, const uint8_t *bytes, uint8_t *bytesOut) {
        (void)toNode;
        size_t n = 0;
        return ok(ws_pkc_seal(&pkc_, now(), rng_, rng_ctx_, remotePublic, fromNode, static_cast<uint32_t>(packetNum),
                              bytes, numBytes, bytesOut, numBytes + PKC_OVERHEAD, &n));
    }

    /** Verifies and decrypts the `numBytes`-byte PKC payload `bytes` from
     * `fromNode` into `bytesOut` (numBytes - PKC_OVERHEAD bytes). */
    bool decryptCurve25519(uint32_t fromNode, const uint8_t *remotePublic, uint64_t packetNum, size_t numBytes,
                           const uint8_t *bytes, uint8_t *bytesOut) {
        if (numBytes < PKC_OVERHEAD) {
            last_ = WS_STATUS_TRUNCATED;
            return false;
        }
        size_t n = 0;
        return ok(ws_pkc_open(&pkc_, now(), remotePublic, fromNode, static_cast<uint32_t>(packetNum), bytes, numBytes,
                              bytesOut, numBytes - PKC_OVERHEAD, &n));
    }

    /** The same two calls taking the firmware's public-key field (any type
     * with `size` and `bytes`, such as meshtastic_NodeInfoLite_public_key_t):
     * a key that is not 32 bytes is refused. */
    template <typename Key>
    typename std::enable_if<std::is_class<Key>::value, bool>::type encryptCurve25519(uint32_t toNode, uint32_t fromNode, const Key &remotePublic, uint64_t packetNum,
                           size_t numBytes, const uint8_t *bytes, uint8_t *bytesOut) {
        return key32(remotePublic) &&
               encryptCurve25519(toNode, fromNode, remotePublic.bytes, packetNum, numBytes, bytes, bytesOut);
    }

    template <typename Key>
    typename std::enable_if<std::is_class<Key>::value, bool>::type decryptCurve25519(uint32_t fromNode, const Key &remotePublic, uint64_t packetNum, size_t numBytes,
                           const uint8_t *bytes, uint8_t *bytesOut) {
        return key32(remotePublic) &&
               decryptCurve25519(fromNode, remotePublic.bytes, packetNum, numBytes, bytes, bytesOut);
    }

    /** Forgets a peer's cached key (it announced a new one). */
    bool invalidatePeer(const uint8_t *remotePublic) { return ok(ws_pkc_invalidate_peer(&pkc_, remotePublic)); }

    /** Sets the channel key from its PSK as the firmware expands it (0
     * bytes: no encryption, 1 byte: a default-key index, 16 or 32: AES,
     * other lengths up to 32 padded with zeros). */
    bool setKey(const uint8_t *psk, size_t psk_len) {
        ws_channel_key_deinit(&channel_);
        return ok(ws_channel_key_init(&channel_, psk, psk_len));
    }

    /** Encrypts or decrypts (the same AES-CTR keystream) a channel packet
     * in place. Channel packets carry no tag. */
    bool encryptPacket(uint32_t fromNode, uint64_t packetId, size_t numBytes, uint8_t *bytes) {
        return ok(ws_channel_crypt(&channel_, fromNode, static_cast<uint32_t>(packetId), bytes, numBytes));
    }

    bool decrypt(uint32_t fromNode, uint64_t packetId, size_t numBytes, uint8_t *bytes) {
        return encryptPacket(fromNode, packetId, numBytes, bytes);
    }

    /** Signs packet (fromNode, packetId, portnum, payload) with our key
     * (set by setDHPrivateKey) into `signature` (XEDDSA_SIGNATURE_LEN
     * bytes), hedged with 64 bytes from the RNG hook. Fails without a key
     * or when the RNG fails (the signature is then zero). */
    bool xeddsa_sign(uint32_t fromNode, uint32_t packetId, uint32_t portnum, const uint8_t *payload, size_t payloadLen,
                     uint8_t *signature) {
        return ok(ws_xeddsa_sign(&signer_, rng_, rng_ctx_, fromNode, packetId, portnum, payload, payloadLen,
                                 signature));
    }

    /** Verifies the XEDDSA_SIGNATURE_LEN-byte `signature` of packet
     * (fromNode, packetId, portnum, payload) by the node with X25519
     * public key `pubKey` (32 bytes). The converted keys of the last
     * VerifyKeys public keys are kept, so a signer heard again costs one
     * double-scalar multiplication. */
    bool xeddsa_verify(const uint8_t *pubKey, uint32_t fromNode, uint32_t packetId, uint32_t portnum,
                       const uint8_t *payload, size_t payloadLen, const uint8_t *signature) {
        const ws_xeddsa_key *key = verifyingKey(pubKey);
        return key && ok(ws_xeddsa_key_verify(key, fromNode, packetId, portnum, payload, payloadLen, signature,
                                              XEDDSA_SIGNATURE_LEN));
    }

    /** How many public keys xeddsa_verify has converted (the kept keys'
     * misses), a statistic for tuning VerifyKeys. */
    uint32_t xeddsaKeyConversions() const { return conversions_; }

    /** Why the last call failed (WS_STATUS_OK after a success). */
    ws_status lastStatus() const { return last_; }

    /** Our public key, once setDHPrivateKey succeeded. */
    uint8_t public_key[32] = {0};

  private:
    bool ok(ws_status s) {
        last_ = s;
        return s == WS_STATUS_OK;
    }

    template <typename Key> bool key32(const Key &k) {
        if (k.size == 32) {
            return true;
        }
        last_ = WS_STATUS_INVALID_KEY;
        return false;
    }

    uint64_t now() const { return now_ ? now_() : 0; }

    /** A converted verifying key and the X25519 public key it is of;
     * `used` is 0 for an empty entry, else the engine's use count when it
     * was last used. */
    struct VerifyEntry {
        uint8_t public_key[32];
        uint32_t used;
        ws_xeddsa_key key;
    };

    /** The kept key of `pub`, converting it into the least recently used
     * entry when it is not kept; NULL (lastStatus says why) for a NULL or
     * unusable key. */
    const ws_xeddsa_key *verifyingKey(const uint8_t *pub) {
        if (!pub) {
            last_ = WS_STATUS_NULL_POINTER;
            return nullptr;
        }
        if (++uses_ == 0) {
            /* The count wrapped: restart every kept entry's age. */
            for (size_t i = 0; i < VerifyKeys; i++) {
                verify_[i].used = verify_[i].used ? 1 : 0;
            }
            uses_ = 2;
        }
        VerifyEntry *oldest = &verify_[0];
        for (size_t i = 0; i < VerifyKeys; i++) {
            VerifyEntry &e = verify_[i];
            if (e.used && same32(e.public_key, pub)) {
                e.used = uses_;
                return &e.key;
            }
            if (e.used < oldest->used) {
                oldest = &e;
            }
        }
        ws_xeddsa_key_deinit(&oldest->key);
        oldest->used = 0;
        conversions_++;
        if (!ok(ws_xeddsa_key_init(&oldest->key, pub))) {
            return nullptr;
        }
        for (size_t i = 0; i < 32; i++) {
            oldest->public_key[i] = pub[i];
        }
        oldest->used = uses_;
        return &oldest->key;
    }

    static bool same32(const uint8_t *a, const uint8_t *b) {
        uint8_t d = 0;
        for (size_t i = 0; i < 32; i++) {
            d |= static_cast<uint8_t>(a[i] ^ b[i]);
        }
        return d == 0;
    }

    ws_pkc_engine pkc_;
    alignas(8) uint8_t slots_[Slots * WS_PKC_SLOT_BYTES] = {};
    ws_channel_key channel_;
    ws_xeddsa_signer signer_;
    VerifyEntry verify_[VerifyKeys];
    uint32_t uses_;
    uint32_t conversions_;
    ws_fill_random rng_;
    void *rng_ctx_;
    uint64_t (*now_)();
    ws_status last_;
};

} // namespace wireseal

#endif
