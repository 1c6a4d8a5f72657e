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
//!   slots live in storage chosen by the caller: a boxed array allocated
//!   once ([`SharedSecretCache::new`]), an inline array or the caller's own
//!   memory ([`SharedSecretCache::with_slots`], what firmware uses), so
//!   inserts never allocate;
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
//! Lookup: `std` builds (the npm package's wasm32 too; not those built with the portable
//! backend) find a peer through a hash index beside the slots
//! (a hash table sized for twice the capacity, `PK + 3` bytes per bucket:
//! key, slot number, control byte; about 150 bytes per slot for 32-byte keys
//! at the default capacity). Other builds have no index: they
//! compare the peer's whole key with every slot's, word by word in
//! constant time, so the time of a lookup never depends on which keys are
//! cached (16 slots: about 1,600 instructions on a Cortex-M4).
//!
//! Memory: [`SharedSecretCache::BYTES_PER_SLOT`] bytes per slot: 80 for a
//! 32-byte secret (peat's per-peer secrets; Meshtastic's
//! [`crate::meshtastic::pkc::PkcSecret`]), 1,024 on x86-64 (520 on a
//! Cortex-M4) for an expanded AES-256-CCM key, most of it the `aes` crate's
//! round keys. Slot numbers are 16-bit: at most [`MAX_CAPACITY`] slots.

mod slot;

pub use slot::{DefaultSlots, Slot, SlotStorage};
#[cfg(wireseal_hash_index)]
use std::collections::HashMap;
use zeroize::ZeroizeOnDrop;

/// The index's hasher: aHash with a random per-cache seed. The table never
/// holds more than `capacity` keys, so even keys ground to collide cost at
/// most a scan of `capacity` entries; SipHash's extra strength buys nothing
/// here and costs a third of a cached Meshtastic open.
#[cfg(wireseal_hash_index)]
pub(crate) type IndexHasher = ahash::RandomState;

/// A fresh randomly seeded [`IndexHasher`], for every hash index in the
/// library (this cache's, peat's nonce history, the Meshtastic decoder's
/// node tables).
#[cfg(wireseal_hash_index)]
pub(crate) fn index_hasher() -> IndexHasher {
    #[cfg(not(target_arch = "wasm32"))]
    {
        // ahash's own seeding: its process seed from the OS, varied per call.
        ahash::RandomState::new()
    }
    #[cfg(target_arch = "wasm32")]
    {
        // ahash's seeding needs a build flag on this target; the host's
        // CSPRNG (`crypto.getRandomValues`) seeds each index instead.
        let b: [u8; 32] = crate::entropy::random_array();
        let seed = |i: usize| {
            let mut w = [0; 8];
            w.copy_from_slice(&b[8 * i..8 * i + 8]);
            u64::from_le_bytes(w)
        };
        ahash::RandomState::with_seeds(seed(0), seed(1), seed(2), seed(3))
    }
}

/// Default number of slots (the firmware proposal's size).
pub const DEFAULT_CAPACITY: usize = 16;

/// Most slots a cache can have (slot numbers are 16-bit).
pub const MAX_CAPACITY: usize = NIL as usize;

pub(crate) const NIL: u16 = u16::MAX;

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

/// A bounded, LRU, optionally expiring map from a peer's whole public key
/// (`PK` bytes: 32 for X25519, 33 for compressed secp256k1) to a derived
/// secret value `V`, over slots kept in `S`.
pub struct SharedSecretCache<V: ZeroizeOnDrop, const PK: usize = 32, S = DefaultSlots<V, PK>>
where
    S: SlotStorage<V, PK>,
{
    own: [u8; PK],
    slots: S,
    #[cfg(wireseal_hash_index)]
    index: HashMap<[u8; PK], u16, IndexHasher>,
    /// Live entries.
    len: usize,
    /// Most recently used slot.
    head: u16,
    /// Least recently used slot.
    tail: u16,
    /// Free slots, chained through `next`.
    free: u16,
    ttl: Option<u64>,
    stats: CacheStats,
    values: core::marker::PhantomData<V>,
}

impl<V: ZeroizeOnDrop, const PK: usize, S: SlotStorage<V, PK>> core::fmt::Debug
    for SharedSecretCache<V, PK, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedSecretCache")
            .field("len", &self.len)
            .field("capacity", &self.capacity())
            .field("ttl", &self.ttl)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "alloc")]
impl<V: ZeroizeOnDrop, const PK: usize> SharedSecretCache<V, PK> {
    /// A cache of `capacity` slots (1 to [`MAX_CAPACITY`], clamped) bound
    /// to our public key `own_public`, its slots allocated here once.
    pub fn new(own_public: &[u8; PK], capacity: usize) -> Self {
        Self::with_slots(own_public, DefaultSlots::with_capacity(capacity))
    }

    /// Heap bytes the cache holds: the slot array (keys and values) and the
    /// index's table (its buckets and control bytes), without the
    /// allocator's own overhead. Fixed at construction: it does not grow
    /// with use.
    pub fn heap_bytes(&self) -> usize {
        let slots = self.capacity() * Self::BYTES_PER_SLOT;
        #[cfg(wireseal_hash_index)]
        let index = {
            // The index keeps at most 7/8 of its buckets full; its buckets
            // are a power of two, each with one control byte, plus one group
            // of trailing control bytes.
            let items = self.index.capacity();
            let buckets = if items < 8 {
                (items + 1).next_power_of_two()
            } else {
                (items * 8 / 7).next_power_of_two()
            };
            let entry = core::mem::size_of::<([u8; PK], u16)>();
            buckets * (entry + 1) + 16
        };
        #[cfg(not(wireseal_hash_index))]
        let index = 0;
        slots + index
    }
}

impl<V: ZeroizeOnDrop, const PK: usize, S: SlotStorage<V, PK>> SharedSecretCache<V, PK, S> {
    /// Bytes of one slot (the value included).
    pub const BYTES_PER_SLOT: usize = core::mem::size_of::<Slot<V, PK>>();

    /// A cache over `slots` (any previous contents are dropped and wiped),
    /// bound to our public key `own_public`: an inline array
    /// (`Slot::array::<16>()`), a boxed slice, or a `&mut [Slot]` in the
    /// caller's memory.
    ///
    /// # Panics
    /// If `slots` is empty or longer than [`MAX_CAPACITY`] (storage is
    /// fixed when the program is written; a caller passing run-time memory
    /// checks its length first).
    pub fn with_slots(own_public: &[u8; PK], mut slots: S) -> Self {
        let n = slots.as_ref().len();
        assert!(
            (1..=MAX_CAPACITY).contains(&n),
            "a cache needs 1 to {MAX_CAPACITY} slots"
        );
        for s in slots.as_mut().iter_mut() {
            *s = Slot::EMPTY;
        }
        let mut c = Self {
            own: *own_public,
            slots,
            #[cfg(wireseal_hash_index)]
            // Twice the slots: the table then never holds more than half its
            // room, so when deleted entries use up its growth allowance it
            // rehashes in place instead of reallocating.
            index: HashMap::with_capacity_and_hasher(2 * n, index_hasher()),
            len: 0,
            head: NIL,
            tail: NIL,
            free: 0,
            ttl: None,
            stats: CacheStats::default(),
            values: core::marker::PhantomData,
        };
        c.clear();
        c
    }

    /// Sets a time-to-live in milliseconds: an entry inserted at `t` is a
    /// miss at any `now >= t + ttl` (and at any `now < t`: a clock that went
    /// backwards never makes an entry fresh).
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Sets or removes the time-to-live (see [`Self::with_ttl`]); it applies
    /// to the entries already held too.
    pub fn set_ttl(&mut self, ttl: Option<u64>) {
        self.ttl = ttl;
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots.as_ref().len()
    }

    /// Number of live entries (expired ones count until they are looked up).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// The public key this cache is bound to.
    pub fn own_key(&self) -> &[u8; PK] {
        &self.own
    }

    /// Rebinds the cache to our (possibly new) public key. A different key
    /// flushes every entry, since every cached secret depended on the old one.
    pub fn set_own_key(&mut self, own_public: &[u8; PK]) {
        if self.own != *own_public {
            self.own = *own_public;
            self.clear();
            self.stats.flushes += 1;
        }
    }

    /// Drops (and wipes) every entry.
    pub fn clear(&mut self) {
        let slots = self.slots.as_mut();
        let n = slots.len();
        for (i, s) in slots.iter_mut().enumerate() {
            s.value = None;
            s.prev = NIL;
            s.next = if i + 1 < n { i as u16 + 1 } else { NIL };
        }
        #[cfg(wireseal_hash_index)]
        self.index.clear();
        self.len = 0;
        self.head = NIL;
        self.tail = NIL;
        self.free = 0;
    }

    /// Forgets `peer` (for example when it announced a new key). Returns
    /// whether an entry was removed.
    pub fn invalidate(&mut self, peer: &[u8; PK]) -> bool {
        match self.find(peer) {
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
        self.slots.as_ref()[usize::from(i)].value.as_ref()
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
            let i = self.find(peer)?;
            let s = &self.slots.as_ref()[usize::from(i)];
            if self.expired(now, s.inserted_at) {
                return None;
            }
            s.value.as_ref().map(|v| (usize::from(i), v))
        }
    }

    crate::visibility::pub_if_hazmat! {
        /// Records one hit served earlier by `peek_slot`: if slot `slot`
        /// still holds `peer`, counts a hit, marks it most recently used and
        /// returns true; otherwise (it was evicted or reused since) changes
        /// nothing and returns false.
        fn touch_slot(&mut self, slot: usize, peer: &[u8; PK]) -> bool {
            match self.slots.as_ref().get(slot) {
                Some(s) if s.value.is_some() && s.peer == *peer => {
                    self.stats.hits += 1;
                    self.unlink(slot as u16);
                    self.push_front(slot as u16);
                    true
                }
                _ => false,
            }
        }
    }

    /// Records hits served earlier by `peek_slot` when nothing was inserted
    /// or removed since: `slots`, in the order they were served, as
    /// `touch_slot` for each in turn would (each slot's hits counted, and
    /// the slots most recently used in order of their last use), in one
    /// pass from the last one back and one move per distinct slot. A slot
    /// that holds nothing (any more) is skipped.
    #[cfg(all(feature = "alloc", any(feature = "std", test)))]
    pub(crate) fn touch_slots(&mut self, slots: impl DoubleEndedIterator<Item = usize>) {
        let mut seen = alloc::vec![false; self.capacity()];
        let mut last_first = alloc::vec::Vec::new();
        for slot in slots.rev() {
            match self.slots.as_ref().get(slot) {
                Some(s) if s.value.is_some() => {}
                _ => continue,
            }
            self.stats.hits += 1;
            if !core::mem::replace(&mut seen[slot], true) {
                last_first.push(slot as u16);
            }
        }
        for &slot in last_first.iter().rev() {
            self.unlink(slot);
            self.push_front(slot);
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
        Ok(self.slots.as_ref()[usize::from(i)]
            .value
            .as_ref()
            .expect("indexed slots hold a value"))
    }

    /// Inserts or replaces the value for `peer` at time `now`.
    pub fn insert(&mut self, now: u64, peer: &[u8; PK], value: V) {
        self.invalidate(peer);
        self.insert_fresh(now, peer, value);
    }

    fn expired(&self, now: u64, at: u64) -> bool {
        match self.ttl {
            Some(ttl) => now >= at.saturating_add(ttl) || now < at,
            None => false,
        }
    }

    /// The slot holding `peer`, if any.
    #[cfg(wireseal_hash_index)]
    #[inline]
    fn find(&self, peer: &[u8; PK]) -> Option<u16> {
        self.index.get(peer).copied()
    }

    /// The slot holding `peer`, if any (see [`slot::scan`]).
    #[cfg(not(wireseal_hash_index))]
    #[inline]
    fn find(&self, peer: &[u8; PK]) -> Option<u16> {
        slot::scan(self.slots.as_ref(), peer)
    }

    fn lookup(&mut self, now: u64, peer: &[u8; PK]) -> Option<u16> {
        let Some(i) = self.find(peer) else {
            self.stats.misses += 1;
            return None;
        };
        let at = self.slots.as_ref()[usize::from(i)].inserted_at;
        if self.expired(now, at) {
            self.release(i);
            self.stats.expirations += 1;
            self.stats.misses += 1;
            return None;
        }
        self.stats.hits += 1;
        self.unlink(i);
        self.push_front(i);
        Some(i)
    }

    fn insert_fresh(&mut self, now: u64, peer: &[u8; PK], value: V) -> u16 {
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.slots.as_ref()[usize::from(i)].next;
            i
        } else {
            let lru = self.tail;
            #[cfg(wireseal_hash_index)]
            {
                let old_peer = self.slots.as_ref()[usize::from(lru)].peer;
                self.index.remove(&old_peer);
            }
            self.unlink(lru);
            self.slots.as_mut()[usize::from(lru)].value = None;
            self.len -= 1;
            self.stats.evictions += 1;
            lru
        };
        let s = &mut self.slots.as_mut()[usize::from(i)];
        s.peer = *peer;
        s.value = Some(value);
        s.inserted_at = now;
        self.push_front(i);
        #[cfg(wireseal_hash_index)]
        self.index.insert(*peer, i);
        self.len += 1;
        i
    }

    /// Removes slot `i`'s entry: unlinks it from the LRU list and the index,
    /// wipes it and puts it on the free list.
    fn release(&mut self, i: u16) {
        self.unlink(i);
        #[cfg(wireseal_hash_index)]
        {
            let peer = self.slots.as_ref()[usize::from(i)].peer;
            self.index.remove(&peer);
        }
        let free = self.free;
        let s = &mut self.slots.as_mut()[usize::from(i)];
        s.value = None;
        s.next = free;
        s.prev = NIL;
        self.free = i;
        self.len -= 1;
    }

    fn unlink(&mut self, i: u16) {
        let slots = self.slots.as_mut();
        let (prev, next) = {
            let s = &slots[usize::from(i)];
            (s.prev, s.next)
        };
        if prev != NIL {
            slots[usize::from(prev)].next = next;
        } else if self.head == i {
            self.head = next;
        }
        if next != NIL {
            slots[usize::from(next)].prev = prev;
        } else if self.tail == i {
            self.tail = prev;
        }
        let s = &mut slots[usize::from(i)];
        s.prev = NIL;
        s.next = NIL;
    }

    fn push_front(&mut self, i: u16) {
        let old = self.head;
        let slots = self.slots.as_mut();
        {
            let s = &mut slots[usize::from(i)];
            s.prev = NIL;
            s.next = old;
        }
        if old != NIL {
            slots[usize::from(old)].prev = i;
        } else {
            self.tail = i;
        }
        self.head = i;
    }
}

impl<V: ZeroizeOnDrop, const PK: usize, S: SlotStorage<V, PK>> Drop
    for SharedSecretCache<V, PK, S>
{
    /// Wipes every value, also when the slots are borrowed memory that
    /// outlives the cache.
    fn drop(&mut self) {
        for s in self.slots.as_mut().iter_mut() {
            s.value = None;
        }
    }
}

#[cfg(test)]
mod tests;
