//! BOLT #4's inline attributable-failure and success vectors
//! (`vectors/bolt04/attributable-error-test.json`): the failure packet and
//! its attribution data created by node 4 and wrapped by nodes 3 to 0 byte for
//! byte, the fulfill attribution data of every node, and the origin's
//! unwrap of both (failing hop, message, hold times).

use crate::common;
use crate::sphinx_support;

use common::hx;
use serde_json::Value;
use sphinx_support::{key, pk, val};
use wireseal::keys::PublicKey;
use wireseal::sphinx::{
    failure, fulfill, keys, Attribution, AttributionData, HopSecrets, ATTRIBUTION_LEN,
};

struct Vector {
    v: Value,
    secrets: HopSecrets,
    /// Hold times in milliseconds, in path order (the vector gives 100 ms
    /// units).
    hold_ms: Vec<u64>,
}

fn vector() -> Vector {
    let v = common::load_json("bolt04/attributable-error-test.json");
    let hops = v["hops"].as_array().unwrap();
    let pubs: Vec<PublicKey> = hops.iter().map(|h| pk(&h["pubkey"])).collect();
    let (_, secrets) = keys::session_secrets(&key(&v["session_key"]), pubs.into_iter()).unwrap();
    // The vector lists hold times in the order the nodes return the
    // failure (its index 0 is the failing node 4): node k reports entry 4 - k.
    let listed: Vec<u64> = v["htlc_hold_time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_u64().unwrap() * 100)
        .collect();
    assert_eq!(listed.len(), hops.len());
    let hold_ms = listed.into_iter().rev().collect();
    Vector {
        v,
        secrets,
        hold_ms,
    }
}

/// The step of `returning` for node `node` (0-based, as the vector counts).
fn step(v: &Value, node: u64) -> &Value {
    v["returning"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["node"] == node)
        .unwrap()
}

#[test]
fn failure_created_and_wrapped_byte_for_byte() {
    let Vector {
        v,
        secrets,
        hold_ms,
    } = vector();
    let last = v["failure_source"].as_u64().unwrap();
    assert_eq!(last as usize + 1, secrets.len());
    let ss = secrets.hop(last as usize + 1).unwrap();
    let create = &v["create"];
    assert_eq!(ss.expose().to_vec(), hx(create, "shared_secret"));

    // The vector's message: failure_len, failuremsg, then its own padding
    // to 1024 bytes; the node pads the message to that size.
    let encoded = hx(&v, "encoded_failure_message");
    let payload = hx(create, "payload");
    let msg_len = u16::from_be_bytes([payload[0], payload[1]]) as usize;
    let message = &encoded[..msg_len];
    let mut packet = vec![0u8; 32 + 2 + 2 + 1024];
    let mut attribution = AttributionData::new();
    let n = failure::create_attributed_padded_into(
        ss,
        message,
        1024,
        hold_ms[last as usize],
        &mut packet,
        &mut attribution,
    )
    .unwrap();
    assert_eq!(n, packet.len());
    // Before obfuscation, the packet is the vector's raw error packet.
    let mut plain = packet.clone();
    failure::wrap_in_place(ss, &mut plain).unwrap();
    assert_eq!(
        hex::encode(&plain),
        create["raw_error_packet"].as_str().unwrap()
    );
    assert_eq!(
        hex::encode(&plain[32..]),
        create["payload"].as_str().unwrap()
    );

    let s = step(&v, last);
    assert_eq!(hex::encode(&packet), s["error_packet"].as_str().unwrap());
    assert_eq!(
        hex::encode(attribution.as_bytes()),
        s["attribution_data"].as_str().unwrap()
    );
    for node in (0..last).rev() {
        let s = step(&v, node);
        let ss = secrets.hop(node as usize + 1).unwrap();
        assert_eq!(ss.expose().to_vec(), hx(s, "shared_secret"), "node {node}");
        // The ammag stream is what wrapping an all-zero packet gives.
        let mut zero = vec![0u8; packet.len()];
        failure::wrap_in_place(ss, &mut zero).unwrap();
        assert_eq!(zero, hx(s, "stream"), "node {node}");
        failure::wrap_attributed_in_place(
            ss,
            hold_ms[node as usize],
            &mut packet,
            &mut attribution,
        )
        .unwrap();
        assert_eq!(
            hex::encode(&packet),
            s["error_packet"].as_str().unwrap(),
            "node {node}"
        );
        assert_eq!(
            hex::encode(attribution.as_bytes()),
            s["attribution_data"].as_str().unwrap(),
            "node {node}"
        );
    }
}

#[test]
fn origin_unwraps_the_vector_failure() {
    let Vector {
        v,
        secrets,
        hold_ms,
    } = vector();
    let packet = hx(step(&v, 0), "error_packet");
    let data = hx(step(&v, 0), "attribution_data");
    let encoded = hx(&v, "encoded_failure_message");
    let payload = hx(&v["create"], "payload");
    let len = u16::from_be_bytes([payload[0], payload[1]]) as usize;

    let u = failure::unwrap_attributed(&secrets, &packet, Some(&data)).unwrap();
    assert_eq!(u.hop, Some(5));
    assert_eq!(u.message.as_deref(), Some(&encoded[..len]));
    assert_eq!(u.attribution, Attribution::Valid);
    assert_eq!(u.hold_times_ms, hold_ms);
    assert_eq!(u.blamed_hop, None);
    assert_eq!(
        u.failure(),
        Some(failure::Failure {
            hop: 5,
            message: encoded[..len].to_vec()
        })
    );
    // Without its attribution data the packet still names hop 5.
    let legacy = failure::unwrap(&secrets, &packet).unwrap();
    assert_eq!((legacy.hop, legacy.hop_index()), (5, 4));
    let u = failure::unwrap_attributed(&secrets, &packet, None).unwrap();
    assert_eq!(
        (u.hop, u.attribution, u.hold_times_ms.len(), u.blamed_hop),
        (Some(5), Attribution::Absent, 0, None)
    );
}

#[test]
fn success_attribution_byte_for_byte_and_decoded() {
    let Vector {
        v,
        secrets,
        hold_ms,
    } = vector();
    let mut data = AttributionData::new();
    for s in v["success"].as_array().unwrap() {
        let node = s["node"].as_u64().unwrap() as usize;
        fulfill::wrap(secrets.hop(node + 1).unwrap(), hold_ms[node], &mut data);
        assert_eq!(
            data.as_bytes().to_vec(),
            val(&s["attribution_data"]),
            "node {node}"
        );
    }
    assert_eq!(data.as_bytes().len(), ATTRIBUTION_LEN);
    let got = fulfill::unwrap(&secrets, Some(data.as_bytes())).unwrap();
    assert_eq!(got.attribution, Attribution::Valid);
    assert_eq!(got.hold_times_ms, hold_ms);
    assert_eq!(got.blamed_hop, None);
}
