//! MeshCore: the firmware's own key pair and documented keys, the limits
//! every receiver enforces, round trips through the builders, and the
//! strict decryption that never reports a 2-byte MAC collision as a
//! message.

use crate::common::unhex;
use rand::{Rng, SeedableRng};
use wireseal::meshcore::*;

/// `src/Identity.cpp` (`validatePrivateKey`): the firmware's known-good test
/// client key pair.
const TEST_CLIENT_PRV: &str = "7065e18fd9fabb70c1ed90dca19907de698c88b709ea146eafd93d9b830c7b60\
c4681193c79bbc39945ba8064104bb618f8fd7a84a0af6f57033d6e8ddcd6471";
const TEST_CLIENT_PUB: &str = "1ec77175b0918ed206f9ae04ec136d6d5d4315bb26305427f645b492e9350c10";

fn identity(seed: u8) -> LocalIdentity {
    // Seeds whose public key starts with 00 or FF are refused; step past.
    (0..=255u8)
        .find_map(|i| LocalIdentity::from_seed(&[seed ^ i; 32]).ok())
        .expect("an identity")
}

#[test]
fn the_firmware_test_client_key_pair() {
    let id = LocalIdentity::from_hex(TEST_CLIENT_PRV).unwrap();
    assert_eq!(hex::encode(id.public().as_bytes()), TEST_CLIENT_PUB);
    assert_eq!(hex::encode(id.private_key().expose()), TEST_CLIENT_PRV);
    // The firmware's own check: the shared secret is symmetric.
    let other = identity(7);
    let a = id.shared_secret(other.public()).unwrap();
    let b = other.shared_secret(id.public()).unwrap();
    assert_eq!(a.expose(), b.expose());
    // And it is X25519 of the converted keys (RFC 7748 through x25519-dalek).
    let mut scalar = [0u8; 32];
    scalar.copy_from_slice(&id.private_key().expose()[..32]);
    let x = x25519_dalek::x25519(scalar, other.public().x25519());
    assert_eq!(&x, a.expose());
}

#[test]
fn seeds_expand_as_orlp_does() {
    // RFC 8032 test 1: the seed's public key, and the signature of "".
    let seed: [u8; 32] = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
        .try_into()
        .unwrap();
    let id = LocalIdentity::from_seed(&seed).unwrap();
    assert_eq!(
        hex::encode(id.public().as_bytes()),
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    );
    assert_eq!(
        hex::encode(id.sign(b"")),
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155\
5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    );
    // The stored key is clamp(SHA-512(seed)[..32]) ‖ SHA-512(seed)[32..].
    let again = LocalIdentity::from_private_key(id.private_key().expose()).unwrap();
    assert_eq!(again.public(), id.public());
    assert_eq!(again.sign(b"x"), id.sign(b"x"));
}

#[test]
fn keys_the_firmware_refuses_are_refused() {
    let mut prv: [u8; 64] = unhex(TEST_CLIENT_PRV).try_into().unwrap();
    prv[0] |= 1;
    let e = LocalIdentity::from_private_key(&prv).unwrap_err();
    assert_eq!(e.kind(), wireseal::error::ErrorKind::InvalidKey);
    for bad in ["", "00", &"0".repeat(65), &"zz".repeat(32)] {
        let e = LocalIdentity::from_hex(bad).unwrap_err();
        assert!(matches!(e, Error::KeyText { .. }), "{bad:?}: {e:?}");
    }
    assert!(matches!(
        PublicIdentity::from_slice(&[1u8; 31]),
        Err(Error::KeyLength { .. })
    ));
    // Keys starting with 00 or FF: find seeds that make them.
    let mut refused = 0;
    for i in 0..2000u32 {
        let mut seed = [0u8; 32];
        seed[..4].copy_from_slice(&i.to_le_bytes());
        if let Err(e) = LocalIdentity::from_seed(&seed) {
            assert!(matches!(e, Error::InvalidKey { .. }));
            refused += 1;
        }
    }
    assert!(
        (5..40).contains(&refused),
        "{refused} of 2000 (about 1 in 128)"
    );
}

#[test]
fn documented_channel_keys() {
    // docs/faq.md: the public channel, hash 0x11.
    let public = ChannelKey::from_base64("izOH6cXN6mrJ5e26oRXNcg==").unwrap();
    assert_eq!(public.hash(), 0x11);
    assert_eq!(ChannelKey::public().hash(), 0x11);
    // docs/companion_protocol.md: `#test`'s key.
    let key = unhex("9cd8fcf22a47333b591d96a2b848b73f");
    let from_key = ChannelKey::from_bytes(&key).unwrap();
    assert_eq!(
        ChannelKey::hashtag("#test").unwrap().hash(),
        from_key.hash()
    );
    assert_eq!(ChannelKey::hashtag("test").unwrap().hash(), from_key.hash());
    // The same text under both encodes to the same packet.
    let mut a = [0u8; 255];
    let mut b = [0u8; 255];
    let n = from_key.encode_group_text(1, "x: y", &mut a).unwrap();
    let m = ChannelKey::hashtag("#test")
        .unwrap()
        .encode_group_text(1, "x: y", &mut b)
        .unwrap();
    assert_eq!(a[..n], b[..m]);
    for bad in ["", "#", "# a", "a\tb"] {
        assert!(ChannelKey::hashtag(bad).is_err(), "{bad:?}");
    }
    for len in [0usize, 15, 17, 31, 33] {
        assert!(matches!(
            ChannelKey::from_bytes(&vec![1u8; len]),
            Err(Error::KeyLength { .. })
        ));
    }
    assert!(matches!(
        ChannelKey::from_base64("not base64!"),
        Err(Error::KeyText { .. })
    ));
}

#[test]
fn a_group_text_is_what_the_firmware_sends() {
    let ch = ChannelKey::public();
    let mut out = [0u8; 255];
    let n = ch
        .encode_group_text(0x6553_f100, "Alice: hello", &mut out)
        .unwrap();
    let p = Packet::parse(&out[..n]).unwrap();
    assert_eq!(out[0], 0x15, "GRP_TXT, flood, version 0");
    assert_eq!(out[1], 0, "empty path");
    assert_eq!(p.payload[0], 0x11);
    // MAC(2) then one block: 4 + 1 + 12 = 17 bytes pad to 32.
    assert_eq!(p.payload.len(), 1 + 2 + 32);
    // Independently: AES-128-ECB and HMAC-SHA256 by the RustCrypto crates.
    use aes::cipher::{BlockDecrypt, KeyInit};
    use hmac::Mac;
    let aes = aes::Aes128::new((&PUBLIC_CHANNEL_KEY).into());
    let mut pt = p.payload[3..].to_vec();
    for b in pt.chunks_exact_mut(16) {
        aes.decrypt_block(b.into());
    }
    let mut want = vec![0x00, 0xf1, 0x53, 0x65, 0x00];
    want.extend_from_slice(b"Alice: hello");
    want.resize(32, 0);
    assert_eq!(pt, want);
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&PUBLIC_CHANNEL_KEY);
    let mut mac = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(&key).unwrap();
    mac.update(&p.payload[3..]);
    assert_eq!(mac.finalize().into_bytes()[..2], p.payload[1..3]);
    // 160 bytes of text fit; 161 do not.
    assert!(ch.encode_group_text(0, &"a".repeat(160), &mut out).is_ok());
    assert!(matches!(
        ch.encode_group_text(0, &"a".repeat(161), &mut out),
        Err(Error::Argument { .. })
    ));
}

#[test]
fn round_trips_through_the_decoder() {
    let alice = identity(1);
    let bob = identity(2);
    let mut dec = Decoder::new();
    dec.add_channel(ChannelKey::public());
    dec.add_channel(ChannelKey::from_bytes(&[9u8; 32]).unwrap());
    dec.add_identity(identity(2));
    assert!(dec.add_peer(*alice.public()));
    assert!(!dec.add_peer(*alice.public()), "known already");
    let mut out = [0u8; 255];

    let n = ChannelKey::from_bytes(&[9u8; 32])
        .unwrap()
        .encode_group_text(5, "Bob: 256-bit", &mut out)
        .unwrap();
    let d = dec.decode(0, &out[..n]).unwrap();
    let Body::Group(Group {
        opened: Some(o), ..
    }) = d.body
    else {
        panic!("{d:?}")
    };
    assert_eq!(o.channel, 1);
    assert!(
        matches!(o.content, GroupContent::Text(ref t) if t.text == "Bob: 256-bit" && t.timestamp == 5)
    );

    for attempt in [0u8, 3, 4, 9] {
        let n = encode_text_message(&alice, bob.public(), 77, attempt, "hi Bob", &mut out).unwrap();
        let d = dec.decode(0, &out[..n]).unwrap();
        assert_eq!(d.payload_type, PayloadType::TxtMsg);
        let Body::Peer(Peer {
            opened: Some(o),
            src_hash,
            dest_hash,
        }) = d.body
        else {
            panic!("{d:?}")
        };
        assert_eq!(
            (src_hash, dest_hash),
            (alice.public().hash(), bob.public().hash())
        );
        assert_eq!(o.from, *alice.public().as_bytes());
        let PeerContent::Text(t) = o.content else {
            panic!()
        };
        assert_eq!(
            (t.text.as_str(), t.timestamp, t.attempt),
            ("hi Bob", 77, attempt)
        );
    }

    let n = encode_anon_request(&alice, bob.public(), 99, b"password", &mut out).unwrap();
    let d = dec.decode(0, &out[..n]).unwrap();
    let Body::AnonReq(AnonReq {
        opened: Some(o), ..
    }) = d.body
    else {
        panic!("{d:?}")
    };
    assert_eq!(o.timestamp, 99);
    assert_eq!(&o.data[..8], b"password");

    let advert = AdvertOut {
        node_type: NodeType::Chat,
        location: Some((45.123456, -75.5)),
        name: "Alice 🌲 with a very long name that will not fit",
    };
    let n = encode_advert(&alice, 1234, &advert, &mut out).unwrap();
    let d = dec.decode(0, &out[..n]).unwrap();
    let Body::Advert(a) = d.body else { panic!() };
    assert!(a.signature_valid);
    let f = a.data.unwrap();
    assert_eq!(f.location, Some((45_123_456, -75_500_000)));
    // 23 bytes with a location, cut at a whole character.
    assert_eq!(f.name.as_deref(), Some("Alice 🌲 with a very "));
    assert_eq!(f.node_type, NodeType::Chat);
}

#[test]
fn an_advert_with_a_changed_byte_does_not_verify() {
    let alice = identity(3);
    let mut out = [0u8; 255];
    let advert = AdvertOut {
        node_type: NodeType::Repeater,
        location: None,
        name: "R1",
    };
    let n = encode_advert(&alice, 1, &advert, &mut out).unwrap();
    for i in 2..n {
        let mut m = out[..n].to_vec();
        m[i] ^= 0x01;
        let p = Packet::parse(&m).unwrap();
        let a = AdvertPayload::of(&p).unwrap();
        assert!(!verify_advert(&a), "byte {i}");
    }
    // App data past 32 bytes is cut before verifying, as receivers do.
    let mut long = out[..n].to_vec();
    long.extend_from_slice(&[0xaa; 40]);
    let p = Packet::parse(&long).unwrap();
    let a = AdvertPayload::of(&p).unwrap();
    assert_eq!(a.app_data.len(), 32);
}

#[test]
fn every_limit_the_firmware_drops_at() {
    let cases: &[(&str, &str)] = &[
        ("", "truncated"),
        ("15", "truncated"),
        ("55001100000000", "version"),              // version 1
        ("95001100000000", "version"),              // version 2
        ("15c0110000000000", "reserved_hash_size"), // size bits 0b11
        ("15ff110000000000", "reserved_hash_size"),
        ("1561", "path_too_long"), // 33 hops of 2 bytes
        ("15a2", "path_too_long"), // 34 hops of 3 bytes: 102
        ("150211", "truncated"),   // 2-byte path, 1 present
        ("14", "truncated"),       // transport, no codes
        ("14010203", "truncated"),
        ("1500110000", "payload_too_short"),   // GRP_TXT of 3
        ("0900aabbccdd", "payload_too_short"), // TXT_MSG of 4
        ("0d00aabbcc", "payload_too_short"),   // ACK of 3
        ("1100", "payload_too_short"),         // ADVERT of 0
    ];
    for (hex_packet, reason) in cases {
        let raw = unhex(hex_packet);
        let e = Packet::parse(&raw).unwrap_err();
        assert_eq!(e.reason(), *reason, "{hex_packet}: {e}");
        assert!(!e.to_string().is_empty());
    }
    let mut advert = vec![0x11, 0x00];
    advert.extend_from_slice(&[0u8; 99]);
    assert_eq!(
        Packet::parse(&advert).unwrap_err().reason(),
        "payload_too_short"
    );
    let mut anon = vec![0x1d, 0x00];
    anon.extend_from_slice(&[0u8; 35]);
    assert_eq!(
        Packet::parse(&anon).unwrap_err().reason(),
        "payload_too_short"
    );
    anon.push(0);
    assert!(Packet::parse(&anon).is_ok());
    let mut big = vec![0x15, 0x00];
    big.extend_from_slice(&[0u8; 185]);
    assert_eq!(
        Packet::parse(&big).unwrap_err().reason(),
        "payload_too_long"
    );
    big.pop();
    assert!(Packet::parse(&big).is_ok());
    // A 64-byte path (the limit) parses; its hops are split by size.
    let mut path64 = vec![0x16, 0x40 | 32];
    path64.extend((0..64).map(|i| i as u8));
    path64.extend_from_slice(&[0x11, 1, 2, 3]);
    let p = Packet::parse(&path64).unwrap();
    assert_eq!(p.hops().count(), 32);
    assert_eq!(p.hops().nth(1), Some(&[2u8, 3][..]));
    assert_eq!(p.route, RouteType::Direct);
    assert!(Packet::parse(&vec![0x15; 256]).is_err());
    // Types without a minimum take an empty payload, as the firmware's parser does.
    assert_eq!(Packet::parse(&unhex("2500")).unwrap().payload, &[] as &[u8]);
}

#[test]
fn the_packet_hash_and_transport_codes() {
    // SHA-256(type ‖ payload)[..8]; TRACE adds the path length as u16 LE.
    use sha2::Digest;
    let raw = unhex("1502aabb11223344");
    let p = Packet::parse(&raw).unwrap();
    let want = sha2::Sha256::digest(unhex("0511223344"));
    assert_eq!(p.hash(), want[..8]);
    let trace = unhex("2602aabb0102030405060708ff");
    let p = Packet::parse(&trace).unwrap();
    let want = sha2::Sha256::digest(unhex("0902000102030405060708ff"));
    assert_eq!(p.hash(), want[..8]);
    // A transport route carries two codes, little-endian.
    let raw = unhex("14fa1a0000001122334455");
    let p = Packet::parse(&raw).unwrap();
    assert_eq!(p.transport_codes, Some([0x1afa, 0]));
    let out = PacketOut {
        route: RouteType::TransportFlood,
        payload_type: PayloadType::GrpTxt,
        transport_codes: p.transport_codes,
        path_hash_size: 1,
        path: &[],
        payload: p.payload,
    };
    assert_eq!(out.to_vec().unwrap(), raw);
    let region = RegionKey::from_name("#ottawa").unwrap();
    assert_eq!(
        region.code(PayloadType::GrpTxt, p.payload),
        RegionKey::from_name("ottawa")
            .unwrap()
            .code(PayloadType::GrpTxt, p.payload)
    );
    let missing = PacketOut {
        transport_codes: None,
        ..out
    };
    assert!(matches!(
        missing.encode_into(&mut [0u8; 64]),
        Err(Error::Argument { .. })
    ));
}

/// A GRP_TXT whose MAC verifies under `key` over random ciphertext: the
/// wrong key passes the MAC, and the plaintext is noise.
fn forged_group(key: &ChannelKey, rng: &mut impl Rng) -> Vec<u8> {
    use hmac::Mac;
    let blocks = rng.gen_range(1..=10);
    let ct: Vec<u8> = (0..16 * blocks).map(|_| rng.gen()).collect();
    let mut secret = [0u8; 32];
    secret[..key.key_len()].copy_from_slice(&KEYS[..key.key_len()]);
    let mut mac = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(&secret).unwrap();
    mac.update(&ct);
    let tag = mac.finalize().into_bytes();
    let mut raw = vec![0x15, 0x00, key.hash(), tag[0], tag[1]];
    raw.extend_from_slice(&ct);
    raw
}

const KEYS: [u8; 32] = [0x5a; 32];

#[test]
fn mac_collisions_are_never_reported_as_decrypted() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(38);
    for len in [16usize, 32] {
        let key = ChannelKey::from_bytes(&KEYS[..len]).unwrap();
        let mut dec = Decoder::new();
        dec.add_channel(ChannelKey::from_bytes(&KEYS[..len]).unwrap());
        let mut mac_ok = 0;
        for _ in 0..2000 {
            let raw = forged_group(&key, &mut rng);
            let p = Packet::parse(&raw).unwrap();
            let g = GroupPayload::of(&p).unwrap();
            mac_ok += usize::from(key.cipher().mac_matches(g.sealed));
            let d = dec.decode(0, &raw).unwrap();
            let Body::Group(g) = d.body else { panic!() };
            assert_eq!(g.opened, None, "{}", hex::encode(&raw));
        }
        assert_eq!(mac_ok, 2000, "every forgery passes the MAC");
    }
}

/// Two channels share a hash byte; a packet for the second also passes the
/// first's MAC. The firmware would stop at the first; the decoder finds
/// the second.
#[test]
fn the_other_keys_are_tried_after_a_mac_match() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let a_key: [u8; 16] = rng.gen();
    let a = ChannelKey::from_bytes(&a_key).unwrap();
    let b_key = loop {
        let k: [u8; 16] = rng.gen();
        if k != a_key && ChannelKey::from_bytes(&k).unwrap().hash() == a.hash() {
            break k;
        }
    };
    let b = ChannelKey::from_bytes(&b_key).unwrap();
    let mut out = [0u8; 255];
    let (raw, ts) = (0u32..)
        .find_map(|ts| {
            let n = b.encode_group_text(ts, "Carol: found", &mut out).unwrap();
            let p = Packet::parse(&out[..n]).unwrap();
            let g = GroupPayload::of(&p).unwrap();
            a.cipher()
                .mac_matches(g.sealed)
                .then(|| (out[..n].to_vec(), ts))
        })
        .unwrap();
    let mut dec = Decoder::new();
    dec.add_channel(a);
    dec.add_channel(b);
    let d = dec.decode(0, &raw).unwrap();
    let Body::Group(Group {
        opened: Some(o), ..
    }) = d.body
    else {
        panic!("{d:?}")
    };
    assert_eq!(o.channel, 1);
    let GroupContent::Text(t) = o.content else {
        panic!()
    };
    assert_eq!((t.text.as_str(), t.timestamp), ("Carol: found", ts));
}

#[test]
fn a_direct_message_collision_is_not_decrypted() {
    use hmac::Mac;
    let alice = identity(4);
    let bob = identity(5);
    let mut dec = Decoder::new();
    dec.add_identity(identity(5));
    dec.add_peer(*alice.public());
    let secret = bob.shared_secret(alice.public()).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for _ in 0..500 {
        let ct: Vec<u8> = (0..16 * rng.gen_range(1..=8)).map(|_| rng.gen()).collect();
        let mut mac =
            <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(secret.expose()).unwrap();
        mac.update(&ct);
        let tag = mac.finalize().into_bytes();
        let mut raw = vec![
            0x09,
            0x00,
            bob.public().hash(),
            alice.public().hash(),
            tag[0],
            tag[1],
        ];
        raw.extend_from_slice(&ct);
        let d = dec.decode(0, &raw).unwrap();
        let Body::Peer(p) = d.body else { panic!() };
        assert_eq!(p.opened, None);
    }
}

#[test]
fn the_structure_checks() {
    let mut pt = vec![1, 0, 0, 0, 0];
    pt.extend_from_slice(b"Al: hi");
    pt.resize(16, 0);
    assert_eq!(parse_group_text(&pt).unwrap().text, "Al: hi");
    let mut bad = pt.clone();
    bad[4] = 4; // a text type groups do not use
    assert!(parse_group_text(&bad).is_none());
    let mut bad = pt.clone();
    bad[15] = 1; // not zero padding
    assert!(parse_group_text(&bad).is_none());
    let mut bad = pt.clone();
    bad[6] = 0xff; // not UTF-8
    assert!(parse_group_text(&bad).is_none());
    let mut long = pt.clone();
    long.resize(32, 0); // a NUL and a block of padding: more than a sender adds
    assert!(parse_group_text(&long).is_none());
    let mut nul = vec![1, 0, 0, 0, 0];
    nul.extend_from_slice(b"0123456789a"); // 16 bytes, then a NUL and a block
    nul.resize(32, 0);
    assert_eq!(parse_direct_text(&nul).unwrap().text, "0123456789a");
    // A character cut at the end by the sender's byte limit is kept whole
    // up to the cut.
    let mut cut = vec![1, 0, 0, 0, 0];
    cut.extend_from_slice(&"x🌲".as_bytes()[..3]);
    cut.resize(16, 0);
    assert_eq!(parse_group_text(&cut).unwrap().text, "x");
    // Group data: the length byte must fit.
    assert_eq!(parse_group_data(&[1, 0, 2, 9, 9, 0]).unwrap().data, &[9, 9]);
    assert!(parse_group_data(&[1, 0, 9, 9, 9]).is_none());
}

/// How often noise passes the structure checks (what a MAC collision must
/// also pass to be reported): one-block plaintexts, the likeliest to pass.
#[test]
fn noise_rarely_has_a_senders_structure() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let n = 1_000_000;
    let (mut group, mut direct) = (0, 0);
    for _ in 0..n {
        let pt: [u8; 16] = rng.gen();
        group += usize::from(parse_group_text(&pt).is_some());
        direct += usize::from(parse_direct_text(&pt).is_some());
    }
    println!("structure passes in {n} random blocks: group {group}, direct {direct}");
    assert!(group * 10_000 < n, "group: {group} of {n}");
    assert!(direct * 5_000 < n, "direct: {direct} of {n}");
}

#[test]
fn a_batch_decodes_as_one_at_a_time() {
    let alice = identity(11);
    let bob = identity(12);
    let ch = ChannelKey::public();
    let mut packets: Vec<Vec<u8>> = Vec::new();
    let mut out = [0u8; 255];
    for i in 0..300u32 {
        let n = match i % 5 {
            0 => encode_advert(
                &alice,
                i,
                &AdvertOut {
                    node_type: NodeType::Chat,
                    location: None,
                    name: "A",
                },
                &mut out,
            ),
            1 => ch.encode_group_text(i, "A: hi", &mut out),
            2 => encode_text_message(&alice, bob.public(), i, 0, "to Bob", &mut out),
            3 => encode_anon_request(&alice, bob.public(), i, b"pw", &mut out),
            _ => Ok(0),
        }
        .unwrap();
        packets.push(if n == 0 {
            unhex("5500")
        } else {
            out[..n].to_vec()
        });
    }
    let make = || {
        let mut d = Decoder::new();
        d.add_channel(ChannelKey::public());
        d.add_identity(LocalIdentity::from_private_key(bob.private_key().expose()).unwrap());
        d.add_peer(*alice.public());
        d
    };
    let refs: Vec<&[u8]> = packets.iter().map(Vec::as_slice).collect();
    let mut one = make();
    let want: Vec<_> = refs.iter().map(|p| one.decode(0, p)).collect();
    for threads in [1, 2, 4] {
        let got = make().decode_batch(&wireseal::batch::Batch::with_threads(threads), 0, &refs);
        assert_eq!(got, want, "{threads} threads");
    }
    assert!(want.iter().filter(|r| r.is_err()).count() == 60);
}
