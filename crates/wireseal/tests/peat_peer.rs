//! Per-peer E2EE: handshake, frames checked against an independent
//! re-implementation of the peat-btle layout (x25519-dalek for the curve,
//! frames assembled by hand), replay rules, session cap and timeout.

use wireseal::hazmat::chacha20poly1305::ChaChaKey;
use wireseal::hazmat::sha::hkdf_sha256;
use wireseal::keys::StaticSecret;
use wireseal::peat::*;

const A: u32 = 0x1111_1111;
const B: u32 = 0x2222_2222;

fn node(id: u32, key: u8) -> PeerSessions {
    PeerSessions::new(id, StaticSecret::from_bytes(&[key; 32]).unwrap())
}

/// Runs the handshake A -> B -> A; returns both sides established.
fn pair() -> (PeerSessions, PeerSessions) {
    let mut a = node(A, 0xa1);
    let mut b = node(B, 0xb2);
    let kx = a.initiate(0, B).unwrap();
    assert_eq!(a.state(B), Some(SessionState::AwaitingPeerKey));
    let KeyExchangeOutcome::Established { peer, response } = b.handle_key_exchange(0, &kx).unwrap()
    else {
        panic!("responder must establish")
    };
    assert_eq!(peer, A);
    assert!(matches!(
        a.handle_key_exchange(0, &response).unwrap(),
        KeyExchangeOutcome::Established { peer: B, .. }
    ));
    (a, b)
}

/// The session key as the peer computes it, independently: x25519-dalek,
/// salt = lower id || higher id (u32 LE), info "PEAT-peer-e2ee-v1".
fn reference_key(our_sk: u8, peer_pk: &[u8; 32], a: u32, b: u32) -> [u8; 32] {
    let sk = x25519_dalek::StaticSecret::from([our_sk; 32]);
    let shared = sk.diffie_hellman(&x25519_dalek::PublicKey::from(*peer_pk));
    let (lo, hi) = (a.min(b), a.max(b));
    let mut salt = lo.to_le_bytes().to_vec();
    salt.extend_from_slice(&hi.to_le_bytes());
    *hkdf_sha256::<32>(&salt, shared.as_bytes(), b"PEAT-peer-e2ee-v1").expose()
}

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
    let tag = ChaChaKey::new(key).seal_in_place(&nonce, b"", &mut body);
    f.extend_from_slice(&body);
    f.extend_from_slice(&tag);
    f
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
fn forged_huge_counter_does_not_block_the_next_genuine_frame() {
    let (mut a, mut b) = pair();
    let genuine0 = a.seal_to_vec(0, B, b"first").unwrap();
    assert_eq!(b.open_to_vec(0, &genuine0).unwrap().plaintext, b"first");
    // Forged: counter 1,000,000, random ciphertext and tag.
    let mut forged = a.seal_to_vec(0, B, b"ignored").unwrap();
    forged[10..18].copy_from_slice(&1_000_000u64.to_le_bytes());
    let n = forged.len();
    forged[n - 1] ^= 0x55;
    assert_eq!(b.open_to_vec(0, &forged), Err(Error::Auth));
    // A forged frame with a fresh random body (attacker knows no key).
    let mut junk = forged.clone();
    for (i, x) in junk[30..].iter_mut().enumerate() {
        *x = i as u8;
    }
    assert_eq!(b.open_to_vec(0, &junk), Err(Error::Auth));
    // The genuine next frame (counter 2) still opens.
    let genuine = a.seal_to_vec(0, B, b"still here").unwrap();
    assert_eq!(PeerHeader::parse(&genuine).unwrap().counter, 2);
    assert_eq!(b.open_to_vec(0, &genuine).unwrap().plaintext, b"still here");
}

/// Rewrites the (unauthenticated) counter of a per-peer frame.
fn with_counter(frame: &[u8], counter: u64) -> Vec<u8> {
    let mut f = frame.to_vec();
    f[10..18].copy_from_slice(&counter.to_le_bytes());
    f
}

#[test]
fn replays_are_rejected_whatever_their_counter() {
    let (mut a, mut b) = pair();
    let f0 = a.seal_to_vec(0, B, b"zero").unwrap();
    let f1 = a.seal_to_vec(0, B, b"one").unwrap();
    assert_eq!(b.open_to_vec(0, &f1).unwrap().counter, 1);
    // A genuine frame that arrives late (lower counter, fresh nonce) is
    // delivered: the counter is advisory and never rejects a verified frame.
    let late = b.open_to_vec(0, &f0).unwrap();
    assert_eq!((late.counter, &late.plaintext[..]), (0, &b"zero"[..]));
    assert_eq!(
        b.session_info(A).unwrap().highest_inbound_counter,
        Some(1),
        "the highest verified counter does not go back"
    );
    // Exact replays, and replays with the counter edited to anything: the
    // nonce gives them away (the tag still verifies, it does not cover the
    // counter).
    for f in [&f0, &f1] {
        for c in [0, 1, 2, 50, 1_000_000, u64::MAX - 1, u64::MAX] {
            assert_eq!(
                b.open_to_vec(0, &with_counter(f, c)),
                Err(Error::Replay { counter: c }),
                "counter {c}"
            );
        }
    }
    let before = b.session_info(A).unwrap();
    assert_eq!(before.nonces_remembered, 2);
    let f2 = a.seal_to_vec(0, B, b"two").unwrap();
    assert_eq!(b.open_to_vec(0, &f2).unwrap().plaintext, b"two");
}

#[test]
fn aged_out_frame_with_counter_max_does_not_block_the_next_genuine_frame() {
    let (mut a, b) = pair();
    let mut b = b.with_nonce_history(64);
    // The history size applies to sessions set up afterwards: re-establish.
    b.remove(A);
    let KeyExchangeOutcome::Established { .. } =
        b.handle_key_exchange(0, &a.key_exchange_frame()).unwrap()
    else {
        panic!("responder must establish")
    };
    let old = a.seal_to_vec(0, B, b"old").unwrap();
    assert_eq!(b.open_to_vec(0, &old).unwrap().plaintext, b"old");
    // 63 more frames: the old nonce is still remembered.
    for i in 0..63u32 {
        let f = a.seal_to_vec(0, B, &i.to_le_bytes()).unwrap();
        assert!(b.open_to_vec(0, &f).is_ok(), "{i}");
    }
    assert_eq!(b.session_info(A).unwrap().nonces_remembered, 64);
    assert!(matches!(
        b.open_to_vec(0, &with_counter(&old, u64::MAX)),
        Err(Error::Replay { .. })
    ));
    // One more: the old nonce ages out of the 64-entry history.
    let f = a.seal_to_vec(0, B, b"64th").unwrap();
    assert!(b.open_to_vec(0, &f).is_ok());
    // The attack: the genuine old frame with its counter raised to u64::MAX.
    // Its tag verifies (the counter is not covered), so it is delivered once
    // more: the documented residual risk, the same as peat-btle's.
    let replay = b.open_to_vec(0, &with_counter(&old, u64::MAX)).unwrap();
    assert_eq!(
        (replay.counter, &replay.plaintext[..]),
        (u64::MAX, &b"old"[..])
    );
    assert_eq!(
        b.session_info(A).unwrap().highest_inbound_counter,
        Some(u64::MAX)
    );
    // But it silences nobody: the next genuine frames (counter 65, 66) open.
    for want in [65u64, 66] {
        let next = a.seal_to_vec(0, B, b"still here").unwrap();
        let m = b.open_to_vec(0, &next).unwrap();
        assert_eq!((m.counter, &m.plaintext[..]), (want, &b"still here"[..]));
    }
    // And the replayed frame cannot be replayed again while remembered.
    assert!(matches!(
        b.open_to_vec(0, &with_counter(&old, 7)),
        Err(Error::Replay { .. })
    ));
}

#[test]
fn nonce_history_size_is_configurable_with_a_minimum() {
    assert_eq!(node(B, 0xb2).nonce_history(), DEFAULT_NONCE_HISTORY);
    assert_eq!(DEFAULT_NONCE_HISTORY, 4096);
    assert_eq!(
        node(B, 0xb2).with_nonce_history(3).nonce_history(),
        MIN_NONCE_HISTORY
    );
    assert_eq!(node(B, 0xb2).with_nonce_history(100).nonce_history(), 100);
    // With the default, a frame 4095 frames old is still caught.
    let (mut a, mut b) = pair();
    let first = a.seal_to_vec(0, B, b"first").unwrap();
    b.open_to_vec(0, &first).unwrap();
    for _ in 0..DEFAULT_NONCE_HISTORY - 1 {
        let f = a.seal_to_vec(0, B, b"x").unwrap();
        b.open_to_vec(0, &f).unwrap();
    }
    assert_eq!(
        b.session_info(A).unwrap().nonces_remembered,
        DEFAULT_NONCE_HISTORY
    );
    assert!(matches!(
        b.open_to_vec(0, &with_counter(&first, u64::MAX)),
        Err(Error::Replay { .. })
    ));
}

#[test]
fn failed_opens_change_no_state() {
    let (mut a, mut b) = pair();
    let f0 = a.seal_to_vec(5, B, b"zero").unwrap();
    b.open_to_vec(5, &f0).unwrap();
    let before = b.session_info(A).unwrap();
    assert_eq!(
        before,
        SessionInfo {
            state: SessionState::Established,
            last_activity: 5,
            next_outbound_counter: 0,
            highest_inbound_counter: Some(0),
            nonces_remembered: 1,
        }
    );
    let next = a.seal_to_vec(5, B, b"next").unwrap();
    // Tampered in every byte after the header's routing fields, with the
    // counter raised as well, and a replay, all at a later time.
    let mut bad = Vec::new();
    for i in 18..next.len() {
        let mut t = with_counter(&next, u64::MAX);
        t[i] ^= 0x01;
        bad.push(t);
    }
    bad.push(with_counter(&f0, 1_000_000));
    for (i, t) in bad.iter().enumerate() {
        assert!(b.open_to_vec(900, t).is_err(), "{i}");
        assert_eq!(b.session_info(A).unwrap(), before, "frame {i}");
    }
    // The genuine frame whose nonce the tampered ones carried still opens:
    // no failed attempt entered the history.
    assert_eq!(b.open_to_vec(1000, &next).unwrap().plaintext, b"next");
    let after = b.session_info(A).unwrap();
    assert_eq!(after.last_activity, 1000);
    assert_eq!(after.highest_inbound_counter, Some(1));
    assert_eq!(after.nonces_remembered, 2);
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
fn next_counter_can_be_set_and_is_reported() {
    let (mut a, mut b) = pair();
    a.set_next_counter(B, 41).unwrap();
    let f = a.seal_to_vec(0, B, b"x").unwrap();
    assert_eq!(PeerHeader::parse(&f).unwrap().counter, 41);
    assert_eq!(b.open_to_vec(0, &f).unwrap().counter, 41);
    assert_eq!(a.session_info(B).unwrap().next_outbound_counter, 42);
    assert_eq!(
        a.set_next_counter(0x7777, 1),
        Err(Error::NoSession { peer: 0x7777 })
    );
    // The outbound counter stops at u64::MAX instead of wrapping.
    a.set_next_counter(B, u64::MAX - 1).unwrap();
    assert!(a.seal_to_vec(0, B, b"last").is_ok());
    assert_eq!(a.seal_to_vec(0, B, b"x"), Err(Error::CounterExhausted));
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
    assert_eq!(b.handle_key_exchange(0, &weak), Err(Error::WeakPublicKey));
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
    let mut b = node(B, 0xb2).with_max_sessions(3).with_timeout(1000);
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
    let key = || MeshKey::derive("DEMO", &[0x42; 32]);
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
    let r = Receiver::new(Some(MeshKey::derive("DEMO", &[0x42; 32])), Mode::Strict);
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
