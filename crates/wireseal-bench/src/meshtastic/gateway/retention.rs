//! Retention while ingesting: a store prefilled with 1,000,000 old packets
//! (first seen ten days ago), then the bench's traffic from three gateways
//! taken by the gateway process with
//! `--retain 1d` (pruning the old packets in small batches as it writes)
//! and, in the same run, samples alternated, without `--retain` on a copy
//! of the same prefilled store. Figure: messages per second with pruning
//! against without. The run with pruning is `FAILED` unless it removed old
//! packets and kept every new one (every packet inside the window stays).

use super::feed::feed;
use super::process::{self, broker, Job, Run, SqliteFile};
use super::traffic::{complete, traffic, Traffic};
use super::{Feed, RunError, SECTION};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use wireseal_gateway::store::{Store, StoreUrl};
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::postgres::PgServer;

/// Old packets' senders start here (the feed's never do).
const OLD_NODES: u64 = 0x6000_0000;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The statements that add `n` old packets with one reception each.
fn prefill_sql(n: usize, postgres: bool) -> String {
    let t0 = now_ms() - 10 * 86_400_000;
    let (rows, blob) = match postgres {
        true => (
            format!("generate_series(1, {n}) AS g(i)"),
            "decode(md5(i::text), 'hex')",
        ),
        false => ("n".to_owned(), "randomblob(16)"),
    };
    let with = match postgres {
        true => String::new(),
        false => format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) "
        ),
    };
    format!(
        "{with}INSERT INTO packets (from_node, packet_id, to_node, channel_id, decryption, portnum, \
         payload, signature, first_seen_ms) SELECT {OLD_NODES} + i % 1000, i, 4294967295, 'LongFast', \
         'channel', 1, {blob}, 'absent', {t0} + i FROM {rows};
         {with}INSERT INTO receptions (from_node, packet_id, gateway_id, relay_node, transport, topic, \
         rx_time_ms) SELECT {OLD_NODES} + i % 1000, i, '!b3c4d5e6', 0, 0, 'msh/US/2/e/LongFast/!b3c4d5e6', \
         {t0} + i FROM {rows};"
    )
}

/// A store with the schema, then the old packets.
fn prefill(url: &str, db: &Db, n: usize, postgres: bool) -> Result<(), Skip> {
    let u: StoreUrl = url.parse().map_err(|e| Skip::new(format!("{e}")))?;
    drop(Store::open(&u).map_err(|e| Skip::new(format!("{e}")))?);
    db.exec(&prefill_sql(n, postgres));
    if !postgres {
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    Ok(())
}

/// Where the runs write: the prefilled template, and a fresh copy per run.
enum Target<'a> {
    Sqlite(&'a SqliteFile),
    Postgres(&'a PgServer),
}

impl Target<'_> {
    /// A fresh copy of the prefilled store for run `k`: its URL and a
    /// reader, and the file to remove afterwards.
    fn copy(&self, k: usize) -> Result<(String, Db, Option<SqliteFile>), Skip> {
        match self {
            Target::Sqlite(template) => {
                let f = SqliteFile::new(&format!("retain-{k}"))?;
                std::fs::copy(&template.0, &f.0)
                    .map_err(|e| Skip::new(format!("copying the store: {e}")))?;
                Ok((f.url(), Db::Sqlite(f.0.clone()), Some(f)))
            }
            Target::Postgres(pg) => {
                let name = format!("retain_{k}");
                pg.drop_db(&name).map_err(Skip::new)?;
                pg.create_db_from(&name, "prefill").map_err(Skip::new)?;
                Ok((pg.socket_url(&name), Db::Pg(pg.socket_url(&name)), None))
            }
        }
    }
}

/// One run on a fresh copy of the prefilled store; with `retain`, checks
/// that old packets went and every new one stayed.
fn one(
    b: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    target: &Target<'_>,
    retain: bool,
    k: usize,
) -> Result<Run, RunError> {
    let (url, db, _file) = target.copy(k)?;
    let pg = match target {
        Target::Postgres(pg) => Some(*pg),
        Target::Sqlite(_) => None,
    };
    let mut extra: Vec<String> = ["--firmware-json", "msh/US", "--store", &url, "--client-id"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    extra.push(format!("bench-retain-{}-{k}", std::process::id()));
    if retain {
        extra.extend(["--retain".into(), "1d".into()]);
    }
    let r = process::run(&Job {
        broker: b,
        feed: f,
        bytes: &t.bytes,
        messages: t.messages,
        extra,
        pg,
    })?;
    complete(&r, t, true)?;
    if retain {
        let new = db.count(&format!(
            "SELECT count(*) FROM packets WHERE from_node < {OLD_NODES} OR from_node >= {}",
            OLD_NODES + 1000
        ));
        let pruned = r.summary["store"]["pruned_packets"].as_u64().unwrap_or(0);
        if new != t.packets as u64 || pruned == 0 {
            return Err(RunError::Fail(format!(
                "{new} of {} new packets kept, {pruned} old ones pruned",
                t.packets
            )));
        }
    }
    if let Target::Postgres(pg) = target {
        let _ = pg.drop_db(&format!("retain_{k}"));
    }
    Ok(r)
}

/// Rates with and without `--retain` on one database, alternated.
fn measure(
    b: &Mosquitto,
    f: &Feed,
    t: &Traffic,
    target: &Target<'_>,
    runs: usize,
) -> Result<(f64, f64, u64), RunError> {
    let (mut with, mut without, mut pruned) = (Vec::new(), Vec::new(), 0);
    for k in 0..runs {
        let r = one(b, f, t, target, true, 2 * k)?;
        pruned = pruned.max(r.summary["store"]["pruned_packets"].as_u64().unwrap_or(0));
        with.push(r.secs);
        without.push(one(b, f, t, target, false, 2 * k + 1)?.secs);
    }
    let m = t.messages as f64;
    Ok((
        m / crate::timing::median(&mut with),
        m / crate::timing::median(&mut without),
        pruned,
    ))
}

/// The rows: SQLite and PostgreSQL.
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let old = 1_000_000;
    let packets = if ctx.full { 100_000 } else { 20_000 };
    let runs = if ctx.full { 3 } else { 1 };
    let f = feed(packets, 31);
    let t = traffic(&f);
    let row = |name: &str, r: Result<(f64, f64, u64), RunError>| {
        let w = format!(
            "gw into {name} with --retain 1d, pruning {old} old pkts, {} msgs",
            t.messages
        );
        let base = "same store and traffic, no --retain";
        let row = |ours, b| Row::new(SECTION, &w, "msg/s", Better::Higher, ours, base, b);
        match r {
            Ok((ours, without, pruned)) => row(ours, Some(without)).seed(format!(
                "target >= 0.8x; {pruned} old packets pruned in the run"
            )),
            Err(RunError::Skip(why)) => row(0.0, None).skipped(&why),
            Err(RunError::Fail(why)) => row(0.0, None).failed(why),
        }
    };
    let b = match broker() {
        Ok(b) => b,
        Err(e) => return vec![row("SQLite", Err(RunError::Skip(e)))],
    };
    let sqlite = (|| {
        let template = SqliteFile::new("retain-template")?;
        prefill(&template.url(), &Db::Sqlite(template.0.clone()), old, false)?;
        measure(&b, &f, &t, &Target::Sqlite(&template), runs)
    })();
    let postgres = (|| {
        let pg = PgServer::start().map_err(Skip::new)?;
        pg.create_db("prefill").map_err(Skip::new)?;
        prefill(
            &pg.socket_url("prefill"),
            &Db::Pg(pg.socket_url("prefill")),
            old,
            true,
        )?;
        measure(&b, &f, &t, &Target::Postgres(&pg), runs)
    })();
    vec![row("SQLite", sqlite), row("PostgreSQL", postgres)]
}
