//! Meshtastic section: PKC open with and without the shared-secret cache,
//! and batch open on one core against all cores; the report's curves and
//! the DM conversation ([`curves`]); the MQTT gateway ([`gateway`]).
//!
//! The uncached baseline is the firmware's way, built here from the raw
//! primitives (`wireseal::hazmat`): a fresh X25519, SHA-256 and AES key
//! expansion for every packet, and one OS CSPRNG call per extraNonce. This
//! module holds it for every row that measures against it.

pub(crate) mod curves;
pub(crate) mod gateway;

use crate::{Better, Ctx, Row};
use wireseal::batch::Batch;
use wireseal::entropy::random_array;
use wireseal::hazmat::aes_ccm::{Aes256Ccm8, TAG_LEN};
use wireseal::hazmat::sha::sha256;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::{nonce, sealed_len, OVERHEAD};
use wireseal::meshtastic::{open_batch_len, PkcEngine, PkcPacket, SealedPkc};

const SECTION: &str = "meshtastic";
const SIZE: usize = 200;

/// The firmware's per-packet key: SHA-256 of the raw X25519 output.
fn derive_uncached(own: &StaticSecret, peer: &[u8; 32]) -> Aes256Ccm8 {
    let shared = own.diffie_hellman(peer).expect("bench keys are valid");
    Aes256Ccm8::new(&sha256(shared.expose()))
}

/// Seals with no cache (X25519, SHA-256, key expansion and a getrandom per
/// packet) into `out`, exactly `sealed_len(plaintext.len())` bytes.
pub fn seal_uncached_into(
    own: &StaticSecret,
    peer: &[u8; 32],
    from: u32,
    id: u32,
    plaintext: &[u8],
    out: &mut [u8],
) -> usize {
    let extra = random_array::<4>();
    let (body, rest) = out.split_at_mut(plaintext.len());
    body.copy_from_slice(plaintext);
    let tag = derive_uncached(own, peer)
        .seal_in_place(&nonce(from, id, extra), &[], body)
        .expect("plaintext fits a LoRa frame");
    rest[..TAG_LEN].copy_from_slice(&tag);
    rest[TAG_LEN..OVERHEAD].copy_from_slice(&extra);
    plaintext.len() + OVERHEAD
}

/// Opens with no cache (X25519, SHA-256 and key expansion per packet).
pub fn open_uncached(
    own: &StaticSecret,
    peer: &[u8; 32],
    from: u32,
    id: u32,
    payload: &[u8],
) -> Option<Vec<u8>> {
    let (ct, rest) = payload.split_at(payload.len().checked_sub(OVERHEAD)?);
    let tag: [u8; TAG_LEN] = rest[..TAG_LEN].try_into().ok()?;
    let extra: [u8; 4] = rest[TAG_LEN..].try_into().ok()?;
    let mut out = ct.to_vec();
    derive_uncached(own, peer)
        .open_in_place(&nonce(from, id, extra), &[], &mut out, &tag)
        .ok()?;
    Some(out)
}

/// A feed of (sender key, from, payload) as the batch API takes it, packet
/// `i` with id `i`.
pub fn sealed_packets(feed: &[([u8; 32], u32, Vec<u8>)]) -> Vec<SealedPkc<'_>> {
    feed.iter()
        .enumerate()
        .map(|(i, (k, from, p))| SealedPkc {
            packet: PkcPacket {
                peer_public: k,
                from: *from,
                id: i as u32,
            },
            payload: p,
        })
        .collect()
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let receiver = StaticSecret::generate();
    let mut rows = open_seal_rows(ctx, &receiver);
    rows.extend(batch_rows(ctx, &receiver));
    rows
}

/// A PKC engine on a copy of `key`, with the default cache.
fn engine(key: &StaticSecret) -> PkcEngine {
    PkcEngine::new(StaticSecret::from_bytes(key.expose()).expect("key")).expect("a clamped key")
}

/// One packet opened and one sealed, with the cache against the
/// firmware's way.
fn open_seal_rows(ctx: &Ctx, receiver: &StaticSecret) -> Vec<Row> {
    let rp = *receiver.public_key();
    let sender = StaticSecret::generate();
    let sp = *sender.public_key();
    let mut tx = engine(&sender);
    let pt = vec![0x5au8; SIZE];
    let to_rx = |id| PkcPacket {
        peer_public: &rp,
        from: 0x929,
        id,
    };
    let payload = tx.seal_to_vec(0, to_rx(1), &pt).expect("seal");

    // Uncached: a fresh X25519 + SHA-256 + key expansion per packet (the
    // firmware's way); cached: the peer's expanded key comes from the
    // SharedSecretCache. Each pair is sampled alternately.
    let mut rx = engine(receiver);
    let mut out = vec![0u8; SIZE];
    let (cached, uncached) = ctx.time_pair_per_op(
        || {
            let from_tx = PkcPacket {
                peer_public: &sp,
                from: 0x929,
                id: 1,
            };
            rx.open_into(0, from_tx, &payload, &mut out).expect("open")
        },
        || open_uncached(receiver, &sp, 0x929, 1, &payload).expect("open"),
    );
    let mut sealed = vec![0u8; sealed_len(SIZE)];
    let mut sealed2 = sealed.clone();
    let (seal_cached, seal_uncached) = ctx.time_pair_per_op(
        || tx.seal_into(0, to_rx(2), &pt, &mut sealed).expect("seal"),
        || seal_uncached_into(&sender, &rp, 0x929, 2, &pt, &mut sealed2),
    );
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
}

/// A gateway's feed, many packets from 64 senders, keys cached: batch open
/// on one thread against two, and against every core where there are more.
fn batch_rows(ctx: &Ctx, receiver: &StaticSecret) -> Vec<Row> {
    let rp = *receiver.public_key();
    let pt = vec![0x5au8; SIZE];
    let n_packets = if ctx.full { 65_536 } else { 8_192 };
    let senders: Vec<StaticSecret> = (0..64).map(|_| StaticSecret::generate()).collect();
    let feed: Vec<([u8; 32], u32, Vec<u8>)> = (0..n_packets)
        .map(|i| {
            let s = &senders[i % senders.len()];
            let to = PkcPacket {
                peer_public: &rp,
                from: i as u32 % 64,
                id: i as u32,
            };
            let p = engine(s).seal_to_vec(0, to, &pt).expect("seal");
            (*s.public_key(), i as u32 % 64, p)
        })
        .collect();
    let packets = sealed_packets(&feed);
    let gateway = || {
        let key = StaticSecret::from_bytes(receiver.expose()).expect("key");
        PkcEngine::with_capacity(key, 64).expect("a clamped key")
    };
    let mut gw = gateway();
    // The target is stated for two cores: one thread against two, and
    // against every core where there are more.
    let one = Batch::with_threads(1);
    let two = Batch::with_threads(2);
    let all = Batch::all_cores();
    let mut out = vec![0u8; open_batch_len(&packets)];
    let first = gw
        .open_batch_into(0, &one, &packets, &mut out)
        .expect("buffer");
    assert!(first.iter().all(|r| r.is_ok()));
    let samples = if ctx.full { 15 } else { 7 };
    let mut out2 = out.clone();
    let mut gw2 = gateway();
    let mut pair = |batch: &Batch| {
        ctx.time_pair_job(
            samples,
            || gw.open_batch_into(0, &one, &packets, &mut out),
            || gw2.open_batch_into(0, batch, &packets, &mut out2),
        )
    };
    let mut scaling = vec![(2, pair(&two))];
    if all.threads() > 2 {
        scaling.push((all.threads(), pair(&all)));
    }
    let rate = |t: f64| n_packets as f64 / t;
    scaling
        .into_iter()
        .map(|(threads, (t_one, t_many))| {
            Row::new(
                SECTION,
                format!("batch open 200 B x {n_packets}, {threads} threads"),
                "pkt/s",
                Better::Higher,
                rate(t_many),
                "same batch on 1 core",
                Some(rate(t_one)),
            )
        })
        .collect()
}
