//! Meshtastic section: PKC open with and without the shared-secret cache,
//! and batch open on one core against all cores.

use super::{Better, Ctx, Row};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::{open_uncached, seal_uncached_into, sealed_len};
use wireseal::meshtastic::{batch_output_len, PkcEngine, PkcPacket};

const SECTION: &str = "meshtastic";
const SIZE: usize = 200;

/// Runs the section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let receiver = StaticSecret::generate();
    let rp = *receiver.public_key();
    let sender = StaticSecret::generate();
    let sp = *sender.public_key();
    let mut tx = PkcEngine::new(StaticSecret::from_bytes(sender.expose()).expect("key"));
    let pt = vec![0x5au8; SIZE];
    let payload = tx.seal(&rp, 0x929, 1, &pt, None, 0).expect("seal");

    // Uncached: a fresh X25519 + SHA-256 + key expansion per packet (the
    // firmware's way); cached: the peer's expanded key comes from the
    // SharedSecretCache. Each pair is sampled alternately.
    let mut rx = PkcEngine::new(StaticSecret::from_bytes(receiver.expose()).expect("key"));
    let mut out = vec![0u8; SIZE];
    let (cached, uncached) = ctx.time_pair_per_op(
        || {
            rx.open_into(&sp, 0x929, 1, &payload, 0, &mut out)
                .expect("open")
        },
        || open_uncached(&receiver, &sp, 0x929, 1, &payload).expect("open"),
    );
    let mut sealed = vec![0u8; sealed_len(SIZE)];
    let mut sealed2 = sealed.clone();
    let (seal_cached, seal_uncached) = ctx.time_pair_per_op(
        || {
            tx.seal_into(&rp, 0x929, 2, &pt, None, 0, &mut sealed)
                .expect("seal")
        },
        || seal_uncached_into(&sender, &rp, 0x929, 2, &pt, None, &mut sealed2).expect("seal"),
    );

    // Batch: a gateway's feed, many packets from 64 senders, keys cached.
    let n_packets = if ctx.full { 65_536 } else { 8_192 };
    let senders: Vec<StaticSecret> = (0..64).map(|_| StaticSecret::generate()).collect();
    let feed: Vec<([u8; 32], u32, Vec<u8>)> = (0..n_packets)
        .map(|i| {
            let s = &senders[i % senders.len()];
            let mut e = PkcEngine::new(StaticSecret::from_bytes(s.expose()).expect("key"));
            let p = e
                .seal(&rp, i as u32 % 64, i as u32, &pt, None, 0)
                .expect("seal");
            (*s.public_key(), i as u32 % 64, p)
        })
        .collect();
    let packets: Vec<PkcPacket<'_>> = feed
        .iter()
        .enumerate()
        .map(|(i, (k, from, p))| PkcPacket {
            peer_public: k,
            from: *from,
            id: i as u32,
            payload: p,
        })
        .collect();
    let mut gw = PkcEngine::with_capacity(
        StaticSecret::from_bytes(receiver.expose()).expect("key"),
        64,
    );
    // The target is stated for two cores: one thread against two, and
    // against every core where there are more.
    let one = Batch::with_threads(1);
    let two = Batch::with_threads(2);
    let all = Batch::all_cores();
    let mut out = vec![0u8; batch_output_len(&packets)];
    let first = gw
        .open_batch_into(&packets, 0, &one, &mut out)
        .expect("buffer");
    assert!(first.iter().all(|r| r.is_ok()));
    let samples = if ctx.full { 15 } else { 7 };
    let mut out2 = out.clone();
    let mut gw2 = PkcEngine::with_capacity(
        StaticSecret::from_bytes(receiver.expose()).expect("key"),
        64,
    );
    let mut pair = |batch: &Batch| {
        ctx.time_pair_job(
            samples,
            || gw.open_batch_into(&packets, 0, &one, &mut out),
            || gw2.open_batch_into(&packets, 0, batch, &mut out2),
        )
    };
    let mut scaling = vec![(2, pair(&two))];
    if all.threads() > 2 {
        scaling.push((all.threads(), pair(&all)));
    }
    let rate = |t: f64| n_packets as f64 / t;

    vec![
        Row::new(
            SECTION,
            "PKC open 200 B, cached key",
            "µs/op",
            Better::Lower,
            cached * 1e6,
            "uncached (ECDH per packet)",
            Some(uncached * 1e6),
        )
        .seed("32x faster with cache (firmware PR, nRF52)"),
        Row::new(
            SECTION,
            "PKC seal 200 B, cached key (OS-random extraNonce)",
            "µs/op",
            Better::Lower,
            seal_cached * 1e6,
            "uncached (ECDH per packet)",
            Some(seal_uncached * 1e6),
        ),
    ]
    .into_iter()
    .chain(scaling.into_iter().map(|(threads, (t_one, t_many))| {
        Row::new(
            SECTION,
            format!("batch open 200 B x {n_packets}, {threads} threads"),
            "pkt/s",
            Better::Higher,
            rate(t_many),
            "same batch on 1 core",
            Some(rate(t_one)),
        )
    }))
    .collect()
}
