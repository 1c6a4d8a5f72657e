//! The meshtastic section's curves for the report, and the DM conversation
//! workload.
//!
//! - Cost per PKC open against the number of distinct senders, for several
//!   cache capacities: the senders talk with a Zipf-like repeat rate (the
//!   k-th most active sender sends about 1/k of the most active one's
//!   packets), so a cache that holds the active senders keeps most packets
//!   on the cached path; against the firmware's way (an X25519 per packet).
//! - Cached against uncached open by payload size.
//! - The cache's heap bytes by capacity.

use super::open_uncached;
use crate::{Better, Ctx, Row};
use rand::{Rng, SeedableRng};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::MAX_PLAINTEXT_LEN;
use wireseal::meshtastic::{PkcEngine, PkcPacket};

const S: &str = "meshtastic";
const SENDERS: &str = "meshtastic-senders";
const PAYLOAD: &str = "meshtastic-payload";
const RAM: &str = "meshtastic-ram";
const UNCACHED: &str = "uncached (ECDH per packet)";
const SIZE: usize = 200;
/// Cache capacities of the senders curve.
const CAPACITIES: [usize; 3] = [16, 64, 256];

/// One received packet: the sender's public key, its node number, the
/// packet id and the sealed payload.
struct Packet {
    key: [u8; 32],
    from: u32,
    id: u32,
    payload: Vec<u8>,
}

/// `count` packets to `rx` from `senders` distinct nodes, senders drawn with
/// weight 1/rank (a fixed seed: every run sees the same traffic).
fn traffic(rx: &[u8; 32], senders: usize, count: usize) -> Vec<Packet> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(senders as u64);
    let mut nodes: Vec<(PkcEngine, [u8; 32])> = (0..senders)
        .map(|_| {
            let k = StaticSecret::generate();
            let p = *k.public_key();
            (PkcEngine::with_capacity(k, 1).expect("a clamped key"), p)
        })
        .collect();
    let cumulative: Vec<f64> = (1..=senders)
        .scan(0.0, |acc, r| {
            *acc += 1.0 / r as f64;
            Some(*acc)
        })
        .collect();
    let total = *cumulative.last().expect("at least one sender");
    let pt = [0x5au8; SIZE];
    (0..count)
        .map(|i| {
            let u = rng.gen::<f64>() * total;
            let s = cumulative.partition_point(|&c| c < u).min(senders - 1);
            let (engine, key) = &mut nodes[s];
            let (from, id) = (0x1000 + s as u32, i as u32);
            let to = PkcPacket {
                peer_public: rx,
                from,
                id,
            };
            let payload = engine.seal_to_vec(0, to, &pt).expect("seal");
            Packet {
                key: *key,
                from,
                id,
                payload,
            }
        })
        .collect()
}

/// Opens every packet through `engine`; the hits of the pass.
fn open_all(engine: &mut PkcEngine, packets: &[Packet], out: &mut [u8]) -> u64 {
    let before = engine.cache().stats().hits;
    for p in packets {
        let from = PkcPacket {
            peer_public: &p.key,
            from: p.from,
            id: p.id,
        };
        engine.open_into(0, from, &p.payload, out).expect("open");
    }
    engine.cache().stats().hits - before
}

fn open_all_uncached(own: &StaticSecret, packets: &[Packet]) {
    for p in packets {
        open_uncached(own, &p.key, p.from, p.id, &p.payload).expect("open");
    }
}

fn engine(own: &StaticSecret, capacity: usize) -> PkcEngine {
    let k = StaticSecret::from_bytes(own.expose()).expect("key");
    PkcEngine::with_capacity(k, capacity).expect("a clamped key")
}

/// Packets per traffic of `senders` senders: enough that the many-sender
/// traffic reaches most senders.
fn count_for(ctx: &Ctx, senders: usize) -> usize {
    if ctx.full {
        (8 * senders).clamp(4096, 16_384)
    } else {
        (4 * senders).clamp(512, 4096)
    }
}

/// Microseconds per packet from seconds per `count` packets.
fn per_packet(t: f64, count: usize) -> f64 {
    t / count as f64 * 1e6
}

/// The rows.
pub fn rows(ctx: &Ctx) -> Vec<Row> {
    let own = StaticSecret::generate();
    let mut rows = senders_rows(ctx, &own);
    rows.extend(conversation_rows(ctx, &own));
    rows.extend(payload_rows(ctx, &own));
    rows.extend(ram_rows(&own));
    rows
}

/// Cost per packet by distinct senders, for each cache capacity, against
/// the firmware's way.
fn senders_rows(ctx: &Ctx, own: &StaticSecret) -> Vec<Row> {
    let rx = *own.public_key();
    let sender_counts: &[usize] = if ctx.full {
        &[2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    } else {
        &[4, 16, 64, 256, 1024]
    };
    let samples = ctx.samples().min(5);
    let mut out = vec![0u8; SIZE];
    let mut rows = Vec::new();
    for &n in sender_counts {
        let count = count_for(ctx, n);
        let packets = traffic(&rx, n, count);
        for cap in CAPACITIES {
            let mut e = engine(own, cap);
            let (t, t_unc) = ctx.time_pair_job(
                samples,
                || open_all(&mut e, &packets, &mut out),
                || open_all_uncached(own, &packets),
            );
            let hits = open_all(&mut e, &packets, &mut out);
            rows.push(
                Row::new(
                    S,
                    format!(
                        "DM open 200 B, {n} senders, cache {cap}: {:.0}% hits",
                        100.0 * hits as f64 / count as f64
                    ),
                    "µs/pkt",
                    Better::Lower,
                    per_packet(t, count),
                    UNCACHED,
                    Some(per_packet(t_unc, count)),
                )
                .at(SENDERS, format!("cache of {cap} peers"), n as f64),
            );
        }
    }
    rows
}

/// The conversation: 12 senders (the direct-message peers of a busy node)
/// through the default cache, against the all-hits floor (every packet
/// from one cached sender) and against the firmware's way, each pair in the
/// same run.
fn conversation_rows(ctx: &Ctx, own: &StaticSecret) -> Vec<Row> {
    let rx = *own.public_key();
    let count = count_for(ctx, 0);
    let samples = ctx.samples().min(5);
    let mut out = vec![0u8; SIZE];
    let senders = 12;
    let packets = traffic(&rx, senders, count);
    let one = traffic(&rx, 1, count);
    let mut e = PkcEngine::new(StaticSecret::from_bytes(own.expose()).expect("key"))
        .expect("a clamped key");
    let cap = e.cache().capacity();
    let mut e1 = engine(own, 1);
    let mut out1 = out.clone();
    let (t, floor) = ctx.time_pair_job(
        samples,
        || open_all(&mut e, &packets, &mut out),
        || open_all(&mut e1, &one, &mut out1),
    );
    let (t2, unc) = ctx.time_pair_job(
        samples,
        || open_all(&mut e, &packets, &mut out),
        || open_all_uncached(own, &packets),
    );
    let per = |t: f64| per_packet(t, count);
    let name = format!("DM conversation, {senders} senders (Zipf), default cache ({cap} peers)");
    vec![
        Row::new(
            S,
            format!("{name} vs floor"),
            "µs/pkt",
            Better::Lower,
            per(t),
            "all-hits floor (one cached sender)",
            Some(per(floor)),
        )
        .seed("the floor is the lower bound: ratio 1.00 at best"),
        Row::new(
            S,
            name,
            "µs/pkt",
            Better::Lower,
            per(t2),
            UNCACHED,
            Some(per(unc)),
        ),
    ]
}

/// Cached against uncached, by payload size.
fn payload_rows(ctx: &Ctx, own: &StaticSecret) -> Vec<Row> {
    let rx = *own.public_key();
    let sender = StaticSecret::generate();
    let sp = *sender.public_key();
    let mut tx = engine(&sender, 1);
    let mut rxe = engine(own, 4);
    let mut rows = Vec::new();
    for size in [16, 64, 128, SIZE, MAX_PLAINTEXT_LEN] {
        let pt = vec![0x33u8; size];
        let to = PkcPacket {
            peer_public: &rx,
            from: 0x929,
            id: 7,
        };
        let payload = tx.seal_to_vec(0, to, &pt).expect("seal");
        let mut out = vec![0u8; size];
        let from = || PkcPacket {
            peer_public: &sp,
            from: 0x929,
            id: 7,
        };
        let (c, u) = ctx.time_pair_per_op(
            || rxe.open_into(0, from(), &payload, &mut out).expect("open"),
            || open_uncached(own, &sp, 0x929, 7, &payload).expect("open"),
        );
        rows.push(
            Row::new(
                S,
                format!("PKC open {size} B, cached key, by payload size"),
                "µs/op",
                Better::Lower,
                c * 1e6,
                UNCACHED,
                Some(u * 1e6),
            )
            .at(PAYLOAD, "cached (shared-secret cache)", size as f64),
        );
    }
    rows
}

/// RAM by capacity (no baseline: the firmware PR's figure is the plot's
/// reference point).
fn ram_rows(own: &StaticSecret) -> Vec<Row> {
    [4, 16, 64, 256, 1024]
        .into_iter()
        .map(|cap| {
            let e = engine(own, cap);
            Row::new(
                S,
                format!("cache heap bytes, {cap} peers"),
                "bytes",
                Better::Lower,
                e.cache().heap_bytes() as f64,
                "-",
                None,
            )
            .at(RAM, "wireseal SharedSecretCache", cap as f64)
        })
        .collect()
}
