//! The JSON API against a store the real gateway filled from a real
//! Mosquitto (SQLite and PostgreSQL): every count equals what was
//! published, pages cut by the cursor cover every row once, receptions are
//! rolled up, hostile text comes back as the same text, and bad parameters
//! get a 400.

use crate::http::{get, serving};
use crate::store::storing;
use crate::support::peers;
use crate::traffic::text_envelope;
use serde_json::Value;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;
use wireseal::meshtastic::envelope::{self, Data, Position, User};
use wireseal_testkit::db::Db;
use wireseal_testkit::meshtastic::plain;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;
use wireseal_testkit::postgres::PgServer;

const GWS: [&str; 3] = ["!0000e001", "!0000e002", "!0000e003"];
/// Nodes that send.
pub const NODES: u32 = 7;
const PACKETS: u32 = 60;
/// The first sender, which also sends its NodeInfo and a position.
pub const NAMED: u32 = 0x5100_0000;
/// A long name a page must show as text.
pub const HOSTILE: &str = "<script>document.title='pwned'</script>\
    <img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">";

fn json(addr: SocketAddr, path: &str) -> Value {
    let (status, body) = get(addr, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// Follows `next` from `path` (which ends in `limit=N`); every item of
/// `field` on every page.
fn all_pages(addr: SocketAddr, path: &str, field: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut url = path.to_owned();
    for _ in 0..1000 {
        let page = json(addr, &url);
        out.extend(page[field].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(n) => url = format!("{path}&before={n}"),
            None => return out,
        }
    }
    panic!("no end to the pages");
}

/// The messages: text packets from `NODES` nodes heard by every gateway,
/// then a NodeInfo with a hostile name and a position from `NAMED`.
pub fn published() -> Vec<(String, Vec<u8>)> {
    let mut msgs = Vec::new();
    for i in 0..PACKETS {
        for g in GWS {
            msgs.push(text_envelope(NAMED + i % NODES, 0x0400_0000 + i, g, 0));
        }
    }
    let topic = msgs[0].0.clone();
    let user = User {
        id: format!("!{NAMED:08x}"),
        long_name: HOSTILE.into(),
        short_name: "<b>".into(),
        ..Default::default()
    };
    let info = Data {
        portnum: envelope::NODEINFO_APP,
        payload: envelope::encode_payload(&user),
        ..Default::default()
    };
    msgs.push((
        topic.clone(),
        plain(NAMED, 0x0500_0001, "LongFast", GWS[0], info),
    ));
    let pos = Position {
        latitude_i: Some(521_234_567),
        longitude_i: Some(43_456_789),
        ..Default::default()
    };
    let pos = Data {
        portnum: envelope::POSITION_APP,
        payload: envelope::encode_payload(&pos),
        ..Default::default()
    };
    msgs.push((topic, plain(NAMED, 0x0500_0002, "LongFast", GWS[1], pos)));
    msgs
}

/// Runs the gateway into `db` with `--http`, publishes [`published`] and
/// waits until every reception is stored; the gateway, its address and
/// its key file (kept while it runs).
pub fn filled(
    broker: &Mosquitto,
    db: &Db,
    id: &str,
) -> (crate::support::Running, SocketAddr, tempfile::NamedTempFile) {
    let (c, key) = storing(broker, db, id);
    let (gw, addr) = serving(c);
    gw.wait_for("subscribed", Duration::from_secs(60));
    let msgs = published();
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    db.wait_count(
        "SELECT count(*) FROM receptions",
        msgs.len() as u64,
        Duration::from_secs(60),
    );
    (gw, addr, key)
}

fn api_counts_what_was_published(db: &Db) {
    let broker = Mosquitto::start().unwrap();
    let (gw, addr, _key) = filled(&broker, db, "api");
    let total = PACKETS as usize + 2;

    let nodes = json(addr, "/api/nodes?limit=1000");
    assert_eq!(nodes["nodes"].as_array().unwrap().len(), NODES as usize);
    let paged = all_pages(addr, "/api/nodes?limit=3", "nodes");
    let ids: BTreeSet<String> = paged
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!((paged.len(), ids.len()), (NODES as usize, NODES as usize));

    // Unsigned senders; then one whose newest packet's signature failed
    // and one whose signature verified, written into the store directly.
    for n in nodes["nodes"].as_array().unwrap() {
        assert_eq!(n["signing"], "absent", "{n}");
    }
    let later = i64::MAX / 2;
    for (node, sig) in [(NAMED + 1, "invalid"), (NAMED + 2, "valid")] {
        db.exec(&format!(
            "INSERT INTO packets (from_node, packet_id, to_node, channel_id, decryption, \
             first_seen_ms, signature) VALUES ({node}, 7, 4294967295, 'LongFast', 'channel', \
             {later}, '{sig}')"
        ));
    }
    let signing = |node: u32| json(addr, &format!("/api/nodes/!{node:08x}"))["signing"].clone();
    assert_eq!(signing(NAMED + 1), "invalid");
    assert_eq!(signing(NAMED + 2), "valid");
    assert_eq!(signing(NAMED + 3), "absent");
    let listed = json(addr, "/api/nodes?limit=1000");
    let by_id = |id: u32| {
        listed["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == format!("!{id:08x}"))
            .map(|n| n["signing"].clone())
    };
    assert_eq!(by_id(NAMED + 1), Some("invalid".into()));
    assert_eq!(by_id(NAMED + 2), Some("valid".into()));
    db.exec(&format!(
        "DELETE FROM packets WHERE first_seen_ms = {later}"
    ));

    let named = json(addr, &format!("/api/nodes/!{NAMED:08x}"));
    assert_eq!(named["long_name"], HOSTILE, "{named}");
    assert_eq!(named["short_name"], "<b>");
    assert_eq!(
        named["position"]["latitude"]
            .as_f64()
            .map(|v| (v * 1e7).round()),
        Some(521_234_567.0)
    );
    assert_eq!(
        named["position"]["longitude"]
            .as_f64()
            .map(|v| (v * 1e7).round()),
        Some(43_456_789.0)
    );
    assert_eq!(get(addr, "/api/nodes/!0badf00d").0, 404);
    assert_eq!(get(addr, "/api/nodes/nonsense").0, 400);

    let packets = json(addr, "/api/packets?limit=1000");
    let list = packets["packets"].as_array().unwrap();
    assert_eq!(list.len(), total);
    assert!(packets["next"].is_null());
    let texts: Vec<&Value> = list.iter().filter(|p| p["portnum"] == 1).collect();
    assert_eq!(texts.len(), PACKETS as usize);
    for p in &texts {
        assert_eq!(p["receptions"]["count"], 3, "{p}");
        let gws: BTreeSet<&str> = p["receptions"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["gateway_id"].as_str().unwrap())
            .collect();
        assert_eq!(gws, GWS.into_iter().collect());
    }
    let paged = all_pages(addr, "/api/packets?limit=7", "packets");
    let keys: BTreeSet<(String, i64)> = paged
        .iter()
        .map(|p| {
            (
                p["from"].as_str().unwrap().to_owned(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!((paged.len(), keys.len()), (total, total));
    let from_named = PACKETS.div_ceil(NODES) as usize + 2;
    let by_node = json(addr, &format!("/api/packets?limit=1000&node=!{NAMED:08x}"));
    assert_eq!(by_node["packets"].as_array().unwrap().len(), from_named);
    let by_port = json(addr, "/api/packets?limit=1000&portnum=1");
    assert_eq!(
        by_port["packets"].as_array().unwrap().len(),
        PACKETS as usize
    );
    let future = json(addr, "/api/packets?since=99999999999999");
    assert_eq!(future["packets"].as_array().unwrap().len(), 0);
    // A parameter is a value, never SQL.
    let injected = json(addr, "/api/packets?channel=%27%20OR%201%3D1%20--");
    assert_eq!(injected["packets"].as_array().unwrap().len(), 0);
    for bad in [
        "/api/packets?limit=0",
        "/api/packets?limit=1001",
        "/api/packets?node=!xyz",
        // A cursor is MS.FROM.ID (Meshtastic) or MS.HASH (MeshCore).
        "/api/packets?before=1.2.3.4",
        "/api/packets?before=1",
        "/api/packets?colour=red",
        "/api/nodes?limit=-1",
        "/api/stats?minutes=100000",
    ] {
        assert_eq!(get(addr, bad).0, 400, "{bad}");
    }

    let stats = json(addr, "/api/stats?minutes=60");
    let sum = |field: &str| -> u64 {
        stats[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["packets"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("channels"), total as u64, "{stats}");
    assert_eq!(sum("per_minute"), total as u64, "{stats}");
    assert_eq!(stats["nodes_heard"], NODES);
    assert_eq!(stats["gateway"]["counts"]["messages"], PACKETS * 3 + 2);
    gw.stop().unwrap();
}

#[test]
fn the_api_counts_what_was_published_sqlite() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    api_counts_what_was_published(&Db::Sqlite(dir.path().join("mesh.db")));
}

#[test]
fn the_api_counts_what_was_published_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    api_counts_what_was_published(&Db::Pg(pg.tcp_url("mesh")));
}
