//! The gateway against a broker that is not there: failures in words, the
//! retry limit said in the log, and `--max-retries` giving up with exit 1.
//! No broker is needed.

use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn a_missing_broker_is_reported_in_words_and_given_up_on() {
    let url = format!("mqtt://127.0.0.1:{}", closed_port());
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args([
            "meshtastic",
            "gateway",
            "--broker",
            &url,
            "--max-retries",
            "3",
        ])
        .output()
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(20));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("connection refused"), "{err}");
    assert!(err.contains("attempt 1 of 3"), "{err}");
    assert!(err.contains("gave up after 3 failed attempt(s)"), "{err}");
    // Rust debug text never reaches the log.
    assert!(!err.contains("kind:") && !err.contains("Custom {"), "{err}");
}

#[test]
fn without_a_limit_the_log_says_so() {
    let url = format!("mqtt://127.0.0.1:{}", closed_port());
    let child = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(["meshtastic", "gateway", "--broker", &url])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "SIGINT exits 0");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no retry limit (--max-retries N gives up)"),
        "{err}"
    );
    assert!(err.contains("\"summary\""), "{err}");
}
