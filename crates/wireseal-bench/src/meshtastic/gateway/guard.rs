//! The gateway on a hostile feed, and its flood guard.
//!
//! Hostile feed: envelopes whose channel ids, gateway ids, topics and node
//! names are chosen to break topics, logs and paths (the test kit's
//! `hostile_feed`: wildcards, separators, `$`, `..`, control and
//! bidirectional characters, 64-byte ids, deep and long topics), published
//! at QoS 1 to a Mosquitto and taken by the gateway process with
//! `--publish`, `--firmware-json` and a SQLite store, while a subscriber
//! watches every topic the gateway publishes. Figures: the gateway's
//! reconnections (the broker drops a client that publishes a wildcard), the
//! share of its topics with exactly the configured levels, and its peak
//! memory on 10 times the envelopes (bounded: about the same).
//!
//! Flood guard: the gateway's `FloodGuard` on a simulated clock: one node at
//! 50 packets per second for 60 s beside 200 nodes at one packet every 10 s,
//! each heard by three gateways; how many of the loud node's packets pass
//! against its limit, and the share of the others' that pass.

use super::feed::feed;
use super::process::{self, broker, Job, SqliteFile};
use super::{RunError, SECTION};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use std::time::Duration;
use wireseal::meshtastic::untrusted::safe_level;
use wireseal_gateway::flood::{loud_minute, FloodLimits};
use wireseal_testkit::meshtastic::hostile_feed;
use wireseal_testkit::mqtt::{publish_packet, Subscriber};

/// One hostile run's figures.
struct Hostile {
    reconnects: u64,
    published: usize,
    levels_ok: usize,
    peak_mib: f64,
}

fn hostile_run(n: usize, k: usize) -> Result<Hostile, RunError> {
    let b = broker()?;
    let sub = Subscriber::connect(b.port, "bench-hostile-watch", &["out/#", "fw/#"])
        .map_err(Skip::new)?;
    let mut bytes = Vec::new();
    for (i, (topic, env)) in hostile_feed(n, 5_000, 0x5eed + k as u64).iter().enumerate() {
        publish_packet(&mut bytes, topic, env, Some((i % 65_535 + 1) as u16));
    }
    let db = SqliteFile::new(&format!("hostile-{k}"))?;
    let f = feed(1, 1);
    let extra = [
        "--publish",
        "out/rec",
        "--firmware-json",
        "fw",
        "--client-id",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("bench-hostile-{k}"), "--store".into(), db.url()])
    .collect();
    let r = process::run(&Job {
        broker: &b,
        feed: &f,
        bytes: &bytes,
        messages: n,
        extra,
        pg: None,
    })?;
    let s = &r.summary;
    let n64 = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let published = (n64(&s["output"]["republish"]) + n64(&s["output"]["firmware_json"])) as usize;
    let got = sub.wait(published, Duration::from_secs(30));
    let levels_ok = got
        .iter()
        .filter(|(t, _)| {
            let levels: Vec<&str> = t.split('/').collect();
            let want = if t.starts_with("out/") { 4 } else { 5 };
            levels.len() == want && levels.iter().all(|l| safe_level(l).is_ok())
        })
        .count();
    Ok(Hostile {
        reconnects: n64(&s["connection"]["connects"]).saturating_sub(1)
            + n64(&s["connection"]["errors"]),
        published,
        levels_ok,
        peak_mib: r.peak_kib as f64 / 1024.0,
    })
}

fn hostile_rows(ctx: &Ctx) -> Vec<Row> {
    let big = if ctx.full { 100_000 } else { 10_000 };
    let w = |what: &str| format!("gw hostile feed x {big} (ids, topics, names): {what}");
    let fail = |e: RunError, unit| {
        let row = Row::new(
            SECTION,
            w("broker reconnections"),
            unit,
            Better::Lower,
            0.0,
            "-",
            None,
        );
        match e {
            RunError::Skip(why) => row.skipped(&why),
            RunError::Fail(why) => row.failed(why),
        }
    };
    let (small, large) = match (hostile_run(big / 10, 0), hostile_run(big, 1)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return vec![fail(e, "count")],
    };
    let mut reconnect = Row::new(
        SECTION,
        w("broker reconnections"),
        "count",
        Better::Lower,
        large.reconnects as f64,
        "-",
        None,
    )
    .seed("target 0");
    if large.reconnects > 0 {
        reconnect = reconnect.failed(format!("{} reconnections", large.reconnects));
    }
    let share = 100.0 * large.levels_ok as f64 / large.published.max(1) as f64;
    let mut levels = Row::new(
        SECTION,
        w(&format!(
            "topics with the configured levels, of {}",
            large.published
        )),
        "%",
        Better::Higher,
        share,
        "-",
        None,
    )
    .seed("target 100%");
    if large.levels_ok != large.published || large.published == 0 {
        levels = levels.failed(format!("{} of {}", large.levels_ok, large.published));
    }
    let rss = Row::new(
        SECTION,
        w("peak RSS of the gateway"),
        "MiB",
        Better::Lower,
        large.peak_mib,
        format!("same gateway, {} envelopes", big / 10),
        Some(small.peak_mib),
    );
    vec![reconnect, levels, rss]
}

/// The rows.
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let mut rows = hostile_rows(ctx);
    let limits = FloodLimits {
        rate: 2.0,
        burst: 20,
        ..FloodLimits::default()
    };
    let (m, _) = loud_minute(limits, 200);
    let (loud, limit) = (m.loud_passed, m.loud_limit);
    let others = 100.0 * m.others_passed as f64 / m.others_sent as f64;
    let mut row = Row::new(
        SECTION,
        "gw flood guard: 1 node at 50 pkt/s for 60 s (rate 2/s, burst 20), packets passed",
        "pkt",
        Better::Lower,
        loud as f64,
        "its limit (burst + 60 s x rate)",
        Some(limit as f64),
    );
    if loud > limit {
        row = row.failed(format!("{loud} passed, limit {limit}"));
    }
    rows.push(row);
    let mut row = Row::new(
        SECTION,
        "gw flood guard: 200 other nodes x 3 gateways in that minute, copies passed",
        "%",
        Better::Higher,
        others,
        "-",
        None,
    );
    if others < 100.0 {
        row = row.failed(format!("{others:.2}% passed"));
    }
    rows.push(row);
    rows
}
