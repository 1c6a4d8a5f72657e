//! MeshCore observer feeds end to end: a real Mosquitto, SQLite files and
//! PostgreSQL servers the tests start, the gateway in this process. An
//! observer-JSON feed from two observers and a raw feed from a third, with
//! Meshtastic envelopes beside them: every packet stored once and every
//! reception kept, group texts opened by the public and a hashtag channel,
//! a direct message to our identity opened once its sender's advert was
//! heard (and an earlier copy of one completed), hostile messages counted
//! under their reasons and stored nowhere, and the API, the metrics and the
//! status page showing it all.

use crate::http::{get, scrape, serving, value};
use crate::support::{peers, Running};
use crate::traffic::text_envelope;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use wireseal::meshcore::{ChannelKey, LocalIdentity};
use wireseal_gateway::Config;
use wireseal_testkit::db::Db;
use wireseal_testkit::meshcore_observer::{
    advert, direct, group_text, observer, observer_json, relayed, topic,
};
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;
use wireseal_testkit::postgres::PgServer;

/// A node name made of markup: the page must show it as text.
pub const HOSTILE_NAME: &str = "<script>alert(1)</script>";
/// A group text made of markup.
pub const HOSTILE_TEXT: &str = "Eve: <img src=x onerror=\"document.body.dataset.pwned=1\">";

/// The messages of the test's feeds, and what a store must hold of them.
pub struct Feed {
    /// (topic, payload), in publishing order.
    pub msgs: Vec<(String, Vec<u8>)>,
    /// MeshCore packets stored.
    pub packets: u64,
    /// MeshCore receptions stored.
    pub receptions: u64,
    /// Messages refused, by reason.
    pub refused: Vec<(&'static str, u64)>,
    /// Our identity's file (kept while the gateway runs) and Alice's key.
    pub key: tempfile::NamedTempFile,
    /// Alice's public key.
    pub alice: [u8; 32],
}

fn json_on(obs: u8, raw: &[u8]) -> (String, Vec<u8>) {
    let k = observer(obs);
    (
        topic("SEA", &k),
        observer_json(raw, &k, 6.25, -90 - i32::from(obs)),
    )
}

fn raw_on(obs: u8, raw: &[u8]) -> (String, Vec<u8>) {
    let k = observer(obs);
    (format!("meshcore-raw/SEA/{}", hex::encode(k)), raw.to_vec())
}

/// The test's MeshCore traffic: observers 1 and 2 publish JSON (2 through a
/// repeater), observer 3 raw packets; then hostile messages; Meshtastic
/// texts from two gateways among them.
pub fn feed() -> Feed {
    let ours = LocalIdentity::generate();
    let key = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key.path(), hex::encode(ours.private_key().expose())).unwrap();
    let (alice, eve, mallory) = (
        LocalIdentity::generate(),
        LocalIdentity::generate(),
        LocalIdentity::generate(),
    );
    let t = 1_760_000_000;
    let early = direct(&alice, ours.public(), t, "before the advert");
    let alice_ad = advert(&alice, t + 1, "Alice", Some((52.5, 13.25)));
    let late = direct(&alice, ours.public(), t + 2, "after the advert");
    let public = group_text(&ChannelKey::public(), t + 3, "Bob: hello public");
    let test = group_text(
        &ChannelKey::hashtag("#test").unwrap(),
        t + 4,
        "Carol: hi #test",
    );
    let unknown = group_text(
        &ChannelKey::from_bytes(&[7; 16]).unwrap(),
        t + 5,
        "Dan: secret",
    );
    let mut forged = advert(&mallory, t + 6, "Mallory", None);
    let last = forged.len() - 1;
    forged[last] ^= 0x01;
    let eve_ad = advert(&eve, t + 7, HOSTILE_NAME, None);
    let eve_text = group_text(&ChannelKey::public(), t + 8, HOSTILE_TEXT);
    let r = |raw: &[u8]| relayed(raw, &[0x33]);
    let mut msgs = vec![
        json_on(1, &early),
        json_on(1, &alice_ad),
        json_on(2, &r(&alice_ad)),
        raw_on(3, &relayed(&alice_ad, &[0x33, 0x44])),
        // The early message again, from another observer: now it opens.
        json_on(2, &r(&early)),
        json_on(1, &late),
        json_on(2, &r(&late)),
        json_on(1, &public),
        json_on(2, &r(&public)),
        raw_on(3, &public),
        // The broker delivering one message twice: one reception.
        json_on(1, &public),
        json_on(1, &test),
        json_on(2, &r(&test)),
        json_on(1, &unknown),
        json_on(1, &forged),
        json_on(1, &eve_ad),
        json_on(1, &eve_text),
    ];
    msgs.push(text_envelope(0x5100_0001, 0x0700_0001, "!0000c001", 0));
    msgs.push(text_envelope(0x5100_0001, 0x0700_0001, "!0000c002", 0));
    let mut big = br#"{"type":"PACKET","raw":"11","pad":""#.to_vec();
    big.extend(std::iter::repeat_n(b'x', 5000));
    big.extend(br#""}"#);
    let hostile = [
        (topic("SEA", &observer(9)), big),
        (
            topic("SEA", &observer(9)),
            br#"{"type":"PACKET","raw":"not hex"}"#.to_vec(),
        ),
        raw_on(9, &[0x15, 0xc1, 0, 1, 2, 3, 4, 5]),
        (
            topic("SEA", &observer(9)),
            br#"{"type":"PACKET","raw":"15C10001020304"}"#.to_vec(),
        ),
        (
            topic("SEA", &observer(9)),
            br#"{"type":"STATUS","status":"online"}"#.to_vec(),
        ),
        (topic("SEA", &observer(9)), b"{not json".to_vec()),
        raw_on(9, &[0x40, 0x00, 1, 2, 3, 4]),
    ];
    msgs.extend(hostile);
    Feed {
        msgs,
        packets: 9,
        receptions: 16,
        refused: vec![
            ("oversized", 1),
            ("hex", 1),
            ("reserved_hash_size", 2),
            ("not_packet", 1),
            ("json", 1),
            ("version", 1),
        ],
        key,
        alice: *alice.public().as_bytes(),
    }
}

/// Settings storing into `db` with the MeshCore feeds, our identity and
/// the public and `#test` channels.
pub fn settings(broker: &Mosquitto, db: &Db, id: &str, key: &tempfile::NamedTempFile) -> Config {
    Config {
        broker: Some(broker.url().parse().unwrap()),
        store: Some(db.url().parse().unwrap()),
        client_id: Some(id.into()),
        print_records: Some(false),
        meshcore_topic: vec!["meshcore/+/+/packets".into(), "meshcore-raw/#".into()],
        meshcore_public_channel: true,
        meshcore_hashtag: vec!["#test".into()],
        meshcore_key_file: vec![key.path().display().to_string()],
        ..Config::default()
    }
}

fn json(addr: SocketAddr, path: &str) -> Value {
    let (status, body) = get(addr, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// Publishes `f` to a gateway serving HTTP over `db` and waits until every
/// message was taken and every reception stored.
pub fn run_feed(broker: &Mosquitto, db: &Db, f: &Feed, id: &str) -> (Running, SocketAddr) {
    let (gw, addr) = serving(settings(broker, db, id, &f.key));
    gw.wait_for("subscribed", Duration::from_secs(60));
    let n = f.msgs.len();
    assert_eq!(publish_qos1(broker.port, &f.msgs, 1_000).unwrap(), n);
    let end = Instant::now() + Duration::from_secs(60);
    while gw.counters.acks.get() < n as u64 {
        assert!(Instant::now() < end, "{:?}", gw.counters.snapshot());
        std::thread::sleep(Duration::from_millis(20));
    }
    (gw, addr)
}

/// The rows of `sql`, each column as text, sorted (the databases order
/// NULL differently).
fn sorted(db: &Db, sql: &str) -> Vec<Vec<Option<String>>> {
    let mut rows = db.rows(sql);
    rows.sort();
    rows
}

fn texts(v: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    let mut rows: Vec<Vec<Option<String>>> = v
        .iter()
        .map(|r| r.iter().map(|c| c.map(str::to_owned)).collect())
        .collect();
    rows.sort();
    rows
}

fn rows_stored(db: &Db, f: &Feed) {
    let c = |sql: &str| db.count(sql);
    assert_eq!(c("SELECT count(*) FROM meshcore_packets"), f.packets);
    assert_eq!(c("SELECT count(*) FROM meshcore_receptions"), f.receptions);
    assert_eq!(
        c("SELECT count(*) FROM packets"),
        1,
        "the Meshtastic packet"
    );
    assert_eq!(c("SELECT count(*) FROM receptions"), 2);
    let opened = sorted(
        db,
        "SELECT payload_type, channel_name, text, CAST(decrypted AS TEXT) FROM meshcore_packets \
         WHERE payload_type IN ('grp_txt', 'txt_msg')",
    );
    let s = Some;
    assert_eq!(
        opened,
        texts(&[
            &[s("txt_msg"), None, s("before the advert"), s("1")],
            &[s("txt_msg"), None, s("after the advert"), s("1")],
            &[s("grp_txt"), s("public"), s("Bob: hello public"), s("1")],
            &[s("grp_txt"), s("#test"), s("Carol: hi #test"), s("1")],
            &[s("grp_txt"), s("public"), s(HOSTILE_TEXT), s("1")],
            &[s("grp_txt"), None, None, s("0")],
        ])
    );
    assert_eq!(
        c(
            "SELECT count(*) FROM meshcore_packets WHERE payload_type = 'txt_msg' \
           AND our_key IS NOT NULL AND sender IS NOT NULL"
        ),
        2,
        "both messages opened for our identity, the early one completed"
    );
    let paths = sorted(
        db,
        "SELECT observer_id, path, direction FROM meshcore_receptions WHERE hash = \
         (SELECT hash FROM meshcore_packets WHERE payload_type = 'advert' AND text IS NULL \
         AND signature = 'valid' AND sender IN (SELECT public_key FROM meshcore_nodes \
         WHERE name = 'Alice'))",
    );
    let o: Vec<String> = (0..4).map(|n| hex::encode(observer(n))).collect();
    assert_eq!(
        paths,
        texts(&[
            &[s(&o[1]), s(""), s("rx")],
            &[s(&o[2]), s("33"), s("rx")],
            &[s(&o[3]), s("33,44"), s("")],
        ])
    );
    let nodes = sorted(
        db,
        "SELECT name, node_type, signature, CAST(lat_e6 AS TEXT), CAST(lon_e6 AS TEXT) \
         FROM meshcore_nodes",
    );
    assert_eq!(
        nodes,
        texts(&[
            &[s(HOSTILE_NAME), s("chat"), s("valid"), None, None],
            &[
                s("Alice"),
                s("chat"),
                s("valid"),
                s("52500000"),
                s("13250000")
            ],
            &[None, None, s("invalid"), None, None],
        ])
    );
}

fn api_and_metrics(addr: SocketAddr, f: &Feed) {
    let all = json(addr, "/api/packets?limit=1000");
    let list = all["packets"].as_array().unwrap();
    let mesh = |m: &str| list.iter().filter(|p| p["mesh"] == m).count() as u64;
    assert_eq!(
        (mesh("meshcore"), mesh("meshtastic")),
        (f.packets, 1),
        "{all}"
    );
    let mc = json(addr, "/api/packets?limit=1000&mesh=meshcore");
    let mc = mc["packets"].as_array().unwrap();
    assert_eq!(mc.len() as u64, f.packets);
    let heard: u64 = mc
        .iter()
        .map(|p| p["receptions"]["count"].as_u64().unwrap())
        .sum();
    assert_eq!(heard, f.receptions);
    let public = mc
        .iter()
        .find(|p| p["text"] == "Bob: hello public")
        .unwrap();
    assert_eq!(public["receptions"]["count"], 3, "{public}");
    assert_eq!(
        public["record"]["grp_txt"]["text"], "Bob: hello public",
        "{public}"
    );
    assert_eq!(public["channel_hash"], "11");
    // Pages of 2 across both meshes cover every packet once.
    let mut seen = Vec::new();
    let mut url = "/api/packets?limit=2".to_owned();
    loop {
        let page = json(addr, &url);
        for p in page["packets"].as_array().unwrap() {
            seen.push(format!("{}{}{}", p["hash"], p["from"], p["id"]));
        }
        match page["next"].as_str() {
            Some(n) => url = format!("/api/packets?limit=2&before={n}"),
            None => break,
        }
    }
    let n = seen.len();
    seen.sort();
    seen.dedup();
    assert_eq!(
        (n as u64, seen.len() as u64),
        (f.packets + 1, f.packets + 1)
    );
    let nodes = json(addr, "/api/nodes?limit=1000&mesh=meshcore");
    assert_eq!(nodes["nodes"].as_array().unwrap().len(), 3, "{nodes}");
    let both = json(addr, "/api/nodes?limit=1000");
    assert_eq!(both["nodes"].as_array().unwrap().len(), 4, "{both}");
    let alice = json(addr, &format!("/api/nodes/{}", hex::encode(f.alice)));
    assert_eq!(
        (&alice["name"], &alice["signature"]),
        (&"Alice".into(), &"valid".into())
    );
    assert_eq!(alice["latitude"], 52.5);
    assert_eq!(get(addr, &format!("/api/nodes/{}", "ab".repeat(32))).0, 404);
    for bad in [
        "/api/packets?mesh=meshcorE",
        "/api/packets?mesh=%3Cscript%3E",
        "/api/nodes?mesh=both",
        "/api/packets?mesh=meshcore&portnum=1",
        "/api/packets?before=1.2.3.4",
    ] {
        assert_eq!(get(addr, bad).0, 400, "{bad}");
    }
    let stats = json(addr, "/api/stats?minutes=60");
    let channels: Vec<&str> = stats["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel_id"].as_str().unwrap())
        .collect();
    assert!(channels.contains(&"meshcore:public"), "{stats}");
    assert_eq!(stats["nodes_heard"], 4, "{stats}");

    let s = scrape(addr);
    let v = |m: &str, l: Option<(&str, &str)>| value(&s, m, l) as u64;
    let mc_messages = f.msgs.len() as u64 - 2;
    assert_eq!(
        v("wireseal_gateway_meshcore_messages_total", None),
        mc_messages
    );
    assert_eq!(
        v("wireseal_gateway_meshcore_receptions_total", None),
        f.receptions + 1
    );
    assert_eq!(v("wireseal_gateway_meshcore_duplicates_total", None), 8);
    assert_eq!(v("wireseal_gateway_meshcore_peers", None), 2);
    for (reason, n) in &f.refused {
        let got = v(
            "wireseal_gateway_meshcore_dropped_total",
            Some(("reason", reason)),
        );
        assert_eq!(got, *n, "{reason}");
    }
    let t = |ty: &'static str| Some(("payload_type", ty));
    assert_eq!(
        v("wireseal_gateway_meshcore_decrypted_total", t("txt_msg")),
        3
    );
    assert_eq!(
        v("wireseal_gateway_meshcore_decrypted_total", t("grp_txt")),
        7
    );
    assert_eq!(v("wireseal_gateway_meshcore_packets_total", t("advert")), 5);
    let w = |t: &str| v("wireseal_gateway_store_writes_total", Some(("table", t)));
    assert_eq!(w("meshcore_receptions"), f.receptions);
    assert_eq!(w("receptions"), 2);
}

fn feeds_end_to_end(db: &Db) {
    let broker = Mosquitto::start().unwrap();
    let f = feed();
    let (gw, addr) = run_feed(&broker, db, &f, "meshcore-feeds");
    rows_stored(db, &f);
    api_and_metrics(addr, &f);
    let s = gw.stop().unwrap();
    assert_eq!(s["store"]["meshcore_receptions"], f.receptions, "{s}");
    assert_eq!(s["store"]["rejected"], 0, "{s}");
    assert_eq!(
        s["store"]["duplicates"], 1,
        "the message delivered twice: {s}"
    );
}

#[test]
fn meshcore_feeds_end_to_end_sqlite() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    feeds_end_to_end(&Db::Sqlite(dir.path().join("mesh.db")));
}

#[test]
fn meshcore_feeds_end_to_end_postgres() {
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    feeds_end_to_end(&Db::Pg(pg.socket_url("mesh")));
}

/// Settings that cannot be used stop the gateway at once, by name.
#[test]
fn meshcore_settings_are_checked_at_start() {
    let base = Config {
        broker: Some("mqtt://127.0.0.1:1".parse().unwrap()),
        ..Config::default()
    };
    let err = |c: Config| wireseal_gateway::Gateway::new(c).err().unwrap().setting;
    assert_eq!(
        err(Config {
            meshcore_hashtag: vec!["#ops".into()],
            ..base.clone()
        }),
        "meshcore-topic"
    );
    let e = wireseal_gateway::config::ConfigText::from_toml(
        "broker = \"mqtt://127.0.0.1:1\"\nmeshcore-topic = [\"meshcore/#/x\"]",
    )
    .unwrap()
    .parse()
    .unwrap_err();
    assert_eq!(e.setting, "meshcore-topic", "{e}");
    let missing = Config {
        meshcore_topic: vec!["meshcore/#".into()],
        meshcore_key_file: vec!["/no/such/identity".into()],
        ..base.clone()
    };
    assert_eq!(err(missing), "meshcore-key-file");
    let c = wireseal_gateway::config::ConfigText::from_toml(
        "broker = \"mqtt://127.0.0.1:1\"\nmeshcore-topic = [\"meshcore/#\"]\n\
         meshcore-public-channel = true\nmeshcore-hashtag = [\"#ops\"]",
    )
    .unwrap()
    .parse()
    .unwrap();
    assert!(wireseal_gateway::Gateway::new(c).is_ok());
}

/// The status page over a store both meshes filled: MeshCore's nodes and
/// packets beside Meshtastic's, a node name and a text made of markup shown
/// as text, nothing of them run, nothing logged.
#[test]
fn the_page_shows_meshcore_and_runs_none_of_it() {
    use wireseal_testkit::chromium;
    if !peers(false) || !wireseal_testkit::peer_present(chromium::program().err()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Mosquitto::start().unwrap();
    let f = feed();
    let (gw, addr) = run_feed(&broker, &db, &f, "meshcore-page");
    let (dom, log) = crate::page::render(&format!("http://{addr}/"));
    gw.stop().unwrap();
    assert!(dom.contains("data-loaded=\"1\""), "{dom}\n{log}");
    assert_eq!(dom.matches("data-mesh=\"meshcore\"").count(), 3, "{dom}");
    assert_eq!(dom.matches("data-mesh=\"meshtastic\"").count(), 1, "{dom}");
    assert!(
        dom.contains(&format!("data-node=\"{}\"", hex::encode(f.alice))),
        "{dom}"
    );
    assert_eq!(
        dom.matches("data-packet=\"meshcore/").count() as u64,
        f.packets,
        "{dom}"
    );
    let escaped = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    assert!(dom.contains(&escaped(HOSTILE_NAME)), "{dom}");
    assert!(dom.contains(&escaped(HOSTILE_TEXT)), "{dom}");
    assert!(!dom.contains("data-pwned"), "{dom}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "{console:#?}");
}
