//! Nonce, IV and key randomness.
//!
//! `std` builds draw every random byte from the operating system's CSPRNG
//! (see [`fill_random`], [`NonceSource`], [`ProcessEntropy`]). The portable
//! core has no operating system: its entry points that need randomness
//! (`*_with_rng`) take the caller's generator, any [`RngCore`] +
//! [`CryptoRng`] (a microcontroller's RNG peripheral, or a DRBG seeded from
//! it). The library never buffers or reuses the caller's random bytes.

pub use rand_core::{CryptoRng, Error as RandError, RngCore};

#[cfg(feature = "std")]
mod os;
#[cfg(feature = "std")]
pub use os::*;
