//! BIP324 handshake behaviour: networks and custom magic, mismatched magic
//! and tampered garbage, garbage limits, v1 detection (`classify_first_bytes`
//! and `accept`/`classify`), the key pool and the ElligatorSwift fingerprint.

use crate::bip324_session_support;

use ::bip324 as peer;
use bip324_session_support::{finish, pair};
use wireseal::bip324::handshake::{Classified, GarbageRead, Handshake, KeyRead};
use wireseal::bip324::{
    classify_first_bytes, sealed_len, EllSwiftKeypair, Error, KeyPool, Network, Next, PacketType,
    PeerKind, MAX_GARBAGE_LEN,
};
use wireseal::hazmat::ellswift::ellswift_reencode_zero_aux;

#[test]
fn sessions_agree_and_custom_magic_works() {
    for net in [
        Network::MAINNET,
        Network::TESTNET,
        Network::SIGNET,
        Network::REGTEST,
        Network::custom([1, 2, 3, 4]),
    ] {
        let (mut a, mut b) = pair(net, net, b"some garbage", false).unwrap();
        assert_eq!(a.id(), b.id());
        let mut w = vec![0u8; sealed_len(5)];
        a.seal_into(b"hello", PacketType::Genuine, &mut w).unwrap();
        match b.open_next(&mut w).unwrap() {
            Next::Packet { packet, .. } => assert_eq!(packet.contents, b"hello"),
            n => panic!("{n:?}"),
        }
    }
}

#[test]
fn different_magic_or_tampered_garbage_fails() {
    // Another known network: its terminator is recognised and named.
    assert_eq!(
        pair(Network::MAINNET, Network::TESTNET, b"", false).err(),
        Some(Error::WrongNetwork {
            ours: Network::MAINNET,
            theirs: Network::TESTNET
        }),
    );
    assert_eq!(
        pair(
            Network::custom([1, 2, 3, 4]),
            Network::SIGNET,
            b"xyz",
            false
        )
        .err(),
        Some(Error::WrongNetwork {
            ours: Network::custom([1, 2, 3, 4]),
            theirs: Network::SIGNET
        }),
    );
    // Two magics neither side knows: the terminator just never comes.
    assert_eq!(
        pair(
            Network::custom([1, 2, 3, 4]),
            Network::custom([1, 2, 3, 5]),
            b"",
            false
        )
        .err(),
        Some(Error::NoGarbageTerminator),
        "another network's keys give other terminators"
    );
    assert_eq!(
        pair(Network::MAINNET, Network::MAINNET, b"abc", true).err(),
        Some(Error::Auth)
    );
}

#[test]
fn garbage_limits() {
    let k = EllSwiftKeypair::generate();
    assert_eq!(
        Handshake::initiator(Network::MAINNET, k, &[0u8; MAX_GARBAGE_LEN + 1]).err(),
        Some(Error::TooLong {
            len: 4096,
            max: 4095
        })
    );
    // A peer whose terminator never comes: NeedMore up to 4095 + 16 bytes,
    // then NoGarbageTerminator.
    let mut a_out = Vec::new();
    let a = Handshake::initiator(Network::MAINNET, EllSwiftKeypair::generate(), b"")
        .unwrap()
        .write_key(&mut a_out);
    let theirs = EllSwiftKeypair::generate();
    let KeyRead::Derived { handshake, .. } = a.read_key(theirs.encoding()) else {
        panic!()
    };
    let a = handshake.write_version(&[], &mut a_out).unwrap();
    let junk = vec![0x11u8; MAX_GARBAGE_LEN + 16];
    let a = match a.read_garbage(&junk[..MAX_GARBAGE_LEN + 15]).unwrap() {
        GarbageRead::NeedMore(h) => h,
        _ => panic!(),
    };
    assert_eq!(
        a.read_garbage(&junk).err(),
        Some(Error::NoGarbageTerminator)
    );
}

#[test]
fn v1_peer_is_detected() {
    let net = Network::MAINNET;
    let mut v1 = net.v1_prefix().to_vec();
    v1.extend_from_slice(&[0x66; 80]);
    assert_eq!(classify_first_bytes(net, &v1[..5]), PeerKind::NeedMore);
    assert_eq!(classify_first_bytes(net, &v1), PeerKind::V1);
    assert_eq!(classify_first_bytes(net, &[0xf9, 0xbe, 0x00]), PeerKind::V2);
    assert_eq!(&v1[..16], b"\xf9\xbe\xb4\xd9version\0\0\0\0\0");
    let mut out = Vec::new();
    let r = Handshake::responder(net, EllSwiftKeypair::generate(), b"")
        .unwrap()
        .write_key(&mut out);
    assert!(matches!(r.read_key(&v1), KeyRead::V1Peer));
    // The same bytes on another network are just a (strange) v2 key.
    let r = Handshake::responder(Network::TESTNET, EllSwiftKeypair::generate(), b"")
        .unwrap()
        .write_key(&mut out);
    assert!(matches!(r.read_key(&v1), KeyRead::Derived { .. }));
}

/// A responder made with `accept` writes nothing until the first bytes say
/// v2; a v1 peer is recognised with nothing sent.
#[test]
fn accept_classifies_before_writing() {
    let net = Network::MAINNET;
    let mut v1 = net.v1_prefix().to_vec();
    v1.extend_from_slice(&[0x66; 80]);
    // Byte by byte: need more through 15 bytes of the prefix, then V1.
    let mut h = Handshake::accept(net, EllSwiftKeypair::generate(), b"").unwrap();
    for n in 0..16 {
        h = match h.classify(&v1[..n]) {
            Classified::NeedMore(h) => h,
            other => panic!("{n} bytes: {other:?}"),
        };
    }
    assert!(matches!(h.classify(&v1[..16]), Classified::V1));
    let h = Handshake::accept(net, EllSwiftKeypair::generate(), b"").unwrap();
    assert!(matches!(h.classify(&v1), Classified::V1));

    // A v2 initiator: classified V2 (as soon as a byte differs from the
    // prefix), then the whole handshake completes.
    let mut a_out = Vec::new();
    let a = Handshake::initiator(net, EllSwiftKeypair::generate(), b"xyz")
        .unwrap()
        .write_key(&mut a_out);
    let mut h = Handshake::accept(net, EllSwiftKeypair::generate(), b"garbage").unwrap();
    let mut n = 0;
    let b = loop {
        match h.classify(&a_out[..n]) {
            Classified::NeedMore(next) => {
                assert!(n < 16 && a_out[..n] == net.v1_prefix()[..n]);
                h = next;
                n += 1;
            }
            Classified::V2(start) => break start,
            Classified::V1 => panic!("a v2 key taken for v1"),
        }
    };
    assert!(n <= 16 && a_out[..n] != net.v1_prefix()[..n]);
    let mut b_out = Vec::new();
    let b = b.write_key(&mut b_out);
    assert_eq!(b_out.len(), 64 + 7);
    let KeyRead::Derived { handshake: a, .. } = a.read_key(&b_out) else {
        panic!()
    };
    let KeyRead::Derived { handshake: b, .. } = b.read_key(&a_out) else {
        panic!()
    };
    let a = a.write_version(&[], &mut a_out).unwrap();
    let b = b.write_version(&[b"decoy"], &mut b_out).unwrap();
    let mut sa = finish(a, &mut b_out[64..]).unwrap();
    let mut sb = finish(b, &mut a_out[64..]).unwrap();
    assert_eq!(sa.id(), sb.id());
    let mut w = sa
        .sender
        .seal_to_vec(b"after accept", PacketType::Genuine, b"")
        .unwrap();
    match sb.open_next(&mut w).unwrap() {
        Next::Packet { packet, .. } => assert_eq!(packet.contents, b"after accept"),
        n => panic!("{n:?}"),
    }
    assert_eq!(
        Handshake::accept(net, EllSwiftKeypair::generate(), &[0u8; 4096]).err(),
        Some(Error::TooLong {
            len: 4096,
            max: 4095
        })
    );
}

/// 300 of our handshake keys never re-encode to themselves through a
/// deterministic all-zero-randomness encoder, while the crate's keys always
/// do (its fingerprint).
#[test]
fn our_keys_do_not_carry_the_zero_aux_fingerprint() {
    let pool = KeyPool::new(300);
    assert_eq!(pool.fill(), 300);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..300 {
        let mut out = Vec::new();
        let h = Handshake::initiator(Network::MAINNET, pool.try_take().unwrap(), b"").unwrap();
        let _ = h.write_key(&mut out);
        let enc: [u8; 64] = out[..64].try_into().unwrap();
        assert_ne!(ellswift_reencode_zero_aux(&enc), enc);
        assert!(seen.insert(enc));
    }
    assert!(pool.is_empty());
    for _ in 0..20 {
        let h = peer::Handshake::<peer::Initialized>::new(
            [0xf9, 0xbe, 0xb4, 0xd9],
            peer::Role::Initiator,
        )
        .unwrap();
        let mut out = [0u8; 64];
        let _ = h.send_key(None, &mut out).unwrap();
        assert_eq!(ellswift_reencode_zero_aux(&out), out);
    }
}
