//! MeshCore with the decoders and builders people use, both ways:
//! - what we build, `meshcoredecoder` 0.3.2 (PyPI) and
//!   `@michaelhart/meshcore-decoder` 0.3.0 (npm) decode to the same fields,
//!   decrypt to the same text and verify;
//! - what `pymc-core` 1.0.12 (PyPI) builds, we decode, verify and decrypt.
//!
//! Through `interop/meshcore/py_peer.py` and `js_peer.mjs`
//! ([`wireseal_bench::peers::meshcoredecoder`], [`meshcore_decoder_js`]); a
//! missing peer fails the test.

use serde_json::Value;
use std::process::Command;
use wireseal::meshcore::*;
use wireseal_bench::peers::{meshcore_decoder_js, meshcoredecoder, skip_or_fail};

/// MeshCore's own known-good test client (`src/Identity.cpp`).
const TEST_CLIENT: &str = "7065e18fd9fabb70c1ed90dca19907de698c88b709ea146eafd93d9b830c7b60\
c4681193c79bbc39945ba8064104bb618f8fd7a84a0af6f57033d6e8ddcd6471";

fn run(mut c: Command) -> Value {
    let o = c.output().expect("peer runs");
    assert!(
        o.status.success(),
        "peer failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(out.lines().last().unwrap_or_default()).expect("peer JSON")
}

fn run_text(mut c: Command) -> String {
    let o = c.output().expect("peer runs");
    assert!(
        o.status.success(),
        "peer failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_owned()
}

/// `decode HEX ARGS...` by each available decoder (None when a peer is
/// missing and skipping is allowed).
fn decode_both(raw: &[u8], py_args: &[String], js_args: &[String]) -> Option<(Value, Value)> {
    let (py, js) = match (meshcoredecoder(), meshcore_decoder_js()) {
        (Ok(py), Ok(js)) => (py, js),
        (Err(why), _) | (_, Err(why)) => {
            skip_or_fail(&why);
            return None;
        }
    };
    let h = hex::encode(raw);
    let mut a = py.command(["decode", h.as_str()]);
    a.args(py_args);
    let mut b = js.command(["decode", h.as_str()]);
    b.args(js_args);
    Some((run(a), run(b)))
}

#[test]
fn our_group_texts_decrypt_in_both_decoders() {
    let cases = [
        (
            ChannelKey::public(),
            "8b3387e9c5cdea6ac9e5edbaa115cd72",
            "Alice: hello",
        ),
        (
            ChannelKey::hashtag("#test").unwrap(),
            "9cd8fcf22a47333b591d96a2b848b73f",
            "Bob 🌲: 16+ bytes so it spans two blocks ✓",
        ),
    ];
    for (key, key_hex, text) in cases {
        let mut out = [0u8; 255];
        let n = key
            .encode_group_text(1_767_225_601, text, &mut out)
            .unwrap();
        let args = vec!["--channel-key".to_owned(), key_hex.to_owned()];
        let Some((py, js)) = decode_both(&out[..n], &args, &args) else {
            return;
        };
        for v in [&py, &js] {
            assert_eq!(v["accepted"], true, "{v}");
            assert_eq!(v["group"]["decrypted"]["text"], text, "{v}");
            assert_eq!(v["group"]["decrypted"]["timestamp"], 1_767_225_601, "{v}");
        }
        assert_eq!(
            py["pymc_core"]["packet_hash"],
            hex::encode(Packet::parse(&out[..n]).unwrap().hash())
        );
    }
}

#[test]
fn our_adverts_verify_in_both_decoders() {
    let id = LocalIdentity::from_hex(TEST_CLIENT).unwrap();
    let mut out = [0u8; 255];
    let advert = AdvertOut {
        node_type: NodeType::Chat,
        location: Some((45.4215, -75.6972)),
        name: "wireseal ✓ a name c✓t at a char",
    };
    let n = encode_advert(&id, 1_767_225_600, &advert, &mut out).unwrap();
    let Some((py, js)) = decode_both(&out[..n], &[], &[]) else {
        return;
    };
    for v in [&py, &js] {
        assert_eq!(v["advert"]["signature_valid"], true, "{v}");
        assert_eq!(v["advert"]["pub"], hex::encode(id.public().as_bytes()));
        assert_eq!(
            v["advert"]["name"], "wireseal ✓ a name c",
            "23 bytes with a location, cut before the second ✓"
        );
        assert_eq!(v["advert"]["lat"], 45.4215);
    }
}

#[test]
fn our_direct_messages_decrypt_in_meshcoredecoder() {
    let from = LocalIdentity::from_hex(TEST_CLIENT).unwrap();
    let to = LocalIdentity::from_seed(&[7u8; 32]).unwrap();
    for (attempt, text) in [
        (0u8, "hi from wireseal"),
        (0, "hello world"),
        (5, "fifth try"),
    ] {
        let mut out = [0u8; 255];
        let n = encode_text_message(&from, to.public(), 1_767_225_602, attempt, text, &mut out)
            .unwrap();
        let args = vec![
            "--node-key".to_owned(),
            hex::encode(to.private_key().expose()),
            "--peer".to_owned(),
            hex::encode(from.public().as_bytes()),
        ];
        let Some((py, _)) = decode_both(&out[..n], &args, &[]) else {
            return;
        };
        assert_eq!(py["peer_msg"]["decrypted"]["message"], text, "{py}");
    }
}

#[test]
fn what_pymc_core_builds_we_open() {
    let py = match meshcoredecoder() {
        Ok(p) => p,
        Err(why) => return skip_or_fail(&why),
    };
    let us = LocalIdentity::from_seed(&[9u8; 32]).unwrap();
    let them = LocalIdentity::from_hex(TEST_CLIENT).unwrap();
    let mut dec = Decoder::new();
    dec.add_channel(ChannelKey::public());
    dec.add_identity(LocalIdentity::from_seed(&[9u8; 32]).unwrap());
    dec.add_peer(*them.public());
    let prv = hex::encode(them.private_key().expose());

    let raw = hex::decode(run_text(py.command([
        "build-group",
        "--channel-key",
        "8b3387e9c5cdea6ac9e5edbaa115cd72",
        "--timestamp",
        "1767225601",
        "--text",
        "from pymc",
        "--sender",
        "Carol",
    ])))
    .unwrap();
    let Body::Group(g) = dec.decode(0, &raw).unwrap().body else {
        panic!()
    };
    let GroupContent::Text(m) = g.opened.expect("opened").content else {
        panic!()
    };
    assert_eq!(
        (m.text.as_str(), m.timestamp),
        ("Carol: from pymc", 1_767_225_601)
    );

    let raw = hex::decode(run_text(py.command([
        "build-advert",
        "--prv",
        &prv,
        "--name",
        "pymc node",
        "--timestamp",
        "1767225600",
        "--lat",
        "45.5",
        "--lon",
        "-75.25",
    ])))
    .unwrap();
    let Body::Advert(a) = dec.decode(0, &raw).unwrap().body else {
        panic!()
    };
    assert!(a.signature_valid);
    let f = a.data.unwrap();
    assert_eq!(
        (f.name.as_deref(), f.location),
        (Some("pymc node"), Some((45_500_000, -75_250_000)))
    );

    // 11 bytes of text: 5 + 11 = 16, so pymc-core's trailing NUL adds a block.
    for text in ["hi", "hello world", "a somewhat longer direct message"] {
        let raw = hex::decode(run_text(py.command([
            "build-dm",
            "--prv",
            &prv,
            "--peer",
            &hex::encode(us.public().as_bytes()),
            "--timestamp",
            "1767225602",
            "--text",
            text,
        ])))
        .unwrap();
        let Body::Peer(p) = dec.decode(0, &raw).unwrap().body else {
            panic!()
        };
        let PeerContent::Text(m) = p.opened.expect("opened").content else {
            panic!()
        };
        assert_eq!(m.text, text);
    }
}
