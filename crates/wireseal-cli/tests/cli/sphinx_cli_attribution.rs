//! `wireseal sphinx error` and `sphinx fulfill` with attribution data,
//! against BOLT #4's attributable-failure and success vectors (same nodes and
//! session key as `onion-test.json`, whose node keys and onion give each
//! hop's key and ephemeral key): wraps byte for byte, the origin's JSON
//! fields, and what a garbling hop, a hop without attribution and bad
//! attribution data produce.

use serde_json::{json, Value};

use crate::support;

use support::s;
use support::sphinx::{json_ok, onion_test_ephemeral_keys, origin_args, run, vec_file};

/// `sphinx ... wrap|create` at one hop: `cmd`, the hop's `--key` and
/// `--ephemeral-key`, then `rest`.
fn at_hop<'a>(cmd: [&'a str; 3], key: &'a str, eph: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut v = cmd.to_vec();
    v.extend(["--key", key, "--ephemeral-key", eph]);
    v.extend_from_slice(rest);
    v
}

/// The origin's unwrap of `packet` with `attribution`.
fn unwrap(packet: &str, attribution: Option<&str>) -> Value {
    let v = vec_file("attributable-error-test.json");
    let mut args = origin_args("error", &v);
    if let Some(a) = attribution {
        args.extend(["--attribution-data", a]);
    }
    args.push(packet);
    json_ok(&args)
}

/// Node k's hold time in the vector, in milliseconds (the vector lists them
/// in the order the nodes return the failure: node k is entry 4 - k).
fn hold_ms(v: &Value, node: usize) -> String {
    (v["htlc_hold_time"][4 - node].as_u64().unwrap() * 100).to_string()
}

/// What node `node` sends back in the vector.
fn sent(v: &Value, node: usize) -> (String, String) {
    let st = &v["returning"][4 - node];
    assert_eq!(st["node"], node as u64);
    (
        s(&st["error_packet"]).to_string(),
        s(&st["attribution_data"]).to_string(),
    )
}

#[test]
fn wraps_match_the_vector_and_the_origin_reads_them() {
    let v = vec_file("attributable-error-test.json");
    let hops = onion_test_ephemeral_keys();
    let (mut packet, mut attribution) = sent(&v, 4);
    for node in (0..4).rev() {
        let (key, eph) = &hops[node];
        let out = json_ok(&at_hop(
            ["sphinx", "error", "wrap"],
            key,
            eph,
            &[
                "--hold-time-ms",
                &hold_ms(&v, node),
                "--attribution-data",
                &attribution,
                &packet,
            ],
        ));
        (packet, attribution) = (
            s(&out["packet"]).to_string(),
            s(&out["attribution_data"]).to_string(),
        );
        assert_eq!(
            (packet.clone(), attribution.clone()),
            sent(&v, node),
            "node {node}"
        );
    }
    let out = unwrap(&packet, Some(&attribution));
    let payload = hex::decode(s(&v["create"]["payload"])).unwrap();
    let len = u16::from_be_bytes([payload[0], payload[1]]) as usize;
    assert_eq!(
        out,
        json!({
            "hop": 5,
            "node_key": s(&v["hops"][4]["pubkey"]),
            "message": hex::encode(&payload[2..2 + len]),
            "hold_times_ms": [500, 400, 300, 200, 100],
            "attribution": "valid",
        })
    );
}

#[test]
fn create_then_wrap_round_trips_with_hold_times() {
    let hops = onion_test_ephemeral_keys();
    let (key, eph) = &hops[2];
    let c = json_ok(&at_hop(
        ["sphinx", "error", "create"],
        key,
        eph,
        &["--hold-time-ms", "1299", "--message", "2002"],
    ));
    assert_eq!(s(&c["attribution_data"]).len(), 2 * 920);
    let (mut packet, mut attribution) = (
        s(&c["packet"]).to_string(),
        s(&c["attribution_data"]).to_string(),
    );
    for (node, ms) in [(1, "250"), (0, "99")] {
        let (key, eph) = &hops[node];
        let w = json_ok(&at_hop(
            ["sphinx", "error", "wrap"],
            key,
            eph,
            &[
                "--hold-time-ms",
                ms,
                "--attribution-data",
                &attribution,
                &packet,
            ],
        ));
        (packet, attribution) = (
            s(&w["packet"]).to_string(),
            s(&w["attribution_data"]).to_string(),
        );
    }
    let out = unwrap(&packet, Some(&attribution));
    assert_eq!(out["hop"], 3);
    assert_eq!(out["message"], "2002");
    // 99 ms rounds down to 0, 250 to 200, 1299 to 1200.
    assert_eq!(out["hold_times_ms"], json!([0, 200, 1200]));
    assert_eq!(out["attribution"], "valid");
    assert!(out.get("blamed_hop").is_none());

    // A garbled packet: no hop authenticates it, hop 1 is blamed.
    let mut g = hex::decode(&packet).unwrap();
    g[50] ^= 1;
    let out = unwrap(&hex::encode(&g), Some(&attribution));
    assert_eq!(out["hop"], Value::Null);
    assert_eq!(out["node_key"], Value::Null);
    assert_eq!(out["message"], Value::Null);
    assert_eq!(out["attribution"], "broken");
    assert_eq!(out["blamed_hop"], 1);
    // Without attribution data the garbled packet blames hop 1 too.
    let out = unwrap(&hex::encode(&g), None);
    assert_eq!(
        (&out["attribution"], &out["blamed_hop"]),
        (&json!("absent"), &json!(1))
    );
    // Attribution data of the wrong length is a result: hop 1 sent it.
    let out = unwrap(&packet, Some(&attribution[..1838]));
    assert_eq!(out["hop"], 3);
    assert_eq!(
        (&out["attribution"], &out["blamed_hop"]),
        (&json!("broken"), &json!(1))
    );
}

#[test]
fn a_hop_without_attribution_support() {
    let hops = onion_test_ephemeral_keys();
    let (key, eph) = &hops[3];
    let c = json_ok(&at_hop(
        ["sphinx", "error", "create"],
        key,
        eph,
        &["--message", "4002"],
    ));
    // Hop 3 (node 2) does not support attribution: it drops the data.
    let (key, eph) = &hops[2];
    let w = json_ok(&[
        "sphinx",
        "error",
        "wrap",
        "--no-attribution",
        "--key",
        key,
        "--ephemeral-key",
        eph,
        s(&c["packet"]),
    ]);
    assert!(w.get("attribution_data").is_none(), "{w}");
    let mut packet = s(&w["packet"]).to_string();
    let mut attribution: Option<String> = None;
    for node in [1, 0] {
        let (key, eph) = &hops[node];
        let mut args = at_hop(
            ["sphinx", "error", "wrap"],
            key,
            eph,
            &["--hold-time-ms", "700"],
        );
        if let Some(a) = &attribution {
            args.extend(["--attribution-data", a]);
        }
        args.push(&packet);
        let out = json_ok(&args);
        packet = s(&out["packet"]).to_string();
        attribution = Some(s(&out["attribution_data"]).to_string());
    }
    let out = unwrap(&packet, attribution.as_deref());
    assert_eq!(out["hop"], 4);
    assert_eq!(out["message"], "4002");
    assert_eq!(out["hold_times_ms"], json!([700, 700]));
    assert_eq!(
        (&out["attribution"], &out["blamed_hop"]),
        (&json!("broken"), &json!(3))
    );
}

#[test]
fn fulfill_matches_the_vector_and_reads_back() {
    let v = vec_file("attributable-error-test.json");
    let hops = onion_test_ephemeral_keys();
    let mut attribution: Option<String> = None;
    for node in (0..5).rev() {
        let (key, eph) = &hops[node];
        let ms = hold_ms(&v, node);
        let mut args = at_hop(
            ["sphinx", "fulfill", "wrap"],
            key,
            eph,
            &["--hold-time-ms", &ms],
        );
        if let Some(a) = &attribution {
            args.extend(["--attribution-data", a]);
        }
        let out = json_ok(&args);
        let a = s(&out["attribution_data"]).to_string();
        let want = &v["success"][4 - node];
        assert_eq!(want["node"], node as u64);
        assert_eq!(a, s(&want["attribution_data"]), "node {node}");
        attribution = Some(a);
    }
    let mut args = vec![
        "sphinx",
        "fulfill",
        "unwrap",
        "--session-key",
        s(&v["session_key"]),
    ];
    for h in v["hops"].as_array().unwrap() {
        args.extend(["--peer-key", s(&h["pubkey"])]);
    }
    let full = attribution.unwrap();
    let mut with = args.clone();
    with.extend(["--attribution-data", &full]);
    assert_eq!(
        json_ok(&with),
        json!({"hold_times_ms": [500, 400, 300, 200, 100], "attribution": "valid"})
    );
    assert_eq!(
        json_ok(&args),
        json!({"hold_times_ms": [], "attribution": "absent"})
    );
}

#[test]
fn bad_attribution_input_fails_cleanly() {
    let hops = onion_test_ephemeral_keys();
    let (key, eph) = &hops[0];
    let packet = "00".repeat(292);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            at_hop(
                ["sphinx", "error", "wrap"],
                key,
                eph,
                &["--attribution-data", "0011", &packet],
            ),
            "--attribution-data",
        ),
        (
            at_hop(
                ["sphinx", "error", "wrap"],
                key,
                eph,
                &["--attribution-data", "zz", &packet],
            ),
            "not valid hex",
        ),
        (
            at_hop(
                ["sphinx", "error", "wrap"],
                key,
                eph,
                &["--no-attribution", "--hold-time-ms", "5", &packet],
            ),
            "cannot be used with",
        ),
        (
            at_hop(
                ["sphinx", "error", "wrap"],
                key,
                eph,
                &["--hold-time-ms", "1.5", &packet],
            ),
            "--hold-time-ms",
        ),
        (
            at_hop(["sphinx", "error", "wrap"], key, eph, &["00ff"]),
            "truncated",
        ),
        (
            at_hop(
                ["sphinx", "fulfill", "wrap"],
                key,
                eph,
                &["--attribution-data", "00"],
            ),
            "--attribution-data",
        ),
    ];
    for (args, needle) in cases {
        let (success, out, err) = run(&args);
        assert!(!success, "{args:?} succeeded: {out}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
