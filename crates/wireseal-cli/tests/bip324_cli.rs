//! `wireseal v2` over TCP on loopback: our listener and connector with each
//! other and with the `bip324` crate (rust-bitcoin) as the peer, plus
//! misbehaving peers.

use ::bip324 as peer;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_wireseal");
const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

struct Listener {
    child: Child,
    addr: String,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn listen(extra: &[&str]) -> Listener {
    let mut child = Command::new(BIN)
        .args(["v2", "listen", "127.0.0.1:0", "--echo"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    Listener { child, addr }
}

fn connect(addr: &str, extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["v2", "connect", addr])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn our_connect_with_our_listener_across_rekeys() {
    let l = listen(&[]);
    let out = connect(&l.addr, &["--count", "1500"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: 1500 packets"));
    let l = listen(&["--magic", "0a03cf40"]);
    let out = connect(&l.addr, &["--count", "10", "--magic", "0a03cf40"]);
    assert!(out.status.success());
}

/// The crate's blocking client against our listener: handshake, 1000
/// echoed packets (several rekeys each way), decoys ignored.
#[test]
fn crate_initiator_with_our_listener() {
    let l = listen(&[]);
    let s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut p = peer::io::Protocol::new(
        MAGIC,
        peer::Role::Initiator,
        Some(vec![9u8; 100]),
        Some(vec![vec![1u8; 10]]),
        s.try_clone().unwrap(),
        s,
    )
    .unwrap();
    for i in 0..1000usize {
        let msg: Vec<u8> = (0..(i * 7 % 900)).map(|j| (i ^ j) as u8).collect();
        if i % 50 == 0 {
            p.write(&peer::io::Payload::decoy(vec![0u8; 33])).unwrap();
        }
        p.write(&peer::io::Payload::genuine(msg.clone())).unwrap();
        let back = p.read().unwrap();
        assert_eq!(back.packet_type(), peer::PacketType::Genuine);
        assert_eq!(back.contents(), &msg[..]);
    }
}

/// Our connector against a responder built on the crate that echoes.
#[test]
fn our_connect_with_crate_responder() {
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = server.local_addr().unwrap().to_string();
    let t = std::thread::spawn(move || {
        let (s, _) = server.accept().unwrap();
        let mut p = peer::io::Protocol::new(
            MAGIC,
            peer::Role::Responder,
            None,
            None,
            s.try_clone().unwrap(),
            s,
        )
        .unwrap();
        let mut echoed = 0;
        while let Ok(m) = p.read() {
            if m.packet_type() == peer::PacketType::Genuine {
                p.write(&peer::io::Payload::genuine(m.contents().to_vec()))
                    .unwrap();
                echoed += 1;
            }
        }
        echoed
    });
    let out = connect(&addr, &["--count", "800"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(t.join().unwrap(), 800);
}

#[test]
fn misbehaving_peers_get_errors_and_the_listener_keeps_serving() {
    let l = listen(&[]);
    // A v1 peer: the listener drops it.
    let mut s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"\xf9\xbe\xb4\xd9version\0\0\0\0\0\x66\x00\x00\x00")
        .unwrap();
    let mut b = [0u8; 1];
    assert_eq!(
        s.read(&mut b).unwrap_or(0),
        0,
        "nothing is sent to a v1 peer"
    );
    // A peer that sends a key and then only noise: dropped after 4095+16.
    let mut s = TcpStream::connect(&l.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(&[0x42u8; 64 + 5000]).unwrap();
    let mut sink = Vec::new();
    let _ = s.read_to_end(&mut sink);
    assert!(sink.len() < 64 + 4096 + 16 + 20 + 1);
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
}
