//! The sans-IO `bip324::Connection`: two of ours in memory with arbitrary
//! fragmentation, garbage and decoys, across rekeys; v1 peers, other
//! networks, a peer whose terminator never comes, tampering, the receive
//! limit, poisoning, and `Network`'s names.

use wireseal::bip324::{
    Config, Connection, Error, Event, KeyPool, Network, PacketType, Role, Stage, MAX_GARBAGE_LEN,
    TERMINATOR_LEN,
};
use wireseal::error::ErrorKind;

fn conn(role: Role, config: &Config) -> Connection {
    Connection::new(role, KeyPool::new(1).take(), config).unwrap()
}

/// Moves everything `from` has queued into `to`, `piece` bytes at a time.
fn deliver(from: &mut Connection, to: &mut Connection, piece: usize) -> Result<(), Error> {
    let wire = from.transmit().to_vec();
    from.transmitted(wire.len());
    for p in wire.chunks(piece.max(1)) {
        to.receive(p)?;
    }
    Ok(())
}

/// Every genuine packet `c` can hand out now (its `Established` first).
fn packets(c: &mut Connection) -> Vec<Vec<u8>> {
    let mut got = Vec::new();
    while let Some(e) = c.poll_event().unwrap() {
        match e {
            Event::Established { session_id } => {
                assert_eq!(Some(&session_id), c.session_id());
                assert!(got.is_empty(), "Established comes first");
            }
            Event::Packet(p) => got.push(p.to_vec()),
            other => panic!("{other:?}"),
        }
    }
    got
}

/// Runs both handshakes to the end; returns (initiator, responder).
fn pair(a: &Config, b: &Config, piece: usize) -> (Connection, Connection) {
    let (mut i, mut r) = (conn(Role::Initiator, a), conn(Role::Responder, b));
    assert_eq!(i.stage(), Stage::Key);
    assert_eq!(r.stage(), Stage::Handshake);
    assert!(r.transmit().is_empty(), "a responder writes nothing first");
    for _ in 0..3 {
        deliver(&mut i, &mut r, piece).unwrap();
        deliver(&mut r, &mut i, piece).unwrap();
    }
    assert!(i.is_established() && r.is_established());
    assert_eq!(i.session_id(), r.session_id());
    (i, r)
}

#[test]
fn both_ends_in_memory_across_rekeys_and_fragments() {
    for piece in [1, 7, 64, 4096, usize::MAX] {
        let a = Config::new(Network::MAINNET)
            .with_garbage(vec![0xab; MAX_GARBAGE_LEN])
            .with_decoys(vec![Vec::new(), vec![1; 300]]);
        let b = Config::new(Network::MAINNET)
            .with_random_garbage(64)
            .with_decoys(vec![vec![2; 5]]);
        let (mut i, mut r) = pair(&a, &b, piece);
        // The handshake's decoys and version packets are not counted.
        assert_eq!((i.packets(), r.packets()), (0, 0));
        let msgs: Vec<Vec<u8>> = (0..500)
            .map(|n| vec![n as u8; (n * 37) % 700 + if n % 99 == 0 { 20_000 } else { 0 }])
            .collect();
        for (n, m) in msgs.iter().enumerate() {
            if n % 5 == 0 {
                i.send(b"decoy", PacketType::Decoy).unwrap();
            }
            i.send(m, PacketType::Genuine).unwrap();
        }
        deliver(&mut i, &mut r, piece.min(9999)).unwrap();
        assert_eq!(packets(&mut r), msgs, "piece {piece}");
        assert_eq!(r.packets(), 600, "500 genuine, 100 decoys");
        assert_eq!(r.stage(), Stage::BetweenPackets);
        r.send(b"pong", PacketType::Genuine).unwrap();
        deliver(&mut r, &mut i, piece).unwrap();
        assert_eq!(packets(&mut i), [b"pong".to_vec()]);
    }
}

#[test]
fn reading_in_place_and_splitting() {
    let cfg = Config::new(Network::REGTEST);
    let (mut i, mut r) = pair(&cfg, &cfg, 100);
    i.send(b"one", PacketType::Genuine).unwrap();
    i.send(b"two", PacketType::Genuine).unwrap();
    let wire = i.transmit().to_vec();
    // Half of it through the in-place buffer, the rest after the split.
    let half = wire.len() / 2 + 3;
    let room = r.receive_buffer();
    assert!(room.len() >= half);
    room[..half].copy_from_slice(&wire[..half]);
    r.received(half).unwrap();
    assert_eq!(packets(&mut r), [b"one".to_vec()]);
    assert_eq!(r.stage(), Stage::MidPacket);
    let (mut inbound, mut outbound) = r.split().unwrap();
    assert_eq!(inbound.stage(), Stage::MidPacket);
    inbound.receive(&wire[half..]);
    assert_eq!(inbound.next_packet().unwrap(), Some(&b"two"[..]));
    assert_eq!(inbound.next_packet().unwrap(), None);
    assert_eq!(inbound.stage(), Stage::BetweenPackets);
    outbound.queue(b"back", PacketType::Genuine).unwrap();
    let n = outbound.transmit().len();
    i.receive(outbound.transmit()).unwrap();
    outbound.transmitted(n);
    assert!(outbound.transmit().is_empty());
    assert_eq!(packets(&mut i), [b"back".to_vec()]);
}

#[test]
fn a_v1_peer_gets_nothing() {
    let cfg = Config::new(Network::MAINNET);
    let mut r = conn(Role::Responder, &cfg);
    let v1 = Network::MAINNET.v1_prefix();
    r.receive(&v1[..15]).unwrap();
    assert!(r.transmit().is_empty());
    let e = r.receive(&v1[15..]).unwrap_err();
    assert_eq!(e, Error::V1Peer);
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(r.transmit().is_empty(), "nothing is sent to a v1 peer");
    assert_eq!(r.receive(b"more"), Err(Error::Poisoned));
}

/// Each side names the other's network as soon as it sees the other's
/// terminator, whichever side is on which network; what was queued before
/// the failure can still go out, so the other side sees it too.
#[test]
fn other_known_networks_are_named_on_both_sides() {
    for (ni, nr) in [
        (Network::SIGNET, Network::MAINNET),
        (Network::MAINNET, Network::REGTEST),
        (Network::custom([9, 9, 9, 9]), Network::TESTNET4),
        (Network::TESTNET, Network::custom([7, 7, 7, 7])),
    ] {
        let mut i = conn(Role::Initiator, &Config::new(ni).with_random_garbage(64));
        let mut r = conn(Role::Responder, &Config::new(nr).with_garbage(vec![3; 200]));
        deliver(&mut i, &mut r, 1000).unwrap();
        let ei = deliver(&mut r, &mut i, 1000);
        let left = i.transmit().to_vec();
        assert!(!left.is_empty(), "our terminator and version were queued");
        let er = r.receive(&left);
        let known = |n: Network| n.name().is_some();
        if known(nr) {
            assert_eq!(
                ei,
                Err(Error::WrongNetwork {
                    ours: ni,
                    theirs: nr
                })
            );
            assert!(i.is_poisoned());
        }
        if known(ni) {
            assert_eq!(
                er,
                Err(Error::WrongNetwork {
                    ours: nr,
                    theirs: ni
                })
            );
        } else {
            // A custom magic the responder cannot know: it waits.
            assert_eq!(er, Ok(()));
            assert_eq!(r.stage(), Stage::GarbageTerminator);
        }
    }
    let e = Error::WrongNetwork {
        ours: Network::MAINNET,
        theirs: Network::SIGNET,
    };
    assert_eq!(
        e.to_string(),
        "network mismatch: the peer's handshake is keyed for signet (magic 0a03cf40), ours for \
         mainnet (magic f9beb4d9)"
    );
}

/// A peer whose terminator never comes (two custom magics): waiting up to
/// 4095 bytes of garbage and its terminator, then `NoGarbageTerminator`.
#[test]
fn a_terminator_that_never_comes() {
    let mut i = conn(Role::Initiator, &Config::new(Network::custom([1; 4])));
    let mut r = conn(
        Role::Responder,
        &Config::new(Network::custom([2; 4])).with_garbage(vec![0x11; MAX_GARBAGE_LEN]),
    );
    deliver(&mut i, &mut r, 500).unwrap();
    let wire = r.transmit().to_vec();
    // Key, garbage and one byte short of the longest terminator window.
    let end = 64 + MAX_GARBAGE_LEN + TERMINATOR_LEN;
    for b in wire[..end - 1].chunks(333) {
        i.receive(b).unwrap();
    }
    assert_eq!(i.stage(), Stage::GarbageTerminator);
    assert_eq!(
        i.receive(&wire[end - 1..end]),
        Err(Error::NoGarbageTerminator)
    );
    assert_eq!(i.stage(), Stage::Handshake);
}

#[test]
fn tampering_and_limits_poison() {
    let cfg = Config::new(Network::MAINNET).with_garbage(b"garbage".to_vec());
    // Tampered garbage: the first packet's AAD fails.
    let (mut i, mut r) = (conn(Role::Initiator, &cfg), conn(Role::Responder, &cfg));
    let mut wire = i.transmit().to_vec();
    wire[64] ^= 1;
    r.receive(&wire).unwrap();
    deliver(&mut r, &mut i, 4096).unwrap();
    assert_eq!(deliver(&mut i, &mut r, 4096), Err(Error::Auth));
    assert_eq!(r.send(b"x", PacketType::Genuine), Err(Error::Poisoned));
    assert_eq!(r.poll_event(), Err(Error::Poisoned));

    // A packet over the receiver's limit: refused from its length field.
    let small = Config::new(Network::MAINNET).with_max_contents(1000);
    let (mut i, mut r) = pair(&cfg, &small, 4096);
    i.send(&[0u8; 1001], PacketType::Genuine).unwrap();
    r.receive(&i.transmit()[..3]).unwrap();
    let id = *r.session_id().unwrap();
    assert_eq!(
        r.poll_event().unwrap(),
        Some(Event::Established { session_id: id })
    );
    assert_eq!(
        r.poll_event(),
        Err(Error::TooLong {
            len: 1001,
            max: 1000
        })
    );
    assert_eq!(r.poll_event(), Err(Error::Poisoned));

    // A flipped tag after the handshake.
    let (mut i, mut r) = pair(&cfg, &cfg, 4096);
    i.send(b"hello", PacketType::Genuine).unwrap();
    let mut wire = i.transmit().to_vec();
    *wire.last_mut().unwrap() ^= 1;
    r.receive(&wire).unwrap();
    let _ = r.poll_event().unwrap();
    assert_eq!(r.poll_event(), Err(Error::Auth));
    assert!(r.is_poisoned());
    assert!(matches!(r.split(), Err(Error::Poisoned)));
}

#[test]
fn misuse_is_refused() {
    let cfg = Config::new(Network::MAINNET);
    let mut i = conn(Role::Initiator, &cfg);
    assert_eq!(
        i.send(b"early", PacketType::Genuine),
        Err(Error::NotEstablished)
    );
    assert_eq!(i.poll_event(), Ok(None));
    assert!(matches!(i.split(), Err(Error::NotEstablished)));
    let too_much = Config::new(Network::MAINNET).with_garbage(vec![0; MAX_GARBAGE_LEN + 1]);
    assert_eq!(
        Connection::new(Role::Initiator, KeyPool::new(1).take(), &too_much).err(),
        Some(Error::TooLong {
            len: MAX_GARBAGE_LEN + 1,
            max: MAX_GARBAGE_LEN
        })
    );
    let big_decoy = Config::new(Network::MAINNET).with_decoys(vec![vec![0; 1 << 24]]);
    assert!(matches!(
        Connection::new(Role::Responder, KeyPool::new(1).take(), &big_decoy),
        Err(Error::TooLong { .. })
    ));
    let (mut i, _) = pair(&cfg, &cfg, 4096);
    assert!(matches!(
        i.send(&vec![0; 1 << 24], PacketType::Genuine),
        Err(Error::TooLong { .. })
    ));
    assert!(i.transmit().is_empty(), "nothing queued by a refused send");
    let random = Config::new(Network::MAINNET).with_random_garbage(10_000);
    assert!(random.garbage().len() <= MAX_GARBAGE_LEN);
}

/// `send_with` writes the contents in place: the peer reads what `fill`
/// wrote, the wire is what `send` would have queued (same length, both
/// open), and `fill` never runs for a packet that cannot be queued.
#[test]
fn contents_written_in_place() {
    let cfg = Config::new(Network::MAINNET);
    let (mut i, mut r) = pair(&cfg, &cfg, 4096);
    assert_eq!(packets(&mut r), Vec::<Vec<u8>>::new());
    let contents: Vec<u8> = (0..3000u32).map(|k| (k * 7 % 251) as u8).collect();
    for len in [0, 1, 999, 3000] {
        i.send_with(len, PacketType::Genuine, |room| {
            assert_eq!(room.len(), len);
            room.copy_from_slice(&contents[..len]);
        })
        .unwrap();
        let with = i.transmit().len();
        i.send(&contents[..len], PacketType::Genuine).unwrap();
        assert_eq!(i.transmit().len(), 2 * with, "the same packet length");
        deliver(&mut i, &mut r, 4096).unwrap();
        assert_eq!(packets(&mut r), vec![contents[..len].to_vec(); 2]);
    }
    let refused =
        |c: &mut Connection, len| c.send_with(len, PacketType::Genuine, |_| panic!("fill ran"));
    assert!(matches!(
        refused(&mut i, 1 << 24),
        Err(Error::TooLong { .. })
    ));
    assert!(i.transmit().is_empty(), "nothing queued by a refused send");
    let mut early = conn(Role::Initiator, &cfg);
    assert_eq!(refused(&mut early, 5), Err(Error::NotEstablished));
    // A `fill` that panics halfway leaves nothing queued, and the
    // connection goes on.
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        i.send_with(64, PacketType::Genuine, |room| {
            room[..32].fill(0xaa);
            panic!("fill gave up");
        })
    }));
    assert!(panicked.is_err());
    assert!(
        i.transmit().is_empty(),
        "nothing queued by a fill that panicked"
    );
    i.send(b"after", PacketType::Genuine).unwrap();
    deliver(&mut i, &mut r, 4096).unwrap();
    assert_eq!(packets(&mut r), vec![b"after".to_vec()]);
}

#[test]
fn network_names_and_magic() {
    for (name, net) in Network::KNOWN {
        assert_eq!(name.parse::<Network>(), Ok(net));
        assert_eq!(net.to_string(), name);
        assert_eq!(net.to_string().parse::<Network>(), Ok(net));
        assert_eq!(net.magic_hex().to_string().parse::<Network>(), Ok(net));
    }
    assert_eq!("Signet".parse::<Network>(), Ok(Network::SIGNET));
    assert_eq!("0a03cf40".parse::<Network>(), Ok(Network::SIGNET));
    assert_eq!("0x0A03CF40".parse::<Network>(), Ok(Network::SIGNET));
    assert_eq!(
        "deadbeef".parse::<Network>(),
        Ok(Network::custom([0xde, 0xad, 0xbe, 0xef]))
    );
    assert_eq!(
        Network::custom([0xde, 0xad, 0xbe, 0xef]).to_string(),
        "deadbeef"
    );
    assert_eq!(Network::TESTNET.to_string(), "testnet");
    for bad in [
        "",
        "main",
        "0b1109",
        "0b11090700",
        "zz110907",
        "0x",
        "+b110907",
        "testnet5",
    ] {
        let e = bad.parse::<Network>().unwrap_err();
        assert_eq!(e, Error::UnknownNetwork, "{bad:?}");
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
    }
    assert!(Error::UnknownNetwork.to_string().contains("signet"));
}
