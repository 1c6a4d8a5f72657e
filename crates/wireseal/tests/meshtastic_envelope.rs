//! MQTT envelopes and the feed decoder, with envelopes built by a test-side
//! protobuf writer written from the public schema's field numbers (not by
//! the library's own encoder).

mod common;

use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{Decoded, Decryption, KeyEvent, Signature, Undecoded};
use wireseal::meshtastic::envelope::{self, PayloadVariant, MAX_ENVELOPE_LEN};
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey};
use wireseal::meshtastic::{ChannelKey, Decoder, Error, PkcEngine, PkcPacket, ReplayWindow};

/// A minimal protobuf writer (wire types 0, 2 and 5 only).
#[derive(Default, Clone)]
struct Pb(Vec<u8>);

impl Pb {
    fn varint(&mut self, mut v: u64) -> &mut Self {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
        self
    }
    fn uint(&mut self, field: u32, v: u64) -> &mut Self {
        self.varint(u64::from(field) << 3).varint(v)
    }
    fn fixed32(&mut self, field: u32, v: u32) -> &mut Self {
        self.varint(u64::from(field) << 3 | 5);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Self {
        self.varint(u64::from(field) << 3 | 2)
            .varint(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    fn done(&self) -> Vec<u8> {
        self.0.clone()
    }
}

fn data(portnum: u64, payload: &[u8], sig: Option<&[u8; 64]>) -> Vec<u8> {
    let mut d = Pb::default();
    d.uint(1, portnum).bytes(2, payload);
    if let Some(s) = sig {
        d.bytes(10, s);
    }
    d.done()
}

struct Pkt<'a> {
    from: u32,
    to: u32,
    id: u32,
    channel: u32,
    encrypted: Option<&'a [u8]>,
    decoded: Option<&'a [u8]>,
    public_key: Option<&'a [u8; 32]>,
    pki: bool,
}

fn envelope(p: &Pkt<'_>, channel_id: &str, gateway_id: &str) -> Vec<u8> {
    let mut m = Pb::default();
    m.fixed32(1, p.from)
        .fixed32(2, p.to)
        .uint(3, u64::from(p.channel));
    if let Some(d) = p.decoded {
        m.bytes(4, d);
    }
    if let Some(e) = p.encrypted {
        m.bytes(5, e);
    }
    m.fixed32(6, p.id).fixed32(7, 1_700_000_000);
    m.varint(8 << 3 | 5)
        .0
        .extend_from_slice(&(-5.25f32).to_le_bytes()); // rx_snr: skipped
    m.uint(9, 3).uint(12, (-90i64) as u64).uint(15, 7); // rx_rssi (12): skipped
    if let Some(k) = p.public_key {
        m.bytes(16, k);
    }
    if p.pki {
        m.uint(17, 1);
    }
    m.uint(21, 2); // transport_mechanism: skipped
    let mut e = Pb::default();
    e.bytes(1, &m.done())
        .bytes(2, channel_id.as_bytes())
        .bytes(3, gateway_id.as_bytes());
    e.uint(99, 1); // a field from the future
    e.done()
}

fn channel_packet(key: &ChannelKey, name: &str, from: u32, id: u32, plain: &[u8]) -> Vec<u8> {
    let mut ct = plain.to_vec();
    key.seal_in_place(from, id, &mut ct);
    envelope(
        &Pkt {
            from,
            to: u32::MAX,
            id,
            channel: u32::from(key.hash(name)),
            encrypted: Some(&ct),
            decoded: None,
            public_key: None,
            pki: false,
        },
        name,
        "!gw000001",
    )
}

const OUR_NODE: u32 = 0x0a0b0c0d;

struct Mesh {
    ours: [u8; 32],
    ours_secret: [u8; 32],
    senders: Vec<(u32, StaticSecret)>,
    long_fast: ChannelKey,
    ops_a: ChannelKey,
    ops_b: ChannelKey,
}

fn mesh() -> Mesh {
    let ours = StaticSecret::generate();
    let a: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(3));
    let mut b = a;
    b[0] ^= 0x55;
    b[1] ^= 0x55; // the same XOR: the same hash for the same name
    Mesh {
        ours: *ours.public_key(),
        ours_secret: *ours.expose(),
        senders: (0..6)
            .map(|i| (0x100 + i, StaticSecret::generate()))
            .collect(),
        long_fast: ChannelKey::from_psk(&[1]).unwrap(),
        ops_a: ChannelKey::from_psk(&a).unwrap(),
        ops_b: ChannelKey::from_psk(&b).unwrap(),
    }
}

fn decoder(m: &Mesh) -> Decoder {
    let mut d = Decoder::new();
    d.add_channel("LongFast", &[1]).unwrap();
    let a: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(3));
    let mut b = a;
    b[0] ^= 0x55;
    b[1] ^= 0x55;
    d.add_channel("Ops", &a).unwrap();
    d.add_channel("Ops", &b).unwrap();
    d.set_node(OUR_NODE, StaticSecret::from_bytes(&m.ours_secret).unwrap());
    d
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
    let mut e = PkcEngine::new(StaticSecret::from_bytes(sender.expose()).unwrap());
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
    let mut d = decoder(&m);
    d.set_replay_window(ReplayWindow::default());
    let feed = feed(&m);
    let r: Vec<Result<Decoded, Error>> = feed.iter().map(|e| d.decode(0, e)).collect();
    let ok = |i: usize| r[i].as_ref().unwrap();
    let (n0, n1, n2) = (m.senders[0].0, m.senders[1].0, m.senders[2].0);
    assert_eq!(ok(0).signature, Signature::UnknownKey);
    assert_eq!(ok(0).text(), Some("before nodeinfo"));
    assert_eq!(ok(0).gateway_id, "!gw000001");
    assert_eq!(ok(1).key_event, Some(KeyEvent::Learned { node: n0 }));
    assert_eq!(ok(1).signature, Signature::Absent);
    assert_eq!(
        (ok(2).signature, ok(2).text()),
        (Signature::Valid, Some("hello mesh"))
    );
    assert_eq!(ok(3).signature, Signature::Invalid);
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
        (Decryption::No, Some(Undecoded::NotForUs))
    );
    assert_eq!(
        (ok(9).signature, ok(9).key_event),
        (Signature::Valid, Some(KeyEvent::Learned { node: n2 }))
    );
    assert!(matches!(ok(10).key_event, Some(KeyEvent::Conflict { node, .. }) if node == n0));
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
    let mut one = decoder(&m);
    one.set_replay_window(ReplayWindow::default());
    let serial: Vec<_> = refs.iter().map(|e| one.decode(5, e)).collect();
    for threads in [1, 2, 4] {
        let mut d = decoder(&m);
        d.set_replay_window(ReplayWindow::default());
        // Two calls: the second finds the senders' keys cached and opens
        // their direct messages in the parallel step.
        let (first, second) = refs.split_at(refs.len() / 2 + 1);
        let b = Batch::with_threads(threads);
        let mut got = d.decode_batch(5, first, &b);
        got.extend(d.decode_batch(5, second, &b));
        assert_eq!(got, serial, "{threads} threads");
        assert_eq!(d.nodes().len(), one.nodes().len());
        assert_eq!(
            d.pkc_engine().unwrap().cache().stats(),
            one.pkc_engine().unwrap().cache().stats()
        );
    }
}

#[test]
fn envelope_decode_skips_unknown_fields_and_caps_sizes() {
    let m = mesh();
    let bytes = channel_packet(
        &m.long_fast,
        "LongFast",
        0x929,
        0x13b2d662,
        &data(1, b"hi", None),
    );
    let env = envelope::decode(&bytes).unwrap();
    let p = env.packet.as_ref().unwrap();
    assert_eq!(
        (p.from, p.to, p.id, p.hop_limit, p.hop_start, p.rx_time),
        (0x929, u32::MAX, 0x13b2d662, 3, 7, 1_700_000_000)
    );
    assert_eq!(
        (env.channel_id.as_str(), env.gateway_id.as_str()),
        ("LongFast", "!gw000001")
    );
    // Our encoder writes what the schema says: re-decoding gives the same message.
    let again = envelope::encode_to_vec(&env);
    assert_eq!(envelope::decode(&again).unwrap(), env);
    let mut small = [0u8; 8];
    assert_eq!(
        envelope::encode_into(&env, &mut small),
        Err(Error::BufferTooSmall {
            required: again.len()
        })
    );
    let mut buf = vec![0u8; envelope::encoded_len(&env)];
    assert_eq!(envelope::encode_into(&env, &mut buf), Ok(again.len()));
    assert_eq!(buf, again);

    let too_big = vec![0u8; 240];
    let e = envelope(
        &Pkt {
            from: 1,
            to: 2,
            id: 3,
            channel: 8,
            encrypted: Some(&too_big),
            decoded: None,
            public_key: None,
            pki: false,
        },
        "LongFast",
        "!gw",
    );
    assert_eq!(
        envelope::decode(&e),
        Err(Error::FieldLength {
            field: "encrypted",
            len: 240
        })
    );
    let mut m2 = Pb::default();
    m2.fixed32(1, 1).bytes(5, b"ct").bytes(16, &[7u8; 31]);
    let mut e2 = Pb::default();
    e2.bytes(1, &m2.done());
    assert_eq!(
        envelope::decode(&e2.done()),
        Err(Error::FieldLength {
            field: "public_key",
            len: 31
        })
    );
    let mut e3 = Pb::default();
    e3.bytes(2, b"LongFast");
    assert!(matches!(
        envelope::decode(&e3.done()),
        Err(Error::Malformed { .. })
    ));
    let mut e4 = Pb::default();
    e4.bytes(1, &m2.done()).bytes(3, &[b'g'; 65]);
    assert!(matches!(
        envelope::decode(&e4.done()),
        Err(Error::FieldLength {
            field: "gateway_id",
            ..
        })
    ));
    assert!(matches!(
        envelope::decode(&[0xff; 40]),
        Err(Error::Malformed { .. })
    ));
    assert!(matches!(
        envelope::decode(&vec![0u8; 5000]),
        Err(Error::TooLong { len: 5000, .. })
    ));
    assert!(
        envelope::decode(&envelope::encode_to_vec(&envelope::ServiceEnvelope {
            packet: Some(envelope::MeshPacket {
                payload_variant: Some(PayloadVariant::Encrypted(vec![])),
                ..Default::default()
            }),
            ..Default::default()
        }))
        .is_ok()
    );
}
