//! Wiping byte buffers that held a secret or a plaintext: [`wipe`] for a
//! slice, and [`WipedBytes`], a `Vec<u8>` wiped by [`WipedBytes::wipe`]
//! and, over its whole capacity, when dropped.
//!
//! `zeroize` writes a byte slice one volatile byte at a time, which is
//! what keeps a compiler from removing the writes, and what no compiler
//! may merge into wider stores. In WebAssembly that is one `i32.store8`
//! per byte: wiping 64 KiB took about 28 µs in Node 20 here, as long as
//! OpenSSL takes to seal the same bytes, and the 1 MiB pieces of an AES
//! Crypt file about 30 ms per 64 MiB. Bulk buffers are therefore wiped
//! with one `memory.fill` (`fill(0)`), then handed to
//! [`core::hint::black_box`], which the compiler must assume reads the
//! whole buffer, so the zeros cannot be dropped as dead stores (the
//! pattern of C's `explicit_bzero`: a memset, then an empty asm statement
//! that uses the pointer and clobbers memory). Fixed-size keys stay in
//! `zeroize`'s types.

use core::ops::{Deref, DerefMut};
use core::sync::atomic::{compiler_fence, Ordering};

/// Overwrites `buf` with zeros, in a way the compiler keeps.
pub fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    core::hint::black_box(&mut *buf);
    compiler_fence(Ordering::SeqCst);
}

/// A byte buffer for a secret or a plaintext. [`WipedBytes::wipe`]
/// overwrites its contents before it is reused; drop overwrites its whole
/// capacity (what a longer earlier content or a `truncate` left behind
/// too) before it is freed. It dereferences to the `Vec<u8>`; a `Vec` that
/// reallocates leaves its old block unwiped, so reserve the room first
/// where a buffer grows.
#[derive(Default)]
pub struct WipedBytes(Vec<u8>);

impl WipedBytes {
    /// Takes `v` (wiped from now on).
    pub fn new(v: Vec<u8>) -> Self {
        Self(v)
    }

    /// An empty buffer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        Self(Vec::with_capacity(n))
    }

    /// Overwrites the contents with zeros and empties the buffer (keeping
    /// its capacity). A buffer that is only appended to between wipes
    /// holds nothing else.
    pub fn wipe(&mut self) {
        wipe(&mut self.0);
        self.0.clear();
    }
}

impl Deref for WipedBytes {
    type Target = Vec<u8>;

    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl DerefMut for WipedBytes {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl Drop for WipedBytes {
    fn drop(&mut self) {
        // The spare capacity joins the contents as zeros (one memset for
        // both), then all of it is wiped as one slice.
        let cap = self.0.capacity();
        self.0.resize(cap, 0);
        wipe(&mut self.0);
    }
}

impl core::fmt::Debug for WipedBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "WipedBytes({} bytes)", self.0.len())
    }
}
