//! `wireseal bip324 listen` under load it must survive: silent
//! clients freed by the handshake deadline, the per-IP limit, clean refusal
//! when full, a bounded log under a reconnect loop, the session id in the
//! log. Loopback only; every wait is bounded.

use std::io::Read;
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support;

use support::{Listener, BIN};

fn connect(addr: &str, count: &str) -> std::process::Output {
    Command::new(BIN)
        .args(["bip324", "connect", addr, "--count", count])
        .output()
        .unwrap()
}

/// Reads until the end of stream; panics on a reset or after `limit`.
fn expect_fin(s: &mut TcpStream, limit: Duration, what: &str) {
    s.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 64];
    match s.read(&mut buf) {
        Ok(0) => {}
        Ok(n) => panic!("{what}: {n} bytes sent, expected a plain close"),
        Err(e) => panic!("{what}: expected a clean close (FIN), got {e}"),
    }
}

/// Silent clients hold their slots only until the handshake deadline; while
/// they hold them the next client is closed cleanly (FIN, no reset), the log
/// says the listener is full, and `connect` says what that close can mean.
#[test]
fn silent_clients_are_freed_by_the_handshake_deadline() {
    let l = Listener::v2(&["--max-connections", "3", "--handshake-timeout", "2"]);
    let mut idle: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(&l.addr).unwrap())
        .collect();
    // Give the listener a moment to account for all three.
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    let mut extra = TcpStream::connect(&l.addr).unwrap();
    expect_fin(&mut extra, Duration::from_secs(5), "a client over the cap");
    let me = extra.local_addr().unwrap().to_string();
    assert!(l.wait_log(
        &[&format!("{me}: refused"), "listener full"],
        Duration::from_secs(5)
    ));
    if t0.elapsed() < Duration::from_secs(1) {
        let out = connect(&l.addr, "5");
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--max-connections"), "{err}");
        assert!(
            !err.contains("reset"),
            "a refusal must not be a reset: {err}"
        );
    }
    // The deadline closes every silent client (end of stream, no timeout
    // here) and says why.
    for s in &mut idle {
        expect_fin(s, Duration::from_secs(10), "a silent client");
    }
    let me = idle[0].local_addr().unwrap().to_string();
    assert!(l.wait_log(
        &[&format!("{me}: error: handshake timed out after 2s")],
        Duration::from_secs(5)
    ));
    let out = connect(&l.addr, "20");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One address gets at most --max-per-ip connections; a closed one frees
/// its place.
#[test]
fn per_ip_limit() {
    let l = Listener::v2(&["--max-per-ip", "2", "--max-connections", "50"]);
    let a = TcpStream::connect(&l.addr).unwrap();
    let b = TcpStream::connect(&l.addr).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let mut c = TcpStream::connect(&l.addr).unwrap();
    expect_fin(&mut c, Duration::from_secs(5), "a third client from one IP");
    let me = c.local_addr().unwrap().to_string();
    assert!(l.wait_log(
        &[
            &format!("{me}: refused: 2 connections already open from 127.0.0.1"),
            "--max-per-ip"
        ],
        Duration::from_secs(5)
    ));
    let out = connect(&l.addr, "5");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-per-ip"));
    let a_addr = a.local_addr().unwrap().to_string();
    drop(a);
    assert!(l.wait_log(&[&format!("{a_addr}: error")], Duration::from_secs(10)));
    let out = connect(&l.addr, "20");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(b);
}

/// A client reconnecting in a loop against a full listener: a bounded number
/// of lines (20 per interval plus one summary), and the summary counts the
/// refusals that were left out.
#[test]
fn log_lines_are_bounded_under_a_reconnect_loop() {
    let l = Listener::v2(&["--max-connections", "1", "--log-interval", "1"]);
    let _hold = TcpStream::connect(&l.addr).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    let mut attempts = 0u32;
    while t0.elapsed() < Duration::from_secs(3) && attempts < 3000 {
        if let Ok(s) = TcpStream::connect(&l.addr) {
            drop(s);
        }
        attempts += 1;
    }
    assert!(
        l.wait_log(
            &["refused (listener full)", "lines left out"],
            Duration::from_secs(5)
        ),
        "no summary after {attempts} attempts"
    );
    let log = l.log();
    let lines = log.lines().count() as u64;
    let seconds = t0.elapsed().as_secs() + 1;
    assert!(
        lines <= 21 * (seconds + 1),
        "{lines} lines for {attempts} attempts in {seconds}s:\n{log}"
    );
    // The summaries account for every refusal that had no line of its own.
    let left_out: u64 = log
        .lines()
        .filter_map(|l| l.strip_suffix(" lines left out"))
        .filter_map(|l| l.rsplit("; ").next()?.parse::<u64>().ok())
        .sum();
    assert!(left_out > 0, "{log}");
    assert!(
        u64::from(attempts) >= left_out,
        "{left_out} left out of {attempts}"
    );
}

/// The session id `connect` prints is in the listener's log, when the
/// session starts and when it closes.
#[test]
fn session_id_is_logged_per_connection() {
    let l = Listener::v2(&[]);
    let out = connect(&l.addr, "30");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let id = stdout
        .trim()
        .rsplit("session id ")
        .next()
        .expect("connect prints the session id");
    assert_eq!(id.len(), 64, "{stdout}");
    assert!(l.wait_log(&[&format!("v2 session id {id}")], Duration::from_secs(5)));
    assert!(l.wait_log(
        // 30 packets and the decoys `connect` sends among them.
        &["closed after 32 packets", &format!("(session id {id})")],
        Duration::from_secs(5)
    ));
}
