//! `wireseal meshtastic decode`: one captured envelope or bare MeshPacket
//! (hex, or raw bytes on stdin) to the gateway's JSON record, on the
//! envelopes of `vectors/meshtastic/policy.json` (built by an independent
//! encoder: the `meshtastic` protobufs, `cryptography`, python-xeddsa).

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn vectors() -> Value {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors/meshtastic/policy.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn packet<'a>(v: &'a Value, what: &str) -> &'a Value {
    v["packets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["what"].as_str().unwrap().starts_with(what))
        .unwrap_or_else(|| panic!("no packet {what:?}"))
}

fn decode(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(["meshtastic", "decode"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(b) = stdin {
        input.write_all(b).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn record(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)))
}

#[test]
fn a_signed_nodeinfo_is_decoded_with_its_identity() {
    let v = vectors();
    let p = packet(&v, "signed NodeInfo, first contact");
    let o = decode(&[p["envelope"].as_str().unwrap()], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = record(&o);
    assert_eq!(r["from"], p["from"]);
    assert_eq!(r["portnum"], 4);
    assert_eq!(r["portnum_name"], "NODEINFO_APP");
    assert_eq!(r["decryption"], "channel");
    assert_eq!(r["channel_name"], "LongFast");
    assert_eq!(r["kind"], "nodeinfo");
    assert_eq!(r["signature"], "valid");
    assert_eq!(r["policy"], "accept");
    assert_eq!(r["identity"], "matches");
    assert_eq!(r["node_identity"], "matches");
    assert_eq!(r["key_event"], "learned");
    assert_eq!(r["app"]["type"], "user");
    assert_eq!(r["app"]["long_name"], "Alpha");
    assert_eq!(r["app"]["public_key"], v["nodes"]["A"]["public_hex"]);
}

#[test]
fn a_direct_message_to_our_node_and_raw_stdin() {
    let v = vectors();
    let p = packet(&v, "PKC direct message");
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("node.key");
    std::fs::write(&key, v["our_private_hex"].as_str().unwrap()).unwrap();
    let node = format!("{}", v["our_node"]);
    let raw = hex::decode(p["envelope"].as_str().unwrap()).unwrap();
    let o = decode(
        &[
            "-",
            "--in-format",
            "raw",
            "--node",
            &node,
            "--key-file",
            key.to_str().unwrap(),
        ],
        Some(&raw),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = record(&o);
    assert_eq!(
        (r["decryption"].as_str(), r["text"].as_str()),
        (Some("pkc"), Some("dm"))
    );
    // Without our key: the record says why, and the exit status fails.
    let o = decode(&[p["envelope"].as_str().unwrap()], None);
    assert!(!o.status.success());
    assert_eq!(record(&o)["error"], "pkc_no_node_key");
    assert!(String::from_utf8_lossy(&o.stderr).contains("not decoded"));
}

#[test]
fn a_bare_mesh_packet_and_the_policy_note() {
    let v = vectors();
    let p = packet(&v, "a 10-byte signature field");
    let env = hex::decode(p["envelope"].as_str().unwrap()).unwrap();
    // ServiceEnvelope field 1 (0x0a), a one- or two-byte length, the packet.
    assert_eq!(env[0], 0x0a);
    let (len, at) = if env[1] & 0x80 == 0 {
        (usize::from(env[1]), 2)
    } else {
        (usize::from(env[1] & 0x7f) | usize::from(env[2]) << 7, 3)
    };
    let bare = hex::encode(&env[at..at + len]);
    let o = decode(
        &[&bare, "--as", "packet", "--signature-policy", "strict"],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = record(&o);
    assert_eq!(r["signature"], "malformed");
    assert_eq!(
        (r["policy"].as_str(), r["policy_reason"].as_str()),
        (Some("drop"), Some("malformed_signature"))
    );
    assert_eq!(r["channel_id"], "");
    assert!(String::from_utf8_lossy(&o.stderr).contains("strict signature policy drops"));
    // The same bytes found by `--as auto`.
    assert_eq!(record(&decode(&[&bare], None))["id"], p["id"]);
}

#[test]
fn bad_captures_and_wrong_keys_fail_clearly() {
    let v = vectors();
    let p = packet(&v, "signed text from a known signer");
    // The default key with two bytes swapped: the same channel hash.
    let swapped = "LongFast=hex:f1d4bb3a20290759f0bcffabcf4e6901";
    let o = decode(
        &[p["envelope"].as_str().unwrap(), "--channel", swapped],
        None,
    );
    assert!(!o.status.success());
    assert_eq!(record(&o)["error"], "wrong_channel_key");
    for (capture, says) in [
        ("zz", "not valid hex"),
        ("0aff", "neither a ServiceEnvelope nor a MeshPacket"),
    ] {
        let o = decode(&[capture], None);
        assert!(!o.status.success() && o.stdout.is_empty());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = decode(
        &[
            p["envelope"].as_str().unwrap(),
            "--signature-policy",
            "paranoid",
        ],
        None,
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("compatible, balanced, strict"));
}
