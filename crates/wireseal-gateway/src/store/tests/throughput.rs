//! Raw store throughput, run by hand (it prints figures and asserts none):
//!
//! ```sh
//! cargo test --release -p wireseal-gateway --lib store_throughput -- --ignored --nocapture
//! ```
//!
//! The feed is [`traffic`]: packets heard by 3 gateways each, so a third of
//! the records bring a new packet and every record a new reception.
//! `WIRESEAL_STORE_PACKETS` sets the number of packets (default 100,000),
//! `WIRESEAL_STORE_BATCHES` the batch sizes (default `1000,5000`), and
//! `WIRESEAL_STORE_ONLY=sqlite` or `postgres` one of the two, and
//! `WIRESEAL_STORE_PREFILL` a number of packets written (untimed) before,
//! so that the keys are as large as a database in use has them.
//! Besides the wall-clock rate, each line gives the CPU time the writing
//! took in this process and in the PostgreSQL server, per record, and the
//! rate that CPU time allows on one free core (on a busy machine the wall
//! rate mostly measures the other work).

use super::*;
use crate::store::{
    Durability, Event, PgMethod, PgStore, SqliteStore, Store, StoreUrl, StoreWriter, WriterConfig,
};
use std::time::{Duration, Instant};
use wireseal_testkit::postgres::PgServer;

fn process_cpu() -> Duration {
    wireseal_testkit::proc::own_cpu()
}

struct Cost {
    wall: Duration,
    ours: Duration,
    server: Duration,
}

fn report(what: &str, records: usize, packets: usize, c: Cost) {
    let s = c.wall.as_secs_f64();
    let per = |d: Duration| d.as_secs_f64() * 1e6 / records as f64;
    let cpu = (c.ours + c.server).as_secs_f64();
    println!(
        "{what:<44} {:>8.0} records/s ({:>7.0} packets/s) wall {s:.2} s | CPU/record {:.2} µs here + {:.2} µs server = {:>8.0} records per CPU-second",
        records as f64 / s,
        packets as f64 / s,
        per(c.ours),
        per(c.server),
        records as f64 / cpu
    );
}

fn measure(server: Option<&PgServer>, f: impl FnOnce()) -> Cost {
    let (c0, s0) = (process_cpu(), server.map_or(Duration::ZERO, PgServer::cpu));
    let t = Instant::now();
    f();
    let wall = t.elapsed();
    Cost {
        wall,
        ours: process_cpu() - c0,
        server: server.map_or(Duration::ZERO, PgServer::cpu) - s0,
    }
}

fn batches(store: &mut Store, feed: &[Record], batch: usize) {
    for chunk in feed.chunks(batch) {
        let c = store.write_batch(chunk).expect("committed");
        assert!(c.rejected.is_empty());
    }
}

fn through_writer(store: Store, feed: &[Record]) {
    let (mut w, events) = StoreWriter::with_channel(store, WriterConfig::default()).unwrap();
    let mut it = feed.iter().cloned().peekable();
    let mut done = 0;
    while done < feed.len() {
        while w.has_room() && it.peek().is_some() {
            w.push(it.next().map(Into::into), ()).unwrap();
        }
        if let Ok(Event::Committed { acks, .. }) = events.recv() {
            done += acks.len();
        }
    }
}

#[test]
#[ignore = "measurement, run by hand with --ignored --nocapture"]
fn store_throughput() {
    let packets: usize = std::env::var("WIRESEAL_STORE_PACKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let only = std::env::var("WIRESEAL_STORE_ONLY").unwrap_or_default();
    let sizes: Vec<usize> = std::env::var("WIRESEAL_STORE_BATCHES")
        .unwrap_or_else(|_| "1000,5000".into())
        .split(',')
        .filter_map(|v| v.parse().ok())
        .collect();
    let prefill: usize = std::env::var("WIRESEAL_STORE_PREFILL")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let before = traffic_from(0, prefill, 3, 1_700_000_000_000);
    let fill = |s: &mut Store| batches(s, &before, 10_000);
    let feed = traffic_from(prefill, packets, 3, 1_700_000_000_000);
    let n = feed.len();
    let dir = tempfile::tempdir().unwrap();
    if !only.contains("postgres") {
        for (name, d) in [("full", Durability::Full), ("normal", Durability::Normal)] {
            for &batch in &sizes {
                let path = dir.path().join(format!("{name}-{batch}.db"));
                let mut s = Store::Sqlite(SqliteStore::open(&path, d).unwrap());
                fill(&mut s);
                let c = measure(None, || batches(&mut s, &feed, batch));
                report(
                    &format!("sqlite synchronous={name}, batch {batch}"),
                    n,
                    packets,
                    c,
                );
            }
        }
        let mut s = Store::open(&StoreUrl::Sqlite(dir.path().join("writer.db"))).unwrap();
        fill(&mut s);
        let c = measure(None, || through_writer(s, &feed));
        report("sqlite full via StoreWriter, defaults", n, packets, c);
    }
    if only.contains("sqlite") {
        return;
    }
    let server = PgServer::start().expect("a PostgreSQL server");
    let methods = [
        ("unnest", PgMethod::Unnest, false),
        ("unnest, ON CONFLICT on receptions", PgMethod::Unnest, true),
        ("copy", PgMethod::Copy, false),
    ];
    for (name, m, careful) in methods {
        for &batch in &sizes {
            let db = format!("m{}_{batch}", name.len());
            server.create_db(&db).expect("createdb");
            let StoreUrl::Postgres(c) = server.socket_url(&db).parse().unwrap() else {
                unreachable!()
            };
            let mut pg = PgStore::open(*c, m).unwrap();
            if careful {
                pg.always_careful();
            }
            let mut s = Store::Postgres(Box::new(pg));
            fill(&mut s);
            let c = measure(Some(&server), || batches(&mut s, &feed, batch));
            report(&format!("postgres {name}, batch {batch}"), n, packets, c);
        }
    }
    server.create_db("writer").expect("createdb");
    let mut s = Store::open(&server.socket_url("writer").parse().unwrap()).unwrap();
    fill(&mut s);
    let c = measure(Some(&server), || through_writer(s, &feed));
    report("postgres unnest via StoreWriter, defaults", n, packets, c);
}
