//! Meshtastic's batch rows: PKC batch open, and the gateway's
//! `decode_batch` on its feed with its floor (independent decoders).

use super::{pair, rows, SIZES};
use crate::meshtastic::gateway::feed::feed;
use crate::meshtastic::gateway::Feed;
use crate::{Better, Ctx, Row};
use std::sync::{Mutex, MutexGuard};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::Decoder;
use wireseal::meshtastic::{open_batch_len, PkcEngine, PkcPacket};

/// Meshtastic PKC batch open: packets from 64 senders whose keys are cached
/// (a gateway's steady state), 200-byte payloads.
pub fn pkc_open(ctx: &Ctx) -> Vec<Row> {
    let receiver = StaticSecret::generate();
    let rp = *receiver.public_key();
    let senders: Vec<(StaticSecret, PkcEngine)> = (0..64)
        .map(|_| {
            let s = StaticSecret::generate();
            let e = PkcEngine::new(StaticSecret::from_bytes(s.expose()).expect("key"))
                .expect("a clamped key");
            (s, e)
        })
        .collect();
    let mut feed: Vec<([u8; 32], u32, Vec<u8>)> = Vec::new();
    let pt = [0x5au8; 200];
    let mut senders = senders;
    for i in 0..SIZES[SIZES.len() - 1] {
        let (s, e) = &mut senders[i % 64];
        let to = PkcPacket {
            peer_public: &rp,
            from: (i % 64) as u32,
            id: i as u32,
        };
        let p = e.seal_to_vec(0, to, &pt).expect("seal");
        feed.push((*s.public_key(), (i % 64) as u32, p));
    }
    let make = |n: usize| {
        let mut engine = PkcEngine::with_capacity(
            StaticSecret::from_bytes(receiver.expose()).expect("key"),
            64,
        )
        .expect("a clamped key");
        let packets = crate::meshtastic::sealed_packets(&feed[..n]);
        let mut out = vec![0u8; open_batch_len(&packets)];
        // Fill the cache: the rows measure cached opens.
        let first = engine
            .open_batch_into(0, &Batch::with_threads(1), &packets, &mut out)
            .expect("buffer");
        assert!(first.iter().all(Result::is_ok), "a bench packet failed");
        (engine, packets, out)
    };
    rows(
        ctx,
        "meshtastic",
        "PKC open 200 B, 64 cached senders",
        "pkt",
        "meshtastic-batch",
        make,
        |b, (engine, packets, out)| {
            let r = engine.open_batch_into(0, b, packets, out).expect("buffer");
            std::hint::black_box(r);
        },
    )
}

/// The gateway's `Decoder::decode_batch` on its 70/20/10 mix of channel,
/// PKC and signed envelopes, and the floor beside it at the sizes the
/// batch is held to ([`FLOOR_SIZES`]).
pub fn gateway(ctx: &Ctx) -> Vec<Row> {
    const API: &str = "gw decode_batch, 70/20/10 mix";
    let feed = feed(SIZES[SIZES.len() - 1], 17);
    let envelopes = feed.all();
    let mut out = rows(
        ctx,
        "meshtastic",
        API,
        "pkt",
        "gateway-batch",
        |n| (feed.decoder(), &envelopes[..n]),
        |b, (decoder, envs)| {
            std::hint::black_box(decoder.decode_batch(0, b, envs));
        },
    );
    out.extend(FLOOR_SIZES.map(|n| independent_floor(ctx, API, &feed, &envelopes[..n])));
    out
}

/// The batch sizes that get a floor row.
const FLOOR_SIZES: [usize; 2] = [4096, 16384];

/// The floor beside `api`: the same envelopes decoded one at a time by
/// independent decoders, one per thread of the all-cores batch, each with
/// its own copy of the envelopes (nothing shared, no ordered pass), every
/// result handed to the calling thread and dropped there, as the caller of
/// `decode_batch` gets and drops its results: what this decoding work, so
/// delivered, gains from the cores on this machine at that moment.
fn independent_floor(ctx: &Ctx, api: &str, feed: &Feed, envelopes: &[&[u8]]) -> Row {
    let n = envelopes.len();
    let threads = Batch::all_cores().threads();
    let part = || {
        (
            feed.decoder(),
            envelopes.iter().map(|e| e.to_vec()).collect(),
        )
    };
    let mut a: Vec<(Decoder, Vec<Vec<u8>>)> = vec![part()];
    let mut b: Vec<(Decoder, Vec<Vec<u8>>)> = (0..threads).map(|_| part()).collect();
    let handed = Mutex::new(Vec::new());
    let decode = |(decoder, envs): &mut (Decoder, Vec<Vec<u8>>)| {
        let results: Vec<_> = envs.iter().map(|e| decoder.decode(0, e)).collect();
        lock(&handed).push(results);
    };
    // The calling thread takes the first decoder and the global pool (the
    // all-cores batch's) one each of the others, as a batch fans out; the
    // results are handed to the calling thread, which drops them.
    let decode_all = |parts: &mut Vec<(Decoder, Vec<Vec<u8>>)>| {
        let Some((first, rest)) = parts.split_first_mut() else {
            return;
        };
        rayon::in_place_scope(|s| {
            for p in rest {
                s.spawn(|_| decode(p));
            }
            decode(first);
        });
        std::hint::black_box(std::mem::take(&mut *lock(&handed)));
    };
    let t = pair(ctx, || decode_all(&mut a), || decode_all(&mut b));
    // The all-cores call decodes `threads` times as many envelopes.
    let speedup = t.ratio * threads as f64;
    Row::new(
        "meshtastic",
        format!(
            "floor beside {api}: {n} envelopes decoded one at a time by each of \
             {threads} independent decoders (own copies, nothing shared), results \
             dropped by the caller, all cores vs 1 core"
        ),
        "pkt/s",
        Better::Higher,
        n as f64 / t.a * speedup,
        "same calls, 1 core",
        Some(n as f64 / t.a),
    )
}

/// The lock's guard, poisoned or not (a bench thread that panicked has
/// already failed the run).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
