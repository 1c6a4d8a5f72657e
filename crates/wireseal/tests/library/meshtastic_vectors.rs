//! Every vector in vectors/meshtastic/vectors.json (the firmware's crypto
//! unit test, plus the block derived from the firmware's algorithm).

use crate::common;

use common::{arr32, hx};
use serde_json::Value;
use wireseal::hazmat::{aes_ctr, sha::sha256, x25519::StaticSecret};
use wireseal::meshtastic::{pkc, ChannelKey, PacketHeader, PkcEngine, PkcPacket};

/// The packet description of a direct message to or from `peer`.
fn pkt(peer: &[u8; 32], from: u32, id: u32) -> PkcPacket<'_> {
    PkcPacket {
        peer_public: peer,
        from,
        id,
    }
}

fn load() -> Value {
    common::load_json("meshtastic/vectors.json")
}

fn num(s: &str) -> u32 {
    match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

#[test]
fn every_firmware_vector() {
    let doc = load();
    let vectors = doc["vectors"].as_array().unwrap();
    assert_eq!(
        vectors.len(),
        14,
        "the file's vector count changed: review this harness"
    );
    let mut ran = 0;
    for v in vectors {
        let id = v["id"].as_str().unwrap();
        match v["kind"].as_str().unwrap() {
            "sha256" => assert_eq!(
                sha256(&hx(v, "input_hex")).to_vec(),
                hx(v, "expected_hex"),
                "{id}"
            ),
            "aes256_ecb_block" => {
                // One AES block = the CTR keystream for a counter block equal to the input.
                let iv: [u8; 16] = hx(v, "plaintext_hex").try_into().unwrap();
                let mut out = [0u8; 16];
                assert!(aes_ctr::apply_keystream(&hx(v, "key_hex"), &iv, &mut out));
                assert_eq!(out.to_vec(), hx(v, "expected_ciphertext_hex"), "{id}");
            }
            "x25519_raw" => {
                let k = StaticSecret::from_bytes(&arr32(v, "private_key_hex")).unwrap();
                let s = k.diffie_hellman(&arr32(v, "public_key_hex")).unwrap();
                assert_eq!(
                    s.expose().to_vec(),
                    hx(v, "expected_shared_raw_hex"),
                    "{id}"
                );
            }
            "x25519_reject" => {
                assert_eq!(v["expect_success"], false);
                let k = StaticSecret::from_bytes(&arr32(v, "private_key_hex")).unwrap();
                assert!(
                    k.diffie_hellman(&arr32(v, "public_key_hex")).is_err(),
                    "{id}"
                );
                // The PKC path refuses it too.
                let mut e = PkcEngine::new(k).unwrap();
                let r = e.seal_to_vec(
                    0,
                    PkcPacket {
                        peer_public: &arr32(v, "public_key_hex"),
                        from: 1,
                        id: 1,
                    },
                    b"x",
                );
                assert_eq!(r.unwrap_err(), wireseal::meshtastic::Error::InvalidKey);
            }
            "x25519_then_sha256" => {
                let k = StaticSecret::from_bytes(&arr32(v, "private_key_hex")).unwrap();
                let s = k.diffie_hellman(&arr32(v, "public_key_hex")).unwrap();
                assert_eq!(
                    sha256(s.expose()).to_vec(),
                    hx(v, "expected_sha256_of_shared_hex"),
                    "{id}"
                );
            }
            "aes_ctr" => {
                let key = hx(v, "key_hex");
                assert_eq!(key.len() as u64, v["key_length"].as_u64().unwrap());
                let iv: [u8; 16] = hx(v, "counter_block_hex").try_into().unwrap();
                let mut buf = hx(v, "plaintext_hex");
                assert_eq!(buf, v["plaintext_ascii"].as_str().unwrap().as_bytes());
                assert!(aes_ctr::apply_keystream(&key, &iv, &mut buf));
                assert_eq!(buf, hx(v, "expected_ciphertext_hex"), "{id}");
            }
            "pkc_decrypt" => pkc_radio_frame(v),
            "pkc_roundtrip_property" => pkc_roundtrip(vectors, v),
            other => panic!("unknown vector kind {other} ({id})"),
        }
        ran += 1;
    }
    assert_eq!(ran, vectors.len());
}

fn pkc_radio_frame(v: &Value) {
    let frame = hx(v, "radio_frame_hex");
    let off = v["pkc_payload_offset"].as_u64().unwrap() as usize;
    let len = v["pkc_payload_len"].as_u64().unwrap() as usize;
    let (h, payload) = PacketHeader::parse(&frame).unwrap();
    assert_eq!(off, 16);
    assert_eq!(payload.len(), len);
    let from = v["from_node"].as_u64().unwrap() as u32;
    let id = v["packet_id"].as_u64().unwrap() as u32;
    assert_eq!((h.from, h.id), (from, id));
    let extra: [u8; 4] = payload[len - 4..].try_into().unwrap();
    assert_eq!(
        pkc::nonce(from, id, extra).to_vec(),
        hx(v, "expected_ccm_nonce_hex")
    );
    let own = StaticSecret::from_bytes(&arr32(v, "our_private_key_hex")).unwrap();
    let peer = arr32(v, "sender_public_key_hex");
    let shared = sha256(own.diffie_hellman(&peer).unwrap().expose());
    assert_eq!(
        shared[..8].to_vec(),
        hx(v, "expected_shared_key_prefix_hex")
    );
    let mut e = PkcEngine::new(own).unwrap();
    let pt = e.open_to_vec(0, pkt(&peer, from, id), payload).unwrap();
    assert_eq!(pt, hx(v, "expected_plaintext_hex"));
    // A second open is served by the cache and gives the same plaintext.
    assert_eq!(e.open_to_vec(1, pkt(&peer, from, id), payload).unwrap(), pt);
    assert_eq!(e.cache().stats().hits, 1);
}

fn pkc_roundtrip(all: &[Value], v: &Value) {
    let base = all
        .iter()
        .find(|x| x["id"] == v["uses_vector"])
        .expect("referenced vector");
    let own = StaticSecret::from_bytes(&arr32(base, "our_private_key_hex")).unwrap();
    let peer = arr32(base, "sender_public_key_hex");
    let pt = hx(base, "expected_plaintext_hex");
    let (from, id) = (0x0929, 0x13b2_d662);
    let mut e = PkcEngine::new(own).unwrap();
    let a = e.seal_to_vec(0, pkt(&peer, from, id), &pt).unwrap();
    let b = e.seal_to_vec(0, pkt(&peer, from, id), &pt).unwrap();
    assert_eq!(a.len(), 22);
    assert_ne!(a, b, "the extraNonce must be fresh random per packet");
    assert_eq!(e.open_to_vec(0, pkt(&peer, from, id), &a).unwrap(), pt);
    assert_eq!(e.open_to_vec(0, pkt(&peer, from, id), &b).unwrap(), pt);
}

#[test]
fn derived_header_and_channel_vectors() {
    let doc = load();
    let d = &doc["derived_not_from_firmware_file"];
    // Header of the PKC radio frame.
    let hv = &d["pkc-decrypt-radio-frame"]["header"];
    let frame =
        hex::decode("8c646d7a2909000062d6b2136b00000040df24abfcc30a17a3d9046726099e796a1c036a792b")
            .unwrap();
    let (h, _) = PacketHeader::parse(&frame).unwrap();
    assert_eq!(h.to, num(hv["to"].as_str().unwrap()));
    assert_eq!(h.from, num(hv["from"].as_str().unwrap()));
    assert_eq!(h.id, num(hv["id"].as_str().unwrap()));
    let fd = &hv["flags_decoded"];
    assert_eq!(u64::from(h.hop_limit), fd["hop_limit"].as_u64().unwrap());
    assert_eq!(h.want_ack, fd["want_ack"].as_bool().unwrap());
    assert_eq!(h.via_mqtt, fd["via_mqtt"].as_bool().unwrap());
    assert_eq!(u64::from(h.hop_start), fd["hop_start"].as_u64().unwrap());
    assert_eq!(
        u32::from(h.flags().unwrap()),
        num(hv["flags"].as_str().unwrap())
    );
    assert_eq!(h.to_bytes().unwrap().to_vec(), frame[..16].to_vec());

    // The channel example: expansion, counter block, ciphertext, hash, whole frame.
    let c = &d["channel_aes_ctr_example"];
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = ChannelKey::from_psk(&b64.decode(c["psk_base64_short"].as_str().unwrap()).unwrap())
        .unwrap();
    assert_eq!(key.expanded().to_vec(), hx(c, "psk_expanded_hex"));
    assert_eq!(
        b64.encode(key.expanded()),
        c["psk_expanded_base64"].as_str().unwrap()
    );
    let from = num(c["from_node"].as_str().unwrap());
    let id = num(c["packet_id"].as_str().unwrap());
    assert_eq!(
        wireseal::meshtastic::channel::counter_block(from, id).to_vec(),
        hx(c, "nonce16_hex")
    );
    let mut buf = hx(c, "plaintext_hex");
    key.open_in_place(from, id, &mut buf).unwrap();
    assert_eq!(buf, hx(c, "ciphertext_hex"));
    let hash = key.hash(c["channel_name"].as_str().unwrap());
    assert_eq!(u32::from(hash), num(c["channel_hash"].as_str().unwrap()));
    let header = PacketHeader {
        to: 0xffff_ffff,
        from,
        id,
        hop_limit: 3,
        want_ack: false,
        via_mqtt: false,
        hop_start: 3,
        channel: hash,
        next_hop: 0,
        relay_node: 0,
    };
    let want = c["full_radio_frame_hex (to=0xffffffff, flags=0x63, next_hop=0, relay=0)"]
        .as_str()
        .unwrap();
    assert_eq!(hex::encode(header.frame(&buf).unwrap()), want);
    key.open_in_place(from, id, &mut buf).unwrap();
    assert_eq!(buf, hx(c, "plaintext_hex"));

    // The channel hash of every modem preset's name with the default key.
    let table = d["channel_hash_table_default_psk"].as_object().unwrap();
    assert!(table.len() >= 17);
    let default = ChannelKey::from_psk(&[1]).unwrap();
    for (name, want) in table {
        assert_eq!(
            u32::from(default.hash(name)),
            num(want.as_str().unwrap()),
            "{name}"
        );
    }

    // Short PSK index expansion.
    for (label, want) in d["short_psk_index_expansion"].as_object().unwrap() {
        let b64s = label.split_whitespace().next().unwrap();
        let k = ChannelKey::from_psk(&b64.decode(b64s).unwrap()).unwrap();
        match hex::decode(want.as_str().unwrap()) {
            Ok(bytes) => assert_eq!(k.expanded().to_vec(), bytes, "{label}"),
            Err(_) => assert!(!k.is_encrypted(), "{label}: {want}"),
        }
    }
}

/// The firmware vector with the given id.
fn vector<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("vector {id}"))
}

#[test]
fn derived_pkc_values_and_public_keys() {
    let doc = load();
    let d = &doc["derived_not_from_firmware_file"];
    let v = vector(&doc, "pkc-decrypt-radio-frame");
    let dv = &d["pkc-decrypt-radio-frame"];
    let own = StaticSecret::from_bytes(&arr32(v, "our_private_key_hex")).unwrap();
    let peer = arr32(v, "sender_public_key_hex");
    assert_eq!(
        own.public_key().to_vec(),
        hx(
            dv,
            "our_public_key_hex (X25519 base-point mult of our_private_key)"
        )
    );
    let raw = own.diffie_hellman(&peer).unwrap();
    assert_eq!(raw.expose().to_vec(), hx(dv, "x25519_raw_shared_hex"));
    assert_eq!(
        sha256(raw.expose()).to_vec(),
        hx(dv, "aes256_ccm_key_sha256_hex")
    );
    // The payload splits into ciphertext | tag(8) | extraNonce(4).
    let frame = hx(v, "radio_frame_hex");
    let payload = &frame[16..];
    let (ct, rest) = payload.split_at(payload.len() - pkc::OVERHEAD);
    assert_eq!(ct.to_vec(), hx(dv, "ciphertext_hex"));
    assert_eq!(rest[..8].to_vec(), hx(dv, "ccm_tag_hex"));
    assert_eq!(rest[8..].to_vec(), hx(dv, "extra_nonce_bytes_hex"));
    assert_eq!(
        u32::from_le_bytes(rest[8..].try_into().unwrap()),
        num(dv["extra_nonce_uint32_le"].as_str().unwrap())
    );

    // The raw X25519 output behind the x25519-4-sha256 vector.
    let v4 = vector(&doc, "x25519-4-sha256");
    let k4 = StaticSecret::from_bytes(&arr32(v4, "private_key_hex")).unwrap();
    let raw4 = k4.diffie_hellman(&arr32(v4, "public_key_hex")).unwrap();
    assert_eq!(
        raw4.expose().to_vec(),
        hx(&d["x25519-4-sha256"], "x25519_raw_shared_hex")
    );

    // The public key of every private key in the firmware's tests, named by
    // the first 4 bytes of the private key.
    let privates: Vec<Vec<u8>> = doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|v| ["private_key_hex", "our_private_key_hex"].map(|k| v[k].as_str()))
        .flatten()
        .map(|h| hex::decode(h).unwrap())
        .collect();
    let table = d["public_keys_of_test_private_keys"].as_object().unwrap();
    assert_eq!(table.len(), 5);
    for (prefix, public) in table {
        let sk = privates
            .iter()
            .find(|k| hex::encode(&k[..4]) == *prefix)
            .unwrap_or_else(|| panic!("no private key starts with {prefix}"));
        let k = StaticSecret::from_bytes(&sk[..].try_into().unwrap()).unwrap();
        assert_eq!(
            hex::encode(k.public_key()),
            public.as_str().unwrap(),
            "{prefix}"
        );
    }
}

/// The firmware proposal (PR 6560) keyed its cache by the first 4 bytes of
/// the peer key read as a little-endian u32. Keys that share that prefix (or
/// even 31 bytes) with a cached sender must not be served its secret.
#[test]
fn forged_keys_sharing_a_prefix_miss_the_cache() {
    let doc = load();
    let v = vector(&doc, "pkc-decrypt-radio-frame");
    let own = StaticSecret::from_bytes(&arr32(v, "our_private_key_hex")).unwrap();
    // The proposal's lookup key for our public key, as the vector records it.
    assert_eq!(
        u32::from_le_bytes(own.public_key()[..4].try_into().unwrap()),
        num(doc["derived_not_from_firmware_file"]["x25519-4-sha256"]
            ["pr6560_cache_lookup_key_uint32"]
            .as_str()
            .unwrap())
    );
    let peer = arr32(v, "sender_public_key_hex");
    let (from, id) = (
        v["from_node"].as_u64().unwrap() as u32,
        v["packet_id"].as_u64().unwrap() as u32,
    );
    let frame = hx(v, "radio_frame_hex");
    let payload = &frame[16..];
    let mut e = PkcEngine::new(own).unwrap();
    assert!(e.open_to_vec(0, pkt(&peer, from, id), payload).is_ok());
    for shared in [4usize, 31] {
        let mut forged = peer;
        forged[shared] ^= 0x01;
        forged[31] ^= 0x02;
        let r = e.open_to_vec(0, pkt(&forged, from, id), payload);
        assert!(
            matches!(r, Err(pkc_err) if pkc_err == wireseal::meshtastic::Error::Auth
                || pkc_err == wireseal::meshtastic::Error::InvalidKey),
            "a key sharing {shared} bytes opened the genuine payload: {r:?}"
        );
    }
    let s = e.cache().stats();
    assert_eq!((s.hits, s.misses), (0, 3), "every forged key missed");
    // The genuine sender is still served from the cache.
    assert!(e.open_to_vec(0, pkt(&peer, from, id), payload).is_ok());
    assert_eq!(e.cache().stats().hits, 1);
}
