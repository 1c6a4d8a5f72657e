//! # Decisions
//!
//! ## Sans-IO, and its exceptions
//!
//! Protocol code takes bytes and `now` (milliseconds on the caller's clock)
//! and returns bytes, values or typed errors; whole meshes and v2 sessions
//! can be simulated in a unit test. A format module opens no socket and
//! reads no clock. The exceptions are named:
//!
//! - Threads: [`Batch`] is the one place that starts work on other threads
//!   (rayon). Format code that runs in parallel takes the caller's
//!   `&Batch`; AES Crypt's decryptor decrypts CBC on the batch's threads
//!   while the calling thread computes the HMAC
//!   ([`crate::aescrypt::Decryptor`]). Results are in input order and equal
//!   to the one-at-a-time results. A batch call wakes all its threads from
//!   the calling thread and they take chunks of the work from a shared
//!   counter (see [`crate::batch`] for why not `rayon::join`).
//! - Streams: AES Crypt reads and writes through the caller's
//!   [`std::io::Read`] / [`std::io::Write`] ([`crate::aescrypt::io`]), and
//!   BIP324 has blocking and (feature `tokio`) async drivers over the
//!   caller's stream beside its sans-IO core; none of them opens a file or a
//!   socket itself.
//! - Clock: [`ProcessEntropy`] hashes, once per process, the wall clock
//!   with fresh OS randomness, as non-secret context for AES Crypt IVs. It
//!   never replaces fresh randomness, which always comes from the OS CSPRNG
//!   ([`fill_random`], [`NonceSource`]).
//! - Fork: a [`NonceSource`] buffers OS randomness; [`after_fork`] makes
//!   every source in the process refill before its next nonce (the Python
//!   package calls it from `os.register_at_fork`).
//!
//! Nothing in this crate opens a file, lists a directory, starts a process
//! or opens a socket (a test checks its sources); atomic output files, traffic
//! generators and JSON records live in `wireseal-io` beside it.
//!
//! ## The shared-secret cache
//!
//! [`SharedSecretCache`] is keyed by the peer's **whole** public key and
//! bound to our own key ([`SharedSecretCache::set_own_key`] with a different
//! key flushes it). What it stores is the format's choice, and must be
//! `ZeroizeOnDrop`; eviction, expiry, invalidation and flushes wipe it:
//!
//! - Meshtastic's [`PkcEngine`] stores the expanded AES-256-CCM key, so a
//!   hit skips the ECDH, the SHA-256 and the key schedule.
//! - peat's [`PeerSessions`] stores the raw X25519 shared secret (a
//!   [`Secret<32>`](crate::secret::Secret)) and derives each session's keys
//!   from it.
//!
//! Layout: a boxed slot array allocated once, an intrusive doubly linked LRU
//! list over slot indices and a `HashMap` index pre-sized to the capacity:
//! no allocation per insert, O(1) lookups and evictions at any capacity. The
//! index hashes with aHash under a random per-cache seed, not SipHash: the
//! table never holds more than `capacity` keys, so keys ground to collide
//! cost at most a scan of `capacity` entries, and SipHash cost a third of a
//! cached Meshtastic open.
//!
//! Batch readers share the cache read-only: a batch open reads it through
//! `SharedSecretCache::peek_slot` (no counters, no reordering) from every
//! thread, then reports hits and recency with
//! `SharedSecretCache::touch_slot` in one serial pass (both crate-private,
//! public with the `hazmat` feature); when every key came from the cache
//! and nothing is inserted, that pass books each slot once, at its last
//! use, instead of each packet.
//!
//! ## Errors in layers
//!
//! [`AeadError`] is opaque: a failed tag says nothing more. Above it each
//! format's `Error` says what the caller can do; the variants shared by
//! every format are listed in [`super::vocabulary`].
//!
//! ## Where crypto crates are named
//!
//! The private `primitives` module wraps the audited crates (aws-lc-rs,
//! RustCrypto, secp256k1, curve25519-dalek, blake3). One other place names
//! one directly, by choice: [`ProcessEntropy`] hashes its context with
//! `sha2` (a digest of non-secret context, no key involved).
//! `docs/crypto-choices.md` records which crate was picked for what, with
//! measurements.
//!
//! ## The bench frame
//!
//! `wireseal bench` (crate `wireseal-bench`) runs registered sections, each
//! comparing ours with a baseline measured in the same run, sampled
//! alternately; `ratio > 1` always means wireseal is better. A baseline
//! from a peer that cannot be found (Go, Python, or the Rust peers left out
//! of the build) is reported as `skipped: WHY` next to our figure. Baselines
//! that exist only to be compared with (an uncached path, a quadratic
//! derivation) live in the bench crate, built from public pieces or
//! `hazmat`, never in this crate's public API.
//!
//! [`Batch`]: crate::batch::Batch
//! [`ProcessEntropy`]: crate::entropy::ProcessEntropy
//! [`after_fork`]: crate::entropy::after_fork
//! [`fill_random`]: crate::entropy::fill_random
//! [`NonceSource`]: crate::entropy::NonceSource
//! [`SharedSecretCache`]: crate::cache::SharedSecretCache
//! [`SharedSecretCache::set_own_key`]: crate::cache::SharedSecretCache::set_own_key
//! [`PkcEngine`]: crate::meshtastic::PkcEngine
//! [`PeerSessions`]: crate::peat::PeerSessions
//! [`AeadError`]: crate::error::AeadError
