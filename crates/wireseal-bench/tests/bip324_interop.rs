//! Interop with the `bip324` crate (rust-bitcoin, crates.io): our initiator
//! with its responder and the reverse, in memory, with garbage, decoys and
//! enough packets for several rekeys in each direction.

use ::bip324 as peer;
use wireseal::bip324::{
    EllSwiftKeypair, GarbageRead, Handshake, KeyRead, Network, Next, PacketType, Session,
    VersionRead,
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
        buf.resize(Session::sealed_len(size), 0);
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
