//! Raw store throughput, run by hand (it prints figures and asserts none):
//!
//! ```sh
//! cargo test --release -p wireseal-cli --bin wireseal store_throughput -- --ignored --nocapture
//! ```
//!
//! The feed is [`traffic`]: packets heard by 3 gateways each, so a third of
//! the records bring a new packet and every record a new reception.
//! `WIRESEAL_STORE_PACKETS` sets the number of packets (default 100,000).

use super::pg_server::PgServer;
use super::*;
use crate::commands::gateway::store::{
    Durability, PgMethod, PgStore, SqliteStore, Store, StoreUrl, StoreWriter, WriterConfig,
};
use std::time::{Duration, Instant};

fn report(what: &str, records: usize, packets: usize, t: Duration) {
    let s = t.as_secs_f64();
    println!(
        "{what:<40} {records} records in {s:.2} s: {:>9.0} records/s ({:.0} packets/s)",
        records as f64 / s,
        packets as f64 / s
    );
}

fn batches(store: &mut Store, feed: &[Record], batch: usize) -> Duration {
    let t = Instant::now();
    for chunk in feed.chunks(batch) {
        let c = store.write_batch(chunk).expect("committed");
        assert!(c.rejected.is_empty());
    }
    t.elapsed()
}

fn through_writer(store: Store, feed: &[Record], max_batch: usize) -> Duration {
    let mut w = StoreWriter::start(
        store,
        WriterConfig {
            max_batch,
            ..WriterConfig::default()
        },
    )
    .unwrap();
    let t = Instant::now();
    let mut it = feed.iter().cloned();
    let mut done = 0;
    let mut next = it.next();
    while done < feed.len() {
        while w.has_room() {
            match next.take() {
                Some(r) => {
                    w.push(Some(r), ()).unwrap();
                    next = it.next();
                }
                None => break,
            }
        }
        if let Some(crate::commands::gateway::store::Event::Committed { acks, .. }) =
            w.blocking_next_event()
        {
            done += acks.len();
        }
    }
    t.elapsed()
}

#[test]
#[ignore = "measurement, run by hand with --ignored --nocapture"]
fn store_throughput() {
    let packets: usize = std::env::var("WIRESEAL_STORE_PACKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let feed = traffic(packets, 3, 1_700_000_000_000);
    let n = feed.len();
    let dir = tempfile::tempdir().unwrap();
    for (name, d) in [("full", Durability::Full), ("normal", Durability::Normal)] {
        for batch in [1_000, 5_000] {
            let path = dir.path().join(format!("{name}-{batch}.db"));
            let mut s = Store::Sqlite(SqliteStore::open(&path, d).unwrap());
            let t = batches(&mut s, &feed, batch);
            report(
                &format!("sqlite synchronous={name}, batch {batch}"),
                n,
                packets,
                t,
            );
        }
    }
    let path = dir.path().join("writer.db");
    let s = Store::open(&StoreUrl::Sqlite(path)).unwrap();
    let t = through_writer(s, &feed, 2_000);
    report("sqlite full via StoreWriter, batch 2000", n, packets, t);

    let server = PgServer::start();
    for (name, m) in [("unnest", PgMethod::Unnest), ("copy", PgMethod::Copy)] {
        for batch in [1_000, 5_000] {
            let db = format!("{name}_{batch}");
            server.create_db(&db);
            let StoreUrl::Postgres(c) = server.socket_url(&db).parse().unwrap() else {
                unreachable!()
            };
            let mut s = Store::Postgres(PgStore::open(*c, m).unwrap());
            let t = batches(&mut s, &feed, batch);
            report(&format!("postgres {name}, batch {batch}"), n, packets, t);
        }
    }
    server.create_db("writer");
    let s = Store::open(&server.socket_url("writer").parse().unwrap()).unwrap();
    let t = through_writer(s, &feed, 2_000);
    report(
        "postgres default via StoreWriter, batch 2000",
        n,
        packets,
        t,
    );
}
