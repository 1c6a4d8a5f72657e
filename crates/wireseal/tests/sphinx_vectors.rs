//! Every BOLT #4 test vector (lightning/bolts, folder bolt04), loaded in full.

use serde_json::Value;
use wireseal::primitives::secp256k1::{PrivateKey, PublicKey};
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

#[test]
fn route_blinding_test() {
    let v = load("route-blinding-test.json");
    let hops = v["generate"]["hops"].as_array().unwrap();
    let route = v["route"]["hops"].as_array().unwrap();
    assert_eq!(pk(&v["route"]["first_path_key"]), pk(&hops[0]["path_key"]));
    for (i, x) in hops.iter().enumerate() {
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
    for (i, x) in v["unblind"]["hops"].as_array().unwrap().iter().enumerate() {
        let u = blinding::unblind(&key(&x["node_privkey"]), &pk(&x["path_key"])).unwrap();
        assert_eq!(
            u.blinded_privkey().to_secret().expose().to_vec(),
            h(&x["blinded_privkey"])
        );
        let data = u.decrypt(&h(&route[i]["encrypted_data"])).unwrap();
        assert_eq!(data, h(&x["decrypted_data"]));
        assert_eq!(u.next_path_key().unwrap(), pk(&x["next_path_key"]));
        if let Some(o) = x.get("next_path_key_override") {
            assert_eq!(u.next_path_key_for(&data).unwrap(), pk(o));
        } else {
            assert_eq!(u.next_path_key_for(&data).unwrap(), pk(&x["next_path_key"]));
        }
        // Wrong node key: the data does not open.
        let wrong = blinding::unblind(&key(&hops[0]["path_privkey"]), &pk(&x["path_key"])).unwrap();
        assert!(wrong.decrypt(&h(&route[i]["encrypted_data"])).is_err());
    }
}

#[test]
fn blinded_payment_onion_test() {
    let v = load("blinded-payment-onion-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let ad = h(&g["associated_data"]);
    let hops = hops_of(&g["full_route"]["hops"]);
    let (onion, _) = build_det(&session, &hops, &ad);
    assert_eq!(hex::encode(onion.to_bytes()), g["onion"].as_str().unwrap());
    let br = g["blinded_route"]["hops"].as_array().unwrap();

    let dec = v["decrypt"]["hops"].as_array().unwrap();
    let mut path_key: Option<PublicKey> = None;
    for (i, x) in dec.iter().enumerate() {
        let node = key(&x["node_privkey"]);
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
        if let Some(u) = u {
            let erd = tlv::find(peeled.payload(), 10).unwrap().unwrap();
            assert_eq!(erd, &h(&br[i - 1]["encrypted_data"])[..]);
            let data = u.decrypt(erd).unwrap();
            let next = u.next_path_key_for(&data).unwrap();
            assert_eq!(next, pk(&x["next_path_key"]), "hop {i}");
            path_key = Some(next);
        }
    }
}

#[test]
fn blinded_onion_message_test() {
    let v = load("blinded-onion-message-onion-test.json");
    let g = &v["generate"];
    let gh = g["hops"].as_array().unwrap();
    let route = &v["route"];
    let rh = route["hops"].as_array().unwrap();
    // Blinding, hop by hop, from the given path key secrets.
    let mut node_id = pk(&route["first_node_id"]);
    for (i, x) in gh.iter().enumerate() {
        let e = key(&x["path_key_secret"]);
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
        assert_eq!(
            next.to_secret().expose().to_vec(),
            h(&x["next_e"])[..32].to_vec()
        );
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
        if let Some(n) = x["tlvs"].get("next_node_id") {
            node_id = pk(n);
        }
    }
    assert_eq!(pk(&route["first_path_key"]), pk(&gh[0]["E"]));

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
    let dec = v["decrypt"]["hops"].as_array().unwrap();
    for (i, x) in dec.iter().enumerate() {
        let msg = h(&x["onion_message"]);
        assert_eq!(&msg[..2], &[0x02, 0x01]);
        let path_key = PublicKey::from_slice(&msg[2..35]).unwrap();
        let len = u16::from_be_bytes([msg[35], msg[36]]) as usize;
        assert_eq!(msg.len(), 37 + len);
        let node = key(&x["privkey"]);
        let u = blinding::unblind(&node, &path_key).unwrap();
        let onion = Onion::parse_message(&msg[37..]).unwrap();
        let peeled = onion.peel(u.blinded_privkey(), &[]).unwrap();
        let erd = tlv::find(peeled.payload(), 4).unwrap().unwrap().to_vec();
        let data = u.decrypt(&erd).unwrap();
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
                let t = &x["tlvs"];
                assert_eq!(
                    tlv::find(&payload, 1).unwrap().unwrap(),
                    &h(&t["unknown_tag_1"])[..]
                );
                assert_eq!(erd, h(&t["encrypted_recipient_data"]));
            }
        }
    }
}
