//! Shared test harness: vector loading and hex helpers, used by every test
//! file in this crate (`mod common;`). Not every file uses every helper.
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;

/// The repository's `vectors/` folder.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// A file under `vectors/` as bytes (panics with the path when missing).
pub fn vector_bytes(rel: &str) -> Vec<u8> {
    let p = vectors_dir().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// A file under `vectors/` as text.
pub fn vector_text(rel: &str) -> String {
    String::from_utf8(vector_bytes(rel)).expect("vector file is UTF-8")
}

/// A JSON file under `vectors/`.
pub fn load_json(rel: &str) -> Value {
    serde_json::from_str(&vector_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A JSON file under `vectors/` into a typed value.
pub fn load_as<T: serde::de::DeserializeOwned>(rel: &str) -> T {
    serde_json::from_str(&vector_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Decodes a hex string (panics on bad hex).
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// `v[k]` as bytes from hex.
pub fn hx(v: &Value, k: &str) -> Vec<u8> {
    unhex(
        v[k].as_str()
            .unwrap_or_else(|| panic!("missing string field {k}")),
    )
}

/// `v[k]` as exactly `N` bytes from hex.
pub fn arr<const N: usize>(v: &Value, k: &str) -> [u8; N] {
    let b = hx(v, k);
    let len = b.len();
    b.try_into()
        .unwrap_or_else(|_| panic!("{k}: {len} bytes, expected {N}"))
}

/// `v[k]` as 32 bytes from hex.
pub fn arr32(v: &Value, k: &str) -> [u8; 32] {
    arr::<32>(v, k)
}

/// Whether a missing peer may be skipped: only when
/// `WIRESEAL_ALLOW_MISSING_PEERS=1` asks for it (a quick local run).
pub fn missing_peers_allowed() -> bool {
    std::env::var_os("WIRESEAL_ALLOW_MISSING_PEERS").is_some_and(|v| v == "1")
}

/// Reports a missing peer: fails the test, unless
/// `WIRESEAL_ALLOW_MISSING_PEERS=1` is set, when it prints `skipped: WHY`
/// and returns so the caller can return early.
pub fn skip_or_fail(why: &str) {
    assert!(
        missing_peers_allowed(),
        "a peer is missing: {why} (scripts/test installs every peer; \
         WIRESEAL_ALLOW_MISSING_PEERS=1 skips instead)"
    );
    println!("skipped: {why}");
}
