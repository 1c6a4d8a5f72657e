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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// How many times [`after_fork`] has run in this process (and its parents:
/// a child inherits the count and then adds its own).
static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);

/// Tells every [`NonceSource`] in this process that it is now a child of a
/// `fork` without `exec`: each throws away what it had buffered (which the
/// parent still holds too) before handing out another byte.
///
/// One call covers every sealer of every format, whichever thread owns it;
/// no sealer has to be found or reset. The Python package calls it from
/// `os.register_at_fork`, so Python programs (`multiprocessing` with the
/// `fork` start method) need nothing; a Rust or C program that forks
/// without `exec` and keeps sealing in the child calls it there first.
/// Checking costs each nonce one relaxed atomic load.
pub fn after_fork() {
    FORK_GENERATION.fetch_add(1, Ordering::SeqCst);
}

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
/// is not `Clone`. A process that `fork`s without `exec` copies the buffer
/// into the child: after [`after_fork`] every source refills before its
/// next nonce, so parent and child never hand out the same bytes.
pub struct NonceSource {
    buf: Box<[u8; NONCE_SOURCE_BYTES]>,
    pos: usize,
    /// The [`after_fork`] count when the buffer was filled.
    generation: u64,
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
            generation: FORK_GENERATION.load(Ordering::Relaxed),
        }
    }

    /// The next `N` fresh random bytes (`N` at most [`NONCE_SOURCE_BYTES`]).
    #[inline]
    pub fn take<const N: usize>(&mut self) -> [u8; N] {
        const { assert!(N <= NONCE_SOURCE_BYTES) };
        let generation = FORK_GENERATION.load(Ordering::Relaxed);
        if self.pos + N > NONCE_SOURCE_BYTES || generation != self.generation {
            fill_random(&mut self.buf[..]);
            self.pos = 0;
            self.generation = generation;
        }
        let mut n = [0u8; N];
        let slot = &mut self.buf[self.pos..self.pos + N];
        n.copy_from_slice(slot);
        slot.fill(0);
        self.pos += N;
        n
    }
}

/// Process-wide, non-secret context computed once: the wall clock at first
/// use and 32 bytes of OS randomness, hashed. AES Crypt folds it into every
/// public IV beside that IV's own fresh randomness, so two processes whose
/// random bytes came out equal (a cloned VM, a broken RNG) still differ by
/// their start time. It reads nothing from the environment (no files, no
/// process calls) and is never a substitute for fresh randomness.
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
        h.update(b"wireseal process context v2");
        // wasm32-unknown-unknown has no clock (std panics there): the
        // random bytes below are the context alone.
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            h.update(t.as_nanos().to_le_bytes());
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
        after_fork();
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
    fn a_fork_throws_the_buffer_away() {
        let mut s = NonceSource::new();
        let _ = s.take::<12>();
        let left = NONCE_SOURCE_BYTES - s.pos;
        // What the parent would hand out next, had nothing changed.
        let parents_next: [u8; 12] = s.buf[s.pos..s.pos + 12].try_into().unwrap();
        after_fork();
        let childs = s.take::<12>();
        assert_ne!(childs, parents_next);
        // The child refilled and took its nonce from the fresh buffer's start.
        assert_eq!(s.pos, 12);
        assert!(left > 12);
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
