//! [`WipedBytes`]: a `Vec<u8>` for a secret or a plaintext copied into the
//! module, wiped with the library's [`wipe`] (one `memory.fill` and a
//! compiler barrier; `zeroize`'s byte-at-a-time volatile writes cost as
//! much as OpenSSL's ChaCha20-Poly1305 on a 64 KiB packet in Node 20).
//! Fixed-size keys stay in `zeroize`'s types.

use core::ops::{Deref, DerefMut};
use wireseal::secret::wipe;

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
