//! `wireseal onion` end to end, against the BOLT #4 vectors.

use serde_json::Value;
use std::process::Command;

fn vec_file(name: &str) -> Value {
    let p = format!("{}/../../vectors/bolt04/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn run(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(args)
        .output()
        .unwrap();
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

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

#[test]
fn build_and_peel_the_onion_vector() {
    let v = vec_file("onion-test.json");
    let g = &v["generate"];
    let hops: Vec<String> = g["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{}:{}", s(&h["pubkey"]), strip(s(&h["payload"]))))
        .collect();
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
        eph.push(cur[2..68].to_string());
        let out: Value = serde_json::from_str(&ok(&[
            "onion",
            "peel",
            "--node-key",
            s(k),
            "--associated-data",
            ad,
            &cur,
        ]))
        .unwrap();
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
        "--session-key",
        s(&g["session_key"]),
    ];
    for h in g["hops"].as_array().unwrap() {
        args.extend(["--hop-pubkey", s(&h["pubkey"])]);
    }
    args.push(&packet);
    let out: Value = serde_json::from_str(&ok(&args)).unwrap();
    assert_eq!(out["hop"], 4);
    assert_eq!(s(&out["message"]), s(&g["failure_message"]));
}

#[test]
fn blinded_hop_peels_with_path_key() {
    let v = vec_file("blinded-payment-onion-test.json");
    let d = &v["decrypt"]["hops"];
    let out: Value = serde_json::from_str(&ok(&[
        "onion",
        "peel",
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
    let o2 = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args([
            "onion",
            "peel",
            "--private-env",
            "WIRESEAL_SPHINX_TEST_KEY",
            "--associated-data",
            s(&o["generate"]["associated_data"]),
            s(&o["onion"]),
        ])
        .env("WIRESEAL_SPHINX_TEST_KEY", s(&o["decode"][0]))
        .output()
        .unwrap();
    assert!(
        o2.status.success(),
        "{}",
        String::from_utf8_lossy(&o2.stderr)
    );
    let out: Value = serde_json::from_slice(&o2.stdout).unwrap();
    assert_eq!(
        s(&out["payload"]),
        strip(s(&o["generate"]["hops"][0]["payload"]))
    );
    let (success, _, err) = run(&["onion", "peel", s(&o["onion"])]);
    assert!(!success && err.contains("node key is required"), "{err}");
}
