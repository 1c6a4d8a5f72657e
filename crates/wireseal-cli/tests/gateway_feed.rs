//! `wireseal meshtastic gateway` against a real Mosquitto broker, with
//! traffic from an independent encoder (interop/meshtastic/feed.py: the
//! `meshtastic` PyPI protobufs, `cryptography`, python-xeddsa, paho-mqtt).

mod gateway_support;

use base64::Engine as _;
use gateway_support::{make_feed, missing_peer, publish, skip_or_fail, Broker, Gateway};
use std::collections::HashMap;
use std::time::Duration;
use wireseal::keys::StaticSecret;

const OUR_NODE: u32 = 0x0a0b0c0d;

fn key_file() -> (tempfile::NamedTempFile, [u8; 32]) {
    let k = StaticSecret::generate();
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), hex::encode(k.expose())).unwrap();
    (f, *k.public_key())
}

fn args(port: u16, key: &tempfile::NamedTempFile, extra: &[&str]) -> Vec<String> {
    let ops_a: Vec<u8> = (3..19).collect();
    let mut ops_b = ops_a.clone();
    ops_b[0] ^= 0x55;
    ops_b[1] ^= 0x55;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let mut v: Vec<String> = vec![
        "--broker".into(),
        format!("mqtt://127.0.0.1:{port}"),
        "--channel".into(),
        "LongFast=AQ==".into(),
        "--channel".into(),
        format!("Ops={}", b64(&ops_a)),
        "--channel".into(),
        format!("Ops={}", b64(&ops_b)),
        "--node".into(),
        format!("!{OUR_NODE:08x}"),
        "--key-file".into(),
        key.path().display().to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn check(expected: &[serde_json::Value], got: &[serde_json::Value], skip: &[&str]) {
    let by_key: HashMap<(u64, u64), &serde_json::Value> = got
        .iter()
        .map(|g| ((g["from"].as_u64().unwrap(), g["id"].as_u64().unwrap()), g))
        .collect();
    assert_eq!(by_key.len(), got.len(), "every packet decoded once");
    for e in expected
        .iter()
        .filter(|e| e["expect"].get("dropped").is_none())
    {
        let x = &e["expect"];
        let g = by_key[&(x["from"].as_u64().unwrap(), x["id"].as_u64().unwrap())];
        for (k, v) in x
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
        {
            assert_eq!(&g[k], v, "field {k} of {g}");
        }
    }
}

#[test]
fn gateway_decodes_a_live_feed() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let broker = Broker::start();
    let (key, public) = key_file();
    let feed = make_feed(OUR_NODE, &public, 2, 0x2000);
    let packets: Vec<_> = feed
        .iter()
        .filter(|l| l["expect"].get("dropped").is_none())
        .cloned()
        .collect();
    let gw = Gateway::start(&args(broker.port, &key, &["--stats", "1"]));
    gw.wait_stderr("subscribed", Duration::from_secs(20));
    publish(broker.port, &feed);
    let got = gw.take(packets.len(), Duration::from_secs(60));
    check(&feed, &got, &[]);
    std::thread::sleep(Duration::from_millis(300));
    let (status, rest) = gw.interrupt();
    assert!(status.success(), "SIGINT exits 0");
    let summary = rest
        .iter()
        .rev()
        .find(|l| l.contains("\"summary\""))
        .expect("a summary on SIGINT");
    let s: serde_json::Value = serde_json::from_str(summary).unwrap();
    assert_eq!(s["summary"]["malformed"], 2, "{s}");
    assert_eq!(s["summary"]["oversized"], 2, "{s}");
    assert_eq!(s["summary"]["signature_valid"], 8, "{s}");
    assert_eq!(s["summary"]["pkc_not_for_us"], 8, "{s}");
}

#[test]
fn two_gateways_share_one_subscription() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let broker = Broker::start();
    let (key, public) = key_file();
    let feed = make_feed(OUR_NODE, &public, 3, 0x2000);
    let packets = feed
        .iter()
        .filter(|l| l["expect"].get("dropped").is_none())
        .count();
    let a = Gateway::start(&args(broker.port, &key, &["--shared", "wsgw"]));
    let b = Gateway::start(&args(broker.port, &key, &["--shared", "wsgw"]));
    a.wait_stderr("subscribed", Duration::from_secs(20));
    b.wait_stderr("subscribed", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(300));
    publish(broker.port, &feed);
    std::thread::sleep(Duration::from_secs(3));
    let got: Vec<serde_json::Value> = a
        .stdout
        .try_iter()
        .chain(b.stdout.try_iter())
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect();
    let (na, nb) = (a.interrupt(), b.interrupt());
    assert!(na.0.success() && nb.0.success());
    assert_eq!(
        got.len(),
        packets,
        "every packet decoded exactly once across the two"
    );
    // Node keys are learned per gateway: a signed text may reach the gateway
    // that did not see its sender's NodeInfo (then "unknown-key").
    check(&feed, &got, &["signature"]);
}

#[test]
fn broker_restart_loses_only_what_was_sent_while_down() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let broker = Broker::start();
    let (key, public) = key_file();
    let before = make_feed(OUR_NODE, &public, 1, 0x2000);
    let after = make_feed(OUR_NODE, &public, 1, 0x3000);
    let count = |f: &[serde_json::Value]| {
        f.iter()
            .filter(|l| l["expect"].get("dropped").is_none())
            .count()
    };
    let gw = Gateway::start(&args(broker.port, &key, &[]));
    gw.wait_stderr("subscribed", Duration::from_secs(20));
    publish(broker.port, &before);
    let got = gw.take(count(&before), Duration::from_secs(30));
    let broker = broker.restart();
    gw.wait_stderr("subscribed", Duration::from_secs(30));
    publish(broker.port, &after);
    check(&before, &got, &[]);
    let got = gw.take(count(&after), Duration::from_secs(30));
    check(&after, &got, &[]);
    assert!(gw.interrupt().0.success());
}
