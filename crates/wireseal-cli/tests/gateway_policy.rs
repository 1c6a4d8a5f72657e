//! The gateway under each signature policy against a real Mosquitto broker,
//! fed `vectors/meshtastic/policy.json` (envelopes signed with python-xeddsa
//! by `interop/meshtastic/policy_vectors.py`, which also says what each
//! policy makes of every packet): every record carries the firmware's
//! verdict, the signature check and, for NodeInfo, the sender's identity.

mod gateway_support;

use gateway_support::{missing_peer, publish, skip_or_fail, Broker, Gateway};
use serde_json::{json, Value};
use std::time::Duration;

fn vectors() -> Value {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors/meshtastic/policy.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn records_carry_the_policy_identity_and_signature() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let v = vectors();
    let packets = v["packets"].as_array().unwrap();
    // The feed as `feed.py publish` reads it: one line per message, in order.
    let lines: Vec<Value> = packets
        .iter()
        .map(|p| {
            let channel = if p["what"].as_str().unwrap().starts_with("PKC") {
                "PKI"
            } else {
                "LongFast"
            };
            json!({"topic": format!("msh/EU_868/2/e/{channel}/!policygw"), "payload": p["envelope"]})
        })
        .collect();
    let broker = Broker::start();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("node.key");
    std::fs::write(&key, v["our_private_hex"].as_str().unwrap()).unwrap();
    for policy in ["compatible", "balanced", "strict"] {
        let args: Vec<String> = [
            "--broker",
            &broker.url(),
            "--node",
            &v["our_node"].to_string(),
            "--key-file",
            key.to_str().unwrap(),
            "--signature-policy",
            policy,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let gw = Gateway::start(&args);
        gw.wait_stderr("subscribed", Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(300));
        publish(broker.port, &lines);
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
        let (status, rest) = gw.interrupt();
        assert!(status.success());
        let summary: Value = serde_json::from_str(
            rest.iter()
                .rev()
                .find(|l| l.contains("\"summary\""))
                .unwrap(),
        )
        .unwrap();
        let drops = packets
            .iter()
            .filter(|p| p["expect"][policy]["policy"] == "drop")
            .count();
        assert_eq!(
            summary["summary"]["policy_dropped"], drops,
            "{policy}: {summary}"
        );
    }
}
