//! The flood guard end to end: one node sending far over its rate beside
//! quiet nodes heard by three gateways, into a store. The loud node's
//! packets stored stay within its burst plus its rate over the run; every
//! packet and reception of the others is stored; what was refused is
//! counted.

use crate::store::storing;
use crate::support::{peers, Running};
use crate::traffic::text_envelope;
use std::time::{Duration, Instant};
use wireseal_gateway::Config;
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;

const GWS: [&str; 3] = ["!0000c001", "!0000c002", "!0000c003"];
const LOUD: u32 = 0x4bad_0001;
const LOUD_PACKETS: u32 = 400;
const QUIET_NODES: u32 = 20;
const QUIET_PACKETS: u32 = 3;

#[test]
fn a_loud_node_is_held_to_its_limit_and_the_others_are_all_stored() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Mosquitto::start().unwrap();
    let mut msgs = Vec::new();
    for i in 0..LOUD_PACKETS {
        msgs.push(text_envelope(LOUD, 0x0100_0000 + i, GWS[0], 0));
        // The quiet nodes' packets spread through the loud node's.
        if i % 6 == 0 && i / 6 < QUIET_NODES * QUIET_PACKETS {
            let (node, k) = (i / 6 % QUIET_NODES, i / 6 / QUIET_NODES);
            for gw in GWS {
                msgs.push(text_envelope(0x3000_0000 + node, 0x0200_0000 + k, gw, 0));
            }
        }
    }
    let quiet = QUIET_NODES * QUIET_PACKETS;
    assert_eq!(msgs.len() as u32, LOUD_PACKETS + 3 * quiet);
    let (c, _k) = storing(&broker, &db, "flood");
    let (rate, burst) = (2.0, 20);
    let t0 = Instant::now();
    let gw = Running::start(Config {
        max_packets: Some(msgs.len() as u64),
        flood_rate: Some(rate),
        flood_burst: Some(burst),
        ..c
    });
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    let s = gw.finish(Duration::from_secs(60)).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let loud = db.count(&format!(
        "SELECT count(*) FROM packets WHERE from_node = {LOUD}"
    ));
    let limit = f64::from(burst) + rate * secs;
    assert!(loud >= u64::from(burst), "{loud} stored, burst {burst}");
    assert!(
        loud as f64 <= limit,
        "{loud} stored in {secs:.1} s, limit {limit:.1}"
    );
    assert_eq!(
        s["flood_refused"].as_u64(),
        Some(u64::from(LOUD_PACKETS) - loud),
        "{s}"
    );
    let others = |table: &str| {
        db.count(&format!(
            "SELECT count(*) FROM {table} WHERE from_node <> {LOUD}"
        ))
    };
    assert_eq!(others("packets"), u64::from(quiet), "{s}");
    assert_eq!(others("receptions"), u64::from(3 * quiet), "{s}");
}
