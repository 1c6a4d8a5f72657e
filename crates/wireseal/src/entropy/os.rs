//! Randomness from the operating system (`std` builds).
//!
//! Randomness always comes fresh from the operating system's CSPRNG
//! (`getrandom`), and no random byte is ever used twice. What *is* cached is
//! expensive, non-secret environment work that would otherwise be repeated
//! per call (for example a host identifier that AES Crypt writers fold into
//! their IV): compute it once per process with [`ProcessEntropy`], then mix
//! fresh OS randomness in every time. Public per-packet nonces, which a format
//! draws for every frame, come from a [`NonceSource`]: the same OS
//! randomness, fetched a few KiB per system call instead of one call per
//! packet.

use std::sync::OnceLock;

/// Fills `buf` from the operating system's CSPRNG.
///
/// # Panics
/// Only if the operating system refuses to provide randomness at all, which
/// leaves no safe way to continue (the same policy as `ring` and `rand`).
pub fn fill_random(buf: &mut [u8]) {
    getrandom::getrandom(buf).expect("the OS CSPRNG is unavailable");
}

/// Returns `N` fresh random bytes from the OS CSPRNG.
pub fn random_array<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    fill_random(&mut b);
    b
}

/// Bytes a [`NonceSource`] fetches per `getrandom` call (3 KiB: 256 nonces
/// of 12 bytes, 768 of 4).
pub const NONCE_SOURCE_BYTES: usize = 3072;

/// A per-sealer supply of random public nonces from the OS CSPRNG, with the
/// system call amortised over many packets.
///
/// One `getrandom` system call costs about as much as sealing a whole small
/// packet, so a `NonceSource` asks the kernel for [`NONCE_SOURCE_BYTES`] at
/// once and hands them out a nonce at a time. Every nonce is still straight
/// from the OS CSPRNG, so the nonces on the wire have exactly the
/// distribution of one call per packet (uniform, independent), and peers
/// cannot tell the difference. For public nonces only: secrets (keys,
/// AES Crypt's per-file key) are drawn with [`fill_random`] when needed and
/// never sit in a buffer.
///
/// Each buffered byte is handed out at most once: the read position only
/// moves forward and a used slot is overwritten with zeros. A `NonceSource`
/// is not `Clone`. Hazard: a process that `fork`s without `exec` copies the
/// buffer into the child, which could then reuse nonces its parent also uses;
/// call [`NonceSource::discard`] in the child (or make a new source) after a
/// fork.
pub struct NonceSource {
    buf: Box<[u8; NONCE_SOURCE_BYTES]>,
    pos: usize,
}

impl core::fmt::Debug for NonceSource {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NonceSource")
            .field("bytes_left", &(NONCE_SOURCE_BYTES - self.pos))
            .finish()
    }
}

impl Default for NonceSource {
    fn default() -> Self {
        Self::new()
    }
}

impl NonceSource {
    /// An empty source; the first [`NonceSource::take`] fills it.
    pub fn new() -> Self {
        Self {
            buf: Box::new([0u8; NONCE_SOURCE_BYTES]),
            pos: NONCE_SOURCE_BYTES,
        }
    }

    /// The next `N` fresh random bytes (`N` at most [`NONCE_SOURCE_BYTES`]).
    #[inline]
    pub fn take<const N: usize>(&mut self) -> [u8; N] {
        const { assert!(N <= NONCE_SOURCE_BYTES) };
        if self.pos + N > NONCE_SOURCE_BYTES {
            fill_random(&mut self.buf[..]);
            self.pos = 0;
        }
        let mut n = [0u8; N];
        let slot = &mut self.buf[self.pos..self.pos + N];
        n.copy_from_slice(slot);
        slot.fill(0);
        self.pos += N;
        n
    }

    /// Throws away every buffered byte (for example in a forked child).
    pub fn discard(&mut self) {
        self.buf.fill(0);
        self.pos = NONCE_SOURCE_BYTES;
    }
}

/// Process-wide, non-secret context computed once (the "expensive
/// environment lookup"), used to domain-separate generated IVs per host and
/// process. It is never a substitute for fresh randomness.
#[derive(Debug, Clone)]
pub struct ProcessEntropy {
    context: [u8; 32],
}

impl ProcessEntropy {
    /// The process-wide instance, computed on first use.
    pub fn get() -> &'static ProcessEntropy {
        static CELL: OnceLock<ProcessEntropy> = OnceLock::new();
        CELL.get_or_init(Self::compute)
    }

    fn compute() -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"wireseal process context v1");
        h.update(std::process::id().to_le_bytes());
        if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            h.update(t.as_nanos().to_le_bytes());
        }
        if let Ok(name) = std::fs::read("/proc/sys/kernel/hostname") {
            h.update(&name);
        }
        h.update(random_array::<32>());
        Self {
            context: h.finalize().into(),
        }
    }

    /// The 32-byte context digest.
    pub fn context(&self) -> &[u8; 32] {
        &self.context
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_arrays_differ() {
        assert_ne!(random_array::<16>(), random_array::<16>());
    }

    #[test]
    fn nonces_are_distinct_across_refills_and_sources() {
        use std::collections::HashSet;
        let mut s = NonceSource::new();
        let mut seen = HashSet::new();
        for _ in 0..(3 * NONCE_SOURCE_BYTES / 12 + 7) {
            assert!(seen.insert(s.take::<12>()));
        }
        s.discard();
        assert!(seen.insert(s.take::<12>()));
        // Two sources never share a buffer.
        let mut t = NonceSource::new();
        assert!(seen.insert(t.take::<12>()));
        // Sizes that do not divide the buffer refill before running short.
        for _ in 0..(NONCE_SOURCE_BYTES / 7 + 3) {
            assert_ne!(s.take::<7>(), [0u8; 7]);
        }
    }

    #[test]
    fn process_entropy_mixes_fresh_randomness() {
        // Same process, same host, nearly the same clock: only the OS
        // randomness mixed into each computation tells the two apart.
        let (x, y) = (ProcessEntropy::compute(), ProcessEntropy::compute());
        assert_ne!(x.context(), y.context());
        assert_ne!(ProcessEntropy::get().context(), &[0u8; 32]);
    }
}
