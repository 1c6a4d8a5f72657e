//! The command line as a daily tool, run as a user would: hex data, keys and
//! raw bytes on stdin, `--json` on every command, messages, help and
//! completions.

use serde_json::Value;

use crate::support;

use support::daily::{
    json, keygen, ok, ok_output, pkc_args, run, run_with, OUR_PRIVATE, PAYLOAD, PLAINTEXT,
    SENDER_PUBLIC,
};
use support::s;

#[test]
fn hex_data_and_keys_from_stdin() {
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
        "-",
    ];
    let spaced = format!("{}\n  {}\n", &PAYLOAD[..10], &PAYLOAD[10..]);
    let out = ok_output(run_with(&args, Some(spaced.as_bytes()), &[]), &args);
    assert_eq!(out, PLAINTEXT);
    // Raw bytes out.
    let mut raw = args.to_vec();
    raw.extend(["--out-format", "raw"]);
    let o = run_with(&raw, Some(PAYLOAD.as_bytes()), &[]);
    assert_eq!(o.stdout, hex::decode(PLAINTEXT).unwrap());
    // The key from stdin instead.
    let key_args = [
        "meshtastic",
        "pkc-decrypt",
        "--key-file",
        "-",
        "--peer-key",
        SENDER_PUBLIC,
        "--from",
        "2345",
        "--id",
        "0x13b2d662",
        PAYLOAD,
    ];
    let o = run_with(&key_args, Some(OUR_PRIVATE.as_bytes()), &[]);
    assert_eq!(ok_output(o, &key_args), PLAINTEXT);
    // Two readers of stdin are refused.
    let both = ["peat", "seal", "--mesh-id", "A", "--secret-file", "-", "-"];
    let o = run_with(&both, Some(OUR_PRIVATE.as_bytes()), &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("already read"));
    // Raw bytes in: peat seal then open round trip.
    let sealed = ok_output(
        run_with(
            &[
                "peat",
                "seal",
                "--mesh-id",
                "A",
                "--secret",
                OUR_PRIVATE,
                "--in-format",
                "raw",
                "-",
            ],
            Some(b"hello"),
            &[],
        ),
        &["peat seal raw"],
    );
    let o = run(&[
        "peat",
        "open",
        "--mesh-id",
        "a",
        "--secret",
        OUR_PRIVATE,
        "--out-format",
        "raw",
        &sealed,
    ]);
    assert_eq!(o.stdout, b"hello");
}

#[test]
fn every_command_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    let (xk, xpub) = keygen(dir.path(), "x25519");
    let (sk, spub) = keygen(dir.path(), "secp256k1");
    let v = json(&["keygen", "secp256k1"]);
    assert_eq!(v["kind"], "secp256k1");
    let before: Value =
        serde_json::from_str(&ok(&["--json", "pubkey", "x25519", "--key-file", &xk]))
            .expect("--json before the subcommand");
    assert_eq!(before["public_key"], xpub.as_str());
    assert_eq!(s(&v["key"]).len(), 64);
    assert_eq!(
        json(&["pubkey", "x25519", "--key-file", &xk])["public_key"],
        xpub.as_str()
    );
    let m = |cmd: &str, data: &str| json(&pkc_args(cmd, &xk, &xpub, data));
    let payload = m("pkc-encrypt", "00ff");
    assert_eq!(
        m("pkc-decrypt", s(&payload["payload"]))["plaintext"],
        "00ff"
    );
    let c = json(&[
        "meshtastic",
        "channel-encrypt",
        "--psk",
        "AQ==",
        "--from",
        "1",
        "--id",
        "2",
        "00",
    ]);
    assert!(c["data"].is_string());
    assert_eq!(
        json(&[
            "meshtastic",
            "channel-hash",
            "--name",
            "LongFast",
            "--psk",
            "AQ=="
        ])["hash"],
        "08"
    );
    let g = json(&[
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--seed",
        &"42".repeat(32),
    ]);
    assert_eq!(g["mesh_id"], "CBE6FC55");
    let f = json(&[
        "peat",
        "seal",
        "--mesh-id",
        "cbe6fc55",
        "--secret",
        s(&g["secret"]),
        "0102",
    ]);
    let o = json(&[
        "peat",
        "open",
        "--mesh-id",
        "CBE6FC55",
        "--secret",
        s(&g["secret"]),
        s(&f["frame"]),
    ]);
    assert_eq!(o["plaintext"], "0102");
    assert!(json(&["peat", "keyx", "--node", "0x11", "--key-file", &xk])["frame"].is_string());
    let peer = |cmd: &str, counter: Option<&str>, data: &str| {
        let (node, other) = if cmd == "peer-seal" {
            ("1", "2")
        } else {
            ("2", "1")
        };
        let mut a = vec![
            "peat",
            cmd,
            "--node",
            node,
            "--key-file",
            &xk,
            "--peer",
            other,
            "--peer-key",
            &xpub,
        ];
        if let Some(c) = counter {
            a.extend(["--counter", c]);
        }
        a.push(data);
        json(&a)
    };
    let pf = peer("peer-seal", Some("0x10"), "abcd");
    assert_eq!(
        peer("peer-open", None, s(&pf["frame"]))["plaintext"],
        "abcd"
    );
    let p = json(&[
        "peat",
        "policy",
        "--data",
        "emergency",
        "--level",
        "none",
        "--link",
        "known-peer",
    ]);
    assert_eq!(p["protection"], "mesh-wide");
    assert_eq!(p["decided_by"], "always-encrypt");
    assert_eq!(p["link"], "known-peer");
    let onion = json(&[
        "sphinx",
        "build",
        "--session-key-file",
        &sk,
        "--hop",
        &format!("{spub}:0203"),
    ]);
    let peeled = json(&["sphinx", "peel", "--key-file", &sk, s(&onion["onion"])]);
    let created = json(&[
        "sphinx",
        "error",
        "create",
        "--key-file",
        &sk,
        "--onion",
        s(&onion["onion"]),
        "--message",
        "2002",
    ]);
    let by_key = json(&[
        "sphinx",
        "error",
        "create",
        "--key-file",
        &sk,
        "--ephemeral-key",
        s(&peeled["ephemeral_key"]),
        "--message",
        "2002",
    ]);
    assert_eq!(created, by_key);
    let u = json(&[
        "sphinx",
        "error",
        "unwrap",
        "--session-key-file",
        &sk,
        "--peer-key",
        &spub,
        s(&created["packet"]),
    ]);
    assert_eq!(u["hop"], 1);
    assert_eq!(u["node_key"], spub.as_str());
    assert_eq!(u["message"], "2002");
    // The transport and file commands accept the flag too.
    for args in [
        vec!["bip324", "connect", "--help"],
        vec!["aescrypt", "encrypt", "--help"],
    ] {
        let mut a = args.clone();
        a.insert(1, "--json");
        assert!(run(&a).status.success(), "{a:?}");
    }
}

/// One name per command and flag: the names used before the formats' own
/// (`v2`, `onion`, `file`, `--private`, `--node-key`, `--peer-public`,
/// `--hop-pubkey`) are refused as unknown.
#[test]
fn only_the_formats_names_are_accepted() {
    for cmd in ["v2", "onion", "file"] {
        let o = run(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(2), "{cmd} is not a command");
    }
    for flag in ["--private", "--node-key", "--private-file", "--private-env"] {
        let o = run(&["pubkey", "x25519", flag, "00"]);
        assert_eq!(o.status.code(), Some(2), "{flag} is not a flag");
        assert!(String::from_utf8_lossy(&o.stderr).contains("unexpected argument"));
    }
    let o = run(&["meshtastic", "pkc-decrypt", "--peer-public", "00"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["sphinx", "error", "unwrap", "--hop-pubkey", "00"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn smaller_items() {
    // Short PSKs are padded, and stderr says so.
    let o = run(&[
        "meshtastic",
        "channel-hash",
        "--name",
        "x",
        "--psk",
        "base64:AQI=",
    ]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("zero-padded to 16"));
    // A mesh id that cannot be one.
    let o = run(&[
        "peat",
        "open",
        "--mesh-id",
        "CB E6",
        "--secret",
        OUR_PRIVATE,
        "00",
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a mesh id"));
    // An empty failure packet is refused.
    let g = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    let o = run(&[
        "sphinx",
        "error",
        "wrap",
        "--key",
        OUR_PRIVATE,
        "--ephemeral-key",
        g,
        "",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least"));
    // Names from before the vocabulary still parse; help shows it once.
    let help = ok(&["help"]);
    for w in ["--key-file", "--peer-key", "--magic", "testnet4", "--json"] {
        assert!(help.contains(w), "{w}: {help}");
    }
    for shell in ["bash", "zsh", "fish"] {
        assert!(ok(&["completions", shell]).contains("wireseal"), "{shell}");
    }
}
