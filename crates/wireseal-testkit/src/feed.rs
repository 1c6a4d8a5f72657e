//! The independent Meshtastic feed (`interop/meshtastic/feed.py`: the
//! `meshtastic` PyPI protobufs, `cryptography`, python-xeddsa, paho-mqtt).

use super::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why the Python peers are unusable, if they are (Mosquitto included).
pub fn missing() -> Option<Error> {
    if let Err(e) = super::mosquitto::program() {
        return Some(e);
    }
    let ok = Command::new("python3")
        .args([
            "-c",
            "import meshtastic.protobuf, cryptography, paho.mqtt, xeddsa",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    (!ok).then(|| "python3 with meshtastic, cryptography, paho-mqtt and xeddsa is missing".into())
}

/// The script, from the repository root `root`.
pub fn script(root: &Path) -> PathBuf {
    root.join("interop/meshtastic/feed.py")
}

/// `feed.py make`: the lines, parsed.
///
/// # Panics
/// When the script fails.
pub fn make(
    root: &Path,
    our_node: u32,
    our_public: &[u8; 32],
    repeat: u32,
    node_base: u32,
) -> Vec<serde_json::Value> {
    let public: String = our_public.iter().map(|b| format!("{b:02x}")).collect();
    let out = Command::new("python3")
        .arg(script(root))
        .args([
            "make",
            "--our-node",
            &our_node.to_string(),
            "--our-public",
            &public,
            "--repeat",
            &repeat.to_string(),
            "--node-base",
            &node_base.to_string(),
        ])
        .output()
        .expect("run feed.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a feed line"))
        .collect()
}

/// `feed.py publish` of `lines` to the broker on `port` (QoS 1, each
/// acknowledged before the next).
///
/// # Panics
/// When the script fails.
pub fn publish(root: &Path, port: u16, lines: &[serde_json::Value]) {
    let out = super::lines::feed(
        Command::new("python3")
            .arg(script(root))
            .args(["publish", "--port", &port.to_string()]),
        lines,
    );
    assert!(out.status.success(), "feed.py publish failed");
}
