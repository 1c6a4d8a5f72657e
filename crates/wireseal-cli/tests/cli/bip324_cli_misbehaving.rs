//! `wireseal bip324` over TCP on loopback against misbehaving peers: v1 and
//! noise peers, servers scripted with the library's `Connection` (garbage
//! without a terminator, a bad tag, a disconnect mid-packet), mismatched
//! `--magic` (named on both sides within a second), a peer that never
//! reads, and the connection cap; the listener keeps serving.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support;

use support::bip324::connect;
use support::{Listener, BIN};
use wireseal::bip324::{
    classify_first_bytes, Config, Connection, EllSwiftKeypair, KeyPool, Network, PacketType,
    PeerKind, Role, MAX_GARBAGE_LEN, TERMINATOR_LEN,
};

const NET: Network = Network::MAINNET;

/// The library's handshake over a blocking socket, for scripting a peer.
fn handshake(s: &mut TcpStream, role: Role) -> Connection {
    let mut c = Connection::new(role, KeyPool::new(1).take(), &Config::new(NET)).unwrap();
    let mut buf = [0u8; 64 * 1024];
    loop {
        send_queued(s, &mut c);
        if c.is_established() {
            return c;
        }
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "peer closed during the handshake");
        c.receive(&buf[..n]).unwrap();
    }
}

/// Writes what `c` has queued.
fn send_queued(s: &mut TcpStream, c: &mut Connection) {
    let n = c.transmit().len();
    s.write_all(c.transmit()).unwrap();
    c.transmitted(n);
}

/// Runs `script` on the first connection to a fresh local server; returns
/// the server's address.
fn scripted_server(script: impl FnOnce(TcpStream) + Send + 'static) -> String {
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (s, _) = server.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        script(s);
    });
    addr
}

/// A key whose encoding the mainnet listener cannot take for v1.
fn v2_key() -> EllSwiftKeypair {
    loop {
        let k = EllSwiftKeypair::generate();
        if classify_first_bytes(NET, k.encoding()) == PeerKind::V2 {
            return k;
        }
    }
}

#[test]
fn misbehaving_peers_get_errors_and_the_listener_keeps_serving() {
    let l = Listener::v2(&[]);
    // A v1 peer: the listener closes the connection (end of stream, not a
    // timeout) and sends nothing. Exactly the 16-byte prefix is sent, so
    // nothing is left unread at the listener and it closes with a FIN.
    let mut s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"\xf9\xbe\xb4\xd9version\0\0\0\0\0").unwrap();
    let mut b = [0u8; 1];
    assert_eq!(
        s.read(&mut b)
            .expect("the listener must close a v1 peer, not leave it hanging"),
        0,
        "nothing is sent to a v1 peer"
    );
    let me = s.local_addr().unwrap().to_string();
    assert!(l.wait_log(
        &[&format!(
            "{me}: error: the peer is not v2: it sent a v1 version message"
        )],
        Duration::from_secs(5)
    ));

    // A peer that sends a real key, then a run of one byte value as
    // garbage (a 16-byte terminator of that form has probability 2^-128):
    // dropped after exactly 4095 + 16 bytes of garbage, having received the
    // listener's key, garbage, terminator and version packet.
    let mut s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let kp = v2_key();
    s.write_all(kp.encoding()).unwrap();
    let mut theirs = [0u8; 64];
    s.read_exact(&mut theirs).unwrap();
    s.write_all(&[0x5a; MAX_GARBAGE_LEN + TERMINATOR_LEN])
        .unwrap();
    let mut sink = Vec::new();
    s.read_to_end(&mut sink)
        .expect("the listener must close the connection, not time out");
    assert!(
        (TERMINATOR_LEN + 20..=64 + TERMINATOR_LEN + 20).contains(&sink.len()),
        "{}",
        sink.len()
    );
    let me = s.local_addr().unwrap().to_string();
    assert!(l.wait_log(
        &[&format!(
            "{me}: error: no garbage terminator within 4095 bytes of garbage: the peer is not \
             v2, or uses another --magic than mainnet"
        )],
        Duration::from_secs(5)
    ));

    // And a proper client still gets served.
    let out = connect(&l.addr, &["--count", "50"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Connecting to something that is not v2: clear error, non-zero exit.
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (mut s, _) = server.accept().unwrap();
        let _ = s.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n");
    });
    let out = connect(&addr, &["--count", "5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the peer disconnected"), "{err}");
    assert!(!err.contains("Custom {") && !err.contains("kind:"), "{err}");
    // Bad arguments.
    let out = connect("127.0.0.1:1", &["--magic", "zz"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--magic"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown network"), "{err}");
    let out = Command::new(BIN)
        .args(["bip324", "listen", "127.0.0.1:0", "--max-connections", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// `connect` against a server that sends a key and then garbage with no
/// terminator: a clear error and a non-zero exit.
#[test]
fn connect_reports_garbage_without_terminator() {
    let addr = scripted_server(|mut s| {
        let mut theirs = [0u8; 64];
        s.read_exact(&mut theirs).unwrap();
        // A run of one byte value holds the connector's terminator with
        // probability 2^-128.
        s.write_all(EllSwiftKeypair::generate().encoding()).unwrap();
        s.write_all(&[0x5a; MAX_GARBAGE_LEN + TERMINATOR_LEN])
            .unwrap();
        let _ = s.read_to_end(&mut Vec::new());
    });
    let out = connect(&addr, &["--count", "5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no garbage terminator"), "{err}");
}

/// After a good handshake, a packet whose tag does not verify: the error
/// says it was the peer's packet that failed authentication, and after how
/// many.
#[test]
fn connect_reports_a_bad_tag_after_the_handshake() {
    let addr = scripted_server(|mut s| {
        let mut c = handshake(&mut s, Role::Responder);
        // Everything the connector sends, up to its end of stream.
        let _ = s.read_to_end(&mut Vec::new());
        c.send(b"decoy", PacketType::Decoy).unwrap();
        c.send(&[1u8; 40], PacketType::Genuine).unwrap();
        let mut wire = c.transmit().to_vec();
        *wire.last_mut().unwrap() ^= 0x01;
        s.write_all(&wire).unwrap();
        let _ = s.read(&mut [0u8; 1]);
    });
    let out = connect(&addr, &["--count", "5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("peer's packet failed authentication (after 1 packets)"),
        "{err}"
    );
}

/// The peer disconnects in the middle of a packet.
#[test]
fn connect_reports_a_disconnect_in_the_middle_of_a_packet() {
    let addr = scripted_server(|mut s| {
        let mut c = handshake(&mut s, Role::Responder);
        let _ = s.read_to_end(&mut Vec::new());
        c.send(&[9u8; 100], PacketType::Genuine).unwrap();
        let p = c.transmit();
        s.write_all(&p[..p.len() / 2]).unwrap();
    });
    let out = connect(&addr, &["--count", "5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("peer disconnected in the middle of a packet (0 of 5 echoes)"),
        "{err}"
    );
}

/// Runs `connect` with `extra` against `l` and returns its stderr and how
/// long it ran; it must fail.
fn failing_connect(l: &Listener, extra: &[&str]) -> (String, Duration) {
    let t0 = Instant::now();
    let out = connect(&l.addr, extra);
    let took = t0.elapsed();
    assert!(!out.status.success());
    (String::from_utf8_lossy(&out.stderr).into_owned(), took)
}

/// A listener and a connector on different known networks (the README's
/// pair as it once was: listener on mainnet, connector on signet, and the
/// other way round): both sides say "network mismatch", name both --magic
/// values, and do so within a second; the listener keeps serving, and the
/// same pair with the same --magic works.
#[test]
fn mismatched_magic_is_named_on_both_sides_within_a_second() {
    for (listen, conn) in [("mainnet", "signet"), ("signet", "mainnet")] {
        let l = Listener::v2(&["--magic", listen]);
        let t0 = Instant::now();
        let (err, took) = failing_connect(&l, &["--count", "1000", "--magic", conn]);
        assert!(took < Duration::from_secs(1), "{took:?}: {err}");
        assert!(
            err.contains(&format!(
                "v2 handshake with {} failed: network mismatch",
                l.addr
            )) && err.contains(&format!(
                "this side: --magic {conn}, the peer: --magic {listen}"
            )),
            "{err}"
        );
        let needles = [
            "error: network mismatch",
            &format!("this side: --magic {listen}, the peer: --magic {conn}"),
        ];
        assert!(
            l.wait_log(
                &needles,
                Duration::from_secs(1).saturating_sub(t0.elapsed())
            ),
            "the listener must say it within a second"
        );
        assert!(
            !l.log().contains("Custom {"),
            "errors are words: {}",
            l.log()
        );
        let out = connect(&l.addr, &["--count", "20", "--magic", listen]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Magics that have no name: a listener on one recognises a connector on
/// mainnet and says so at once, and the connector is told the listener
/// closed before its terminator, naming --magic; two unnamed magics cannot
/// recognise each other, so the connector's handshake deadline says it.
#[test]
fn unnamed_magics_point_at_the_magic() {
    let l = Listener::v2(&["--magic", "01020304"]);
    let t0 = Instant::now();
    let (err, took) = failing_connect(&l, &["--count", "5"]);
    assert!(took < Duration::from_secs(1), "{took:?}: {err}");
    assert!(
        err.contains("closed the connection before its garbage terminator")
            && err.contains("another --magic than mainnet"),
        "{err}"
    );
    let needles = [
        "error: network mismatch",
        "the peer: --magic mainnet",
        "this side: --magic 01020304",
    ];
    assert!(l.wait_log(
        &needles,
        Duration::from_secs(1).saturating_sub(t0.elapsed())
    ));

    let (err, _) = failing_connect(
        &l,
        &[
            "--count",
            "5",
            "--magic",
            "0x01020305",
            "--handshake-timeout",
            "1",
        ],
    );
    assert!(
        err.contains("timed out after 1s") && err.contains("another --magic than 01020305"),
        "{err}"
    );
    let out = connect(&l.addr, &["--count", "20", "--magic", "01020304"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A peer that sends packets but never reads its echoes: the listener's
/// write times out and it drops the peer (our next write fails), and it
/// still serves a well-behaved peer afterwards.
#[test]
fn a_peer_that_never_reads_is_dropped() {
    let l = Listener::v2(&["--write-timeout", "1"]);
    let mut s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut c = handshake(&mut s, Role::Initiator);
    let me = s.local_addr().unwrap().to_string();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let contents = vec![7u8; 60_000];
        let mut sent = 0u64;
        let e = loop {
            c.send(&contents, PacketType::Genuine).unwrap();
            let n = c.transmit().len();
            if let Err(e) = s.write_all(c.transmit()) {
                break e;
            }
            c.transmitted(n);
            sent += 1;
        };
        let _ = done.send((sent, e));
    });
    let (sent, e) = finished
        .recv_timeout(Duration::from_secs(60))
        .expect("a peer that never reads must be dropped");
    assert!(sent > 0, "{e}");
    assert!(
        l.wait_log(
            &[&format!("{me}: error: write timed out")],
            Duration::from_secs(10)
        ),
        "dropped for another reason than the write deadline"
    );
    let out = connect(&l.addr, &["--count", "200"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// At most --max-connections peers at once: the next one is closed at once
/// (the others stay open), and a freed slot serves a new peer.
#[test]
fn connection_cap_is_enforced() {
    let l = Listener::v2(&["--max-connections", "2"]);
    let a = TcpStream::connect(&l.addr).unwrap();
    let b = TcpStream::connect(&l.addr).unwrap();
    let mut c = TcpStream::connect(&l.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 1];
    assert_eq!(
        c.read(&mut buf)
            .expect("an excess connection must be closed at once, not left hanging"),
        0
    );
    let c_addr = c.local_addr().unwrap().to_string();
    assert!(l.wait_log(
        &[&format!("{c_addr}: refused: 2 connections")],
        Duration::from_secs(5)
    ));
    // The two accepted ones are still open (their handshake deadline is
    // 10 s away): a read times out instead of seeing the end.
    for mut s in [&a, &b] {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let e = s.read(&mut buf).expect_err("still open, nothing sent");
        assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "{e}"
        );
    }
    // A well-behaved client is refused too while both slots are taken.
    let out = connect(&l.addr, &["--count", "5"]);
    assert!(!out.status.success());
    // Closing one frees its slot (logged after the slot is freed).
    let a_addr = a.local_addr().unwrap().to_string();
    drop(a);
    assert!(l.wait_log(&[&format!("{a_addr}: error")], Duration::from_secs(10)));
    let out = connect(&l.addr, &["--count", "50"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(b);
}
