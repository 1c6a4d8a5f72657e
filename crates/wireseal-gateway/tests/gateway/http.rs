//! The read side over HTTP end to end: the gateway fed by a real Mosquitto
//! into a SQLite file, `--http` on a port the system picks; the probes'
//! status codes follow the broker connection, and `/metrics`, read by a
//! Prometheus text parser, counts exactly what was published.

use crate::store::storing;
use crate::support::{peers, Running};
use crate::traffic::text_envelope;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use wireseal_gateway::{Config, Event};
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;

/// One request (`Connection: close`): the status and the body.
pub fn request(addr: SocketAddr, method: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

/// `GET path`.
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    request(addr, "GET", path)
}

/// Starts a gateway serving HTTP; returns it and the address it serves on.
pub fn serving(config: Config) -> (Running, SocketAddr) {
    let gw = Running::spawn(Config {
        http: Some("127.0.0.1:0".parse().unwrap()),
        ..config
    });
    match gw.wait_for("http-listening", Duration::from_secs(30)) {
        Event::HttpListening { addr } => (gw, addr),
        e => panic!("{e:?}"),
    }
}

/// A scrape parsed by `prometheus-parse`.
pub fn scrape(addr: SocketAddr) -> prometheus_parse::Scrape {
    let (status, body) = get(addr, "/metrics");
    assert_eq!(status, 200, "{body}");
    prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_owned()))).unwrap()
}

/// The value of `metric` with the label `label` (if given), summed over
/// its other labels; a histogram's `_count`.
pub fn value(s: &prometheus_parse::Scrape, metric: &str, label: Option<(&str, &str)>) -> f64 {
    use prometheus_parse::Value;
    s.samples
        .iter()
        .filter(|x| x.metric == metric)
        .filter(|x| label.is_none_or(|(k, v)| x.labels.get(k) == Some(v)))
        .map(|x| match &x.value {
            Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => *v,
            Value::Histogram(b) => b.last().map_or(0.0, |b| b.count),
            Value::Summary(_) => panic!("no summaries"),
        })
        .sum()
}

const GWS: [&str; 3] = ["!0000d001", "!0000d002", "!0000d003"];
const PACKETS: u32 = 40;

#[test]
fn probes_follow_the_broker_and_metrics_count_what_was_published() {
    if !peers(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Mosquitto::start().unwrap();
    let (c, _k) = storing(&broker, &db, "http-metrics");
    let (gw, addr) = serving(c);
    assert_eq!(get(addr, "/healthz").0, 200);
    gw.wait_for("subscribed", Duration::from_secs(60));
    assert_eq!(get(addr, "/readyz").0, 200);

    let mut msgs = Vec::new();
    for i in 0..PACKETS {
        for g in GWS {
            msgs.push(text_envelope(0x5000_0000 + i % 7, 0x0300_0000 + i, g, 0));
        }
    }
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    let n = msgs.len() as f64;
    let end = Instant::now() + Duration::from_secs(60);
    let s = loop {
        let s = scrape(addr);
        let done = value(
            &s,
            "wireseal_gateway_store_writes_total",
            Some(("table", "receptions")),
        ) == n
            && value(&s, "wireseal_gateway_acks_total", Some(("result", "sent"))) == n;
        if done || Instant::now() > end {
            break s;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let v = |m: &str, l: Option<(&str, &str)>| value(&s, m, l);
    assert_eq!(v("wireseal_gateway_messages_total", None), n);
    assert_eq!(v("wireseal_gateway_packets_total", None), n);
    assert_eq!(
        v(
            "wireseal_gateway_packets_total",
            Some(("decryption", "channel"))
        ),
        n
    );
    assert_eq!(
        v(
            "wireseal_gateway_packet_kinds_total",
            Some(("kind", "text"))
        ),
        n
    );
    assert_eq!(
        v(
            "wireseal_gateway_store_writes_total",
            Some(("table", "packets"))
        ),
        f64::from(PACKETS)
    );
    assert_eq!(
        v(
            "wireseal_gateway_store_writes_total",
            Some(("table", "receptions"))
        ),
        n
    );
    assert_eq!(
        v("wireseal_gateway_acks_total", Some(("result", "sent"))),
        n
    );
    assert_eq!(v("wireseal_gateway_decode_duration_seconds", None), n);
    assert_eq!(v("wireseal_gateway_held_messages", None), 0.0);
    // Every message's commit is timed; none is left waiting.
    assert_eq!(v("wireseal_gateway_store_lag_seconds", None), n);
    assert_eq!(
        v("wireseal_gateway_oldest_held_message_age_seconds", None),
        0.0
    );
    assert_eq!(v("wireseal_gateway_subscribed", None), 1.0);
    assert_eq!(v("wireseal_gateway_broker_connected", None), 1.0);
    assert_eq!(v("wireseal_gateway_store_writable", None), 1.0);
    assert_eq!(v("wireseal_gateway_malformed_messages_total", None), 0.0);
    assert_eq!(
        db.count("SELECT count(*) FROM receptions"),
        msgs.len() as u64
    );
    // Every family the scrape holds is one the gateway documents.
    for name in s.docs.keys() {
        assert!(
            wireseal_gateway::metrics::NAMES.contains(&name.as_str()),
            "{name}"
        );
    }

    // Read-only: nothing but GET and HEAD.
    assert_eq!(request(addr, "POST", "/metrics").0, 405);
    assert_eq!(request(addr, "DELETE", "/api/nodes").0, 405);
    assert_eq!(get(addr, "/nothing-here").0, 404);

    // The broker goes away: not ready until subscribed again.
    let broker = broker.restart().unwrap();
    gw.wait_for("connection-failed", Duration::from_secs(30));
    let (status, body) = get(addr, "/readyz");
    assert_eq!(status, 503, "{body}");
    assert_eq!(get(addr, "/healthz").0, 200);
    gw.wait_for("subscribed", Duration::from_secs(60));
    assert_eq!(get(addr, "/readyz").0, 200);
    gw.stop().unwrap();
    drop(broker);
}

/// Clients that each send part of a request head and then wait.
const HOLDERS: usize = 400;
/// How long a probe may take under their load: generous for a slow 2-core
/// machine running other tests (the figure measured is printed).
const PROBE_BOUND: Duration = Duration::from_secs(1);

/// One request on a new connection, with every step bounded by `deadline`:
/// the status (`None` when there was no whole answer in time) and how long
/// it took.
fn timed(addr: SocketAddr, path: &str, deadline: Duration) -> (Option<u16>, Duration) {
    let start = Instant::now();
    let status = (|| {
        let mut s = TcpStream::connect_timeout(&addr, deadline).ok()?;
        s.set_read_timeout(Some(deadline)).ok()?;
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
        )
        .ok()?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).ok()?;
        let text = String::from_utf8_lossy(&buf);
        text.split(' ').nth(1)?.parse().ok()
    })();
    (status, start.elapsed())
}

/// [`HOLDERS`] connections, made at once from several threads, each
/// having sent part of a request head; those that connected.
fn hold_partial_heads(addr: SocketAddr) -> Vec<TcpStream> {
    const THREADS: usize = 16;
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            std::thread::spawn(move || {
                (0..HOLDERS / THREADS)
                    .filter_map(|_| {
                        let mut s =
                            TcpStream::connect_timeout(&addr, Duration::from_millis(300)).ok()?;
                        s.write_all(b"GET / HTTP/1.1\r\nHost: test\r\n").ok()?;
                        Some(s)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect()
}

#[test]
fn probes_answer_while_hundreds_of_clients_hold_a_partial_head() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let (gw, addr) = serving(Config {
        broker: Some(broker.url().parse().unwrap()),
        client_id: Some("probes".into()),
        print_records: Some(false),
        ..Config::default()
    });
    gw.wait_for("subscribed", Duration::from_secs(60));
    let holders = hold_partial_heads(addr);
    assert!(
        holders.len() > 300,
        "only {} clients connected",
        holders.len()
    );
    let mut slowest = Duration::ZERO;
    let mut times = Vec::new();
    for path in ["/healthz", "/readyz", "/metrics", "/healthz", "/healthz"] {
        let (status, took) = timed(addr, path, Duration::from_secs(15));
        assert_eq!(status, Some(200), "{path} after {took:?}");
        times.push(format!("{path} {:.1} ms", took.as_secs_f64() * 1e3));
        slowest = slowest.max(took);
    }
    eprintln!(
        "{} clients holding a partial head; probes: {}",
        holders.len(),
        times.join(", ")
    );
    assert!(slowest < PROBE_BOUND, "a probe took {slowest:?}");
    // Meanwhile a request for the page from the same address is turned away at
    // once rather than queued.
    let (status, took) = timed(addr, "/", Duration::from_secs(15));
    assert_eq!(status, Some(503), "after {took:?}");
    assert!(took < PROBE_BOUND, "{took:?}");
    // Every connection counted by how it was admitted: the address's share
    // in full, the rest of the holders and the probes as spare.
    let c = gw.counters.snapshot()["http"]["connections"].clone();
    let n = |k: &str| c[k].as_u64().unwrap_or(0) as usize;
    assert!(n("full") >= 64, "{c}");
    assert!(n("spare") >= holders.len() - 64 + 6, "{c}");
    assert_eq!(n("refused"), 0, "{c}");
    // Once they go, everything is served again.
    drop(holders);
    let end = Instant::now() + Duration::from_secs(30);
    while timed(addr, "/", Duration::from_secs(5)).0 != Some(200) {
        assert!(Instant::now() < end, "the page was not served again");
        std::thread::sleep(Duration::from_millis(50));
    }
    gw.stop().unwrap();
}
