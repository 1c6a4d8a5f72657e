//! The `wireseal meshtastic` and `keygen` commands, run as a user would,
//! checked against the firmware's vectors.

use std::process::{Command, Output};

use crate::support;

use support::{success_stdout, ws_env};

const OUR_PRIVATE: &str = "a00330633e63522f8a4d81ec6d9d1e6617f6c8ffd3a4c698229537d44e522277";
const SENDER_PUBLIC: &str = "db18fc50eea47f00251cb784819a3cf5fc361882597f589f0d7ff820e8064457";
/// The PKC payload of the firmware's radio-frame vector (after the 16-byte header).
const PAYLOAD: &str = "40df24abfcc30a17a3d9046726099e796a1c036a792b";
const PLAINTEXT: &str = "08011204746573744800";

fn wireseal(args: &[&str]) -> Output {
    ws_env(args, &[])
}

fn ok(args: &[&str]) -> String {
    success_stdout(wireseal(args), args).trim().to_string()
}

fn fails(args: &[&str], needle: &str) {
    let o = wireseal(args);
    assert!(!o.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(needle),
        "{args:?}: stderr {err:?} lacks {needle:?}"
    );
    assert!(o.stdout.is_empty(), "nothing on stdout when failing");
}

#[test]
fn pkc_decrypt_firmware_frame() {
    let args = [
        "meshtastic",
        "pkc-decrypt",
        "--key",
        OUR_PRIVATE,
        "--peer-key",
        SENDER_PUBLIC,
        "--from",
        "2345",
        "--id",
        "0x13b2d662",
        PAYLOAD,
    ];
    assert_eq!(ok(&args), PLAINTEXT);
}

#[test]
fn pkc_encrypt_round_trips_with_a_fresh_extra_nonce() {
    // X25519 is symmetric: our side of the firmware's pair seals what the
    // same pair opens. The extraNonce is fresh each time (no flag chooses it).
    let args = [
        "meshtastic",
        "pkc-encrypt",
        "--key",
        OUR_PRIVATE,
        "--peer-key",
        SENDER_PUBLIC,
        "--from",
        "0x929",
        "--id",
        "330487394",
        PLAINTEXT,
    ];
    let (a, b) = (ok(&args), ok(&args));
    assert_eq!(a.len(), PAYLOAD.len());
    assert_ne!(
        a[a.len() - 8..],
        b[b.len() - 8..],
        "a fresh extraNonce each time"
    );
    for payload in [&a, &b] {
        let open = [
            "meshtastic",
            "pkc-decrypt",
            "--key",
            OUR_PRIVATE,
            "--peer-key",
            SENDER_PUBLIC,
            "--from",
            "0x929",
            "--id",
            "330487394",
            payload,
        ];
        assert_eq!(ok(&open), PLAINTEXT);
    }
    let mut chosen = args.to_vec();
    chosen.splice(10..10, ["--extra-nonce", "036a792b"]);
    fails(&chosen, "--extra-nonce");
}

#[test]
fn private_key_from_env_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("key");
    std::fs::write(&f, format!("{OUR_PRIVATE}\n")).unwrap();
    let base = [
        "meshtastic",
        "pkc-decrypt",
        "--peer-key",
        SENDER_PUBLIC,
        "--from",
        "2345",
        "--id",
        "330487394",
    ];
    let mut a: Vec<&str> = base.to_vec();
    a.extend(["--key-file", f.to_str().unwrap(), PAYLOAD]);
    assert_eq!(ok(&a), PLAINTEXT);
    let o = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(base)
        .args(["--key-env", "MY_NODE_KEY", PAYLOAD])
        .env("MY_NODE_KEY", OUR_PRIVATE)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(o.stdout).unwrap().trim(), PLAINTEXT);
}

#[test]
fn keygen_pair_round_trips() {
    let parse = |s: String| -> (String, String) {
        let mut priv_ = String::new();
        let mut pub_ = String::new();
        for l in s.lines() {
            if let Some(v) = l.strip_prefix("key:") {
                priv_ = v.trim().into();
            }
            if let Some(v) = l.strip_prefix("public-key:") {
                pub_ = v.trim().into();
            }
        }
        assert_eq!((priv_.len(), pub_.len()), (64, 64));
        (priv_, pub_)
    };
    let (a_priv, a_pub) = parse(ok(&["keygen", "x25519"]));
    let (b_priv, b_pub) = parse(ok(&["keygen", "x25519"]));
    let ct = ok(&[
        "meshtastic",
        "pkc-encrypt",
        "--key",
        &a_priv,
        "--peer-key",
        &b_pub,
        "--from",
        "1",
        "--id",
        "2",
        "68656c6c6f",
    ]);
    let pt = ok(&[
        "meshtastic",
        "pkc-decrypt",
        "--key",
        &b_priv,
        "--peer-key",
        &a_pub,
        "--from",
        "1",
        "--id",
        "2",
        &ct,
    ]);
    assert_eq!(pt, "68656c6c6f");
}

#[test]
fn channel_commands_match_derived_vector() {
    let enc = [
        "meshtastic",
        "channel-encrypt",
        "--psk",
        "AQ==",
        "--from",
        "0x929",
        "--id",
        "0x13b2d662",
        PLAINTEXT,
    ];
    assert_eq!(ok(&enc), "46f2ecd0b02ac4cf2be5");
    let dec = [
        "meshtastic",
        "channel-decrypt",
        "--psk",
        "AQ==",
        "--from",
        "0x929",
        "--id",
        "0x13b2d662",
        "46f2ecd0b02ac4cf2be5",
    ];
    assert_eq!(ok(&dec), PLAINTEXT);
    assert_eq!(
        ok(&[
            "meshtastic",
            "channel-hash",
            "--name",
            "LongFast",
            "--psk",
            "AQ=="
        ]),
        "08"
    );
    assert_eq!(
        ok(&[
            "meshtastic",
            "channel-hash",
            "--name",
            "MediumFast",
            "--psk",
            "AQ=="
        ]),
        "1f"
    );
}

#[test]
fn bad_input_fails_clearly() {
    let mut tampered = PAYLOAD.to_string();
    tampered.replace_range(0..2, "41");
    let base = |p: &str| {
        vec![
            "meshtastic".to_string(),
            "pkc-decrypt".into(),
            "--key".into(),
            OUR_PRIVATE.into(),
            "--peer-key".into(),
            SENDER_PUBLIC.into(),
            "--from".into(),
            "2345".into(),
            "--id".into(),
            "330487394".into(),
            p.into(),
        ]
    };
    let run = |v: Vec<String>, needle: &str| {
        fails(&v.iter().map(String::as_str).collect::<Vec<_>>(), needle)
    };
    run(base(&tampered), "authentication failed");
    run(base("zz"), "not valid hex");
    run(base("0011"), "truncated");
    run(base(&"00".repeat(240)), "too long");
    fails(
        &[
            "meshtastic",
            "pkc-decrypt",
            "--key",
            "0011",
            "--peer-key",
            SENDER_PUBLIC,
            "--from",
            "1",
            "--id",
            "1",
            PAYLOAD,
        ],
        "expected 32 bytes",
    );
    fails(
        &[
            "meshtastic",
            "pkc-decrypt",
            "--peer-key",
            SENDER_PUBLIC,
            "--from",
            "1",
            "--id",
            "1",
            PAYLOAD,
        ],
        "give --key, --key-file or --key-env",
    );
    fails(
        &[
            "meshtastic",
            "pkc-decrypt",
            "--key",
            OUR_PRIVATE,
            "--peer-key",
            SENDER_PUBLIC,
            "--from",
            "4294967296",
            "--id",
            "1",
            PAYLOAD,
        ],
        "32-bit",
    );
    fails(
        &[
            "meshtastic",
            "pkc-encrypt",
            "--key",
            OUR_PRIVATE,
            "--peer-key",
            &"00".repeat(32),
            "--from",
            "1",
            "--id",
            "1",
            "00",
        ],
        "weak",
    );
    fails(
        &[
            "meshtastic",
            "channel-encrypt",
            "--psk",
            "!!",
            "--from",
            "1",
            "--id",
            "1",
            "00",
        ],
        "base64",
    );
    fails(
        &[
            "meshtastic",
            "channel-hash",
            "--name",
            "x",
            "--psk",
            &"QUFB".repeat(12),
        ],
        "PSK",
    );
    fails(
        &[
            "meshtastic",
            "pkc-decrypt",
            "--key-env",
            "WIRESEAL_UNSET_VAR_XYZ",
            "--peer-key",
            SENDER_PUBLIC,
            "--from",
            "1",
            "--id",
            "1",
            PAYLOAD,
        ],
        "not set",
    );
}

#[test]
fn psk_from_file_and_env() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("psk");
    std::fs::write(&f, "AQ==\n").unwrap();
    let base = [
        "meshtastic",
        "channel-encrypt",
        "--from",
        "0x929",
        "--id",
        "0x13b2d662",
    ];
    let mut a: Vec<&str> = base.to_vec();
    a.extend(["--psk-file", f.to_str().unwrap(), PLAINTEXT]);
    assert_eq!(ok(&a), "46f2ecd0b02ac4cf2be5");
    let o = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(["meshtastic", "channel-hash", "--name", "LongFast"])
        .args(["--psk-env", "MY_CHANNEL_PSK"])
        .env("MY_CHANNEL_PSK", "AQ==")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).unwrap().trim(), "08");
    // No PSK at all, or a malformed one: a clear error that does not quote it.
    let mut none: Vec<&str> = base.to_vec();
    none.push(PLAINTEXT);
    fails(&none, "give --psk, --psk-file or --psk-env");
    let mut bad: Vec<&str> = base.to_vec();
    bad.extend(["--psk", "Zm9v!!", PLAINTEXT]);
    let o = wireseal(&bad);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("neither base64 nor hex") && !err.contains("Zm9v"),
        "{err}"
    );
}

#[test]
fn hex_psk_is_hex_and_ambiguity_is_refused() {
    // The default key written out as hex: the same ciphertext as AQ==.
    let enc = |psk: &str| {
        wireseal(&[
            "meshtastic",
            "channel-encrypt",
            "--psk",
            psk,
            "--from",
            "0x929",
            "--id",
            "0x13b2d662",
            PLAINTEXT,
        ])
    };
    for psk in [
        "d4f1bb3a20290759f0bcffabcf4e6901",
        "hex:d4f1bb3a20290759f0bcffabcf4e6901",
        "1PG7OiApB1nwvP+rz05pAQ==",
    ] {
        let o = enc(psk);
        assert!(
            o.status.success(),
            "{psk}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            String::from_utf8(o.stdout).unwrap().trim(),
            "46f2ecd0b02ac4cf2be5"
        );
    }
    let o = enc("0A");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("both hex and base64"));
}

#[test]
fn channel_decrypt_with_a_wrong_psk_fails_unless_raw() {
    let dec = |psk: &str, raw: bool| {
        let mut a = vec![
            "meshtastic",
            "channel-decrypt",
            "--psk",
            psk,
            "--from",
            "0x929",
            "--id",
            "0x13b2d662",
        ];
        if raw {
            a.push("--raw");
        }
        a.push("46f2ecd0b02ac4cf2be5");
        wireseal(&a)
    };
    let o = dec("AQ==", false);
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap().trim(), PLAINTEXT);
    fails(
        &[
            "meshtastic",
            "channel-decrypt",
            "--psk",
            "Ag==",
            "--from",
            "0x929",
            "--id",
            "0x13b2d662",
            "46f2ecd0b02ac4cf2be5",
        ],
        "not a Meshtastic Data message",
    );
    let o = dec("Ag==", true);
    assert!(o.status.success());
    let garbage = String::from_utf8(o.stdout).unwrap();
    assert_eq!(garbage.trim().len(), PLAINTEXT.len());
    assert_ne!(garbage.trim(), PLAINTEXT);
}

#[test]
fn unclamped_private_key_is_refused() {
    // The same key with bit 0 set: X25519 would clamp it back to the
    // vector's key, but the firmware (which does not clamp at agreement time)
    // would not, so the library refuses it rather than disagree silently.
    let mut unclamped = OUR_PRIVATE.to_string();
    unclamped.replace_range(0..2, "a1");
    fails(
        &[
            "meshtastic",
            "pkc-decrypt",
            "--key",
            &unclamped,
            "--peer-key",
            SENDER_PUBLIC,
            "--from",
            "2345",
            "--id",
            "0x13b2d662",
            PAYLOAD,
        ],
        "not clamped",
    );
}
