//! wireseal: cheap encrypted packets for mesh networks and peer-to-peer
//! protocols.
//!
//! Six wire formats that real networks run, byte for byte, each made cheaper
//! by doing expensive work once and reusing it:
//!
//! | module | wire format |
//! |---|---|
//! | [`meshtastic`] | Meshtastic PKC direct messages and channel packets |
//! | [`meshcore`] | MeshCore packets: adverts, direct messages, group channels |
//! | [`peat`] | peat-btle BLE-mesh mesh-wide and per-peer E2EE frames, encryption policy |
//! | [`bip324`] | Bitcoin P2P v2 encrypted transport (BIP324) |
//! | [`aescrypt`] | AES Crypt `.aes` stream format v0-v3 (read), v2/v3 (write) |
//! | [`sphinx`] | Lightning BOLT #4 Sphinx onions: build, peel, failures, onion messages, route blinding |
//!
//! The crate is sans-IO: protocol code opens no socket or file and reads no
//! clock. Time comes in as a `now` argument in milliseconds; bytes come in
//! and out. Threads come only from the caller's [`batch::Batch`]; the few
//! named exceptions (stream drivers over the caller's `Read`/`Write`, the
//! once-per-process [`entropy::ProcessEntropy`]) are listed in
//! [`manual::decisions`]. The [`manual`] explains the design and the
//! vocabulary every module shares.
//!
//! Shared pieces: [`secret`] (zeroizing key types), [`cache`] (the per-peer
//! [`cache::SharedSecretCache`]), [`entropy`] (OS randomness and cached
//! process context), [`batch`] (many packets across cores), [`keys`] (the
//! key types the formats take) and [`error`]. The thin wrappers over audited
//! crypto crates are private; the non-default `hazmat` feature exposes them
//! as [`hazmat`](crate#features) for benchmarks and fuzzing only.
//!
//! # Features
//!
//! - `hazmat` (off by default): `wireseal::hazmat`, the raw primitive
//!   wrappers, and the batch helpers under the format entry points. Not
//!   part of the stable API; see that module's warning.
//! - `test-vectors` (off by default): entry points that take a
//!   caller-chosen nonce, key or randomness, to reproduce official vectors.
//!   Reusing a nonce breaks every format here; only tests enable it.
//! - `serde` (off by default): `Serialize` for the records drivers print
//!   (the Meshtastic gateway's packet record).
//! - `tokio` (off by default): `wireseal::bip324::tokio`.
//! - `std` (on by default): the server library described above. Without
//!   it (`default-features = false`) the crate is `#![no_std]` and needs no
//!   allocator: the portable core for firmware (see below).
//! - `alloc` (implied by `std`): on `no_std`, adds the `*_to_vec` entry
//!   points, channel PSK text and the Meshtastic envelopes.
//!
//! Features only add. The crypto backend is not a feature: a `std` build
//! runs aws-lc-rs unless the final build asks for the pure-Rust backend with
//! `WIRESEAL_BACKEND=portable` in its environment or
//! `RUSTFLAGS='--cfg wireseal_backend="portable"'` (the way curve25519-dalek
//! selects its backends), so no dependency can switch it for another crate.
//! The host test suite uses it to run every vector through the code firmware
//! runs.
//!
//! # The portable core
//!
//! With `default-features = false` the crate builds for bare-metal targets
//! (Cortex-M, `wasm32-unknown-unknown`) with the pure-Rust backend
//! (curve25519-dalek, RustCrypto) and without an allocator: Meshtastic PKC
//! seal and open through a [`cache::SharedSecretCache`] in fixed storage
//! (an array or the caller's memory), channel packets, headers, node
//! numbers and XEdDSA; peat mesh-wide frames, per-peer frame headers and
//! key-exchange frames. Randomness comes from the caller as a
//! [`entropy::RngCore`] + [`entropy::CryptoRng`] (for example a
//! microcontroller's RNG peripheral) through the `*_with_rng` entry
//! points; `std` builds draw from the operating system. The crate holds no
//! `unsafe` code in any configuration.

#![cfg_attr(not(feature = "std"), no_std)]
// The documentation describes the whole library; built without `std`, its
// links to the server-only items have nothing to point to.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "alloc")]
extern crate alloc;

/// The allocator's types by their prelude names, for modules that build
/// with `alloc` only as well as with `std`.
#[cfg(feature = "alloc")]
#[allow(unused_imports)]
pub(crate) mod prelude {
    pub(crate) use alloc::borrow::ToOwned;
    pub(crate) use alloc::boxed::Box;
    pub(crate) use alloc::format;
    pub(crate) use alloc::string::{String, ToString};
    pub(crate) use alloc::vec;
    pub(crate) use alloc::vec::Vec;
}

#[cfg(feature = "std")]
pub mod aescrypt;
#[cfg(feature = "std")]
pub mod batch;
#[cfg(feature = "std")]
pub mod bip324;
pub mod cache;
pub mod entropy;
pub mod error;
mod hex_text;
#[cfg(wireseal_wasm_host)]
pub mod host;
pub mod keys;
#[cfg(feature = "std")]
pub mod manual;
pub mod meshcore;
pub mod meshtastic;
pub mod peat;
mod primitives;
pub mod secret;
#[cfg(feature = "std")]
pub mod sphinx;
mod visibility;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

/// Raw primitive wrappers (AES, ChaCha20, X25519, secp256k1, HKDF, ...).
///
/// # Warning
///
/// Hazardous material: these are the building blocks under the wire formats,
/// with none of their checks (nonce uniqueness, tag-before-plaintext, key
/// validation policy). They exist for benchmarks, fuzzing and the
/// Wycheproof suite, are exempt from semver, and only compile with the
/// non-default `hazmat` feature. Use the format modules instead.
#[cfg(feature = "hazmat")]
pub mod hazmat {
    pub use crate::primitives::*;
}
