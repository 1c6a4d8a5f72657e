//! The gateway's read side (`--http`), measured on a large store: the
//! store written straight in SQL ([`fill`]:
//! 10,000 nodes and 1,000,000 packets in the full run, 100,000 in the
//! quick one, as the rows say), then
//!
//! - the API's p99 latency for `/api/packets?limit=100` and `/api/nodes`
//!   while the gateway ingests the bench's traffic as fast as it can (the
//!   store rows' three-gateway feed over Mosquitto at QoS 1, with
//!   `--firmware-json`), SQLite and PostgreSQL; beside it the same requests
//!   on the same store with the gateway idle. One client sends the two
//!   requests in turn, each on a connection of its own, for the whole
//!   ingest; samples that ended between the first byte published and the
//!   gateway's exit count.
//! - the ingest rate with `--http` on and idle against the same run
//!   without it ([`ratio`]).
//! - on the idle gateway over the SQLite store: the `/metrics` scrape's p99
//!   (beside `/healthz`, the HTTP floor), the RSS the HTTP side adds while
//!   50 clients fetch what the page fetches (the gateway's RSS before the
//!   first request against the most sampled every 5 ms under the load),
//!   `/api/stats?minutes=60`'s p99, and the status page's first render in headless Chromium, by the page's
//!   own clock (see [`http`]).

mod fill;
mod http;
mod ratio;

use super::feed::feed;
use super::process::{self, broker, Job, SqliteFile};
use super::traffic::{complete, traffic, Traffic};
use super::{Feed, RunError, SECTION};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use http::{self as client, quantile, Browser, Sampler};
use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::Publisher;
use wireseal_testkit::postgres::PgServer;
use wireseal_testkit::proc::rss_kib;

/// The two API requests of the latency rows.
const API: [&str; 2] = ["/api/packets?limit=100", "/api/nodes"];
/// What the status page fetches (the load of the memory row).
const PAGE: [&str; 7] = [
    "/",
    "/api/stats?minutes=60",
    "/api/nodes?limit=500",
    "/api/packets?limit=100",
    "/api/packets?portnum=3&limit=500",
    "/metrics",
    "/page.js",
];
const CLIENTS: usize = 50;

/// The run's sizes.
struct Sizes {
    stored: u64,
    feed: usize,
    pairs: usize,
    idle_requests: usize,
    page_loads: usize,
    load_secs: f64,
}

impl Sizes {
    fn of(ctx: &Ctx) -> Self {
        match ctx.full {
            true => Self {
                stored: 1_000_000,
                feed: 100_000,
                pairs: 5,
                idle_requests: 1_000,
                page_loads: 7,
                load_secs: 10.0,
            },
            false => Self {
                stored: 100_000,
                feed: 20_000,
                pairs: 3,
                idle_requests: 200,
                page_loads: 3,
                load_secs: 3.0,
            },
        }
    }
}

fn pass(ours: f64, target: f64) -> &'static str {
    match ours <= target {
        true => "pass",
        false => "MISS",
    }
}

pub(crate) fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn loopback() -> Result<SocketAddr, Skip> {
    let port = wireseal_testkit::net::free_port().map_err(Skip::new)?;
    Ok(SocketAddr::from(([127, 0, 0, 1], port)))
}

/// A client id's persistent session left behind would have the broker
/// queue later runs' messages for it: a clean session under the id ends it.
fn end_session(b: &Mosquitto, id: &str) {
    if let Ok(p) = Publisher::connect(b.port, id) {
        p.disconnect();
    }
}

/// The API's latencies in ms while the gateway ingests `t` into `url`.
fn during_ingest(
    b: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    url: &str,
    pg: Option<&PgServer>,
) -> Result<[Vec<f64>; 2], RunError> {
    let addr = loopback()?;
    let id = format!("bench-read-{}", std::process::id());
    let mut extra = strings(&[
        "--firmware-json",
        "msh/US",
        "--store",
        url,
        "--client-id",
        &id,
    ]);
    extra.extend(["--http".into(), addr.to_string()]);
    let sampler = Sampler::start(addr, strings(&API));
    let run = process::run(&Job {
        broker: b,
        feed: f,
        bytes: &t.bytes,
        messages: t.messages,
        extra,
        pg,
    });
    let (samples, error) = sampler.finish();
    let r = run?;
    complete(&r, t, true)?;
    let (from, to) = r.window;
    if let Some((at, e)) = error {
        return Err(RunError::Fail(format!(
            "{e} ({:.1} s into the ingest)",
            (at - from).as_secs_f64()
        )));
    }
    let mut by: [Vec<f64>; 2] = Default::default();
    for (i, at, secs) in samples {
        if at > from && at <= to {
            by[i].push(secs * 1e3);
        }
    }
    if by.iter().any(|v| v.len() < 10) {
        return Err(RunError::Fail(format!(
            "{} and {} requests answered during an ingest of {:.1} s",
            by[0].len(),
            by[1].len(),
            r.secs
        )));
    }
    Ok(by)
}

/// A gateway serving `--http` over `url` with nothing to ingest; killed
/// when dropped.
struct Idle<'a> {
    child: Child,
    addr: SocketAddr,
    broker: &'a Mosquitto,
    id: String,
}

impl<'a> Idle<'a> {
    fn start(b: &'a Mosquitto, f: &Feed, url: &str) -> Result<Self, RunError> {
        let addr = loopback()?;
        let id = format!("bench-read-idle-{}", std::process::id());
        let mut cmd = process::command(b, f, 1 << 40)?;
        cmd.args(["--store", url, "--client-id", &id, "--http"])
            .arg(addr.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd
            .spawn()
            .map_err(|e| Skip::new(format!("cannot start the gateway: {e}")))?;
        let mut idle = Idle {
            child,
            addr,
            broker: b,
            id,
        };
        let end = Instant::now() + Duration::from_secs(60);
        while !matches!(client::get(addr, "/readyz"), Ok((200, _))) {
            if let Ok(Some(st)) = idle.child.try_wait() {
                return Err(RunError::Fail(format!("the gateway exited with {st}")));
            }
            if Instant::now() > end {
                return Err(RunError::Fail("the gateway was not ready in 60 s".into()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(idle)
    }

    /// p99 in ms of each of `paths`, `n` requests each, in turn.
    fn p99(&mut self, paths: &[&str], n: usize) -> Result<Vec<f64>, RunError> {
        let mut v = vec![Vec::with_capacity(n); paths.len()];
        for _ in 0..n {
            for (i, p) in paths.iter().enumerate() {
                v[i].push(client::timed(self.addr, p).map_err(RunError::Fail)? * 1e3);
            }
        }
        Ok(v.iter_mut().map(|x| quantile(x, 0.99)).collect())
    }
}

impl Drop for Idle<'_> {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        end_session(self.broker, &self.id);
    }
}

/// The API's p99 in ms while ingesting and idle (in [`API`]'s order), and
/// the requests answered during the ingest.
type ApiP99 = Result<([f64; 2], [f64; 2], usize), RunError>;

/// The API rows of one database: p99 during ingest and idle.
fn api_rows(name: &str, s: &Sizes, r: ApiP99) -> Vec<Row> {
    let mut rows = Vec::new();
    for (i, path) in API.iter().enumerate() {
        let w = format!(
            "gw --http {path} p99 while ingesting, {name}, {} pkts/{} nodes",
            s.stored,
            fill::NODES
        );
        let base = "same request, gateway idle";
        let row = |ours, b| Row::new(SECTION, &w, "ms", Better::Lower, ours, base, b);
        rows.push(match &r {
            Ok((busy, idle, n)) => row(busy[i], Some(idle[i])).seed(format!(
                "target <= 50 ms: {}; {n} requests during ingest",
                pass(busy[i], 50.0)
            )),
            Err(RunError::Skip(why)) => row(0.0, None).skipped(why),
            Err(RunError::Fail(why)) => row(0.0, None).failed(why.clone()),
        });
    }
    rows
}

/// Fills `db`, measures the API during ingest and idle; with `more`, the
/// idle gateway's other rows too.
fn one_store(
    b: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    db: &Db,
    pg: Option<&PgServer>,
    s: &Sizes,
    more: &mut dyn FnMut(&mut Idle<'_>) -> Vec<Row>,
) -> (ApiP99, Vec<Row>) {
    let url = db.url();
    let measured = (|| -> Result<_, RunError> {
        fill::fill(&url, db, s.stored)?;
        let busy = during_ingest(b, f, t, &url, pg)?;
        let n = busy[0].len() + busy[1].len();
        let busy = busy.map(|mut v| quantile(&mut v, 0.99));
        let mut idle = Idle::start(b, f, &url)?;
        // The other rows first: the memory row wants a gateway that has
        // answered nothing yet.
        let other = more(&mut idle);
        let i = idle.p99(&API, s.idle_requests)?;
        Ok(((busy, [i[0], i[1]], n), other))
    })();
    match measured {
        Ok((api, other)) => (Ok(api), other),
        Err(e) => (Err(e), Vec::new()),
    }
}

/// The rows of the idle gateway over the SQLite store: memory, /metrics,
/// the page.
fn idle_rows(g: &mut Idle<'_>, s: &Sizes) -> Vec<Row> {
    let label = format!("{} pkts/{} nodes, SQLite", s.stored, fill::NODES);
    let mut rows = vec![memory_row(g, s, &label)];
    let w = format!("gw --http /metrics scrape p99, {label}");
    let base = "/healthz on the same server (HTTP floor)";
    let row = |ours, b| Row::new(SECTION, &w, "ms", Better::Lower, ours, base, b);
    rows.push(
        match g.p99(&["/metrics", "/healthz"], 5 * s.idle_requests) {
            Ok(v) => row(v[0], Some(v[1])).seed(format!("target <= 5 ms: {}", pass(v[0], 5.0))),
            Err(RunError::Skip(why)) => row(0.0, None).skipped(&why),
            Err(RunError::Fail(why)) => row(0.0, None).failed(why),
        },
    );
    let w = format!("gw --http /api/stats?minutes=60 p99, idle, {label}");
    let row = Row::new(SECTION, w, "ms", Better::Lower, 0.0, "-", None);
    rows.push(
        match g.p99(&["/api/stats?minutes=60"], s.idle_requests / 4) {
            Ok(v) => {
                Row { ours: v[0], ..row }.seed("the last hour: the feed just taken and the store's")
            }
            Err(RunError::Skip(why)) => row.skipped(&why),
            Err(RunError::Fail(why)) => row.failed(why),
        },
    );
    rows.push(page_row(g, s, &label));
    rows
}

fn memory_row(g: &mut Idle<'_>, s: &Sizes, label: &str) -> Row {
    let w = format!("gw --http RSS added by {CLIENTS} clients, {label}");
    let pid = g.child.id();
    let before = rss_kib(pid).unwrap_or(0);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    let watcher = std::thread::spawn(move || {
        let mut most = 0;
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            most = most.max(rss_kib(pid).unwrap_or(0));
            std::thread::sleep(Duration::from_millis(5));
        }
        most
    });
    let served = client::load(g.addr, &PAGE, CLIENTS, s.load_secs);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let most = watcher.join().unwrap_or(0);
    let added = most.saturating_sub(before) as f64 / 1024.0;
    let row = Row::new(SECTION, w, "MiB", Better::Lower, added, "-", None);
    match served {
        Ok(n) => row.seed(format!(
            "target <= 20 MiB: {}; {:.1} -> {:.1} MiB, {n} requests in {} s",
            pass(added, 20.0),
            before as f64 / 1024.0,
            most as f64 / 1024.0,
            s.load_secs
        )),
        Err(e) => row.failed(e),
    }
}

fn page_row(g: &mut Idle<'_>, s: &Sizes, label: &str) -> Row {
    let w = format!("gw status page first render, headless Chromium, {label}");
    let row = |ours| Row::new(SECTION, &w, "ms", Better::Lower, ours, "-", None);
    let url = format!("http://{}/", g.addr);
    let measured = Browser::start().map_err(RunError::Skip).and_then(|mut br| {
        (0..s.page_loads)
            .map(|_| {
                br.first_render_ms(&url, Duration::from_secs(30))
                    .map_err(RunError::Fail)
            })
            .collect::<Result<Vec<f64>, RunError>>()
    });
    match measured {
        Ok(mut v) => {
            let m = crate::timing::median(&mut v);
            let worst = v.iter().copied().fold(0.0, f64::max);
            row(m).seed(format!(
                "target <= 1000 ms: {}; median of {} loads, slowest {worst:.0} ms; \
                 performance.now() at the first drawn frame with the tables filled",
                pass(m, 1000.0),
                v.len()
            ))
        }
        // A machine without Chromium has no figure to show.
        Err(RunError::Skip(why)) => row(0.0).failed(why.to_string()),
        Err(RunError::Fail(why)) => row(0.0).failed(why),
    }
}

/// Runs the rows.
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let s = Sizes::of(ctx);
    let f = feed(s.feed, 37);
    let t = traffic(&f);
    let b = match broker() {
        Ok(b) => b,
        Err(e) => {
            let e = RunError::Skip(e);
            return api_rows("SQLite", &s, Err(e));
        }
    };
    let mut rows = Vec::new();
    let sqlite = SqliteFile::new("read-store");
    let (api, other) = match &sqlite {
        Ok(file) => one_store(
            &b,
            &f,
            &t,
            &Db::Sqlite(file.0.clone()),
            None,
            &s,
            &mut |g| idle_rows(g, &s),
        ),
        Err(e) => (Err(RunError::Skip(e.clone())), Vec::new()),
    };
    drop(sqlite);
    rows.extend(api_rows("SQLite", &s, api));
    rows.extend(other);
    let pg = PgServer::start().map_err(Skip::new);
    let api = match &pg {
        Ok(pg) => match pg.fresh_db("read") {
            Ok(()) => {
                let db = Db::Pg(pg.socket_url("read"));
                one_store(&b, &f, &t, &db, Some(pg), &s, &mut |_| Vec::new()).0
            }
            Err(e) => Err(RunError::Skip(Skip::new(e))),
        },
        Err(e) => Err(RunError::Skip(e.clone())),
    };
    drop(pg);
    rows.extend(api_rows("PostgreSQL", &s, api));
    rows.push(ratio::row(&b, &f, &t, s.pairs));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `WIRESEAL_BIN=target/release/wireseal cargo test --release -p
    /// wireseal-bench --lib meshtastic::gateway::read -- --ignored
    /// --nocapture` prints the read side's rows (`WIRESEAL_BENCH_FULL=1`:
    /// the full run, a store of 1,000,000 packets).
    #[test]
    #[ignore = "a benchmark"]
    fn read_rows() {
        let ctx = Ctx {
            full: std::env::var_os("WIRESEAL_BENCH_FULL").is_some(),
        };
        for r in rows(&ctx) {
            println!("{r:?}");
        }
    }
}
