//! One run of the `wireseal meshtastic gateway` process for the gateway's
//! rows: the bench's Mosquitto, the gateway started with the bench's
//! settings and the caller's, ready once its `--ready-file` says it
//! subscribed, fed pre-built PUBLISH packets from the test kit's raw
//! publisher, watched until it exits after `--max-packets`; the time, CPU
//! and peak memory of the run, and the gateway's summary. Also the SQLite
//! files the runs write into.

use super::{Feed, RunError, OUR_NODE};
use crate::peers::{cache_dir, wireseal_bin, Skip};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wireseal_testkit::mosquitto::{Mosquitto, Settings};
use wireseal_testkit::mqtt::Publisher;
use wireseal_testkit::postgres::PgServer;
use wireseal_testkit::proc::{cpu, peak_rss_kib};

const KEY_ENV: &str = "WIRESEAL_BENCH_GATEWAY_KEY";

/// A Mosquitto for the bench: messages to a subscriber that lags are
/// queued, not dropped, and up to 40,000 QoS 1 messages may be in flight to
/// one.
pub(crate) fn broker() -> Result<Mosquitto, Skip> {
    Mosquitto::start_with(Settings {
        max_inflight: 40_000,
        ..Settings::default()
    })
    .map_err(Skip::new)
}

/// One run's figures.
pub(crate) struct Run {
    pub secs: f64,
    pub gateway_cpu: f64,
    pub broker_cpu: f64,
    pub server_cpu: f64,
    pub peak_kib: u64,
    /// The gateway's `{"summary": …}`.
    pub summary: serde_json::Value,
    /// JSON lines it wrote.
    pub lines: usize,
    /// When the first byte was published and when the gateway exited.
    pub window: (Instant, Instant),
}

/// Publishes every message, reading the broker's acknowledgements on
/// another thread.
fn publish(port: u16, bytes: &[u8]) -> Result<std::thread::JoinHandle<()>, Skip> {
    let mut s = Publisher::connect(port, "wireseal-bench-gw-pub").map_err(Skip::new)?;
    let reader = s.drain().map_err(Skip::new)?;
    s.write(bytes).map_err(Skip::new)?;
    s.disconnect();
    Ok(reader)
}

/// The gateway with the bench's settings: the broker, LongFast, our node
/// and its key (from the environment), `--max-packets messages`, and flood
/// limits this synthetic feed (hundreds of packets per node per second)
/// stays under.
pub(crate) fn command(broker: &Mosquitto, feed: &Feed, messages: usize) -> Result<Command, Skip> {
    let mut cmd = Command::new(wireseal_bin()?);
    cmd.args(["meshtastic", "gateway", "--broker"])
        .arg(format!("mqtt://127.0.0.1:{}", broker.port))
        .args(["--channel", "LongFast=AQ==", "--node"])
        .arg(format!("!{OUR_NODE:08x}"))
        .args([
            "--key-env",
            KEY_ENV,
            "--flood-rate",
            "100000",
            "--flood-burst",
            "100000",
        ])
        .args(["--max-packets", &messages.to_string()])
        .env(KEY_ENV, hex::encode(feed.our.expose()));
    Ok(cmd)
}

/// What a run is given.
pub(crate) struct Job<'a> {
    /// The broker.
    pub broker: &'a Mosquitto,
    /// The feed (for our node's key).
    pub feed: &'a Feed,
    /// PUBLISH packets, and how many messages they are.
    pub bytes: &'a [u8],
    /// Messages in `bytes`.
    pub messages: usize,
    /// Flags besides the bench's (`--store`, `--retain`, ...).
    pub extra: Vec<String>,
    /// The PostgreSQL server whose CPU is measured, if any.
    pub pg: Option<&'a PgServer>,
}

/// Runs the gateway on `job`.
pub(crate) fn run(job: &Job<'_>) -> Result<Run, RunError> {
    let ready = cache_dir()?.join(format!("bench-gw-{}.ready", std::process::id()));
    let _ = std::fs::remove_file(&ready);
    let mut cmd = command(job.broker, job.feed, job.messages)?;
    cmd.arg("--ready-file")
        .arg(&ready)
        .args(&job.extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut gw = cmd
        .spawn()
        .map_err(|e| Skip::new(format!("cannot start the gateway: {e}")))?;
    let out = gw.stdout.take().expect("piped");
    let lines = std::thread::spawn(move || BufReader::new(out).lines().count());
    let err = gw.stderr.take().expect("piped");
    let log = std::thread::spawn(move || {
        BufReader::new(err)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let result = wait_ready(&mut gw, &ready).and_then(|()| watch(&mut gw, job));
    let _ = gw.kill();
    let _ = gw.wait();
    let _ = std::fs::remove_file(&ready);
    end_session(job);
    let seen = log.join().unwrap_or_default();
    let m = match result {
        Ok(m) => m,
        // The log's last lines say why.
        Err(RunError::Fail(why)) => {
            let tail = &seen[seen.len().saturating_sub(3)..];
            return Err(RunError::Fail(format!("{why}: {tail:?}")));
        }
        Err(e) => return Err(e),
    };
    Ok(Run {
        secs: m.secs,
        gateway_cpu: m.gateway_cpu,
        broker_cpu: m.broker_cpu,
        server_cpu: m.server_cpu,
        peak_kib: m.peak_kib,
        summary: summary(&seen)?,
        lines: lines.join().unwrap_or(0),
        window: m.window,
    })
}

/// Waits (60 s at most) until the gateway's ready file says it subscribed.
fn wait_ready(gw: &mut Child, ready: &Path) -> Result<(), RunError> {
    let end = Instant::now() + Duration::from_secs(60);
    while !ready.exists() {
        if let Some(st) = gw.try_wait().ok().flatten() {
            return Err(RunError::Fail(format!(
                "the gateway exited with {st} before it subscribed"
            )));
        }
        if Instant::now() > end {
            return Err(RunError::Fail(
                "the gateway did not subscribe in 60 s".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// What [`watch`] measured of a run.
struct Measured {
    secs: f64,
    gateway_cpu: f64,
    broker_cpu: f64,
    server_cpu: f64,
    peak_kib: u64,
    window: (Instant, Instant),
}

/// Publishes the job's messages to the subscribed gateway and watches it
/// (its CPU and memory every 10 ms) until it exits, 600 s at most.
fn watch(gw: &mut Child, job: &Job<'_>) -> Result<Measured, RunError> {
    let (broker, pg, pid) = (job.broker, job.pg, gw.id());
    let (b0, s0) = (cpu(broker.pid(), false), pg.map(PgServer::cpu));
    let start = Instant::now();
    let reader = publish(broker.port, job.bytes)?;
    let (mut g, mut peak) = (Duration::ZERO, 0);
    let deadline = start + Duration::from_secs(600);
    let status = loop {
        if let Some(st) = gw.try_wait().map_err(|e| Skip::new(e.to_string()))? {
            break st;
        }
        if Instant::now() > deadline {
            return Err(RunError::Fail(
                "the gateway did not finish within 600 s".into(),
            ));
        }
        g = g.max(cpu(pid, false));
        peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(10));
    };
    let ended = Instant::now();
    let secs = (ended - start).as_secs_f64();
    let broker_cpu = (cpu(broker.pid(), false) - b0).as_secs_f64();
    let server_cpu = match (s0, pg) {
        (Some(s0), Some(pg)) => pg.cpu().saturating_sub(s0).as_secs_f64(),
        _ => 0.0,
    };
    let _ = reader.join();
    if !status.success() {
        return Err(RunError::Fail(format!("the gateway exited with {status}")));
    }
    Ok(Measured {
        secs,
        gateway_cpu: g.as_secs_f64(),
        broker_cpu,
        server_cpu,
        peak_kib: peak,
        window: (start, ended),
    })
}

/// Ends the persistent session of the job's `--client-id`, if it has one:
/// a session left behind would have the broker queue every later run's
/// messages for it, and a clean session under its id ends it.
fn end_session(job: &Job<'_>) {
    if let Some(i) = job.extra.iter().position(|a| a == "--client-id") {
        if let Some(Ok(p)) = job
            .extra
            .get(i + 1)
            .map(|id| Publisher::connect(job.broker.port, id))
        {
            p.disconnect();
        }
    }
}

/// The gateway's last `{"summary": …}` on its log.
fn summary(log: &[String]) -> Result<serde_json::Value, RunError> {
    log.iter()
        .rev()
        .find_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()?
                .get("summary")
                .cloned()
        })
        .ok_or_else(|| RunError::Fail(format!("no summary from the gateway: {log:?}")))
}

/// A SQLite file for a run, removed (with its log) when dropped.
pub(crate) struct SqliteFile(pub std::path::PathBuf);

impl SqliteFile {
    /// A path in the cache directory, named for `what`.
    pub fn new(what: &str) -> Result<Self, Skip> {
        Ok(Self(
            cache_dir()?.join(format!("bench-{what}-{}.db", std::process::id())),
        ))
    }

    /// `sqlite:PATH`.
    pub fn url(&self) -> String {
        format!("sqlite:{}", self.0.display())
    }
}

impl Drop for SqliteFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        for ext in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", self.0.display()));
        }
    }
}
