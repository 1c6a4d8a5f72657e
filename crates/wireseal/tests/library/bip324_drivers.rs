//! The `std::io` and tokio drivers over real loopback TCP sockets: against
//! each other and against the `bip324` crate's blocking `io` driver, with
//! garbage, decoys and enough packets for several rekeys each way.

use ::bip324 as peer;
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;
use wireseal::bip324::{io, Config, Error, KeyPool, Network, PacketType, Role, Stage};

const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];
const PACKETS: usize = 700;

fn config(garbage: usize, decoys: usize) -> Config {
    Config::new(Network::MAINNET)
        .with_garbage(vec![0x33; garbage])
        .with_decoys((0..decoys).map(|i| vec![i as u8; 10 * i]).collect())
}

/// Contents of packet `i`: sizes across the rekey boundaries, some large.
fn msg(i: usize) -> Vec<u8> {
    let len = (i * 37) % 900 + if i % 97 == 0 { 20_000 } else { 0 };
    (0..len).map(|j| (i ^ j) as u8).collect()
}

fn bound() -> (TcpListener, String) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = l.local_addr().unwrap().to_string();
    (l, a)
}

/// Runs `serve` on the first connection `l` accepts, on a tokio
/// current-thread runtime in a new thread.
fn tokio_server<F, Fut, T>(l: TcpListener, serve: F) -> thread::JoinHandle<T>
where
    F: FnOnce(tokio::net::TcpStream) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = T>,
    T: Send + 'static,
{
    l.set_nonblocking(true).unwrap();
    thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(l).unwrap();
            let (s, _) = l.accept().await.unwrap();
            serve(s).await
        })
    })
}

fn timeouts(s: &TcpStream) {
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(20))).unwrap();
}

/// Our blocking responder: echoes every genuine packet (with a decoy in
/// front of every tenth echo) until the peer closes; returns the session id.
fn io_echo_server(l: TcpListener) -> thread::JoinHandle<[u8; 32]> {
    thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        timeouts(&s);
        let pool = KeyPool::new(1);
        let mut conn = io::handshake(&mut s, Role::Responder, pool.take(), &config(17, 2)).unwrap();
        let mut n = 0usize;
        loop {
            let contents = match conn.reader.receive(&mut s) {
                Ok(c) => c,
                Err(io::Error::Protocol(Error::Disconnected {
                    stage: Stage::BetweenPackets,
                })) => return conn.session_id,
                Err(e) => panic!("server: {e}"),
            };
            if n % 10 == 0 {
                conn.writer.queue(b"decoy echo", PacketType::Decoy).unwrap();
            }
            conn.writer
                .send(&mut s, contents, PacketType::Genuine)
                .unwrap();
            n += 1;
        }
    })
}

/// Our blocking initiator: sends PACKETS packets (decoys between), checks
/// each echo.
fn io_client(addr: &str) -> [u8; 32] {
    let mut s = TcpStream::connect(addr).unwrap();
    timeouts(&s);
    let pool = KeyPool::new(1);
    let mut conn = io::handshake(&mut s, Role::Initiator, pool.take(), &config(0, 3)).unwrap();
    for i in 0..PACKETS {
        if i % 7 == 0 {
            conn.writer.queue(&[0u8; 50], PacketType::Decoy).unwrap();
        }
        let m = msg(i);
        conn.writer.send(&mut s, &m, PacketType::Genuine).unwrap();
        assert_eq!(conn.reader.receive(&mut s).unwrap(), &m[..], "echo {i}");
    }
    assert!(conn.reader.packets() >= PACKETS as u64);
    conn.session_id
}

#[test]
fn io_initiator_with_io_responder() {
    let (l, addr) = bound();
    let server = io_echo_server(l);
    let id = io_client(&addr);
    assert_eq!(server.join().unwrap(), id);
}

#[test]
fn tokio_initiator_with_io_responder() {
    use wireseal::bip324::tokio as driver;
    let (l, addr) = bound();
    let server = io_echo_server(l);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let id = rt.block_on(async {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let pool = KeyPool::new(1);
        let mut conn = driver::handshake(&mut s, Role::Initiator, pool.take(), &config(64, 1))
            .await
            .unwrap();
        let (mut rd, mut wr) = s.into_split();
        for i in 0..PACKETS {
            let m = msg(i);
            conn.writer
                .send(&mut wr, &m, PacketType::Genuine)
                .await
                .unwrap();
            let back = tokio::time::timeout(Duration::from_secs(20), conn.reader.receive(&mut rd))
                .await
                .expect("echo in time")
                .unwrap();
            assert_eq!(back, &m[..], "echo {i}");
        }
        conn.session_id
    });
    assert_eq!(server.join().unwrap(), id);
}

#[test]
fn io_initiator_with_tokio_responder() {
    use wireseal::bip324::tokio as driver;
    let (l, addr) = bound();
    let server = tokio_server(l, |mut s| async move {
        let pool = KeyPool::new(1);
        let mut conn = driver::handshake(&mut s, Role::Responder, pool.take(), &config(5, 4))
            .await
            .unwrap();
        loop {
            // Echo everything buffered in one write, as a listener does.
            while let Some(c) = conn.reader.receive_buffered().unwrap() {
                conn.writer.queue(c, PacketType::Genuine).unwrap();
            }
            conn.writer.flush(&mut s).await.unwrap();
            let n = conn.reader.fill(&mut s).await.unwrap();
            if n == 0 {
                assert_eq!(conn.reader.buffered_len(), 0);
                return conn.session_id;
            }
        }
    });
    let id = io_client(&addr);
    assert_eq!(server.join().unwrap(), id);
}

/// Our blocking initiator against the crate's blocking responder.
#[test]
fn io_initiator_with_crate_responder() {
    let (l, addr) = bound();
    let server = thread::spawn(move || {
        let (s, _) = l.accept().unwrap();
        timeouts(&s);
        let mut p = peer::io::Protocol::new(
            MAGIC,
            peer::Role::Responder,
            Some(vec![1u8; 99]),
            Some(vec![vec![2u8; 40]]),
            s.try_clone().unwrap(),
            s,
        )
        .unwrap();
        for i in 0..PACKETS {
            // The crate's `read` hands decoys up too: skip them.
            let got = loop {
                let got = p.read().unwrap();
                if got.packet_type() == peer::PacketType::Genuine {
                    break got;
                }
            };
            assert_eq!(got.contents(), &msg(i)[..]);
            if i % 11 == 0 {
                p.write(&peer::io::Payload::decoy(vec![0u8; 9])).unwrap();
            }
            p.write(&peer::io::Payload::genuine(got.contents().to_vec()))
                .unwrap();
        }
    });
    io_client(&addr);
    server.join().unwrap();
}

/// The crate's blocking initiator against our tokio responder.
#[test]
fn crate_initiator_with_tokio_responder() {
    use wireseal::bip324::tokio as driver;
    let (l, addr) = bound();
    let server = tokio_server(l, |s| async move {
        let (mut rd, mut wr) = s.into_split();
        let mut s = tokio::io::join(&mut rd, &mut wr);
        let pool = KeyPool::new(1);
        let mut conn = driver::handshake(&mut s, Role::Responder, pool.take(), &config(0, 0))
            .await
            .unwrap();
        for i in 0..PACKETS {
            let c = conn.reader.receive(&mut rd).await.unwrap().to_vec();
            assert_eq!(c, msg(i));
            conn.writer
                .send(&mut wr, &c, PacketType::Genuine)
                .await
                .unwrap();
        }
    });
    let s = TcpStream::connect(&addr).unwrap();
    timeouts(&s);
    let mut p = peer::io::Protocol::new(
        MAGIC,
        peer::Role::Initiator,
        Some(vec![7u8; 4095]),
        Some(vec![vec![3u8; 5], Vec::new()]),
        s.try_clone().unwrap(),
        s,
    )
    .unwrap();
    for i in 0..PACKETS {
        if i % 13 == 0 {
            p.write(&peer::io::Payload::decoy(vec![1u8; 77])).unwrap();
        }
        p.write(&peer::io::Payload::genuine(msg(i))).unwrap();
        let back = p.read().unwrap();
        assert_eq!(back.packet_type(), peer::PacketType::Genuine);
        assert_eq!(back.contents(), &msg(i)[..]);
    }
    server.join().unwrap();
}

/// A v1 peer gets nothing from our responder, which reports `V1Peer`; a
/// peer that leaves mid-handshake is `Disconnected` at the right stage.
#[test]
fn v1_peer_and_early_disconnects() {
    use std::io::{Read, Write};
    let (l, addr) = bound();
    let server = thread::spawn(move || {
        let mut errs = Vec::new();
        for _ in 0..2 {
            let (mut s, _) = l.accept().unwrap();
            timeouts(&s);
            let pool = KeyPool::new(1);
            errs.push(
                io::handshake(&mut s, Role::Responder, pool.take(), &config(0, 0)).unwrap_err(),
            );
        }
        errs
    });
    let mut s = TcpStream::connect(&addr).unwrap();
    timeouts(&s);
    s.write_all(b"\xf9\xbe\xb4\xd9version\0\0\0\0\0").unwrap();
    let mut b = [0u8; 1];
    assert_eq!(s.read(&mut b).unwrap(), 0, "nothing is sent to a v1 peer");
    // Twenty bytes of something else, then the end of our stream.
    let mut s = TcpStream::connect(&addr).unwrap();
    timeouts(&s);
    s.write_all(&[0xaa; 20]).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut theirs = Vec::new();
    s.read_to_end(&mut theirs).unwrap();
    assert_eq!(theirs.len(), 64, "the responder's key, no garbage");
    let errs = server.join().unwrap();
    assert!(
        matches!(errs[0], io::Error::Protocol(Error::V1Peer)),
        "{:?}",
        errs[0]
    );
    assert_eq!(errs[0].kind(), wireseal::error::ErrorKind::Unsupported);
    assert!(
        matches!(
            errs[1],
            io::Error::Protocol(Error::Disconnected { stage: Stage::Key })
        ),
        "{:?}",
        errs[1]
    );
    assert_eq!(
        errs[1].to_string(),
        "the peer disconnected before sending its key"
    );
}

/// A responder on mainnet and an initiator on signet (the blocking driver
/// on one side, tokio on the other, each way round): both handshakes fail
/// with `WrongNetwork` naming both networks, well within a second, instead
/// of waiting for a terminator that never comes.
#[test]
fn mismatched_networks_are_named_on_both_sides() {
    use std::time::Instant;
    use wireseal::bip324::tokio as driver;
    let want = |ours, theirs| io::Error::Protocol(Error::WrongNetwork { ours, theirs });
    for tokio_initiates in [true, false] {
        let (l, addr) = bound();
        let t0 = Instant::now();
        let (server_net, client_net) = if tokio_initiates {
            (Network::MAINNET, Network::SIGNET)
        } else {
            (Network::SIGNET, Network::MAINNET)
        };
        let server = thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            timeouts(&s);
            let config = Config::new(server_net).with_garbage(vec![5; 40]);
            io::handshake(&mut s, Role::Responder, KeyPool::new(1).take(), &config).unwrap_err()
        });
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client_err = rt.block_on(async {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let config = Config::new(client_net).with_random_garbage(64);
            let hs = driver::handshake(&mut s, Role::Initiator, KeyPool::new(1).take(), &config);
            tokio::time::timeout(Duration::from_secs(5), hs)
                .await
                .expect("the handshake must fail, not hang")
                .unwrap_err()
        });
        let server_err = server.join().unwrap();
        let elapsed = t0.elapsed();
        let (c, s) = (client_err.to_string(), server_err.to_string());
        assert_eq!(
            (format!("{client_err:?}"), format!("{server_err:?}")),
            (
                format!("{:?}", want(client_net, server_net)),
                format!("{:?}", want(server_net, client_net))
            ),
            "{c} / {s}"
        );
        assert_eq!(client_err.kind(), wireseal::error::ErrorKind::Malformed);
        for (msg, ours, theirs) in [(&c, client_net, server_net), (&s, server_net, client_net)] {
            assert!(
                msg.contains(&format!("keyed for {theirs}"))
                    && msg.contains(&format!("ours for {ours}")),
                "{msg}"
            );
        }
        assert!(
            c.contains("signet (magic 0a03cf40)") && c.contains("mainnet (magic f9beb4d9)"),
            "{c}"
        );
        assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
    }
}
