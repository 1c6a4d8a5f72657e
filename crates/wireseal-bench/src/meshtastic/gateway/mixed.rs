//! The gateway into its store on a mixed feed, end to end: half the MQTT
//! messages the bench's Meshtastic traffic (three gateways, 70% LongFast,
//! 20% PKC direct messages, 10% signed broadcasts), half a MeshCore
//! observer feed made with the library's builders: adverts of 60 nodes
//! (the first of each before anything it sends), group texts on the public
//! and a hashtag channel the gateway knows and on one it does not, direct
//! messages to the gateway's identity and to other nodes, each packet heard
//! by three observers (meshcoretomqtt's JSON, one through a repeater, and a
//! raw feed), the copies a few hundred packets apart. The two feeds are
//! interleaved, published at QoS 1 to a local Mosquitto and taken by
//! `wireseal meshtastic gateway --meshcore-topic …` with `--store` into a
//! fresh SQLite file and a fresh PostgreSQL database, beside the same
//! messages as JSON lines (no store), samples alternated. A figure is MQTT
//! messages per second from the first byte published to the gateway's exit
//! after `--max-packets`, every message committed and acknowledged; the
//! run is `FAILED` unless the summary counts every packet and reception of
//! both meshes stored once, nothing rejected and nothing dropped.

use super::feed::feed;
use super::process::{self, broker, Job, Run, SqliteFile};
use super::traffic::{traffic, Traffic};
use super::{Feed, RunError, SECTION};
use crate::peers::{cache_dir, Skip};
use crate::{Better, Ctx, Row};
use rand::{Rng, SeedableRng};
use wireseal::meshcore::{ChannelKey, LocalIdentity};
use wireseal_testkit::meshcore_observer as mc;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_packet;
use wireseal_testkit::postgres::PgServer;

/// MeshCore nodes that advertise and send.
const NODES: usize = 60;
/// The observers that hear every MeshCore packet, how many packets later
/// each does, and whether it publishes raw bytes.
const OBSERVERS: [(u8, usize, bool); 3] = [(1, 0, false), (2, 150, false), (3, 400, true)];

/// The MeshCore feed: packets, and what the gateway must make of them.
pub(crate) struct McFeed {
    /// Our identity's private key, as a key file holds it.
    pub key_hex: String,
    /// The packets.
    pub packets: Vec<Vec<u8>>,
}

/// `n` MeshCore packets: the 60 nodes' adverts first, then 10% adverts,
/// 35% public-channel texts, 15% `#bench` texts, 15% texts on a channel the
/// gateway does not know, 15% direct messages to it, 10% to other nodes.
pub(crate) fn meshcore_feed(n: usize, seed: u64) -> McFeed {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let ours = LocalIdentity::generate();
    let nodes: Vec<LocalIdentity> = (0..NODES).map(|_| LocalIdentity::generate()).collect();
    let (public, tag) = (
        ChannelKey::public(),
        ChannelKey::hashtag("#bench").expect("a tag"),
    );
    let unknown = ChannelKey::from_bytes(&[0x5c; 16]).expect("16 bytes");
    let t0 = 1_760_000_000u32;
    let packets = (0..n)
        .map(|i| {
            let t = t0 + i as u32;
            let s = &nodes[i % NODES];
            let line = |r: &mut rand::rngs::StdRng| {
                let len = r.gen_range(10..=100);
                let mut m = format!("node{}: {i} ", i % NODES);
                while m.len() < len {
                    m.push(char::from(b'a' + r.gen_range(0..26u8)));
                }
                m
            };
            if i < NODES {
                return mc::advert(s, t, &format!("node {i}"), Some((45.5, -122.6)));
            }
            match rng.gen_range(0..20) {
                0 | 1 => mc::advert(s, t, &format!("node {}", i % NODES), Some((45.5, -122.6))),
                2..=8 => mc::group_text(&public, t, &line(&mut rng)),
                9..=11 => mc::group_text(&tag, t, &line(&mut rng)),
                12..=14 => mc::group_text(&unknown, t, &line(&mut rng)),
                15..=17 => mc::direct(s, ours.public(), t, &line(&mut rng)),
                _ => mc::direct(s, nodes[(i + 1) % NODES].public(), t, &line(&mut rng)),
            }
        })
        .collect();
    McFeed {
        key_hex: hex::encode(ours.private_key().expose()),
        packets,
    }
}

/// The MeshCore packets as three observers published them: (lag, observer,
/// topic, payload), in order of arrival.
fn observed(f: &McFeed) -> Vec<(String, Vec<u8>)> {
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    for i in 0..f.packets.len() {
        for (g, (_, lag, _)) in OBSERVERS.iter().enumerate() {
            order.push((i + lag, g, i));
        }
    }
    order.sort_unstable();
    order
        .into_iter()
        .map(|(_, g, i)| {
            let (n, _, raw) = OBSERVERS[g];
            let key = mc::observer(n);
            let p = &f.packets[i];
            match (raw, g) {
                (true, _) => (
                    format!("meshcore-raw/PDX/{}", hex::encode(key)),
                    mc::relayed(p, &[0x21, 0x42]),
                ),
                (false, 0) => (
                    mc::topic("PDX", &key),
                    mc::observer_json(p, &key, 7.25, -88),
                ),
                (false, _) => {
                    let via = mc::relayed(p, &[0x21]);
                    (
                        mc::topic("PDX", &key),
                        mc::observer_json(&via, &key, -3.5, -112),
                    )
                }
            }
        })
        .collect()
}

/// Both feeds as QoS 1 PUBLISH packets, interleaved message by message.
pub(crate) struct Mixed {
    pub bytes: Vec<u8>,
    pub messages: usize,
    /// Meshtastic packets and messages, MeshCore packets and messages.
    pub counts: [usize; 4],
}

/// Meshtastic's traffic `t` and the MeshCore feed `m`, interleaved.
pub(crate) fn mixed(t: &Traffic, m: &McFeed) -> Mixed {
    let mc_msgs = observed(m);
    let mut bytes = Vec::with_capacity(2 * t.bytes.len());
    let mut k = 0usize;
    let (mut mt_it, mut mc_it) = (split_publishes(&t.bytes).into_iter(), mc_msgs.iter());
    loop {
        let a = mt_it.next();
        let b = mc_it.next();
        if a.is_none() && b.is_none() {
            break;
        }
        if let Some(p) = a {
            let mut p = p.to_vec();
            set_pkid(&mut p, (k % 65_535 + 1) as u16);
            bytes.extend(p);
            k += 1;
        }
        if let Some((topic, payload)) = b {
            publish_packet(&mut bytes, topic, payload, Some((k % 65_535 + 1) as u16));
            k += 1;
        }
    }
    Mixed {
        bytes,
        messages: k,
        counts: [t.packets, t.messages, m.packets.len(), mc_msgs.len()],
    }
}

/// The PUBLISH packets of `b`, one slice each.
fn split_publishes(mut b: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while let Some((len, head)) = publish_len(b) {
        let (p, rest) = b.split_at((head + len).min(b.len()));
        out.push(p);
        b = rest;
    }
    out
}

/// The remaining length of the PUBLISH packet at the start of `b` and its
/// fixed header's size.
fn publish_len(b: &[u8]) -> Option<(usize, usize)> {
    let (mut len, mut shift, mut i) = (0usize, 0, 1);
    loop {
        let x = *b.get(i)?;
        len |= usize::from(x & 0x7f) << shift;
        shift += 7;
        i += 1;
        if x & 0x80 == 0 {
            return Some((len, i));
        }
    }
}

/// Sets the packet identifier of the QoS 1 PUBLISH packet `p`.
fn set_pkid(p: &mut [u8], id: u16) {
    let Some((_, head)) = publish_len(p) else {
        return;
    };
    let topic = usize::from(u16::from_be_bytes([p[head], p[head + 1]]));
    let at = head + 2 + topic;
    p[at..at + 2].copy_from_slice(&id.to_be_bytes());
}

/// Whether the summary counts every message, and with a store every packet
/// and reception of both meshes, nothing rejected or dropped.
fn complete(r: &Run, m: &Mixed, stored: bool) -> Result<(), RunError> {
    let s = &r.summary;
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as usize;
    let [p, pm, cp, cm] = m.counts;
    let dropped: usize = s["meshcore"]["dropped"]
        .as_object()
        .map_or(0, |o| o.values().map(n).sum());
    let ok = n(&s["messages"]) == m.messages
        && n(&s["packets"]) == pm
        && n(&s["meshcore"]["receptions"]) == cm
        && dropped == 0
        && match stored {
            false => r.lines == pm + cm,
            true => {
                n(&s["store"]["packets"]) == p
                    && n(&s["store"]["receptions"]) == pm
                    && n(&s["store"]["meshcore_packets"]) == cp
                    && n(&s["store"]["meshcore_receptions"]) == cm
                    && n(&s["store"]["rejected"]) == 0
            }
        };
    match ok {
        true => Ok(()),
        false => Err(RunError::Fail(format!(
            "{p} + {cp} packets from {} messages: {} JSON lines, summary {s}",
            m.messages, r.lines
        ))),
    }
}

/// Where a run's messages go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Json,
    Sqlite,
    Postgres,
}

/// What every run is given.
struct Setup<'a> {
    broker: &'a Mosquitto,
    feed: &'a Feed,
    mixed: &'a Mixed,
    key_file: &'a std::path::Path,
    pg: Option<&'a PgServer>,
}

fn one_run(s: &Setup<'_>, sink: Sink, k: usize) -> Result<Run, RunError> {
    let db = SqliteFile::new(&format!("mixed-{k}"))?;
    let mut extra: Vec<String> = [
        "--meshcore-topic",
        "meshcore/+/+/packets",
        "--meshcore-topic",
        "meshcore-raw/#",
        "--meshcore-public-channel",
        "--meshcore-hashtag",
        "#bench",
        "--meshcore-key-file",
    ]
    .map(String::from)
    .to_vec();
    extra.push(s.key_file.display().to_string());
    let url = match (sink, s.pg) {
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
        extra.push(format!("wireseal-bench-mixed-{}-{k}", std::process::id()));
    }
    let job = Job {
        broker: s.broker,
        feed: s.feed,
        bytes: &s.mixed.bytes,
        messages: s.mixed.messages,
        extra,
        pg: s.pg.filter(|_| sink == Sink::Postgres),
    };
    let r = process::run(&job)?;
    complete(&r, s.mixed, sink != Sink::Json)?;
    Ok(r)
}

/// The runs of every sink, by sink, and why PostgreSQL's failed, if so.
type Runs = ([Vec<Run>; 3], Option<RunError>);

fn measure(f: &Feed, m: &Mixed, mc: &McFeed, runs: usize) -> Result<Runs, RunError> {
    let broker = broker()?;
    let pg = PgServer::start().map_err(Skip::new);
    let key_file = cache_dir()?.join(format!("bench-mixed-{}.meshcore", std::process::id()));
    std::fs::write(&key_file, &mc.key_hex).map_err(|e| Skip::new(e.to_string()))?;
    let mut s = Setup {
        broker: &broker,
        feed: f,
        mixed: m,
        key_file: &key_file,
        pg: None,
    };
    let mut all: [Vec<Run>; 3] = Default::default();
    let mut pg_err = None;
    for k in 0..runs {
        for (i, sink) in [Sink::Json, Sink::Sqlite, Sink::Postgres]
            .into_iter()
            .enumerate()
        {
            s.pg = pg.as_ref().ok();
            if sink == Sink::Postgres && s.pg.is_none() {
                continue;
            }
            match one_run(&s, sink, 3 * k + i) {
                Ok(r) => all[i].push(r),
                Err(e) if sink == Sink::Postgres => pg_err = Some(e),
                Err(e) => {
                    let _ = std::fs::remove_file(&key_file);
                    return Err(e);
                }
            }
        }
    }
    let _ = std::fs::remove_file(&key_file);
    Ok((all, pg_err.or(pg.err().map(RunError::Skip))))
}

fn rate_row(label: &str, name: &str, r: Result<(f64, f64), &RunError>) -> Row {
    let w = format!("gw mixed Meshtastic + MeshCore into {name} via Mosquitto QoS 1, {label}");
    let base = "same messages as JSON lines, no store";
    let row = |ours, b| Row::new(SECTION, &w, "msg/s", Better::Higher, ours, base, b);
    match r {
        Ok((ours, json)) => row(ours, Some(json)).seed("target >= 50,000/s"),
        Err(RunError::Skip(why)) => row(0.0, None).skipped(why),
        Err(RunError::Fail(why)) => row(0.0, None).failed(why.clone()),
    }
}

/// The rows: mixed-feed rates into SQLite and PostgreSQL beside JSON lines,
/// and what a message costs into each (the store rows' measures: peak RSS,
/// the gateway's, Mosquitto's and PostgreSQL's CPU per message).
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let packets = if ctx.full { 50_000 } else { 10_000 };
    let runs = if ctx.full { 3 } else { 1 };
    let f = feed(packets, 31);
    let t = traffic(&f);
    let mc = meshcore_feed(packets, 37);
    let m = mixed(&t, &mc);
    let label = format!(
        "{packets} + {packets} pkts x 3 = {} msgs (half MeshCore)",
        m.messages
    );
    let (all, pg_err) = match measure(&f, &m, &mc, runs) {
        Ok(x) => x,
        Err(e) => {
            return vec![
                rate_row(&label, "SQLite", Err(&e)),
                rate_row(&label, "PostgreSQL", Err(&e)),
            ]
        }
    };
    let median = |v: &[Run], f: &dyn Fn(&Run) -> f64| {
        let mut x: Vec<f64> = v.iter().map(f).collect();
        crate::timing::median(&mut x)
    };
    let n = m.messages as f64;
    let rate = |v: &[Run]| n / median(v, &|r| r.secs);
    let json = rate(&all[0]);
    let mut rows = vec![rate_row(&label, "SQLite", Ok((rate(&all[1]), json)))];
    rows.push(match &pg_err {
        Some(e) => rate_row(&label, "PostgreSQL", Err(e)),
        None => rate_row(&label, "PostgreSQL", Ok((rate(&all[2]), json))),
    });
    for (i, name) in [(1, "SQLite"), (2, "PostgreSQL")] {
        if !all[i].is_empty() {
            let what = format!("mixed, {label}");
            rows.extend(super::store::cost_rows(
                name, &all[i], &all[0], &what, m.messages,
            ));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_of_both_feeds_once_in_order() {
        let f = feed(60, 3);
        let t = traffic(&f);
        let mc = meshcore_feed(90, 5);
        let m = mixed(&t, &mc);
        assert_eq!(m.counts, [60, 180, 90, 270]);
        assert_eq!(m.messages, 450);
        // Every PUBLISH parses and carries its own packet identifier.
        let (mut b, mut ids) = (&m.bytes[..], Vec::new());
        while let Some((len, head)) = publish_len(b) {
            let topic = usize::from(u16::from_be_bytes([b[head], b[head + 1]]));
            ids.push(u16::from_be_bytes([
                b[head + 2 + topic],
                b[head + 3 + topic],
            ]));
            b = &b[head + len..];
        }
        assert_eq!(ids, (1..=450).collect::<Vec<u16>>());
        // The gateway's decoder opens what it should.
        let mut d = wireseal::meshcore::Decoder::new();
        d.add_identity(LocalIdentity::from_hex(&mc.key_hex).unwrap());
        for p in &mc.packets {
            let _ = d.decode(0, p).unwrap();
        }
    }

    /// `WIRESEAL_BIN=target/release/wireseal cargo test --release -p
    /// wireseal-bench --lib meshtastic::gateway::mixed -- --ignored
    /// --nocapture` prints the mixed feed's rows (`WIRESEAL_BENCH_FULL=1`:
    /// the full run).
    #[test]
    #[ignore = "a benchmark"]
    fn mixed_rows() {
        let ctx = Ctx {
            full: std::env::var_os("WIRESEAL_BENCH_FULL").is_some(),
        };
        for r in rows(&ctx) {
            println!("{r:?}");
        }
    }
}
