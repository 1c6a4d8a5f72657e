//! The gateway with a store end to end: a real Mosquitto, a SQLite file on
//! disk and a PostgreSQL server the test starts. Traffic comes from the
//! independent encoder and from envelopes the test builds; every count is
//! checked against what the test published.

use crate::support::{config, key_file, peers, root, Running, OUR_NODE};
use crate::traffic::{load, packets, plain, receptions};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;
use wireseal::meshtastic::envelope::Data;
use wireseal_gateway::{Config, MqttVersion};
use wireseal_testkit::db::Db;
use wireseal_testkit::feed;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;
use wireseal_testkit::postgres::PgServer;

/// Settings storing into `db` as `client_id`, with a fresh node key (kept
/// alive with them).
pub fn storing(broker: &Mosquitto, db: &Db, client_id: &str) -> (Config, tempfile::NamedTempFile) {
    let (key, _) = key_file();
    let c = Config {
        store: Some(db.url().parse().unwrap()),
        client_id: Some(client_id.into()),
        ..config(&broker.url(), &key)
    };
    (c, key)
}

fn max(c: Config, n: usize) -> Config {
    Config {
        max_packets: Some(n as u64),
        ..c
    }
}

/// Every packet of the feed stored once with what the independent encoder
/// expects; the same feed again adds nothing.
fn every_kind_stored_once(db: &Db) {
    let broker = Mosquitto::start().unwrap();
    let (key, public) = key_file();
    let lines = feed::make(&root(), OUR_NODE, &public, 1, 0x2000);
    let kept: Vec<&Value> = lines
        .iter()
        .map(|l| &l["expect"])
        .filter(|x| x.get("dropped").is_none())
        .collect();
    let want: BTreeSet<(u32, i64)> = kept
        .iter()
        .map(|x| {
            (
                x["from"].as_u64().unwrap() as u32,
                x["id"].as_i64().unwrap(),
            )
        })
        .collect();
    for pass in 0..2 {
        let c = Config {
            store: Some(db.url().parse().unwrap()),
            client_id: Some("kinds".into()),
            ..config(&broker.url(), &key)
        };
        let gw = Running::start(max(c, lines.len()));
        feed::publish(&root(), broker.port, &lines);
        let s = gw.finish(Duration::from_secs(120)).expect("a clean end");
        assert_eq!(
            (s["malformed"].as_u64(), s["oversized"].as_u64()),
            (Some(1), Some(1)),
            "{s}"
        );
        assert_eq!(s["store"]["rejected"], 0, "{s}");
        let fresh = if pass == 0 { kept.len() } else { 0 };
        assert_eq!(s["store"]["receptions"], fresh as u64, "pass {pass}: {s}");
        assert_eq!(s["store"]["duplicates"], (kept.len() - fresh) as u64, "{s}");
        assert_eq!(packets(db), want, "pass {pass}");
        assert_eq!(
            receptions(db).1,
            kept.len() as u64,
            "one reception per message"
        );
    }
    for x in kept {
        let sql = format!(
            "SELECT decryption, channel_name, CAST(portnum AS TEXT), text, signature, error, \
             CAST(our_node AS TEXT) FROM packets WHERE from_node = {} AND packet_id = {}",
            x["from"], x["id"]
        );
        let r = &db.rows(&sql)[0];
        assert_eq!(r[0].as_deref(), x["decryption"].as_str(), "{x}");
        assert_eq!(
            r[1].as_deref(),
            x.get("channel_name").and_then(Value::as_str),
            "{x}"
        );
        if let Some(p) = x.get("portnum") {
            assert_eq!(r[2].as_deref(), Some(p.to_string().as_str()), "{x}");
        }
        if let Some(t) = x.get("text") {
            assert_eq!(r[3].as_deref(), t.as_str(), "{x}");
        }
        if let Some(sig) = x.get("signature") {
            assert_eq!(r[4].as_deref(), sig.as_str(), "{x}");
        }
        if let Some(e) = x.get("error") {
            assert_eq!(r[5].as_deref(), e.as_str(), "{x}");
        }
        if x.get("our_node").is_some() {
            assert_eq!(r[6].as_deref(), Some(OUR_NODE.to_string().as_str()), "{x}");
        }
    }
}

#[test]
fn every_kind_stored_once_in_sqlite() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    every_kind_stored_once(&Db::Sqlite(dir.path().join("mesh.db")));
}

#[test]
fn every_kind_stored_once_in_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    every_kind_stored_once(&Db::Pg(pg.socket_url("mesh")));
}

#[test]
fn two_gateways_write_one_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    let db = Db::Pg(pg.tcp_url("mesh"));
    let broker = Mosquitto::start().unwrap();
    let (msgs, want_p, want_r) = load(3_000, &["!0000a001", "!0000a002"]);
    let (ca, _ka) = storing(&broker, &db, "gw-a");
    let (cb, _kb) = storing(&broker, &db, "gw-b");
    let a = Running::start(max(ca, msgs.len()));
    let b = Running::start(max(cb, msgs.len()));
    assert_eq!(
        publish_qos1(broker.port, &msgs, 20_000).unwrap(),
        msgs.len()
    );
    let (sa, sb) = (
        a.finish(Duration::from_secs(120)).unwrap(),
        b.finish(Duration::from_secs(120)).unwrap(),
    );
    let sum = |k: &str| sa["store"][k].as_u64().unwrap() + sb["store"][k].as_u64().unwrap();
    // Each gateway got every message; each reception was stored by one.
    assert_eq!(sum("receptions"), want_r.len() as u64, "{sa} {sb}");
    assert_eq!(sum("duplicates"), want_r.len() as u64, "{sa} {sb}");
    assert_eq!(packets(&db), want_p);
    let (got, rows) = receptions(&db);
    assert_eq!(rows, want_r.len() as u64, "no reception twice");
    assert_eq!(got, want_r);
}

/// Names that look like SQL, invalid UTF-8, NUL, an unknown port, an
/// overlong channel id, garbage and an oversized envelope: stored as given
/// (text made valid) or counted malformed or oversized.
fn hostile_packets(db: &Db) {
    let broker = Mosquitto::start().unwrap();
    let sql = "Robert'); DROP TABLE packets; --";
    let user = |long: &[u8]| {
        let mut p = vec![0x12, long.len() as u8];
        p.extend(long);
        p.extend([0x1a, 3, b'\'', b';', b'-']);
        p
    };
    let data = |portnum, payload: Vec<u8>| Data {
        portnum,
        payload,
        ..Default::default()
    };
    let topic = "msh/EU_868/2/e/LongFast/!hostile".to_owned();
    let long_id = "x".repeat(300);
    let evil_gw = "'; DELETE FROM receptions; --";
    let msgs: Vec<(String, Vec<u8>)> = [
        plain(
            0x51,
            1,
            "LongFast",
            "!00000051",
            data(4, user(sql.as_bytes())),
        ),
        plain(
            0x52,
            2,
            "LongFast",
            "!00000052",
            data(4, user(b"\xff\xfeA\0")),
        ),
        plain(0x53, 3, "LongFast", evil_gw, data(1, b"a\0b\xff".to_vec())),
        plain(0x54, 4, &long_id, "!00000054", data(1, b"ok".to_vec())),
        b"\xff\xff\xff\xff".to_vec(),
        vec![0x0a; 5000],
        plain(0x55, 5, "LongFast", "!00000055", data(999, vec![0; 200])),
    ]
    .into_iter()
    .map(|m| (topic.clone(), m))
    .collect();
    let (c, _k) = storing(&broker, db, "hostile");
    let gw = Running::start(max(c, 7));
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    let s = gw.finish(Duration::from_secs(120)).unwrap();
    // The library refuses an envelope whose channel id is over 64 bytes.
    assert_eq!(
        (s["malformed"].as_u64(), s["oversized"].as_u64()),
        (Some(2), Some(1)),
        "{s}"
    );
    assert_eq!(s["store"]["receptions"], 4, "{s}");
    assert_eq!(s["store"]["rejected"], 0, "{s}");
    assert!(s["store"]["capped"].as_u64().unwrap() >= 1, "{s}");
    let want: BTreeSet<(u32, i64)> = [1u32, 2, 3, 5].map(|i| (0x50 + i, i64::from(i))).into();
    assert_eq!(packets(db), want);
    let names = db.rows("SELECT long_name, short_name FROM nodes WHERE node = 81");
    assert_eq!(names[0][0].as_deref(), Some(sql));
    assert_eq!(names[0][1].as_deref(), Some("';-"));
    let text = db.rows("SELECT text FROM packets WHERE from_node = 83");
    assert_eq!(text[0][0].as_deref(), Some("a\u{fffd}b\u{fffd}"));
    let gw = db.rows("SELECT gateway_id FROM receptions WHERE from_node = 83");
    assert_eq!(gw[0][0].as_deref(), Some(evil_gw));
    let port = db.rows("SELECT CAST(portnum AS TEXT) FROM packets WHERE from_node = 85");
    assert_eq!(port[0][0].as_deref(), Some("999"));
}

#[test]
fn hostile_packets_in_sqlite() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    hostile_packets(&Db::Sqlite(dir.path().join("mesh.db")));
}

#[test]
fn hostile_packets_in_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    hostile_packets(&Db::Pg(pg.socket_url("mesh")));
}

#[test]
fn session_outlives_the_gateway_over_mqtt_5() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Mosquitto::start().unwrap();
    let (msgs, want_p, want_r) = load(500, &["!0000a001", "!0000a002"]);
    let (c, _k) = storing(&broker, &db, "v5-session");
    let c = Config {
        mqtt_version: Some(MqttVersion::V5),
        ..c
    };
    // The first run makes the session; messages published while no
    // gateway is connected wait in it for the next run with this id.
    Running::start(c.clone()).stop().unwrap();
    assert_eq!(publish_qos1(broker.port, &msgs, 5_000).unwrap(), msgs.len());
    // The session's messages arrive at once, before the subscription's
    // acknowledgement: no wait for it.
    let s = Running::spawn(max(c, msgs.len()))
        .finish(Duration::from_secs(120))
        .unwrap();
    assert_eq!(s["store"]["receptions"], want_r.len() as u64, "{s}");
    assert_eq!(packets(&db), want_p);
    assert_eq!(receptions(&db).0, want_r);
}

#[test]
fn store_unavailable_at_start_is_waited_for() {
    if !peers(true) {
        return;
    }
    let mut pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    pg.crash();
    let db = Db::Pg(pg.tcp_url("mesh"));
    let broker = Mosquitto::start().unwrap();
    let (c, _k) = storing(&broker, &db, "late-db");
    let gw = Running::spawn(c);
    gw.wait_for("store-waiting", Duration::from_secs(30));
    assert!(
        gw.seen().iter().all(|e| e.as_str() != "subscribed"),
        "nothing is read from the broker before the store is open"
    );
    pg.run().unwrap();
    gw.wait_for("subscribed", Duration::from_secs(60));
    let (msgs, want_p, _) = load(200, &["!0000a001"]);
    assert_eq!(publish_qos1(broker.port, &msgs, 5_000).unwrap(), msgs.len());
    let n = db.wait_count(
        "SELECT count(*) FROM receptions",
        200,
        Duration::from_secs(30),
    );
    assert_eq!(n, 200);
    assert_eq!(packets(&db), want_p);
    gw.stop().unwrap();
}
