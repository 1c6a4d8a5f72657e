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
//! - optional time-to-live, with `now` supplied by the caller in any
//!   monotonic unit (the library has no clock);
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

    /// Sets a time-to-live: an entry inserted at `t` is a miss at any `now >= t + ttl`.
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.ttl = Some(ttl);
        self
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
    pub fn get(&mut self, peer: &[u8; PK], now: u64) -> Option<&V> {
        let i = self.lookup(peer, now)?;
        self.slots[i as usize].value.as_ref()
    }

    /// Reads the value for `peer` without counting or reordering anything
    /// (for parallel readers); `None` if absent or expired at `now`.
    pub fn peek(&self, peer: &[u8; PK], now: u64) -> Option<&V> {
        self.peek_slot(peer, now).map(|(_, v)| v)
    }

    /// Like [`Self::peek`], also giving the slot number, for batch readers
    /// that report each hit afterwards with [`Self::touch_slot`].
    pub fn peek_slot(&self, peer: &[u8; PK], now: u64) -> Option<(usize, &V)> {
        let &i = self.index.get(peer)?;
        let s = &self.slots[i as usize];
        if let Some(ttl) = self.ttl {
            if now >= s.inserted_at.saturating_add(ttl) || now < s.inserted_at {
                return None;
            }
        }
        s.value.as_ref().map(|v| (i as usize, v))
    }

    /// Records one hit served earlier by [`Self::peek_slot`]: if slot `slot`
    /// still holds `peer`, counts a hit, marks it most recently used and
    /// returns true; otherwise (it was evicted or reused since) changes
    /// nothing and returns false.
    pub fn touch_slot(&mut self, slot: usize, peer: &[u8; PK]) -> bool {
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

    /// Returns the cached value for `peer`, deriving and inserting it with
    /// `derive` on a miss. A failed derivation inserts nothing.
    pub fn get_or_try_insert_with<E>(
        &mut self,
        peer: &[u8; PK],
        now: u64,
        derive: impl FnOnce(&[u8; PK]) -> Result<V, E>,
    ) -> Result<&V, E> {
        let i = match self.lookup(peer, now) {
            Some(i) => i,
            None => {
                let v = derive(peer)?;
                self.insert_fresh(peer, v, now)
            }
        };
        Ok(self.slots[i as usize]
            .value
            .as_ref()
            .expect("indexed slots hold a value"))
    }

    /// Inserts or replaces the value for `peer`.
    pub fn insert(&mut self, peer: &[u8; PK], value: V, now: u64) {
        self.invalidate(peer);
        self.insert_fresh(peer, value, now);
    }

    fn lookup(&mut self, peer: &[u8; PK], now: u64) -> Option<u32> {
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

    fn insert_fresh(&mut self, peer: &[u8; PK], value: V, now: u64) -> u32 {
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
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;
    use zeroize::Zeroize;

    #[derive(Zeroize, ZeroizeOnDrop)]
    struct V(u8);

    impl V {
        fn plain(x: u8) -> Self {
            V(x)
        }
    }

    fn key(b: u8) -> [u8; 32] {
        [b; 32]
    }

    fn cache(cap: usize) -> SharedSecretCache<V, 32> {
        SharedSecretCache::new(&[7u8; 32], cap)
    }

    #[test]
    fn hit_and_miss_are_counted() {
        let mut c = cache(4);
        assert!(c.get(&key(1), 0).is_none());
        let v = c
            .get_or_try_insert_with(&key(1), 0, |_| Ok::<_, ()>(V::plain(11)))
            .unwrap();
        assert_eq!(v.0, 11);
        assert_eq!(c.get(&key(1), 1).map(|v| v.0), Some(11));
        let s = c.stats();
        assert_eq!((s.hits, s.misses), (1, 2));
        // peek neither counts nor reorders.
        assert_eq!(c.peek(&key(1), 1).map(|v| v.0), Some(11));
        assert!(c.peek(&key(2), 1).is_none());
        assert_eq!(c.stats(), s);
    }

    #[test]
    fn failed_derivation_inserts_nothing() {
        let mut c = cache(4);
        let r = c.get_or_try_insert_with(&key(1), 0, |_| Err::<V, _>("weak key"));
        assert_eq!(r.err(), Some("weak key"));
        assert!(c.is_empty());
    }

    #[test]
    fn evicts_least_recently_used() {
        let mut c = cache(3);
        for b in 1..=3 {
            c.insert(&key(b), V::plain(b), 0);
        }
        // Touch 1, so 2 becomes the least recently used.
        assert!(c.get(&key(1), 0).is_some());
        c.insert(&key(4), V::plain(4), 0);
        assert!(c.get(&key(2), 0).is_none(), "2 was LRU and must be evicted");
        for b in [1, 3, 4] {
            assert!(c.get(&key(b), 0).is_some(), "{b} must survive");
        }
        assert_eq!(c.stats().evictions, 1);
        // Now the order (LRU first) is 1, 3, 4: inserting 5 evicts 1.
        c.insert(&key(5), V::plain(5), 0);
        assert!(c.get(&key(1), 0).is_none());
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn touched_slots_become_most_recent() {
        let mut c = cache(3);
        for b in 1..=3 {
            c.insert(&key(b), V::plain(b), 0);
        }
        let (slot, v) = c.peek_slot(&key(1), 0).unwrap();
        assert_eq!(v.0, 1);
        assert!(c.touch_slot(slot, &key(1)));
        assert_eq!(c.stats().hits, 1);
        // A slot that does not hold that peer (any more) changes nothing.
        assert!(!c.touch_slot(slot, &key(2)));
        assert!(!c.touch_slot(c.capacity(), &key(1)));
        assert_eq!(c.stats().hits, 1);
        c.insert(&key(4), V::plain(4), 0);
        assert!(c.peek(&key(1), 0).is_some(), "touched entry survives");
        assert!(c.peek(&key(2), 0).is_none(), "2 became least recently used");
    }

    #[test]
    fn peek_respects_ttl() {
        let mut c = cache(2).with_ttl(5);
        c.insert(&key(1), V::plain(1), 10);
        assert!(c.peek(&key(1), 14).is_some());
        assert!(c.peek(&key(1), 15).is_none());
        assert!(c.peek(&key(1), 9).is_none());
    }

    #[test]
    fn entries_expire_after_ttl() {
        let mut c = cache(4).with_ttl(10);
        c.insert(&key(1), V::plain(1), 100);
        assert!(c.get(&key(1), 109).is_some());
        assert!(c.get(&key(1), 110).is_none());
        assert_eq!(c.stats().expirations, 1);
        assert!(c.is_empty());
        // A clock that went backwards is treated as expired, never as fresh.
        c.insert(&key(2), V::plain(2), 100);
        assert!(c.get(&key(2), 50).is_none());
    }

    #[test]
    fn new_own_key_flushes_everything() {
        let mut c = cache(4);
        c.insert(&key(1), V::plain(1), 0);
        c.set_own_key(&[7u8; 32]);
        assert!(c.get(&key(1), 0).is_some(), "same own key keeps entries");
        c.set_own_key(&[8u8; 32]);
        assert!(c.get(&key(1), 0).is_none());
        assert_eq!(c.stats().flushes, 1);
        assert_eq!(c.own_key(), &[8u8; 32]);
    }

    #[test]
    fn invalidate_removes_one_peer() {
        let mut c = cache(4);
        c.insert(&key(1), V::plain(1), 0);
        c.insert(&key(2), V::plain(2), 0);
        assert!(c.invalidate(&key(1)));
        assert!(!c.invalidate(&key(1)));
        assert!(c.get(&key(1), 0).is_none());
        assert!(c.get(&key(2), 0).is_some());
        // The freed slot is reused without evicting anyone.
        for b in 3..=5 {
            c.insert(&key(b), V::plain(b), 0);
        }
        assert_eq!(c.stats().evictions, 0);
    }

    #[test]
    fn forged_prefix_keys_miss() {
        let mut c = cache(16);
        let mut victim = [0u8; 32];
        for (i, b) in victim.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        c.insert(&victim, V::plain(42), 0);
        let mut forged4 = [0xEEu8; 32];
        forged4[..4].copy_from_slice(&victim[..4]);
        assert!(c.get(&forged4, 0).is_none(), "4-byte prefix must not match");
        let mut forged31 = victim;
        forged31[31] ^= 1;
        assert!(
            c.get(&forged31, 0).is_none(),
            "31-byte prefix must not match"
        );
        assert_eq!(c.get(&victim, 0).map(|v| v.0), Some(42));
    }

    #[test]
    fn values_are_dropped_on_eviction_and_drop() {
        let drops = Rc::new(Cell::new(0));
        struct Counted(Rc<Cell<u32>>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        #[derive(ZeroizeOnDrop)]
        struct W(#[zeroize(skip)] Counted, [u8; 4]);
        impl Zeroize for W {
            fn zeroize(&mut self) {
                self.1.zeroize();
            }
        }
        let mut c: SharedSecretCache<W> = SharedSecretCache::new(&[0u8; 32], 2);
        for b in 1..=3 {
            c.insert(&key(b), W(Counted(drops.clone()), [b; 4]), 0);
        }
        assert_eq!(drops.get(), 1, "the evicted value was dropped");
        c.invalidate(&key(2));
        assert_eq!(drops.get(), 2);
        drop(c);
        assert_eq!(drops.get(), 3);
    }

    #[test]
    fn large_capacity_churn_keeps_invariants() {
        let mut c = cache(64);
        for round in 0..10u64 {
            for b in 0..=255u8 {
                let mut k = [b; 32];
                k[0] = round as u8;
                c.get_or_try_insert_with(&k, round, |_| Ok::<_, ()>(V::plain(b)))
                    .unwrap();
                assert!(c.len() <= 64);
            }
        }
        assert_eq!(c.len(), 64);
        let s = c.stats();
        assert_eq!(s.misses, 2560);
        assert_eq!(s.evictions, 2560 - 64);
    }
}
