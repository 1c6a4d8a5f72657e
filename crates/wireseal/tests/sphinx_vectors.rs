//! Every BOLT #4 test vector (lightning/bolts, folder bolt04): every field of
//! every file is checked; expected values come from the JSON only (the `tlvs`
//! objects through test-side encoders written from the specification).

use serde_json::Value;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{
    bigsize, blinding, build, failure, keys, tlv, Hop, HopSecrets, Onion, Padding, Peeled,
    PAYMENT_AREA,
};

fn load(name: &str) -> Value {
    let p = format!("{}/../../vectors/bolt04/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).unwrap()
}

fn key(v: &Value) -> PrivateKey {
    PrivateKey::from_bytes(&h(v)[..32].try_into().unwrap()).unwrap()
}

fn pk(v: &Value) -> PublicKey {
    PublicKey::from_slice(&h(v)).unwrap()
}

/// Strips the BigSize length prefix the vectors include in each payload.
fn strip(payload: &[u8]) -> Vec<u8> {
    let (len, p) = bigsize::read(payload).unwrap();
    assert_eq!(p + len as usize, payload.len());
    payload[p..].to_vec()
}

fn hops_of(list: &Value) -> Vec<(PublicKey, Vec<u8>)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| (pk(&x["pubkey"]), strip(&h(&x["payload"]))))
        .collect()
}

fn build_det(
    session: &PrivateKey,
    hops: &[(PublicKey, Vec<u8>)],
    ad: &[u8],
) -> (Onion, HopSecrets) {
    let hs: Vec<Hop> = hops
        .iter()
        .map(|(p, d)| Hop {
            pubkey: *p,
            payload: d,
        })
        .collect();
    build(session, &hs, ad, PAYMENT_AREA, Padding::Deterministic).unwrap()
}

#[test]
fn onion_test_build_and_peel_every_hop() {
    let v = load("onion-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let ad = h(&g["associated_data"]);
    let hops = hops_of(&g["hops"]);
    let expected = h(&v["onion"]);
    let (onion, _) = build_det(&session, &hops, &ad);
    assert_eq!(hex::encode(onion.to_bytes()), hex::encode(&expected));

    // build_into writes the same bytes.
    let hs: Vec<Hop> = hops
        .iter()
        .map(|(p, d)| Hop {
            pubkey: *p,
            payload: d,
        })
        .collect();
    let mut buf = vec![0u8; 1400];
    let (n, _) = wireseal::sphinx::build_into(
        &session,
        &hs,
        &ad,
        PAYMENT_AREA,
        Padding::Deterministic,
        &mut buf,
    )
    .unwrap();
    assert_eq!(&buf[..n], &expected[..]);

    // Peel with each node key from "decode", in order.
    let keys_ = v["decode"].as_array().unwrap();
    assert_eq!(keys_.len(), hops.len());
    let mut cur = Onion::parse(&expected).unwrap();
    for (i, k) in keys_.iter().enumerate() {
        let node = key(k);
        assert_eq!(node.public_key(), hops[i].0);
        match cur.peel(&node, &ad).unwrap() {
            Peeled::Forward { payload, next, .. } => {
                assert!(i + 1 < hops.len());
                assert_eq!(payload, hops[i].1);
                cur = next;
            }
            Peeled::Final { payload, .. } => {
                assert_eq!(i + 1, hops.len());
                assert_eq!(payload, hops[i].1);
                return;
            }
        }
    }
    panic!("no final hop");
}

#[test]
fn onion_error_test() {
    let v = load("onion-error-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let hops = g["hops"].as_array().unwrap();
    let pubs: Vec<PublicKey> = hops.iter().map(|x| pk(&x["pubkey"])).collect();
    let (_, secrets) = keys::session_secrets(&session, pubs.iter().copied()).unwrap();
    for (i, x) in hops.iter().enumerate() {
        // Only version-0 packets exist (and are all this library speaks).
        assert_eq!(x["version"], 0);
        let ss = secrets.get(i).unwrap();
        assert_eq!(ss.expose().to_vec(), h(&x["hop_shared_secret"]), "hop {i}");
        assert_eq!(
            keys::derive(keys::KeyKind::Ammag, ss.expose())
                .expose()
                .to_vec(),
            h(&x["ammag_key"])
        );
        if let Some(um) = x.get("um_key") {
            assert_eq!(
                keys::derive(keys::KeyKind::Um, ss.expose())
                    .expose()
                    .to_vec(),
                h(um)
            );
        }
    }
    // The quadratic derivation agrees.
    let (_, q) = keys::session_secrets_quadratic(&session, &pubs).unwrap();
    for i in 0..pubs.len() {
        assert_eq!(q.get(i).unwrap().expose(), secrets.get(i).unwrap().expose());
    }
    // The last hop fails; its plaintext payload (after the HMAC) is in the vector.
    let msg = h(&g["failure_message"]);
    let last = hops.len() - 1;
    let mut packet = failure::create(secrets.get(last).unwrap(), &msg).unwrap();
    assert_eq!(packet.len(), failure::failure_len(msg.len()));
    let mut plain = packet.clone();
    failure::wrap(secrets.get(last).unwrap(), &mut plain);
    assert_eq!(
        hex::encode(&plain[32..]),
        hops[last]["payload"].as_str().unwrap()
    );
    for i in (0..last).rev() {
        failure::wrap(secrets.get(i).unwrap(), &mut packet);
    }
    assert_eq!(hex::encode(&packet), v["errorpacket"].as_str().unwrap());
    let f = failure::unwrap(&secrets, &h(&v["errorpacket"])).unwrap();
    assert_eq!(f.hop, last);
    assert_eq!(f.message, msg);
    // Tampering makes it unattributable.
    let mut bad = h(&v["errorpacket"]);
    bad[100] ^= 1;
    assert_eq!(
        failure::unwrap(&secrets, &bad),
        Err(wireseal::sphinx::SphinxError::UnattributableFailure)
    );
}

// ---- Test-side encoders, written from BOLT #4 / BOLT #1 (not from the
// library), so the vectors' `tlvs` objects can be compared with their bytes.

/// BigSize (BOLT #1).
fn bigsize_enc(v: u64) -> Vec<u8> {
    match v {
        0..=0xfc => vec![v as u8],
        0xfd..=0xffff => [&[0xfd][..], &(v as u16).to_be_bytes()].concat(),
        0x1_0000..=0xffff_ffff => [&[0xfe][..], &(v as u32).to_be_bytes()].concat(),
        _ => [&[0xff][..], &v.to_be_bytes()].concat(),
    }
}

/// Truncated unsigned integer (tu16/tu32/tu64): big-endian, no leading zeros.
fn tu(v: u64) -> Vec<u8> {
    let b = v.to_be_bytes();
    b[b.iter().position(|x| *x != 0).unwrap_or(8)..].to_vec()
}

fn num(v: &Value) -> u64 {
    v.as_u64().expect("number")
}

/// `short_channel_id` written as "BLOCKxTXxOUTPUT": 3 + 3 + 2 bytes.
fn scid(v: &Value) -> Vec<u8> {
    let p: Vec<u64> = v
        .as_str()
        .unwrap()
        .split('x')
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(p.len(), 3);
    [
        &p[0].to_be_bytes()[5..],
        &p[1].to_be_bytes()[5..],
        &p[2].to_be_bytes()[6..],
    ]
    .concat()
}

/// A TLV stream from records (sorted by type, as the encoding requires).
fn tlv_stream(mut recs: Vec<(u64, Vec<u8>)>) -> Vec<u8> {
    recs.sort_by_key(|r| r.0);
    let mut out = Vec::new();
    for (t, v) in recs {
        out.extend(bigsize_enc(t));
        out.extend(bigsize_enc(v.len() as u64));
        out.extend(v);
    }
    out
}

/// `unknown_tag_N` fields carry their type in the name.
fn unknown_tag(name: &str) -> Option<u64> {
    name.strip_prefix("unknown_tag_")
        .map(|n| n.parse().unwrap())
}

/// The `encrypted_data_tlv` / `encoded_tlvs` bytes described by a vector's
/// `tlvs` object (route blinding's `encrypted_recipient_data` TLVs). Every
/// field must be known: an unexpected one fails the test.
fn recipient_data(tlvs: &Value) -> Vec<u8> {
    let mut recs = Vec::new();
    for (name, v) in tlvs.as_object().unwrap() {
        let rec = match name.as_str() {
            "padding" => (1, h(v)),
            "short_channel_id" => (2, scid(v)),
            "next_node_id" => (4, h(v)),
            "path_id" => (6, h(v)),
            "next_path_key_override" => (8, h(v)),
            // u16 cltv_expiry_delta, u32 fee_proportional_millionths, tu32 fee_base_msat
            "payment_relay" => (
                10,
                [
                    &(num(&v["cltv_expiry_delta"]) as u16).to_be_bytes()[..],
                    &(num(&v["fee_proportional_millionths"]) as u32).to_be_bytes(),
                    &tu(v.get("fee_base_msat").map_or(0, num)),
                ]
                .concat(),
            ),
            // u32 max_cltv_expiry, tu64 htlc_minimum_msat
            "payment_constraints" => (
                12,
                [
                    &(num(&v["max_cltv_expiry"]) as u32).to_be_bytes()[..],
                    &tu(num(&v["htlc_minimum_msat"])),
                ]
                .concat(),
            ),
            // Feature bits, big-endian bit field (bit 0 = lowest bit of the last byte).
            "allowed_features" => {
                let bits: Vec<u64> = v["features"].as_array().unwrap().iter().map(num).collect();
                let len = bits.iter().max().map_or(0, |m| *m as usize / 8 + 1);
                let mut f = vec![0u8; len];
                for b in bits {
                    f[len - 1 - b as usize / 8] |= 1 << (b % 8);
                }
                (14, f)
            }
            // The creator's secret for the override: not part of the encoding.
            "path_key_override_secret" => continue,
            n => (
                unknown_tag(n).unwrap_or_else(|| panic!("unknown field {n}")),
                h(v),
            ),
        };
        recs.push(rec);
    }
    tlv_stream(recs)
}

/// A payment onion hop payload (without its length prefix) described by a
/// vector's `tlvs` object; `erd` is the sealed `encrypted_recipient_data`
/// (the object gives its plaintext).
fn payment_payload(tlvs: &Value, erd: Option<&[u8]>) -> Vec<u8> {
    let mut recs = Vec::new();
    for (name, v) in tlvs.as_object().unwrap() {
        recs.push(match name.as_str() {
            "amt_to_forward" => (2, tu(num(v))),
            "outgoing_cltv_value" => (4, tu(num(v))),
            "outgoing_channel_id" => (6, scid(v)),
            "encrypted_recipient_data" => (10, erd.expect("sealed data").to_vec()),
            "current_path_key" => (12, h(v)),
            "total_amount_msat" => (18, tu(num(v))),
            n => panic!("unknown field {n}"),
        });
    }
    tlv_stream(recs)
}

#[test]
fn test_side_encoders_match_known_bytes() {
    // Values from BOLT #1 (BigSize) and the route-blinding vector's Bob.
    assert_eq!(bigsize_enc(0xfc), [0xfc]);
    assert_eq!(bigsize_enc(0xfd), [0xfd, 0x00, 0xfd]);
    assert_eq!(bigsize_enc(0x10000), [0xfe, 0x00, 0x01, 0x00, 0x00]);
    assert_eq!(tu(0), Vec::<u8>::new());
    assert_eq!(tu(0x0b69e5), [0x0b, 0x69, 0xe5]);
    assert_eq!(
        scid(&Value::from("0x0x1729")),
        [0, 0, 0, 0, 0, 0, 0x06, 0xc1]
    );
}

#[test]
fn route_blinding_test() {
    let v = load("route-blinding-test.json");
    let hops = v["generate"]["hops"].as_array().unwrap();
    let route = v["route"]["hops"].as_array().unwrap();
    assert_eq!(hops.len(), route.len());
    assert_eq!(pk(&v["route"]["first_path_key"]), pk(&hops[0]["path_key"]));
    assert_eq!(pk(&v["route"]["first_node_id"]), pk(&hops[0]["node_id"]));
    for (i, x) in hops.iter().enumerate() {
        // The TLVs as described match their encoding.
        assert_eq!(
            hex::encode(recipient_data(&x["tlvs"])),
            x["encoded_tlvs"].as_str().unwrap(),
            "hop {i}"
        );
        let e = key(&x["path_privkey"]);
        let node = pk(&x["node_id"]);
        let (hop, next) = blinding::blind_hop(e, &node, &h(&x["encoded_tlvs"])).unwrap();
        assert_eq!(hop.path_key, pk(&x["path_key"]), "hop {i}");
        assert_eq!(hop.shared_secret.expose().to_vec(), h(&x["shared_secret"]));
        assert_eq!(
            keys::derive(keys::KeyKind::Rho, hop.shared_secret.expose())
                .expose()
                .to_vec(),
            h(&x["rho"])
        );
        assert_eq!(hop.encrypted_data, h(&x["encrypted_data"]));
        assert_eq!(hop.blinded_node_id, pk(&x["blinded_node_id"]));
        assert_eq!(hop.blinded_node_id, pk(&route[i]["blinded_node_id"]));
        assert_eq!(hop.encrypted_data, h(&route[i]["encrypted_data"]));
        if let Some(nx) = hops.get(i + 1) {
            match x["tlvs"].get("next_path_key_override") {
                Some(o) => assert_eq!(pk(&nx["path_key"]), pk(o)),
                None => assert_eq!(next.to_secret().expose().to_vec(), h(&nx["path_privkey"])),
            }
        }
    }

    // The whole route with blind_path: it is two blinded paths joined, each
    // started by its creator's session_key (Bob: Bob -> Carol; Eve: Dave ->
    // Eve); Carol's next_path_key_override hands over to Eve's first path key.
    let starts: Vec<usize> = (0..hops.len())
        .filter(|i| hops[*i].get("session_key").is_some())
        .collect();
    assert_eq!(starts, [0, 2]);
    let mut joined = Vec::new();
    for (n, &s) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(hops.len());
        let seg = &hops[s..end];
        let session = key(&seg[0]["session_key"]);
        assert_eq!(h(&seg[0]["session_key"]), h(&seg[0]["path_privkey"]));
        let data: Vec<Vec<u8>> = seg.iter().map(|x| h(&x["encoded_tlvs"])).collect();
        let input: Vec<(PublicKey, &[u8])> = seg
            .iter()
            .zip(&data)
            .map(|(x, d)| (pk(&x["node_id"]), &d[..]))
            .collect();
        let path = blinding::blind_path(&session, &input).unwrap();
        assert_eq!(path.first_path_key, pk(&seg[0]["path_key"]));
        assert_eq!(path.hops.len(), seg.len());
        for (hop, x) in path.hops.iter().zip(seg) {
            assert_eq!(hop.path_key, pk(&x["path_key"]));
            assert_eq!(hop.shared_secret.expose().to_vec(), h(&x["shared_secret"]));
        }
        if n > 0 {
            // The previous segment's last hop points at this one.
            let o = &hops[s - 1]["tlvs"]["next_path_key_override"];
            assert_eq!(pk(o), path.first_path_key);
            assert_eq!(
                tlv::find(&h(&hops[s - 1]["encoded_tlvs"]), 8).unwrap(),
                Some(&path.first_path_key.serialize()[..])
            );
        }
        joined.extend(path.hops);
    }
    let first = &joined[0];
    assert_eq!(first.path_key, pk(&v["route"]["first_path_key"]));
    for (i, (hop, r)) in joined.iter().zip(route).enumerate() {
        assert_eq!(hop.blinded_node_id, pk(&r["blinded_node_id"]), "hop {i}");
        assert_eq!(hop.encrypted_data, h(&r["encrypted_data"]), "hop {i}");
    }

    let unblind = v["unblind"]["hops"].as_array().unwrap();
    assert_eq!(unblind.len(), hops.len());
    for (i, x) in unblind.iter().enumerate() {
        let node = key(&x["node_privkey"]);
        assert_eq!(node.public_key(), pk(&hops[i]["node_id"]), "hop {i}");
        assert_eq!(pk(&x["path_key"]), pk(&hops[i]["path_key"]));
        let u = blinding::unblind(&node, &pk(&x["path_key"])).unwrap();
        assert_eq!(
            u.blinded_privkey().to_secret().expose().to_vec(),
            h(&x["blinded_privkey"])
        );
        assert_eq!(
            u.blinded_privkey().public_key(),
            pk(&route[i]["blinded_node_id"])
        );
        let data = u.decrypt(&h(&route[i]["encrypted_data"])).unwrap();
        assert_eq!(data, h(&x["decrypted_data"]));
        assert_eq!(data, h(&hops[i]["encoded_tlvs"]));
        assert_eq!(u.next_path_key().unwrap(), pk(&x["next_path_key"]));
        if let Some(o) = x.get("next_path_key_override") {
            assert_eq!(u.next_path_key_for(&data).unwrap(), pk(o));
        } else {
            assert_eq!(u.next_path_key_for(&data).unwrap(), pk(&x["next_path_key"]));
        }
        // Within a segment, the next hop's path key is this hop's next_path_key.
        if let Some(nx) = unblind.get(i + 1) {
            let expect = x
                .get("next_path_key_override")
                .unwrap_or(&x["next_path_key"]);
            assert_eq!(pk(&nx["path_key"]), pk(expect));
        }
        // Wrong node key: the data does not open.
        let wrong = blinding::unblind(&key(&hops[0]["path_privkey"]), &pk(&x["path_key"])).unwrap();
        assert!(wrong.decrypt(&h(&route[i]["encrypted_data"])).is_err());
    }
}

/// `payment_relay` (u16 cltv_expiry_delta, u32 fee_proportional_millionths,
/// tu32 fee_base_msat) decoded from recipient data.
fn payment_relay(data: &[u8]) -> Option<(u64, u64, u64)> {
    let r = tlv::find(data, 10).unwrap()?;
    let cltv = u16::from_be_bytes([r[0], r[1]]) as u64;
    let prop = u32::from_be_bytes(r[2..6].try_into().unwrap()) as u64;
    let base = r[6..].iter().fold(0u64, |a, b| a << 8 | *b as u64);
    Some((cltv, prop, base))
}

#[test]
fn blinded_payment_onion_test() {
    let v = load("blinded-payment-onion-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let ad = h(&g["associated_data"]);
    let full = g["full_route"]["hops"].as_array().unwrap();
    let hops = hops_of(&g["full_route"]["hops"]);
    let (onion, _) = build_det(&session, &hops, &ad);
    assert_eq!(hex::encode(onion.to_bytes()), g["onion"].as_str().unwrap());
    let br = &g["blinded_route"];
    let brh = br["hops"].as_array().unwrap();
    // Alice is a plain hop; Bob (the introduction node) onwards are blinded.
    assert_eq!(full.len(), brh.len() + 1);

    // Each payload is what its `tlvs` describe.
    for (i, x) in full.iter().enumerate() {
        let erd = i.checked_sub(1).map(|j| h(&brh[j]["encrypted_data"]));
        assert_eq!(
            hex::encode(payment_payload(&x["tlvs"], erd.as_deref())),
            hex::encode(&hops[i].1),
            "hop {i}"
        );
    }
    // The introduction node is reached by its real node id with the first path key.
    assert_eq!(pk(&br["first_node_id"]), hops[1].0);
    assert_eq!(
        pk(&br["first_path_key"]),
        pk(&full[1]["tlvs"]["current_path_key"])
    );
    assert_eq!(
        tlv::find(&hops[1].1, 12).unwrap(),
        Some(&h(&br["first_path_key"])[..])
    );
    // Later blinded hops are reached by their blinded node ids.
    for j in 1..brh.len() {
        assert_eq!(pk(&brh[j]["blinded_node_id"]), hops[j + 1].0);
    }
    // The recipient's amount and expiry.
    let last = &hops[hops.len() - 1].1;
    let final_tlvs = &full[full.len() - 1]["tlvs"];
    assert_eq!(
        num(&final_tlvs["amt_to_forward"]),
        num(&g["final_amount_msat"])
    );
    assert_eq!(
        num(&final_tlvs["outgoing_cltv_value"]),
        num(&g["final_cltv"])
    );
    assert_eq!(
        tlv::find(last, 2).unwrap(),
        Some(&tu(num(&g["final_amount_msat"]))[..])
    );
    assert_eq!(
        tlv::find(last, 4).unwrap(),
        Some(&tu(num(&g["final_cltv"]))[..])
    );

    let dec = v["decrypt"]["hops"].as_array().unwrap();
    assert_eq!(dec.len(), hops.len());
    assert_eq!(dec[0]["onion"], g["onion"]);
    let mut path_key: Option<PublicKey> = None;
    let mut relays = Vec::new();
    for (i, x) in dec.iter().enumerate() {
        let node = key(&x["node_privkey"]);
        if i <= 1 {
            assert_eq!(node.public_key(), hops[i].0, "hop {i}");
        }
        let onion = Onion::parse(&h(&x["onion"])).unwrap();
        let unblinded = path_key.map(|pk_| blinding::unblind(&node, &pk_).unwrap());
        let peel_key = unblinded
            .as_ref()
            .map(|u| u.blinded_privkey())
            .unwrap_or(&node);
        let peeled = onion.peel(peel_key, &ad).unwrap();
        assert_eq!(peeled.payload(), &hops[i].1[..], "hop {i}");
        match &peeled {
            Peeled::Forward { next, .. } => {
                assert_eq!(
                    hex::encode(next.to_bytes()),
                    dec[i + 1]["onion"].as_str().unwrap()
                )
            }
            Peeled::Final { .. } => assert_eq!(i + 1, dec.len()),
        }
        // Blinded part: the introduction node finds the path key in its payload.
        let u = match (unblinded, tlv::find(peeled.payload(), 12).unwrap()) {
            (None, Some(cur)) => {
                Some(blinding::unblind(&node, &PublicKey::from_slice(cur).unwrap()).unwrap())
            }
            (u, _) => u,
        };
        match u {
            None => assert_eq!(i, 0, "only Alice is not blinded"),
            Some(u) => {
                // The key that peels this layer belongs to the blinded node id.
                assert_eq!(
                    u.blinded_privkey().public_key(),
                    pk(&brh[i - 1]["blinded_node_id"]),
                    "hop {i}"
                );
                let erd = tlv::find(peeled.payload(), 10).unwrap().unwrap();
                assert_eq!(erd, &h(&brh[i - 1]["encrypted_data"])[..]);
                let data = u.decrypt(erd).unwrap();
                assert_eq!(
                    hex::encode(&data),
                    hex::encode(recipient_data(&full[i]["tlvs"]["encrypted_recipient_data"])),
                    "hop {i}"
                );
                relays.extend(payment_relay(&data));
                let next = u.next_path_key_for(&data).unwrap();
                assert_eq!(next, pk(&x["next_path_key"]), "hop {i}");
                path_key = Some(next);
            }
        }
    }

    // blinded_payinfo: the relays aggregated as BOLT #4 tells the path's
    // creator to (from the recipient back, fees compounded, rounded up).
    assert_eq!(relays.len(), 3, "Bob, Carol and Dave relay");
    let (mut cltv, mut prop, mut base) = (0u64, 0u64, 0u64);
    for &(c, p, b) in relays.iter().rev() {
        base = (b * 1_000_000 + base * (1_000_000 + p)).div_ceil(1_000_000);
        prop = ((prop + p) * 1_000_000 + prop * p).div_ceil(1_000_000);
        cltv += c;
    }
    let pi = &g["blinded_payinfo"];
    assert_eq!(base, num(&pi["fee_base_msat"]));
    assert_eq!(prop, num(&pi["fee_proportional_millionths"]));
    assert_eq!(cltv, num(&pi["cltv_expiry_delta"]));
}

#[test]
fn blinded_onion_message_test() {
    let v = load("blinded-onion-message-onion-test.json");
    let g = &v["generate"];
    let gh = g["hops"].as_array().unwrap();
    let route = &v["route"];
    let rh = route["hops"].as_array().unwrap();
    let dec = v["decrypt"]["hops"].as_array().unwrap();
    assert_eq!(gh.len(), rh.len());
    assert_eq!(gh.len(), dec.len());
    // The route starts at Alice.
    assert_eq!(
        pk(&route["first_node_id"]),
        key(&dec[0]["privkey"]).public_key()
    );
    // Blinding, hop by hop, from the given path key secrets.
    let mut node_id = pk(&route["first_node_id"]);
    let mut node_ids = Vec::new();
    for (i, x) in gh.iter().enumerate() {
        assert_eq!(
            hex::encode(recipient_data(&x["tlvs"])),
            x["encrypted_data_tlv"].as_str().unwrap(),
            "hop {i}"
        );
        node_ids.push(node_id);
        let e = key(&x["path_key_secret"]);
        assert_eq!(e.public_key(), pk(&x["E"]));
        let (hop, next) = blinding::blind_hop(e, &node_id, &h(&x["encrypted_data_tlv"])).unwrap();
        assert_eq!(hop.path_key, pk(&x["E"]), "hop {i}");
        assert_eq!(hop.shared_secret.expose().to_vec(), h(&x["ss"]));
        assert_eq!(
            blinding::node_id_tweak(&hop.shared_secret)
                .expose()
                .to_vec(),
            h(&x["HMAC256('blinded_node_id', ss)"])
        );
        assert_eq!(
            keys::blinding_factor(&hop.path_key, &hop.shared_secret).to_vec(),
            h(&x["H(E || ss)"])
        );
        // next_e is printed with a trailing 0x01 byte after the 32-byte scalar.
        let next_e = h(&x["next_e"]);
        assert_eq!((next_e.len(), next_e[32]), (33, 0x01));
        assert_eq!(next.to_secret().expose().to_vec(), next_e[..32].to_vec());
        assert_eq!(
            keys::derive(keys::KeyKind::Rho, hop.shared_secret.expose())
                .expose()
                .to_vec(),
            h(&x["rho"])
        );
        assert_eq!(hop.blinded_node_id, pk(&x["blinded_node_id"]));
        assert_eq!(hop.blinded_node_id, pk(&rh[i]["blinded_node_id"]));
        assert_eq!(hop.encrypted_data, h(&x["encrypted_recipient_data"]));
        assert_eq!(hop.encrypted_data, h(&rh[i]["encrypted_recipient_data"]));
        // The next hop's path key: the override (hop 1's E, from the secret
        // Alice's entry gives) or else this hop's next_e.
        if let Some(nx) = gh.get(i + 1) {
            match x["tlvs"].get("next_path_key_override") {
                Some(o) => {
                    let secret = &x["tlvs"]["path_key_override_secret"];
                    assert_eq!(key(secret).public_key(), pk(o));
                    assert_eq!(pk(o), pk(&nx["E"]));
                    assert_eq!(h(secret), h(&nx["path_key_secret"]));
                    assert_ne!(next_e[..32], h(&nx["path_key_secret"])[..]);
                }
                None => assert_eq!(next_e[..32], h(&nx["path_key_secret"])[..]),
            }
        }
        match x["tlvs"].get("next_node_id") {
            Some(n) => node_id = pk(n),
            None => assert_eq!(i + 1, gh.len()),
        }
    }
    assert_eq!(pk(&route["first_path_key"]), pk(&gh[0]["E"]));
    // The same route with blind_path: Alice's one-hop prefix from her
    // secret, then Dave's path Bob -> Carol -> Dave from the override secret.
    let data: Vec<Vec<u8>> = gh.iter().map(|x| h(&x["encrypted_data_tlv"])).collect();
    let input: Vec<(PublicKey, &[u8])> = node_ids
        .iter()
        .zip(&data)
        .map(|(n, d)| (*n, &d[..]))
        .collect();
    let alice = blinding::blind_path(&key(&gh[0]["path_key_secret"]), &input[..1]).unwrap();
    let dave = blinding::blind_path(
        &key(&gh[0]["tlvs"]["path_key_override_secret"]),
        &input[1..],
    )
    .unwrap();
    assert_eq!(alice.first_path_key, pk(&route["first_path_key"]));
    assert_eq!(
        dave.first_path_key,
        pk(&gh[0]["tlvs"]["next_path_key_override"])
    );
    for (i, (hop, r)) in alice.hops.iter().chain(&dave.hops).zip(rh).enumerate() {
        assert_eq!(hop.blinded_node_id, pk(&r["blinded_node_id"]), "hop {i}");
        assert_eq!(
            hop.encrypted_data,
            h(&r["encrypted_recipient_data"]),
            "hop {i}"
        );
    }

    // The onion: one TLV payload per blinded hop, "hello" (type 1) for Dave.
    let om = &v["onionmessage"];
    let payloads: Vec<Vec<u8>> = rh
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let mut p = Vec::new();
            if i + 1 == rh.len() {
                tlv::push(&mut p, 1, &h(&om["unknown_tag_1"]));
            }
            tlv::push(&mut p, 4, &h(&x["encrypted_recipient_data"]));
            p
        })
        .collect();
    let hops: Vec<(PublicKey, Vec<u8>)> = rh
        .iter()
        .zip(payloads)
        .map(|(x, p)| (pk(&x["blinded_node_id"]), p))
        .collect();
    let (onion, _) = build_det(&key(&g["session_key"]), &hops, &[]);
    assert_eq!(
        hex::encode(onion.to_bytes()),
        om["onion_message_packet"].as_str().unwrap()
    );

    // Decrypt: onion_message = type 513 | path_key(33) | u16 len | packet.
    for (i, x) in dec.iter().enumerate() {
        let msg = h(&x["onion_message"]);
        assert_eq!(&msg[..2], &[0x02, 0x01]);
        let path_key = PublicKey::from_slice(&msg[2..35]).unwrap();
        assert_eq!(path_key, pk(&gh[i]["E"]), "hop {i}");
        let len = u16::from_be_bytes([msg[35], msg[36]]) as usize;
        assert_eq!(msg.len(), 37 + len);
        if i == 0 {
            assert_eq!(msg[37..], h(&om["onion_message_packet"])[..]);
        }
        let node = key(&x["privkey"]);
        assert_eq!(node.public_key(), node_ids[i], "hop {i}");
        let u = blinding::unblind(&node, &path_key).unwrap();
        let onion = Onion::parse_message(&msg[37..]).unwrap();
        let peeled = onion.peel(u.blinded_privkey(), &[]).unwrap();
        let erd = tlv::find(peeled.payload(), 4).unwrap().unwrap().to_vec();
        let data = u.decrypt(&erd).unwrap();
        assert_eq!(data, h(&gh[i]["encrypted_data_tlv"]), "hop {i}");
        match peeled {
            Peeled::Forward { next, .. } => {
                let nn = tlv::find(&data, blinding::NEXT_NODE_ID).unwrap().unwrap();
                assert_eq!(PublicKey::from_slice(nn).unwrap(), pk(&x["next_node_id"]));
                let mut m = vec![0x02, 0x01];
                m.extend_from_slice(&u.next_path_key_for(&data).unwrap().serialize());
                m.extend_from_slice(&(next.len() as u16).to_be_bytes());
                m.extend_from_slice(&next.to_bytes());
                assert_eq!(
                    hex::encode(m),
                    dec[i + 1]["onion_message"].as_str().unwrap(),
                    "hop {i}"
                );
            }
            Peeled::Final { payload, .. } => {
                assert_eq!(i + 1, dec.len());
                // Dave's payload is exactly the TLVs the vector lists.
                let t = &x["tlvs"];
                let expected = tlv_stream(vec![
                    (1, h(&t["unknown_tag_1"])),
                    (4, h(&t["encrypted_recipient_data"])),
                ]);
                assert_eq!(t.as_object().unwrap().len(), 2);
                assert_eq!(hex::encode(&payload), hex::encode(expected));
                assert_eq!(erd, h(&t["encrypted_recipient_data"]));
            }
        }
    }
}
