//! `wireseal meshtastic gateway` against a real Mosquitto broker, with
//! traffic from an independent encoder (interop/meshtastic/feed.py: the
//! `meshtastic` PyPI protobufs, `cryptography`, python-xeddsa, paho-mqtt).

mod gateway_support;

use gateway_support::{
    args, check, key_file, make_feed, missing_peer, publish, skip_or_fail, Broker, Gateway,
    OUR_NODE,
};
use std::time::Duration;

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
    let gw = Gateway::start(&args(&broker.url(), &key, &["--stats", "1"]));
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
    let a = Gateway::start(&args(&broker.url(), &key, &["--shared", "wsgw"]));
    let b = Gateway::start(&args(&broker.url(), &key, &["--shared", "wsgw"]));
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
    let gw = Gateway::start(&args(&broker.url(), &key, &[]));
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
