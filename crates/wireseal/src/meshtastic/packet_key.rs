//! What makes two copies of a packet one packet.
//!
//! A packet with an id is the same packet wherever it is heard: its key is
//! (sender, id). Some packets carry no id: the firmware allocates a map
//! report (`MAP_REPORT_APP`, published on `<root>/2/map/`) zeroed, so every
//! report a node ever sends has id 0. Those are keyed by their content: a
//! digest of (sender, port, payload), the same for the copies several
//! gateways publish of one report, different for different reports. The same
//! report sent again later is a new packet: a [`ContentWindow`] keeps each
//! digest for a window of time, and copies within it get the key of the
//! first.
//!
//! Keys are one `i64` for stores: an id is itself (0 to 2^32 - 1), a content
//! key is negative, so the two never meet.
//!
//! ```
//! use wireseal::meshtastic::packet_key::{ContentWindow, PacketKey};
//!
//! let mut w = ContentWindow::new(60_000, 1024);
//! let a = w.key(1_000, 0x929, 0, Some(73), b"report one");
//! let b = w.key(1_200, 0x929, 0, Some(73), b"report one"); // another gateway's copy
//! let c = w.key(1_300, 0x929, 0, Some(73), b"report two");
//! assert_eq!(a, b);
//! assert_ne!(a, c);
//! assert!(a.as_i64() < 0);
//! assert_eq!(w.key(1_400, 0x929, 7, Some(1), b"hi"), PacketKey::Id(7));
//! ```

use crate::primitives::sha::sha256_parts;
use std::collections::{HashMap, VecDeque};

/// A packet's identity across copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketKey {
    /// The packet's own id (never 0).
    Id(u32),
    /// A content key (negative) for a packet without an id.
    Content(i64),
}

impl PacketKey {
    /// The key as a store keeps it: the id, or the negative content key.
    pub const fn as_i64(&self) -> i64 {
        match self {
            PacketKey::Id(id) => *id as i64,
            PacketKey::Content(k) => *k,
        }
    }
}

/// The digest of a packet's content: sender, port (`None`: not decoded,
/// then `body` is the ciphertext) and payload.
pub fn content_digest(from: u32, portnum: Option<i32>, body: &[u8]) -> [u8; 32] {
    let port = portnum.map_or(u32::MAX.to_le_bytes(), |p| (p as u32).to_le_bytes());
    sha256_parts(&[b"meshtastic-content", &from.to_le_bytes(), &port, body])
}

/// The content key of `digest` first seen in window number `epoch`.
fn content_key(digest: &[u8; 32], epoch: u64) -> i64 {
    let d = sha256_parts(&[digest, &epoch.to_le_bytes()]);
    let mut k = [0u8; 8];
    k.copy_from_slice(&d[..8]);
    // 63 bits, then negated: -1 to -2^63.
    -1 - (u64::from_le_bytes(k) >> 1) as i64
}

/// Content digests seen within a window of time, bounded in number.
#[derive(Debug, Clone)]
pub struct ContentWindow {
    window_ms: u64,
    capacity: usize,
    seen: HashMap<[u8; 32], (u64, i64)>,
    /// Digests in the order first seen, with that time.
    order: VecDeque<(u64, [u8; 32])>,
}

impl ContentWindow {
    /// Copies within `window_ms` (at least 1) of a content's first sighting
    /// are one packet; at most `capacity` (at least 1) contents are kept, the
    /// oldest forgotten first.
    pub fn new(window_ms: u64, capacity: usize) -> Self {
        Self {
            window_ms: window_ms.max(1),
            capacity: capacity.max(1),
            seen: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// The window, in milliseconds.
    pub fn window_ms(&self) -> u64 {
        self.window_ms
    }

    /// Contents remembered now.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no content is remembered.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// The key of a packet from `from` with id `id`, heard at `now` (the
    /// caller's milliseconds): [`PacketKey::Id`] unless `id` is 0, else the
    /// content key of (`from`, `portnum`, `body`) for this window.
    pub fn key(
        &mut self,
        now: u64,
        from: u32,
        id: u32,
        portnum: Option<i32>,
        body: &[u8],
    ) -> PacketKey {
        if id != 0 {
            return PacketKey::Id(id);
        }
        self.expire(now);
        let digest = content_digest(from, portnum, body);
        if let Some(&(_, k)) = self.seen.get(&digest) {
            return PacketKey::Content(k);
        }
        if self.seen.len() >= self.capacity {
            if let Some((_, oldest)) = self.order.pop_front() {
                self.seen.remove(&oldest);
            }
        }
        let k = content_key(&digest, now / self.window_ms);
        self.seen.insert(digest, (now, k));
        self.order.push_back((now, digest));
        PacketKey::Content(k)
    }

    /// Forgets contents first seen a window or more before `now`.
    fn expire(&mut self, now: u64) {
        while let Some(&(t, d)) = self.order.front() {
            if now.saturating_sub(t) < self.window_ms {
                break;
            }
            self.order.pop_front();
            self.seen.remove(&d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_within_the_window_share_a_key() {
        let mut w = ContentWindow::new(1_000, 16);
        let k1 = w.key(10, 5, 0, Some(73), b"r1");
        assert_eq!(w.key(900, 5, 0, Some(73), b"r1"), k1);
        assert_ne!(w.key(20, 6, 0, Some(73), b"r1"), k1, "another sender");
        assert_ne!(w.key(20, 5, 0, Some(1), b"r1"), k1, "another port");
        assert_ne!(w.key(20, 5, 0, None, b"r1"), k1, "not decoded");
        // A window after the first sighting, the same content is a new packet.
        let later = w.key(1_010, 5, 0, Some(73), b"r1");
        assert_ne!(later, k1);
        assert_eq!(w.key(1_500, 5, 0, Some(73), b"r1"), later);
        assert!(matches!(k1, PacketKey::Content(k) if k < 0));
    }

    #[test]
    fn bounded() {
        let mut w = ContentWindow::new(u64::MAX, 8);
        for i in 0..100u32 {
            w.key(u64::from(i), 1, 0, Some(73), &i.to_le_bytes());
        }
        assert_eq!((w.len(), w.order.len()), (8, 8));
        assert_eq!(PacketKey::Id(u32::MAX).as_i64(), i64::from(u32::MAX));
    }
}
