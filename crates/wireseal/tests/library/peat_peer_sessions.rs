//! Per-peer E2EE frames, handshake and sessions: frames checked against an
//! independent re-implementation of the peat-btle layout (x25519-dalek for
//! the curve, aws-lc-rs's HKDF, RustCrypto's `chacha20poly1305` for the
//! AEAD: none of them is what the library uses for that job; frames
//! assembled by hand), tampered, truncated and misrouted frames,
//! key-exchange rules, the session cap and time to live, receive dispatch
//! order and modes, and random input.

use crate::peat_peer_support;

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::ChaCha20Poly1305;
use peat_peer_support::{node, pair, A, B};
use wireseal::peat::*;

/// HKDF-SHA256 through aws-lc-rs (the library derives with the `hkdf`
/// crate).
fn reference_hkdf(salt: &[u8], ikm: &[u8], info: &[u8]) -> [u8; 32] {
    struct Len32;
    impl aws_lc_rs::hkdf::KeyType for Len32 {
        fn len(&self) -> usize {
            32
        }
    }
    let mut out = [0u8; 32];
    aws_lc_rs::hkdf::Salt::new(aws_lc_rs::hkdf::HKDF_SHA256, salt)
        .extract(ikm)
        .expand(&[info], Len32)
        .unwrap()
        .fill(&mut out)
        .unwrap();
    out
}

/// The session key as the peer computes it, independently: x25519-dalek,
/// salt = lower id || higher id (u32 LE), info "PEAT-peer-e2ee-v1".
fn reference_key(our_sk: u8, peer_pk: &[u8; 32], a: u32, b: u32) -> [u8; 32] {
    let sk = x25519_dalek::StaticSecret::from([our_sk; 32]);
    let shared = sk.diffie_hellman(&x25519_dalek::PublicKey::from(*peer_pk));
    let (lo, hi) = (a.min(b), a.max(b));
    let mut salt = lo.to_le_bytes().to_vec();
    salt.extend_from_slice(&hi.to_le_bytes());
    reference_hkdf(&salt, shared.as_bytes(), b"PEAT-peer-e2ee-v1")
}

/// A per-peer frame assembled by hand, sealed with RustCrypto's
/// ChaCha20-Poly1305 (the library seals with aws-lc-rs).
fn reference_frame(
    key: &[u8; 32],
    to: u32,
    from: u32,
    counter: u64,
    nonce: [u8; 12],
    pt: &[u8],
) -> Vec<u8> {
    let mut f = vec![0xAF, 0x00];
    f.extend_from_slice(&to.to_le_bytes());
    f.extend_from_slice(&from.to_le_bytes());
    f.extend_from_slice(&counter.to_le_bytes());
    f.extend_from_slice(&nonce);
    let mut body = pt.to_vec();
    let tag = ChaCha20Poly1305::new(key.into())
        .encrypt_in_place_detached(&nonce.into(), b"", &mut body)
        .unwrap();
    f.extend_from_slice(&body);
    f.extend_from_slice(&tag);
    f
}

/// Opens a per-peer frame with the reference AEAD.
fn reference_open(key: &[u8; 32], frame: &[u8]) -> Vec<u8> {
    let (ct, tag) = frame[30..].split_at(frame.len() - 46);
    let mut body = ct.to_vec();
    ChaCha20Poly1305::new(key.into())
        .decrypt_in_place_detached(frame[18..30].into(), b"", &mut body, tag.into())
        .unwrap();
    body
}

/// The reference HKDF against RFC 5869 test case 1, so the reference itself
/// is checked.
#[test]
fn reference_hkdf_matches_rfc5869() {
    let ikm = [0x0b; 22];
    let salt = hex::decode("000102030405060708090a0b0c").unwrap();
    let info = hex::decode("f0f1f2f3f4f5f6f7f8f9").unwrap();
    assert_eq!(
        hex::encode(reference_hkdf(&salt, &ikm, &info)),
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
    );
}

#[test]
fn frames_match_the_reference_layout_both_ways() {
    let (mut a, mut b) = pair();
    let a_pk = *a.public_key();
    let b_pk = *b.public_key();
    let k = reference_key(0xa1, &b_pk, A, B);
    assert_eq!(k, reference_key(0xb2, &a_pk, B, A), "symmetric");
    // Ours -> reference.
    for (i, msg) in [&b"hi"[..], b"", &[7u8; 300]].iter().enumerate() {
        let f = a.seal_to_vec(1, B, msg).unwrap();
        assert_eq!(f.len(), peer_sealed_len(msg.len()));
        let h = PeerHeader::parse(&f).unwrap();
        assert_eq!((h.recipient, h.sender, h.counter), (B, A, i as u64));
        assert_eq!(f, reference_frame(&k, B, A, i as u64, h.nonce, msg));
        assert_eq!(reference_open(&k, &f), *msg);
        assert_eq!(classify(&f), FrameKind::PeerE2ee);
        let m = b.open_to_vec(1, &f).unwrap();
        assert_eq!((m.sender, m.counter, &m.plaintext[..]), (A, i as u64, *msg));
    }
    // Reference -> ours.
    let f = reference_frame(&k, A, B, 5, [3; 12], b"from the peer");
    let m = a.open_to_vec(2, &f).unwrap();
    assert_eq!(m.plaintext, b"from the peer");
    assert_eq!(m.counter, 5);
    // The reserved byte is ignored.
    let mut g = reference_frame(&k, A, B, 6, [4; 12], b"x");
    g[1] = 0x03;
    assert_eq!(a.open_to_vec(2, &g).unwrap().plaintext, b"x");
}

#[test]
fn refused_key_exchange_does_no_curve_work_and_evicts_no_cached_secret() {
    let mut b = node(B, 0xb2).with_max_sessions(1);
    let a = node(A, 0xa1);
    b.handle_key_exchange(0, &a.key_exchange_frame()).unwrap();
    assert_eq!(b.cache_stats().misses, 1);
    // 40 strangers (more than the cache holds) are refused for lack of room.
    for i in 0..40u8 {
        let s = node(0x3000 + u32::from(i), 0x40 + i);
        assert_eq!(
            b.handle_key_exchange(1, &s.key_exchange_frame()),
            Err(Error::SessionLimit { max: 1 })
        );
    }
    let st = b.cache_stats();
    assert_eq!((st.misses, st.evictions), (1, 0), "no X25519, no eviction");
    // A's secret is still cached: re-establishing is a hit.
    b.remove(A);
    b.handle_key_exchange(2, &a.key_exchange_frame()).unwrap();
    assert_eq!(b.cache_stats().hits, 1);
}

#[test]
fn peer_frame_negative_cases() {
    let (mut a, mut b) = pair();
    let f = a.seal_to_vec(0, B, b"payload").unwrap();
    // Tampered ciphertext / tag / nonce: authentication fails, state unchanged.
    for i in 18..f.len() {
        let mut t = f.clone();
        t[i] ^= 1;
        assert_eq!(b.open_to_vec(0, &t), Err(Error::Auth), "byte {i}");
    }
    // Truncated.
    for n in 0..PEER_OVERHEAD {
        assert!(
            matches!(b.open_to_vec(0, &f[..n]), Err(Error::Truncated { .. })),
            "{n}"
        );
    }
    for n in PEER_OVERHEAD..f.len() {
        assert_eq!(b.open_to_vec(0, &f[..n]), Err(Error::Auth), "{n}");
    }
    // Oversized.
    let mut long = f.clone();
    long.push(0);
    assert_eq!(b.open_to_vec(0, &long), Err(Error::Auth));
    // Not for us / unknown sender.
    let mut other = f.clone();
    other[2..6].copy_from_slice(&0x3333_3333u32.to_le_bytes());
    assert_eq!(
        b.open_to_vec(0, &other),
        Err(Error::NotForUs {
            recipient: 0x3333_3333
        })
    );
    let mut stranger = f.clone();
    stranger[6..10].copy_from_slice(&0x4444_4444u32.to_le_bytes());
    assert_eq!(
        b.open_to_vec(0, &stranger),
        Err(Error::NoSession { peer: 0x4444_4444 })
    );
    // Wrong key: a third node with the same node id as A cannot talk to B.
    let mut c = node(A, 0xc3);
    let kx = c.initiate(0, B).unwrap();
    let _ = kx;
    let mut b2 = node(B, 0xb2);
    let KeyExchangeOutcome::Established { response, .. } =
        b2.handle_key_exchange(0, &c.key_exchange_frame()).unwrap()
    else {
        panic!()
    };
    c.handle_key_exchange(0, &response).unwrap();
    let from_c = c.seal_to_vec(0, B, b"impostor").unwrap();
    assert_eq!(b.open_to_vec(0, &from_c), Err(Error::Auth));
    // After all that, the genuine frame still opens.
    assert_eq!(b.open_to_vec(0, &f).unwrap().plaintext, b"payload");
}

#[test]
fn key_exchange_rules() {
    let (mut a, mut b) = pair();
    // A second key exchange for an established session is ignored, as peers do.
    let again = node(A, 0xee).key_exchange_frame();
    assert_eq!(
        b.handle_key_exchange(0, &again).unwrap(),
        KeyExchangeOutcome::Ignored { peer: A }
    );
    assert_eq!(b.peer_public_key(A), Some(a.public_key()));
    // Our own node id is refused.
    assert_eq!(
        b.handle_key_exchange(0, &b.key_exchange_frame()),
        Err(Error::OwnNodeId)
    );
    assert_eq!(a.initiate(0, A), Err(Error::OwnNodeId));
    // Low-order keys are refused and leave no session behind.
    let weak = KeyExchange {
        sender: 0x5555_5555,
        ephemeral: false,
        public_key: [0u8; 32],
    }
    .encode();
    assert_eq!(b.handle_key_exchange(0, &weak), Err(Error::InvalidKey));
    assert_eq!(b.state(0x5555_5555), None);
    // No session yet: sealing is refused.
    assert_eq!(
        a.seal_to_vec(0, 0x5555_5555, b"x"),
        Err(Error::NoSession { peer: 0x5555_5555 })
    );
    // A pending session cannot seal either.
    a.initiate(0, 0x6666_6666).unwrap();
    assert_eq!(
        a.seal_to_vec(0, 0x6666_6666, b"x"),
        Err(Error::NoSession { peer: 0x6666_6666 })
    );
    // Closing stops traffic.
    a.close(B);
    assert_eq!(a.seal_to_vec(0, B, b"x"), Err(Error::NoSession { peer: B }));
    assert!(b.seal_to_vec(0, A, b"x").is_ok());
}

#[test]
fn shared_secrets_are_cached_by_whole_public_key() {
    let mut b = node(B, 0xb2);
    let a_frame = node(A, 0xa1).key_exchange_frame();
    b.handle_key_exchange(0, &a_frame).unwrap();
    b.remove(A);
    b.handle_key_exchange(1, &a_frame).unwrap();
    let s = b.cache_stats();
    assert_eq!((s.misses, s.hits), (1, 1));
}

#[test]
fn sessions_time_out_and_are_capped() {
    let mut b = node(B, 0xb2).with_max_sessions(3).with_ttl(1000);
    let peers: Vec<PeerSessions> = (1..=4u32).map(|i| node(i, 0x10 + i as u8)).collect();
    for p in &peers[..3] {
        b.handle_key_exchange(0, &p.key_exchange_frame()).unwrap();
    }
    // Full of live established sessions: the fourth is refused, nobody dropped.
    assert_eq!(
        b.handle_key_exchange(500, &peers[3].key_exchange_frame()),
        Err(Error::SessionLimit { max: 3 })
    );
    assert_eq!(b.len(), 3);
    // Idle past the timeout: refused for traffic, then dropped to make room.
    assert_eq!(
        b.seal_to_vec(1001, 1, b"x"),
        Err(Error::SessionExpired { peer: 1 })
    );
    assert!(b.seal_to_vec(1000, 1, b"x").is_ok());
    assert!(matches!(
        b.handle_key_exchange(1600, &peers[3].key_exchange_frame()),
        Ok(KeyExchangeOutcome::Established { peer: 4, .. })
    ));
    assert_eq!(b.len(), 2, "2 and 3 expired and were removed");
    assert_eq!(b.state(1), Some(SessionState::Established));
    // Pending sessions give way before established ones.
    b.initiate(1600, 9).unwrap();
    assert_eq!(b.len(), 3);
    b.handle_key_exchange(1601, &peers[1].key_exchange_frame())
        .unwrap();
    assert_eq!(b.state(9), None);
    assert_eq!(b.cleanup_expired(10_000).len(), 3);
    assert!(b.is_empty());
}

#[test]
fn receive_dispatch_order_and_modes() {
    let key = || MeshKey::derive(&"DEMO".parse().unwrap(), &[0x42; 32]);
    let mesh = key().seal_with_nonce_to_vec(&[1; 12], b"doc");
    let strict = Receiver::new(Some(key()), Mode::Strict);
    let permissive = Receiver::new(Some(key()), Mode::Permissive);
    let open_mesh = Receiver::new(None, Mode::Strict);
    let plain = b"\x01plain doc".to_vec();
    assert!(strict.is_strict() && !permissive.is_strict() && !open_mesh.is_strict());
    // Strict rejects plain; permissive and keyless accept it.
    assert_eq!(strict.receive(&plain), Err(Error::UnencryptedInStrictMode));
    for r in [&permissive, &open_mesh] {
        assert_eq!(
            r.receive(&plain).unwrap(),
            Received::Document {
                bytes: plain.as_slice().into(),
                protection: policy::Protection::Plain
            }
        );
    }
    assert!(matches!(
        permissive.receive(&mesh),
        Ok(Received::Document {
            protection: policy::Protection::MeshWide,
            ..
        })
    ));
    assert_eq!(open_mesh.receive(&mesh), Err(Error::NoMeshKey));
    // Control frames are dispatched before documents, in every mode.
    for (first, kind) in [
        (0xB0u8, FrameKind::KeyExchange),
        (0xAF, FrameKind::PeerE2ee),
        (0xB1, FrameKind::RelayEnvelope),
        (0xAE, FrameKind::MeshWide),
        (0xAD, FrameKind::Plain),
        (0xB2, FrameKind::Plain),
    ] {
        assert_eq!(classify(&[first, 0, 1, 2]), kind, "{first:02X}");
        // A single byte is always a plain document, as in peat-btle.
        assert_eq!(classify(&[first]), FrameKind::Plain);
    }
    assert!(matches!(
        strict.receive(&[0xB0, 0]),
        Ok(Received::KeyExchange(_))
    ));
    assert!(matches!(
        strict.receive(&[0xAF, 0]),
        Ok(Received::PeerE2ee(_))
    ));
    assert!(matches!(
        strict.receive(&[0xB1, 0]),
        Ok(Received::RelayEnvelope(_))
    ));
    // The documented hazard: in an unencrypted mesh, a plain document that
    // starts with 0xAE..0xB1 is not delivered as a document.
    for first in 0xAEu8..=0xB1 {
        let doc = [first, 0x00, 0x42, 0x42];
        assert!(!matches!(
            open_mesh.receive(&doc),
            Ok(Received::Document { .. })
        ));
    }
}

#[test]
fn random_input_never_panics() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let (mut a, mut b) = pair();
    let r = Receiver::new(
        Some(MeshKey::derive(&"DEMO".parse().unwrap(), &[0x42; 32])),
        Mode::Strict,
    );
    for _ in 0..20_000 {
        let len = rng.gen_range(0..96);
        let mut f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if len > 0 {
            f[0] = [0xAE, 0xAF, 0xB0, 0xB1, rng.gen()][rng.gen_range(0..5)];
        }
        if len >= 10 && rng.gen_bool(0.5) {
            // Aim at the live session so the decrypt path runs.
            f[2..6].copy_from_slice(&B.to_le_bytes());
            f[6..10].copy_from_slice(&A.to_le_bytes());
        }
        let _ = r.receive(&f);
        let _ = b.open_to_vec(0, &f);
        let _ = b.handle_key_exchange(0, &f);
        let _ = KeyExchange::decode(&f);
        let _ = PeerHeader::parse(&f);
    }
    // The genuine session survives all of it.
    let f = a.seal_to_vec(0, B, b"ok").unwrap();
    assert_eq!(b.open_to_vec(0, &f).unwrap().plaintext, b"ok");
}
