//! The writer: acknowledgements in push order and only after commit, the
//! buffer's bound, rejected records located, and a PostgreSQL restart under
//! load (the connection on the caller's runtime) with nothing lost or
//! duplicated.

use super::probe::{PgProbe, Probe, SqliteProbe};
use super::*;
use crate::store::{Entry, Event, Store, StoreUrl, StoreWriter, WriterConfig};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::Duration;
use wireseal_testkit::postgres::PgServer;

/// What streaming a feed through a writer produced.
#[derive(Debug, Default)]
struct Run {
    acks: Vec<usize>,
    receptions: u64,
    duplicates: u64,
    rejected: Vec<usize>,
    unavailable: usize,
    restored: usize,
    refused_pushes: usize,
    most_held: usize,
    down_for: Duration,
}

/// Pushes `feed` (token = position) as fast as the buffer allows, handles
/// every event, closes, and drains to the end. `acked` follows the count.
fn stream(
    w: &mut StoreWriter<usize>,
    events: &Receiver<Event<usize>>,
    feed: Vec<Option<Record>>,
    acked: &AtomicUsize,
) -> Run {
    let mut run = Run::default();
    let mut todo: std::collections::VecDeque<(usize, Option<Entry>)> = feed
        .into_iter()
        .map(|r| r.map(Entry::from))
        .enumerate()
        .collect();
    loop {
        while !todo.is_empty() && w.has_room() {
            let (i, r) = todo.pop_front().unwrap();
            w.push(r, i).expect("room was reported");
        }
        run.most_held = run.most_held.max(w.held());
        if let Some((i, r)) = todo.pop_front() {
            // Full: the writer must refuse and give the message back.
            let back = w.push(r.clone(), i).expect_err("the buffer is full");
            assert_eq!((&back.record, back.token), (&r, i));
            run.refused_pushes += 1;
            todo.push_front((back.token, back.record));
        } else {
            w.close();
        }
        let Ok(ev) = events.recv() else {
            break;
        };
        match ev {
            Event::Committed { acks, summary } => {
                for r in &summary.rejected {
                    run.rejected.push(acks[r.index]);
                }
                run.receptions += summary.receptions;
                run.duplicates += summary.duplicates;
                acked.fetch_add(acks.len(), Ordering::SeqCst);
                run.acks.extend(acks);
            }
            Event::Unavailable { .. } => run.unavailable += 1,
            Event::Restored { after, .. } => {
                run.restored += 1;
                run.down_for += after;
            }
            Event::Stopped { error, .. } => panic!("writer stopped: {error}"),
            Event::Pruned { .. } => {}
            Event::Closed => break,
        }
    }
    assert_eq!(w.held(), 0);
    run
}

type Writer = (StoreWriter<usize>, Receiver<Event<usize>>);

fn sqlite_writer(cfg: WriterConfig) -> (tempfile::TempDir, Writer, SqliteProbe) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let store = Store::open(&StoreUrl::Sqlite(path.clone())).unwrap();
    let w = StoreWriter::with_channel(store, cfg).unwrap();
    (dir, w, SqliteProbe::open(&path))
}

#[test]
fn writer_acks_in_order_after_commit_within_its_buffer() {
    let cfg = WriterConfig {
        buffer: 300,
        max_batch: 100,
        linger: Duration::from_millis(5),
        ..WriterConfig::default()
    };
    let (_d, (mut w, ev), mut p) = sqlite_writer(cfg);
    let mut feed: Vec<Option<Record>> = traffic(700, 3, 5_000).into_iter().map(Some).collect();
    for i in (0..feed.len()).step_by(10) {
        feed[i] = None;
    }
    let mut late = text(0x7777, 1, GW[0], 0, "time out of range");
    late.reception.rx_time_ms = u64::MAX;
    feed[1001] = Some(late);
    let stored = feed.iter().flatten().count() - 1;
    let n = feed.len();
    let run = stream(&mut w, &ev, feed, &AtomicUsize::new(0));
    assert_eq!(run.acks, (0..n).collect::<Vec<_>>());
    assert_eq!(run.rejected, [1001]);
    assert_eq!(run.most_held, 300);
    assert!(run.refused_pushes > 0);
    assert_eq!((run.unavailable, run.restored), (0, 0));
    let receptions = p.count("SELECT count(*) FROM receptions");
    assert_eq!(receptions as u64, run.receptions);
    assert_eq!(receptions as usize, stored);
}

#[test]
fn writer_commits_a_lone_record_without_closing() {
    let (_d, (mut w, ev), mut p) = sqlite_writer(WriterConfig::default());
    w.push(Some(text(1, 1, GW[0], 1, "alone").into()), 7)
        .unwrap();
    match ev.recv().ok() {
        Some(Event::Committed { acks, summary }) => {
            assert_eq!(acks, [7]);
            assert_eq!(summary.receptions, 1);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(p.count("SELECT count(*) FROM packets"), 1);
    assert!(w.has_room());
    assert!(ev.try_recv().is_err());
}

#[test]
fn postgres_restart_under_load_loses_and_duplicates_nothing() {
    let mut server = PgServer::start().expect("a PostgreSQL server");
    server.create_db("load").expect("createdb");
    let url = server.tcp_url("load");
    // The connection runs on a runtime of the caller's, as in the gateway;
    // the writer's thread blocks on it.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let store = Store::open_on(&url.parse().unwrap(), rt.handle()).expect("open");
    let cfg = WriterConfig {
        buffer: 4_000,
        max_batch: 500,
        linger: Duration::from_millis(20),
        retry_min: Duration::from_millis(50),
        retry_max: Duration::from_millis(800),
        retention: None,
    };
    let (mut w, ev) = StoreWriter::with_channel(store, cfg).unwrap();
    let feed = traffic(15_000, 3, 9_000_000);
    let n = feed.len();
    let acked = Arc::new(AtomicUsize::new(0));
    let a = acked.clone();
    let control = std::thread::spawn(move || {
        while a.load(Ordering::SeqCst) < 10_000 {
            std::thread::sleep(Duration::from_millis(2));
        }
        server.crash();
        std::thread::sleep(Duration::from_millis(1_500));
        server.run().expect("restart postgres");
        server
    });
    let run = stream(&mut w, &ev, feed.into_iter().map(Some).collect(), &acked);
    let server = control.join().expect("server control");
    println!(
        "{n} messages through a restart: {} unavailable reports, restored after {:.1} s, \
         {} pushes refused while full, at most {} held",
        run.unavailable,
        run.down_for.as_secs_f64(),
        run.refused_pushes,
        run.most_held
    );
    assert!(run.unavailable > 0, "the restart was not noticed");
    assert!(run.restored > 0);
    assert!(run.refused_pushes > 0, "the buffer never filled while down");
    assert_eq!(run.acks, (0..n).collect::<Vec<_>>());
    assert!(run.rejected.is_empty());
    assert_eq!(run.receptions + run.duplicates, n as u64);
    let mut p = PgProbe::connect(&server.tcp_url("load"));
    assert_eq!(p.count("SELECT count(*) FROM receptions"), n as i64);
    assert_eq!(
        p.count(
            "SELECT count(*) FROM (SELECT DISTINCT from_node, packet_id, gateway_id, relay_node, \
             transport FROM receptions) x"
        ),
        n as i64
    );
    assert_eq!(p.count("SELECT count(*) FROM packets"), 15_000);
    assert!(
        server.log().contains("database system is ready"),
        "{}",
        server.log()
    );
}
