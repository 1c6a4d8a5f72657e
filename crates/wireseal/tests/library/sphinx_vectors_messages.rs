//! BOLT #4 `blinded-onion-message-onion-test.json`: an onion message through
//! a blinded path, blinded hop by hop and as two joined paths, the packet
//! built byte for byte and each `onion_message` peeled and re-framed.

use crate::common;
use crate::sphinx_support;

use common::hx;
use sphinx_support::{build_det, key, pk, recipient_data, tlv_stream, val};
use wireseal::keys::PublicKey;
use wireseal::sphinx::{blinding, keys, tlv, Onion, Peeled};

#[test]
fn blinded_onion_message_test() {
    let v = common::load_json("bolt04/blinded-onion-message-onion-test.json");
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
        let (hop, next) = blinding::blind_hop(e, &node_id, &hx(x, "encrypted_data_tlv")).unwrap();
        assert_eq!(hop.path_key, pk(&x["E"]), "hop {i}");
        assert_eq!(hop.shared_secret.expose().to_vec(), hx(x, "ss"));
        assert_eq!(
            blinding::node_id_tweak(&hop.shared_secret)
                .expose()
                .to_vec(),
            hx(x, "HMAC256('blinded_node_id', ss)")
        );
        assert_eq!(
            keys::blinding_factor(&hop.path_key, &hop.shared_secret).to_vec(),
            hx(x, "H(E || ss)")
        );
        // next_e is printed with a trailing 0x01 byte after the 32-byte scalar.
        let next_e = hx(x, "next_e");
        assert_eq!((next_e.len(), next_e[32]), (33, 0x01));
        assert_eq!(next.to_secret().expose().to_vec(), next_e[..32].to_vec());
        assert_eq!(
            keys::derive(keys::KeyKind::Rho, hop.shared_secret.expose())
                .expose()
                .to_vec(),
            hx(x, "rho")
        );
        assert_eq!(hop.blinded_node_id, pk(&x["blinded_node_id"]));
        assert_eq!(hop.blinded_node_id, pk(&rh[i]["blinded_node_id"]));
        assert_eq!(hop.encrypted_data, hx(x, "encrypted_recipient_data"));
        assert_eq!(hop.encrypted_data, hx(&rh[i], "encrypted_recipient_data"));
        // The next hop's path key: the override (hop 1's E, from the secret
        // Alice's entry gives) or else this hop's next_e.
        if let Some(nx) = gh.get(i + 1) {
            match x["tlvs"].get("next_path_key_override") {
                Some(o) => {
                    let secret = &x["tlvs"]["path_key_override_secret"];
                    assert_eq!(key(secret).public_key(), pk(o));
                    assert_eq!(pk(o), pk(&nx["E"]));
                    assert_eq!(val(secret), hx(nx, "path_key_secret"));
                    assert_ne!(next_e[..32], hx(nx, "path_key_secret")[..]);
                }
                None => assert_eq!(next_e[..32], hx(nx, "path_key_secret")[..]),
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
    let data: Vec<Vec<u8>> = gh.iter().map(|x| hx(x, "encrypted_data_tlv")).collect();
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
            hx(r, "encrypted_recipient_data"),
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
                tlv::push(&mut p, 1, &hx(om, "unknown_tag_1"));
            }
            tlv::push(&mut p, 4, &hx(x, "encrypted_recipient_data"));
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
        hex::encode(onion.to_vec()),
        om["onion_message_packet"].as_str().unwrap()
    );

    // Decrypt: onion_message = type 513 | path_key(33) | u16 len | packet.
    for (i, x) in dec.iter().enumerate() {
        let msg = hx(x, "onion_message");
        assert_eq!(&msg[..2], &[0x02, 0x01]);
        let path_key = PublicKey::from_slice(&msg[2..35]).unwrap();
        assert_eq!(path_key, pk(&gh[i]["E"]), "hop {i}");
        let len = u16::from_be_bytes([msg[35], msg[36]]) as usize;
        assert_eq!(msg.len(), 37 + len);
        if i == 0 {
            assert_eq!(msg[37..], hx(om, "onion_message_packet")[..]);
        }
        let node = key(&x["privkey"]);
        assert_eq!(node.public_key(), node_ids[i], "hop {i}");
        let u = blinding::unblind(&node, &path_key).unwrap();
        let onion = Onion::parse_message(&msg[37..]).unwrap();
        let peeled = onion.peel(u.blinded_privkey(), &[]).unwrap();
        let erd = tlv::find(peeled.payload(), 4).unwrap().unwrap().to_vec();
        let data = u.open_to_vec(&erd).unwrap();
        assert_eq!(data, hx(&gh[i], "encrypted_data_tlv"), "hop {i}");
        match peeled {
            Peeled::Forward { next, .. } => {
                let nn = tlv::find(&data, blinding::NEXT_NODE_ID).unwrap().unwrap();
                assert_eq!(PublicKey::from_slice(nn).unwrap(), pk(&x["next_node_id"]));
                let mut m = vec![0x02, 0x01];
                m.extend_from_slice(&u.next_path_key_for(&data).unwrap().serialize());
                m.extend_from_slice(&(next.len() as u16).to_be_bytes());
                m.extend_from_slice(&next.to_vec());
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
                    (1, hx(t, "unknown_tag_1")),
                    (4, hx(t, "encrypted_recipient_data")),
                ]);
                assert_eq!(t.as_object().unwrap().len(), 2);
                assert_eq!(hex::encode(&payload), hex::encode(expected));
                assert_eq!(erd, hx(t, "encrypted_recipient_data"));
            }
        }
    }
}
