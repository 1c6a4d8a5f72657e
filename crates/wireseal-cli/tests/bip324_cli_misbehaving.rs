//! `wireseal v2` over TCP on loopback against misbehaving peers: v1 and noise
//! peers, servers scripted with the library (garbage without a terminator,
//! a bad tag, a disconnect mid-packet), mismatched `--magic`, a peer that
//! never reads, and the connection cap; the listener keeps serving.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::Duration;

mod support;

use support::bip324::connect;
use support::{Listener, BIN};
use wireseal::bip324::{
    classify_first_bytes, Classified, EllSwiftKeypair, GarbageRead, Handshake, KeyRead, Network,
    PacketType, PeerKind, Role, Session, SessionKeys, Start, VersionRead, MAX_GARBAGE_LEN,
    TERMINATOR_LEN,
};

const NET: Network = Network::MAINNET;

fn read_more(s: &mut TcpStream, buf: &mut Vec<u8>) {
    let mut b = [0u8; 64 * 1024];
    let n = s.read(&mut b).unwrap();
    assert!(n > 0, "peer closed during the handshake");
    buf.extend_from_slice(&b[..n]);
}

/// The library's handshake over a blocking socket, from a state whose key is
/// not yet written and what was already read.
fn finish_handshake(s: &mut TcpStream, start: Handshake<Start>, mut inbuf: Vec<u8>) -> Session {
    let mut out = Vec::new();
    let mut h = start.write_key(&mut out);
    s.write_all(&out).unwrap();
    let h = loop {
        match h.read_key(&inbuf) {
            KeyRead::NeedMore(n) => {
                h = n;
                read_more(s, &mut inbuf);
            }
            KeyRead::Derived {
                handshake,
                consumed,
            } => {
                inbuf.drain(..consumed);
                break handshake;
            }
            KeyRead::V1Peer => panic!("v1 peer"),
        }
    };
    out.clear();
    let mut h = h.write_version(&[], &mut out).unwrap();
    s.write_all(&out).unwrap();
    let mut h = loop {
        match h.read_garbage(&inbuf).unwrap() {
            GarbageRead::NeedMore(n) => {
                h = n;
                read_more(s, &mut inbuf);
            }
            GarbageRead::Found {
                handshake,
                consumed,
            } => {
                inbuf.drain(..consumed);
                break handshake;
            }
        }
    };
    loop {
        match h.read_version(&mut inbuf).unwrap() {
            VersionRead::NeedMore(n, _) => {
                h = n;
                read_more(s, &mut inbuf);
            }
            VersionRead::Decoy(n, c) => {
                inbuf.drain(..c);
                h = n;
            }
            VersionRead::Done { session, .. } => return session,
        }
    }
}

/// A v2 initiator built on the library (its key never looks like v1).
fn initiate(s: &mut TcpStream) -> Session {
    let start = Handshake::initiator(NET, EllSwiftKeypair::generate(), b"").unwrap();
    finish_handshake(s, start, Vec::new())
}

/// A v2 responder built on the library, for scripting a misbehaving server.
fn respond(s: &mut TcpStream) -> Session {
    let mut inbuf = Vec::new();
    let mut h = Handshake::accept(NET, EllSwiftKeypair::generate(), b"").unwrap();
    let start = loop {
        match h.classify(&inbuf) {
            Classified::NeedMore(n) => {
                h = n;
                read_more(s, &mut inbuf);
            }
            Classified::V2(start) => break start,
            Classified::V1 => panic!("v1 peer"),
        }
    };
    finish_handshake(s, start, inbuf)
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
        &[&format!("{me}: error: peer is not v2")],
        Duration::from_secs(5)
    ));

    // A peer that sends a real key, then noise that cannot contain the
    // terminator the listener expects: dropped after exactly 4095 + 16
    // bytes of garbage, having received the listener's key, garbage,
    // terminator and version packet.
    let mut s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let kp = v2_key();
    s.write_all(kp.encoding()).unwrap();
    let mut theirs = [0u8; 64];
    s.read_exact(&mut theirs).unwrap();
    let keys = SessionKeys::derive(&kp, &theirs, Role::Initiator, NET);
    let noise = keys.initiator_terminator[0] ^ 0xff;
    s.write_all(&[noise; MAX_GARBAGE_LEN + TERMINATOR_LEN])
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
        &[&format!("{me}: error: peer is not v2 or sent bad garbage")],
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
    assert!(err.contains("peer disconnected"), "{err}");
    // Bad arguments.
    let out = connect("127.0.0.1:1", &["--magic", "zz"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--magic"));
    let out = Command::new(BIN)
        .args(["v2", "listen", "127.0.0.1:0", "--max-connections", "0"])
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
        let kp = EllSwiftKeypair::generate();
        let keys = SessionKeys::derive(&kp, &theirs, Role::Responder, NET);
        // The connector looks for the responder's terminator; a byte run
        // that starts nowhere with its first byte cannot contain it.
        let noise = keys.responder_terminator[0] ^ 0xff;
        s.write_all(kp.encoding()).unwrap();
        s.write_all(&[noise; MAX_GARBAGE_LEN + TERMINATOR_LEN])
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
        let mut session = respond(&mut s);
        // Everything the connector sends, up to its end of stream.
        let _ = s.read_to_end(&mut Vec::new());
        let mut wire = session
            .sender
            .seal_to_vec(b"decoy", PacketType::Decoy, b"")
            .unwrap();
        let mut bad = session
            .sender
            .seal_to_vec(&[1u8; 40], PacketType::Genuine, b"")
            .unwrap();
        let last = bad.len() - 1;
        bad[last] ^= 0x01;
        wire.extend_from_slice(&bad);
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
        let mut session = respond(&mut s);
        let _ = s.read_to_end(&mut Vec::new());
        let p = session
            .sender
            .seal_to_vec(&[9u8; 100], PacketType::Genuine, b"")
            .unwrap();
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

/// Keys salted with different magics never agree: `connect` gives up at its
/// handshake deadline with an error that names --magic, and the listener
/// keeps serving.
#[test]
fn connect_with_mismatched_magic_fails_clearly() {
    let l = Listener::v2(&[]);
    let out = connect(
        &l.addr,
        &[
            "--count",
            "5",
            "--magic",
            "0b110907",
            "--handshake-timeout",
            "2",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("v2 handshake with {}", l.addr)),
        "{err}"
    );
    // Were the connector's random key to begin with the listener's v1
    // prefix (probability 2^-128), the listener would close it as v1: also a
    // handshake failure, reported as a disconnect.
    if !err.contains("peer disconnected") {
        assert!(
            err.contains("timed out after 2s") && err.contains("--magic"),
            "{err}"
        );
    }
    let out = connect(&l.addr, &["--count", "20"]);
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
    let (mut tx, _rx) = initiate(&mut s).split();
    let me = s.local_addr().unwrap().to_string();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let contents = vec![7u8; 60_000];
        let mut sent = 0u64;
        let e = loop {
            let p = tx.seal_to_vec(&contents, PacketType::Genuine, b"").unwrap();
            if let Err(e) = s.write_all(&p) {
                break e;
            }
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
