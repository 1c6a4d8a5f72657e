//! The one place that finds and builds the peer programs measured by the
//! bench and used by the interop tests: lightning-onion (Go), pyAesCrypt,
//! meshtastic-mqtt-json and meshcoredecoder (Python), and
//! @michaelhart/meshcore-decoder (Node).
//!
//! The peers' sources are embedded in this crate ([`include_str!`]) and
//! written to a cache directory (`$XDG_CACHE_HOME/wireseal` or
//! `~/.cache/wireseal`), keyed by a hash of the sources, so an installed
//! `wireseal` finds them from any directory. A peer that cannot be found or
//! built is a [`Skip`] that says why: the bench prints it in the row, and a
//! test fails on it ([`skip_or_fail`]) unless `WIRESEAL_ALLOW_MISSING_PEERS=1`
//! asks to skip.

mod go_sphinx;
mod meshcore;
mod meshtastic_mqtt_json;
mod python;
pub mod rust_peers;

pub use go_sphinx::{go_sphinx, GoBench};
pub use meshcore::{meshcore_decoder_js, meshcoredecoder, MeshcoreDecoderJs, MeshcoreDecoderPy};
pub use meshtastic_mqtt_json::{meshtastic_mqtt_json, MeshtasticMqttJson};
pub use python::{pyaescrypt, python_with, PyAesCrypt, Python, PythonScript};

use std::fmt;
use std::path::PathBuf;

/// Why a peer is unavailable, in words for a person (`go` is not installed,
/// `go build` failed: ..., pyAesCrypt is not importable, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

impl Skip {
    /// A reason from anything printable.
    pub fn new(why: impl Into<String>) -> Self {
        Self(why.into())
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Skip {}

/// Whether a test may skip a missing peer: only when
/// `WIRESEAL_ALLOW_MISSING_PEERS=1` asks for it (a quick local run).
pub fn missing_allowed() -> bool {
    std::env::var_os("WIRESEAL_ALLOW_MISSING_PEERS").is_some_and(|v| v == "1")
}

/// Reports a missing peer in a test: panics, unless [`missing_allowed`],
/// when it prints `skipped: WHY` so the caller can return early.
///
/// # Panics
///
/// Unless `WIRESEAL_ALLOW_MISSING_PEERS=1` is set.
pub fn skip_or_fail(skip: &Skip) {
    assert!(
        missing_allowed(),
        "a peer is missing: {skip} (scripts/test installs every peer; \
         WIRESEAL_ALLOW_MISSING_PEERS=1 skips instead)"
    );
    println!("skipped: {skip}");
}

/// The `wireseal` binary the command-line rows run: `WIRESEAL_BIN` (which
/// `wireseal bench` sets to itself), else `wireseal` beside this executable.
///
/// # Errors
///
/// [`Skip`] when neither exists.
pub fn wireseal_bin() -> Result<PathBuf, Skip> {
    if let Some(p) = std::env::var_os("WIRESEAL_BIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| Skip::new(format!("no current exe: {e}")))?;
    let beside = exe.with_file_name(format!("wireseal{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(Skip::new(format!(
            "no `wireseal` binary beside {} (run it as `wireseal bench`, or set WIRESEAL_BIN)",
            exe.display()
        )))
    }
}

/// The cache directory for built peers: `$XDG_CACHE_HOME/wireseal`, else
/// `$HOME/.cache/wireseal` (created when missing).
///
/// # Errors
///
/// [`Skip`] when neither variable is set or the directory cannot be created.
pub fn cache_dir() -> Result<PathBuf, Skip> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| Skip::new("neither XDG_CACHE_HOME nor HOME is set (no cache directory)"))?;
    let dir = base.join("wireseal");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Skip::new(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir)
}

/// FNV-1a over the sources: names the cache entry, so edited sources get a
/// fresh build (not a security boundary).
fn source_key(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Writes `text` to `path` through a temporary file and a rename, so a
/// process running beside this one never sees half a file.
fn write_atomic(path: &std::path::Path, text: &str) -> Result<(), Skip> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| Skip::new(format!("cannot write {}: {e}", path.display())))
}

/// The last non-blank line of a program's output (its error, usually).
pub(crate) fn last_line(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no output)")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_line_skips_blank_lines() {
        assert_eq!(last_line(b"a\nb: failed\n\n"), "b: failed");
        assert_eq!(last_line(b""), "(no output)");
    }

    #[test]
    fn source_key_depends_on_every_part_and_its_boundary() {
        assert_ne!(source_key(&["ab", "c"]), source_key(&["a", "bc"]));
        assert_eq!(source_key(&["x"]), source_key(&["x"]));
        assert_eq!(source_key(&["x"]).len(), 16);
    }
}
