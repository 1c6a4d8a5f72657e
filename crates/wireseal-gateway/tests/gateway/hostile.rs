//! A hostile feed: 1,200 envelopes whose channel ids, gateway ids, topics
//! and node names are chosen to break topics, logs and paths (wildcards,
//! separators, control characters, `$`, `..`, overlong text). The gateway
//! republishes records and the firmware's JSON and stores everything: the
//! broker never disconnects it, every topic it publishes has exactly the
//! configured number of levels, and the unusable ids are stored and counted
//! under the library's label.

use crate::support::{peers, Running};
use std::time::Duration;
use wireseal::meshtastic::untrusted::{safe_level, UNUSABLE_LABEL};
use wireseal_gateway::Config;
use wireseal_testkit::db::Db;
use wireseal_testkit::meshtastic::hostile_feed;
use wireseal_testkit::mosquitto::{Mosquitto, Settings};
use wireseal_testkit::mqtt::{publish_qos1, Subscriber};

const N: usize = 1_200;

#[test]
fn a_hostile_feed_breaks_no_topic_and_no_connection() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start_with(Settings {
        log: true,
        ..Settings::default()
    })
    .unwrap();
    let sub = Subscriber::connect(broker.port, "hostile-watch", &["out/#", "fw/#"]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let feed = hostile_feed(N, 5_000, 0x5eed_1234_abcd_0001);
    let gw = Running::start(Config {
        broker: Some(broker.url().parse().unwrap()),
        publish: Some("out/rec".into()),
        firmware_json: Some("fw".into()),
        store: Some(db.url().parse().unwrap()),
        client_id: Some("hostile".into()),
        max_packets: Some(N as u64),
        flood_rate: Some(0.0),
        print_records: Some(false),
        ..Config::default()
    });
    assert_eq!(publish_qos1(broker.port, &feed, 5_000).unwrap(), N);
    let s = gw.finish(Duration::from_secs(120)).expect("a clean end");
    assert_eq!(s["connection"]["connects"], 1, "never disconnected: {s}");
    assert_eq!(s["connection"]["errors"], 0, "{s}");
    let published =
        s["output"]["republish"].as_u64().unwrap() + s["output"]["firmware_json"].as_u64().unwrap();
    assert!(s["unusable_ids"].as_u64().unwrap() > 100, "{s}");
    let got = sub.wait(published as usize, Duration::from_secs(30));
    assert_eq!(got.len() as u64, published, "every publication arrived");
    for (topic, _) in &got {
        let levels: Vec<&str> = topic.split('/').collect();
        let want = if topic.starts_with("out/") { 4 } else { 5 };
        assert_eq!(levels.len(), want, "{topic:?}");
        assert!(levels.iter().all(|l| safe_level(l).is_ok()), "{topic:?}");
    }
    assert!(got.iter().any(|(t, _)| t.contains(UNUSABLE_LABEL)));
    let log = broker.log();
    assert!(
        !log.contains("malformed") && !log.contains("protocol error"),
        "{log}"
    );
    // Unusable ids are stored under the label, never as themselves.
    let stored = db.count(&format!(
        "SELECT count(*) FROM receptions WHERE gateway_id = '{UNUSABLE_LABEL}'"
    ));
    assert!(stored > 0);
    for bad in ["#", "+", "/"] {
        let n = db.count(&format!(
            "SELECT count(*) FROM packets WHERE channel_id LIKE '%{bad}%'"
        ));
        assert_eq!(n, 0, "{bad}");
    }
}
