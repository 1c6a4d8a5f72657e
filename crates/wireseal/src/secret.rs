//! Secret newtypes: zeroized on drop, redacted `Debug`, no `Display`.
//!
//! Every key the library holds lives in one of these types, so that a stray
//! `{:?}` never prints key material and dropped keys do not linger in memory.

use core::fmt;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A fixed-size secret (a private key, a shared secret, a symmetric key).
///
/// Zeroized on drop; `Debug` prints only the length. `Clone` is deliberately
/// not implemented: copy the bytes out explicitly with [`Secret::expose`] when a
/// second owner is really needed.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct Secret<const N: usize>([u8; N]);

impl<const N: usize> Secret<N> {
    /// Wraps `bytes`; the caller's copy should be zeroized by the caller.
    pub fn new(bytes: [u8; N]) -> Self {
        Self(bytes)
    }

    /// Copies a slice of exactly `N` bytes; `None` on any other length.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        let arr: [u8; N] = bytes.try_into().ok()?;
        Some(Self(arr))
    }

    /// Fresh random bytes from the operating system's CSPRNG.
    #[cfg(feature = "std")]
    pub fn random() -> Self {
        let mut s = Self([0u8; N]);
        crate::entropy::fill_random(&mut s.0);
        s
    }

    /// Borrows the secret bytes. Keep the borrow short.
    pub fn expose(&self) -> &[u8; N] {
        &self.0
    }

    /// Mutable access, for filling a secret in place.
    pub fn expose_mut(&mut self) -> &mut [u8; N] {
        &mut self.0
    }

    /// True when every byte is zero (compared in constant time).
    pub fn is_all_zero(&self) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.0.ct_eq(&[0u8; N]))
    }
}

impl<const N: usize> fmt::Debug for Secret<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret<{N}>(redacted)")
    }
}

/// Overwrites `buf` with zeros, in a way the compiler keeps: one `fill`
/// (a `memset`: `rep stosb` on x86-64, `memory.fill` in WebAssembly), then
/// [`core::hint::black_box`] of the buffer, which the compiler must assume
/// reads all of it, so the zeros are never dropped as dead stores (the
/// pattern of C's `explicit_bzero`: a memset, then an empty asm statement
/// that takes the pointer and clobbers memory).
///
/// For bulk plaintext (file pieces, packets of kilobytes). `zeroize` writes
/// one volatile byte at a time, which no compiler may merge into wider
/// stores: about a byte a cycle natively, and one `i32.store8` a byte in
/// WebAssembly (28 µs for 64 KiB in Node 20, as long as OpenSSL takes to
/// seal it). The fixed-size keys in [`Secret`] stay with `zeroize`.
pub fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    core::hint::black_box(&mut *buf);
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// A variable-length secret (a password, a pre-shared key of run-time length).
#[derive(Zeroize, ZeroizeOnDrop, Default)]
#[cfg(feature = "alloc")]
pub struct SecretVec(alloc::vec::Vec<u8>);

#[cfg(feature = "alloc")]
impl SecretVec {
    /// Takes ownership of `bytes`.
    pub fn new(bytes: alloc::vec::Vec<u8>) -> Self {
        Self(bytes)
    }

    /// Borrows the secret bytes.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(feature = "alloc")]
impl From<&[u8]> for SecretVec {
    fn from(b: &[u8]) -> Self {
        Self(b.to_vec())
    }
}

#[cfg(feature = "alloc")]
impl fmt::Debug for SecretVec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretVec({} bytes, redacted)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_redacted() {
        let s = Secret::new([0x41u8; 32]);
        let d = format!("{s:?}");
        assert!(!d.contains("41") && !d.contains("65"), "{d}");
        let v = SecretVec::new(b"hunter2".to_vec());
        assert!(!format!("{v:?}").contains("hunter2"));
    }

    #[test]
    fn wipe_zeroes_the_slice_and_nothing_else() {
        let mut v = [0x5au8; 1000];
        wipe(&mut v[10..990]);
        assert!(v[10..990].iter().all(|&x| x == 0));
        assert_eq!(v[..10], [0x5a; 10]);
        assert_eq!(v[990..], [0x5a; 10]);
    }

    #[test]
    fn zero_detection() {
        assert!(Secret::new([0u8; 32]).is_all_zero());
        let mut b = [0u8; 32];
        b[31] = 1;
        assert!(!Secret::new(b).is_all_zero());
    }

    #[test]
    fn random_differs() {
        let a = Secret::<32>::random();
        let b = Secret::<32>::random();
        assert_ne!(a.expose(), b.expose());
    }
}
