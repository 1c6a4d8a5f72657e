//! MeshCore against the published packets and keys (`vectors/meshcore/`,
//! each value re-derived by `interop/meshcore/check_vectors.py` with
//! Python's `cryptography` and plain integers): every real packet decoded
//! field by field, every key pair and shared secret, the builders byte for
//! byte, every malformed packet refused with the firmware's reason, and
//! every 2-byte MAC collision left undecrypted.

use crate::common::{load_json, unhex};
use serde_json::Value;
use wireseal::meshcore::*;

fn channel(v: &Value, name: &str) -> ChannelKey {
    ChannelKey::from_bytes(&unhex(v["keys"]["channels"][name]["key"].as_str().unwrap())).unwrap()
}

fn node(v: &Value, name: &str) -> LocalIdentity {
    LocalIdentity::from_hex(v["keys"]["nodes"][name]["prv"].as_str().unwrap()).unwrap()
}

/// A decoder with every channel and node of `vectors.json`, each node both
/// ours and a known peer.
fn decoder(v: &Value) -> (Decoder, Vec<String>) {
    let mut d = Decoder::new();
    let mut names = Vec::new();
    for name in v["keys"]["channels"].as_object().unwrap().keys() {
        d.add_channel(channel(v, name));
        names.push(name.clone());
    }
    for name in v["keys"]["nodes"].as_object().unwrap().keys() {
        let id = node(v, name);
        d.add_peer(*id.public());
        d.add_identity(id);
    }
    (d, names)
}

fn hops(d: &Decoded) -> Vec<String> {
    d.hops().map(hex::encode).collect()
}

fn check_header(name: &str, d: &Decoded, e: &Value) {
    assert_eq!(
        d.route.as_str(),
        e["route"].as_str().unwrap().to_lowercase(),
        "{name}"
    );
    assert_eq!(
        d.payload_type.as_str(),
        e["type"].as_str().unwrap().to_lowercase(),
        "{name}"
    );
    assert_eq!(
        hex::encode(d.hash),
        e["packet_hash"].as_str().unwrap(),
        "{name}"
    );
    assert_eq!(
        d.payload_len,
        e["payload_len"].as_u64().unwrap() as usize,
        "{name}"
    );
    assert_eq!(
        d.path_hash_size,
        e["path_hash_size"].as_u64().unwrap() as usize,
        "{name}"
    );
    let want: Vec<String> = serde_json::from_value(e["path"].clone()).unwrap();
    assert_eq!(hops(d), want, "{name}");
    let codes = e["transport_codes"]
        .as_array()
        .map(|c| [c[0].as_u64().unwrap() as u16, c[1].as_u64().unwrap() as u16]);
    assert_eq!(d.transport_codes, codes, "{name}");
}

fn check_advert(name: &str, a: &Advert, e: &Value) {
    assert_eq!(
        hex::encode(a.public_key),
        e["pub"].as_str().unwrap(),
        "{name}"
    );
    assert_eq!(
        u64::from(a.timestamp),
        e["timestamp"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(
        a.signature_valid,
        e["signature_valid"].as_bool().unwrap(),
        "{name}"
    );
    let f = a.data.as_ref().expect("app data");
    assert_eq!(
        u64::from(f.node_type.bits()),
        e["node_type"].as_u64().unwrap(),
        "{name}"
    );
    let loc = e.get("lat_e6").map(|lat| {
        (
            lat.as_i64().unwrap() as i32,
            e["lon_e6"].as_i64().unwrap() as i32,
        )
    });
    assert_eq!(f.location, loc, "{name}");
    assert_eq!(
        f.name.as_deref(),
        e.get("name").and_then(Value::as_str),
        "{name}"
    );
}

fn check_text(name: &str, m: &Message, e: &Value) {
    assert_eq!(
        u64::from(m.timestamp),
        e["timestamp"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(m.text, e["text"].as_str().unwrap(), "{name}");
}

#[test]
fn every_published_packet() {
    let v = load_json("meshcore/vectors.json");
    let (mut dec, channels) = decoder(&v);
    let mut opened = 0;
    for p in v["packets"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let e = &p["expect"];
        let d = dec
            .decode(0, &unhex(p["hex"].as_str().unwrap()))
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        check_header(name, &d, e);
        match &d.body {
            Body::Advert(a) => check_advert(name, a, &e["advert"]),
            Body::Group(g) => {
                let g_want = &e["group"];
                assert_eq!(
                    u64::from(g.channel_hash),
                    g_want["channel_hash"].as_u64().unwrap()
                );
                match (&g.opened, g_want.get("decrypted")) {
                    (Some(o), Some(want)) => {
                        assert_eq!(
                            channels[o.channel],
                            g_want["channel"].as_str().unwrap(),
                            "{name}"
                        );
                        let GroupContent::Text(m) = &o.content else {
                            panic!("{name}")
                        };
                        check_text(name, m, want);
                        opened += 1;
                    }
                    (None, None) => {}
                    (got, want) => panic!("{name}: opened {got:?}, expected {want:?}"),
                }
            }
            Body::Peer(peer) => {
                let want = &e["peer"];
                assert_eq!(
                    u64::from(peer.dest_hash),
                    want["dest_hash"].as_u64().unwrap()
                );
                assert_eq!(u64::from(peer.src_hash), want["src_hash"].as_u64().unwrap());
                match (&peer.opened, want.get("decrypted")) {
                    (Some(o), Some(text)) => {
                        let from = node(&v, want["sender"].as_str().unwrap());
                        assert_eq!(&o.from, from.public().as_bytes(), "{name}");
                        let PeerContent::Text(m) = &o.content else {
                            panic!("{name}")
                        };
                        check_text(name, m, text);
                        opened += 1;
                    }
                    (None, None) => {}
                    (got, want) => panic!("{name}: opened {got:?}, expected {want:?}"),
                }
            }
            Body::Ack(c) => {
                assert_eq!(
                    hex::encode(c.to_le_bytes()),
                    e["ack"]["crc"].as_str().unwrap(),
                    "{name}"
                )
            }
            _ => {}
        }
        if let Some(r) = e.get("region") {
            let key = RegionKey::from_name(r["name"].as_str().unwrap()).unwrap();
            let payload = unhex(e["payload"].as_str().unwrap());
            assert_eq!(
                u64::from(key.code(d.payload_type, &payload)),
                r["transport_code"].as_u64().unwrap(),
                "{name}"
            );
        }
    }
    assert_eq!(opened, 5, "four group texts and the real direct message");
}

#[test]
fn every_key_pair_and_shared_secret() {
    let v = load_json("meshcore/vectors.json");
    for (name, n) in v["keys"]["nodes"].as_object().unwrap() {
        let id = node(&v, name);
        assert_eq!(
            hex::encode(id.public().as_bytes()),
            n["pub"].as_str().unwrap(),
            "{name}"
        );
    }
    for s in v["keys"]["shared_secrets"].as_array().unwrap() {
        let a = node(&v, s["a"].as_str().unwrap());
        let b = node(&v, s["b"].as_str().unwrap());
        let want = s["shared_secret"].as_str().unwrap();
        assert_eq!(
            hex::encode(a.shared_secret(b.public()).unwrap().expose()),
            want
        );
        assert_eq!(
            hex::encode(b.shared_secret(a.public()).unwrap().expose()),
            want
        );
    }
    for (name, c) in v["keys"]["channels"].as_object().unwrap() {
        assert_eq!(
            u64::from(channel(&v, name).hash()),
            c["hash"].as_u64().unwrap(),
            "{name}"
        );
        if name.starts_with('#') {
            assert_eq!(
                u64::from(ChannelKey::hashtag(name).unwrap().hash()),
                c["hash"].as_u64().unwrap()
            );
        }
    }
}

/// The packets built from the firmware's algorithms with fixed inputs
/// (also what pymc-core 1.0.12 builds): ours, byte for byte.
#[test]
fn the_builders_match_the_firmware() {
    let v = load_json("meshcore/vectors.json");
    let mut out = [0u8; 255];
    for p in v["derived_not_from_sources"]["packets"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let i = &p["inputs"];
        let ts = i["timestamp"].as_u64().unwrap() as u32;
        let n = if name.starts_with("built-advert") {
            let advert = AdvertOut {
                node_type: NodeType::from_bits(i["node_type"].as_u64().unwrap() as u8),
                location: Some((i["lat"].as_f64().unwrap(), i["lon"].as_f64().unwrap())),
                name: i["name"].as_str().unwrap(),
            };
            encode_advert(&node(&v, i["key"].as_str().unwrap()), ts, &advert, &mut out)
        } else if name.starts_with("built-grp") {
            let text = format!(
                "{}: {}",
                i["sender"].as_str().unwrap(),
                i["text"].as_str().unwrap()
            );
            channel(&v, i["channel"].as_str().unwrap()).encode_group_text(ts, &text, &mut out)
        } else {
            let from = node(&v, i["sender"].as_str().unwrap());
            let to = node(&v, i["receiver"].as_str().unwrap());
            let attempt = i["attempt"].as_u64().unwrap() as u8;
            encode_text_message(
                &from,
                to.public(),
                ts,
                attempt,
                i["text"].as_str().unwrap(),
                &mut out,
            )
        }
        .unwrap();
        assert_eq!(hex::encode(&out[..n]), p["hex"].as_str().unwrap(), "{name}");
    }
}

#[test]
fn every_malformed_packet_is_refused_with_the_firmwares_reason() {
    let m = load_json("meshcore/malformed.json");
    let mut dec = Decoder::new();
    for p in m["packets"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let raw = unhex(p["hex"].as_str().unwrap());
        let e = Packet::parse(&raw).expect_err(name);
        assert_eq!(e.reason(), p["error"].as_str().unwrap(), "{name}: {e}");
        assert_eq!(dec.decode(0, &raw).unwrap_err(), e, "{name}");
    }
    for p in m["valid_boundaries"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let raw = unhex(p["hex"].as_str().unwrap());
        let f = &p["firmware"];
        let packet = Packet::parse(&raw).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            packet.payload_type.as_str(),
            f["type"].as_str().unwrap().to_lowercase(),
            "{name}"
        );
        assert_eq!(
            packet.path_len.hops() as u64,
            f["path_hops"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            packet.payload.len() as u64,
            f["payload_len"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            hex::encode(packet.hash()),
            f["packet_hash"].as_str().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn no_mac_collision_is_reported_decrypted() {
    let v = load_json("meshcore/vectors.json");
    let c = load_json("meshcore/mac_collisions.json");
    let b_key = |name: &str| channel(&v, name);
    let a_key = |name: &str| {
        ChannelKey::from_bytes(&unhex(c["keys"]["channels"][name]["key"].as_str().unwrap()))
            .unwrap()
    };
    let mut checked = 0;
    for set in c["group"].as_array().unwrap() {
        let b = set["key_b"].as_str().unwrap();
        for p in set["packets"].as_array().unwrap() {
            let raw = unhex(p["hex"].as_str().unwrap());
            let orders: Vec<Vec<ChannelKey>> = match p.get("key_a").and_then(Value::as_str) {
                None => vec![vec![b_key(b)]],
                Some(a) => vec![vec![b_key(b), a_key(a)], vec![a_key(a), b_key(b)]],
            };
            for keys in orders {
                let mut dec = Decoder::new();
                let a_index = keys
                    .iter()
                    .position(|k| k.hash() == raw[2] && p.get("key_a").is_some());
                for k in keys {
                    dec.add_channel(k);
                }
                let Body::Group(g) = dec.decode(0, &raw).unwrap().body else {
                    panic!()
                };
                match p.get("text_under_a") {
                    None => assert_eq!(g.opened, None, "{}", p["hex"]),
                    Some(text) => {
                        let o = g.opened.expect("the real key opens it");
                        let GroupContent::Text(m) = o.content else {
                            panic!()
                        };
                        assert_eq!(m.text, text.as_str().unwrap());
                        let _ = a_index;
                    }
                }
                checked += 1;
            }
        }
    }
    for p in c["txt_msg"].as_array().unwrap() {
        let raw = unhex(p["hex"].as_str().unwrap());
        let wrong = p["wrong_sender"].as_str().unwrap();
        let wrong_id = v["keys"]["nodes"]
            .get(wrong)
            .map(|_| node(&v, wrong))
            .unwrap_or_else(|| {
                LocalIdentity::from_hex(c["keys"]["nodes"][wrong]["prv"].as_str().unwrap()).unwrap()
            });
        for wrong_first in [true, false] {
            let mut dec = Decoder::new();
            dec.add_identity(node(&v, p["receiver"].as_str().unwrap()));
            let real = *node(&v, p["sender"].as_str().unwrap()).public();
            if wrong_first {
                dec.add_peer(*wrong_id.public());
                dec.add_peer(real);
            } else {
                dec.add_peer(real);
                dec.add_peer(*wrong_id.public());
            }
            let Body::Peer(peer) = dec.decode(0, &raw).unwrap().body else {
                panic!()
            };
            let o = peer.opened.expect("the real sender opens it");
            assert_eq!(o.from, *real.as_bytes());
            let PeerContent::Text(m) = o.content else {
                panic!()
            };
            assert_eq!(m.text, p["text"].as_str().unwrap());
            checked += 1;
        }
    }
    assert!(checked >= 200, "{checked}");
}
