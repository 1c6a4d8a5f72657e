//! `wireseal onion` end to end, against the BOLT #4 vectors.

use serde_json::Value;
use std::process::Command;

mod support;

use support::{success_stdout, ws_env};

fn vec_file(name: &str) -> Value {
    let p = format!("{}/../../vectors/bolt04/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn run(args: &[&str]) -> (bool, String, String) {
    let o = ws_env(args, &[]);
    (
        o.status.success(),
        String::from_utf8(o.stdout).unwrap().trim().to_string(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

fn ok(args: &[&str]) -> String {
    let (s, out, err) = run(args);
    assert!(s, "{args:?} failed: {err}");
    out
}

/// The vector payloads carry a BigSize length prefix; the CLI takes them without.
fn strip(p: &str) -> String {
    let b = hex::decode(p).unwrap();
    let skip = match b[0] {
        0xfd => 3,
        0xfe => 5,
        0xff => 9,
        _ => 1,
    };
    hex::encode(&b[skip..])
}

/// The `--hop PUBKEY:PAYLOAD` values of a vector's `generate` object.
fn hop_args(g: &Value) -> Vec<String> {
    g["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{}:{}", s(&h["pubkey"]), strip(s(&h["payload"]))))
        .collect()
}

/// The JSON stdout of a run of `args` with the extra `env` that must succeed.
fn json_with_env(args: &[&str], env: &[(&str, &str)]) -> Value {
    serde_json::from_str(&success_stdout(ws_env(args, env), args)).unwrap()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

#[test]
fn build_and_peel_the_onion_vector() {
    let v = vec_file("onion-test.json");
    let g = &v["generate"];
    let hops = hop_args(g);
    let mut args = vec![
        "onion",
        "build",
        "--session-key",
        s(&g["session_key"]),
        "--associated-data",
        s(&g["associated_data"]),
    ];
    for h in &hops {
        args.extend(["--hop", h.as_str()]);
    }
    let onion = ok(&args);
    assert_eq!(onion, s(&v["onion"]));

    let mut cur = onion;
    let keys = v["decode"].as_array().unwrap();
    for (i, k) in keys.iter().enumerate() {
        let out: Value = serde_json::from_str(&ok(&[
            "onion",
            "peel",
            "--json",
            "--node-key",
            s(k),
            "--associated-data",
            s(&g["associated_data"]),
            &cur,
        ]))
        .unwrap();
        assert_eq!(s(&out["payload"]), strip(s(&g["hops"][i]["payload"])));
        assert_eq!(out["final"], i + 1 == keys.len());
        if i + 1 < keys.len() {
            cur = s(&out["next_onion"]).to_string();
        } else {
            assert!(out["next_onion"].is_null());
        }
    }
}

#[test]
fn error_create_wrap_unwrap_matches_the_vector() {
    let v = vec_file("onion-error-test.json");
    let o = vec_file("onion-test.json");
    let g = &v["generate"];
    let ad = s(&o["generate"]["associated_data"]);
    // Walk the onion to learn each hop's ephemeral key.
    let mut cur = s(&o["onion"]).to_string();
    let mut eph = Vec::new();
    for k in o["decode"].as_array().unwrap() {
        let out: Value = serde_json::from_str(&ok(&[
            "onion",
            "peel",
            "--json",
            "--node-key",
            s(k),
            "--associated-data",
            ad,
            &cur,
        ]))
        .unwrap();
        // peel prints the ephemeral key that `error create`/`wrap` take.
        assert_eq!(s(&out["ephemeral_key"]), &cur[2..68]);
        eph.push(s(&out["ephemeral_key"]).to_string());
        if let Some(n) = out["next_onion"].as_str() {
            cur = n.to_string();
        }
    }
    let keys = o["decode"].as_array().unwrap();
    let mut packet = ok(&[
        "onion",
        "error",
        "create",
        "--node-key",
        s(&keys[4]),
        "--ephemeral-key",
        &eph[4],
        "--message",
        s(&g["failure_message"]),
    ]);
    for i in (0..4).rev() {
        packet = ok(&[
            "onion",
            "error",
            "wrap",
            "--node-key",
            s(&keys[i]),
            "--ephemeral-key",
            &eph[i],
            &packet,
        ]);
    }
    assert_eq!(packet, s(&v["errorpacket"]));
    let mut args = vec![
        "onion",
        "error",
        "unwrap",
        "--json",
        "--session-key",
        s(&g["session_key"]),
    ];
    for h in g["hops"].as_array().unwrap() {
        args.extend(["--hop-pubkey", s(&h["pubkey"])]);
    }
    args.push(&packet);
    let out: Value = serde_json::from_str(&ok(&args)).unwrap();
    // 1-based: the fifth hop failed.
    assert_eq!(out["hop"], 5);
    assert_eq!(s(&out["node_key"]), s(&g["hops"][4]["pubkey"]));
    assert_eq!(s(&out["message"]), s(&g["failure_message"]));
}

#[test]
fn blinded_hop_peels_with_path_key() {
    let v = vec_file("blinded-payment-onion-test.json");
    let d = &v["decrypt"]["hops"];
    let out: Value = serde_json::from_str(&ok(&[
        "onion",
        "peel",
        "--json",
        "--node-key",
        s(&d[2]["node_privkey"]),
        "--associated-data",
        s(&v["generate"]["associated_data"]),
        "--path-key",
        s(&d[1]["next_path_key"]),
        s(&d[2]["onion"]),
    ]))
    .unwrap();
    assert_eq!(s(&out["next_onion"]), s(&d[3]["onion"]));
}

#[test]
fn bad_input_fails_cleanly() {
    let o = vec_file("onion-test.json");
    let onion = s(&o["onion"]);
    let key = s(&o["decode"][0]);
    let ad = s(&o["generate"]["associated_data"]);
    let mut tampered = hex::decode(onion).unwrap();
    tampered[500] ^= 1;
    let tampered = hex::encode(tampered);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "onion",
                "peel",
                "--node-key",
                key,
                "--associated-data",
                ad,
                &tampered,
            ],
            "HMAC",
        ),
        (
            vec![
                "onion",
                "peel",
                "--node-key",
                key,
                "--associated-data",
                ad,
                &onion[..200],
            ],
            "bytes",
        ),
        (vec!["onion", "peel", "--node-key", "zz", onion], "hex"),
        (
            vec!["onion", "peel", "--node-key", "0000", onion],
            "32 bytes",
        ),
        (
            vec![
                "onion",
                "peel",
                "--node-key",
                s(&o["decode"][1]),
                "--associated-data",
                ad,
                onion,
            ],
            "HMAC",
        ),
        (
            vec!["onion", "build", "--session-key", key, "--hop", "02aa"],
            "PUBKEY_HEX:PAYLOAD_HEX",
        ),
        (
            vec!["onion", "build", "--session-key", key, "--hop", "02aa:00"],
            "public key",
        ),
        (
            vec![
                "onion",
                "error",
                "unwrap",
                "--session-key",
                key,
                "--hop-pubkey",
                s(&o["generate"]["hops"][0]["pubkey"]),
                "00ff",
            ],
            "failure",
        ),
    ];
    for (args, needle) in cases {
        let (success, out, err) = run(&args);
        assert!(!success, "{args:?} succeeded: {out}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let big = format!(
        "{}:{}",
        s(&o["generate"]["hops"][0]["pubkey"]),
        "00".repeat(1300)
    );
    let (success, _, err) = run(&["onion", "build", "--session-key", key, "--hop", &big]);
    assert!(!success && err.contains("payload area"), "{err}");
}

#[test]
fn node_key_from_environment() {
    let o = vec_file("onion-test.json");
    let out = json_with_env(
        &[
            "onion",
            "peel",
            "--json",
            "--private-env",
            "WIRESEAL_SPHINX_TEST_KEY",
            "--associated-data",
            s(&o["generate"]["associated_data"]),
            s(&o["onion"]),
        ],
        &[("WIRESEAL_SPHINX_TEST_KEY", s(&o["decode"][0]))],
    );
    assert_eq!(
        s(&out["payload"]),
        strip(s(&o["generate"]["hops"][0]["payload"]))
    );
    let (success, _, err) = run(&["onion", "peel", s(&o["onion"])]);
    assert!(!success && err.contains("a value is required"), "{err}");
}

/// `onion peel --json` prints exactly
/// `{"payload":..,"final":..,"ephemeral_key":..,"next_onion":..}`,
/// keys in that order. Every hop of the blinded payment vector, through the
/// CLI: Alice and Bob (the introduction node) with their node keys, Carol,
/// Dave and Eve with the path key the previous hop derived.
#[test]
fn peel_prints_exact_json_for_every_blinded_payment_hop() {
    let v = vec_file("blinded-payment-onion-test.json");
    let ad = s(&v["generate"]["associated_data"]);
    let route = v["generate"]["full_route"]["hops"].as_array().unwrap();
    let dec = v["decrypt"]["hops"].as_array().unwrap();
    assert_eq!(route.len(), dec.len());
    for (i, x) in dec.iter().enumerate() {
        let mut args = vec![
            "onion",
            "peel",
            "--json",
            "--node-key",
            s(&x["node_privkey"]),
            "--associated-data",
            ad,
        ];
        if i >= 2 {
            args.extend(["--path-key", s(&dec[i - 1]["next_path_key"])]);
        }
        args.push(s(&x["onion"]));
        let payload = strip(s(&route[i]["payload"]));
        let eph = &s(&x["onion"])[2..68];
        let expected = match dec.get(i + 1) {
            Some(n) => format!(
                r#"{{"payload":"{payload}","final":false,"ephemeral_key":"{eph}","next_onion":"{}"}}"#,
                s(&n["onion"])
            ),
            None => format!(
                r#"{{"payload":"{payload}","final":true,"ephemeral_key":"{eph}","next_onion":null}}"#
            ),
        };
        let (success, out, err) = run(&args);
        assert!(success, "hop {i}: {err}");
        // Exactly one line, byte for byte.
        assert_eq!(out.lines().count(), 1);
        assert_eq!(out, expected, "hop {i}");
    }
}

/// The blinded onion message vector through the CLI: each hop's packet (after
/// the 2-byte type, the 33-byte path key and the 2-byte length) peels with the
/// path key, the payload is encrypted_recipient_data (type 4), plus "hello"
/// (type 1) for Dave, and the next packet is the next hop's.
#[test]
fn onion_message_hops_peel_through_the_cli() {
    let v = vec_file("blinded-onion-message-onion-test.json");
    let route = v["route"]["hops"].as_array().unwrap();
    let dec = v["decrypt"]["hops"].as_array().unwrap();
    let packet = |m: &str| m[74..].to_string();
    for (i, x) in dec.iter().enumerate() {
        let msg = s(&x["onion_message"]);
        assert_eq!(&msg[..4], "0201");
        let erd = s(&route[i]["encrypted_recipient_data"]);
        let mut payload = String::new();
        if i + 1 == dec.len() {
            let hello = s(&v["onionmessage"]["unknown_tag_1"]);
            payload += &format!("01{:02x}{hello}", hello.len() / 2);
        }
        assert!(erd.len() / 2 < 0xfd);
        payload += &format!("04{:02x}{erd}", erd.len() / 2);
        let eph = &packet(msg)[2..68];
        let expected = match dec.get(i + 1) {
            Some(n) => format!(
                r#"{{"payload":"{payload}","final":false,"ephemeral_key":"{eph}","next_onion":"{}"}}"#,
                packet(s(&n["onion_message"]))
            ),
            None => format!(
                r#"{{"payload":"{payload}","final":true,"ephemeral_key":"{eph}","next_onion":null}}"#
            ),
        };
        let out = ok(&[
            "onion",
            "peel",
            "--json",
            "--node-key",
            s(&x["privkey"]),
            "--path-key",
            &msg[4..70],
            &packet(msg),
        ]);
        assert_eq!(out, expected, "hop {i}");
    }
}

#[test]
fn area_is_1300_or_32768_only() {
    let o = vec_file("onion-test.json");
    let key = s(&o["generate"]["session_key"]);
    let hop = format!("{}:0102", s(&o["generate"]["hops"][0]["pubkey"]));
    for bad in ["100", "4000000000", "0", "1301", "0x10000", "big"] {
        let (success, out, err) = run(&[
            "onion",
            "build",
            "--session-key",
            key,
            "--hop",
            &hop,
            "--area",
            bad,
        ]);
        assert!(!success, "--area {bad} succeeded: {out}");
        assert!(err.contains("--area"), "{bad}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    for (area, len) in [
        ("1300", 1366),
        ("0x514", 1366),
        ("32768", 32834),
        ("0x8000", 32834),
    ] {
        let out = ok(&[
            "onion",
            "build",
            "--session-key",
            key,
            "--hop",
            &hop,
            "--area",
            area,
        ]);
        assert_eq!(out.len(), 2 * len, "--area {area}");
    }
    let (_, _, err) = run(&[
        "onion",
        "build",
        "--session-key",
        key,
        "--hop",
        &hop,
        "--area",
        "100",
    ]);
    assert!(err.contains("1300") && err.contains("32768"), "{err}");
}

#[test]
fn empty_hop_payload_is_refused() {
    let o = vec_file("onion-test.json");
    let hop = format!("{}:", s(&o["generate"]["hops"][0]["pubkey"]));
    let (success, _, err) = run(&[
        "onion",
        "build",
        "--session-key",
        s(&o["generate"]["session_key"]),
        "--hop",
        &hop,
    ]);
    assert!(!success && err.contains("--hop #1: empty payload"), "{err}");
}

/// A secret key with a bad character: the error names the option, never the
/// character, its position or any digit of the key.
#[test]
fn bad_secret_hex_is_not_echoed() {
    let o = vec_file("onion-test.json");
    let onion = s(&o["onion"]);
    let hop = format!("{}:0102", s(&o["generate"]["hops"][0]["pubkey"]));
    let secret = format!("{}~{}", "5a".repeat(20), "3c".repeat(11) + "d");
    assert_eq!(secret.len(), 64);
    let cases: Vec<Vec<&str>> = vec![
        vec!["onion", "peel", "--node-key", &secret, onion],
        vec!["onion", "build", "--session-key", &secret, "--hop", &hop],
        vec![
            "onion",
            "error",
            "unwrap",
            "--session-key",
            &secret,
            "--hop-pubkey",
            s(&o["generate"]["hops"][0]["pubkey"]),
            "00",
        ],
        vec![
            "onion",
            "error",
            "create",
            "--node-key",
            &secret,
            "--ephemeral-key",
            s(&o["generate"]["hops"][0]["pubkey"]),
            "--message",
            "2002",
        ],
    ];
    for args in cases {
        let (success, _, err) = run(&args);
        assert!(!success, "{args:?}");
        assert!(err.contains("64 hex digits"), "{args:?}: {err}");
        for leak in ["~", "5a5a", "3c3c", "position", "index"] {
            assert!(!err.contains(leak), "{args:?} leaks {leak:?}: {err}");
        }
    }
    // From the environment too.
    let out = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args([
            "onion",
            "build",
            "--session-key-env",
            "WIRESEAL_SPHINX_TEST_SESSION",
            "--hop",
            &hop,
        ])
        .env("WIRESEAL_SPHINX_TEST_SESSION", &secret)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!err.contains('~') && !err.contains("5a5a"), "{err}");
}

#[test]
fn session_key_from_file_or_environment() {
    let o = vec_file("onion-test.json");
    let g = &o["generate"];
    let hops = hop_args(g);
    let with = |key_args: &[&str], env: Option<&str>| {
        let mut args = vec![
            "onion",
            "build",
            "--associated-data",
            s(&g["associated_data"]),
        ];
        args.extend_from_slice(key_args);
        for h in &hops {
            args.extend(["--hop", h.as_str()]);
        }
        let mut c = Command::new(env!("CARGO_BIN_EXE_wireseal"));
        c.args(&args);
        if let Some(e) = env {
            c.env("WIRESEAL_SPHINX_TEST_SESSION", e);
        }
        let out = c.output().unwrap();
        (
            out.status.success(),
            String::from_utf8(out.stdout).unwrap().trim().to_string(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.key");
    std::fs::write(&file, format!("{}\n", s(&g["session_key"]))).unwrap();
    let file = file.to_str().unwrap();
    let (ok1, out, err) = with(&["--session-key-file", file], None);
    assert!(ok1, "{err}");
    assert_eq!(out, s(&o["onion"]));
    let (ok2, out, err) = with(
        &["--session-key-env", "WIRESEAL_SPHINX_TEST_SESSION"],
        Some(s(&g["session_key"])),
    );
    assert!(ok2, "{err}");
    assert_eq!(out, s(&o["onion"]));
    // None given, two given, unset variable.
    let (okn, _, err) = with(&[], None);
    assert!(!okn && err.contains("a value is required"), "{err}");
    let (okc, _, err) = with(
        &[
            "--session-key",
            s(&g["session_key"]),
            "--session-key-file",
            file,
        ],
        None,
    );
    assert!(!okc && err.contains("cannot be used with"), "{err}");
    let (oku, _, err) = with(&["--session-key-env", "WIRESEAL_SPHINX_UNSET_VAR"], None);
    assert!(
        !oku && err.contains("--session-key-env") && !err.contains("WIRESEAL_SPHINX_UNSET_VAR"),
        "{err}"
    );

    // Unwrap takes the session key the same ways.
    let e = vec_file("onion-error-test.json");
    let ge = &e["generate"];
    let mut args = vec![
        "onion",
        "error",
        "unwrap",
        "--json",
        "--session-key-env",
        "WIRESEAL_SPHINX_TEST_SESSION",
    ];
    for h in ge["hops"].as_array().unwrap() {
        args.extend(["--hop-pubkey", s(&h["pubkey"])]);
    }
    args.push(s(&e["errorpacket"]));
    let v = json_with_env(
        &args,
        &[("WIRESEAL_SPHINX_TEST_SESSION", s(&ge["session_key"]))],
    );
    assert_eq!(v["hop"], 5);
    assert_eq!(s(&v["message"]), s(&ge["failure_message"]));
}
