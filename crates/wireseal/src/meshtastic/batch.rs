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
//! buffer (no allocation per packet; each packet's region of it is split
//! off on the worker threads); [`PkcEngine::open_batch_to_vec`] is the
//! convenience that returns a vector per packet.

use super::pkc::{opened_len, PkcEngine, PkcKey, PkcKeyForm as _, PkcPacket};
use super::Error;
use crate::batch::{consecutive_ranges, total_len, Batch};
use core::ops::Range;
use std::collections::HashMap;
use zeroize::Zeroize;

/// One sealed packet to open: its description and its payload.
#[derive(Debug, Clone, Copy)]
pub struct SealedPkc<'a> {
    /// The sender's public key, node number and packet id.
    pub packet: PkcPacket<'a>,
    /// `ciphertext | tag | extraNonce`.
    pub payload: &'a [u8],
}

/// Bytes of output [`PkcEngine::open_batch_into`] needs for `packets` (packets
/// of impossible length count 0).
pub fn open_batch_len(packets: &[SealedPkc<'_>]) -> usize {
    total_len(packets.iter().map(plaintext_len))
}

fn plaintext_len(p: &SealedPkc<'_>) -> usize {
    opened_len(p.payload.len()).unwrap_or(0)
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

/// One packet's progress: `None` until opened, and where its key came from.
struct Job {
    result: Option<Result<(), Error>>,
    key: KeyFrom,
}

impl PkcEngine {
    /// Opens every packet at time `now` (ms) in parallel on `batch`, writing
    /// the plaintexts one after another into `out` (at least
    /// [`open_batch_len`] bytes). Returns, per packet in input order, the
    /// range of `out` holding its plaintext, or the error that opening it
    /// alone would have given.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than
    /// [`open_batch_len`]; nothing is opened then.
    pub fn open_batch_into(
        &mut self,
        now: u64,
        batch: &Batch,
        packets: &[SealedPkc<'_>],
        out: &mut [u8],
    ) -> Result<Vec<Result<Range<usize>, Error>>, Error> {
        let need = open_batch_len(packets);
        if out.len() < need {
            return Err(Error::BufferTooSmall { required: need });
        }
        let out = &mut out[..need];
        let ranges = consecutive_ranges(packets.iter().map(plaintext_len));
        let mut jobs: Vec<Job> = packets
            .iter()
            .map(|p| Job {
                result: opened_len(p.payload.len()).err().map(Err),
                key: KeyFrom::NotLookedUp,
            })
            .collect();
        // 1. Cached senders: open in parallel, reading the cache only.
        let cache = &self.cache;
        batch.for_each_region(&mut jobs, &ranges, out, |i, j, region| {
            if j.result.is_some() {
                return;
            }
            let p = packets[i].packet;
            if let Some((slot, key)) = cache.peek_slot(now, p.peer_public) {
                j.key = KeyFrom::Slot(slot);
                j.result = Some(key.open(p.from, p.id, packets[i].payload, region));
            }
        });
        // 2. Distinct missing senders: derive their keys in parallel.
        let mut missing: HashMap<[u8; 32], usize> = HashMap::new();
        let mut distinct: Vec<[u8; 32]> = Vec::new();
        for (j, p) in jobs.iter_mut().zip(packets) {
            if j.result.is_some() {
                continue;
            }
            let peer = p.packet.peer_public;
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
            batch.for_each_region(&mut jobs, &ranges, out, |i, j, region| {
                if let (None, KeyFrom::Derived(k)) = (&j.result, j.key) {
                    let p = packets[i].packet;
                    j.result = Some(match &derived[k] {
                        Ok(key) => key.open(p.from, p.id, packets[i].payload, region),
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
            .zip(packets)
            .map(|((j, r), sealed)| {
                let p = sealed.packet;
                match j.key {
                    KeyFrom::NotLookedUp => {}
                    KeyFrom::Slot(slot) => {
                        if !cache.touch_slot(slot, p.peer_public) {
                            // Evicted earlier in this pass: one at a time would miss.
                            let _ = cache.get(now, p.peer_public);
                        }
                    }
                    KeyFrom::Derived(i) => match fresh[i].take() {
                        Some(key) => {
                            let _ = cache.get_or_try_insert_with(now, p.peer_public, |_| {
                                Ok::<_, Error>(key)
                            });
                        }
                        // A later packet of a new sender (a hit), or one
                        // whose key could not be derived (a miss each time).
                        None => {
                            let _ = cache.get(now, p.peer_public);
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
                            out[r].zeroize();
                            Err(Error::Replay)
                        }
                    }
                }
            })
            .collect())
    }

    /// Opens every packet at time `now` (ms), in parallel on `batch`, results
    /// in input order and identical to calling [`PkcEngine::open_to_vec`] on
    /// each in turn.
    pub fn open_batch_to_vec(
        &mut self,
        now: u64,
        batch: &Batch,
        packets: &[SealedPkc<'_>],
    ) -> Vec<Result<Vec<u8>, Error>> {
        let mut out = vec![0u8; open_batch_len(packets)];
        match self.open_batch_into(now, batch, packets, &mut out) {
            Ok(rs) => rs.into_iter().map(|r| r.map(|r| out[r].to_vec())).collect(),
            // Unreachable: `out` has exactly the required size.
            Err(e) => vec![Err(e); packets.len()],
        }
    }
}
