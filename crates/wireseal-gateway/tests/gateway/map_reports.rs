//! Packets without an id: map reports (`MAP_REPORT_APP`, id 0, on
//! `<root>/2/map/`). Different reports from one node are different packets;
//! one report through three gateways is one packet and three receptions.

use crate::store::storing;
use crate::support::{peers, Running};
use crate::traffic::map_report;
use std::time::Duration;
use wireseal_gateway::Config;
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;
use wireseal_testkit::postgres::PgServer;

const GWS: [&str; 3] = ["!0000b001", "!0000b002", "!0000b003"];

fn reports_kept_apart_and_copies_joined(db: &Db) {
    let broker = Mosquitto::start().unwrap();
    let node = 0x3003;
    let mut msgs: Vec<(String, Vec<u8>)> = (0..5)
        .map(|i| map_report(node, &format!("report {i}"), GWS[0]))
        .collect();
    // One more report, as three gateways heard it.
    msgs.extend(GWS.iter().map(|gw| map_report(node, "heard thrice", gw)));
    let (c, _k) = storing(&broker, db, "map-reports");
    let gw = Running::start(Config {
        max_packets: Some(msgs.len() as u64),
        ..c
    });
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    let s = gw.finish(Duration::from_secs(60)).unwrap();
    assert_eq!(s["kind"]["map_report"], 8, "{s}");
    assert_eq!(s["store"]["packets"], 6, "{s}");
    assert_eq!(s["store"]["receptions"], 8, "{s}");
    let q = format!("SELECT count(*) FROM packets WHERE from_node = {node} AND portnum = 73");
    assert_eq!(db.count(&q), 6, "five reports and the one heard thrice");
    assert_eq!(
        db.count(&format!(
            "SELECT count(*) FROM packets WHERE from_node = {node} AND packet_id >= 0"
        )),
        0,
        "keyed by content"
    );
    let thrice = db.rows(&format!(
        "SELECT CAST(count(*) AS TEXT) FROM receptions WHERE from_node = {node} GROUP BY packet_id \
         ORDER BY count(*) DESC"
    ));
    let counts: Vec<Option<String>> = thrice.into_iter().map(|r| r[0].clone()).collect();
    let s = |n: &str| Some(n.to_owned());
    assert_eq!(counts, [s("3"), s("1"), s("1"), s("1"), s("1"), s("1")]);
}

#[test]
fn map_reports_in_sqlite() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    reports_kept_apart_and_copies_joined(&Db::Sqlite(dir.path().join("mesh.db")));
}

#[test]
fn map_reports_in_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    reports_kept_apart_and_copies_joined(&Db::Pg(pg.socket_url("mesh")));
}
