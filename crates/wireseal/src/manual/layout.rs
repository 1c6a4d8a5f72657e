//! # Layout
//!
//! ```text
//! crates/wireseal          the library (this crate): sans-IO, unsafe_code = "forbid"
//!   src/primitives/        thin wrappers over audited crates (private; hazmat feature)
//!   src/keys.rs            the key types formats take
//!   src/secret.rs          Secret<N>, SecretVec: zeroized on drop, redacted Debug, no Clone
//!   src/cache.rs           SharedSecretCache<V, PK>: whole-key, LRU, TTL, own-key binding
//!   src/entropy.rs         OS randomness, NonceSource, ProcessEntropy
//!   src/batch.rs           Batch: many items across cores (rayon)
//!   src/error.rs           AeadError (opaque), KeyError
//!   src/manual/            this manual
//!   src/<format>/          one folder per wire format, with its own Error
//!   tests/                 vector harnesses (whole official files), behaviour tests;
//!                          tests/common/mod.rs is the shared harness
//!   benches/               criterion, one group per headline figure
//! crates/wireseal-cli      the `wireseal` binary: one command file per format, drivers
//! crates/wireseal-bench    `wireseal bench`: sections, baselines, peer programs,
//!                          and the interop tests that talk to peers
//! vectors/                 official and peer-verified vectors, README naming sources
//! interop/                 peer programs in other languages (Go, Python), embedded
//!                          in wireseal-bench and built on demand
//! fuzz/                    cargo-fuzz targets, its own workspace
//! docs/                    crypto choices, security notes, one page per format
//! ```
//!
//! ## The library's modules
//!
//! | module | holds |
//! |---|---|
//! | [`crate::meshtastic`] | Meshtastic PKC direct messages, channel packets, envelopes, XEdDSA |
//! | [`crate::peat`] | peat-btle mesh-wide and per-peer frames, encryption policy |
//! | [`crate::bip324`] | BIP324 v2 transport, plus blocking and tokio drivers |
//! | [`crate::aescrypt`] | AES Crypt files, v0-v3 |
//! | [`crate::sphinx`] | BOLT #4 onions, failures, onion messages, route blinding |
//! | [`crate::keys`] | [`StaticSecret`], [`PrivateKey`], [`PublicKey`], [`EllSwiftKeypair`] |
//! | [`crate::secret`] | [`Secret`], [`SecretVec`] |
//! | [`crate::cache`] | [`SharedSecretCache`] |
//! | [`crate::entropy`] | [`fill_random`], [`NonceSource`], [`ProcessEntropy`] |
//! | [`crate::batch`] | [`Batch`] |
//! | [`crate::error`] | [`AeadError`], the opaque failure at the crypto boundary |
//!
//! The wrappers over crypto crates (`primitives`) are private. The
//! non-default `hazmat` feature re-exports them as `wireseal::hazmat` for the
//! bench crate, the fuzz targets and the library's own tests and benches; no
//! other code should enable it.
//!
//! [`StaticSecret`]: crate::keys::StaticSecret
//! [`PrivateKey`]: crate::keys::PrivateKey
//! [`PublicKey`]: crate::keys::PublicKey
//! [`EllSwiftKeypair`]: crate::keys::EllSwiftKeypair
//! [`Secret`]: crate::secret::Secret
//! [`SecretVec`]: crate::secret::SecretVec
//! [`SharedSecretCache`]: crate::cache::SharedSecretCache
//! [`fill_random`]: crate::entropy::fill_random
//! [`NonceSource`]: crate::entropy::NonceSource
//! [`ProcessEntropy`]: crate::entropy::ProcessEntropy
//! [`Batch`]: crate::batch::Batch
//! [`AeadError`]: crate::error::AeadError
