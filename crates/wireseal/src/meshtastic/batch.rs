//! Batch open: many PKC packets from many senders, spread over all cores.
//!
//! A gateway decoding a busy MQTT feed sees many packets from a few hundred
//! senders. The batch first finds each distinct sender's key (cache hits, and
//! the misses derived in parallel), then opens every packet in parallel with
//! read-only keys, then applies the replay window in input order, so results
//! are exactly those of opening the packets one at a time.

use super::pkc::{open_with, PkcEngine, PkcKey};
use super::Error;
use crate::batch::Batch;
use std::collections::HashMap;

/// One packet to open.
#[derive(Debug, Clone, Copy)]
pub struct PkcPacket<'a> {
    /// The sender's public key.
    pub peer_public: &'a [u8; 32],
    /// The sender's node number.
    pub from: u32,
    /// The packet id.
    pub id: u32,
    /// `ciphertext | tag | extraNonce`.
    pub payload: &'a [u8],
}

impl PkcEngine {
    /// Opens every packet, in parallel on `batch`, results in input order
    /// and identical to calling [`PkcEngine::open`] on each in turn.
    pub fn open_batch(
        &mut self,
        packets: &[PkcPacket<'_>],
        now: u64,
        batch: &Batch,
    ) -> Vec<Result<Vec<u8>, Error>> {
        // 1. Distinct senders, and which of them the cache already holds.
        let mut slot_of: HashMap<[u8; 32], usize> = HashMap::new();
        let mut distinct: Vec<[u8; 32]> = Vec::new();
        for p in packets {
            slot_of.entry(*p.peer_public).or_insert_with(|| {
                distinct.push(*p.peer_public);
                distinct.len() - 1
            });
        }
        let cached: Vec<bool> = distinct
            .iter()
            .map(|k| self.cache.get(k, now).is_some())
            .collect();
        // 2. Derive the missing keys in parallel.
        let own = self.own();
        let missing: Vec<usize> = (0..distinct.len()).filter(|&i| !cached[i]).collect();
        let derived: Vec<Result<PkcKey, Error>> =
            batch.map(&missing, |&i| PkcKey::derive(own, &distinct[i]));
        let mut fresh: Vec<Option<&Result<PkcKey, Error>>> = vec![None; distinct.len()];
        for (&i, d) in missing.iter().zip(&derived) {
            fresh[i] = Some(d);
        }
        // 3. Open in parallel with read-only keys.
        let cache = &self.cache;
        let mut results: Vec<Result<Vec<u8>, Error>> = batch.map(packets, |p| {
            let i = slot_of[p.peer_public];
            let key = match fresh[i] {
                Some(Ok(k)) => k,
                Some(Err(e)) => return Err(*e),
                None => cache.peek(p.peer_public, now).ok_or(Error::WeakPeerKey)?,
            };
            open_with(key, p.from, p.id, p.payload)
        });
        // 4. Keep the fresh keys, and apply the replay window in input order.
        for (&i, d) in missing.iter().zip(derived) {
            if let Ok(k) = d {
                self.cache.insert(&distinct[i], k, now);
            }
        }
        if let Some(w) = &mut self.replay {
            for (p, r) in packets.iter().zip(results.iter_mut()) {
                if r.is_ok() && !w.accept(p.from, p.id) {
                    *r = Err(Error::Replay {
                        from: p.from,
                        id: p.id,
                    });
                }
            }
        }
        results
    }
}
