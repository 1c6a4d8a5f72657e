//! `wireseal meshtastic gateway --store` under faults, with traffic flowing:
//! the PostgreSQL server crashed and started again, and the gateway
//! SIGKILLed and started again with the same `--client-id`. Every count is
//! checked against what the test published: 0 lost, 0 duplicated.

mod gateway_support;

use gateway_support::store::pg::PgServer;
use gateway_support::store::{load, peers, publish_qos1, start_storing, Db};
use gateway_support::{key_file, Broker, Gateway};
use std::time::Duration;

fn start(broker: &Broker, key: &tempfile::NamedTempFile, db: &Db, id: &str) -> Gateway {
    start_storing(broker, key, db, id, &["--store-buffer", "5000"])
}

/// The stored rows are exactly the published ones.
fn exact(
    db: &Db,
    packets: &std::collections::BTreeSet<(u32, u32)>,
    receptions: &std::collections::BTreeSet<(u32, u32, String)>,
) {
    let n = db.wait_receptions(receptions.len() as u64, Duration::from_secs(90));
    assert_eq!(n, receptions.len() as u64, "receptions stored");
    let (got, rows) = db.receptions();
    assert_eq!(rows, receptions.len() as u64, "no reception twice");
    assert_eq!(&got, receptions, "no reception lost");
    assert_eq!(&db.packets(), packets, "every packet once");
}

#[test]
fn postgres_restarted_under_load_loses_and_duplicates_nothing() {
    if !peers(true) {
        return;
    }
    let mut pg = PgServer::start();
    pg.create_db("mesh");
    let db = Db::Pg(pg.tcp_url("mesh"));
    let broker = Broker::start();
    let (key, _) = key_file();
    let (msgs, packets, receptions) = load(12_000, &["!0000a001", "!0000a002", "!0000a003"]);
    let gw = start(&broker, &key, &db, "pg-restart");
    let port = broker.port;
    let all = msgs.clone();
    let publisher = std::thread::spawn(move || publish_qos1(port, &all, 12_000));
    std::thread::sleep(Duration::from_millis(800));
    pg.crash();
    std::thread::sleep(Duration::from_secs(2));
    pg.run();
    assert_eq!(
        publisher.join().unwrap(),
        msgs.len(),
        "the broker took every message"
    );
    exact(&db, &packets, &receptions);
    let (status, rest) = gw.interrupt();
    assert!(status.success(), "{rest:?}");
    assert!(
        rest.iter().any(|l| l.contains("store unavailable")),
        "{rest:?}"
    );
    assert!(
        rest.iter().any(|l| l.contains("available again")),
        "{rest:?}"
    );
}

#[test]
fn gateway_killed_under_load_resumes_its_session() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Broker::start();
    let (key, _) = key_file();
    let (msgs, packets, receptions) = load(10_000, &["!0000a001", "!0000a002", "!0000a003"]);
    let mut first = start(&broker, &key, &db, "killed");
    let port = broker.port;
    let all = msgs.clone();
    let publisher = std::thread::spawn(move || publish_qos1(port, &all, 10_000));
    std::thread::sleep(Duration::from_millis(1200));
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let at_kill = db.count("SELECT CAST(COUNT(*) AS TEXT) FROM receptions");
    assert!(
        at_kill < receptions.len() as u64,
        "killed while messages were still coming"
    );
    let second = start(&broker, &key, &db, "killed");
    assert_eq!(
        publisher.join().unwrap(),
        msgs.len(),
        "the broker took every message"
    );
    exact(&db, &packets, &receptions);
    let (status, rest) = second.interrupt();
    assert!(status.success(), "{rest:?}");
}
