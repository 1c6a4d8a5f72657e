//! `wireseal sphinx` end to end, against the BOLT #4 vectors: build and peel
//! every hop, failure messages created, wrapped and unwrapped, blinded
//! payment and onion message hops, exact `--json` lines.

use serde_json::Value;

use crate::support;

use support::s;
use support::sphinx::{hop_args, ok, run, strip, vec_file};

#[test]
fn build_and_peel_the_onion_vector() {
    let v = vec_file("onion-test.json");
    let g = &v["generate"];
    let hops = hop_args(g);
    let mut args = vec![
        "sphinx",
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
            "sphinx",
            "peel",
            "--json",
            "--key",
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
            "sphinx",
            "peel",
            "--json",
            "--key",
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
    // This vector predates attribution data: the nodes act without it.
    let keys = o["decode"].as_array().unwrap();
    let mut packet = ok(&[
        "sphinx",
        "error",
        "create",
        "--no-attribution",
        "--key",
        s(&keys[4]),
        "--ephemeral-key",
        &eph[4],
        "--message",
        s(&g["failure_message"]),
    ]);
    for i in (0..4).rev() {
        packet = ok(&[
            "sphinx",
            "error",
            "wrap",
            "--no-attribution",
            "--key",
            s(&keys[i]),
            "--ephemeral-key",
            &eph[i],
            &packet,
        ]);
    }
    assert_eq!(packet, s(&v["errorpacket"]));
    let mut args = vec![
        "sphinx",
        "error",
        "unwrap",
        "--json",
        "--session-key",
        s(&g["session_key"]),
    ];
    for h in g["hops"].as_array().unwrap() {
        args.extend(["--peer-key", s(&h["pubkey"])]);
    }
    args.push(&packet);
    let out: Value = serde_json::from_str(&ok(&args)).unwrap();
    // 1-based: the fifth hop failed.
    assert_eq!(out["hop"], 5);
    assert_eq!(s(&out["node_key"]), s(&g["hops"][4]["pubkey"]));
    assert_eq!(s(&out["message"]), s(&g["failure_message"]));
    assert_eq!(out["attribution"], "absent");
    assert_eq!(out["hold_times_ms"], serde_json::json!([]));
    assert!(out.get("blamed_hop").is_none(), "{out}");
}

#[test]
fn blinded_hop_peels_with_path_key() {
    let v = vec_file("blinded-payment-onion-test.json");
    let d = &v["decrypt"]["hops"];
    let out: Value = serde_json::from_str(&ok(&[
        "sphinx",
        "peel",
        "--json",
        "--key",
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
            "sphinx",
            "peel",
            "--json",
            "--key",
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
            "sphinx",
            "peel",
            "--json",
            "--key",
            s(&x["privkey"]),
            "--path-key",
            &msg[4..70],
            &packet(msg),
        ]);
        assert_eq!(out, expected, "hop {i}");
    }
}
