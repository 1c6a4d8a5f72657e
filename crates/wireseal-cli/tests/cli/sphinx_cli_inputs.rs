//! `wireseal sphinx` inputs, against the BOLT #4 vectors: bad input fails
//! cleanly, `--area`, `--padding` and hop payload checks, secret keys never echoed, and
//! keys from files and the environment.

use serde_json::Value;
use std::process::Command;

use crate::support;

use support::sphinx::{hop_args, run, strip, vec_file};
use support::{s, success_stdout, ws_env};

/// The JSON stdout of a run of `args` with the extra `env` that must succeed.
fn json_with_env(args: &[&str], env: &[(&str, &str)]) -> Value {
    serde_json::from_str(&success_stdout(ws_env(args, env), args)).unwrap()
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
                "sphinx",
                "peel",
                "--key",
                key,
                "--associated-data",
                ad,
                &tampered,
            ],
            "authentication failed",
        ),
        (
            vec![
                "sphinx",
                "peel",
                "--key",
                key,
                "--associated-data",
                ad,
                &onion[..200],
            ],
            "bytes",
        ),
        (vec!["sphinx", "peel", "--key", "zz", onion], "hex"),
        (vec!["sphinx", "peel", "--key", "0000", onion], "32 bytes"),
        (
            vec![
                "sphinx",
                "peel",
                "--key",
                s(&o["decode"][1]),
                "--associated-data",
                ad,
                onion,
            ],
            "authentication failed",
        ),
        (
            vec!["sphinx", "build", "--session-key", key, "--hop", "02aa"],
            "PUBKEY_HEX:PAYLOAD_HEX",
        ),
        (
            vec!["sphinx", "build", "--session-key", key, "--hop", "02aa:00"],
            "public key",
        ),
        (
            vec![
                "sphinx",
                "error",
                "unwrap",
                "--session-key",
                key,
                "--peer-key",
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
    let (success, _, err) = run(&["sphinx", "build", "--session-key", key, "--hop", &big]);
    assert!(!success && err.contains("at most 1300"), "{err}");
}

#[test]
fn node_key_from_environment() {
    let o = vec_file("onion-test.json");
    let out = json_with_env(
        &[
            "sphinx",
            "peel",
            "--json",
            "--key-env",
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
    let (success, _, err) = run(&["sphinx", "peel", s(&o["onion"])]);
    assert!(!success && err.contains("a value is required"), "{err}");
}

/// `vectors/sphinx/driver_cases.json`, the table the library and Python
/// run too: each area and padding name accepted with its onion size, or
/// refused with the same error kind (`--json`) and the library's message.
#[test]
fn areas_and_paddings_follow_the_shared_table() {
    let table: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../vectors/sphinx/driver_cases.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let o = vec_file("onion-test.json");
    let key = s(&o["generate"]["session_key"]);
    let hop = format!("{}:0102", s(&o["generate"]["hops"][0]["pubkey"]));
    for (option, cases, message) in [
        (
            "--area",
            &table["areas"],
            "`payment` (1300 bytes) or `message-large` (32768 bytes)",
        ),
        (
            "--padding",
            &table["paddings"],
            "`deterministic` or `random`",
        ),
    ] {
        for case in cases.as_array().unwrap() {
            let text = s(&case["text"]);
            let (success, out, err) = run(&[
                "--json",
                "sphinx",
                "build",
                "--session-key",
                key,
                "--hop",
                &hop,
                option,
                text,
            ]);
            match case["error"].as_str() {
                None => {
                    assert!(success, "{option} {text}: {err}");
                    let onion: Value = serde_json::from_str(&out).unwrap();
                    let want = case["onion_len"].as_u64().unwrap_or(1366) as usize;
                    assert_eq!(s(&onion["onion"]).len(), 2 * want, "{option} {text}");
                }
                Some(kind) => {
                    assert!(!success, "{option} {text} succeeded: {out}");
                    let e: Value = serde_json::from_str(err.trim())
                        .unwrap_or_else(|_| panic!("{option} {text}: {err}"));
                    assert_eq!(e["kind"], kind, "{option} {text}: {err}");
                    let msg = s(&e["error"]);
                    assert!(msg.contains(option) && msg.contains(message), "{msg}");
                }
            }
        }
    }
}

#[test]
fn empty_hop_payload_is_refused() {
    let o = vec_file("onion-test.json");
    let hop = format!("{}:", s(&o["generate"]["hops"][0]["pubkey"]));
    let (success, _, err) = run(&[
        "sphinx",
        "build",
        "--session-key",
        s(&o["generate"]["session_key"]),
        "--hop",
        &hop,
    ]);
    assert!(!success && err.contains("hop 1: empty payload"), "{err}");
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
        vec!["sphinx", "peel", "--key", &secret, onion],
        vec!["sphinx", "build", "--session-key", &secret, "--hop", &hop],
        vec![
            "sphinx",
            "error",
            "unwrap",
            "--session-key",
            &secret,
            "--peer-key",
            s(&o["generate"]["hops"][0]["pubkey"]),
            "00",
        ],
        vec![
            "sphinx",
            "error",
            "create",
            "--key",
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
            "sphinx",
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
            "sphinx",
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
        "sphinx",
        "error",
        "unwrap",
        "--json",
        "--session-key-env",
        "WIRESEAL_SPHINX_TEST_SESSION",
    ];
    for h in ge["hops"].as_array().unwrap() {
        args.extend(["--peer-key", s(&h["pubkey"])]);
    }
    args.push(s(&e["errorpacket"]));
    let v = json_with_env(
        &args,
        &[("WIRESEAL_SPHINX_TEST_SESSION", s(&ge["session_key"]))],
    );
    assert_eq!(v["hop"], 5);
    assert_eq!(s(&v["message"]), s(&ge["failure_message"]));
}
