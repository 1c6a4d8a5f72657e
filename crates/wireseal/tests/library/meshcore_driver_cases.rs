//! The shared case table (`vectors/meshcore/driver_cases.json`) through the
//! library: every packet's record (its `serde` JSON), every malformed
//! packet's and bad key's error kind, reason and message, and the builders
//! reproducing the table's packets. The command line
//! (`crates/wireseal-cli/tests/cli/meshcore_cli_agree.rs`) and Python
//! (`tests/test_meshcore_agree.py`) run the same table.

use crate::common;

use serde_json::Value;
use wireseal::meshcore::{
    encode_advert, encode_text_message, AdvertOut, ChannelKey, Decoder, Error, LocalIdentity,
    NodeType, PublicIdentity,
};

fn table() -> Value {
    common::load_json("meshcore/driver_cases.json")
}

fn expect_error(case: &Value, e: Error) {
    let want = &case["error"];
    assert_eq!(e.kind().as_str(), want["kind"], "{case}");
    assert_eq!(e.reason(), want["reason"], "{case}");
    assert_eq!(e.to_string(), want["message"], "{case}");
}

/// A decoder with the case's keys, channels in the table's order.
fn decoder(case: &Value) -> Result<Decoder, Error> {
    let mut d = Decoder::new();
    for ch in case["channels"].as_array().into_iter().flatten() {
        d.add_channel(match ch["base64"].as_str() {
            Some(k) => ChannelKey::from_base64(k)?,
            None => ChannelKey::hashtag(ch["hashtag"].as_str().unwrap())?,
        });
    }
    if let Some(id) = case["identity"].as_str() {
        d.add_identity(LocalIdentity::from_hex(id)?);
    }
    for p in case["peers"].as_array().into_iter().flatten() {
        d.add_peer(PublicIdentity::from_slice(&common::unhex(
            p.as_str().unwrap(),
        ))?);
    }
    Ok(d)
}

#[test]
fn every_packet_gives_the_tables_record() {
    let v = table();
    for case in v["packets"].as_array().unwrap() {
        let mut d = decoder(case).unwrap();
        let got = d.decode(0, &common::hx(case, "packet_hex")).unwrap();
        let json = serde_json::to_value(&got).unwrap();
        assert_eq!(json, case["record"], "{}", case["what"]);
    }
}

#[test]
fn every_malformed_packet_gives_the_tables_error() {
    let v = table();
    let mut d = Decoder::new();
    d.add_channel(ChannelKey::public());
    for case in v["malformed"].as_array().unwrap() {
        let raw = common::hx(case, "packet_hex");
        expect_error(case, d.decode(0, &raw).unwrap_err());
        expect_error(case, wireseal::meshcore::Packet::parse(&raw).unwrap_err());
    }
}

#[test]
fn every_bad_key_gives_the_tables_error() {
    let v = table();
    for case in v["key_errors"].as_array().unwrap() {
        let e = if let Some(k) = case["channel_base64"].as_str() {
            ChannelKey::from_base64(k).unwrap_err()
        } else if let Some(id) = case["identity_hex"].as_str() {
            LocalIdentity::from_hex(id).unwrap_err()
        } else {
            PublicIdentity::from_slice(&common::hx(case, "peer_hex")).unwrap_err()
        };
        expect_error(case, e);
    }
}

/// The builders make the table's packets: the group text and the direct
/// message built with `cryptography`, the adverts the table holds.
#[test]
fn the_builders_make_the_tables_packets() {
    let v = table();
    let b = &v["builders"];
    let packet = |k: &str| {
        common::hx(
            &v["packets"][b[k]["case"].as_u64().unwrap() as usize],
            "packet_hex",
        )
    };
    let ts = |k: &str| b[k]["timestamp"].as_u64().unwrap() as u32;
    let text = |k: &str| b[k]["text"].as_str().unwrap().to_owned();
    let mut out = [0u8; 255];

    let ch = ChannelKey::from_base64(b["group_text"]["channel_base64"].as_str().unwrap()).unwrap();
    let n = ch
        .encode_group_text(ts("group_text"), &text("group_text"), &mut out)
        .unwrap();
    assert_eq!(out[..n], packet("group_text"));

    let client =
        LocalIdentity::from_hex(v["test_client"]["private_hex"].as_str().unwrap()).unwrap();
    assert_eq!(
        hex::encode(client.public().as_bytes()),
        v["test_client"]["public_hex"]
    );
    let to = LocalIdentity::from_hex(v["rfc8032_seed"]["seed_hex"].as_str().unwrap()).unwrap();
    assert_eq!(
        hex::encode(to.public().as_bytes()),
        v["rfc8032_seed"]["public_hex"]
    );
    let attempt = b["direct_text"]["attempt"].as_u64().unwrap() as u8;
    let n = encode_text_message(
        &client,
        to.public(),
        ts("direct_text"),
        attempt,
        &text("direct_text"),
        &mut out,
    )
    .unwrap();
    assert_eq!(out[..n], packet("direct_text"));

    for k in ["advert", "advert_long_name"] {
        let a = &b[k];
        let location = a["lat"].as_f64().zip(a["lon"].as_f64());
        let advert = AdvertOut {
            node_type: NodeType::Chat,
            location,
            name: a["name"].as_str().unwrap(),
        };
        let n = encode_advert(&client, ts(k), &advert, &mut out).unwrap();
        assert_eq!(out[..n], packet(k), "{k}");
    }
}
