//! `wireseal meshtastic gateway --store` end to end: a real Mosquitto, the
//! gateway process, a SQLite file on disk and a PostgreSQL server the test
//! starts (initdb into a temporary directory). Traffic comes from the
//! independent encoder (interop/meshtastic/feed.py) and from envelopes the
//! test builds; every count is checked against what the test published.

mod gateway_support;

use gateway_support::store::pg::PgServer;
use gateway_support::store::{load, peers, publish_qos1, start_storing, store_args, Db};
use gateway_support::{args, key_file, make_feed, publish};
use gateway_support::{Broker, Gateway, OUR_NODE};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};

/// Starts a gateway on `broker` storing into `db` as `client_id`, with a
/// fresh node key (kept alive with it).
fn gateway(
    broker: &Broker,
    db: &Db,
    client_id: &str,
    extra: &[&str],
) -> (Gateway, tempfile::NamedTempFile) {
    let (key, _) = key_file();
    let gw = start_storing(broker, &key, db, client_id, extra);
    (gw, key)
}

/// Waits for the gateway's own exit (after `--max-packets`); its summary.
fn finish(mut gw: Gateway) -> serde_json::Value {
    let end = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = gw.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < end, "the gateway did not finish");
        std::thread::sleep(Duration::from_millis(50));
    };
    let lines: Vec<String> = gw.stderr.try_iter().collect();
    assert!(status.success(), "exit {status}: {lines:?}");
    let l = lines
        .iter()
        .rev()
        .find(|l| l.contains("\"summary\""))
        .unwrap_or_else(|| panic!("no summary in {lines:?}"));
    serde_json::from_str::<serde_json::Value>(l).unwrap()["summary"].clone()
}

/// Every packet of the feed (channel, PKC to us and to others, signed,
/// NodeInfo, undecryptable, malformed, oversized) stored once with what the
/// independent encoder expects; the same feed again adds nothing.
fn every_kind_stored_once(db: &Db) {
    let broker = Broker::start();
    let (key, public) = key_file();
    let feed = make_feed(OUR_NODE, &public, 1, 0x2000);
    let kept: Vec<&serde_json::Value> = feed
        .iter()
        .map(|l| &l["expect"])
        .filter(|x| x.get("dropped").is_none())
        .collect();
    let want: BTreeSet<(u32, u32)> = kept
        .iter()
        .map(|x| {
            (
                x["from"].as_u64().unwrap() as u32,
                x["id"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    let n = feed.len().to_string();
    for pass in 0..2 {
        let mut more = store_args(db, "kinds");
        more.extend(["--max-packets".into(), n.clone()]);
        let more: Vec<&str> = more.iter().map(String::as_str).collect();
        let gw = Gateway::start(&args(&broker.url(), &key, &more));
        gw.wait_stderr("subscribed", Duration::from_secs(30));
        publish(broker.port, &feed);
        let s = finish(gw);
        assert_eq!(s["malformed"], 1, "{s}");
        assert_eq!(s["oversized"], 1, "{s}");
        assert_eq!(s["store_rejected"], 0, "{s}");
        let fresh = if pass == 0 { kept.len() } else { 0 };
        assert_eq!(s["stored_receptions"], fresh as u64, "pass {pass}: {s}");
        assert_eq!(s["store_duplicates"], (kept.len() - fresh) as u64, "{s}");
        assert_eq!(db.packets(), want, "pass {pass}");
        let (_, rows) = db.receptions();
        assert_eq!(rows, kept.len() as u64, "one reception per message");
    }
    for x in kept {
        let sql = format!(
            "SELECT decryption, channel_name, CAST(portnum AS TEXT), text, signature, error \
             FROM packets WHERE from_node = {} AND packet_id = {}",
            x["from"], x["id"]
        );
        let r = &db.rows(&sql)[0];
        let (dec, chan) = match x["decrypted"].as_str().unwrap() {
            d if d.starts_with("channel:") => ("channel", Some(d[8..].to_owned())),
            d => (d, None),
        };
        assert_eq!(r[0].as_deref(), Some(dec), "{x}");
        assert_eq!(r[1], chan, "{x}");
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
    let pg = PgServer::start();
    pg.create_db("mesh");
    every_kind_stored_once(&Db::Pg(pg.socket_url("mesh")));
}

#[test]
fn two_gateways_write_one_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start();
    pg.create_db("mesh");
    let db = Db::Pg(pg.tcp_url("mesh"));
    let broker = Broker::start();
    let (msgs, packets, receptions) = load(3_000, &["!0000a001", "!0000a002"]);
    let n = msgs.len().to_string();
    let (a, _ka) = gateway(&broker, &db, "gw-a", &["--max-packets", &n]);
    let (b, _kb) = gateway(&broker, &db, "gw-b", &["--max-packets", &n]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(publish_qos1(broker.port, &msgs, 20_000), msgs.len());
    let (sa, sb) = (finish(a), finish(b));
    let sum = |k: &str| sa[k].as_u64().unwrap() + sb[k].as_u64().unwrap();
    // Each gateway got every message; each reception was stored by one.
    assert_eq!(
        sum("stored_receptions"),
        receptions.len() as u64,
        "{sa} {sb}"
    );
    assert_eq!(
        sum("store_duplicates"),
        receptions.len() as u64,
        "{sa} {sb}"
    );
    assert_eq!(db.packets(), packets);
    let (got, rows) = db.receptions();
    assert_eq!(rows, receptions.len() as u64, "no reception twice");
    assert_eq!(got, receptions);
}

/// A plain envelope carrying `data`, from `from`.
fn plain(from: u32, id: u32, channel_id: &str, gateway_id: &str, data: Data) -> Vec<u8> {
    envelope::encode_to_vec(&ServiceEnvelope {
        packet: Some(MeshPacket {
            from,
            to: u32::MAX,
            id,
            payload_variant: Some(PayloadVariant::Decoded(data)),
            ..Default::default()
        }),
        channel_id: channel_id.into(),
        gateway_id: gateway_id.into(),
    })
}

/// Names that look like SQL, invalid UTF-8, NUL, an unknown port, an
/// overlong channel id, garbage and an oversized envelope: stored as given
/// (text made valid) or counted as malformed or oversized, and the gateway
/// and its batches carry on.
fn hostile_packets(db: &Db) {
    let broker = Broker::start();
    let sql = "Robert'); DROP TABLE packets; --";
    let user = |long: &[u8]| {
        // A User with raw bytes as long_name (field 2) and short_name (3).
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
    let (gw, _k) = gateway(&broker, db, "hostile", &["--max-packets", "7"]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000), msgs.len());
    let s = finish(gw);
    // The library refuses an envelope whose channel id is over 64 bytes.
    let counts = (s["malformed"].as_u64(), s["oversized"].as_u64());
    assert_eq!(counts, (Some(2), Some(1)), "{s}");
    assert_eq!(s["stored_receptions"], 4, "{s}");
    assert_eq!(s["store_rejected"], 0, "{s}");
    assert!(s["store_capped"].as_u64().unwrap() >= 1, "{s}");
    let want: BTreeSet<(u32, u32)> = [1, 2, 3, 5].map(|i| (0x50 + i, i)).into();
    assert_eq!(db.packets(), want);
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
    let pg = PgServer::start();
    pg.create_db("mesh");
    hostile_packets(&Db::Pg(pg.socket_url("mesh")));
}

#[test]
fn session_outlives_the_gateway_over_mqtt_5() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Broker::start();
    let (msgs, packets, receptions) = load(500, &["!0000a001", "!0000a002"]);
    let v5 = ["--mqtt-version", "5"];
    // The first run makes the session; messages published while no
    // gateway is connected wait in it for the next run with this id.
    let (gw, key) = gateway(&broker, &db, "v5-session", &v5);
    let (status, _) = gw.interrupt();
    assert!(status.success());
    assert_eq!(publish_qos1(broker.port, &msgs, 5_000), msgs.len());
    let n = msgs.len().to_string();
    let mut more = store_args(&db, "v5-session");
    more.extend(["--mqtt-version", "5", "--max-packets", &n].map(String::from));
    let more: Vec<&str> = more.iter().map(String::as_str).collect();
    let s = finish(Gateway::start(&args(&broker.url(), &key, &more)));
    assert_eq!(s["stored_receptions"], receptions.len() as u64, "{s}");
    assert_eq!(db.packets(), packets);
    assert_eq!(db.receptions().0, receptions);
}

#[test]
fn store_unavailable_at_start_is_waited_for() {
    if !peers(true) {
        return;
    }
    let mut pg = PgServer::start();
    pg.create_db("mesh");
    pg.crash();
    let db = Db::Pg(pg.tcp_url("mesh"));
    let broker = Broker::start();
    let (key, _) = key_file();
    let more = store_args(&db, "late-db");
    let more: Vec<&str> = more.iter().map(String::as_str).collect();
    let gw = Gateway::start(&args(&broker.url(), &key, &more));
    let seen = gw.wait_stderr("store unavailable", Duration::from_secs(30));
    assert!(
        seen.iter().all(|l| !l.contains("subscribed")),
        "nothing is read from the broker before the store is open: {seen:?}"
    );
    pg.run();
    gw.wait_stderr("subscribed", Duration::from_secs(60));
    let (msgs, packets, _) = load(200, &["!0000a001"]);
    assert_eq!(publish_qos1(broker.port, &msgs, 5_000), msgs.len());
    assert_eq!(db.wait_receptions(200, Duration::from_secs(30)), 200);
    assert_eq!(db.packets(), packets);
    let (status, rest) = gw.interrupt();
    assert!(status.success(), "{rest:?}");
}
