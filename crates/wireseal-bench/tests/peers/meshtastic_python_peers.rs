//! Meshtastic XEdDSA signatures and firmware 2.8 signature-policy scenarios
//! against the independent Python implementation: python-xeddsa (libxeddsa,
//! on libsodium) signs, we verify; we sign, it verifies; both derive the
//! same Ed25519 key from an X25519 key; and a fresh scenario from
//! `interop/meshtastic/policy_vectors.py` (new keys, the `meshtastic`
//! protobufs, `cryptography`) decodes as the script says under every policy.
//! A missing Python module fails these tests (skips only under
//! `WIRESEAL_ALLOW_MISSING_PEERS=1`).

use serde_json::Value;
use std::process::{Command, Stdio};
use wireseal::hazmat::xeddsa::XedSigningKey;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};
use wireseal_testkit::meshtastic_policy::{arr32, envelopes, hx, resigned, run_scenario};

fn interop(script: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../interop/meshtastic")
        .join(script)
}

/// Whether `python3` imports `modules`; a missing one fails the test unless
/// missing peers may be skipped.
fn python_has(modules: &str, install: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    wireseal_testkit::peer_present(
        (!ok).then(|| format!("python3 with {modules} ({install}) is missing")),
    )
}

const XEDDSA: &str = "pip install xeddsa==1.2.0";

fn fields(v: &Value) -> (u32, u32, u32, Vec<u8>) {
    let n = |k: &str| u32::try_from(v[k].as_u64().unwrap()).unwrap();
    (n("from"), n("id"), n("portnum"), hx(v, "payload"))
}

/// Sends `lines` to the peer's `verify` and returns its answers.
fn python_verifies(lines: &[Value]) -> Vec<String> {
    let out = wireseal_testkit::lines::feed(
        Command::new("python3")
            .arg(interop("xeddsa_peer.py"))
            .arg("verify"),
        lines,
    );
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn python_xeddsa_signatures_verify_and_match_ours() {
    if !python_has("xeddsa", XEDDSA) {
        return;
    }
    let out = Command::new("python3")
        .arg(interop("xeddsa_peer.py"))
        .args(["vectors", "64"])
        .output()
        .expect("run xeddsa_peer.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 64);
    for v in &lines {
        let (from, id, portnum, payload) = fields(v);
        let f = SignedFields {
            from,
            id,
            portnum,
            payload: &payload,
        };
        let sig = hx(v, "sig");
        let vk = VerifyingKey::from_x25519(&arr32(v, "pub")).unwrap();
        vk.verify(&f, &sig).expect("python's signature verifies");
        // Any change to a covered field breaks it.
        let moved = SignedFields {
            from: from ^ 1,
            ..f
        };
        assert!(vk.verify(&moved, &sig).is_err());
        let other_port = SignedFields {
            portnum: portnum + 1,
            ..f
        };
        assert!(vk.verify(&other_port, &sig).is_err());
        let mut bad = sig.clone();
        bad[5] ^= 0x20;
        assert!(vk.verify(&f, &bad).is_err());
        // Same private key: the same Ed25519 key (scalar negated when needed),
        // and our signature with python's Z verifies as well (the nonce
        // derivations may differ; any r gives a valid signature).
        let sk = XedSigningKey::from_x25519(&arr32(v, "priv"));
        assert_eq!(sk.ed25519_bytes(), vk.ed25519_bytes());
        let z: [u8; 64] = hx(v, "z").try_into().unwrap();
        let prefix = f.prefix();
        let ours = sk.sign(&[&prefix, &payload], &z);
        vk.verify(&f, &ours).expect("our signature verifies");
    }
}

#[test]
fn our_signatures_verify_in_python() {
    if !python_has("xeddsa", XEDDSA) {
        return;
    }
    let mut lines = Vec::new();
    let mut expect = Vec::new();
    for i in 0..48u32 {
        let node = StaticSecret::generate();
        let signer = SigningKey::from_secret(&node);
        let payload: Vec<u8> = (0..(i * 5 % 230)).map(|b| b as u8).collect();
        let f = SignedFields {
            from: 0x1000 + i,
            id: i.wrapping_mul(0x9e37_79b9),
            portnum: 1,
            payload: &payload,
        };
        let mut sig = signer.sign(&f);
        let good = i % 3 != 0;
        if !good {
            sig[63 - (i as usize % 60)] ^= 0x01;
        }
        expect.push(if good { "1" } else { "0" });
        lines.push(serde_json::json!({
            "pub": hex::encode(node.public_key()), "from": f.from, "id": f.id,
            "portnum": f.portnum, "payload": hex::encode(&payload), "sig": hex::encode(sig),
        }));
    }
    assert_eq!(python_verifies(&lines), expect);
}

#[test]
fn python_xeddsa_verifies_our_signatures_of_the_policy_scenario() {
    if !python_has("xeddsa", XEDDSA) {
        return;
    }
    let v: Value = serde_json::from_slice(
        &std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../vectors/meshtastic/policy.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let (_, signed) = resigned(&v);
    assert_eq!(python_verifies(&signed), vec!["1"; signed.len()]);
}

#[test]
fn a_fresh_scenario_from_the_independent_encoder() {
    if !python_has(
        "xeddsa, meshtastic.protobuf, cryptography",
        "pip install xeddsa==1.2.0 meshtastic==2.7.11 cryptography",
    ) {
        return;
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
