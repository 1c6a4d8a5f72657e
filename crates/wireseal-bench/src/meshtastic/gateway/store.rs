//! The gateway into its store, end to end: the bench's 2.8 feed (70%
//! LongFast, 20% PKC direct messages to our node, 10% XEdDSA-signed
//! broadcasts) as three gateways heard it (each packet three times, with
//! three gateway ids, the copies a few hundred packets apart), published at
//! QoS 1 to a local Mosquitto, taken by `wireseal meshtastic gateway` with
//! `--store` into a fresh SQLite file and into a fresh PostgreSQL database
//! (the test kit's servers), with `--firmware-json` on (every decoded packet
//! published back as the 2.7 firmware's JSON), and the same messages as JSON
//! lines (no store) in the same run, samples alternated. A figure is MQTT
//! messages per second from the first byte published to the gateway's exit
//! after `--max-packets N`, every message committed and acknowledged; the
//! gateway's summary must count every packet stored once and every
//! reception kept. Beside the rates: the gateway's peak RSS, and the CPU
//! time per message of the gateway, Mosquitto and the PostgreSQL server,
//! which says where the time goes on a small machine.

use super::feed::feed;
use super::process::{self, broker, Job, Run, SqliteFile};
use super::traffic::{complete, traffic, Traffic};
use super::{Feed, RunError, SECTION};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::postgres::PgServer;

/// Where a run's messages go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Json,
    Sqlite,
    Postgres,
}

fn one_run(
    broker: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    sink: Sink,
    pg: Option<&PgServer>,
    k: usize,
) -> Result<Run, RunError> {
    let db = SqliteFile::new(&format!("store-{k}"))?;
    let mut extra = vec!["--firmware-json".to_owned(), "msh/US".to_owned()];
    let url = match (sink, pg) {
        (Sink::Json, _) => None,
        (Sink::Sqlite, _) => Some(db.url()),
        (Sink::Postgres, Some(pg)) => {
            pg.fresh_db("mesh").map_err(Skip::new)?;
            Some(pg.socket_url("mesh"))
        }
        (Sink::Postgres, None) => return Err(Skip::new("no PostgreSQL server").into()),
    };
    if let Some(u) = url {
        extra.extend(["--store".into(), u, "--client-id".into()]);
        extra.push(format!("wireseal-bench-{}-{k}", std::process::id()));
    }
    let job = Job {
        broker,
        feed: f,
        bytes: &t.bytes,
        messages: t.messages,
        extra,
        pg,
    };
    let r = process::run(&job)?;
    complete(&r, t, sink != Sink::Json)?;
    Ok(r)
}

/// The runs of every sink, by sink ([`Sink`]'s order), and why the
/// PostgreSQL runs failed or were not made, if they were not.
type Runs = ([Vec<Run>; 3], Option<RunError>);

/// `runs` runs into each sink, alternated; PostgreSQL's runs may fail
/// alone (its rows then say why).
fn measure(f: &Feed, t: &Traffic, runs: usize) -> Result<Runs, RunError> {
    let broker = broker()?;
    let pg = PgServer::start().map_err(Skip::new);
    let mut all: [Vec<Run>; 3] = Default::default();
    let mut pg_err = None;
    for k in 0..runs {
        for (i, sink) in [Sink::Json, Sink::Sqlite, Sink::Postgres]
            .into_iter()
            .enumerate()
        {
            let server = pg.as_ref().ok();
            if sink == Sink::Postgres && server.is_none() {
                continue;
            }
            match one_run(&broker, f, t, sink, server, 3 * k + i) {
                Ok(r) => all[i].push(r),
                Err(e) if sink == Sink::Postgres => pg_err = Some(e),
                Err(e) => return Err(e),
            }
        }
    }
    let pg_err = pg_err.or(pg.err().map(RunError::Skip));
    Ok((all, pg_err))
}

/// The rate row of the store `name`: (ours, JSON lines) in msg/s, or why
/// there is none.
fn rate_row(label: &str, name: &str, r: Result<(f64, f64), &RunError>) -> Row {
    let w = format!("gw into {name} via Mosquitto QoS 1, 2.8 mix, {label}");
    let base = "same messages as JSON lines, no store";
    let row = |ours, b| Row::new(SECTION, &w, "msg/s", Better::Higher, ours, base, b);
    match r {
        Ok((ours, json)) => row(ours, Some(json)).seed("target >= 50,000/s"),
        Err(RunError::Skip(why)) => row(0.0, None).skipped(why),
        Err(RunError::Fail(why)) => row(0.0, None).failed(why.clone()),
    }
}

/// The median of `f` over the runs `v`.
fn median_of(v: &[Run], f: impl Fn(&Run) -> f64) -> f64 {
    let mut x: Vec<f64> = v.iter().map(f).collect();
    crate::timing::median(&mut x)
}

/// What a message costs with the store `name` (runs `v`) against JSON
/// lines (runs `json`): the gateway's peak RSS, the gateway's and
/// Mosquitto's CPU per message, and with PostgreSQL its server's.
pub(super) fn cost_rows(
    name: &str,
    v: &[Run],
    json: &[Run],
    label: &str,
    messages: usize,
) -> Vec<Row> {
    let m = messages as f64;
    let us = |v: &[Run], f: &dyn Fn(&Run) -> f64| median_of(v, f) * 1e6 / m;
    let mib = |v: &[Run]| median_of(v, |r| r.peak_kib as f64) / 1024.0;
    let base = "JSON lines, no store";
    let row = |what: &str, unit, ours, b| {
        Row::new(
            SECTION,
            format!("gw into {name}: {what}, {label}"),
            unit,
            Better::Lower,
            ours,
            base,
            b,
        )
    };
    let mut rows = vec![
        row("peak RSS of the gateway", "MiB", mib(v), Some(mib(json))),
        row(
            "gateway CPU per message",
            "us",
            us(v, &|r| r.gateway_cpu),
            Some(us(json, &|r| r.gateway_cpu)),
        ),
        row(
            "Mosquitto CPU per message",
            "us",
            us(v, &|r| r.broker_cpu),
            Some(us(json, &|r| r.broker_cpu)),
        ),
    ];
    if name == "PostgreSQL" {
        // The JSON-lines run has no database server: no baseline.
        rows.push(Row::new(
            SECTION,
            format!("gw into {name}: PostgreSQL server CPU per message, {label}"),
            "us",
            Better::Lower,
            us(v, &|r| r.server_cpu),
            "-",
            None,
        ));
    }
    rows
}

/// The rows: rates into SQLite and PostgreSQL beside JSON lines, peak RSS,
/// and CPU per message.
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let packets = if ctx.full { 100_000 } else { 20_000 };
    let runs = if ctx.full { 3 } else { 1 };
    let f = feed(packets, 29);
    let t = traffic(&f);
    let label = format!("{packets} pkts x 3 gws = {} msgs", t.messages);
    let (all, pg_err) = match measure(&f, &t, runs) {
        Ok(m) => m,
        Err(e) => {
            return vec![
                rate_row(&label, "SQLite", Err(&e)),
                rate_row(&label, "PostgreSQL", Err(&e)),
            ]
        }
    };
    let m = t.messages as f64;
    let rate = |v: &[Run]| m / median_of(v, |r| r.secs);
    let json = &all[0];
    let mut rows = vec![rate_row(&label, "SQLite", Ok((rate(&all[1]), rate(json))))];
    rows.push(match &pg_err {
        Some(e) => rate_row(&label, "PostgreSQL", Err(e)),
        None => rate_row(&label, "PostgreSQL", Ok((rate(&all[2]), rate(json)))),
    });
    for (i, name) in [(1, "SQLite"), (2, "PostgreSQL")] {
        if !all[i].is_empty() {
            rows.extend(cost_rows(name, &all[i], json, &label, t.messages));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_packet_three_times_in_order_of_arrival() {
        let f = feed(60, 3);
        let t = traffic(&f);
        assert_eq!((t.packets, t.messages), (60, 180));
        // The first PUBLISH is gateway 0's copy of packet 0.
        assert_eq!(t.bytes[0], 0x32);
    }

    /// `WIRESEAL_BIN=target/release/wireseal cargo test --release -p
    /// wireseal-bench --lib meshtastic::gateway::store -- --ignored
    /// --nocapture` prints the store's rows (`WIRESEAL_BENCH_FULL=1`: the
    /// full run; `WIRESEAL_BENCH_GW=store,guard,retention`: those groups).
    #[test]
    #[ignore = "a benchmark"]
    fn store_rows() {
        let ctx = Ctx {
            full: std::env::var_os("WIRESEAL_BENCH_FULL").is_some(),
        };
        let groups = std::env::var("WIRESEAL_BENCH_GW").unwrap_or_else(|_| "store".into());
        for g in groups.split(',') {
            let rows = match g {
                "store" => rows(&ctx),
                "guard" => super::super::guard::rows(&ctx),
                "retention" => super::super::retention::rows(&ctx),
                other => panic!("no group {other:?}: store, guard or retention"),
            };
            for r in rows {
                println!("{r:?}");
            }
        }
    }
}
