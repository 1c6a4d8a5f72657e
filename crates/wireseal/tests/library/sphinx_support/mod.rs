//! BOLT #4 vector helpers shared by the `sphinx_vectors_*` tests: keys and
//! routes from the JSON, onions built with deterministic padding, and
//! test-side encoders written from the specification (not from the library).
#![allow(dead_code)]

use crate::common;
use serde_json::Value;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{bigsize, build, Hop, HopSecrets, Onion, Padding, Route};

/// A hex string value (not a field) as bytes.
pub fn val(v: &Value) -> Vec<u8> {
    common::unhex(v.as_str().expect("hex string"))
}

/// A private key from a hex value (the first 32 bytes).
pub fn key(v: &Value) -> PrivateKey {
    PrivateKey::from_bytes(&val(v)[..32].try_into().unwrap()).unwrap()
}

/// A public key from a hex value.
pub fn pk(v: &Value) -> PublicKey {
    PublicKey::from_slice(&val(v)).unwrap()
}

/// Strips the BigSize length prefix the vectors include in each payload.
pub fn strip(payload: &[u8]) -> Vec<u8> {
    let (len, p) = bigsize::read(payload).unwrap();
    assert_eq!(p + len as usize, payload.len());
    payload[p..].to_vec()
}

/// `(pubkey, payload without its length prefix)` for each hop of a list.
pub fn hops_of(list: &Value) -> Vec<(PublicKey, Vec<u8>)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| (pk(&x["pubkey"]), strip(&common::hx(x, "payload"))))
        .collect()
}

/// `hops` as the library's [`Hop`]s, borrowing the payloads.
pub fn hop_list(hops: &[(PublicKey, Vec<u8>)]) -> Vec<Hop<'_>> {
    hops.iter()
        .map(|(p, d)| Hop {
            pubkey: *p,
            payload: d,
        })
        .collect()
}

/// Builds a payment onion with deterministic padding, as the vectors do.
pub fn build_det(
    session: &PrivateKey,
    hops: &[(PublicKey, Vec<u8>)],
    ad: &[u8],
) -> (Onion, HopSecrets) {
    let hs = hop_list(hops);
    let route = Route::new(&hs, ad).with_padding(Padding::Deterministic);
    build(session, &route).unwrap()
}

// ---- Test-side encoders, written from BOLT #4 / BOLT #1 (not from the
// library), so the vectors' `tlvs` objects can be compared with their bytes.

/// BigSize (BOLT #1).
pub fn bigsize_enc(v: u64) -> Vec<u8> {
    match v {
        0..=0xfc => vec![v as u8],
        0xfd..=0xffff => [&[0xfd][..], &(v as u16).to_be_bytes()].concat(),
        0x1_0000..=0xffff_ffff => [&[0xfe][..], &(v as u32).to_be_bytes()].concat(),
        _ => [&[0xff][..], &v.to_be_bytes()].concat(),
    }
}

/// Truncated unsigned integer (tu16/tu32/tu64): big-endian, no leading zeros.
pub fn tu(v: u64) -> Vec<u8> {
    let b = v.to_be_bytes();
    b[b.iter().position(|x| *x != 0).unwrap_or(8)..].to_vec()
}

/// A JSON number.
pub fn num(v: &Value) -> u64 {
    v.as_u64().expect("number")
}

/// `short_channel_id` written as "BLOCKxTXxOUTPUT": 3 + 3 + 2 bytes.
pub fn scid(v: &Value) -> Vec<u8> {
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
pub fn tlv_stream(mut recs: Vec<(u64, Vec<u8>)>) -> Vec<u8> {
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
pub fn unknown_tag(name: &str) -> Option<u64> {
    name.strip_prefix("unknown_tag_")
        .map(|n| n.parse().unwrap())
}

/// The `encrypted_data_tlv` / `encoded_tlvs` bytes described by a vector's
/// `tlvs` object (route blinding's `encrypted_recipient_data` TLVs). Every
/// field must be known: an unexpected one fails the test.
pub fn recipient_data(tlvs: &Value) -> Vec<u8> {
    let mut recs = Vec::new();
    for (name, v) in tlvs.as_object().unwrap() {
        let rec = match name.as_str() {
            "padding" => (1, val(v)),
            "short_channel_id" => (2, scid(v)),
            "next_node_id" => (4, val(v)),
            "path_id" => (6, val(v)),
            "next_path_key_override" => (8, val(v)),
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
                val(v),
            ),
        };
        recs.push(rec);
    }
    tlv_stream(recs)
}

/// A payment onion hop payload (without its length prefix) described by a
/// vector's `tlvs` object; `erd` is the sealed `encrypted_recipient_data`
/// (the object gives its plaintext).
pub fn payment_payload(tlvs: &Value, erd: Option<&[u8]>) -> Vec<u8> {
    let mut recs = Vec::new();
    for (name, v) in tlvs.as_object().unwrap() {
        recs.push(match name.as_str() {
            "amt_to_forward" => (2, tu(num(v))),
            "outgoing_cltv_value" => (4, tu(num(v))),
            "outgoing_channel_id" => (6, scid(v)),
            "encrypted_recipient_data" => (10, erd.expect("sealed data").to_vec()),
            "current_path_key" => (12, val(v)),
            "total_amount_msat" => (18, tu(num(v))),
            n => panic!("unknown field {n}"),
        });
    }
    tlv_stream(recs)
}
