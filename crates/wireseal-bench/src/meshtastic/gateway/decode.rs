//! The gateway's decoder in process: the feed's 70/20/10 mix through
//! `decode_batch` on one core against all cores, and PKC direct messages
//! from 50 cached senders against the firmware's way (an ECDH per packet).

use super::{Feed, Kind, SECTION};
use crate::{Better, Ctx, Row};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::envelope::{self, PayloadVariant};
use wireseal::meshtastic::Decoder;

/// Packets per second from seconds per `n` packets.
fn rate(n: usize, secs: f64) -> f64 {
    n as f64 / secs
}

/// The rows: the mix, then the PKC direct messages (on the mix's
/// one-thread decoder, warm).
pub(super) fn rows(ctx: &Ctx, feed: &Feed) -> Vec<Row> {
    let (mut d1, mut dn) = (feed.decoder(), feed.decoder());
    vec![
        mix_row(ctx, feed, &mut d1, &mut dn),
        pkc_row(ctx, feed, &mut d1),
    ]
}

/// The mix, `decode_batch` on one thread against all cores, alternately.
fn mix_row(ctx: &Ctx, feed: &Feed, d1: &mut Decoder, dn: &mut Decoder) -> Row {
    let n = feed.envelopes.len();
    let all = Batch::all_cores();
    let one = Batch::with_threads(1);
    let envs = feed.all();
    let (t1, tn) = ctx.time_pair_job(
        ctx.samples(),
        || d1.decode_batch(0, &one, &envs),
        || dn.decode_batch(0, &all, &envs),
    );
    Row::new(
        SECTION,
        format!("gw mix 70/20/10 decode x {n}, {} threads", all.threads()),
        "pkt/s",
        Better::Higher,
        rate(n, tn),
        "same batch on 1 core",
        Some(rate(n, t1)),
    )
}

/// PKC direct messages from 50 cached senders, one core, against the
/// firmware's way on the same envelopes: parse, then X25519 + SHA-256 +
/// AES-256-CCM per packet (no cache, no JSON: a lower bound on its cost).
fn pkc_row(ctx: &Ctx, feed: &Feed, d1: &mut Decoder) -> Row {
    let pkc = feed.of(Kind::Pkc);
    let (mut i, mut j) = (0, 0);
    let (per_pkt, per_pkt_uncached) = ctx.time_pair_per_op(
        || {
            i = (i + 1) % pkc.len();
            d1.decode(0, pkc[i]).expect("envelope")
        },
        || {
            j = (j + 1) % pkc.len();
            open_uncached_envelope(&feed.our, pkc[j])
        },
    );
    Row::new(
        SECTION,
        "gw PKC DM envelopes, 50 cached senders, 1 core",
        "pkt/s",
        Better::Higher,
        1.0 / per_pkt,
        "uncached (ECDH per packet)",
        Some(1.0 / per_pkt_uncached),
    )
    .seed("target >= 500,000/s")
}

/// Opens a PKC envelope the firmware's way: every packet pays an ECDH.
fn open_uncached_envelope(our: &StaticSecret, bytes: &[u8]) -> Vec<u8> {
    let env = envelope::decode(bytes).expect("envelope");
    let p = env.packet.expect("packet");
    let Some(PayloadVariant::Encrypted(ct)) = &p.payload_variant else {
        panic!("bench feed: PKC packet without a payload")
    };
    let sender: [u8; 32] = p.public_key.as_slice().try_into().expect("key");
    crate::meshtastic::open_uncached(our, &sender, p.from, p.id, ct).expect("opens")
}
