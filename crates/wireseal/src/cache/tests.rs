//! Unit tests of the shared-secret cache: counting, LRU order, TTL, flushes,
//! whole-key matching and wiping.

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
    assert!(c.get(0, &key(1)).is_none());
    let v = c
        .get_or_try_insert_with(0, &key(1), |_| Ok::<_, ()>(V::plain(11)))
        .unwrap();
    assert_eq!(v.0, 11);
    assert_eq!(c.get(1, &key(1)).map(|v| v.0), Some(11));
    let s = c.stats();
    assert_eq!((s.hits, s.misses), (1, 2));
    // peek neither counts nor reorders.
    assert_eq!(c.peek(1, &key(1)).map(|v| v.0), Some(11));
    assert!(c.peek(1, &key(2)).is_none());
    assert_eq!(c.stats(), s);
}

#[test]
fn failed_derivation_inserts_nothing() {
    let mut c = cache(4);
    let r = c.get_or_try_insert_with(0, &key(1), |_| Err::<V, _>("weak key"));
    assert_eq!(r.err(), Some("weak key"));
    assert!(c.is_empty());
}

#[test]
fn evicts_least_recently_used() {
    let mut c = cache(3);
    for b in 1..=3 {
        c.insert(0, &key(b), V::plain(b));
    }
    // Touch 1, so 2 becomes the least recently used.
    assert!(c.get(0, &key(1)).is_some());
    c.insert(0, &key(4), V::plain(4));
    assert!(c.get(0, &key(2)).is_none(), "2 was LRU and must be evicted");
    for b in [1, 3, 4] {
        assert!(c.get(0, &key(b)).is_some(), "{b} must survive");
    }
    assert_eq!(c.stats().evictions, 1);
    // Now the order (LRU first) is 1, 3, 4: inserting 5 evicts 1.
    c.insert(0, &key(5), V::plain(5));
    assert!(c.get(0, &key(1)).is_none());
    assert_eq!(c.len(), 3);
}

#[test]
fn touched_slots_become_most_recent() {
    let mut c = cache(3);
    for b in 1..=3 {
        c.insert(0, &key(b), V::plain(b));
    }
    let (slot, v) = c.peek_slot(0, &key(1)).unwrap();
    assert_eq!(v.0, 1);
    assert!(c.touch_slot(slot, &key(1)));
    assert_eq!(c.stats().hits, 1);
    // A slot that does not hold that peer (any more) changes nothing.
    assert!(!c.touch_slot(slot, &key(2)));
    assert!(!c.touch_slot(c.capacity(), &key(1)));
    assert_eq!(c.stats().hits, 1);
    c.insert(0, &key(4), V::plain(4));
    assert!(c.peek(0, &key(1)).is_some(), "touched entry survives");
    assert!(c.peek(0, &key(2)).is_none(), "2 became least recently used");
}

#[test]
fn touching_slots_together_is_touching_them_in_turn() {
    let order = [3, 1, 3, 4, 1, 1, 2];
    let mut one = cache(5);
    let mut all = cache(5);
    for b in 1..=5 {
        one.insert(0, &key(b), V::plain(b));
        all.insert(0, &key(b), V::plain(b));
    }
    let slot = |c: &SharedSecretCache<V>, b| c.peek_slot(0, &key(b)).unwrap().0;
    let slots: Vec<usize> = order.iter().map(|&b| slot(&all, b)).collect();
    for &b in &order {
        assert!(one.touch_slot(slot(&one, b), &key(b)));
    }
    all.touch_slots(slots.into_iter());
    assert_eq!(all.stats(), one.stats());
    // The same recency: inserting evicts the same entries in the same order.
    for b in 6..=9 {
        one.insert(0, &key(b), V::plain(b));
        all.insert(0, &key(b), V::plain(b));
        let left =
            |c: &SharedSecretCache<V>| (1..=9).filter(|&k| c.peek(0, &key(k)).is_some()).count();
        assert_eq!(left(&all), left(&one));
        for k in 1..=9 {
            assert_eq!(
                all.peek(0, &key(k)).is_some(),
                one.peek(0, &key(k)).is_some(),
                "{b} {k}"
            );
        }
    }
}

#[test]
fn peek_respects_ttl() {
    let mut c = cache(2).with_ttl(5);
    c.insert(10, &key(1), V::plain(1));
    assert!(c.peek(14, &key(1)).is_some());
    assert!(c.peek(15, &key(1)).is_none());
    assert!(c.peek(9, &key(1)).is_none());
}

#[test]
fn entries_expire_after_ttl() {
    let mut c = cache(4).with_ttl(10);
    c.insert(100, &key(1), V::plain(1));
    assert!(c.get(109, &key(1)).is_some());
    assert!(c.get(110, &key(1)).is_none());
    assert_eq!(c.stats().expirations, 1);
    assert!(c.is_empty());
    // A clock that went backwards is treated as expired, never as fresh.
    c.insert(100, &key(2), V::plain(2));
    assert!(c.get(50, &key(2)).is_none());
}

#[test]
fn new_own_key_flushes_everything() {
    let mut c = cache(4);
    c.insert(0, &key(1), V::plain(1));
    c.set_own_key(&[7u8; 32]);
    assert!(c.get(0, &key(1)).is_some(), "same own key keeps entries");
    c.set_own_key(&[8u8; 32]);
    assert!(c.get(0, &key(1)).is_none());
    assert_eq!(c.stats().flushes, 1);
    assert_eq!(c.own_key(), &[8u8; 32]);
}

#[test]
fn invalidate_removes_one_peer() {
    let mut c = cache(4);
    c.insert(0, &key(1), V::plain(1));
    c.insert(0, &key(2), V::plain(2));
    assert!(c.invalidate(&key(1)));
    assert!(!c.invalidate(&key(1)));
    assert!(c.get(0, &key(1)).is_none());
    assert!(c.get(0, &key(2)).is_some());
    // The freed slot is reused without evicting anyone.
    for b in 3..=5 {
        c.insert(0, &key(b), V::plain(b));
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
    c.insert(0, &victim, V::plain(42));
    let mut forged4 = [0xEEu8; 32];
    forged4[..4].copy_from_slice(&victim[..4]);
    assert!(c.get(0, &forged4).is_none(), "4-byte prefix must not match");
    let mut forged31 = victim;
    forged31[31] ^= 1;
    assert!(
        c.get(0, &forged31).is_none(),
        "31-byte prefix must not match"
    );
    assert_eq!(c.get(0, &victim).map(|v| v.0), Some(42));
}

/// Counts its drops in a shared counter.
struct Counted(Rc<Cell<u32>>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

/// A cache value whose drops are counted.
#[derive(ZeroizeOnDrop)]
struct W(#[zeroize(skip)] Counted, [u8; 4]);

impl Zeroize for W {
    fn zeroize(&mut self) {
        self.1.zeroize();
    }
}

#[test]
fn values_are_dropped_on_eviction_and_drop() {
    let drops = Rc::new(Cell::new(0));
    let mut c: SharedSecretCache<W> = SharedSecretCache::new(&[0u8; 32], 2);
    for b in 1..=3 {
        c.insert(0, &key(b), W(Counted(drops.clone()), [b; 4]));
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
            c.get_or_try_insert_with(round, &k, |_| Ok::<_, ()>(V::plain(b)))
                .unwrap();
            assert!(c.len() <= 64);
        }
    }
    assert_eq!(c.len(), 64);
    let s = c.stats();
    assert_eq!(s.misses, 2560);
    assert_eq!(s.evictions, 2560 - 64);
}

#[test]
fn borrowed_slots_are_wiped_when_the_cache_drops() {
    let drops = Rc::new(Cell::new(0));
    // The caller's memory (as the C ABI passes it), outliving the cache.
    let mut slots: [Slot<W>; 3] = Slot::array();
    {
        let mut c = SharedSecretCache::with_slots(&[0u8; 32], &mut slots[..]);
        assert_eq!(c.capacity(), 3);
        for b in 1..=4 {
            c.insert(0, &key(b), W(Counted(drops.clone()), [b; 4]));
        }
        assert_eq!((c.len(), drops.get()), (3, 1), "one evicted");
        assert!(c.get(0, &key(4)).is_some() && c.get(0, &key(1)).is_none());
    }
    assert_eq!(drops.get(), 4, "every value dropped with the cache");
    assert!(slots.iter().all(|s| s.value.is_none()));
}
