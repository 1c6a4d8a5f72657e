//! Meshtastic's batch rows: PKC batch open, and the gateway's
//! `decode_batch` on its feed.

use super::{rows, SIZES};
use crate::meshtastic::gateway::feed::feed;
use crate::{Ctx, Row};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
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
/// PKC and signed envelopes.
pub fn gateway(ctx: &Ctx) -> Vec<Row> {
    let feed = feed(SIZES[SIZES.len() - 1], 17);
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
