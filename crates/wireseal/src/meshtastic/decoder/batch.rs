//! Decoding many envelopes across cores.
//!
//! The stateless steps (envelope parsing and channel trial decryption first,
//! signature verification last) run in parallel on the caller's [`Batch`];
//! the stateful step between them (PKC through the engine's cache, the node
//! table, the replay window) runs once per envelope in input order. Each
//! result is therefore exactly what [`Decoder::decode`] returns for that
//! envelope after the ones before it, and the decoder's state ends up the same.

use super::{finish, parse, Check, Decoded, Decoder, Parsed};
use crate::batch::Batch;
use crate::meshtastic::Error;

impl Decoder {
    /// Decodes every envelope, in parallel on `batch` where the work allows;
    /// results in input order, equal to calling [`Decoder::decode`] on each
    /// in turn with the same `now` (milliseconds).
    pub fn decode_batch(
        &mut self,
        now: u64,
        envelopes: &[&[u8]],
        batch: &Batch,
    ) -> Vec<Result<Decoded, Error>> {
        let channels = &self.channels;
        let parsed: Vec<Result<Parsed, Error>> = batch.map(envelopes, |b| parse(channels, b));
        let mut settled: Vec<Result<(Decoded, Check), Error>> = parsed
            .into_iter()
            .map(|p| p.map(|p| self.settle(now, p)))
            .collect();
        batch.for_each_mut(&mut settled, |r| {
            if let Ok((d, check)) = r {
                finish(d, *check);
                *check = Check::Settled;
            }
        });
        settled.into_iter().map(|r| r.map(|(d, _)| d)).collect()
    }
}
