//! Nonce, IV and key randomness.
//!
//! Randomness always comes fresh from the operating system's CSPRNG
//! (`getrandom`); nothing random is ever cached. What *is* cached is the
//! expensive, non-secret environment work some formats used to repeat per
//! call (for example a host identifier that AES Crypt writers fold into their
//! IV): compute it once per process with [`ProcessEntropy`], then mix fresh
//! OS randomness in every time.

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
    fn process_entropy_is_computed_once() {
        let a = ProcessEntropy::get() as *const _;
        let b = ProcessEntropy::get() as *const _;
        assert_eq!(a, b);
    }
}
