//! `wireseal meshtastic gateway`, the process: settings from flags and from
//! `--config FILE`, start-up errors with exit 1 and the reason, the broker
//! failure words and `--max-retries`, a closed output ending it cleanly,
//! and the faults only a process can have: PostgreSQL restarted under load
//! and the gateway SIGKILLed under load, with map reports through three
//! gateways in the traffic, and SIGKILLed under a mixed Meshtastic and
//! MeshCore feed into SQLite and into PostgreSQL: 0 lost, 0 duplicated.
//! Readiness is the `--ready-file` the gateway writes once subscribed,
//! never its log.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};
use wireseal_testkit::db::Db;
use wireseal_testkit::meshtastic::text_envelope;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;
use wireseal_testkit::postgres::PgServer;

const BIN: &str = env!("CARGO_BIN_EXE_wireseal");

fn gateway(args: &[String]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["meshtastic", "gateway"]).args(args);
    c
}

fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Starts the gateway and waits until its ready file says it subscribed.
fn start(args: &[String], dir: &Path, name: &str) -> Child {
    let ready = dir.join(format!("{name}.ready"));
    let _ = std::fs::remove_file(&ready);
    let mut a = args.to_vec();
    a.extend(["--ready-file".to_string(), ready.display().to_string()]);
    let mut child = gateway(&a)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the gateway");
    let end = Instant::now() + Duration::from_secs(60);
    while !ready.exists() {
        if let Some(st) = child.try_wait().unwrap() {
            panic!("the gateway exited before subscribing: {st}");
        }
        assert!(
            Instant::now() < end,
            "the gateway did not subscribe within 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn interrupt(mut child: Child) -> std::process::ExitStatus {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    child.wait().unwrap()
}

#[test]
fn a_missing_broker_is_reported_in_words_and_given_up_on() {
    let url = format!("mqtt://127.0.0.1:{}", closed_port());
    let t = Instant::now();
    let o = gateway(&strings(&["--broker", &url, "--max-retries", "3"]))
        .output()
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(20));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("connection refused"), "{err}");
    assert!(err.contains("attempt 1 of 3"), "{err}");
    assert!(err.contains("gave up after 3 failed attempt(s)"), "{err}");
    assert!(!err.contains("kind:") && !err.contains("Custom {"), "{err}");
}

#[test]
fn without_a_retry_limit_the_log_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("mqtt://127.0.0.1:{}", closed_port());
    let child = gateway(&strings(&["--broker", &url]))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let _ = dir;
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "SIGINT exits 0");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no retry limit (--max-retries N gives up)"),
        "{err}"
    );
    assert!(err.contains("\"summary\""), "{err}");
}

/// Mistakes stop the process at once with exit 1 and the setting's name;
/// nothing is retried.
#[test]
fn settings_errors_fail_at_start() {
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--store",
                "sqlite:/no/such/dir/x.db",
                "--client-id",
                "x",
            ],
            "--store",
        ),
        (&["--broker", "mqtt://[::1"], "--broker"),
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--key-file",
                "/no/such/key",
            ],
            "--key-file",
        ),
        (
            &["--broker", "mqtt://127.0.0.1:1", "--firmware-json", "msh/#"],
            "--firmware-json",
        ),
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--meshcore-hashtag",
                "ops",
            ],
            "--meshcore-topic",
        ),
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--meshcore-topic",
                "meshcore/#",
                "--meshcore-channel-key",
                "Ops=c2VjcmV0",
            ],
            "--meshcore-channel-key",
        ),
    ];
    for (args, says) in cases {
        let t = Instant::now();
        let o = gateway(&strings(args)).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(t.elapsed() < Duration::from_secs(5), "{args:?} was retried");
    }
}

/// Text messages from ten nodes of the test's, on LongFast.
fn texts(n: u32, gw: &str) -> Vec<(String, Vec<u8>)> {
    (0..n)
        .map(|i| {
            text_envelope(
                0x3100_0000 + i % 10,
                0x0200_0000 + i,
                &format!("line {i}"),
                gw,
                0,
            )
        })
        .collect()
}

/// A closed standard output (`| head`) or standard error ends the gateway
/// cleanly: exit 0, no panic.
#[test]
fn a_closed_output_ends_the_gateway_cleanly() {
    if !wireseal_testkit::peer_present(wireseal_testkit::feed::missing()) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let drain = |r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = BufReader::new(r).read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    for closed in ["stdout", "stderr"] {
        let ready = dir.path().join(format!("{closed}.ready"));
        let mut child = gateway(&strings(&[
            "--broker",
            &broker.url(),
            "--stats",
            "1",
            "--ready-file",
            ready.to_str().unwrap(),
        ]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let end = Instant::now() + Duration::from_secs(30);
        while !ready.exists() {
            assert!(Instant::now() < end, "not subscribed");
            std::thread::sleep(Duration::from_millis(20));
        }
        let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let other = if closed == "stdout" {
            // `| head -n 1`: one line read, then the pipe closes.
            let other = drain(Box::new(err));
            publish_qos1(broker.port, &texts(1, "!0000e001"), 100).unwrap();
            let mut line = String::new();
            let mut r = BufReader::new(out);
            r.read_line(&mut line).unwrap();
            assert!(line.contains("\"kind\":\"text\""), "{line}");
            drop(r);
            other
        } else {
            drop(err);
            drain(Box::new(out))
        };
        let end = Instant::now() + Duration::from_secs(30);
        let status = loop {
            publish_qos1(broker.port, &texts(50, "!0000e001"), 1_000).unwrap();
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            assert!(
                Instant::now() < end,
                "{closed}: still running with its output closed"
            );
        };
        let other = other.join().unwrap();
        assert!(status.success(), "{closed}: {status} {other}");
        assert!(!other.contains("panicked"), "{other}");
    }
}

/// Map reports (no packet id) and text messages, each heard by three
/// gateways: the messages, and how many packets and receptions of each
/// kind a store must then hold.
fn load(packets: u32, reports: u32) -> (Vec<(String, Vec<u8>)>, usize, usize) {
    let gws = ["!0000a001", "!0000a002", "!0000a003"];
    let mut msgs = Vec::new();
    for gw in gws {
        msgs.extend(texts(packets, gw));
        for i in 0..reports {
            let data = Data {
                portnum: envelope::MAP_REPORT_APP,
                payload: format!("report {i} of node 0x3200").into_bytes(),
                ..Default::default()
            };
            let env = ServiceEnvelope {
                packet: Some(MeshPacket {
                    from: 0x3200,
                    to: u32::MAX,
                    id: 0,
                    payload_variant: Some(PayloadVariant::Decoded(data)),
                    ..Default::default()
                }),
                channel_id: "LongFast".into(),
                gateway_id: gw.into(),
            };
            msgs.push(("msh/EU_868/2/map/".into(), envelope::encode_to_vec(&env)));
        }
    }
    // Interleave the gateways' copies as a live feed does.
    let per = msgs.len() / 3;
    let mut out = Vec::with_capacity(msgs.len());
    for i in 0..per {
        for g in 0..3 {
            out.push(msgs[g * per + i].clone());
        }
    }
    (
        out,
        (packets + reports) as usize,
        3 * (packets + reports) as usize,
    )
}

/// The store holds exactly the published packets and receptions.
fn exact(db: &Db, packets: usize, receptions: usize) {
    let n = db.wait_count(
        "SELECT count(*) FROM receptions",
        receptions as u64,
        Duration::from_secs(120),
    );
    assert_eq!(n, receptions as u64, "receptions stored");
    let distinct = db.count(
        "SELECT count(*) FROM (SELECT DISTINCT from_node, packet_id, gateway_id, relay_node, transport FROM receptions) x",
    );
    assert_eq!(distinct, receptions as u64, "no reception twice");
    assert_eq!(
        db.count("SELECT count(*) FROM packets"),
        packets as u64,
        "every packet once"
    );
    let per_packet: BTreeSet<String> = db
        .rows("SELECT CAST(count(*) AS TEXT) FROM receptions GROUP BY from_node, packet_id")
        .into_iter()
        .filter_map(|r| r[0].clone())
        .collect();
    assert_eq!(
        per_packet,
        BTreeSet::from(["3".to_owned()]),
        "three receptions each"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM packets WHERE portnum = 73 AND packet_id < 0"),
        300
    );
}

fn storing(broker: &Mosquitto, db: &Db, id: &str, dir: &Path) -> Vec<String> {
    let config = dir.join(format!("{id}.toml"));
    std::fs::write(
        &config,
        format!(
            "broker = \"{}\"\nstore = \"{}\"\nclient-id = \"{id}\"\nstore-buffer = 5000\ndedup-window = \"1d\"\nprint-records = false\n\
             # The load sends 1,200 packets per node in a second.\nflood-rate = 0\n",
            broker.url(),
            db.url()
        ),
    )
    .unwrap();
    vec!["--config".into(), config.display().to_string()]
}

#[test]
fn postgres_restarted_under_load_loses_and_duplicates_nothing() {
    if !wireseal_testkit::peer_present(
        wireseal_testkit::feed::missing().or_else(wireseal_testkit::postgres::missing),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    let db = Db::Pg(pg.tcp_url("mesh"));
    let broker = Mosquitto::start().unwrap();
    let (msgs, packets, receptions) = load(12_000, 300);
    let gw = start(
        &storing(&broker, &db, "pg-restart", dir.path()),
        dir.path(),
        "pg",
    );
    let port = broker.port;
    let all = msgs.clone();
    let publisher = std::thread::spawn(move || publish_qos1(port, &all, 12_000).unwrap());
    std::thread::sleep(Duration::from_millis(800));
    pg.crash();
    std::thread::sleep(Duration::from_secs(2));
    pg.run().unwrap();
    assert_eq!(
        publisher.join().unwrap(),
        msgs.len(),
        "the broker took every message"
    );
    exact(&db, packets, receptions);
    assert!(interrupt(gw).success());
}

#[test]
fn gateway_killed_under_load_resumes_its_session() {
    if !wireseal_testkit::peer_present(wireseal_testkit::feed::missing()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Mosquitto::start().unwrap();
    let (msgs, packets, receptions) = load(10_000, 300);
    let args = storing(&broker, &db, "killed", dir.path());
    let mut first = start(&args, dir.path(), "first");
    let port = broker.port;
    let all = msgs.clone();
    let publisher = std::thread::spawn(move || publish_qos1(port, &all, 10_000).unwrap());
    std::thread::sleep(Duration::from_millis(1200));
    first.kill().unwrap();
    first.wait().unwrap();
    let at_kill = db.count("SELECT count(*) FROM receptions");
    assert!(
        at_kill < receptions as u64,
        "killed while messages were still coming"
    );
    let second = start(&args, dir.path(), "second");
    assert_eq!(
        publisher.join().unwrap(),
        msgs.len(),
        "the broker took every message"
    );
    exact(&db, packets, receptions);
    assert!(interrupt(second).success());
}

/// MeshCore packets (group texts on the public channel, 5% adverts, 5%
/// direct messages), each heard by three observers (JSON direct, JSON
/// through a repeater, raw), the copies interleaved; the messages, and the
/// packets and receptions a store must hold.
fn meshcore_load(packets: u32) -> (Vec<(String, Vec<u8>)>, usize, usize) {
    use wireseal::meshcore::{ChannelKey, LocalIdentity};
    use wireseal_testkit::meshcore_observer as mc;
    let public = ChannelKey::public();
    let ids: Vec<LocalIdentity> = (0..20).map(|_| LocalIdentity::generate()).collect();
    let mut msgs = Vec::new();
    for i in 0..packets {
        let t = 1_760_000_000 + i;
        let id = &ids[i as usize % ids.len()];
        let raw = match i % 20 {
            0 => mc::advert(id, t, &format!("node {i}"), None),
            1 => mc::direct(id, ids[0].public(), t, &format!("dm {i}")),
            _ => mc::group_text(&public, t, &format!("n{}: line {i}", i % 40)),
        };
        let (a, b, c) = (mc::observer(1), mc::observer(2), mc::observer(3));
        msgs.push((mc::topic("SEA", &a), mc::observer_json(&raw, &a, 5.0, -90)));
        let via = mc::relayed(&raw, &[0x21]);
        msgs.push((mc::topic("PDX", &b), mc::observer_json(&via, &b, 2.5, -101)));
        msgs.push((format!("meshcore-raw/{}", hex::encode(c)), raw));
    }
    let n = packets as usize;
    (msgs, n, 3 * n)
}

/// Meshtastic's load and MeshCore's, interleaved message by message.
fn mixed_load(packets: u32) -> (Vec<(String, Vec<u8>)>, [usize; 4]) {
    let (mt, p, r) = load(packets, 300);
    let (mc, cp, cr) = meshcore_load(packets);
    let mut out = Vec::with_capacity(mt.len() + mc.len());
    let (mut a, mut b) = (mt.into_iter(), mc.into_iter());
    loop {
        match (a.next(), b.next()) {
            (None, None) => break,
            (x, y) => out.extend(x.into_iter().chain(y)),
        }
    }
    (out, [p, r, cp, cr])
}

/// The store holds exactly the published MeshCore packets and receptions.
fn exact_meshcore(db: &Db, packets: usize, receptions: usize) {
    let n = db.wait_count(
        "SELECT count(*) FROM meshcore_receptions",
        receptions as u64,
        Duration::from_secs(120),
    );
    assert_eq!(n, receptions as u64, "MeshCore receptions stored");
    let distinct = db.count(
        "SELECT count(*) FROM (SELECT DISTINCT hash, observer_id, path, direction \
         FROM meshcore_receptions) x",
    );
    assert_eq!(distinct, receptions as u64, "no MeshCore reception twice");
    assert_eq!(
        db.count("SELECT count(*) FROM meshcore_packets"),
        packets as u64,
        "every MeshCore packet once"
    );
    let per_packet: BTreeSet<String> = db
        .rows("SELECT CAST(count(*) AS TEXT) FROM meshcore_receptions GROUP BY hash")
        .into_iter()
        .filter_map(|r| r[0].clone())
        .collect();
    assert_eq!(
        per_packet,
        BTreeSet::from(["3".to_owned()]),
        "three observers each"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM meshcore_packets WHERE payload_type = 'grp_txt' AND decrypted = 1"),
        (packets as u64) * 18 / 20,
        "every group text opened"
    );
}

/// Settings storing into `db` with the MeshCore feeds too.
fn storing_mixed(broker: &Mosquitto, db: &Db, id: &str, dir: &Path) -> Vec<String> {
    let args = storing(broker, db, id, dir);
    let config = dir.join(format!("{id}.toml"));
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(
        "meshcore-topic = [\"meshcore/+/+/packets\", \"meshcore-raw/#\"]\nmeshcore-public-channel = true\n",
    );
    std::fs::write(&config, text).unwrap();
    args
}

/// The gateway SIGKILLed 1.2 s into a mixed feed and started again with
/// the same client id: every Meshtastic and MeshCore packet and reception
/// stored exactly once.
fn killed_under_mixed_load(db: &Db) {
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start().unwrap();
    let (msgs, [packets, receptions, mc_packets, mc_receptions]) = mixed_load(5_000);
    let args = storing_mixed(&broker, db, "killed-mixed", dir.path());
    let mut first = start(&args, dir.path(), "first");
    let port = broker.port;
    let all = msgs.clone();
    let publisher = std::thread::spawn(move || publish_qos1(port, &all, 10_000).unwrap());
    std::thread::sleep(Duration::from_millis(1200));
    first.kill().unwrap();
    first.wait().unwrap();
    let at_kill = db.count("SELECT count(*) FROM receptions")
        + db.count("SELECT count(*) FROM meshcore_receptions");
    assert!(
        at_kill < (receptions + mc_receptions) as u64,
        "killed while messages were still coming"
    );
    let second = start(&args, dir.path(), "second");
    assert_eq!(
        publisher.join().unwrap(),
        msgs.len(),
        "the broker took every message"
    );
    exact(db, packets, receptions);
    exact_meshcore(db, mc_packets, mc_receptions);
    assert!(interrupt(second).success());
}

#[test]
fn gateway_killed_under_a_mixed_feed_loses_and_duplicates_nothing_sqlite() {
    if !wireseal_testkit::peer_present(wireseal_testkit::feed::missing()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    killed_under_mixed_load(&Db::Sqlite(dir.path().join("mesh.db")));
}

#[test]
fn gateway_killed_under_a_mixed_feed_loses_and_duplicates_nothing_postgres() {
    if !wireseal_testkit::peer_present(
        wireseal_testkit::feed::missing().or_else(wireseal_testkit::postgres::missing),
    ) {
        return;
    }
    let pg = PgServer::start().unwrap();
    pg.create_db("mesh").unwrap();
    killed_under_mixed_load(&Db::Pg(pg.tcp_url("mesh")));
}
