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

use super::meshtastic_gateway::{feed, Feed, OUR_NODE};
use super::meshtastic_gateway_broker::{broker, RunError};
use super::{Better, Ctx, Row};
use crate::peers::{cache_dir, wireseal_bin, Skip};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wireseal::meshtastic::envelope;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::{publish_packet, Publisher};
use wireseal_testkit::postgres::PgServer;
use wireseal_testkit::proc::{cpu, peak_rss_kib};

const SECTION: &str = "meshtastic";
const KEY_ENV: &str = "WIRESEAL_BENCH_GATEWAY_KEY";
const GATEWAYS: [(&str, usize); 3] = [("!b3c4d5e6", 0), ("!b3c4d5e7", 150), ("!b3c4d5e8", 400)];

/// The feed as QoS 1 PUBLISH packets from three gateways.
struct Traffic {
    bytes: Vec<u8>,
    messages: usize,
    packets: usize,
}

fn traffic(f: &Feed) -> Traffic {
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    for i in 0..f.envelopes.len() {
        for (g, (_, lag)) in GATEWAYS.iter().enumerate() {
            order.push((i + lag, g, i));
        }
    }
    order.sort_unstable();
    let mut bytes = Vec::new();
    for (k, (_, g, i)) in order.iter().enumerate() {
        let (_, topic, env) = &f.envelopes[*i];
        let mut e = envelope::decode(env).expect("the bench's own envelope");
        let gw = GATEWAYS[*g].0;
        e.gateway_id = gw.into();
        let payload = envelope::encode_to_vec(&e);
        let topic = match topic.rsplit_once('/') {
            Some((t, _)) => format!("{t}/{gw}"),
            None => topic.clone(),
        };
        publish_packet(&mut bytes, &topic, &payload, Some((k % 65_535 + 1) as u16));
    }
    Traffic {
        bytes,
        messages: order.len(),
        packets: f.envelopes.len(),
    }
}

/// Where a run's messages go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Json,
    Sqlite,
    Postgres,
}

/// One run's figures.
struct Run {
    secs: f64,
    gateway_cpu: f64,
    broker_cpu: f64,
    server_cpu: f64,
    peak_kib: u64,
}

/// Publishes every message at QoS 1, reading the broker's acknowledgements
/// on another thread.
fn publish(port: u16, bytes: &[u8]) -> Result<std::thread::JoinHandle<()>, Skip> {
    let mut s = Publisher::connect(port, "wireseal-bench-store-pub").map_err(Skip::new)?;
    let reader = s.drain().map_err(Skip::new)?;
    s.write(bytes).map_err(Skip::new)?;
    s.disconnect();
    Ok(reader)
}

fn one_run(
    broker: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    sink: Sink,
    pg: Option<&PgServer>,
    k: usize,
) -> Result<Run, RunError> {
    let mut cmd = Command::new(wireseal_bin()?);
    cmd.args(["meshtastic", "gateway", "--broker"])
        .arg(format!("mqtt://127.0.0.1:{}", broker.port))
        .args(["--channel", "LongFast=AQ==", "--node"])
        .arg(format!("!{OUR_NODE:08x}"))
        // The feed sends hundreds of packets per node per second: the flood
        // guard runs with limits this synthetic feed stays under.
        .args([
            "--key-env",
            KEY_ENV,
            "--firmware-json",
            "msh/US",
            "--flood-rate",
            "100000",
            "--flood-burst",
            "100000",
            "--max-packets",
        ])
        .arg(t.messages.to_string())
        .env(KEY_ENV, hex::encode(f.our.expose()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let db = cache_dir()?.join(format!("bench-store-{}-{k}.db", std::process::id()));
    let url = match (sink, pg) {
        (Sink::Json, _) => None,
        (Sink::Sqlite, _) => Some(format!("sqlite:{}", db.display())),
        (Sink::Postgres, Some(pg)) => {
            pg.fresh_db("mesh").map_err(Skip::new)?;
            Some(pg.socket_url("mesh"))
        }
        (Sink::Postgres, None) => return Err(Skip::new("no PostgreSQL server").into()),
    };
    if let Some(u) = &url {
        cmd.args(["--store", u, "--client-id"])
            .arg(format!("wireseal-bench-{}-{k}", std::process::id()));
    }
    let mut gw = cmd
        .spawn()
        .map_err(|e| Skip::new(format!("cannot start the gateway: {e}")))?;
    let out = gw.stdout.take().expect("piped");
    let lines = std::thread::spawn(move || BufReader::new(out).lines().count());
    let err = gw.stderr.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let pid = gw.id();
    let mut seen = Vec::new();
    let result = (|| {
        let ready = Instant::now() + Duration::from_secs(30);
        loop {
            match rx.recv_timeout(ready.saturating_duration_since(Instant::now())) {
                Ok(l) if l.contains("subscribed") => break,
                Ok(l) => seen.push(l),
                Err(_) => {
                    return Err(Skip::new(format!(
                        "the gateway did not subscribe: {seen:?}"
                    )))
                }
            }
        }
        std::thread::sleep(Duration::from_millis(300));
        let (b0, s0) = (cpu(broker.pid(), false), pg.map(PgServer::cpu));
        let start = Instant::now();
        let reader = publish(broker.port, &t.bytes)?;
        let (mut g, mut peak) = (Duration::ZERO, 0);
        let deadline = start + Duration::from_secs(600);
        let status = loop {
            if let Some(st) = gw.try_wait().map_err(|e| Skip::new(e.to_string()))? {
                break st;
            }
            if Instant::now() > deadline {
                return Err(Skip::new("the gateway did not finish within 600 s"));
            }
            g = g.max(cpu(pid, false));
            peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
            std::thread::sleep(Duration::from_millis(10));
        };
        let secs = start.elapsed().as_secs_f64();
        let broker_cpu = (cpu(broker.pid(), false) - b0).as_secs_f64();
        let server_cpu = match (s0, pg) {
            (Some(s0), Some(pg)) => pg.cpu().saturating_sub(s0).as_secs_f64(),
            _ => 0.0,
        };
        let _ = reader.join();
        if !status.success() {
            return Err(Skip::new(format!("the gateway exited with {status}")));
        }
        Ok(Run {
            secs,
            gateway_cpu: g.as_secs_f64(),
            broker_cpu,
            server_cpu,
            peak_kib: peak,
        })
    })();
    let _ = gw.kill();
    let _ = gw.wait();
    let _ = std::fs::remove_file(&db);
    for ext in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
    }
    let run = result?;
    seen.extend(rx.try_iter());
    let summary = seen
        .iter()
        .rev()
        .find_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()?
                .get("summary")
                .cloned()
        })
        .ok_or_else(|| RunError::Fail(format!("no summary from the gateway: {seen:?}")))?;
    let n = |k: &str| summary[k].as_u64().unwrap_or(0) as usize;
    let store = |k: &str| summary["store"][k].as_u64().unwrap_or(0) as usize;
    let got = lines.join().unwrap_or(0);
    let fw = summary["output"]["firmware_json"].as_u64().unwrap_or(0) as usize
        + summary["output"]["publish_dropped"].as_u64().unwrap_or(0) as usize;
    let ok = n("packets") == t.messages
        && fw == t.messages
        && match sink {
            Sink::Json => got == t.messages,
            _ => {
                store("packets") == t.packets
                    && store("receptions") == t.messages
                    && store("rejected") == 0
            }
        };
    match ok {
        true => Ok(run),
        false => Err(RunError::Fail(format!(
            "{} packets from {} messages: {got} JSON lines, summary {summary}",
            t.packets, t.messages
        ))),
    }
}

/// The rows: rates into SQLite and PostgreSQL beside JSON lines, peak RSS,
/// and CPU per message.
pub fn rows(ctx: &Ctx) -> Vec<Row> {
    let packets = if ctx.full { 100_000 } else { 20_000 };
    let runs = if ctx.full { 3 } else { 1 };
    let f = feed(packets, 29);
    let t = traffic(&f);
    let label = format!("{packets} pkts x 3 gws = {} msgs", t.messages);
    let rate_row = |name: &str, r: Result<(f64, f64), &RunError>| {
        let w = format!("gw into {name} via Mosquitto QoS 1, 2.8 mix, {label}");
        let base = "same messages as JSON lines, no store";
        let row = |ours, b| Row::new(SECTION, &w, "msg/s", Better::Higher, ours, base, b);
        match r {
            Ok((ours, json)) => row(ours, Some(json)).seed("target >= 50,000/s"),
            Err(RunError::Skip(why)) => row(0.0, None).skipped(why),
            Err(RunError::Fail(why)) => row(0.0, None).failed(why.clone()),
        }
    };
    let measured = (|| -> Result<_, RunError> {
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
                match one_run(&broker, &f, &t, sink, server, 3 * k + i) {
                    Ok(r) => all[i].push(r),
                    Err(e) if sink == Sink::Postgres => pg_err = Some(e),
                    Err(e) => return Err(e),
                }
            }
        }
        let pg_err = pg_err.or(pg.err().map(RunError::Skip));
        Ok((all, pg_err))
    })();
    let (all, pg_err) = match measured {
        Ok(m) => m,
        Err(e) => return vec![rate_row("SQLite", Err(&e)), rate_row("PostgreSQL", Err(&e))],
    };
    let median = |v: &[Run], f: &dyn Fn(&Run) -> f64| {
        let mut x: Vec<f64> = v.iter().map(f).collect();
        crate::timing::median(&mut x)
    };
    let m = t.messages as f64;
    let rate = |v: &[Run]| m / median(v, &|r| r.secs);
    let json = &all[0];
    let mut rows = vec![rate_row("SQLite", Ok((rate(&all[1]), rate(json))))];
    rows.push(match (&pg_err, all[2].is_empty()) {
        (Some(e), _) => rate_row("PostgreSQL", Err(e)),
        (None, _) => rate_row("PostgreSQL", Ok((rate(&all[2]), rate(json)))),
    });
    let us = |v: &[Run], f: &dyn Fn(&Run) -> f64| median(v, f) * 1e6 / m;
    let mib = |v: &[Run]| median(v, &|r| r.peak_kib as f64) / 1024.0;
    let base = "JSON lines, no store";
    for (i, name) in [(1, "SQLite"), (2, "PostgreSQL")] {
        if all[i].is_empty() {
            continue;
        }
        let v = &all[i];
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
        rows.push(row(
            "peak RSS of the gateway",
            "MiB",
            mib(v),
            Some(mib(json)),
        ));
        rows.push(row(
            "gateway CPU per message",
            "us",
            us(v, &|r| r.gateway_cpu),
            Some(us(json, &|r| r.gateway_cpu)),
        ));
        rows.push(row(
            "Mosquitto CPU per message",
            "us",
            us(v, &|r| r.broker_cpu),
            Some(us(json, &|r| r.broker_cpu)),
        ));
        if i == 2 {
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
    /// wireseal-bench --lib meshtastic_gateway_store -- --ignored
    /// --nocapture` prints the rows (`WIRESEAL_BENCH_FULL=1`: the full run).
    #[test]
    #[ignore = "a benchmark"]
    fn store_rows() {
        let full = std::env::var_os("WIRESEAL_BENCH_FULL").is_some();
        for r in rows(&Ctx { full }) {
            println!("{r:?}");
        }
    }
}
