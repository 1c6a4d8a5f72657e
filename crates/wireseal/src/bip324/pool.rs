//! Pre-generated ElligatorSwift keys, so a handshake's critical path does
//! only the ECDH and the key derivation.
//!
//! The pool holds no thread of its own: a driver calls [`KeyPool::fill`] from
//! wherever it likes (a background thread, an idle timer). Each key is handed
//! out once and never returned; every key was encoded with its own fresh
//! auxiliary randomness.

use crate::keys::EllSwiftKeypair;
use std::sync::Mutex;

/// A bounded stock of fresh single-use handshake keys.
#[derive(Debug)]
pub struct KeyPool {
    keys: Mutex<Vec<EllSwiftKeypair>>,
    capacity: usize,
}

impl KeyPool {
    /// An empty pool that [`Self::fill`] tops up to `capacity` keys.
    pub fn new(capacity: usize) -> Self {
        Self {
            keys: Mutex::new(Vec::with_capacity(capacity)),
            capacity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<EllSwiftKeypair>> {
        self.keys.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keys currently in stock.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no key is in stock.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most keys the pool holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Generates keys (outside the lock) until the pool is full or `max`
    /// keys were added; returns how many were added.
    pub fn fill_up_to(&self, max: usize) -> usize {
        let mut added = 0;
        while added < max && self.len() < self.capacity {
            let k = EllSwiftKeypair::generate();
            let mut g = self.lock();
            if g.len() >= self.capacity {
                break;
            }
            g.push(k);
            added += 1;
        }
        added
    }

    /// Tops the pool up to its capacity; returns how many keys were added.
    pub fn fill(&self) -> usize {
        self.fill_up_to(usize::MAX)
    }

    /// A key from stock, if any.
    pub fn try_take(&self) -> Option<EllSwiftKeypair> {
        self.lock().pop()
    }

    /// A key from stock, or a freshly generated one when the pool is empty.
    pub fn take(&self) -> EllSwiftKeypair {
        self.try_take().unwrap_or_else(EllSwiftKeypair::generate)
    }
}
