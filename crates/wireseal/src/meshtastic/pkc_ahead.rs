//! Opening PKC packets ahead of the cache's book-keeping, for batches.
//!
//! Threads open packets with keys read from the cache without changing it
//! ([`PkcEngine::open_ahead`]), or with keys derived in the batch for the
//! senders it lacks ([`FreshKeys`]). One pass in input order then tells the
//! cache what opening each packet alone would have
//! ([`PkcEngine::book_ahead`]): a hit on the slot that served it; for a key
//! derived in the batch, a miss that inserts it at its sender's first packet
//! and hits after that. The replay window is consulted in the same pass
//! ([`PkcEngine::accept_replay`]).
//!
//! Only batches (`std`) open ahead; the decoder's ordered step, which takes
//! over what a batch opened, is built without `std` too.
#![cfg_attr(not(feature = "std"), allow(dead_code))]

use super::pkc::{opened_len, PkcEngine, PkcKey, PkcKeyForm as _, PkcPacket};
use super::Error;
#[allow(unused_imports)]
use crate::prelude::*;
#[cfg(feature = "std")]
use crate::primitives::x25519::StaticSecret;

/// Where the key a batch opened a packet with came from (8 bytes: a batch
/// keeps one per packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyFrom {
    /// Not looked up (the packet failed a check before its key was needed).
    NotLookedUp,
    /// The cache slot that served it (slot numbers are 16-bit,
    /// [`crate::cache::MAX_CAPACITY`]).
    Slot(u16),
    /// Derived in the batch: an index into its [`FreshKeys`].
    Derived(u32),
}

impl KeyFrom {
    /// The key in cache slot `slot` (a slot number [`PkcEngine::open_ahead`]
    /// or the cache's `peek_slot` gave, so below 2^16).
    pub(crate) fn slot(slot: usize) -> Self {
        u16::try_from(slot).map_or(Self::NotLookedUp, Self::Slot)
    }

    /// The `i`-th key a batch derived (a batch derives fewer than 2^32).
    pub(crate) fn derived(i: usize) -> Self {
        u32::try_from(i).map_or(Self::NotLookedUp, Self::Derived)
    }
}

/// One key a batch derived. Kept inline, not boxed: each key is moved as
/// few times as possible (a move leaves a copy behind that is not wiped).
#[allow(clippy::large_enum_variant)]
enum Fresh {
    /// Derived, not yet handed to the cache.
    New(PkcKey),
    /// Handed to the cache (at its sender's first packet).
    Cached,
    /// The derivation failed (a low-order key): each packet misses.
    Failed(Error),
}

/// The keys a batch derived for the senders the cache lacked, each handed
/// to the cache at its sender's first packet in input order.
#[derive(Default)]
pub(crate) struct FreshKeys {
    keys: Vec<Fresh>,
}

impl FreshKeys {
    /// Derives, in parallel on `batch`, the key of each of a batch's
    /// distinct missing senders, in order: `senders` holds, for each, the
    /// index of the private key `own` gives and the sender's public key.
    #[cfg(feature = "std")]
    pub(crate) fn derive<'o>(
        batch: &crate::batch::Batch,
        senders: &[(usize, [u8; 32])],
        own: impl Fn(usize) -> &'o StaticSecret + Sync + Send,
    ) -> Self {
        let keys = batch.map(senders, |(i, peer)| match PkcKey::derive(own(*i), peer) {
            Ok(k) => Fresh::New(k),
            Err(e) => Fresh::Failed(e),
        });
        Self { keys }
    }

    /// Opens `payload` of `packet` into `out` (exactly its plaintext's
    /// length) with key `i`, before any of them was handed to the cache.
    pub(crate) fn open(
        &self,
        i: usize,
        packet: PkcPacket<'_>,
        payload: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        match self.keys.get(i) {
            Some(Fresh::New(k)) => k.open(packet.from, packet.id, payload, out),
            Some(Fresh::Failed(e)) => Err(*e),
            Some(Fresh::Cached) | None => Err(Error::Auth),
        }
    }

    /// Whether the batch derived no key.
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Why key `i` could not be derived, if it could not.
    pub(crate) fn failure(&self, i: usize) -> Option<Error> {
        match self.keys.get(i) {
            Some(Fresh::Failed(e)) => Some(*e),
            _ => None,
        }
    }
}

impl PkcEngine {
    /// For parallel readers: opens `payload` into `out` with the cached key
    /// of `packet.peer_public`, changing nothing (no hit counted, no replay
    /// check). Returns the cache slot and the open's result (the plaintext
    /// length), or `None` when the key is not cached or the lengths do not
    /// fit; report the slot with [`Self::book_ahead`] in input order.
    pub(crate) fn open_ahead(
        &self,
        now: u64,
        packet: PkcPacket<'_>,
        payload: &[u8],
        out: &mut [u8],
    ) -> Option<(usize, Result<usize, Error>)> {
        let n = opened_len(payload.len()).ok()?;
        let out = out.get_mut(..n)?;
        let (slot, key) = self.cache.peek_slot(now, packet.peer_public)?;
        Some((
            slot,
            key.open(packet.from, packet.id, payload, out).map(|()| n),
        ))
    }

    /// The cache's book-keeping for one packet of a batch opened with the
    /// key `key` names, done in input order: what looking the key up for
    /// that packet alone would have counted and reordered. Returns `false`,
    /// changing nothing, when that key has left the cache since the packet
    /// was opened (evicted or expired earlier in the pass): opening the
    /// packet alone now would miss.
    pub(crate) fn book_ahead(
        &mut self,
        now: u64,
        key: KeyFrom,
        peer: &[u8; 32],
        fresh: &mut FreshKeys,
    ) -> bool {
        let i = match key {
            KeyFrom::NotLookedUp => return true,
            KeyFrom::Slot(slot) => return self.cache.touch_slot(usize::from(slot), peer),
            KeyFrom::Derived(i) => i as usize,
        };
        let Some(entry) = fresh.keys.get_mut(i) else {
            return false;
        };
        match core::mem::replace(entry, Fresh::Cached) {
            Fresh::New(k) => {
                // The sender's first packet: a miss that inserts the key
                // (or, when a packet before it already put the key back, a
                // hit, and this copy is dropped).
                let _ = self
                    .cache
                    .get_or_try_insert_with(now, peer, |_| Ok::<_, Error>(k));
                true
            }
            Fresh::Failed(e) => {
                // Nothing was inserted: a miss, each time.
                *entry = Fresh::Failed(e);
                let _ = self.cache.get(now, peer);
                true
            }
            Fresh::Cached => match self.cache.peek_slot(now, peer) {
                Some((slot, _)) => self.cache.touch_slot(slot, peer),
                None => false,
            },
        }
    }

    /// The replay window's verdict on packet (`from`, `id`), whose tag
    /// verified: [`Error::Replay`] when the window has seen it (it records
    /// it otherwise).
    pub(crate) fn accept_replay(&mut self, from: u32, id: u32) -> Result<(), Error> {
        let fresh = self.replay.as_mut().is_none_or(|w| w.accept(from, id));
        if fresh {
            Ok(())
        } else {
            Err(Error::Replay)
        }
    }
}
