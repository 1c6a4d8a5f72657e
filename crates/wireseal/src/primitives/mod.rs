//! Thin wrappers over audited crypto crates; the only place one is named.
//!
//! Each wrapper was chosen by measurement on the reference machine (see
//! `docs/crypto-choices.md`). Format modules use these and never a crypto
//! crate directly, so swapping an implementation touches one file.
//!
//! In WebAssembly (`wasm32-unknown-unknown`, `std`), AES-256-CBC, streaming
//! HMAC-SHA256, ChaCha20-Poly1305 and PBKDF2-HMAC-SHA512 hand large inputs
//! to the host's native code when one is registered (`crate::host`: the
//! npm package in Node); the wrappers' signatures and results are the same.

#[cfg(feature = "std")]
pub mod aes_cbc;
pub mod aes_ccm;
pub mod aes_ctr;
pub mod aes_ecb;
#[cfg(feature = "std")]
pub mod blake3;
#[cfg_attr(wireseal_aws_lc, allow(dead_code))]
pub mod ccm;
#[cfg(feature = "std")]
pub mod chacha20;
pub mod chacha20poly1305;
pub mod crc32;
#[cfg(feature = "std")]
pub mod ellswift;
#[cfg(feature = "std")]
pub mod hkdf;
pub mod hmac_key;
#[cfg(feature = "std")]
pub mod hmac_stream;
#[cfg(feature = "std")]
pub mod pbkdf2;
#[cfg(feature = "std")]
pub mod secp256k1;
pub mod sha;
pub mod x25519;
pub mod xeddsa;

/// The backend this build runs for X25519 and ChaCha20-Poly1305: `"aws-lc"`
/// on `std` builds, `"portable"` (curve25519-dalek, RustCrypto) without
/// `std` or when the final build chose it (see the crate's features).
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub const BACKEND: &str = if cfg!(wireseal_aws_lc) {
    "aws-lc"
} else {
    "portable"
};
