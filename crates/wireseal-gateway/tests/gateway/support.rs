//! The gateway run in this process on a thread of its own, against a real
//! Mosquitto: its events and its records arrive on channels, so a test
//! waits on what happened, never on log text.

use serde_json::Value;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::record::PacketRecord;
use wireseal_gateway::log::LogTarget;
use wireseal_gateway::sink::{Context, Handled, Item, Sink, SinkError};
use wireseal_gateway::{Config, Counters, Event, Gateway, RunError, Stop};

/// The node number the tests' gateways decode PKC packets for.
pub const OUR_NODE: u32 = 0x0a0b_0c0d;

/// The repository's root (for `interop/`).
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether Mosquitto and the Python feed are here (else the test fails,
/// or skips under `WIRESEAL_ALLOW_MISSING_PEERS=1`).
pub fn peers(postgres: bool) -> bool {
    let why = wireseal_testkit::feed::missing()
        .or_else(|| postgres.then(wireseal_testkit::postgres::missing).flatten());
    wireseal_testkit::peer_present(why)
}

/// A file holding a fresh X25519 node key (hex), and its public key.
pub fn key_file() -> (tempfile::NamedTempFile, [u8; 32]) {
    let k = StaticSecret::generate();
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), hex::encode(k.expose())).unwrap();
    (f, *k.public_key())
}

/// The settings the feed tests use: `broker`, LongFast, two `Ops` channels
/// with one hash (same-hash trial), our node and key.
pub fn config(broker: &str, key: &tempfile::NamedTempFile) -> Config {
    use base64::Engine as _;
    let ops_a: Vec<u8> = (3..19).collect();
    let mut ops_b = ops_a.clone();
    ops_b[0] ^= 0x55;
    ops_b[1] ^= 0x55;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    Config {
        broker: Some(broker.parse().unwrap()),
        channel: vec![
            "LongFast=AQ==".into(),
            format!("Ops={}", b64(&ops_a)),
            format!("Ops={}", b64(&ops_b)),
        ],
        key_file: vec![format!("!{OUR_NODE:08x}={}", key.path().display())],
        print_records: Some(false),
        ..Config::default()
    }
}

/// A sink that sends each decoded packet's record (as JSON) on a channel.
struct Capture(Mutex<Sender<Value>>);

impl Sink for Capture {
    fn name(&self) -> &'static str {
        "capture"
    }

    fn handle(&mut self, item: &Item<'_>, _: &mut dyn Context) -> Result<Handled, SinkError> {
        if let Some(p) = &item.packet {
            let v = serde_json::to_value(PacketRecord::new(p.decoder, p.decoded)).unwrap();
            let _ = self.0.lock().unwrap().send(v);
        }
        Ok(Handled::Done)
    }
}

/// A gateway running on its own thread.
pub struct Running {
    /// Its events.
    pub events: Receiver<Event>,
    /// The record of every decoded packet.
    pub records: Receiver<Value>,
    /// Its counts.
    pub counters: Arc<Counters>,
    stop: Stop,
    thread: std::thread::JoinHandle<Result<Value, RunError>>,
    seen: Mutex<Vec<Event>>,
}

impl Running {
    /// Starts a gateway with `config` and waits until it subscribed.
    pub fn start(config: Config) -> Running {
        let r = Self::spawn(config);
        r.wait_for("subscribed", Duration::from_secs(60));
        r
    }

    /// Starts a gateway with `config` without waiting.
    pub fn spawn(config: Config) -> Running {
        let mut gw = Gateway::new(config).expect("usable settings");
        gw.log_to(LogTarget::Discard);
        let (tx, records) = channel();
        gw.add_sink(Box::new(Capture(Mutex::new(tx))));
        let events = gw.events();
        let stop = gw.stop_handle();
        let counters = gw.counters();
        let thread = std::thread::spawn(move || gw.run());
        Running {
            events,
            records,
            counters,
            stop,
            thread,
            seen: Mutex::new(Vec::new()),
        }
    }

    /// Waits for an event named `name` (`Event::as_str`); returns it.
    pub fn wait_for(&self, name: &str, timeout: Duration) -> Event {
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(e) => {
                    self.seen.lock().unwrap().push(e.clone());
                    if e.as_str() == name {
                        return e;
                    }
                }
                Err(_) => panic!(
                    "no {name:?} event within {timeout:?}; saw {:?}",
                    self.seen.lock().unwrap()
                ),
            }
        }
    }

    /// Every event seen so far (those waited for included).
    pub fn seen(&self) -> Vec<Event> {
        let mut v = self.seen.lock().unwrap();
        v.extend(self.events.try_iter());
        v.clone()
    }

    /// Takes `n` records, waiting up to `timeout` in all.
    pub fn take(&self, n: usize, timeout: Duration) -> Vec<Value> {
        let end = Instant::now() + timeout;
        let mut v = Vec::new();
        while v.len() < n {
            let left = end.saturating_duration_since(Instant::now());
            match self.records.recv_timeout(left) {
                Ok(r) => v.push(r),
                Err(_) => panic!("only {} of {n} records within {timeout:?}", v.len()),
            }
        }
        v
    }

    /// Stops it and returns its summary.
    pub fn stop(self) -> Result<Value, RunError> {
        self.stop.stop();
        self.thread.join().expect("the gateway's thread")
    }

    /// Waits for it to end by itself (`max-packets`).
    pub fn finish(self, timeout: Duration) -> Result<Value, RunError> {
        let end = Instant::now() + timeout;
        while !self.thread.is_finished() {
            assert!(
                Instant::now() < end,
                "the gateway did not finish within {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.thread.join().expect("the gateway's thread")
    }
}

/// Asserts that `got` holds each packet of the feed `expected` that is not
/// dropped, once, with the expected fields (but those in `skip`).
pub fn check(expected: &[Value], got: &[Value], skip: &[&str]) {
    let by_key: std::collections::HashMap<(u64, u64), &Value> = got
        .iter()
        .map(|g| ((g["from"].as_u64().unwrap(), g["id"].as_u64().unwrap()), g))
        .collect();
    assert_eq!(by_key.len(), got.len(), "every packet decoded once");
    for e in expected
        .iter()
        .filter(|e| e["expect"].get("dropped").is_none())
    {
        let x = &e["expect"];
        let g = by_key[&(x["from"].as_u64().unwrap(), x["id"].as_u64().unwrap())];
        for (k, v) in x
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
        {
            assert_eq!(&g[k], v, "field {k} of {g}");
        }
    }
}

/// The packets of a feed that are not dropped.
pub fn kept(feed: &[Value]) -> usize {
    feed.iter()
        .filter(|l| l["expect"].get("dropped").is_none())
        .count()
}
