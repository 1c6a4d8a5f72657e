//! Decoding many envelopes across cores.
//!
//! The stateless step (envelope parsing, channel trial decryption, and the
//! signature check against the key pinned when the batch began) runs in
//! parallel on the caller's [`Batch`]; the stateful step (the policy, the
//! node table, the replay windows, the cache's order) then runs once per
//! envelope in input order. A signature checked ahead counts only when the
//! ordered step picks the key it was checked with; otherwise it is checked
//! again there. PKC direct messages from senders whose key is cached are
//! opened in the parallel step with a read-only look at the cache and
//! settled in order: the cache hit is counted and the replay window
//! advanced there, and the plaintext is kept only if the key the ordered
//! step picks is the one it was opened with. Each result is therefore
//! exactly what [`Decoder::decode`] returns for that envelope after the ones
//! before it, and the decoder's state ends up the same.

#[cfg(feature = "std")]
use super::nodes::NodeTable;
#[cfg(feature = "std")]
use super::{parse, Decoded, Decoder, Parsed};
#[cfg(feature = "std")]
use crate::batch::Batch;
use crate::meshtastic::envelope::Data;
use crate::meshtastic::pkc_ahead::{FreshKeys, KeyFrom};
#[cfg(feature = "std")]
use crate::meshtastic::{envelope, MAX_PAYLOAD_LEN};
use crate::meshtastic::{Error, PkcEngine, PkcPacket};
#[allow(unused_imports)]
use crate::prelude::*;
use zeroize::Zeroize;

/// A PKC payload opened in the parallel step.
pub(super) struct Ahead {
    /// The sender key it was opened with.
    key: [u8; 32],
    /// Where that key sits in the engine's cache.
    slot: usize,
    /// The tag check's failure, or the plaintext's `Data` (or why it is not
    /// a `Data`).
    opened: Result<Result<Data, Error>, Error>,
}

impl core::fmt::Debug for Ahead {
    /// Leaves the plaintext out.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ahead")
            .field("slot", &self.slot)
            .field("opened", &self.opened.is_ok())
            .finish_non_exhaustive()
    }
}

impl Ahead {
    /// What [`Decoder::decode`] would have made of the payload with
    /// `packet`'s key, or `None` when that is not the key it was opened with
    /// or the key left the cache since (open it again then).
    pub(super) fn settle(
        self,
        engine: &mut PkcEngine,
        packet: PkcPacket<'_>,
    ) -> Option<Result<Data, Error>> {
        if *packet.peer_public != self.key {
            return None;
        }
        // Its slot, looked up at the same time as every other packet's.
        let now = 0;
        let slot = KeyFrom::slot(self.slot);
        if !engine.book_ahead(now, slot, packet.peer_public, &mut FreshKeys::default()) {
            return None;
        }
        let settled = match &self.opened {
            Ok(_) => engine.accept_replay(packet.from, packet.id),
            Err(e) => Err(*e),
        };
        Some(match (settled, self.opened) {
            (Ok(()), Ok(data)) => data,
            (Err(e), Ok(Ok(mut unreleased))) => {
                unreleased.payload.zeroize();
                Err(e)
            }
            (Err(e), _) | (Ok(()), Err(e)) => Err(e),
        })
    }
}

/// Opens a parsed PKC payload with the key the node table (as the batch
/// found it) or the packet names, if the engine has that key cached.
#[cfg(feature = "std")]
fn open_ahead(engines: &[PkcEngine], nodes: &NodeTable, now: u64, parsed: &mut Parsed) {
    let Some((engine, ciphertext, offered)) = &parsed.pkc else {
        return;
    };
    let Some(engine) = engines.get(*engine) else {
        return;
    };
    let key = match (nodes.get(parsed.head.from), offered) {
        (Some(k), _) => k.public_key,
        (None, Some(o)) => *o,
        (None, None) => return,
    };
    let packet = PkcPacket {
        peer_public: &key,
        from: parsed.head.from,
        id: parsed.head.id,
    };
    let mut buf = [0u8; MAX_PAYLOAD_LEN];
    if let Some((slot, opened)) = engine.open_ahead(now, packet, ciphertext, &mut buf) {
        let opened = opened.map(|n| envelope::decode_data(&buf[..n]));
        parsed.ahead = Some(Box::new(Ahead { key, slot, opened }));
    }
    buf.zeroize();
}

#[cfg(feature = "std")]
impl Decoder {
    /// Decodes every envelope, in parallel on `batch` where the work allows;
    /// results in input order, equal to calling [`Decoder::decode`] on each
    /// in turn with the same `now` (milliseconds).
    pub fn decode_batch(
        &mut self,
        now: u64,
        batch: &Batch,
        envelopes: &[&[u8]],
    ) -> Vec<Result<Decoded, Error>> {
        let (channels, nodes, engines) = (&self.channels, &self.nodes, &self.engines[..]);
        let verified = &self.verified;
        // Boxed: the calling thread gathers the chunks' results, so each
        // result it moves is a pointer, not a whole packet.
        let mut parsed: Vec<Result<Box<Parsed>, Error>> = batch.map(envelopes, |b| {
            let mut p = Box::new(parse(channels, nodes, verified, envelope::decode(b)?));
            open_ahead(engines, nodes, now, &mut p);
            Ok(p)
        });
        for p in parsed.iter_mut().flatten() {
            self.settle(now, p);
        }
        parsed.into_iter().map(|r| r.map(|p| p.head)).collect()
    }
}
