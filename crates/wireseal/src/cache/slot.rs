//! A cache slot, the storage slots live in, and the constant-time scan that
//! finds a peer's slot in builds without the hash index.

use super::NIL;

/// One cache slot: a peer's whole key, its value, when it was inserted and
/// its place in the least-recently-used order. The fields are private; make
/// storage with [`Slot::EMPTY`] or [`Slot::array`].
pub struct Slot<V, const PK: usize = 32> {
    pub(super) peer: [u8; PK],
    pub(super) value: Option<V>,
    pub(super) inserted_at: u64,
    pub(super) prev: u16,
    pub(super) next: u16,
}

impl<V, const PK: usize> Slot<V, PK> {
    /// An empty slot.
    pub const EMPTY: Self = Self {
        peer: [0u8; PK],
        value: None,
        inserted_at: 0,
        prev: NIL,
        next: NIL,
    };

    /// `N` empty slots, for [`super::SharedSecretCache::with_slots`].
    pub const fn array<const N: usize>() -> [Self; N] {
        [const { Self::EMPTY }; N]
    }
}

/// The default storage of a cache's slots: one type in every build.
/// [`DefaultSlots::new`] makes [`super::DEFAULT_CAPACITY`] empty slots, and
/// where an allocator is present [`DefaultSlots::with_capacity`] makes any
/// number up to [`super::MAX_CAPACITY`]. With the `alloc` feature the slots
/// live on the heap, without it inline; code written against one build
/// compiles and behaves the same in the other.
pub struct DefaultSlots<V, const PK: usize = 32> {
    #[cfg(feature = "alloc")]
    slots: alloc::boxed::Box<[Slot<V, PK>]>,
    #[cfg(not(feature = "alloc"))]
    slots: [Slot<V, PK>; super::DEFAULT_CAPACITY],
}

impl<V, const PK: usize> DefaultSlots<V, PK> {
    /// [`super::DEFAULT_CAPACITY`] empty slots.
    pub fn new() -> Self {
        #[cfg(feature = "alloc")]
        return Self::with_capacity(super::DEFAULT_CAPACITY);
        #[cfg(not(feature = "alloc"))]
        Self {
            slots: Slot::array(),
        }
    }

    /// `capacity` empty slots (1 to [`super::MAX_CAPACITY`], clamped),
    /// allocated here once.
    #[cfg(feature = "alloc")]
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.clamp(1, super::MAX_CAPACITY);
        Self {
            slots: (0..capacity).map(|_| Slot::EMPTY).collect(),
        }
    }
}

impl<V, const PK: usize> Default for DefaultSlots<V, PK> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V, const PK: usize> AsRef<[Slot<V, PK>]> for DefaultSlots<V, PK> {
    fn as_ref(&self) -> &[Slot<V, PK>] {
        &self.slots[..]
    }
}

impl<V, const PK: usize> AsMut<[Slot<V, PK>]> for DefaultSlots<V, PK> {
    fn as_mut(&mut self) -> &mut [Slot<V, PK>] {
        &mut self.slots[..]
    }
}

/// Storage a cache's slots can live in: a boxed slice, an array, or a
/// borrowed slice of the caller's memory.
pub trait SlotStorage<V, const PK: usize>: AsRef<[Slot<V, PK>]> + AsMut<[Slot<V, PK>]> {}
impl<V, const PK: usize, S: AsRef<[Slot<V, PK>]> + AsMut<[Slot<V, PK>]>> SlotStorage<V, PK> for S {}

/// The slot holding `peer`, if any: every slot's whole key is compared,
/// four bytes at a time, and the match is selected without a branch on key
/// bytes, so the time depends only on the number of slots.
#[cfg(not(wireseal_hash_index))]
#[inline]
pub(super) fn scan<V, const PK: usize>(slots: &[Slot<V, PK>], peer: &[u8; PK]) -> Option<u16> {
    use subtle::{ConditionallySelectable, ConstantTimeEq};
    let mut found = subtle::Choice::from(0);
    let mut at = 0u16;
    for (i, s) in slots.iter().enumerate() {
        let mut diff = 0u32;
        let (a, b) = (s.peer.chunks_exact(4), peer.chunks_exact(4));
        for (x, y) in a.clone().remainder().iter().zip(b.clone().remainder()) {
            diff |= u32::from(x ^ y);
        }
        for (x, y) in a.zip(b) {
            let x = u32::from_ne_bytes(x.try_into().expect("chunk of 4"));
            let y = u32::from_ne_bytes(y.try_into().expect("chunk of 4"));
            diff |= x ^ y;
        }
        // Occupancy is not secret; only the key comparison must not leak.
        let hit = diff.ct_eq(&0) & subtle::Choice::from(u8::from(s.value.is_some()));
        at.conditional_assign(&(i as u16), hit);
        found |= hit;
    }
    bool::from(found).then_some(at)
}
