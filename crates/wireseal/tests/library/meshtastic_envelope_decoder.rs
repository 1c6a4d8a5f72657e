//! The feed decoder over MQTT envelopes: a feed that walks every path
//! (channel and PKC decryption, signatures, learned and conflicting keys,
//! replays, malformed and oversized envelopes), and the batch decoder
//! against one envelope at a time.

use crate::meshtastic_envelope_support;

use meshtastic_envelope_support::{channel_packet, data, envelope, mesh, Mesh, Pb, Pkt};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{
    Concern, Decoded, Decryption, Identity, KeyEvent, Signature, Undecoded, Verdict,
};
use wireseal::meshtastic::envelope::MAX_ENVELOPE_LEN;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey};
use wireseal::meshtastic::{Decoder, Error, PkcEngine, PkcPacket, ReplayWindow};

const OUR_NODE: u32 = 0x0a0b0c0d;

fn decoder(m: &Mesh) -> Decoder {
    let mut d = Decoder::new();
    d.add_channel("LongFast", &[1]).unwrap();
    let a: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(3));
    let mut b = a;
    b[0] ^= 0x55;
    b[1] ^= 0x55;
    d.add_channel("Ops", &a).unwrap();
    d.add_channel("Ops", &b).unwrap();
    d.with_node(OUR_NODE, StaticSecret::from_bytes(&m.ours_secret).unwrap())
        .unwrap()
}

fn pkc(
    sender: &StaticSecret,
    from: u32,
    to_public: &[u8; 32],
    to: u32,
    id: u32,
    plain: &[u8],
    announce: bool,
) -> Vec<u8> {
    let mut e = PkcEngine::new(StaticSecret::from_bytes(sender.expose()).unwrap()).unwrap();
    let ct = e
        .seal_to_vec(
            0,
            PkcPacket {
                peer_public: to_public,
                from,
                id,
            },
            plain,
        )
        .unwrap();
    envelope(
        &Pkt {
            from,
            to,
            id,
            channel: 0,
            encrypted: Some(&ct),
            decoded: None,
            public_key: announce.then_some(sender.public_key()),
            pki: true,
        },
        "PKI",
        "!gw000002",
    )
}

fn nodeinfo(m: &Mesh, sender: &StaticSecret, from: u32, id: u32, signed: bool) -> Vec<u8> {
    let mut user = Pb::default();
    user.bytes(1, format!("!{from:08x}").as_bytes())
        .bytes(2, b"Node")
        .bytes(3, b"ND")
        .uint(5, 9)
        .bytes(8, sender.public_key());
    let user = user.done();
    let sig = signed.then(|| {
        SigningKey::from_secret(sender).sign(&SignedFields {
            from,
            id,
            portnum: 4,
            payload: &user,
        })
    });
    channel_packet(
        &m.long_fast,
        "LongFast",
        from,
        id,
        &data(4, &user, sig.as_ref()),
    )
}

fn signed_text(
    m: &Mesh,
    sender: &StaticSecret,
    from: u32,
    id: u32,
    text: &[u8],
    tamper: bool,
) -> Vec<u8> {
    let mut sig = SigningKey::from_secret(sender).sign(&SignedFields {
        from,
        id,
        portnum: 1,
        payload: text,
    });
    if tamper {
        sig[10] ^= 4;
    }
    channel_packet(
        &m.long_fast,
        "LongFast",
        from,
        id,
        &data(1, text, Some(&sig)),
    )
}

/// A feed exercising every path, in an order where later packets depend on
/// keys learned from earlier ones.
fn feed(m: &Mesh) -> Vec<Vec<u8>> {
    let (n0, s0) = (m.senders[0].0, &m.senders[0].1);
    let (n1, s1) = (m.senders[1].0, &m.senders[1].1);
    let (n2, s2) = (m.senders[2].0, &m.senders[2].1);
    let mut f = vec![
        signed_text(m, s0, n0, 1, b"before nodeinfo", false), // 0 unknown-key
        nodeinfo(m, s0, n0, 2, false),                        // 1 learned (unsigned)
        signed_text(m, s0, n0, 3, b"hello mesh", false),      // 2 valid
        signed_text(m, s0, n0, 4, b"hello mesh", true),       // 3 invalid
        channel_packet(&m.ops_b, "Ops", n1, 5, &data(1, b"ops b", None)), // 4 same hash, second key
        channel_packet(&m.ops_a, "Ops", n1, 6, &data(1, b"ops a", None)), // 5 same hash, first key
        pkc(
            s1,
            n1,
            &m.ours,
            OUR_NODE,
            7,
            &data(1, b"dm to us", None),
            true,
        ), // 6 learned via PKC
        pkc(
            s1,
            n1,
            &m.ours,
            OUR_NODE,
            8,
            &data(1, b"again", None),
            false,
        ), // 7 pinned key
        pkc(
            s2,
            n2,
            &m.senders[3].1.public_key().clone(),
            0x999,
            9,
            &data(1, b"not ours", None),
            true,
        ), // 8 not for us
        nodeinfo(m, s2, n2, 10, true),                        // 9 first contact, signed
        nodeinfo(m, s1, n0, 11, false),                       // 10 conflict: n0 claims s1's key
        pkc(
            s2,
            n2,
            &m.ours,
            OUR_NODE,
            12,
            &data(1, b"dm 2", None),
            false,
        ), // 11 uses key from 9
        channel_packet(
            &m.long_fast,
            "LongFast",
            n2,
            13,
            b"\xff\xfe garbage that is not Data",
        ), // 12 wrong key
        envelope(
            &Pkt {
                from: n2,
                to: u32::MAX,
                id: 14,
                channel: 0x42,
                encrypted: Some(b"xyz"),
                decoded: None,
                public_key: None,
                pki: false,
            },
            "Other",
            "!gw",
        ), // 13 no channel
        envelope(
            &Pkt {
                from: n2,
                to: u32::MAX,
                id: 15,
                channel: 0,
                encrypted: None,
                decoded: Some(&data(1, b"plain text", None)),
                public_key: None,
                pki: false,
            },
            "LongFast",
            "!gw",
        ), // 14 plain
        signed_text(m, s0, n0, 3, b"hello mesh", false),      // 15 replay of 2
        b"\x0a\x05garbage".to_vec(),                          // 16 malformed
        vec![0u8; MAX_ENVELOPE_LEN + 1],                      // 17 oversized
    ];
    let (n5, s5) = (m.senders[5].0, &m.senders[5].1);
    let mut ct = PkcEngine::new(StaticSecret::from_bytes(s5.expose()).unwrap())
        .unwrap()
        .seal_to_vec(
            0,
            PkcPacket {
                peer_public: &m.ours,
                from: n5,
                id: 16,
            },
            &data(1, b"tampered", None),
        )
        .unwrap();
    ct[3] ^= 1;
    let bad = Pkt {
        from: n5,
        to: OUR_NODE,
        id: 16,
        channel: 0,
        encrypted: Some(&ct),
        decoded: None,
        public_key: Some(s5.public_key()),
        pki: true,
    };
    f.push(envelope(&bad, "PKI", "!gw")); // 18 auth failed, key not pinned
    f.push(pkc(
        s5,
        n5,
        &m.ours,
        OUR_NODE,
        17,
        &data(1, b"after", None),
        true,
    )); // 19 learned
    f
}

#[test]
fn decoder_walks_every_path() {
    let m = mesh();
    let mut d = decoder(&m).with_replay_window(ReplayWindow::default());
    let feed = feed(&m);
    let r: Vec<Result<Decoded, Error>> = feed.iter().map(|e| d.decode(0, e)).collect();
    let ok = |i: usize| r[i].as_ref().unwrap();
    let (n0, n1, n2) = (m.senders[0].0, m.senders[1].0, m.senders[2].0);
    assert_eq!(ok(0).signature, Signature::UnknownKey);
    assert_eq!(ok(0).text(), Some("before nodeinfo"));
    assert_eq!(ok(0).gateway_id, "!gw000001");
    assert_eq!(ok(1).key_event, Some(KeyEvent::Learned { node: n0 }));
    assert_eq!(ok(1).signature, Signature::Absent);
    assert_eq!(ok(1).identity, Some(Identity::Matches));
    assert_eq!(ok(0).identity, None);
    assert_eq!(
        (ok(2).signature, ok(2).text()),
        (Signature::Valid, Some("hello mesh"))
    );
    assert_eq!(ok(2).verdict, Some(Verdict::Accept));
    assert_eq!(ok(3).signature, Signature::Invalid);
    assert_eq!(
        ok(3).verdict,
        Some(Verdict::Drop(Concern::InvalidSignature))
    );
    assert_eq!(
        (ok(4).decryption, ok(4).text()),
        (Decryption::Channel(2), Some("ops b"))
    );
    assert_eq!(
        (ok(5).decryption, ok(5).text()),
        (Decryption::Channel(1), Some("ops a"))
    );
    assert_eq!(
        (ok(6).decryption, ok(6).text()),
        (Decryption::Pkc, Some("dm to us"))
    );
    assert_eq!(ok(6).key_event, Some(KeyEvent::Learned { node: n1 }));
    assert_eq!(
        (ok(7).decryption, ok(7).text()),
        (Decryption::Pkc, Some("again"))
    );
    assert_eq!(
        (ok(8).decryption, ok(8).error),
        (Decryption::None, Some(Undecoded::NotForUs))
    );
    assert_eq!(
        (ok(9).signature, ok(9).key_event),
        (Signature::Valid, Some(KeyEvent::Learned { node: n2 }))
    );
    assert_eq!(ok(9).identity, Some(Identity::Matches));
    assert!(matches!(ok(10).key_event, Some(KeyEvent::Conflict { node, .. }) if node == n0));
    // n0 announcing s1's key, unsigned: a number not derived from the key.
    assert_eq!(ok(10).identity, Some(Identity::Legacy));
    assert_eq!(d.nodes().identity(n0), Some(Identity::Matches));
    assert!(d.nodes().is_signer(n0) && d.nodes().is_signer(n2) && !d.nodes().is_signer(n1));
    assert_eq!(
        d.nodes().get(n0).unwrap().public_key,
        *m.senders[0].1.public_key(),
        "pinned key kept"
    );
    assert_eq!(ok(11).text(), Some("dm 2"));
    assert_eq!(ok(12).error, Some(Undecoded::WrongChannelKey));
    assert_eq!(ok(13).error, Some(Undecoded::NoChannel));
    assert_eq!(
        (ok(14).decryption, ok(14).text()),
        (Decryption::Plain, Some("plain text"))
    );
    assert_eq!(ok(15).error, Some(Undecoded::Replay));
    assert!(matches!(r[16], Err(Error::Malformed { .. })));
    assert!(matches!(r[17], Err(Error::TooLong { .. })));
    assert_eq!(ok(18).error, Some(Undecoded::Failed(Error::Auth)));
    assert_eq!(
        ok(19).key_event,
        Some(KeyEvent::Learned {
            node: m.senders[5].0
        })
    );
    // Only packets to our node cost a key agreement, one per sender (1, 2, 5):
    // the tampered packet's sender is not pinned, but its derived key is cached
    // by public key and serves its next packet.
    let stats = d.pkc_engine().unwrap().cache().stats();
    assert_eq!((stats.misses, stats.hits), (3, 2), "{stats:?}");
    assert!(d.nodes().get(0x999).is_none());
}

#[test]
fn batch_equals_one_at_a_time() {
    let m = mesh();
    let feed = feed(&m);
    let mut many = Vec::new();
    for _ in 0..8 {
        many.extend(feed.iter().cloned());
    }
    let refs: Vec<&[u8]> = many.iter().map(Vec::as_slice).collect();
    let mut one = decoder(&m).with_replay_window(ReplayWindow::default());
    let serial: Vec<_> = refs.iter().map(|e| one.decode(5, e)).collect();
    for threads in [1, 2, 4] {
        let mut d = decoder(&m).with_replay_window(ReplayWindow::default());
        // Two calls: the second finds the senders' keys cached and opens
        // their direct messages in the parallel step.
        let (first, second) = refs.split_at(refs.len() / 2 + 1);
        let b = Batch::with_threads(threads);
        let mut got = d.decode_batch(5, &b, first);
        got.extend(d.decode_batch(5, &b, second));
        assert_eq!(got, serial, "{threads} threads");
        assert_eq!(d.nodes().len(), one.nodes().len());
        assert_eq!(
            d.pkc_engine().unwrap().cache().stats(),
            one.pkc_engine().unwrap().cache().stats()
        );
    }
}

/// A batch settles each packet ahead against the decoder as the batch
/// found it; what changes under it in the batch is redone in order: senders
/// that start signing (their unsigned broadcasts become downgrades), a node
/// learned mid-batch, an engine cache too small for the senders (keys
/// evicted between a packet's open and its turn), the engine's own replay
/// window.
#[test]
fn batch_redoes_in_order_what_changed_under_it() {
    let m = mesh();
    let known = &m.senders[..4];
    let (n4, s4) = (m.senders[4].0, &m.senders[4].1);
    let (n5, s5) = (m.senders[5].0, &m.senders[5].1);
    let dm = data(1, b"dm", None);
    let warm: Vec<Vec<u8>> = known
        .iter()
        .chain(&m.senders[5..])
        .zip(100..)
        .map(|((n, s), id)| pkc(s, *n, &m.ours, OUR_NODE, id, &dm, true))
        .collect();
    let mut f = Vec::new();
    for round in 0..6u32 {
        for ((n, s), i) in known.iter().zip(0u32..) {
            let id = 1000 + round * 10 + i;
            f.push(pkc(s, *n, &m.ours, OUR_NODE, id, &dm, false));
            let text = data(1, b"broadcast", None);
            f.push(channel_packet(
                &m.long_fast,
                "LongFast",
                *n,
                id + 500,
                &text,
            ));
        }
        if round == 2 {
            for ((n, s), i) in known.iter().zip(0u32..) {
                f.push(signed_text(&m, s, *n, 5000 + i, b"now signed", false));
            }
            f.push(nodeinfo(&m, s4, n4, 6000, true));
        }
        if round >= 3 {
            f.push(pkc(s4, n4, &m.ours, OUR_NODE, 6100 + round, &dm, false));
        }
    }
    // Repeats for the engine's replay window: one from a sender whose entry
    // changed in the batch, one from a sender whose entry did not.
    f.push(f[0].clone());
    let again = pkc(s5, n5, &m.ours, OUR_NODE, 7000, &dm, false);
    f.extend([again.clone(), again]);
    let refs: Vec<&[u8]> = f.iter().map(Vec::as_slice).collect();
    for (capacity, replay) in [(1, true), (2, true), (16, false)] {
        let make = || {
            let own = StaticSecret::from_bytes(&m.ours_secret).unwrap();
            let mut engine = PkcEngine::with_capacity(own, capacity).unwrap();
            if replay {
                engine = engine.with_replay_window(ReplayWindow::default());
            }
            let mut d = Decoder::new().with_node_engine(OUR_NODE, engine);
            d.add_channel("LongFast", &[1]).unwrap();
            for e in &warm {
                assert!(d.decode(0, e).unwrap().error.is_none());
            }
            d
        };
        let mut one = make();
        let serial: Vec<_> = refs.iter().map(|e| one.decode(0, e)).collect();
        let verdicts: Vec<_> = serial.iter().flatten().map(|d| d.verdict).collect();
        assert!(verdicts.contains(&Some(Verdict::Flag(Concern::Downgrade))));
        assert!(verdicts.contains(&Some(Verdict::Accept)));
        for i in [f.len() - 3, f.len() - 1] {
            assert_eq!(
                serial[i].as_ref().unwrap().error,
                replay.then_some(Undecoded::Failed(Error::Replay)),
                "{capacity}"
            );
        }
        for threads in [1, 2, 4] {
            let mut d = make();
            let got = d.decode_batch(0, &Batch::with_threads(threads), &refs);
            assert_eq!(got, serial, "capacity {capacity}, {threads} threads");
            let stats = |d: &Decoder| d.pkc_engine().unwrap().cache().stats();
            assert_eq!(stats(&d), stats(&one), "capacity {capacity}");
            for (n, _) in &m.senders[..5] {
                assert_eq!(d.nodes().is_signer(*n), one.nodes().is_signer(*n));
                assert_eq!(d.nodes().identity(*n), one.nodes().identity(*n));
            }
        }
    }
}
