//! `wireseal bip324` over TCP on loopback: our listener and connector with each
//! other and with the `bip324` crate (rust-bitcoin) as the peer.

use ::bip324 as peer;
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use crate::support;

use support::bip324::connect;
use support::Listener;

const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

#[test]
fn our_connect_with_our_listener_across_rekeys() {
    let l = Listener::v2(&[]);
    let out = connect(&l.addr, &["--count", "1500"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: 1500 packets"));
    let l = Listener::v2(&["--magic", "0a03cf40"]);
    let out = connect(&l.addr, &["--count", "10", "--magic", "0a03cf40"]);
    assert!(out.status.success());
}

/// The crate's blocking client against our listener: handshake, 1000
/// echoed packets (several rekeys each way), decoys ignored.
#[test]
fn crate_initiator_with_our_listener() {
    let l = Listener::v2(&[]);
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
