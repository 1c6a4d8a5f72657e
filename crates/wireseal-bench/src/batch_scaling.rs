//! "batch of N, all cores vs 1 core": every format's batch API at batch
//! sizes from 1 to 16,384, the same calls on a one-thread [`Batch`] and on
//! all cores, sampled alternately. A ratio below 1 would mean that spreading
//! a batch of that size over the cores costs more than it saves; the
//! library's batches measure that break-even themselves and stay on the
//! calling thread below it (`wireseal::batch`), so the ratio is about 1 for
//! small batches and grows toward the number of cores for large ones.
//!
//! Each format's rows are a plot of the report (`BATCH_PLOTS`): items per
//! second against the batch size, one core and all cores.

use super::{Better, Ctx, Row};
use std::time::{Duration, Instant};
use wireseal::batch::Batch;
use wireseal::keys::{PrivateKey, PublicKey, StaticSecret};
use wireseal::meshtastic::{open_batch_len, PkcEngine, PkcPacket};
use wireseal::peat::{seal_batch_len, MeshId, MeshSealer};
use wireseal::sphinx::{self, Hop, Padding, PeelItem, Route};

/// The batch sizes of every format's rows.
pub(crate) const SIZES: [usize; 8] = [1, 4, 16, 64, 256, 1024, 4096, 16384];

/// One call longer than this is sampled as whole jobs (three each), not
/// calibrated into many calls per sample.
const LONG_CALL: Duration = Duration::from_millis(20);

/// The rows of one batch API: `make(n)` builds the state of a batch of `n`
/// items (twice per size: one for each batch, so neither warms the other's
/// caches), `call` runs one batch call on it. `items` names what is counted
/// (`"pkt"`, `"docs"`, ...).
pub(crate) fn rows<S>(
    ctx: &Ctx,
    section: &str,
    api: &str,
    items: &str,
    plot: &'static str,
    mut make: impl FnMut(usize) -> S,
    call: impl Fn(&Batch, &mut S),
) -> Vec<Row> {
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let series = format!("all cores ({} threads)", all.threads());
    SIZES
        .iter()
        .map(|&n| {
            let (mut a, mut b) = (make(n), make(n));
            let (t_one, t_all) = pair(ctx, || call(&one, &mut a), || call(&all, &mut b));
            Row::new(
                section,
                format!("{api}: batch of {n}, all cores vs 1 core"),
                &format!("{items}/s"),
                Better::Higher,
                n as f64 / t_all,
                "same calls, 1 core",
                Some(n as f64 / t_one),
            )
            .at(plot, series.clone(), n as f64)
        })
        .collect()
}

/// Median seconds per call of `a` and of `b`, sampled alternately; one call
/// of each first (warm-up, and to choose how to sample).
fn pair(ctx: &Ctx, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let t = Instant::now();
    a();
    let long = t.elapsed() > LONG_CALL;
    b();
    if long {
        ctx.time_pair_job(3, a, b)
    } else {
        ctx.time_pair_per_op(a, b)
    }
}

/// Meshtastic PKC batch open: packets from 64 senders whose keys are cached
/// (a gateway's steady state), 200-byte payloads.
pub fn meshtastic(ctx: &Ctx) -> Vec<Row> {
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
/// PKC and signed envelopes.
pub fn gateway(ctx: &Ctx) -> Vec<Row> {
    let feed = crate::meshtastic::gateway::feed::feed(SIZES[SIZES.len() - 1], 17);
    let envelopes = feed.all();
    rows(
        ctx,
        "meshtastic",
        "gw decode_batch, 70/20/10 mix",
        "pkt",
        "gateway-batch",
        |n| (feed.decoder(), &envelopes[..n]),
        |b, (decoder, envs)| {
            std::hint::black_box(decoder.decode_batch(0, b, envs));
        },
    )
}

/// peat: `seal_batch_into` then `open_batch_ranges_in_place` over one
/// buffer, 633-byte documents.
pub fn peat(ctx: &Ctx) -> Vec<Row> {
    let mesh: MeshId = "BENCH".parse().expect("a valid mesh id");
    let sealer = MeshSealer::new(&mesh, &[0x42; 32]);
    let doc = vec![0x33u8; 633];
    rows(
        ctx,
        "peat",
        "633 B docs, seal + open",
        "docs",
        "peat-batch",
        |n| {
            let docs: Vec<&[u8]> = vec![doc.as_slice(); n];
            let buf = vec![0u8; seal_batch_len(&docs)];
            (docs, buf)
        },
        |b, (docs, buf)| {
            let ranges = sealer.seal_batch_into(b, docs, buf).expect("sized");
            let opened = sealer.key().open_batch_ranges_in_place(b, buf, &ranges);
            assert!(opened.iter().all(Result::is_ok), "a frame failed to open");
        },
    )
}

/// Sphinx `peel_batch`: 20-hop onions at their first hop.
pub fn sphinx(ctx: &Ctx) -> Vec<Row> {
    let keys: Vec<PrivateKey> = (0..20)
        .map(|i| PrivateKey::from_bytes(&[0x50 + i as u8; 32]).expect("valid key"))
        .collect();
    let pubs: Vec<PublicKey> = keys.iter().map(PrivateKey::public_key).collect();
    let payload = [0x07u8; 20];
    let ad = [0x42u8; 32];
    let hops: Vec<Hop> = pubs
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: &payload,
        })
        .collect();
    let onions: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            sphinx::build_to_vec(
                &PrivateKey::random(),
                &Route::new(&hops, &ad).with_padding(Padding::Random),
            )
            .expect("builds")
            .0
        })
        .collect();
    rows(
        ctx,
        "sphinx",
        "peel_batch, 20-hop onions",
        "onions",
        "sphinx-batch",
        |n| -> Vec<PeelItem<'_>> {
            (0..n)
                .map(|i| PeelItem {
                    onion: &onions[i % onions.len()],
                    associated_data: &ad,
                })
                .collect()
        },
        |b, items| {
            let r = sphinx::peel_batch(b, &keys[0], items);
            assert!(r.iter().all(Result::is_ok), "an onion failed to peel");
        },
    )
}
