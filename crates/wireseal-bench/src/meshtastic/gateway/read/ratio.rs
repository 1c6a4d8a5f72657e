//! The ingest rate with the read side on and idle (`--http`) against the
//! same runs without it: the store rows' traffic (three gateways, QoS 1,
//! `--firmware-json`) into fresh SQLite stores, runs alternated, medians.
//! A run in which the broker dropped the gateway's connection (the broker
//! then delivers messages again and `--max-packets` ends the run before
//! every packet is stored) is no rate sample: it is run once more, and the
//! row says so.

use super::strings;
use crate::meshtastic::gateway::process::{self, Job, SqliteFile};
use crate::meshtastic::gateway::traffic::{complete, Traffic};
use crate::meshtastic::gateway::{Feed, RunError, SECTION};
use crate::{Better, Row};
use wireseal_testkit::mosquitto::Mosquitto;

/// One run's rate in msg/s, the broker's drops of the connection redone
/// once; and whether it was redone.
fn one(
    b: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    http: bool,
    k: usize,
) -> Result<(f64, bool), RunError> {
    for attempt in 0..2 {
        let db = SqliteFile::new(&format!("read-ratio-{k}-{attempt}"))?;
        let id = format!("bench-read-ratio-{}-{k}-{attempt}", std::process::id());
        let mut extra = strings(&[
            "--firmware-json",
            "msh/US",
            "--store",
            &db.url(),
            "--client-id",
            &id,
        ]);
        if http {
            extra.extend(["--http".into(), "127.0.0.1:0".into()]);
        }
        let r = process::run(&Job {
            broker: b,
            feed: f,
            bytes: &t.bytes,
            messages: t.messages,
            extra,
            pg: None,
        })?;
        let dropped = r.summary["connection"]["errors"].as_u64().unwrap_or(0) > 0;
        match complete(&r, t, true) {
            Err(_) if dropped && attempt == 0 => continue,
            Err(e) => return Err(e),
            Ok(()) => return Ok((t.messages as f64 / r.secs, attempt > 0)),
        }
    }
    Err(RunError::Fail(
        "the broker dropped the gateway twice".into(),
    ))
}

/// Medians of `pairs` runs each with `--http` and without, alternated:
/// (with, without, runs redone).
fn measure(
    b: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    pairs: usize,
) -> Result<(f64, f64, usize), RunError> {
    let (mut with, mut without, mut redone) = (Vec::new(), Vec::new(), 0);
    for k in 0..2 * pairs {
        let http = k % 2 == 0;
        let (rate, again) = one(b, f, t, http, k)?;
        redone += usize::from(again);
        match http {
            true => with.push(rate),
            false => without.push(rate),
        }
    }
    Ok((
        crate::timing::median(&mut with),
        crate::timing::median(&mut without),
        redone,
    ))
}

/// The row.
pub(crate) fn row(b: &Mosquitto, f: &Feed, t: &Traffic, pairs: usize) -> Row {
    let w = format!(
        "gw into SQLite with --http idle, {} pkts x 3 gws = {} msgs",
        t.packets, t.messages
    );
    let base = "same runs without --http";
    let row = |ours, b| Row::new(SECTION, &w, "msg/s", Better::Higher, ours, base, b);
    match measure(b, f, t, pairs) {
        Ok((with, without, redone)) => row(with, Some(without)).seed(format!(
            "target >= 0.90x: {}; medians of {pairs} runs each, alternated{}",
            if with >= 0.9 * without {
                "pass"
            } else {
                "MISS"
            },
            match redone {
                0 => String::new(),
                n => format!("; {n} run(s) redone after the broker dropped the connection"),
            }
        )),
        Err(RunError::Skip(why)) => row(0.0, None).skipped(&why),
        Err(RunError::Fail(why)) => row(0.0, None).failed(why),
    }
}
