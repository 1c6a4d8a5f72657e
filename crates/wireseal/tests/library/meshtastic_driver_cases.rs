//! The shared case table (`vectors/meshtastic/driver_cases.json`) through
//! the library: PSK text, channel payload lengths, PKC plaintext lengths and
//! key clamping. The command line (`crates/wireseal-cli/tests/
//! meshtastic_cli_agree.rs`) and Python (`tests/test_meshtastic_agree.py`)
//! run the same table and must give the same bytes and error kinds.

use crate::common;

use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{ChannelKey, Error, PkcEngine, PkcPacket};

fn cases(v: &serde_json::Value, k: &str) -> Vec<serde_json::Value> {
    v[k].as_array().unwrap().clone()
}

fn expect_error(case: &serde_json::Value, e: Error) {
    assert_eq!(e.kind().as_str(), case["error"], "{case}");
    let says = case["says"].as_str().unwrap();
    assert!(e.to_string().contains(says), "{case}: {e}");
}

#[test]
fn psk_text() {
    let v = common::load_json("meshtastic/driver_cases.json");
    let ch = &v["channel"];
    let (from, id) = (
        ch["from"].as_u64().unwrap() as u32,
        ch["id"].as_u64().unwrap() as u32,
    );
    let plain = common::hx(ch, "plaintext_hex");
    let default_ct = common::hx(ch, "default_key_ciphertext_hex");
    let default = ChannelKey::from_psk(&[1]).unwrap();
    for case in cases(&v, "psk_text") {
        let text = case["text"].as_str().unwrap();
        match text.parse::<ChannelKey>() {
            Ok(key) => {
                let want = ChannelKey::from_psk(&common::hx(&case, "psk_hex")).unwrap();
                assert_eq!(key.expanded(), want.expanded(), "{case}");
                assert_eq!(
                    key.padded_from().map(|n| n as u64),
                    case["padded_from"].as_u64(),
                    "{case}"
                );
                let ct = key.seal_to_vec(from, id, &plain).unwrap();
                if key.expanded() == default.expanded() {
                    assert_eq!(ct, default_ct, "{case}");
                } else if !key.is_encrypted() {
                    assert_eq!(ct, plain, "{case}");
                }
            }
            Err(e) => expect_error(&case, e),
        }
    }
}

#[test]
fn channel_and_pkc_lengths() {
    let v = common::load_json("meshtastic/driver_cases.json");
    let key = ChannelKey::from_psk(&[1]).unwrap();
    for case in cases(&v, "channel_lengths") {
        let data = vec![7u8; case["len"].as_u64().unwrap() as usize];
        match key.seal_to_vec(1, 2, &data) {
            Ok(ct) => assert_eq!(ct.len(), data.len()),
            Err(e) => expect_error(&case, e),
        }
    }
    let mut e = PkcEngine::new(StaticSecret::generate()).unwrap();
    let peer = *StaticSecret::generate().public_key();
    for case in cases(&v, "pkc_lengths") {
        let data = vec![7u8; case["len"].as_u64().unwrap() as usize];
        let packet = PkcPacket {
            peer_public: &peer,
            from: 1,
            id: 2,
        };
        match e.seal_to_vec(0, packet, &data) {
            Ok(sealed) => assert_eq!(sealed.len(), wireseal::meshtastic::sealed_len(data.len())),
            Err(err) => expect_error(&case, err),
        }
    }
}

#[test]
fn clamping() {
    let v = common::load_json("meshtastic/driver_cases.json");
    for case in cases(&v, "clamping") {
        let sk = StaticSecret::from_bytes(&common::arr32(&case, "private_hex")).unwrap();
        match PkcEngine::new(sk) {
            Ok(e) => assert_eq!(e.public_key(), &common::arr32(&case, "public_hex")),
            Err(err) => expect_error(&case, err),
        }
    }
}
