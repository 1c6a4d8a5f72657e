//! [`SharedSecretCache`]: the per-peer key-agreement cache every format shares.
//!
//! A direct message to or from a known peer should cost a hash lookup and a
//! symmetric cipher, not an elliptic-curve multiplication. The cache keeps
//! the derived per-peer value (an expanded cipher, a session key) keyed by
//! the peer's **whole** public key, so an attacker who grinds keys sharing a
//! prefix with a victim's key can never hit the victim's slot (the flaw of a
//! proposed firmware cache that keyed by the first 4 bytes).
//!
//! Properties:
//! - fixed capacity set at construction (default [`DEFAULT_CAPACITY`]); the
//!   slot array and the index are allocated once, so inserts never allocate;
//! - bound to our own public key: [`SharedSecretCache::set_own_key`] with a
//!   different key flushes every entry;
//! - least-recently-used eviction in O(1) (an intrusive list over the slots);
//! - optional time-to-live, with `now` supplied by the caller in
//!   milliseconds on any monotonic clock (the library has no clock), always
//!   the first argument;
//! - [`SharedSecretCache::invalidate`] for a peer that changed its key;
//! - hit / miss / eviction / expiry counters;
//! - values must be [`ZeroizeOnDrop`]: they are wiped when evicted, expired,
//!   invalidated, flushed, or when the cache is dropped.
//!
//! Memory, all allocated in [`SharedSecretCache::new`]:
//! [`SharedSecretCache::BYTES_PER_SLOT`] bytes per slot (1,024 for
//! Meshtastic's expanded AES-256-CCM keys, most of it the `aes` crate's
//! round keys), plus the index: a hash table sized for twice the capacity,
//! `PK + 5` bytes per bucket (key, slot number, control byte), which is about
//! 150 bytes per slot for 32-byte keys at the default capacity (64 buckets
//! for 16 slots).

use std::collections::HashMap;
use zeroize::ZeroizeOnDrop;

/// The index's hasher: aHash with a random per-cache seed. The table never
/// holds more than `capacity` keys, so even keys ground to collide cost at
/// most a scan of `capacity` entries; SipHash's extra strength buys nothing
/// here and costs a third of a cached Meshtastic open.
type IndexHasher = ahash::RandomState;

/// Default number of slots (the firmware proposal's size).
pub const DEFAULT_CAPACITY: usize = 16;

const NIL: u32 = u32::MAX;

/// Counters reported by [`SharedSecretCache::stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups served from the cache.
    pub hits: u64,
    /// Lookups that had to derive the value.
    pub misses: u64,
    /// Entries dropped to make room (least recently used first).
    pub evictions: u64,
    /// Entries found past their time-to-live.
    pub expirations: u64,
    /// Whole-cache flushes caused by a change of our own key.
    pub flushes: u64,
}

struct Slot<V, const PK: usize> {
    peer: [u8; PK],
    value: Option<V>,
    inserted_at: u64,
    prev: u32,
    next: u32,
}

/// A bounded, LRU, optionally expiring map from a peer's whole public key
/// (`PK` bytes: 32 for X25519, 33 for compressed secp256k1) to a derived
/// secret value `V`.
pub struct SharedSecretCache<V: ZeroizeOnDrop, const PK: usize = 32> {
    own: Vec<u8>,
    slots: Box<[Slot<V, PK>]>,
    index: HashMap<[u8; PK], u32, IndexHasher>,
    /// Most recently used slot.
    head: u32,
    /// Least recently used slot.
    tail: u32,
    /// Free slots, chained through `next`.
    free: u32,
    ttl: Option<u64>,
    stats: CacheStats,
}

impl<V: ZeroizeOnDrop, const PK: usize> core::fmt::Debug for SharedSecretCache<V, PK> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedSecretCache")
            .field("len", &self.index.len())
            .field("capacity", &self.slots.len())
            .field("ttl", &self.ttl)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<V: ZeroizeOnDrop, const PK: usize> SharedSecretCache<V, PK> {
    /// Bytes of one slot of the contiguous slot array (the value included).
    pub const BYTES_PER_SLOT: usize = core::mem::size_of::<Slot<V, PK>>();

    /// A cache of `capacity` slots (at least 1) bound to our public key `own_public`.
    pub fn new(own_public: &[u8], capacity: usize) -> Self {
        let capacity = capacity.clamp(1, (NIL - 1) as usize);
        let slots: Vec<Slot<V, PK>> = (0..capacity)
            .map(|i| Slot {
                peer: [0u8; PK],
                value: None,
                inserted_at: 0,
                prev: NIL,
                next: if i + 1 < capacity {
                    (i + 1) as u32
                } else {
                    NIL
                },
            })
            .collect();
        Self {
            own: own_public.to_vec(),
            slots: slots.into_boxed_slice(),
            // Twice the slots: the table then never holds more than half its
            // room, so when deleted entries use up its growth allowance it
            // rehashes in place instead of reallocating.
            index: HashMap::with_capacity_and_hasher(2 * capacity, IndexHasher::new()),
            head: NIL,
            tail: NIL,
            free: 0,
            ttl: None,
            stats: CacheStats::default(),
        }
    }

    /// Sets a time-to-live in milliseconds: an entry inserted at `t` is a
    /// miss at any `now >= t + ttl` (and at any `now < t`: a clock that went
    /// backwards never makes an entry fresh).
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Heap bytes the cache holds: the slot array (keys and values) and the
    /// index's table (its buckets and control bytes), without the
    /// allocator's own overhead. Fixed at construction: it does not grow
    /// with use.
    pub fn heap_bytes(&self) -> usize {
        let slots = self.slots.len() * Self::BYTES_PER_SLOT;
        // The index keeps at most 7/8 of its buckets full; its buckets are a
        // power of two, each with one control byte, plus one group of
        // trailing control bytes.
        let items = self.index.capacity();
        let buckets = if items < 8 {
            (items + 1).next_power_of_two()
        } else {
            (items * 8 / 7).next_power_of_two()
        };
        let entry = core::mem::size_of::<([u8; PK], u32)>();
        slots + buckets * (entry + 1) + 16 + self.own.capacity()
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Number of live entries (expired ones count until they are looked up).
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when no entry is held.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// The public key this cache is bound to.
    pub fn own_key(&self) -> &[u8] {
        &self.own
    }

    /// Rebinds the cache to our (possibly new) public key. A different key
    /// flushes every entry, since every cached secret depended on the old one.
    pub fn set_own_key(&mut self, own_public: &[u8]) {
        if self.own != own_public {
            self.own = own_public.to_vec();
            self.clear();
            self.stats.flushes += 1;
        }
    }

    /// Drops (and wipes) every entry.
    pub fn clear(&mut self) {
        let n = self.slots.len();
        for (i, s) in self.slots.iter_mut().enumerate() {
            s.value = None;
            s.prev = NIL;
            s.next = if i + 1 < n { (i + 1) as u32 } else { NIL };
        }
        self.index.clear();
        self.head = NIL;
        self.tail = NIL;
        self.free = 0;
    }

    /// Forgets `peer` (for example when it announced a new key). Returns
    /// whether an entry was removed.
    pub fn invalidate(&mut self, peer: &[u8; PK]) -> bool {
        match self.index.remove(peer) {
            Some(i) => {
                self.release(i);
                true
            }
            None => false,
        }
    }

    /// Looks `peer` up at time `now`, counting a hit or a miss, and marks a
    /// hit as most recently used. An expired entry is removed and is a miss.
    pub fn get(&mut self, now: u64, peer: &[u8; PK]) -> Option<&V> {
        let i = self.lookup(now, peer)?;
        self.slots[i as usize].value.as_ref()
    }

    /// Reads the value for `peer` without counting or reordering anything
    /// (for parallel readers); `None` if absent or expired at `now`.
    pub fn peek(&self, now: u64, peer: &[u8; PK]) -> Option<&V> {
        self.peek_slot(now, peer).map(|(_, v)| v)
    }

    crate::visibility::pub_if_hazmat! {
        /// Like [`Self::peek`], also giving the slot number, for batch readers
        /// that report each hit afterwards with `touch_slot` (both public
        /// only with the `hazmat` feature).
        fn peek_slot(&self, now: u64, peer: &[u8; PK]) -> Option<(usize, &V)> {
            let &i = self.index.get(peer)?;
            let s = &self.slots[i as usize];
            if let Some(ttl) = self.ttl {
                if now >= s.inserted_at.saturating_add(ttl) || now < s.inserted_at {
                    return None;
                }
            }
            s.value.as_ref().map(|v| (i as usize, v))
        }
    }

    crate::visibility::pub_if_hazmat! {
        /// Records one hit served earlier by `peek_slot`: if slot `slot`
        /// still holds `peer`, counts a hit, marks it most recently used and
        /// returns true; otherwise (it was evicted or reused since) changes
        /// nothing and returns false.
        fn touch_slot(&mut self, slot: usize, peer: &[u8; PK]) -> bool {
            match self.slots.get(slot) {
                Some(s) if s.value.is_some() && s.peer == *peer => {
                    self.stats.hits += 1;
                    self.unlink(slot as u32);
                    self.push_front(slot as u32);
                    true
                }
                _ => false,
            }
        }
    }

    /// Returns the cached value for `peer`, deriving and inserting it with
    /// `derive` on a miss. A failed derivation inserts nothing.
    ///
    /// # Errors
    /// Whatever `derive` returns on a miss.
    pub fn get_or_try_insert_with<E>(
        &mut self,
        now: u64,
        peer: &[u8; PK],
        derive: impl FnOnce(&[u8; PK]) -> Result<V, E>,
    ) -> Result<&V, E> {
        let i = match self.lookup(now, peer) {
            Some(i) => i,
            None => {
                let v = derive(peer)?;
                self.insert_fresh(now, peer, v)
            }
        };
        Ok(self.slots[i as usize]
            .value
            .as_ref()
            .expect("indexed slots hold a value"))
    }

    /// Inserts or replaces the value for `peer` at time `now`.
    pub fn insert(&mut self, now: u64, peer: &[u8; PK], value: V) {
        self.invalidate(peer);
        self.insert_fresh(now, peer, value);
    }

    fn lookup(&mut self, now: u64, peer: &[u8; PK]) -> Option<u32> {
        let Some(&i) = self.index.get(peer) else {
            self.stats.misses += 1;
            return None;
        };
        if let Some(ttl) = self.ttl {
            let at = self.slots[i as usize].inserted_at;
            if now >= at.saturating_add(ttl) || now < at {
                self.index.remove(peer);
                self.release(i);
                self.stats.expirations += 1;
                self.stats.misses += 1;
                return None;
            }
        }
        self.stats.hits += 1;
        self.unlink(i);
        self.push_front(i);
        Some(i)
    }

    fn insert_fresh(&mut self, now: u64, peer: &[u8; PK], value: V) -> u32 {
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.slots[i as usize].next;
            i
        } else {
            let lru = self.tail;
            let old_peer = self.slots[lru as usize].peer;
            self.index.remove(&old_peer);
            self.unlink(lru);
            self.slots[lru as usize].value = None;
            self.stats.evictions += 1;
            lru
        };
        let s = &mut self.slots[i as usize];
        s.peer = *peer;
        s.value = Some(value);
        s.inserted_at = now;
        self.push_front(i);
        self.index.insert(*peer, i);
        i
    }

    /// Unlinks slot `i` from the LRU list, wipes it and puts it on the free list.
    fn release(&mut self, i: u32) {
        self.unlink(i);
        let s = &mut self.slots[i as usize];
        s.value = None;
        s.next = self.free;
        s.prev = NIL;
        self.free = i;
    }

    fn unlink(&mut self, i: u32) {
        let (prev, next) = {
            let s = &self.slots[i as usize];
            (s.prev, s.next)
        };
        if prev != NIL {
            self.slots[prev as usize].next = next;
        } else if self.head == i {
            self.head = next;
        }
        if next != NIL {
            self.slots[next as usize].prev = prev;
        } else if self.tail == i {
            self.tail = prev;
        }
        let s = &mut self.slots[i as usize];
        s.prev = NIL;
        s.next = NIL;
    }

    fn push_front(&mut self, i: u32) {
        let old = self.head;
        {
            let s = &mut self.slots[i as usize];
            s.prev = NIL;
            s.next = old;
        }
        if old != NIL {
            self.slots[old as usize].prev = i;
        } else {
            self.tail = i;
        }
        self.head = i;
    }
}

#[cfg(test)]
mod tests;
