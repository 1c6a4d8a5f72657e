//! Retention: packets first seen before the window are removed with their
//! receptions, in small batches while the gateway ingests; nothing inside
//! the window is removed and the node table stays.

use crate::store::storing;
use crate::support::{peers, Running};
use crate::traffic::load;
use std::time::Duration;
use wireseal_gateway::store::{Record, Store, StoreUrl};
use wireseal_gateway::Config;
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;
use wireseal_testkit::postgres::PgServer;

/// `n` old packets from 20 nodes, each heard twice, first seen `age_ms` ago.
fn old_records(n: u32, age_ms: u64) -> Vec<Record> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let mut v = Vec::new();
    for i in 0..n {
        for gw in ["!0000d001", "!0000d002"] {
            let mut r = Record {
                packet: Default::default(),
                reception: Default::default(),
                node: None,
            };
            r.packet.from = 0x5000_0000 + i % 20;
            r.packet.key = i64::from(i) + 1;
            r.packet.to = u32::MAX;
            r.packet.channel_id = "LongFast".into();
            r.packet.decryption = "channel".into();
            r.packet.signature = "absent".into();
            r.reception.gateway_id = gw.into();
            r.reception.topic = "msh/old".into();
            r.reception.rx_time_ms = now - age_ms + u64::from(i);
            v.push(r);
        }
    }
    v
}

fn prunes_what_is_old(db: &Db, url: &str) {
    let mut store = Store::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    for chunk in old_records(3_000, 3 * 86_400_000).chunks(2_000) {
        store.write_batch(chunk).unwrap();
    }
    drop(store);
    assert_eq!(db.count("SELECT count(*) FROM packets"), 3_000);
    let broker = Mosquitto::start().unwrap();
    let (c, _k) = storing(&broker, db, "retain");
    let gw = Running::start(Config {
        retain: Some(std::time::Duration::from_secs(86_400)),
        ..c
    });
    let (msgs, _, _) = load(2_000, &["!0000a001"]);
    assert_eq!(
        publish_qos1(broker.port, &msgs, 10_000).unwrap(),
        msgs.len()
    );
    let end = std::time::Instant::now() + Duration::from_secs(60);
    while gw.counters.pruned_packets.get() < 3_000 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let n = db.wait_count(
        "SELECT count(*) FROM receptions",
        2_000,
        Duration::from_secs(30),
    );
    assert_eq!(
        n, 2_000,
        "every new reception stored, every old one removed"
    );
    let s = gw.stop().unwrap();
    assert_eq!(s["store"]["pruned_packets"], 3_000, "{s}");
    assert_eq!(s["store"]["pruned_receptions"], 6_000, "{s}");
    assert_eq!(
        db.count("SELECT count(*) FROM packets"),
        2_000,
        "the new packets stay"
    );
    assert_eq!(
        db.count(
            "SELECT count(*) FROM packets WHERE from_node >= 1342177280 AND from_node < 1342177300"
        ),
        0
    );
    assert_eq!(
        db.count("SELECT count(*) FROM nodes WHERE node >= 1342177280 AND node < 1342177300"),
        20,
        "nodes stay"
    );
}

#[test]
fn retention_in_sqlite() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    prunes_what_is_old(&db, &db.url());
}

#[test]
fn retention_in_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    let db = Db::Pg(pg.socket_url("mesh"));
    prunes_what_is_old(&db, &db.url());
}
