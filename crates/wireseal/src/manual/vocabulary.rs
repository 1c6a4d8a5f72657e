//! # The one vocabulary
//!
//! Every format module uses the same names for the same things, so a user
//! who learns one format can read the others.
//!
//! ## Errors
//!
//! Each module's error is `<module>::Error` ([`crate::meshtastic::Error`],
//! [`crate::peat::Error`], [`crate::bip324::Error`],
//! [`crate::aescrypt::Error`], [`crate::sphinx::Error`]):
//! `#[non_exhaustive]`, derived with `thiserror`, with the same variant for
//! the same situation:
//!
//! | variant | when |
//! |---|---|
//! | `Auth` | a tag, HMAC or password check failed; opaque, no detail |
//! | `Truncated { len: usize, min: usize }` | input shorter than the format allows |
//! | `TooLong { len: usize, max: usize }` | input longer than the format allows |
//! | `BufferTooSmall { required: usize }` | the caller's output buffer is too small |
//!
//! then the format's own variants. Errors never contain secret material.
//!
//! ## Packet verbs and suffixes
//!
//! - Packet formats `seal` and `open`. Onions keep `build` / `peel` and AES
//!   Crypt keeps `encrypt` / `decrypt`, the names their specifications use.
//! - Suffixes, the same everywhere: `*_into` writes into the caller's buffer
//!   and returns the bytes written; `*_in_place` works in the caller's
//!   buffer; `*_to_vec` allocates.
//! - Size helpers in every module: `sealed_len(plaintext_len) -> usize` and
//!   `opened_len(sealed_len) -> Result<usize, Error>` (`Error::Truncated`
//!   when too short); onions and files use the analogous names with the
//!   same return types.
//!
//! ## Time
//!
//! `now: u64` is in **milliseconds** on the caller's clock (any monotonic
//! origin), and is always the first argument after the receiver:
//! `cache.get(now, &peer)`, `sessions.open(now, frame)`.
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
//! Key types are public in [`crate::keys`]. The raw wrappers are private and
//! reachable only as `wireseal::hazmat` under the non-default `hazmat`
//! feature. No bench-only function is part of the public API.
//!
//! ## Code and docs
//!
//! - Every public item is documented; every fallible public function has an
//!   `# Errors` section.
//! - No comment narrates history; a comment says what the code does and why.
//! - Files in `crates/*/src` stay under 500 lines, with names that say what
//!   they hold; `unsafe_code = "forbid"` in every crate.
//!
//! ## Tests
//!
//! The library's tests share `tests/common/mod.rs` (`mod common;`):
//! `common::load_json("meshtastic/vectors.json")`, `common::hx`,
//! `common::arr32`, and `common::skip_or_fail(why)` for a missing peer.
//! Tests that talk to peer programs live in `crates/wireseal-bench/tests`
//! and find their peers through `wireseal_bench::peers`. With
//! `WIRESEAL_REQUIRE_PEERS` set (as CI sets it once every peer is
//! installed), a missing peer fails a test instead of skipping it.
