//! Batch open: many PKC packets from many senders, spread over all cores.
//!
//! A gateway decoding a busy MQTT feed sees many packets from a bounded set
//! of senders. Packets whose sender's key is cached are opened in parallel
//! straight away (read-only cache access); the distinct senders that missed
//! have their keys derived in parallel, and their packets are opened next.
//! The cache's recency and counters, and the replay window, are then updated
//! in input order, so results are exactly those of opening the packets one
//! at a time, and the serial part of the work is a few cheap passes.

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

/// Result of the first, cache-only pass over one packet.
enum First {
    /// Served from cache slot `.0`.
    Hit(usize, Result<Vec<u8>, Error>),
    /// The sender's key is not cached.
    Miss,
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
        // 1. Cached senders: open in parallel, reading the cache only.
        let cache = &self.cache;
        let first: Vec<First> = batch.map(packets, |p| match cache.peek_slot(p.peer_public, now) {
            Some((slot, key)) => First::Hit(slot, open_with(key, p.from, p.id, p.payload)),
            None => First::Miss,
        });
        // 2. Distinct missing senders: derive their keys in parallel.
        let mut used = vec![false; self.cache.capacity()];
        let mut hits = 0u64;
        let mut missing: HashMap<[u8; 32], usize> = HashMap::new();
        let mut distinct: Vec<[u8; 32]> = Vec::new();
        let mut miss_idx: Vec<usize> = Vec::new();
        for (i, (p, f)) in packets.iter().zip(&first).enumerate() {
            match f {
                First::Hit(slot, _) => {
                    used[*slot] = true;
                    hits += 1;
                }
                First::Miss => {
                    miss_idx.push(i);
                    missing.entry(*p.peer_public).or_insert_with(|| {
                        distinct.push(*p.peer_public);
                        distinct.len() - 1
                    });
                }
            }
        }
        let own = self.own();
        let derived: Vec<Result<PkcKey, Error>> = batch.map(&distinct, |k| PkcKey::derive(own, k));
        // 3. Open the packets of those senders in parallel.
        let second: Vec<Result<Vec<u8>, Error>> = batch.map(&miss_idx, |&i| {
            let p = &packets[i];
            match &derived[missing[p.peer_public]] {
                Ok(k) => open_with(k, p.from, p.id, p.payload),
                Err(e) => Err(*e),
            }
        });
        // 4. Book-keeping in input order: cache recency and counters, fresh
        //    keys, replay window.
        self.cache.touch_slots(&used, hits);
        for (k, d) in distinct.iter().zip(derived) {
            if let Ok(key) = d {
                self.cache.insert(k, key, now);
            }
        }
        let mut second = second.into_iter();
        let mut results: Vec<Result<Vec<u8>, Error>> = first
            .into_iter()
            .map(|f| match f {
                First::Hit(_, r) => r,
                // `second` holds one result per miss, in input order.
                First::Miss => second.next().unwrap_or(Err(Error::Auth)),
            })
            .collect();
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
