//! Interop with the `bip324` crate (rust-bitcoin, crates.io): our initiator
//! with its responder and the reverse, in memory, with garbage, decoys and
//! enough packets for several rekeys in each direction; through the
//! handshake's typestate and through the sans-IO `Connection` fed in small
//! pieces.

use ::bip324 as peer;
use wireseal::bip324::handshake::{GarbageRead, Handshake, KeyRead, VersionRead};
use wireseal::bip324::{
    sealed_len, Config, Connection, EllSwiftKeypair, Event, KeyPool, Network, Next, PacketType,
    Role, Session,
};

const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

/// Drives the crate's side against bytes we produced; returns its session.
struct PeerSide {
    role: peer::Role,
    garbage: Vec<u8>,
}

/// Runs a full handshake between our `role` and the crate's other role.
fn handshake(we_initiate: bool) -> (Session, peer::CipherSession) {
    let our_garbage = vec![0x5au8; 37];
    let their = PeerSide {
        role: if we_initiate {
            peer::Role::Responder
        } else {
            peer::Role::Initiator
        },
        garbage: vec![0xa5u8; 4095],
    };
    let key = EllSwiftKeypair::generate();
    let ours = if we_initiate {
        Handshake::initiator(Network::MAINNET, key, &our_garbage).unwrap()
    } else {
        Handshake::responder(Network::MAINNET, key, &our_garbage).unwrap()
    };
    let mut our_key_msg = Vec::new();
    let ours = ours.write_key(&mut our_key_msg);

    let p = peer::Handshake::<peer::Initialized>::new(MAGIC, their.role).unwrap();
    let mut their_key_msg =
        vec![0u8; peer::Handshake::<peer::Initialized>::send_key_len(Some(&their.garbage))];
    let p = p
        .send_key(Some(&their.garbage), &mut their_key_msg)
        .unwrap();
    let p = p
        .receive_key(our_key_msg[..64].try_into().unwrap())
        .unwrap();
    let their_decoys: [&[u8]; 2] = [b"decoy one", &[7u8; 300]];
    let mut their_version =
        vec![0u8; peer::Handshake::<peer::ReceivedKey>::send_version_len(Some(&their_decoys))];
    let p = p
        .send_version(&mut their_version, Some(&their_decoys))
        .unwrap();

    // Our side reads the crate's key, garbage, decoys and version.
    let mut inbound = their_key_msg.clone();
    inbound.extend_from_slice(&their_version);
    let KeyRead::Derived {
        handshake,
        consumed,
    } = ours.read_key(&inbound)
    else {
        panic!("key not read")
    };
    assert_eq!(consumed, 64);
    let our_decoys: [&[u8]; 3] = [b"", b"x", &[1u8; 1000]];
    let mut our_version = Vec::new();
    let ours = handshake
        .write_version(&our_decoys, &mut our_version)
        .unwrap();
    let mut rest = inbound[64..].to_vec();
    let GarbageRead::Found {
        handshake,
        consumed,
    } = ours.read_garbage(&rest).unwrap()
    else {
        panic!("terminator not found")
    };
    assert_eq!(consumed, 4095 + 16);
    let mut at = consumed;
    let mut hs = handshake;
    let mut decoys_seen = 0;
    let session = loop {
        match hs.read_version(&mut rest[at..]).unwrap() {
            VersionRead::Decoy(h, n) => {
                decoys_seen += 1;
                at += n;
                hs = h;
            }
            VersionRead::Done { session, consumed } => {
                at += consumed;
                break session;
            }
            VersionRead::NeedMore(..) => panic!("whole message was given"),
        }
    };
    assert_eq!(decoys_seen, 2);
    assert_eq!(at, rest.len());

    // The crate reads our garbage, decoys and version.
    let mut msg = our_key_msg[64..].to_vec();
    msg.extend_from_slice(&our_version);
    let (mut ph, consumed) = match p.receive_garbage(&msg).unwrap() {
        peer::GarbageResult::FoundGarbage {
            handshake,
            consumed_bytes,
        } => (handshake, consumed_bytes),
        peer::GarbageResult::NeedMoreData(_) => panic!("crate found no terminator"),
    };
    let mut rem = &msg[consumed..];
    let cipher = loop {
        let len = ph.decrypt_packet_len(rem[..3].try_into().unwrap()).unwrap();
        let mut pkt = rem[3..3 + len].to_vec();
        rem = &rem[3 + len..];
        match ph.receive_version(&mut pkt).unwrap() {
            peer::VersionResult::Complete { cipher } => break cipher,
            peer::VersionResult::Decoy(h) => ph = h,
        }
    };
    assert!(rem.is_empty());
    assert_eq!(session.id(), cipher.id());
    (session, cipher)
}

/// 1000 packets each way (four rekeys and more), mixed sizes, some decoys.
fn traffic(mut ours: Session, mut theirs: peer::CipherSession) {
    let mut buf = Vec::new();
    for i in 0..1000usize {
        let size = (i * 37) % 700 + if i % 100 == 0 { 5000 } else { 0 };
        let contents: Vec<u8> = (0..size).map(|j| (i + j) as u8).collect();
        let decoy = i % 9 == 0;
        let our_kind = if decoy {
            PacketType::Decoy
        } else {
            PacketType::Genuine
        };

        // ours -> crate
        buf.resize(sealed_len(size), 0);
        let n = ours.seal_into(&contents, our_kind, &mut buf).unwrap();
        assert_eq!(n, buf.len());
        let len = theirs
            .inbound()
            .decrypt_packet_len(buf[..3].try_into().unwrap());
        assert_eq!(len + 3, n);
        let (kind, pt) = theirs.inbound().decrypt_to_vec(&buf[3..], None).unwrap();
        assert_eq!(kind == peer::PacketType::Decoy, decoy);
        assert_eq!(&pt[1..], &contents[..]);

        // crate -> ours
        let kind = if decoy {
            peer::PacketType::Decoy
        } else {
            peer::PacketType::Genuine
        };
        let mut wire = theirs.outbound().encrypt_to_vec(&contents, kind, None);
        let wire_len = wire.len();
        match ours.open_next(&mut wire).unwrap() {
            Next::Packet { packet, consumed } => {
                assert_eq!(consumed, wire_len);
                assert_eq!(packet.kind, our_kind);
                assert_eq!(packet.contents, &contents[..]);
            }
            Next::NeedMore(n) => panic!("need {n}"),
        }
    }
}

#[test]
fn our_initiator_with_crate_responder() {
    let (a, b) = handshake(true);
    traffic(a, b);
}

#[test]
fn crate_initiator_with_our_responder() {
    let (a, b) = handshake(false);
    traffic(a, b);
}

/// Feeds `bytes` to our connection `piece` bytes at a time.
fn feed(c: &mut Connection, bytes: &[u8], piece: usize) {
    for p in bytes.chunks(piece) {
        c.receive(p).unwrap();
    }
}

/// Everything `c` has queued, taken.
fn take(c: &mut Connection) -> Vec<u8> {
    let out = c.transmit().to_vec();
    c.transmitted(out.len());
    out
}

/// Our `Connection` in either role against the crate's sans-IO handshake,
/// with garbage and decoys both ways and the bytes fed in 7-byte pieces,
/// then 600 packets each way (decoys mixed in).
#[test]
fn our_connection_with_the_crate_both_roles() {
    for we_initiate in [true, false] {
        let config = Config::new(Network::MAINNET)
            .with_garbage(vec![0x42; 300])
            .with_decoys(vec![vec![1; 40], Vec::new()]);
        let role = if we_initiate {
            Role::Initiator
        } else {
            Role::Responder
        };
        let mut ours = Connection::new(role, KeyPool::new(1).take(), &config).unwrap();
        let their_role = if we_initiate {
            peer::Role::Responder
        } else {
            peer::Role::Initiator
        };
        let their_garbage = vec![0x17u8; 1000];
        let p = peer::Handshake::<peer::Initialized>::new(MAGIC, their_role).unwrap();
        let mut their_key =
            vec![0u8; peer::Handshake::<peer::Initialized>::send_key_len(Some(&their_garbage))];
        let p = p.send_key(Some(&their_garbage), &mut their_key).unwrap();
        let mut to_them = Vec::new();
        if we_initiate {
            to_them = take(&mut ours);
        } else {
            feed(&mut ours, &their_key, 7);
            to_them.extend(take(&mut ours));
        }
        let p = p.receive_key(to_them[..64].try_into().unwrap()).unwrap();
        let decoys: [&[u8]; 1] = [b"their decoy"];
        let mut their_version =
            vec![0u8; peer::Handshake::<peer::ReceivedKey>::send_version_len(Some(&decoys))];
        let p = p.send_version(&mut their_version, Some(&decoys)).unwrap();
        if we_initiate {
            feed(&mut ours, &their_key, 7);
        }
        feed(&mut ours, &their_version, 7);
        assert!(ours.is_established());
        to_them.extend(take(&mut ours));
        let (mut ph, mut at) = match p.receive_garbage(&to_them[64..]).unwrap() {
            peer::GarbageResult::FoundGarbage {
                handshake,
                consumed_bytes,
            } => (handshake, 64 + consumed_bytes),
            peer::GarbageResult::NeedMoreData(_) => panic!("the crate found no terminator"),
        };
        let mut theirs = loop {
            let len = ph
                .decrypt_packet_len(to_them[at..at + 3].try_into().unwrap())
                .unwrap();
            let mut pkt = to_them[at + 3..at + 3 + len].to_vec();
            at += 3 + len;
            match ph.receive_version(&mut pkt).unwrap() {
                peer::VersionResult::Complete { cipher } => break cipher,
                peer::VersionResult::Decoy(h) => ph = h,
            }
        };
        assert_eq!(at, to_them.len());
        let Some(Event::Established { session_id }) = ours.poll_event().unwrap() else {
            panic!("no Established event")
        };
        assert_eq!(&session_id, theirs.id());
        assert_eq!(ours.poll_event().unwrap(), None);

        let mut wire = Vec::new();
        let mut sent = Vec::new();
        for i in 0..600usize {
            let contents: Vec<u8> = (0..(i * 53) % 900).map(|j| (i ^ j) as u8).collect();
            if i % 10 == 0 {
                wire.extend(theirs.outbound().encrypt_to_vec(
                    b"noise",
                    peer::PacketType::Decoy,
                    None,
                ));
            }
            wire.extend(theirs.outbound().encrypt_to_vec(
                &contents,
                peer::PacketType::Genuine,
                None,
            ));
            ours.send(&contents, PacketType::Genuine).unwrap();
            sent.push(contents);
        }
        // Theirs to ours, in pieces, every event taken as it comes.
        let mut got = Vec::new();
        for p in wire.chunks(1000) {
            ours.receive(p).unwrap();
            while let Some(Event::Packet(c)) = ours.poll_event().unwrap() {
                got.push(c.to_vec());
            }
        }
        assert_eq!(got, sent);
        // Ours to theirs.
        let back = take(&mut ours);
        let mut at = 0;
        for s in &sent {
            let len = theirs
                .inbound()
                .decrypt_packet_len(back[at..at + 3].try_into().unwrap());
            let (kind, pt) = theirs
                .inbound()
                .decrypt_to_vec(&back[at + 3..at + 3 + len], None)
                .unwrap();
            assert_eq!(kind, peer::PacketType::Genuine);
            assert_eq!(&pt[1..], &s[..]);
            at += 3 + len;
        }
        assert_eq!(at, back.len());
    }
}
