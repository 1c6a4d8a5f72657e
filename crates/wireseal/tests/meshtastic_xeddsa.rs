//! XEdDSA packet signatures against an independent implementation:
//! python-xeddsa (libxeddsa, on libsodium) signs, we verify; we sign, it
//! verifies; both derive the same Ed25519 key from an X25519 key.

mod common;

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};
use wireseal::hazmat::xeddsa::XedSigningKey;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};

fn peer_script() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../interop/meshtastic/xeddsa_peer.py")
}

fn python_has_xeddsa() -> bool {
    Command::new("python3")
        .args(["-c", "import xeddsa"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn fields(v: &Value) -> (u32, u32, u32, Vec<u8>) {
    let n = |k: &str| u32::try_from(v[k].as_u64().unwrap()).unwrap();
    (n("from"), n("id"), n("portnum"), common::hx(v, "payload"))
}

#[test]
fn python_xeddsa_signatures_verify_and_match_ours() {
    if !python_has_xeddsa() {
        return common::skip_or_fail(
            "python3 with the xeddsa package (pip install xeddsa) is missing",
        );
    }
    let out = Command::new("python3")
        .arg(peer_script())
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
        let sig = common::hx(v, "sig");
        let vk = VerifyingKey::from_x25519(&common::arr32(v, "pub")).unwrap();
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
        let sk = XedSigningKey::from_x25519(&common::arr32(v, "priv"));
        assert_eq!(sk.ed25519_bytes(), vk.ed25519_bytes());
        let z: [u8; 64] = common::hx(v, "z").try_into().unwrap();
        let prefix = f.prefix();
        let ours = sk.sign(&[&prefix, &payload], &z);
        vk.verify(&f, &ours).expect("our signature verifies");
    }
}

#[test]
fn our_signatures_verify_in_python() {
    if !python_has_xeddsa() {
        return common::skip_or_fail(
            "python3 with the xeddsa package (pip install xeddsa) is missing",
        );
    }
    let mut input = String::new();
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
        input.push_str(
            &serde_json::json!({
                "pub": hex::encode(node.public_key()), "from": f.from, "id": f.id,
                "portnum": f.portnum, "payload": hex::encode(&payload), "sig": hex::encode(sig),
            })
            .to_string(),
        );
        input.push('\n');
    }
    let mut child = Command::new("python3")
        .arg(peer_script())
        .arg("verify")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run xeddsa_peer.py");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(got, expect);
}

#[test]
fn hedged_signatures_differ_and_both_verify() {
    let node = StaticSecret::generate();
    let signer = SigningKey::from_secret(&node);
    let f = SignedFields {
        from: 1,
        id: 2,
        portnum: 1,
        payload: b"same message",
    };
    let (a, b) = (signer.sign(&f), signer.sign(&f));
    assert_ne!(a, b, "a fresh Z per signature");
    let vk = VerifyingKey::from_x25519(node.public_key()).unwrap();
    assert!(vk.verify(&f, &a).is_ok() && vk.verify(&f, &b).is_ok());
    assert_eq!(vk.ed25519_bytes(), signer.ed25519_bytes());
    assert!(
        vk.verify(&f, &a[..63]).is_err(),
        "a short signature is refused"
    );
    // u = -1 (p - 1) has no Ed25519 counterpart.
    let mut minus_one = [0xffu8; 32];
    minus_one[0] = 0xec;
    minus_one[31] = 0x7f;
    assert!(VerifyingKey::from_x25519(&minus_one).is_err());
}
