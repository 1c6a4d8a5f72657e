//! Batch open: many PKC packets from many senders, spread over all cores.
//!
//! A gateway decoding a busy MQTT feed sees many packets from a bounded set
//! of senders. Packets whose sender's key is cached are opened in parallel
//! straight away (read-only cache access); the distinct senders that missed
//! have their keys derived in parallel, and their packets are opened next.
//! Then one serial pass in input order does the book-keeping opening the
//! packets one at a time would have done: cache recency and counters (a new
//! sender's first packet is a miss that inserts its key, its later packets
//! are hits) and the replay window (see the `pkc_ahead` module). Plaintexts
//! and errors are always exactly those of opening one at a time; so are the
//! cache's counters and recency as long as the batch's distinct senders fit
//! in the cache (when they do not, a sender evicted during the batch was
//! still served by the key it had when the batch began, and counts a miss
//! where one-at-a-time would have derived its key again).
//!
//! [`PkcEngine::open_batch_into`] writes every plaintext into one caller
//! buffer (no allocation per packet; each packet's region of it is split
//! off on the worker threads); [`PkcEngine::open_batch_to_vec`] is the
//! convenience that returns a vector per packet.

use super::pkc::{opened_len, PkcEngine, PkcKeyForm as _, PkcPacket};
use super::pkc_ahead::{FreshKeys, KeyFrom};
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

/// One packet's progress (12 bytes: a batch keeps one per packet).
#[derive(Clone, Copy)]
struct Job {
    state: State,
    key: KeyFrom,
}

/// Where a packet stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not opened yet.
    Waiting,
    /// Opened: its tag verified.
    Opened,
    /// Failed: its length is impossible (its key was not looked up), its
    /// tag did not verify, or its key could not be derived.
    Failed,
}

impl Job {
    /// A packet of impossible length is done before it starts.
    fn new(p: &SealedPkc<'_>) -> Self {
        let state = match opened_len(p.payload.len()) {
            Ok(_) => State::Waiting,
            Err(_) => State::Failed,
        };
        Self {
            state,
            key: KeyFrom::NotLookedUp,
        }
    }

    /// Records what opening the packet with the key `key` gave.
    fn opened(&mut self, key: KeyFrom, result: Result<(), Error>) {
        self.key = key;
        self.state = match result {
            Ok(()) => State::Opened,
            Err(_) => State::Failed,
        };
    }

    /// The error opening the packet `p` alone gives, for a failed job: its
    /// length's, its key's, or the tag's ([`Error::Auth`], the one failure
    /// of an open).
    fn error(&self, p: &SealedPkc<'_>, fresh: &FreshKeys) -> Error {
        match self.key {
            KeyFrom::NotLookedUp => opened_len(p.payload.len()).err().unwrap_or(Error::Auth),
            KeyFrom::Derived(i) => fresh.failure(i as usize).unwrap_or(Error::Auth),
            KeyFrom::Slot(_) => Error::Auth,
        }
    }
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
        let mut jobs: Vec<Job> = packets.iter().map(Job::new).collect();
        self.open_cached(now, batch, packets, &ranges, out, &mut jobs);
        let mut fresh = self.open_uncached(batch, packets, &ranges, out, &mut jobs);
        Ok(self.book_in_order(now, packets, jobs, ranges, out, &mut fresh))
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

    /// Step 1: the packets whose sender's key is cached, opened in parallel
    /// with the cache only read.
    fn open_cached(
        &self,
        now: u64,
        batch: &Batch,
        packets: &[SealedPkc<'_>],
        ranges: &[Range<usize>],
        out: &mut [u8],
        jobs: &mut [Job],
    ) {
        let cache = &self.cache;
        batch.for_each_region(jobs, ranges, out, |i, j, region| {
            if j.state != State::Waiting {
                return;
            }
            let SealedPkc { packet: p, payload } = packets[i];
            if let Some((slot, key)) = cache.peek_slot(now, p.peer_public) {
                j.opened(KeyFrom::slot(slot), key.open(p.from, p.id, payload, region));
            }
        });
    }

    /// Step 2: the keys of the distinct senders step 1 missed, derived in
    /// parallel, and their packets opened in parallel.
    fn open_uncached(
        &self,
        batch: &Batch,
        packets: &[SealedPkc<'_>],
        ranges: &[Range<usize>],
        out: &mut [u8],
        jobs: &mut [Job],
    ) -> FreshKeys {
        let senders = missing_senders(packets, jobs);
        let own = self.own();
        let fresh = FreshKeys::derive(batch, &senders, |_| own);
        if !senders.is_empty() {
            batch.for_each_region(jobs, ranges, out, |i, j, region| {
                if let (State::Waiting, KeyFrom::Derived(k)) = (j.state, j.key) {
                    let SealedPkc { packet, payload } = packets[i];
                    j.opened(j.key, fresh.open(k as usize, packet, payload, region));
                }
            });
        }
        fresh
    }

    /// Step 3, in input order as one at a time: the cache's recency and
    /// counters, the fresh keys inserted, the replay window (a replayed
    /// packet's plaintext wiped).
    fn book_in_order(
        &mut self,
        now: u64,
        packets: &[SealedPkc<'_>],
        jobs: Vec<Job>,
        ranges: Vec<Range<usize>>,
        out: &mut [u8],
        fresh: &mut FreshKeys,
    ) -> Vec<Result<Range<usize>, Error>> {
        if fresh.is_empty() && self.replay.is_none() {
            // Every key came from the cache and nothing is inserted or
            // removed in this pass: the book-keeping is each slot's hits
            // and its last use.
            self.cache
                .touch_slots(jobs.iter().filter_map(|j| match j.key {
                    KeyFrom::Slot(slot) => Some(usize::from(slot)),
                    KeyFrom::NotLookedUp | KeyFrom::Derived(_) => None,
                }));
            let results = jobs.iter().zip(ranges).zip(packets);
            return results
                .map(|((j, r), sealed)| match j.state {
                    State::Opened => Ok(r),
                    State::Waiting | State::Failed => Err(j.error(sealed, fresh)),
                })
                .collect();
        }
        let mut results = Vec::with_capacity(jobs.len());
        for ((j, r), sealed) in jobs.into_iter().zip(ranges).zip(packets) {
            let p = sealed.packet;
            if !self.book_ahead(now, j.key, p.peer_public, fresh) {
                // The key left the cache earlier in this pass: one at a time
                // would miss.
                let _ = self.cache.get(now, p.peer_public);
            }
            results.push(match j.state {
                State::Waiting | State::Failed => Err(j.error(sealed, fresh)),
                State::Opened => match self.accept_replay(p.from, p.id) {
                    Ok(()) => Ok(r),
                    Err(e) => {
                        out[r].zeroize();
                        Err(e)
                    }
                },
            });
        }
        results
    }
}

/// The distinct senders of the packets not yet opened, in order of first
/// appearance, each with the index of the private key to derive its key
/// with (0: the engine's own); each such packet's key becomes
/// [`KeyFrom::Derived`] of its sender's index.
fn missing_senders(packets: &[SealedPkc<'_>], jobs: &mut [Job]) -> Vec<(usize, [u8; 32])> {
    let mut index: HashMap<[u8; 32], usize> = HashMap::new();
    let mut senders = Vec::new();
    for (j, p) in jobs.iter_mut().zip(packets) {
        if j.state != State::Waiting {
            continue;
        }
        let peer = p.packet.peer_public;
        let i = *index.entry(*peer).or_insert_with(|| {
            senders.push((0, *peer));
            senders.len() - 1
        });
        j.key = KeyFrom::derived(i);
    }
    senders
}
