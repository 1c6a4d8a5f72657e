//! The gateway against a real Mosquitto with traffic from the independent
//! encoder (interop/meshtastic/feed.py: the `meshtastic` PyPI protobufs,
//! `cryptography`, python-xeddsa, paho-mqtt), and fed
//! `vectors/meshtastic/policy.json` under each signature policy.

use crate::support::{check, config, kept, key_file, peers, root, Running, OUR_NODE};
use serde_json::{json, Value};
use std::time::Duration;
use wireseal_gateway::Config;
use wireseal_testkit::feed;
use wireseal_testkit::mosquitto::Mosquitto;

#[test]
fn gateway_decodes_a_live_feed() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let (key, public) = key_file();
    let lines = feed::make(&root(), OUR_NODE, &public, 2, 0x2000);
    let gw = Running::start(config(&broker.url(), &key));
    feed::publish(&root(), broker.port, &lines);
    let got = gw.take(kept(&lines), Duration::from_secs(60));
    check(&lines, &got, &[]);
    let s = gw.stop().expect("a clean stop");
    assert_eq!(s["malformed"], 2, "{s}");
    assert_eq!(s["oversized"], 2, "{s}");
    assert_eq!(s["signature"]["valid"], 8, "{s}");
    assert_eq!(s["error"]["pkc_not_for_us"], 8, "{s}");
    assert_eq!(s["decryption"]["pkc"], 8, "{s}");
    assert_eq!(s["connection"]["connects"], 1, "{s}");
}

#[test]
fn two_gateways_share_one_subscription() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let (key, public) = key_file();
    let lines = feed::make(&root(), OUR_NODE, &public, 3, 0x2000);
    let shared = |c: Config| Config {
        shared: Some("wsgw".into()),
        ..c
    };
    let a = Running::start(shared(config(&broker.url(), &key)));
    let b = Running::start(shared(config(&broker.url(), &key)));
    feed::publish(&root(), broker.port, &lines);
    let want = kept(&lines);
    let end = std::time::Instant::now() + Duration::from_secs(30);
    let mut got: Vec<Value> = Vec::new();
    while got.len() < want && std::time::Instant::now() < end {
        got.extend(a.records.try_iter());
        got.extend(b.records.try_iter());
        std::thread::sleep(Duration::from_millis(20));
    }
    let (sa, sb) = (a.stop().unwrap(), b.stop().unwrap());
    assert_eq!(
        got.len(),
        want,
        "every packet decoded exactly once across the two"
    );
    assert!(sa["packets"].as_u64().unwrap() > 0 && sb["packets"].as_u64().unwrap() > 0);
    // Node keys are learned per gateway: a signed text may reach the gateway
    // that did not see its sender's NodeInfo (then "unknown_key").
    check(&lines, &got, &["signature"]);
}

#[test]
fn broker_restart_loses_only_what_was_sent_while_down() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let (key, public) = key_file();
    let before = feed::make(&root(), OUR_NODE, &public, 1, 0x2000);
    let after = feed::make(&root(), OUR_NODE, &public, 1, 0x3000);
    let gw = Running::start(config(&broker.url(), &key));
    feed::publish(&root(), broker.port, &before);
    check(
        &before,
        &gw.take(kept(&before), Duration::from_secs(30)),
        &[],
    );
    let broker = broker.restart().unwrap();
    gw.wait_for("connection-failed", Duration::from_secs(30));
    gw.wait_for("subscribed", Duration::from_secs(30));
    feed::publish(&root(), broker.port, &after);
    check(&after, &gw.take(kept(&after), Duration::from_secs(30)), &[]);
    let s = gw.stop().unwrap();
    assert_eq!(s["connection"]["connects"], 2, "{s}");
}

/// Every record carries the firmware's verdict, the signature check and,
/// for NodeInfo, the sender's identity, as `policy.json` says per policy.
#[test]
fn records_carry_the_policy_identity_and_signature() {
    if !peers(false) {
        return;
    }
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("vectors/meshtastic/policy.json")).unwrap(),
    )
    .unwrap();
    let packets = v["packets"].as_array().unwrap();
    let lines: Vec<Value> = packets
        .iter()
        .map(|p| {
            let channel = match p["what"].as_str().unwrap().starts_with("PKC") {
                true => "PKI",
                false => "LongFast",
            };
            json!({"topic": format!("msh/EU_868/2/e/{channel}/!policygw"), "payload": p["envelope"]})
        })
        .collect();
    let broker = Mosquitto::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("node.key");
    std::fs::write(&key, v["our_private_hex"].as_str().unwrap()).unwrap();
    for policy in ["compatible", "balanced", "strict"] {
        let gw = Running::start(Config {
            broker: Some(broker.url().parse().unwrap()),
            key_file: vec![format!("{}={}", v["our_node"], key.display())],
            signature_policy: Some(policy.parse().unwrap()),
            print_records: Some(false),
            ..Config::default()
        });
        feed::publish(&root(), broker.port, &lines);
        let got = gw.take(packets.len(), Duration::from_secs(30));
        for (p, r) in packets.iter().zip(&got) {
            let what = format!("{} ({policy})", p["what"]);
            let e = &p["expect"][policy];
            assert_eq!(r["id"], p["id"], "{what}: in publish order");
            assert_eq!(r["signature"], e["signature"], "{what}");
            assert_eq!(r["policy"], e["policy"], "{what}");
            assert_eq!(
                r.get("policy_reason").unwrap_or(&Value::Null),
                &e["policy_reason"],
                "{what}"
            );
            assert_eq!(
                r.get("identity").unwrap_or(&Value::Null),
                &p["identity"],
                "{what}"
            );
        }
        let s = gw.stop().unwrap();
        let drops = packets
            .iter()
            .filter(|p| p["expect"][policy]["policy"] == "drop")
            .count();
        assert_eq!(s["policy"]["drop"], drops, "{policy}: {s}");
    }
}
