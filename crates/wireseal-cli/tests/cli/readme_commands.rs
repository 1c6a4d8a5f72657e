//! The README's command-line section runs as written: each `sh` block under
//! "## Command line" is run by bash (`set -euo pipefail`) in one scratch
//! directory, with this build's `wireseal` first on `PATH`. Two changes are
//! made for a test machine, both to addresses only: the BIP324 pair gets a
//! free loopback port for `8333`, and the gateway's broker is a real
//! Mosquitto started on a free port for `localhost:1883` (the gateway is
//! also given `--ready-file`, which says when it subscribed), and the read
//! side's port `9100` is a free one.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `sh` blocks of the README's "## Command line" section, in order.
fn blocks() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README.md");
    let start = readme
        .find("\n## Command line")
        .expect("a Command line section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut out = Vec::new();
    let mut rest = section;
    while let Some(i) = rest.find("```sh\n") {
        let body = &rest[i + 6..];
        let end = body.find("```").expect("a closed block");
        out.push(body[..end].to_owned());
        rest = &body[end + 3..];
    }
    out
}

fn bash(dir: &Path, script: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_wireseal")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("bash");
    c.args(["-c", &format!("set -euo pipefail\n{script}")])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("AESCRYPT_PASSWORD");
    c
}

fn run_ok(dir: &Path, script: &str) -> String {
    let out = bash(dir, script).output().expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "README block failed ({}):\n{script}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_readme_command_line_runs_as_written() {
    let b = blocks();
    assert_eq!(b.len(), 5, "the section's blocks changed: {b:?}");
    let dir = tempfile::tempdir().unwrap();

    // The first session: every result printed is checked against what went in.
    let out = run_ok(dir.path(), &b[0]);
    let lines: Vec<&str> = out.lines().collect();
    let count = |s: &str| lines.iter().filter(|l| **l == s).count();
    assert_eq!(
        count("08011204746573744800"),
        2,
        "both Meshtastic round trips:\n{out}"
    );
    assert_eq!(count("68656c6c6f"), 1, "the peat round trip:\n{out}");
    assert!(out.contains("protection: peer-e2ee"), "{out}");
    assert!(out.contains("payload: 0208000000000000000a"), "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "a small backup\n"
    );
    assert!(std::fs::read_to_string(dir.path().join("wireseal.bash"))
        .unwrap()
        .contains("wireseal"));

    // The BIP324 pair, on a free port.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let pair = b[1].replace("127.0.0.1:8333", &format!("127.0.0.1:{port}"));
    assert_ne!(pair, b[1], "the BIP324 block names 127.0.0.1:8333");
    let out = run_ok(dir.path(), &pair);
    assert!(out.contains("ok: 1000 packets"), "{out}");
}

/// The MeshCore block: a key, its public key twice, an advert that
/// verifies, and two group texts decoded back with the keys given.
#[test]
fn the_readme_meshcore_block_runs_as_written() {
    let b = blocks();
    let dir = tempfile::tempdir().unwrap();
    assert!(b[4].contains("wireseal meshcore keygen"), "{}", b[4]);
    let out = run_ok(dir.path(), &b[4]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0].len(), 64, "{out}");
    assert_eq!(lines[0], lines[1], "keygen and pubkey agree:\n{out}");
    let advert: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(advert["advert"]["public_key"], lines[0]);
    assert_eq!(advert["advert"]["signature"], "valid");
    assert_eq!(advert["advert"]["name"], "Alice");
    assert_eq!(advert["advert"]["lat"], 52.37);
    assert!(lines.contains(&"  text: Alice: hello"), "{out}");
    assert!(lines.contains(&"  text: Alice: hi"), "{out}");
    assert!(dir.path().join("node.key").exists());
}

#[test]
fn the_readme_gateway_runs_against_a_broker() {
    if !wireseal_testkit::peer_present(wireseal_testkit::feed::missing()) {
        return;
    }
    let b = blocks();
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        dir.path(),
        "wireseal keygen x25519 --out alice.key >/dev/null",
    );
    let broker = wireseal_testkit::mosquitto::Mosquitto::start().unwrap();
    let script = b[2].replace("localhost:1883", &format!("127.0.0.1:{}", broker.port));
    assert_ne!(script, b[2], "the gateway block names localhost:1883");
    let mut child = bash(
        dir.path(),
        &format!("exec {} --ready-file ready", script.trim_end()),
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !dir.path().join("ready").exists() {
        if let Some(st) = child.try_wait().unwrap() {
            panic!("the gateway exited before subscribing: {st}");
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("the gateway did not subscribe");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(status.success(), "gateway exit {status}");
}

/// The read side's block: the gateway with a store and `--http`, asked by
/// curl for readiness, packets and metrics, then stopped.
#[test]
fn the_readme_read_side_answers() {
    if !wireseal_testkit::peer_present(wireseal_testkit::feed::missing()) {
        return;
    }
    let b = blocks();
    let dir = tempfile::tempdir().unwrap();
    let broker = wireseal_testkit::mosquitto::Mosquitto::start().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = b[3]
        .replace("localhost:1883", &format!("127.0.0.1:{}", broker.port))
        .replace("--http 9100", &format!("--http {port}"))
        .replace("127.0.0.1:9100", &format!("127.0.0.1:{port}"));
    assert!(
        !script.contains("9100"),
        "the block names port 9100: {script}"
    );
    let out = run_ok(dir.path(), &script);
    assert!(out.contains("wireseal_gateway_messages_total 0"), "{out}");
    assert!(out.contains("\"packets\""), "the API answered JSON: {out}");
    assert!(dir.path().join("mesh.db").exists());
}
