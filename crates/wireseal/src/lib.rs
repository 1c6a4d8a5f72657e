//! wireseal: cheap encrypted packets for mesh networks and peer-to-peer
//! protocols.
//!
//! Five wire formats that real networks run, byte for byte, each made cheaper
//! by doing expensive work once and reusing it:
//!
//! | module | wire format |
//! |---|---|
//! | [`meshtastic`] | Meshtastic PKC direct messages and channel packets |
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

pub mod batch;
pub mod cache;
pub mod entropy;
pub mod error;
pub mod primitives;
pub mod secret;
pub mod sphinx;
