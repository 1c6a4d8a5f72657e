//! `wireseal sphinx fulfill` with a `fulfillment_payload`, hops inside a
//! blinded path (`--path-key`, `--blinded-hops`), return packets over
//! 32 KiB and `error malformed`: against BOLT #4's vectors where they exist
//! (the "Returning success" vectors with a payload, the blinded payment
//! onion) and against the library's own calls for the same inputs.

use serde_json::Value;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{blinding, failure, keys, Attribution, Incoming, Onion};

use crate::support;

use support::s;
use support::sphinx::{json_ok, onion_test_ephemeral_keys, onion_test_hops, origin_args, vec_file};

/// `(payload, attribution data)` per node of the text vectors, node 4 first.
fn vector_steps() -> Vec<(String, String)> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!(
        "{dir}/../../vectors/bolt04/fulfillment-payload-attribution-vectors.txt"
    ))
    .unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .chunks(4)
        .map(|c| (c[1].trim().to_string(), c[3].trim().to_string()))
        .collect()
}

#[test]
fn fulfillment_payload_vectors_through_the_cli() {
    let v = vec_file("attributable-error-test.json");
    let hold = |node: usize| (v["htlc_hold_time"][4 - node].as_u64().unwrap() * 100).to_string();
    let hops = onion_test_ephemeral_keys();
    let steps = vector_steps();
    // Node 4 seals the vector's record (type 65537, 070809).
    let (k, e) = &hops[4];
    let h4 = hold(4);
    let mut out = json_ok(&[
        "sphinx",
        "fulfill",
        "wrap",
        "--key",
        k,
        "--ephemeral-key",
        e,
        "--hold-time-ms",
        &h4,
        "--records",
        "fe0001000103070809",
    ]);
    assert_eq!(s(&out["fulfillment_payload"]), steps[0].0);
    assert_eq!(s(&out["attribution_data"]), steps[0].1);
    for node in (0..4).rev() {
        let (k, e) = &hops[node];
        let h = hold(node);
        out = json_ok(&[
            "sphinx",
            "fulfill",
            "wrap",
            "--key",
            k,
            "--ephemeral-key",
            e,
            "--hold-time-ms",
            &h,
            "--payload",
            s(&out["fulfillment_payload"]),
            "--attribution-data",
            s(&out["attribution_data"]),
        ]);
        assert_eq!(
            s(&out["fulfillment_payload"]),
            steps[4 - node].0,
            "node {node}"
        );
        assert_eq!(
            s(&out["attribution_data"]),
            steps[4 - node].1,
            "node {node}"
        );
    }
    let args = origin_args("fulfill", &v);
    let (p, a) = (
        s(&out["fulfillment_payload"]).to_string(),
        s(&out["attribution_data"]).to_string(),
    );
    let mut with = args.clone();
    with.extend(["--attribution-data", &a, "--payload", &p]);
    let got = json_ok(&with);
    assert_eq!(
        got["hold_times_ms"],
        serde_json::json!([500, 400, 300, 200, 100])
    );
    assert_eq!(got["attribution"], "valid");
    assert_eq!(got["payload_status"], "valid");
    assert_eq!(got["payload"], "fe0001000103070809");
    assert!(got.get("blamed_hop").is_none() && got.get("payload_error").is_none());
    // A changed payload: hop 1 is blamed and the payload ignored.
    let mut changed = hex::decode(&p).unwrap();
    changed[7] ^= 1;
    let changed = hex::encode(changed);
    let mut bad = args.clone();
    bad.extend(["--attribution-data", &a, "--payload", &changed]);
    let got = json_ok(&bad);
    assert_eq!(
        (got["attribution"].as_str(), got["blamed_hop"].as_u64()),
        (Some("broken"), Some(1))
    );
    assert_eq!(got["payload_status"], "ignored");
    assert_eq!(got["payload"], Value::Null);
    assert!(got["payload_error"]
        .as_str()
        .unwrap()
        .contains("authentication failed"));
}

/// The blinded payment vector's route: Alice, Bob (the introduction node,
/// no path key with his HTLC), then Carol, Dave and Eve inside the blinded
/// path, each with the path key the hop before derived.
struct Blinded {
    session: String,
    /// Per hop: node key, onion received, path key (from Carol on).
    hops: Vec<(String, String, Option<String>)>,
    /// The node ids the sender encrypted to (blinded ones from Carol on).
    route: Vec<String>,
}

fn blinded() -> Blinded {
    let v = vec_file("blinded-payment-onion-test.json");
    let dec = v["decrypt"]["hops"].as_array().unwrap();
    let hops = dec
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let path_key = (i >= 2).then(|| s(&dec[i - 1]["next_path_key"]).to_string());
            (
                s(&h["node_privkey"]).to_string(),
                s(&h["onion"]).to_string(),
                path_key,
            )
        })
        .collect();
    let route = v["generate"]["full_route"]["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| s(&h["pubkey"]).to_string())
        .collect();
    Blinded {
        session: s(&v["generate"]["session_key"]).to_string(),
        hops,
        route,
    }
}

/// Hop `i` of the blinded route as the library sees it: its shared secret
/// and how its HTLC arrived.
fn library_hop(b: &Blinded, i: usize) -> (keys::SharedSecret, Incoming) {
    let (k, onion, pk) = &b.hops[i];
    let node = PrivateKey::from_bytes(&hex::decode(k).unwrap().try_into().unwrap()).unwrap();
    let onion = Onion::parse(&hex::decode(onion).unwrap()).unwrap();
    let pk = pk
        .as_ref()
        .map(|p| PublicKey::from_slice(&hex::decode(p).unwrap()).unwrap());
    let unblinded = pk.map(|p| blinding::unblind(&node, &p).unwrap());
    let key = unblinded.as_ref().map_or(&node, |u| u.blinded_privkey());
    (
        keys::shared_secret(key, onion.ephemeral_key()),
        Incoming::from_path_key(pk),
    )
}

fn hop_args<'a>(b: &'a Blinded, i: usize, cmd: &'a str) -> Vec<&'a str> {
    let (k, onion, pk) = &b.hops[i];
    let mut a = vec![
        "sphinx",
        "error",
        cmd,
        "--key",
        k.as_str(),
        "--onion",
        onion.as_str(),
    ];
    if let Some(p) = pk {
        a.extend(["--path-key", p.as_str()]);
    }
    a
}

#[test]
fn blinded_hops_add_no_attribution_and_the_origin_reads_to_bob() {
    let b = blinded();
    let message = "2002";
    // Dave (inside the blinded path) fails; Carol passes it back, both
    // without attribution data; Bob and Alice add theirs.
    let mut args = hop_args(&b, 3, "create");
    args.extend(["--message", message, "--hold-time-ms", "900"]);
    let out = json_ok(&args);
    assert!(out.get("attribution_data").is_none());
    let (ss, incoming) = library_hop(&b, 3);
    let (lib_packet, lib_a) = failure::create_at(&ss, incoming, &[0x20, 0x02], 900).unwrap();
    assert_eq!(
        (s(&out["packet"]), lib_a),
        (hex::encode(&lib_packet).as_str(), None)
    );
    let mut packet = s(&out["packet"]).to_string();
    let mut attribution: Option<String> = None;
    for (i, hold) in [(2, "800"), (1, "700"), (0, "600")] {
        let mut args = hop_args(&b, i, "wrap");
        args.extend(["--hold-time-ms", hold]);
        if let Some(a) = &attribution {
            args.extend(["--attribution-data", a.as_str()]);
        }
        args.push(&packet);
        let out = json_ok(&args);
        assert_eq!(out.get("attribution_data").is_some(), i <= 1, "hop {i}");
        packet = s(&out["packet"]).to_string();
        attribution = out.get("attribution_data").map(|a| s(a).to_string());
    }
    let unwrap = |blinded_hops: &str| {
        let mut args = vec![
            "sphinx",
            "error",
            "unwrap",
            "--session-key",
            b.session.as_str(),
        ];
        for k in &b.route {
            args.extend(["--peer-key", k.as_str()]);
        }
        args.extend(["--blinded-hops", blinded_hops]);
        args.extend([
            "--attribution-data",
            attribution.as_deref().unwrap(),
            &packet,
        ]);
        json_ok(&args)
    };
    let got = unwrap("3");
    assert_eq!(got["hop"], 4);
    assert_eq!(got["message"], message);
    assert_eq!(got["attribution"], Attribution::Valid.to_string());
    assert_eq!(got["hold_times_ms"], serde_json::json!([600, 700]));
    assert!(got.get("blamed_hop").is_none());
    // Read without the blinded tail, Carol would be blamed.
    let got = unwrap("0");
    assert_eq!(
        (got["attribution"].as_str(), got["blamed_hop"].as_u64()),
        (Some("broken"), Some(3))
    );
}

#[test]
fn return_packets_over_32_kib_are_truncated() {
    let hops = onion_test_ephemeral_keys();
    let (k, e) = &hops[1];
    let long = "ab".repeat(33_000);
    let out = json_ok(&[
        "sphinx",
        "error",
        "wrap",
        "--key",
        k,
        "--ephemeral-key",
        e,
        &long,
    ]);
    assert_eq!(s(&out["packet"]).len(), 2 * 32_768);
    let short = "ab".repeat(32_768);
    let same = json_ok(&[
        "sphinx",
        "error",
        "wrap",
        "--key",
        k,
        "--ephemeral-key",
        e,
        &short,
    ]);
    assert_eq!(out, same);
}

#[test]
fn malformed_names_what_a_final_node_could_not_peel() {
    let o = vec_file("onion-test.json");
    let ad = s(&o["generate"]["associated_data"]);
    // The onion reaching the final node (node 4), then with one byte changed.
    let (key, cur, _) = onion_test_hops().pop().unwrap();
    let intact = json_ok(&[
        "sphinx",
        "error",
        "malformed",
        "--key",
        &key,
        "--associated-data",
        ad,
        &cur,
    ]);
    assert_eq!(intact["failure_code"], Value::Null);
    assert_eq!(intact["message"], Value::Null);
    let mut bytes = hex::decode(&cur).unwrap();
    bytes[700] ^= 0x80;
    let changed = hex::encode(&bytes);
    let got = json_ok(&[
        "sphinx",
        "error",
        "malformed",
        "--key",
        &key,
        "--associated-data",
        ad,
        &changed,
    ]);
    assert_eq!(got["failure_code"], 0xc005);
    assert_eq!(got["failure"], "invalid_onion_hmac");
    let node = PrivateKey::from_bytes(&hex::decode(&key).unwrap().try_into().unwrap()).unwrap();
    let lib =
        wireseal::sphinx::malformed::Malformed::reply_for(&bytes, &node, &hex::decode(ad).unwrap())
            .unwrap()
            .unwrap();
    assert_eq!(got["sha256_of_onion"], hex::encode(lib.sha256_of_onion));
    assert_eq!(got["message"], hex::encode(lib.failure_message().unwrap()));
    assert!(s(&got["message"]).starts_with("c005"));
}
