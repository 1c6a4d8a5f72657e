//! # The one vocabulary
//!
//! Every format module uses the same names for the same things, so a user
//! who learns one format can read the others. `tests/library/vocabulary.rs` is a
//! compile-time check: it stops building when a module drifts from what
//! this page says.
//!
//! ## Errors
//!
//! Each module's error is `<module>::Error` ([`crate::meshtastic::Error`],
//! [`crate::peat::Error`], [`crate::bip324::Error`],
//! [`crate::aescrypt::Error`], [`crate::sphinx::Error`]):
//! `#[non_exhaustive]`, `Clone + Eq + Debug + Display + std::error::Error +
//! Send + Sync + 'static`, no I/O error and no secret inside. One
//! declaration gives every module the shared variants, with one message
//! each:
//!
//! | variant | when |
//! |---|---|
//! | `Auth` | a tag, HMAC or password check failed; opaque, no detail |
//! | `Truncated { len, min }` | input shorter than the format allows |
//! | `TooLong { len, max }` | input longer than the format allows |
//! | `BufferTooSmall { required }` | the caller's output buffer is too small |
//! | `InvalidKey` | a key is malformed, weak or of the wrong length |
//! | `Replay` | accepted before |
//! | `Poisoned` | an earlier failure poisoned the state |
//! | `Exhausted` | a counter or key-usage limit is used up |
//!
//! then the format's own variants. Every error has `kind()`, an
//! [`ErrorKind`](crate::error::ErrorKind): the command line prints it as the
//! `kind` of a JSON error, Python picks its exception class from it (one
//! table), the C ABI returns it as its error code.
//!
//! Drivers that read and write (`aescrypt::io`, `bip324::io`,
//! `bip324::tokio`) have their own `io::Error` with two variants: the
//! format's error, and `std::io::Error`.
//!
//! ## Packet verbs and suffixes
//!
//! - Packet formats `seal` and `open`. Onions keep `build` / `peel` and AES
//!   Crypt keeps `encrypt` / `decrypt`, the names their specifications use.
//! - Suffixes, the same everywhere: `*_into(.., out: &mut [u8]) ->
//!   Result<usize, Error>` writes into the caller's buffer and returns the
//!   bytes written; `*_in_place(.., buf: &'a mut [u8]) -> Result<&'a mut
//!   [u8], Error>` works in the caller's buffer and returns the result's
//!   bytes inside it; `*_to_vec` allocates.
//! - Size helpers, free `const fn`s of the module, exact:
//!   `sealed_len(plaintext_len: usize) -> usize` and
//!   `opened_len(sealed_len: usize) -> Result<usize, Error>`
//!   (`Error::Truncated` when too short). A module with a second frame type
//!   prefixes them (`peat::peer_sealed_len`). Onions use
//!   `onion_len(area) -> usize` / `area_len(onion_len) -> Result<usize,
//!   Error>`, files `encrypted_len` / `decrypted_len` with the same shapes.
//! - Many items across cores: `*_batch_into`, `*_batch_to_vec`,
//!   `decode_batch`, `peel_batch`; the arguments start `(now, batch, ..)`
//!   (or `(batch, ..)` when there is no time).
//! - Builders: `with_*(self, ..) -> Self`; getters are plain nouns.
//!
//! ## Names and numbers
//!
//! Enum values that users type or read (policy names, networks, areas)
//! implement `FromStr` and `Display` with one spelling, kebab-case
//! (`known-peer`, `mesh-wide`, `signet`); the command line, Python, JSON and
//! the docs all use it. Hops in an onion route are counted from 1 wherever a
//! user sees them.
//!
//! ## Time
//!
//! `now: u64` is in **milliseconds** on the caller's clock (any monotonic
//! origin), and is always the first argument after the receiver:
//! `cache.get(now, &peer)`, `engine.open_to_vec(now, packet, payload)`.
//!
//! ## Arguments
//!
//! - Enums instead of bool flags (`PacketType::{Genuine, Decoy}`).
//! - A struct describing the packet instead of many positional arguments
//!   (Meshtastic's [`PkcPacket`](crate::meshtastic::PkcPacket): who from,
//!   who to, packet id, ...).
//! - Every parallel path takes the caller's
//!   [`&Batch`](crate::batch::Batch); its results equal one-at-a-time
//!   results, in input order.
//!
//! ## Keys and hazmat
//!
//! Key types are public in [`crate::keys`] and carry no raw curve
//! operations. The raw wrappers are private and reachable only as
//! `wireseal::hazmat` under the non-default `hazmat` feature. Entry points
//! that take a caller-chosen nonce or key (for official vectors) compile
//! only with the non-default `test-vectors` feature. No bench-only function
//! is part of the public API.
//!
//! ## Code and docs
//!
//! - Every public item is documented; every fallible public function has an
//!   `# Errors` section.
//! - No comment narrates history; a comment says what the code does and why.
//! - Files in `crates/*/src` stay under 500 lines, with names that say what
//!   they hold; `unsafe_code = "forbid"` in the library.
//!
//! ## Tests
//!
//! The library's tests share `tests/library/common/mod.rs` (`use crate::common;`):
//! `common::load_json("meshtastic/vectors.json")`, `common::hx`,
//! `common::arr32`, and `common::skip_or_fail(why)` for a missing peer.
//! Tests that talk to peer programs live in `crates/wireseal-bench/tests`
//! and find their peers through `wireseal_bench::peers`. A missing peer
//! fails the test; `WIRESEAL_ALLOW_MISSING_PEERS=1` turns that into a
//! printed skip for a quick local run.
