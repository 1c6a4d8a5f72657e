//! Batch open: many PKC packets from many senders, spread over all cores.
//!
//! A gateway decoding a busy MQTT feed sees many packets from a bounded set
//! of senders. Packets whose sender's key is cached are opened in parallel
//! straight away (read-only cache access); the distinct senders that missed
//! have their keys derived in parallel, and their packets are opened next.
//! The cache's recency and counters, and the replay window, are then updated
//! in input order, so results are exactly those of opening the packets one
//! at a time, and the serial part of the work is a few cheap passes.
//!
//! [`PkcEngine::open_batch_into`] writes every plaintext into one caller
//! buffer (no allocation per packet); [`PkcEngine::open_batch`] is the
//! convenience that returns a vector per packet.

use super::pkc::{open_with, opened_len, PkcEngine, PkcKey};
use super::Error;
use crate::batch::Batch;
use core::ops::Range;
use std::collections::HashMap;
use zeroize::Zeroize;

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

/// Bytes of output [`PkcEngine::open_batch_into`] needs for `packets`.
pub fn batch_output_len(packets: &[PkcPacket<'_>]) -> usize {
    packets
        .iter()
        .map(|p| opened_len(p.payload.len()).unwrap_or(0))
        .sum()
}

/// One packet's work item: its output region and what happened so far.
struct Job<'a, 'o> {
    packet: &'a PkcPacket<'a>,
    out: &'o mut [u8],
    /// `None` until opened; the cache slot that served it, if any.
    result: Option<Result<(), Error>>,
    slot: Option<usize>,
}

impl PkcEngine {
    /// Opens every packet in parallel on `batch`, writing the plaintexts one
    /// after another into `out` (at least [`batch_output_len`] bytes).
    /// Returns, per packet in input order, the range of `out` holding its
    /// plaintext, or the error that opening it alone would have given.
    pub fn open_batch_into(
        &mut self,
        packets: &[PkcPacket<'_>],
        now: u64,
        batch: &Batch,
        out: &mut [u8],
    ) -> Result<Vec<Result<Range<usize>, Error>>, Error> {
        let need = batch_output_len(packets);
        if out.len() < need {
            return Err(Error::BufferTooSmall { required: need });
        }
        // Carve `out` into one region per packet.
        let mut ranges = Vec::with_capacity(packets.len());
        let mut jobs = Vec::with_capacity(packets.len());
        let mut rest = &mut out[..need];
        let mut at = 0;
        for p in packets {
            let len = opened_len(p.payload.len());
            let n = *len.as_ref().unwrap_or(&0);
            let (mine, tail) = rest.split_at_mut(n);
            rest = tail;
            ranges.push(at..at + n);
            at += n;
            jobs.push(Job {
                packet: p,
                out: mine,
                result: len.err().map(Err),
                slot: None,
            });
        }
        // 1. Cached senders: open in parallel, reading the cache only.
        let cache = &self.cache;
        batch.for_each_mut(&mut jobs, |j| {
            if j.result.is_some() {
                return;
            }
            let p = j.packet;
            if let Some((slot, key)) = cache.peek_slot(p.peer_public, now) {
                j.slot = Some(slot);
                j.result = Some(open_with(key, p.from, p.id, p.payload, j.out));
            }
        });
        // 2. Distinct missing senders: derive their keys in parallel.
        let mut used = vec![false; self.cache.capacity()];
        let mut hits = 0u64;
        let mut missing: HashMap<[u8; 32], usize> = HashMap::new();
        let mut distinct: Vec<[u8; 32]> = Vec::new();
        for j in &jobs {
            if let Some(slot) = j.slot {
                used[slot] = true;
                hits += 1;
            } else if j.result.is_none() {
                missing.entry(*j.packet.peer_public).or_insert_with(|| {
                    distinct.push(*j.packet.peer_public);
                    distinct.len() - 1
                });
            }
        }
        let own = self.own();
        let derived: Vec<Result<PkcKey, Error>> = batch.map(&distinct, |k| PkcKey::derive(own, k));
        // 3. Open the packets of those senders in parallel.
        if !distinct.is_empty() {
            batch.for_each_mut(&mut jobs, |j| {
                if j.result.is_some() {
                    return;
                }
                let p = j.packet;
                j.result = Some(match missing.get(p.peer_public).map(|&i| &derived[i]) {
                    Some(Ok(k)) => open_with(k, p.from, p.id, p.payload, j.out),
                    Some(Err(e)) => Err(*e),
                    None => Err(Error::WeakPeerKey),
                });
            });
        }
        // 4. Book-keeping in input order: cache recency and counters, fresh
        //    keys, replay window.
        self.cache.touch_slots(&used, hits);
        for (k, d) in distinct.iter().zip(derived) {
            if let Ok(key) = d {
                self.cache.insert(k, key, now);
            }
        }
        let replay = &mut self.replay;
        Ok(jobs
            .into_iter()
            .zip(ranges)
            .map(|(j, r)| {
                let p = j.packet;
                match j.result.unwrap_or(Err(Error::Auth)) {
                    Err(e) => Err(e),
                    Ok(()) => {
                        let fresh = replay.as_mut().is_none_or(|w| w.accept(p.from, p.id));
                        if fresh {
                            Ok(r)
                        } else {
                            j.out.zeroize();
                            Err(Error::Replay {
                                from: p.from,
                                id: p.id,
                            })
                        }
                    }
                }
            })
            .collect())
    }

    /// Opens every packet, in parallel on `batch`, results in input order
    /// and identical to calling [`PkcEngine::open`] on each in turn.
    pub fn open_batch(
        &mut self,
        packets: &[PkcPacket<'_>],
        now: u64,
        batch: &Batch,
    ) -> Vec<Result<Vec<u8>, Error>> {
        let mut out = vec![0u8; batch_output_len(packets)];
        match self.open_batch_into(packets, now, batch, &mut out) {
            Ok(rs) => rs.into_iter().map(|r| r.map(|r| out[r].to_vec())).collect(),
            // Unreachable: `out` has exactly the required size.
            Err(e) => vec![Err(e); packets.len()],
        }
    }
}
