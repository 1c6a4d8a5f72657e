//! The host platform's native primitives under the library's bulk crypto,
//! on `wasm32-unknown-unknown` only (the npm package).
//!
//! WebAssembly has no AES or SHA instructions, and the package is built
//! without SIMD, so on large inputs the library's own code (RustCrypto's
//! constant-time bitsliced AES, SHA-256 and ChaCha20-Poly1305, compiled to
//! WebAssembly) runs several times slower than the host's native code:
//! Node's `node:crypto` (OpenSSL, with AES-NI and SHA extensions). A host
//! registers a [`HostCrypto`] with [`set_host_crypto`], and the primitive
//! wrappers hand it these operations:
//!
//! | operation | used by | handed over from |
//! |---|---|---|
//! | AES-256-CBC encryption (whole blocks, the chaining value carried between calls) | AES Crypt bodies | [`CBC_MIN`] bytes in one call |
//! | AES-256-CBC decryption (whole blocks) | AES Crypt bodies | [`CBC_MIN`] bytes in one call |
//! | HMAC-SHA256 fed piece by piece | AES Crypt bodies | [`HMAC_MIN`] bytes in one stream |
//! | ChaCha20-Poly1305 seal and open of one message | BIP324 packets | [`AEAD_MIN`] bytes of plaintext |
//! | PBKDF2-HMAC-SHA512 | AES Crypt version 3 keys | [`PBKDF2_MIN_ITERATIONS`] rounds |
//! | AES-128/256 blocks under a key held by the host (the counter blocks of CTR) | Meshtastic channel packets | [`CTR_MIN`] to [`CTR_MAX`] bytes in one call |
//! | X25519 under a private key held by the host | Meshtastic PKC, MeshCore and peat key agreement (every [`StaticSecret`](crate::keys::StaticSecret)) | every agreement |
//!
//! Everything else stays in the library: every format rule (framing,
//! lengths, padding, key derivation, nonces, rekeying, CTR's counter blocks,
//! the rejection of an all-zero X25519 result
//! and the XOR of their keystream), the comparison of
//! AES Crypt's HMACs with the stored tags (in constant time), the
//! wiping of plaintext that failed to authenticate, and every operation
//! below its threshold, where the cost of crossing into the host is more
//! than what the native code saves. The thresholds were measured in Node 20
//! (`docs/javascript.md`, "Native primitives in Node").
//!
//! The host must be a faithful implementation of the standard primitive:
//! the library does not check its output (it can't, short of doing the
//! work twice). A host that cannot run an operation reports a
//! [`HostError`] and the library runs its own code instead; it must then
//! leave the caller's buffer as it was (see each method). The one
//! exception is an HMAC stream already handed to the host: its state lives
//! there, so a failure in the middle of a stream cannot be recovered from,
//! and the library panics (a trap in WebAssembly).
//!
//! Secrets: keys given to the host live in its own objects (OpenSSL's
//! contexts in Node) until its garbage collector frees them, outside the
//! library's wiping; see `docs/javascript.md`.
//!
//! Native and firmware builds have no host and this module does not exist
//! there: their code is unchanged.

use std::sync::{PoisonError, RwLock};

// The thresholds: where the host measured faster than the library's own
// code in Node 20 (OpenSSL 3.0, x86-64 with AES-NI and SHA-NI), with about
// twice the break-even as margin. Per call the host costs ~10 µs (a cipher
// object, the crossing); break-even was ~512 bytes for a BIP324 packet's
// seal + open and for an AES Crypt body's CBC + HMAC, 16-64 rounds for
// PBKDF2 (docs/javascript.md).

/// AES-256-CBC calls of this many bytes or more go to the host.
pub const CBC_MIN: usize = 1024;
/// HMAC-SHA256 streams move to the host once they were fed this many bytes
/// (held back until then, so a short MAC never crosses).
pub const HMAC_MIN: usize = 1024;
/// ChaCha20-Poly1305 messages of this many bytes or more go to the host.
pub const AEAD_MIN: usize = 1024;
/// PBKDF2-HMAC-SHA512 derivations of this many rounds or more go to the
/// host.
pub const PBKDF2_MIN_ITERATIONS: usize = 64;
/// AES-CTR calls of this many bytes or more have their keystream made by
/// the host, under a key it holds (a block cipher context made once per
/// key, so a call costs no key setup: ~1.6 µs for the crossing in Node,
/// against ~0.37 µs a block in WebAssembly; break-even about 5 blocks).
pub const CTR_MIN: usize = 128;

/// The host could not run an operation (it threw, or is not there any
/// more); the library runs its own code instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostError;

/// What a host operation returns.
pub type HostResult<T = ()> = Result<T, HostError>;

/// An AES-256-CBC key and the block the chain starts from.
#[derive(Clone, Copy)]
pub struct CbcKey<'a> {
    /// The AES-256 key.
    pub key: &'a [u8; 32],
    /// The IV, or the ciphertext block before the first one given.
    pub iv: &'a [u8; 16],
}

/// A ChaCha20-Poly1305 key, nonce and associated data.
#[derive(Clone, Copy)]
pub struct AeadKey<'a> {
    /// The key.
    pub key: &'a [u8; 32],
    /// The 96-bit nonce.
    pub nonce: &'a [u8; 12],
    /// The associated data.
    pub aad: &'a [u8],
}

/// The host's implementation of the bulk primitives (see the module docs).
///
/// Lengths are checked by the library before a call: CBC buffers are whole
/// 16-byte blocks, `output` has `input`'s length, keys, IVs, nonces and
/// tags have their fixed lengths.
pub trait HostCrypto: Sync {
    /// AES-256-CBC-encrypts `buf` (whole blocks, no padding) in place.
    ///
    /// # Errors
    ///
    /// [`HostError`], with `buf` left as it was.
    fn aes256_cbc_encrypt(&self, cbc: CbcKey<'_>, buf: &mut [u8]) -> HostResult;

    /// AES-256-CBC-decrypts `input` (whole blocks, no padding) into
    /// `output`.
    ///
    /// # Errors
    ///
    /// [`HostError`]; `output` may hold anything then (the library
    /// overwrites it).
    fn aes256_cbc_decrypt(&self, cbc: CbcKey<'_>, input: &[u8], output: &mut [u8]) -> HostResult;

    /// Starts an HMAC-SHA256 stream under `key` (any length); returns its
    /// handle, which the library passes to the other `hmac_sha256_*`
    /// methods and releases with [`finish`](Self::hmac_sha256_finish) or
    /// [`free`](Self::hmac_sha256_free), exactly once.
    ///
    /// # Errors
    ///
    /// [`HostError`]: the library keeps the stream.
    fn hmac_sha256_new(&self, key: &[u8]) -> Result<u32, HostError>;

    /// Feeds `data` to the stream `handle`.
    ///
    /// # Errors
    ///
    /// [`HostError`]: the stream is lost (the library panics).
    fn hmac_sha256_update(&self, handle: u32, data: &[u8]) -> Result<(), HostError>;

    /// A new stream in the state of `handle` (both go on independently).
    ///
    /// # Errors
    ///
    /// [`HostError`]: the library panics.
    fn hmac_sha256_clone(&self, handle: u32) -> Result<u32, HostError>;

    /// Writes the tag of the stream `handle` into `tag` and releases the
    /// handle.
    ///
    /// # Errors
    ///
    /// [`HostError`]: the library panics.
    fn hmac_sha256_finish(&self, handle: u32, tag: &mut [u8; 32]) -> Result<(), HostError>;

    /// Releases the stream `handle` without a tag (the library dropped it).
    fn hmac_sha256_free(&self, handle: u32);

    /// ChaCha20-Poly1305 (RFC 8439): encrypts `buf` in place and writes the
    /// tag.
    ///
    /// # Errors
    ///
    /// [`HostError`], with `buf` left as it was.
    fn chacha20poly1305_seal(
        &self,
        aead: AeadKey<'_>,
        buf: &mut [u8],
        tag: &mut [u8; 16],
    ) -> HostResult;

    /// ChaCha20-Poly1305 (RFC 8439): verifies `tag` over `aad` and the
    /// ciphertext in `buf`; when it verifies, decrypts `buf` in place and
    /// returns `true`. Returns `false` when the tag does not verify, with
    /// `buf` left as it was or overwritten (the library wipes it).
    ///
    /// # Errors
    ///
    /// [`HostError`] when the host could not decide, with `buf` left as it
    /// was (the library then decides itself).
    fn chacha20poly1305_open(
        &self,
        aead: AeadKey<'_>,
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> HostResult<bool>;

    /// PBKDF2-HMAC-SHA512 (RFC 8018) of `password` and `salt` with
    /// `rounds` rounds (at least 1), filling `out`.
    ///
    /// # Errors
    ///
    /// [`HostError`]; `out` may hold anything then (the library overwrites
    /// it).
    fn pbkdf2_hmac_sha512(
        &self,
        password: &[u8],
        salt: &[u8],
        rounds: u32,
        out: &mut [u8],
    ) -> HostResult;

    /// Makes an AES block cipher under `key` (16 bytes: AES-128, 32:
    /// AES-256) that the host keeps; returns its handle, which the library
    /// passes to [`aes_encrypt_blocks`](Self::aes_encrypt_blocks) and
    /// [`aes_clone`](Self::aes_clone) and releases with
    /// [`aes_free`](Self::aes_free), exactly once.
    ///
    /// # Errors
    ///
    /// [`HostError`]: the library keeps the key and runs its own AES.
    fn aes_new(&self, key: &[u8]) -> Result<u32, HostError>;

    /// Encrypts `buf` (whole 16-byte blocks, each on its own: ECB) in place
    /// under the cipher `handle`.
    ///
    /// # Errors
    ///
    /// [`HostError`]; `buf` may hold anything then (the library makes the
    /// blocks again and encrypts them itself).
    fn aes_encrypt_blocks(&self, handle: u32, buf: &mut [u8]) -> HostResult;

    /// A new handle to a cipher under the same key as `handle` (both are
    /// released separately).
    ///
    /// # Errors
    ///
    /// [`HostError`]: the copy runs the library's own AES.
    fn aes_clone(&self, handle: u32) -> Result<u32, HostError>;

    /// Releases the cipher `handle`.
    fn aes_free(&self, handle: u32);

    /// Makes an X25519 private key from the 32 scalar bytes `scalar` (RFC
    /// 7748: the host clamps it) that the host keeps; returns its handle,
    /// which the library passes to [`x25519`](Self::x25519) and releases
    /// with [`x25519_free`](Self::x25519_free), exactly once. The default
    /// has no X25519.
    ///
    /// # Errors
    ///
    /// [`HostError`]: the library keeps the key and runs its own X25519.
    fn x25519_new(&self, scalar: &[u8; 32]) -> Result<u32, HostError> {
        let _ = scalar;
        Err(HostError)
    }

    /// Writes X25519 (RFC 7748) of the key `handle` and the peer's
    /// u-coordinate `peer` into `shared`.
    ///
    /// # Errors
    ///
    /// [`HostError`], `shared` holding anything then: the library computes
    /// the result itself (so a host that refuses a low-order `peer` and
    /// one that returns zeros end the same way: the library rejects it).
    fn x25519(&self, handle: u32, peer: &[u8; 32], shared: &mut [u8; 32]) -> HostResult {
        let _ = (handle, peer, shared);
        Err(HostError)
    }

    /// Releases the X25519 key `handle`.
    fn x25519_free(&self, handle: u32) {
        let _ = handle;
    }
}

/// A key the registered host holds, named by `handle`, released through
/// `free` when dropped. Its `Debug` shows neither key nor handle.
struct Held {
    host: &'static dyn HostCrypto,
    handle: u32,
    free: fn(&dyn HostCrypto, u32),
}

impl Held {
    /// The key `new` gives the registered host; `None` without a host, or
    /// when it refused.
    fn on_host(
        new: impl FnOnce(&dyn HostCrypto) -> Result<u32, HostError>,
        free: fn(&dyn HostCrypto, u32),
    ) -> Option<Self> {
        let host = host_crypto()?;
        let handle = new(host).ok()?;
        Some(Self { host, handle, free })
    }
}

impl core::fmt::Debug for Held {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("redacted")
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        (self.free)(self.host, self.handle);
    }
}

/// An AES key held by the host, for counter mode: the library makes the
/// counter blocks and XORs the keystream, the host encrypts the blocks
/// (see [`CTR_MIN`]). Released when dropped.
#[derive(Debug)]
pub(crate) struct HostAes(Held);

impl HostAes {
    /// The key `key` (16 or 32 bytes) given to the registered host; `None`
    /// without a host, or when it refused.
    pub(crate) fn new(key: &[u8]) -> Option<Self> {
        Held::on_host(|h| h.aes_new(key), |h, k| h.aes_free(k)).map(Self)
    }

    /// Another handle to the same key; `None` when the host refused.
    pub(crate) fn try_clone(&self) -> Option<Self> {
        let Held { host, handle, free } = self.0;
        let handle = host.aes_clone(handle).ok()?;
        Some(Self(Held { host, handle, free }))
    }

    /// XORs the CTR keystream from the initial counter block `iv` (a 32-bit
    /// big-endian counter in its last four bytes, wrapping) into `buf` when
    /// its length is from [`CTR_MIN`] to [`CTR_MAX`] bytes (one crossing);
    /// false, with `buf` unchanged, for other lengths or when the host
    /// failed (the caller then runs its own AES).
    pub(crate) fn apply_ctr(&self, iv: &[u8; 16], buf: &mut [u8]) -> bool {
        if buf.len() < CTR_MIN || buf.len() > CTR_MAX {
            return false;
        }
        let mut stream = [0u8; CTR_MAX];
        let n = buf.len().next_multiple_of(16);
        let stream = &mut stream[..n];
        let mut counter = u32::from_be_bytes([iv[12], iv[13], iv[14], iv[15]]);
        for block in stream.chunks_exact_mut(16) {
            block[..12].copy_from_slice(&iv[..12]);
            block[12..].copy_from_slice(&counter.to_be_bytes());
            counter = counter.wrapping_add(1);
        }
        let ok = self
            .0
            .host
            .aes_encrypt_blocks(self.0.handle, stream)
            .is_ok();
        if ok {
            for (b, k) in buf.iter_mut().zip(stream.iter()) {
                *b ^= k;
            }
        }
        stream.fill(0);
        ok
    }
}

/// The longest CTR call handed to the host (one call, its keystream on the
/// stack): a Meshtastic payload is at most 237 bytes.
pub const CTR_MAX: usize = 512;

/// An X25519 private key held by the host (see
/// [`HostCrypto::x25519_new`]). Released when dropped.
#[derive(Debug)]
pub(crate) struct HostX25519(Held);

impl HostX25519 {
    /// The scalar `scalar` given to the registered host; `None` without a
    /// host, or when it refused.
    pub(crate) fn new(scalar: &[u8; 32]) -> Option<Self> {
        Held::on_host(|h| h.x25519_new(scalar), |h, k| h.x25519_free(k)).map(Self)
    }

    /// X25519 with `peer` into `shared`; false when the host failed
    /// (`shared` then holds anything: the caller overwrites it).
    pub(crate) fn agree(&self, peer: &[u8; 32], shared: &mut [u8; 32]) -> bool {
        self.0.host.x25519(self.0.handle, peer, shared).is_ok()
    }
}

/// The registered host.
static HOST: RwLock<Option<&'static dyn HostCrypto>> = RwLock::new(None);

/// Registers `host` for the operations at or above their thresholds from
/// now on (replacing any earlier one; streams and keys already handed to
/// an earlier host stay with it).
pub fn set_host_crypto(host: &'static dyn HostCrypto) {
    *HOST.write().unwrap_or_else(PoisonError::into_inner) = Some(host);
}

/// Stops handing new operations to the host: from now on the library runs
/// its own code (streams already handed to the host stay with it).
pub fn clear_host_crypto() {
    *HOST.write().unwrap_or_else(PoisonError::into_inner) = None;
}

/// The registered host, if any.
pub fn host_crypto() -> Option<&'static dyn HostCrypto> {
    *HOST.read().unwrap_or_else(PoisonError::into_inner)
}

/// The registered host when `len` reaches `min`.
pub(crate) fn for_len(len: usize, min: usize) -> Option<&'static dyn HostCrypto> {
    if len < min {
        None
    } else {
        host_crypto()
    }
}
