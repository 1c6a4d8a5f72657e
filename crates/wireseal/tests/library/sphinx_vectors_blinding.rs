//! BOLT #4 route blinding: `route-blinding-test.json` (blinding and
//! unblinding hop by hop) and `blinded-payment-onion-test.json` (a payment
//! onion through a blinded path, with its relay parameters), every field
//! checked; the `tlvs` objects go through the test-side encoders.

use crate::common;
use crate::sphinx_support;

use common::hx;
use serde_json::Value;
use sphinx_support::{
    bigsize_enc, build_det, hops_of, key, num, payment_payload, pk, recipient_data, scid, tu,
};
use wireseal::keys::PublicKey;
use wireseal::sphinx::{blinding, keys, tlv, Onion, Peeled};

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
    let v = common::load_json("bolt04/route-blinding-test.json");
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
        let (hop, next) = blinding::blind_hop(e, &node, &hx(x, "encoded_tlvs")).unwrap();
        assert_eq!(hop.path_key, pk(&x["path_key"]), "hop {i}");
        assert_eq!(hop.shared_secret.expose().to_vec(), hx(x, "shared_secret"));
        assert_eq!(
            keys::derive(keys::KeyKind::Rho, hop.shared_secret.expose())
                .expose()
                .to_vec(),
            hx(x, "rho")
        );
        assert_eq!(hop.encrypted_data, hx(x, "encrypted_data"));
        assert_eq!(hop.blinded_node_id, pk(&x["blinded_node_id"]));
        assert_eq!(hop.blinded_node_id, pk(&route[i]["blinded_node_id"]));
        assert_eq!(hop.encrypted_data, hx(&route[i], "encrypted_data"));
        if let Some(nx) = hops.get(i + 1) {
            match x["tlvs"].get("next_path_key_override") {
                Some(o) => assert_eq!(pk(&nx["path_key"]), pk(o)),
                None => assert_eq!(next.to_secret().expose().to_vec(), hx(nx, "path_privkey")),
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
        assert_eq!(hx(&seg[0], "session_key"), hx(&seg[0], "path_privkey"));
        let data: Vec<Vec<u8>> = seg.iter().map(|x| hx(x, "encoded_tlvs")).collect();
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
            assert_eq!(hop.shared_secret.expose().to_vec(), hx(x, "shared_secret"));
        }
        if n > 0 {
            // The previous segment's last hop points at this one.
            let o = &hops[s - 1]["tlvs"]["next_path_key_override"];
            assert_eq!(pk(o), path.first_path_key);
            assert_eq!(
                tlv::find(&hx(&hops[s - 1], "encoded_tlvs"), 8).unwrap(),
                Some(&path.first_path_key.serialize()[..])
            );
        }
        joined.extend(path.hops);
    }
    let first = &joined[0];
    assert_eq!(first.path_key, pk(&v["route"]["first_path_key"]));
    for (i, (hop, r)) in joined.iter().zip(route).enumerate() {
        assert_eq!(hop.blinded_node_id, pk(&r["blinded_node_id"]), "hop {i}");
        assert_eq!(hop.encrypted_data, hx(r, "encrypted_data"), "hop {i}");
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
            hx(x, "blinded_privkey")
        );
        assert_eq!(
            u.blinded_privkey().public_key(),
            pk(&route[i]["blinded_node_id"])
        );
        let data = u.open_to_vec(&hx(&route[i], "encrypted_data")).unwrap();
        assert_eq!(data, hx(x, "decrypted_data"));
        assert_eq!(data, hx(&hops[i], "encoded_tlvs"));
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
        assert!(wrong.open_to_vec(&hx(&route[i], "encrypted_data")).is_err());
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
    let v = common::load_json("bolt04/blinded-payment-onion-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let ad = hx(g, "associated_data");
    let full = g["full_route"]["hops"].as_array().unwrap();
    let hops = hops_of(&g["full_route"]["hops"]);
    let (onion, _) = build_det(&session, &hops, &ad);
    assert_eq!(hex::encode(onion.to_vec()), g["onion"].as_str().unwrap());
    let br = &g["blinded_route"];
    let brh = br["hops"].as_array().unwrap();
    // Alice is a plain hop; Bob (the introduction node) onwards are blinded.
    assert_eq!(full.len(), brh.len() + 1);

    // Each payload is what its `tlvs` describe.
    for (i, x) in full.iter().enumerate() {
        let erd = i.checked_sub(1).map(|j| hx(&brh[j], "encrypted_data"));
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
        Some(&hx(br, "first_path_key")[..])
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
        let onion = Onion::parse(&hx(x, "onion")).unwrap();
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
                    hex::encode(next.to_vec()),
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
                assert_eq!(erd, &hx(&brh[i - 1], "encrypted_data")[..]);
                let data = u.open_to_vec(erd).unwrap();
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
