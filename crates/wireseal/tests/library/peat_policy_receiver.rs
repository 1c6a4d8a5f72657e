//! The policy wired into the receive path, end to end: real frames (plain
//! documents, `MeshSealer` frames, `PeerSessions` frames) go through a
//! `Receiver::with_policy`, whose verdicts are checked against what
//! `policy::decide` would send under every battery level and update rate.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use wireseal::keys::StaticSecret;
use wireseal::peat::policy::*;
use wireseal::peat::*;
use DataType::*;
use Link::*;
use Protection::*;

use crate::peat_policy_support;
use peat_policy_support::{condition_grid, LINKS, TYPES};

const A: u32 = 0x1111_1111;
const B: u32 = 0x2222_2222;
/// The mesh id every frame here uses.
fn demo() -> MeshId {
    "DEMO".parse().unwrap()
}
const SECRET: [u8; 32] = [0x42; 32];

/// A document of type `t`: a type byte (never 0xAE..=0xB1), then a body.
fn doc(t: DataType) -> Vec<u8> {
    let mut d = match t {
        Counter => vec![1],
        Heartbeat => vec![2],
        Location => vec![3],
        Chat => vec![4],
        Emergency => vec![5],
        SensitiveChat => vec![6],
        App(n) => {
            let mut v = vec![7];
            v.extend_from_slice(&n.to_le_bytes());
            v
        }
    };
    d.extend_from_slice(b" body of the document");
    d
}

/// The application's classifier: reads the type byte back.
fn classify_doc(d: &[u8]) -> DataType {
    match d {
        [1, ..] => Counter,
        [2, ..] => Heartbeat,
        [3, ..] => Location,
        [4, ..] => Chat,
        [5, ..] => Emergency,
        [6, ..] => SensitiveChat,
        [7, lo, hi, ..] => App(u16::from_le_bytes([*lo, *hi])),
        _ => App(u16::MAX),
    }
}

/// Node A (sender) and node B (receiver) with an established session.
fn peers() -> (PeerSessions, PeerSessions) {
    let mut a = PeerSessions::new(A, StaticSecret::from_bytes(&[0xa1; 32]).unwrap());
    let mut b = PeerSessions::new(B, StaticSecret::from_bytes(&[0xb2; 32]).unwrap());
    let kx = a.initiate(0, B).unwrap();
    let KeyExchangeOutcome::Established { response, .. } = b.handle_key_exchange(0, &kx).unwrap()
    else {
        panic!("responder must establish")
    };
    a.handle_key_exchange(0, &response).unwrap();
    (a, b)
}

fn policy_receiver(p: &Policy) -> Receiver {
    Receiver::with_policy(
        Some(MeshKey::derive(&demo(), &SECRET)),
        p.clone(),
        classify_doc,
    )
}

/// Sends `d` at protection `level` over `link` to `rx` (and B's sessions)
/// and returns what the receiver made of it: the document or the error.
fn deliver(
    rx: &Receiver,
    sealer: &mut MeshSealer,
    (a, b): &mut (PeerSessions, PeerSessions),
    d: &[u8],
    level: Protection,
    link: Link,
) -> Result<Vec<u8>, Error> {
    let frame = match level {
        Plain => d.to_vec(),
        MeshWide => sealer.seal_to_vec(d),
        PeerE2ee => a.seal_to_vec(0, B, d).unwrap(),
    };
    match rx.receive_from(&frame, link)? {
        Received::Document { bytes, protection } => {
            assert_eq!(protection == Protection::Plain, level == Plain);
            Ok(bytes.into_owned())
        }
        Received::PeerE2ee(f) => {
            assert_eq!(level, PeerE2ee);
            let m = b.open_to_vec(0, f)?;
            rx.admit(&m.plaintext, PeerE2ee, link)?;
            Ok(m.plaintext)
        }
        other => panic!("unexpected dispatch {other:?}"),
    }
}

fn policies() -> Vec<Policy> {
    let mut v = Vec::new();
    for lv in [
        Level::None,
        Level::MeshWide,
        Level::Selective,
        Level::PeerE2ee,
    ] {
        v.push(Policy::new(lv));
        v.push(Policy::new(lv).with_adaptive(20, 10.0));
        let mut custom = Policy::new(lv).with_adaptive(50, 2.0);
        custom.always_encrypt = vec![Location];
        custom.known_peer = Override::AtLeast(PeerE2ee);
        custom.trusted_local = Override::Keep;
        v.push(custom);
    }
    v
}

#[test]
fn policy_receiver_accepts_exactly_what_decide_could_send() {
    let grid = condition_grid();
    let mut sealer = MeshSealer::new(&demo(), &SECRET);
    let mut pair = peers();
    let (mut accepted, mut rejected) = (0, 0);
    for p in policies() {
        let rx = policy_receiver(&p);
        for t in TYPES {
            for link in LINKS {
                // What the sender would choose, for every battery and rate.
                let sent: Vec<Protection> = grid
                    .iter()
                    .map(|&c| p.decide(t, link, c).protection)
                    .collect();
                let d = doc(t);
                for level in [Plain, MeshWide, PeerE2ee] {
                    let got = deliver(&rx, &mut sealer, &mut pair, &d, level, link);
                    let tag = format!("{:?} {:?} {t:?} {link:?} {level:?}", p.level, p.adaptive);
                    match got {
                        Ok(bytes) => {
                            assert_eq!(bytes, d, "{tag}");
                            // Never accepted below what the sender would
                            // use under every condition: some (battery,
                            // rate) makes the sender choose this level or less.
                            assert!(sent.iter().any(|&s| s <= level), "{tag}");
                            accepted += 1;
                        }
                        Err(e) => {
                            // Rejected: under every condition the sender
                            // would have used more protection.
                            assert!(sent.iter().all(|&s| s > level), "{tag}: {e:?}");
                            let lowest = *sent.iter().min().unwrap();
                            assert_eq!(
                                e,
                                Error::BelowPolicy {
                                    data: t,
                                    required: lowest,
                                    received: level
                                },
                                "{tag}"
                            );
                            rejected += 1;
                        }
                    }
                }
                // Whatever decide would send is accepted, for every condition.
                let mut distinct = sent.clone();
                distinct.sort();
                distinct.dedup();
                for &s in &distinct {
                    assert!(
                        deliver(&rx, &mut sealer, &mut pair, &d, s, link).is_ok(),
                        "{:?} {t:?} {link:?} {s:?}",
                        p.level
                    );
                }
            }
        }
    }
    assert_eq!(accepted + rejected, 12 * 7 * 3 * 3);
    assert!(accepted > 0 && rejected > 0, "{accepted} {rejected}");
}

/// Expected verdicts written from the rules in docs/peat.md, not computed.
#[test]
fn policy_receiver_table() {
    let sel = Policy::new(Level::Selective);
    let sel_adaptive = Policy::new(Level::Selective).with_adaptive(20, 10.0);
    let none = Policy::new(Level::None);
    let mesh = Policy::new(Level::MeshWide);
    #[rustfmt::skip]
    let table: Vec<(&Policy, DataType, Link, Protection, Option<Protection>)> = vec![
        // (policy, type, link, arrived as, Some(required) when rejected)
        (&sel, Counter, KnownPeer, Plain, None),
        (&sel, Heartbeat, KnownPeer, Plain, None),
        (&sel, Chat, KnownPeer, Plain, Some(MeshWide)),
        (&sel, Chat, KnownPeer, MeshWide, None),
        (&sel, Location, KnownPeer, Plain, Some(MeshWide)),
        (&sel, Emergency, TrustedLocal, Plain, Some(MeshWide)),
        (&sel, SensitiveChat, KnownPeer, MeshWide, Some(PeerE2ee)),
        (&sel, SensitiveChat, KnownPeer, PeerE2ee, None),
        (&sel, Chat, UntrustedRelay, MeshWide, Some(PeerE2ee)),
        (&sel, Counter, TrustedLocal, Plain, None),
        // Adaptive: the sender may be on low battery, so plain chat passes...
        (&sel_adaptive, Chat, KnownPeer, Plain, None),
        (&sel_adaptive, Chat, UntrustedRelay, Plain, None),
        // ...but never an always-encrypt type.
        (&sel_adaptive, Emergency, KnownPeer, Plain, Some(MeshWide)),
        (&sel_adaptive, SensitiveChat, KnownPeer, MeshWide, Some(PeerE2ee)),
        // Level None: the link rule and the floor still bind.
        (&none, Chat, KnownPeer, Plain, None),
        (&none, Emergency, KnownPeer, Plain, Some(MeshWide)),
        (&none, Counter, UntrustedRelay, MeshWide, Some(PeerE2ee)),
        (&mesh, Chat, TrustedLocal, Plain, None),
        (&mesh, Counter, KnownPeer, Plain, Some(MeshWide)),
    ];
    let mut sealer = MeshSealer::new(&demo(), &SECRET);
    let mut pair = peers();
    for (i, (p, t, link, level, rejected)) in table.into_iter().enumerate() {
        let rx = policy_receiver(p);
        let got = deliver(&rx, &mut sealer, &mut pair, &doc(t), level, link);
        match rejected {
            None => assert_eq!(got, Ok(doc(t)), "row {i}"),
            Some(required) => assert_eq!(
                got,
                Err(Error::BelowPolicy {
                    data: t,
                    required,
                    received: level
                }),
                "row {i}"
            ),
        }
    }
}

#[test]
fn policy_receiver_edges() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let rx = Receiver::with_policy(
        Some(MeshKey::derive(&demo(), &SECRET)),
        Policy::new(Level::Selective),
        move |d: &[u8]| {
            seen.fetch_add(1, Ordering::SeqCst);
            classify_doc(d)
        },
    );
    assert_eq!(rx.mode(), None);
    assert_eq!(rx.policy().unwrap().level, Level::Selective);
    assert!(!rx.is_strict());
    let mut sealer = MeshSealer::new(&demo(), &SECRET);
    // A tampered mesh-wide frame fails on its tag; the classifier never sees
    // its bytes.
    let mut f = sealer.seal_to_vec(&doc(Chat));
    let n = f.len();
    f[n - 1] ^= 1;
    assert_eq!(rx.receive_from(&f, KnownPeer), Err(Error::Auth));
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // Without a link, a document is judged as from an untrusted relay:
    // mesh-wide chat needs per-peer there.
    let f = sealer.seal_to_vec(&doc(Chat));
    assert_eq!(
        rx.receive(&f),
        Err(Error::BelowPolicy {
            data: Chat,
            required: PeerE2ee,
            received: MeshWide
        })
    );
    assert!(rx.receive_from(&f, KnownPeer).is_ok());
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // Control frames are dispatched, not judged.
    assert!(matches!(
        rx.receive(&[0xB0, 0]),
        Ok(Received::KeyExchange(_))
    ));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // Odd documents go through the classifier without a panic.
    for d in [&[][..], &[0x00], &[7, 1]] {
        let _ = rx.receive_from(d, KnownPeer);
    }
    // No mesh key: mesh-wide frames cannot be opened; the policy still
    // applies to plain ones.
    let keyless = Receiver::with_policy(None, Policy::new(Level::Selective), classify_doc);
    assert_eq!(keyless.receive_from(&f, KnownPeer), Err(Error::NoMeshKey));
    assert!(keyless.receive_from(&doc(Counter), KnownPeer).is_ok());
    assert!(matches!(
        keyless.receive_from(&doc(Chat), KnownPeer),
        Err(Error::BelowPolicy { .. })
    ));
    // The classic modes are unchanged by admit(): strict refuses any plain
    // document, permissive takes everything.
    let strict = Receiver::new(Some(MeshKey::derive(&demo(), &SECRET)), Mode::Strict);
    assert_eq!(strict.mode(), Some(Mode::Strict));
    assert_eq!(
        strict.admit(&doc(Counter), Plain, TrustedLocal),
        Err(Error::UnencryptedInStrictMode)
    );
    assert!(strict.admit(&doc(Chat), MeshWide, UntrustedRelay).is_ok());
    let permissive = Receiver::new(Some(MeshKey::derive(&demo(), &SECRET)), Mode::Permissive);
    assert!(permissive
        .admit(&doc(SensitiveChat), Plain, UntrustedRelay)
        .is_ok());
}
