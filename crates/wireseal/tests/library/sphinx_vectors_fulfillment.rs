//! BOLT #4's `fulfillment_payload` vectors: the padding examples
//! (`vectors/bolt04/fulfillment-payload-padding-test.json`) and the
//! "Returning success" vectors with a payload
//! (`vectors/bolt04/fulfillment-payload-attribution-vectors.txt`: each
//! node's payload and attribution data, from the final node 4 back to node
//! 0), reproduced byte for byte and unwrapped by the origin. The route,
//! session key and hold times are those of the attributable-error vectors.

use crate::common;
use crate::sphinx_support;

use common::unhex;
use sphinx_support::{key, pk};
use wireseal::keys::PublicKey;
use wireseal::sphinx::fulfill::{self, payload, Payload, Returned};
use wireseal::sphinx::{bigsize, keys, Attribution, HopSecrets, Incoming};

/// A TLV record written from BOLT #1 (type and length as BigSize).
fn record(t: u64, v: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bigsize::push(t, &mut out);
    bigsize::push(v.len() as u64, &mut out);
    out.extend_from_slice(v);
    out
}

#[test]
fn padding_examples() {
    let v = common::load_json("bolt04/fulfillment-payload-padding-test.json");
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 8);
    for t in tests {
        let records: Vec<u8> = t["input_tlvs"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| {
                record(
                    r["type"].as_u64().unwrap(),
                    &unhex(r["value"].as_str().unwrap()),
                )
            })
            .collect();
        let want = unhex(t["encoded_tlv_stream"].as_str().unwrap());
        let got = payload::padded(&records).unwrap();
        assert_eq!(hex::encode(&got), hex::encode(&want), "{}", t["comment"]);
        assert_eq!(payload::padded_len(records.len()), want.len());
        assert_eq!(payload::sealed_len(records.len()), want.len() + 16);
    }
}

/// `(payload, attribution data)` of each node in the text file, by node.
fn returning() -> Vec<(usize, Vec<u8>, Vec<u8>)> {
    let text = common::vector_text("bolt04/fulfillment-payload-attribution-vectors.txt");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::new();
    for chunk in lines.chunks(4) {
        let node: usize = chunk[0]
            .strip_prefix("fulfillment payload for node ")
            .and_then(|r| r.strip_suffix(':'))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(chunk[2], format!("attribution data for node {node}:"));
        out.push((node, unhex(chunk[1].trim()), unhex(chunk[3].trim())));
    }
    out
}

/// The route of the attributable-error vectors, its hold times in path
/// order (node k reports the listed entry 4 - k, in 100 ms units).
fn route() -> (HopSecrets, Vec<u64>) {
    let v = common::load_json("bolt04/attributable-error-test.json");
    let pubs: Vec<PublicKey> = v["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| pk(&h["pubkey"]))
        .collect();
    let (_, secrets) = keys::session_secrets(&key(&v["session_key"]), pubs.into_iter()).unwrap();
    let hold: Vec<u64> = v["htlc_hold_time"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|h| h.as_u64().unwrap() * 100)
        .collect();
    (secrets, hold)
}

/// The vector's application record.
fn records() -> Vec<u8> {
    record(65537, &[0x07, 0x08, 0x09])
}

#[test]
fn payload_and_attribution_byte_for_byte() {
    let (secrets, hold) = route();
    let steps = returning();
    assert_eq!(
        steps.iter().map(|s| s.0).collect::<Vec<_>>(),
        [4, 3, 2, 1, 0]
    );
    // The final node seals 256 bytes of records (the padding record first)
    // and 16 of tag; its HMACs cover no payload, so its attribution data is
    // that of the vectors without a payload.
    let success = common::load_json("bolt04/attributable-error-test.json")["success"][0].clone();
    assert_eq!(success["node"], 4);
    let mut r = fulfill::create_at(
        secrets.hop(5).unwrap(),
        Incoming::Unblinded,
        hold[4],
        Some(&records()),
    )
    .unwrap();
    assert_eq!(r.payload.as_ref().unwrap().len(), 272);
    assert_eq!(
        hex::encode(r.attribution.as_ref().unwrap().as_bytes()),
        success["attribution_data"].as_str().unwrap()
    );
    for (node, want_payload, want_data) in &steps {
        if *node < 4 {
            fulfill::relay(
                secrets.hop(node + 1).unwrap(),
                Incoming::Unblinded,
                hold[*node],
                &mut r,
            )
            .unwrap();
        }
        assert_eq!(
            hex::encode(r.payload.as_ref().unwrap()),
            hex::encode(want_payload),
            "payload, node {node}"
        );
        assert_eq!(
            hex::encode(r.attribution.as_ref().unwrap().as_bytes()),
            hex::encode(want_data),
            "attribution data, node {node}"
        );
    }
}

#[test]
fn origin_reads_the_vector() {
    let (secrets, hold) = route();
    let (_, payload, data) = returning().pop().unwrap();
    let f = fulfill::unwrap_returned(&secrets, Some(&payload), Some(&data)).unwrap();
    assert_eq!(f.hold_times.attribution, Attribution::Valid);
    assert_eq!(f.hold_times.hold_times_ms, hold);
    assert_eq!(f.hold_times.blamed_hop, None);
    assert_eq!(f.payload, Payload::Valid(records()));

    // Read as if no payload had come, the intermediate HMACs (which cover
    // it) break at node 0, the first to cover it on the way in.
    let h = fulfill::unwrap(&secrets, Some(&data)).unwrap();
    assert_eq!(
        (h.attribution, h.hold_times_ms.len(), h.blamed_hop),
        (Attribution::Broken, 0, Some(1))
    );
    // A payload changed on the way: node 0's HMAC breaks, and the payload
    // is ignored (its tag fails).
    let mut changed = payload.clone();
    changed[100] ^= 0x01;
    let f = fulfill::unwrap_returned(&secrets, Some(&changed), Some(&data)).unwrap();
    assert_eq!(f.hold_times.blamed_hop, Some(1));
    assert_eq!(f.payload, Payload::Ignored(wireseal::sphinx::Error::Auth));
    // Without attribution data the payload still opens.
    let f = fulfill::unwrap_returned(&secrets, Some(&payload), None).unwrap();
    assert_eq!(f.hold_times.attribution, Attribution::Absent);
    assert_eq!(f.payload, Payload::Valid(records()));
}

#[test]
fn a_fulfill_without_payload_is_unchanged() {
    let (secrets, hold) = route();
    let success = common::load_json("bolt04/attributable-error-test.json")["success"].clone();
    let mut r: Returned =
        fulfill::create_at(secrets.hop(5).unwrap(), Incoming::Unblinded, hold[4], None).unwrap();
    for node in (0..4).rev() {
        fulfill::relay(
            secrets.hop(node + 1).unwrap(),
            Incoming::Unblinded,
            hold[node],
            &mut r,
        )
        .unwrap();
    }
    assert_eq!(r.payload, None);
    let last = success.as_array().unwrap().last().unwrap();
    assert_eq!(last["node"], 0);
    assert_eq!(
        hex::encode(r.attribution.unwrap().as_bytes()),
        last["attribution_data"].as_str().unwrap()
    );
}
