//! An optional per-sender replay window (the firmware has none).
//!
//! Meshtastic packet ids are not a strict sequence (a node starts from a
//! random id and several apps share one node), so the window remembers the
//! last `ids_per_sender` ids of each sender, for the last `max_senders`
//! senders, rather than a counter. The engine consults it only after a
//! packet's tag verified, so a forged packet can never mark an id as used.
//!
//! Limits (it is a window, not a ledger): a genuine packet replayed after
//! its sender sent `ids_per_sender` newer ones, or after `max_senders` other
//! senders pushed its sender out, is accepted again. Size the window for the
//! replay horizon you care about; memory is about `4 * ids_per_sender + 64`
//! bytes per sender (some 320 KiB with the defaults: 64 ids, 1,024 senders).
//! Every operation is O(`ids_per_sender`) for the id lookup plus
//! O(log `max_senders`) for the recency order.

#[allow(unused_imports)]
use crate::prelude::*;
use alloc::collections::BTreeMap;

/// Senders by node number: a hash map on `std`, a B-tree with `alloc` only.
#[cfg(feature = "std")]
type Senders = std::collections::HashMap<u32, Sender>;
#[cfg(not(feature = "std"))]
type Senders = BTreeMap<u32, Sender>;

/// Remembers recently accepted (from, id) pairs.
#[derive(Debug, Clone)]
pub struct ReplayWindow {
    ids_per_sender: usize,
    max_senders: usize,
    senders: Senders,
    /// Senders by when they were last heard (tick -> sender), oldest first.
    recency: BTreeMap<u64, u32>,
    tick: u64,
}

#[derive(Debug, Clone)]
struct Sender {
    ring: Vec<u32>,
    next: usize,
    last_used: u64,
}

impl Default for ReplayWindow {
    fn default() -> Self {
        Self::new(64, 1024)
    }
}

impl ReplayWindow {
    /// Remembers `ids_per_sender` ids (at least 1) for up to `max_senders` senders (at least 1);
    /// the least recently heard sender is forgotten first.
    pub fn new(ids_per_sender: usize, max_senders: usize) -> Self {
        Self {
            ids_per_sender: ids_per_sender.max(1),
            max_senders: max_senders.max(1),
            senders: Senders::new(),
            recency: BTreeMap::new(),
            tick: 0,
        }
    }

    /// Whether (from, id) was already accepted, without recording it.
    pub fn seen(&self, from: u32, id: u32) -> bool {
        self.senders
            .get(&from)
            .is_some_and(|s| s.ring.contains(&id))
    }

    /// Records (from, id); returns `false` (and records nothing) if it was
    /// already accepted. Call only for packets whose tag verified.
    pub fn accept(&mut self, from: u32, id: u32) -> bool {
        if self.seen(from, id) {
            return false;
        }
        self.tick += 1;
        if !self.senders.contains_key(&from) && self.senders.len() >= self.max_senders {
            if let Some((_, oldest)) = self.recency.pop_first() {
                self.senders.remove(&oldest);
            }
        }
        let cap = self.ids_per_sender;
        let s = self.senders.entry(from).or_insert_with(|| Sender {
            ring: Vec::with_capacity(cap),
            next: 0,
            last_used: 0,
        });
        self.recency.remove(&s.last_used);
        s.last_used = self.tick;
        self.recency.insert(self.tick, from);
        if s.ring.len() < cap {
            s.ring.push(id);
        } else {
            s.ring[s.next] = id;
            s.next = (s.next + 1) % cap;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_refused_per_sender() {
        let mut w = ReplayWindow::new(4, 8);
        assert!(w.accept(1, 100));
        assert!(!w.accept(1, 100));
        assert!(w.accept(2, 100), "same id from another sender is fine");
        for id in 101..=104 {
            assert!(w.accept(1, id));
        }
        // The window holds the last 4 ids of sender 1: 100 has rolled out.
        assert!(!w.seen(1, 100));
        assert!(w.seen(1, 104));
    }

    #[test]
    fn least_recently_heard_sender_is_forgotten() {
        let mut w = ReplayWindow::new(4, 2);
        assert!(w.accept(1, 1));
        assert!(w.accept(2, 1));
        assert!(w.accept(1, 2));
        assert!(w.accept(3, 1));
        assert!(!w.seen(2, 1), "sender 2 was least recently heard");
        assert!(w.seen(1, 1) && w.seen(3, 1));
        // Heard again, sender 1 outlives 3; a refused repeat changes nothing.
        assert!(!w.accept(3, 1));
        assert!(w.accept(1, 3));
        assert!(w.accept(4, 1));
        assert!(!w.seen(3, 1) && w.seen(1, 3) && w.seen(4, 1));
        assert_eq!(w.senders.len(), 2);
        assert_eq!(w.recency.len(), 2);
    }

    #[test]
    fn many_senders_stay_bounded() {
        let mut w = ReplayWindow::new(2, 100);
        for from in 0..10_000u32 {
            assert!(w.accept(from, from));
            assert!(w.accept(from % 7, from.wrapping_add(1_000_000)));
        }
        assert!(w.senders.len() <= 100 && w.recency.len() == w.senders.len());
        assert!(w.seen(9_999, 9_999) && !w.seen(0, 0));
    }
}
