//! Firmware 2.8 signatures, node identity and the three signature policies,
//! against `vectors/meshtastic/policy.json`: envelopes built and signed by
//! an independent encoder (python-xeddsa, the `meshtastic` protobufs,
//! `cryptography`, zlib's CRC-32) with, for every policy, what the firmware's
//! rules make of each packet, worked out by that script. The same packets
//! re-signed with this crate's signer give the same outcomes, and
//! python-xeddsa verifies those signatures; a fresh scenario from the
//! script (new keys) gives what it says too.

mod common;

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{
    Concern, Decoded, Decryption, Identity, Signature, SignaturePolicy, Verdict,
};
use wireseal::meshtastic::envelope::{self, PayloadVariant};
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey};
use wireseal::meshtastic::{node_number, ChannelKey, Decoder};

fn interop(script: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../interop/meshtastic")
        .join(script)
}

fn decoder(v: &Value, policy: SignaturePolicy) -> Decoder {
    let own = StaticSecret::from_bytes(&common::arr32(v, "our_private_hex")).unwrap();
    let node = v["our_node"].as_u64().unwrap() as u32;
    let mut d = Decoder::new()
        .with_signature_policy(policy)
        .with_node(node, own)
        .unwrap();
    d.add_channel("LongFast", &common::hx(&v["channel"], "psk_hex"))
        .unwrap();
    d
}

fn envelopes(v: &Value) -> Vec<Vec<u8>> {
    packets(v)
        .iter()
        .map(|p| common::hx(p, "envelope"))
        .collect()
}

fn packets(v: &Value) -> &Vec<Value> {
    v["packets"].as_array().unwrap()
}

/// The verdict the file names.
fn verdict(e: &Value) -> Verdict {
    let concern = |r: &Value| match r.as_str().unwrap() {
        "invalid-signature" => Concern::InvalidSignature,
        "malformed-signature" => Concern::MalformedSignature,
        "first-contact" => Concern::FirstContact,
        "unverifiable" => Concern::Unverifiable,
        "unsigned" => Concern::Unsigned,
        "downgrade" => Concern::Downgrade,
        "plain-admin" => Concern::PlainAdmin,
        other => panic!("unknown reason {other}"),
    };
    match e["policy"].as_str().unwrap() {
        "accept" => Verdict::Accept,
        "flag" => Verdict::Flag(concern(&e["policy_reason"])),
        "drop" => Verdict::Drop(concern(&e["policy_reason"])),
        other => panic!("unknown verdict {other}"),
    }
}

/// Decodes the scenario under every policy and checks each packet against
/// the file; returns the decoders.
fn run_scenario(v: &Value, envs: &[Vec<u8>]) -> Vec<(SignaturePolicy, Decoder)> {
    SignaturePolicy::ALL
        .into_iter()
        .map(|policy| {
            let mut d = decoder(v, policy);
            for (p, env) in packets(v).iter().zip(envs) {
                let got = d.decode(0, env).unwrap();
                check(p, policy, &got);
            }
            (policy, d)
        })
        .collect()
}

fn check(p: &Value, policy: SignaturePolicy, got: &Decoded) {
    let what = format!("{} ({policy})", p["what"]);
    let e = &p["expect"][policy.as_str()];
    assert_eq!(got.error, None, "{what}");
    assert_eq!(got.signature.as_str(), e["signature"], "{what}");
    assert_eq!(got.verdict, Some(verdict(e)), "{what}");
    assert_eq!(got.id as u64, p["id"].as_u64().unwrap(), "{what}");
    assert_eq!(
        got.portnum().map(i64::from),
        p["portnum"].as_i64(),
        "{what}"
    );
    let identity = got.identity.map(|i| i.as_str());
    assert_eq!(identity, p["identity"].as_str(), "{what}");
    if got.channel_id == "PKI" {
        assert_eq!(got.decryption, Decryption::Pkc, "{what}");
    }
}

#[test]
fn the_three_policies_decide_as_the_firmware() {
    let v = common::load_json("meshtastic/policy.json");
    let decoders = run_scenario(&v, &envelopes(&v));
    let node = |k: &str| v["nodes"][k]["node"].as_u64().unwrap() as u32;
    for (policy, d) in &decoders {
        let nodes = d.nodes();
        // The 2.8 node: pinned from its signed NodeInfo, a signer, its
        // number derived from its key.
        assert_eq!(
            nodes.identity(node("A")),
            Some(Identity::Matches),
            "{policy}"
        );
        assert!(nodes.is_signer(node("A")), "{policy}");
        // The node whose key does not hash to its number is never pinned.
        assert!(nodes.get(node("C")).is_none(), "{policy}");
        assert!(nodes.get(node("D")).is_none(), "{policy}");
        assert!(nodes.get(node("E")).is_none(), "{policy}");
        // The legacy node is pinned on first use, except under strict,
        // which drops its unsigned NodeInfo (then the direct message's key
        // is taken: the decoder's extension over the firmware).
        assert_eq!(
            nodes.identity(node("B")),
            Some(Identity::Legacy),
            "{policy}"
        );
        assert!(!nodes.is_signer(node("B")));
    }
}

#[test]
fn node_numbers_are_crc32_of_the_key() {
    let v = common::load_json("meshtastic/policy.json");
    for k in ["A", "D", "E"] {
        let n = &v["nodes"][k];
        assert_eq!(
            u64::from(node_number(&common::arr32(n, "public_hex"))),
            n["node"].as_u64().unwrap(),
            "{k}"
        );
    }
    for k in ["B", "C"] {
        let n = &v["nodes"][k];
        assert_ne!(
            u64::from(node_number(&common::arr32(n, "public_hex"))),
            n["node"].as_u64().unwrap()
        );
    }
}

#[test]
fn batch_decodes_as_one_at_a_time_under_every_policy() {
    let v = common::load_json("meshtastic/policy.json");
    let envs = envelopes(&v);
    let mut twice: Vec<&[u8]> = envs.iter().map(Vec::as_slice).collect();
    twice.extend(envs.iter().map(Vec::as_slice));
    for policy in SignaturePolicy::ALL {
        let mut one = decoder(&v, policy);
        let serial: Vec<_> = twice.iter().map(|e| one.decode(0, e)).collect();
        let mut many = decoder(&v, policy);
        let (a, b) = twice.split_at(7);
        let batch = Batch::with_threads(2);
        let mut got = many.decode_batch(0, &batch, a);
        got.extend(many.decode_batch(0, &batch, b));
        assert_eq!(got, serial, "{policy}");
        assert_eq!(many.nodes().len(), one.nodes().len());
    }
}

/// The scenario with every genuinely signed packet re-signed by this
/// crate; returns the new envelopes and what each new signature covers.
fn resigned(v: &Value) -> (Vec<Vec<u8>>, Vec<Value>) {
    let key = ChannelKey::from_psk(&common::hx(&v["channel"], "psk_hex")).unwrap();
    let mut signed = Vec::new();
    let envs = packets(v)
        .iter()
        .map(|p| {
            let bytes = common::hx(p, "envelope");
            let Some(signer) = p["signer"].as_str() else {
                return bytes;
            };
            let n = &v["nodes"][signer];
            let sk = StaticSecret::from_bytes(&common::arr32(n, "private_hex")).unwrap();
            let mut env = envelope::decode(&bytes).unwrap();
            let packet = env.packet.as_mut().unwrap();
            let Some(PayloadVariant::Encrypted(ct)) = &packet.payload_variant else {
                panic!("signed packets are channel packets")
            };
            let plain = key.open_to_vec(packet.from, packet.id, ct).unwrap();
            let mut data = envelope::decode_data(&plain).unwrap();
            let fields = SignedFields {
                from: packet.from,
                id: packet.id,
                portnum: data.portnum as u32,
                payload: &data.payload,
            };
            let sig = SigningKey::from_secret(&sk).sign(&fields);
            assert_ne!(
                sig.to_vec(),
                data.xeddsa_signature,
                "hedged: a new signature"
            );
            signed.push(serde_json::json!({
                "pub": n["public_hex"],
                "from": packet.from,
                "id": packet.id,
                "portnum": data.portnum,
                "payload": hex::encode(&data.payload),
                "sig": hex::encode(sig),
            }));
            data.xeddsa_signature = sig.to_vec();
            let ct = key
                .seal_to_vec(packet.from, packet.id, &envelope::encode_data(&data))
                .unwrap();
            packet.payload_variant = Some(PayloadVariant::Encrypted(ct));
            envelope::encode_to_vec(&env)
        })
        .collect();
    (envs, signed)
}

#[test]
fn our_signatures_give_the_same_outcomes() {
    let v = common::load_json("meshtastic/policy.json");
    let (envs, signed) = resigned(&v);
    assert_eq!(
        signed.len(),
        4,
        "D's text, A's NodeInfo and text, C's NodeInfo"
    );
    run_scenario(&v, &envs);
}

fn python_has(modules: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn python_xeddsa_verifies_our_signatures() {
    if !python_has("xeddsa") {
        return common::skip_or_fail(
            "python3 with the xeddsa package (pip install xeddsa==1.2.0) is missing",
        );
    }
    let v = common::load_json("meshtastic/policy.json");
    let (_, signed) = resigned(&v);
    let mut child = Command::new("python3")
        .arg(interop("xeddsa_peer.py"))
        .arg("verify")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for s in &signed {
        input.push_str(&s.to_string());
        input.push('\n');
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "1\n".repeat(signed.len())
    );
}

#[test]
fn a_fresh_scenario_from_the_independent_encoder() {
    if !python_has("xeddsa, meshtastic.protobuf, cryptography") {
        return common::skip_or_fail(
            "python3 with xeddsa, meshtastic and cryptography (pip install xeddsa==1.2.0 \
             meshtastic==2.7.11 cryptography) is missing",
        );
    }
    let out = Command::new("python3")
        .arg(interop("policy_vectors.py"))
        .arg("make")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    run_scenario(&v, &envelopes(&v));
}

#[test]
fn policy_outcomes_never_hide_the_contents() {
    let v = common::load_json("meshtastic/policy.json");
    let mut d = decoder(&v, SignaturePolicy::Strict);
    for env in envelopes(&v) {
        let got = d.decode(0, &env).unwrap();
        assert!(got.data.is_some(), "a dropped packet is still reported");
        if got.signature == Signature::Absent && got.decryption != Decryption::Pkc {
            assert_eq!(got.verdict, Some(Verdict::Drop(Concern::Unsigned)));
        }
    }
}
