//! The shared case table (`vectors/meshtastic/driver_cases.json`) through
//! the `wireseal` binary: the same bytes as the library, and the same error
//! kinds and messages (`--json` errors carry the library's kind). The
//! library and Python run the same table.

use serde_json::Value;
use std::process::{Command, Output};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{ChannelKey, PkcEngine};

const PEER: &str = "db18fc50eea47f00251cb784819a3cf5fc361882597f589f0d7ff820e8064457";

fn table() -> Value {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors/meshtastic/driver_cases.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn json_run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .arg("--json")
        .args(args)
        .output()
        .unwrap()
}

/// The result's JSON (stdout) or the error's (stderr).
fn result(o: &Output) -> Result<Value, Value> {
    if o.status.success() {
        Ok(serde_json::from_slice(&o.stdout).unwrap())
    } else {
        assert!(o.stdout.is_empty(), "nothing on stdout when failing");
        let line = String::from_utf8_lossy(&o.stderr);
        let last = line.lines().last().unwrap_or("");
        Err(serde_json::from_str(last).unwrap_or_else(|_| panic!("not JSON: {line}")))
    }
}

fn expect_error(case: &Value, e: &Value) {
    assert_eq!(e["kind"], case["error"], "{case}: {e}");
    let says = case["says"].as_str().unwrap();
    assert!(e["error"].as_str().unwrap().contains(says), "{case}: {e}");
}

fn hx(v: &Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().unwrap()).unwrap()
}

#[test]
fn psk_text_gives_the_librarys_bytes_and_errors() {
    let v = table();
    let ch = &v["channel"];
    let (from, id) = (ch["from"].to_string(), ch["id"].to_string());
    let plain = ch["plaintext_hex"].as_str().unwrap();
    for case in v["psk_text"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let o = json_run(&[
            "meshtastic",
            "channel-encrypt",
            "--psk",
            text,
            "--from",
            &from,
            "--id",
            &id,
            plain,
        ]);
        match result(&o) {
            Ok(got) => {
                let key = ChannelKey::from_psk(&hx(case, "psk_hex")).unwrap();
                let want = key
                    .seal_to_vec(
                        from.parse().unwrap(),
                        id.parse().unwrap(),
                        &hex::decode(plain).unwrap(),
                    )
                    .unwrap();
                assert_eq!(got["data"], hex::encode(want), "{case}");
                let note = String::from_utf8_lossy(&o.stderr);
                assert_eq!(
                    case.get("padded_from").is_some(),
                    note.contains("zero-padded"),
                    "{case}"
                );
            }
            Err(e) => {
                expect_error(case, &e);
                if !text.is_empty() {
                    assert!(
                        !e["error"].as_str().unwrap().contains(text),
                        "the PSK is shown: {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn channel_and_pkc_lengths() {
    let v = table();
    for case in v["channel_lengths"].as_array().unwrap() {
        let data = "07".repeat(case["len"].as_u64().unwrap() as usize);
        let o = json_run(&[
            "meshtastic",
            "channel-encrypt",
            "--psk",
            "AQ==",
            "--from",
            "1",
            "--id",
            "2",
            &data,
        ]);
        match result(&o) {
            Ok(got) => assert_eq!(got["data"].as_str().unwrap().len(), data.len()),
            Err(e) => expect_error(case, &e),
        }
    }
    let key = hex::encode(StaticSecret::generate().expose());
    for case in v["pkc_lengths"].as_array().unwrap() {
        let data = "07".repeat(case["len"].as_u64().unwrap() as usize);
        let o = json_run(&[
            "meshtastic",
            "pkc-encrypt",
            "--key",
            &key,
            "--peer-key",
            PEER,
            "--from",
            "1",
            "--id",
            "2",
            &data,
        ]);
        match result(&o) {
            Ok(got) => assert_eq!(got["payload"].as_str().unwrap().len(), data.len() + 24),
            Err(e) => expect_error(case, &e),
        }
    }
}

#[test]
fn clamping() {
    let v = table();
    for case in v["clamping"].as_array().unwrap() {
        let key = case["private_hex"].as_str().unwrap();
        let o = json_run(&[
            "meshtastic",
            "pkc-encrypt",
            "--key",
            key,
            "--peer-key",
            PEER,
            "--from",
            "1",
            "--id",
            "2",
            "00",
        ]);
        match result(&o) {
            Ok(got) => {
                // The library accepts the same key, and opens what the CLI sealed.
                let sk =
                    StaticSecret::from_bytes(&hx(case, "private_hex").try_into().unwrap()).unwrap();
                let mut e = PkcEngine::new(sk).unwrap();
                assert_eq!(
                    hex::encode(e.public_key()),
                    case["public_hex"].as_str().unwrap()
                );
                let peer: [u8; 32] = hex::decode(PEER).unwrap().try_into().unwrap();
                let packet = wireseal::meshtastic::PkcPacket {
                    peer_public: &peer,
                    from: 1,
                    id: 2,
                };
                let sealed = hex::decode(got["payload"].as_str().unwrap()).unwrap();
                assert_eq!(e.open_to_vec(0, packet, &sealed).unwrap(), [0]);
            }
            Err(e) => expect_error(case, &e),
        }
    }
}
