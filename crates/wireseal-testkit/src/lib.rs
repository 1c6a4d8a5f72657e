//! Test support shared by wireseal's crates (not published): servers a test
//! starts on loopback and stops when dropped ([`mosquitto::Mosquitto`],
//! [`postgres::PgServer`]), free ports and readiness waits ([`net`]), a raw
//! MQTT 3.1.1 publisher ([`mqtt`]), headless Chromium ([`chromium`]), JSON
//! lines to a peer's input ([`lines`]), the independent Meshtastic feed
//! ([`feed`]) and hostile Meshtastic traffic ([`meshtastic`]), MeshCore
//! traffic as observers publish it ([`meshcore_observer`]), the firmware
//! signature-policy scenarios' checks ([`meshtastic_policy`]), a store read
//! back with each database's own client ([`db`]), and process figures from
//! /proc ([`proc`]).
//!
//! The servers, the feed and the database clients need the default `servers`
//! feature; the library's tests use the kit without it.
//!
//! Everything that can be missing (a program, a free port) is an `Err` with
//! what to install; tests `expect` it, so a missing peer fails the test
//! unless [`allow_missing`] says otherwise, and the bench reports the row as
//! skipped with the same words.

pub mod chromium;
#[cfg(feature = "servers")]
pub mod db;
#[cfg(feature = "servers")]
pub mod feed;
pub mod lines;
pub mod meshcore_observer;
pub mod meshtastic;
pub mod meshtastic_policy;
#[cfg(feature = "servers")]
pub mod mosquitto;
pub mod mqtt;
pub mod net;
#[cfg(feature = "servers")]
pub mod pki;
#[cfg(feature = "servers")]
pub mod postgres;
pub mod proc;

/// What went wrong starting or using a peer, in words.
pub type Error = String;

/// Whether a missing peer may be skipped: `WIRESEAL_ALLOW_MISSING_PEERS=1`.
/// Without it a test fails when a peer is missing.
pub fn allow_missing() -> bool {
    std::env::var_os("WIRESEAL_ALLOW_MISSING_PEERS").is_some_and(|v| v == "1")
}

/// For a test that needs a peer: `true` when `missing` is `None`. A missing
/// peer fails the test (panics with `why`), or under [`allow_missing`]
/// prints `skipped: WHY` and returns `false`.
///
/// # Panics
/// When a peer is missing and skipping is not allowed.
pub fn peer_present(missing: Option<Error>) -> bool {
    let Some(why) = missing else {
        return true;
    };
    assert!(
        allow_missing(),
        "a peer is missing: {why} (scripts/test installs every peer; \
         WIRESEAL_ALLOW_MISSING_PEERS=1 skips instead)"
    );
    println!("skipped: {why}");
    false
}
