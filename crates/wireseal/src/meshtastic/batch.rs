//! Batch open: many PKC packets from many senders, spread over all cores.
//!
//! A gateway decoding a busy MQTT feed sees many packets from a bounded set
//! of senders. Packets whose sender's key is cached are opened in parallel
//! straight away (read-only cache access); the distinct senders that missed
//! have their keys derived in parallel, and their packets are opened next.
//! Then one serial pass in input order does the book-keeping opening the
//! packets one at a time would have done: cache recency and counters (a new
//! sender's first packet is a miss that inserts its key, its later packets
//! are hits) and the replay window. Plaintexts and errors are always exactly
//! those of opening one at a time; so are the cache's counters and recency
//! as long as the batch's distinct senders fit in the cache (when they do
//! not, a sender evicted during the batch was still served by the key it had
//! when the batch began, and counts a miss where one-at-a-time would have
//! derived its key again).
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

/// How a packet's key was found.
#[derive(Clone, Copy)]
enum KeyFrom {
    /// Not looked up (the packet failed its length checks first).
    NotLookedUp,
    /// The cache slot that served it.
    Slot(usize),
    /// Derived in this batch: index into the batch's distinct new senders.
    Derived(usize),
}

/// One packet's work item: its output region and what happened so far.
struct Job<'a, 'o> {
    packet: &'a PkcPacket<'a>,
    out: &'o mut [u8],
    /// `None` until opened.
    result: Option<Result<(), Error>>,
    key: KeyFrom,
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
                key: KeyFrom::NotLookedUp,
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
                j.key = KeyFrom::Slot(slot);
                j.result = Some(open_with(key, p.from, p.id, p.payload, j.out));
            }
        });
        // 2. Distinct missing senders: derive their keys in parallel.
        let mut missing: HashMap<[u8; 32], usize> = HashMap::new();
        let mut distinct: Vec<[u8; 32]> = Vec::new();
        for j in jobs.iter_mut().filter(|j| j.result.is_none()) {
            let peer = j.packet.peer_public;
            let i = *missing.entry(*peer).or_insert_with(|| {
                distinct.push(*peer);
                distinct.len() - 1
            });
            j.key = KeyFrom::Derived(i);
        }
        let own = self.own();
        let derived: Vec<Result<PkcKey, Error>> = batch.map(&distinct, |k| PkcKey::derive(own, k));
        // 3. Open the packets of those senders in parallel.
        if !distinct.is_empty() {
            batch.for_each_mut(&mut jobs, |j| {
                if let (None, KeyFrom::Derived(i)) = (&j.result, j.key) {
                    let p = j.packet;
                    j.result = Some(match &derived[i] {
                        Ok(k) => open_with(k, p.from, p.id, p.payload, j.out),
                        Err(e) => Err(*e),
                    });
                }
            });
        }
        // 4. Book-keeping in input order, as one at a time: cache recency and
        //    counters, fresh keys, replay window.
        let mut fresh: Vec<Option<PkcKey>> = derived.into_iter().map(Result::ok).collect();
        let (cache, replay) = (&mut self.cache, &mut self.replay);
        Ok(jobs
            .into_iter()
            .zip(ranges)
            .map(|(j, r)| {
                let p = j.packet;
                match j.key {
                    KeyFrom::NotLookedUp => {}
                    KeyFrom::Slot(slot) => {
                        if !cache.touch_slot(slot, p.peer_public) {
                            // Evicted earlier in this pass: one at a time would miss.
                            let _ = cache.get(p.peer_public, now);
                        }
                    }
                    KeyFrom::Derived(i) => match fresh[i].take() {
                        Some(key) => {
                            let _ = cache.get_or_try_insert_with(p.peer_public, now, |_| {
                                Ok::<_, Error>(key)
                            });
                        }
                        // A later packet of a new sender (a hit), or one
                        // whose key could not be derived (a miss each time).
                        None => {
                            let _ = cache.get(p.peer_public, now);
                        }
                    },
                }
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
