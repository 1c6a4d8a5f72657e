//! `wireseal peat` mesh-wide frames end to end, against the peat-btle
//! vectors: genesis, seal and open, secrets from files and the environment,
//! tampered, truncated and oversized frames, wrong-length seeds. Mesh-key
//! files from `genesis --out`: `peat_cli_genesis.rs`.

use std::process::Output;

use crate::support;

use support::peat::{fails, ok, ws};
use support::ws_env;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vectors/peat/meshwide_vectors.json"
);

/// The key of a vector's mesh, from the library (checked against the same
/// vectors in the library's own tests).
fn vector_key(mesh_id: &str, secret_hex: &str) -> wireseal::peat::MeshKey {
    let secret: [u8; 32] = hex::decode(secret_hex).unwrap().try_into().unwrap();
    wireseal::peat::MeshKey::derive(&mesh_id.parse().unwrap(), &secret)
}

#[test]
fn seal_and_open_every_vector() {
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(VECTORS).unwrap()).unwrap();
    let list = d["meshwide_vectors"].as_array().unwrap();
    assert_eq!(list.len(), 9);
    for v in list {
        let s = |k: &str| v[k].as_str().unwrap().to_owned();
        let (id, secret, pt, frame) = (
            s("mesh_id"),
            s("secret_hex"),
            s("plaintext_hex"),
            s("frame_hex"),
        );
        // peat-btle's frame opens to its plaintext.
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
        // Our frame (a fresh nonce) opens under the vector's key. An empty
        // plaintext is passed as an empty argument.
        let sealed = ok(&["peat", "seal", "--mesh-id", &id, "--secret", &secret, &pt]);
        let sealed = hex::decode(sealed.trim()).unwrap();
        assert_eq!(sealed.len(), frame.len() / 2, "same length as peat-btle's");
        let opened = vector_key(&id, &secret).open_to_vec(&sealed).unwrap();
        assert_eq!(hex::encode(opened), pt);
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
        "truncated",
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
    // Caller-chosen nonces are for the library's vector tests only.
    fails(
        &[
            "peat",
            "seal",
            "--mesh-id",
            "DEMO",
            "--secret",
            &secret,
            "--nonce",
            "000102030405060708090a0b",
            "aa",
        ],
        "unexpected argument '--nonce'",
    );
    fails(&["peat", "policy", "--data", "gossip"], "invalid data type");
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
    assert!(out.contains("mesh-id: CBE6FC55"), "{out}");
    assert!(
        out.contains("secret: 882125bc581b8c73b79e35e839534fe50f1583adf331b21c6c937a042ade5b32"),
        "{out}"
    );
}

/// A vector frame (mesh DEMO, secret 42 x32) and its plaintext.
const DEMO_FRAME: &str = "ae00000102030405060708090a0b38d9697c592c680c3c759655df471eba";

fn open_demo(frame: &str) -> Output {
    ws(&[
        "peat",
        "open",
        "--mesh-id",
        "DEMO",
        "--secret",
        &"42".repeat(32),
        frame,
    ])
}

fn assert_fails(o: &Output, needle: &str) {
    assert!(!o.status.success(), "should fail");
    assert!(o.stdout.is_empty(), "nothing on stdout");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(needle), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn open_rejects_tampered_truncated_and_oversized_frames() {
    let good = open_demo(DEMO_FRAME);
    assert!(good.status.success());
    let bytes = hex::decode(DEMO_FRAME).unwrap();
    // Tampered: nonce, ciphertext and tag bytes.
    for i in [2, 13, 14, bytes.len() - 1] {
        let mut t = bytes.clone();
        t[i] ^= 0x01;
        assert_fails(&open_demo(&hex::encode(&t)), "authentication failed");
    }
    // Oversized: bytes appended after the tag.
    let mut long = bytes.clone();
    long.extend_from_slice(&[0u8; 3]);
    assert_fails(&open_demo(&hex::encode(&long)), "authentication failed");
    // Truncated (this frame carries an empty document, so one byte less is
    // below the 30-byte minimum).
    for n in [0, 2, 14, bytes.len() - 1] {
        assert_fails(&open_demo(&hex::encode(&bytes[..n])), "truncated");
    }
    // Not a mesh-wide frame at all.
    let mut other = bytes.clone();
    other[0] = 0xAF;
    assert_fails(&open_demo(&hex::encode(&other)), "unexpected marker");
}

#[test]
fn secrets_from_file_and_environment() {
    let secret = "42".repeat(32);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mesh.secret");
    std::fs::write(&file, format!("{secret}\n")).unwrap();
    let file = file.to_str().unwrap();
    let env = [("PEAT_TEST_SECRET", secret.as_str())];
    let sealed = ws_env(
        &[
            "peat",
            "seal",
            "--mesh-id",
            "DEMO",
            "--secret-env",
            "PEAT_TEST_SECRET",
            "",
        ],
        &env,
    );
    assert!(sealed.status.success());
    let sealed = hex::decode(String::from_utf8_lossy(&sealed.stdout).trim()).unwrap();
    assert_eq!(vector_key("DEMO", &secret).open_to_vec(&sealed), Ok(vec![]));
    let opened = ok(&[
        "peat",
        "open",
        "--mesh-id",
        "DEMO",
        "--secret-file",
        file,
        DEMO_FRAME,
    ]);
    assert_eq!(opened.trim(), "");
    // One source only.
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret",
            &secret,
            "--secret-file",
            file,
            DEMO_FRAME,
        ],
        "cannot be used with",
    );
    fails(
        &["peat", "open", "--mesh-id", "DEMO", DEMO_FRAME],
        "--secret, --secret-file or --secret-env",
    );
    // Genesis seed from the environment and from a file: same mesh as argv.
    let seed = "42".repeat(32);
    let g = ws_env(
        &[
            "peat",
            "genesis",
            "--name",
            "ALPHA-TEAM",
            "--seed-env",
            "PEAT_TEST_SEED",
        ],
        &[("PEAT_TEST_SEED", seed.as_str())],
    );
    assert!(String::from_utf8_lossy(&g.stdout).contains("mesh-id: CBE6FC55"));
    let seed_file = dir.path().join("seed");
    std::fs::write(&seed_file, &seed).unwrap();
    let out = ok(&[
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--seed-file",
        seed_file.to_str().unwrap(),
    ]);
    assert!(out.contains("mesh-id: CBE6FC55"), "{out}");
}

#[test]
fn genesis_rejects_a_wrong_length_seed_without_echoing_it() {
    for seed in ["42".repeat(31), "42".repeat(33), "abc".to_string()] {
        let o = ws(&["peat", "genesis", "--name", "ALPHA-TEAM", "--seed", &seed]);
        assert_fails(&o, "--seed: expected 32 bytes written as 64 hex digits");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!e.contains(&seed), "{e}");
    }
    let o = ws(&["peat", "genesis", "--name", "X", "--seed", &"zz".repeat(32)]);
    assert_fails(&o, "the value is not shown");
    // Without a seed, a fresh one: two runs, two meshes.
    let a = ok(&["peat", "genesis", "--name", "X"]);
    let b = ok(&["peat", "genesis", "--name", "X"]);
    assert!(a.starts_with("mesh-id: ") && a.contains("secret: "), "{a}");
    assert_ne!(a, b);
}
