//! wireseal: cheap encrypted packets for mesh networks and peer-to-peer
//! protocols.
//!
//! Five wire formats that real networks run, byte for byte, each made cheaper
//! by doing expensive work once and reusing it:
//!
//! | module | wire format |
//! |---|---|
//! | [`meshtastic`] | Meshtastic PKC direct messages and channel packets |
//! | [`peat`] | peat-btle BLE-mesh mesh-wide and per-peer E2EE frames, encryption policy |
//! | [`bip324`] | Bitcoin P2P v2 encrypted transport (BIP324) |
//! | [`aescrypt`] | AES Crypt `.aes` stream format v0-v3 (read), v2/v3 (write) |
//! | [`sphinx`] | Lightning BOLT #4 Sphinx onions: build, peel, failures, onion messages, route blinding |
//!
//! The crate is sans-IO: no sockets, files, clocks or threads of its own in
//! protocol code. Time comes in as a `now` argument; bytes come in and out.
//! Drivers (the `wireseal` CLI, tokio sessions) live elsewhere.
//!
//! Shared pieces: [`secret`] (zeroizing key types), [`cache`] (the per-peer
//! [`cache::SharedSecretCache`]), [`entropy`] (OS randomness and cached
//! process context), [`batch`] (many packets across cores), [`primitives`]
//! (thin wrappers over audited crypto crates) and [`error`].

pub mod aescrypt;
pub mod batch;
pub mod bip324;
pub mod cache;
pub mod entropy;
pub mod error;
pub mod meshtastic;
pub mod peat;
pub mod primitives;
pub mod secret;
pub mod sphinx;
