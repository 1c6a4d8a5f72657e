//! `wireseal peat ...` end to end, against the peat-btle vectors.

use std::process::{Command, Output};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vectors/peat/meshwide_vectors.json"
);

fn ws(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = ws(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn fails(args: &[&str], needle: &str) {
    let o = ws(args);
    assert!(!o.status.success(), "{args:?} should fail");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(needle), "{args:?}: {e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn seal_and_open_every_vector() {
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(VECTORS).unwrap()).unwrap();
    let list = d["meshwide_vectors"].as_array().unwrap();
    assert_eq!(list.len(), 9);
    for v in list {
        let s = |k: &str| v[k].as_str().unwrap().to_owned();
        let (id, secret, nonce, pt, frame) = (
            s("mesh_id"),
            s("secret_hex"),
            s("nonce_hex"),
            s("plaintext_hex"),
            s("frame_hex"),
        );
        // An empty plaintext is passed as an empty argument.
        let seal = [
            "peat",
            "seal",
            "--mesh-id",
            &id,
            "--secret",
            &secret,
            "--nonce",
            &nonce,
            &pt,
        ];
        assert_eq!(ok(&seal).trim(), frame);
        assert_eq!(
            ok(&[
                "peat",
                "open",
                "--mesh-id",
                &id,
                "--secret",
                &secret,
                &frame
            ])
            .trim(),
            pt
        );
    }
}

#[test]
fn random_nonce_round_trip() {
    let secret = "42".repeat(32);
    let a = ok(&[
        "peat",
        "seal",
        "--mesh-id",
        "DEMO",
        "--secret",
        &secret,
        "cafe",
    ]);
    let b = ok(&[
        "peat",
        "seal",
        "--mesh-id",
        "DEMO",
        "--secret",
        &secret,
        "cafe",
    ]);
    assert_ne!(a, b, "fresh nonces");
    assert!(a.starts_with("ae00"));
    assert_eq!(
        ok(&[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret",
            &secret,
            a.trim()
        ])
        .trim(),
        "cafe"
    );
}

#[test]
fn errors_are_clear() {
    let secret = "42".repeat(32);
    let frame = "ae00000102030405060708090a0b38d9697c592c680c3c759655df471eba";
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            "OTHER",
            "--secret",
            &secret,
            frame,
        ],
        "authentication failed",
    );
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret",
            &secret,
            "ae00",
        ],
        "too short",
    );
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret",
            "4242",
            frame,
        ],
        "expected 32 bytes",
    );
    fails(
        &[
            "peat",
            "seal",
            "--mesh-id",
            "DEMO",
            "--secret",
            &secret,
            "zz",
        ],
        "not valid hex",
    );
    fails(
        &[
            "peat",
            "seal",
            "--mesh-id",
            "DEMO",
            "--secret",
            &secret,
            "--nonce",
            "00",
            "aa",
        ],
        "expected 12 bytes",
    );
    fails(&["peat", "policy", "--data", "gossip"], "not a data type");
}

#[test]
fn genesis_example() {
    let out = ok(&[
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--seed",
        &"42".repeat(32),
    ]);
    assert!(out.contains("mesh_id: CBE6FC55"), "{out}");
    assert!(
        out.contains("secret:  882125bc581b8c73b79e35e839534fe50f1583adf331b21c6c937a042ade5b32"),
        "{out}"
    );
}

#[test]
fn policy_explains_its_decision() {
    let out = ok(&[
        "peat",
        "policy",
        "--level",
        "selective",
        "--data",
        "counter",
    ]);
    assert!(out.starts_with("protection: plain"), "{out}");
    let out = ok(&[
        "peat",
        "policy",
        "--data",
        "emergency",
        "--link",
        "trusted-local",
        "--adaptive-battery",
        "20",
        "--battery",
        "5",
    ]);
    assert!(out.starts_with("protection: mesh-wide"), "{out}");
    assert!(out.contains("decided by: AlwaysEncrypt"), "{out}");
    let out = ok(&[
        "peat",
        "policy",
        "--level",
        "mesh-wide",
        "--data",
        "chat",
        "--link",
        "untrusted-relay",
    ]);
    assert!(out.starts_with("protection: per-peer"), "{out}");
}

#[test]
fn key_exchange_and_per_peer_frames() {
    let a_sk = "a1".repeat(32);
    let b_sk = "b2".repeat(32);
    // The frame peat-btle produced for key a1 x32 of node 0x11111111.
    let kx = ok(&["peat", "keyx", "--node", "0x11111111", "--private", &a_sk]);
    assert_eq!(
        kx.trim(),
        "b0001111111100c306fb0ef2bf8b7f93bad98155fa37daec74db0c4cbeda6c6f1dba9d36558252"
    );
    let b_kx = ok(&["peat", "keyx", "--node", "0x22222222", "--private", &b_sk]);
    let b_pk = &b_kx.trim()[14..];
    let a_pk = &kx.trim()[14..];
    let f = ok(&[
        "peat",
        "peer-seal",
        "--node",
        "0x11111111",
        "--private",
        &a_sk,
        "--peer",
        "0x22222222",
        "--peer-key",
        b_pk,
        "68656c6c6f",
    ]);
    assert!(f.starts_with("af002222222211111111"), "{f}");
    let pt = ok(&[
        "peat",
        "peer-open",
        "--node",
        "0x22222222",
        "--private",
        &b_sk,
        "--peer",
        "0x11111111",
        "--peer-key",
        a_pk,
        f.trim(),
    ]);
    assert_eq!(pt.trim(), "68656c6c6f");
    // The wrong peer key cannot open it.
    fails(
        &[
            "peat",
            "peer-open",
            "--node",
            "0x22222222",
            "--private",
            &b_sk,
            "--peer",
            "0x11111111",
            "--peer-key",
            b_pk,
            f.trim(),
        ],
        "authentication failed",
    );
}
