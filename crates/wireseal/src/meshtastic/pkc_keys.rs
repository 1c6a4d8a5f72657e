//! The two forms a PKC peer key can be cached in: [`PkcKey`], the expanded
//! AES-256-CCM key (the fastest cached open, ~1 KiB per slot on x86-64,
//! 520 bytes on a Cortex-M4), and [`PkcSecret`], the 32-byte SHA-256 of the
//! X25519 output (an 80-byte slot; the AES key schedule runs per packet).
//! The caller picks one as the first type parameter of
//! [`super::PkcEngine`].

use super::pkc_wire::{MAX_PLAINTEXT_LEN, OVERHEAD, TAG_LEN};
use crate::meshtastic::Error;
use crate::primitives::aes_ccm::Aes256Ccm8;
use crate::primitives::sha::sha256;
use crate::primitives::x25519::StaticSecret;
use crate::secret::Secret;

mod sealed {
    pub trait Sealed {}
}

/// A form of the per-peer PKC key that [`super::PkcEngine`] caches:
/// [`PkcKey`] or [`PkcSecret`]. Sealed: only this module implements it.
pub trait PkcKeyForm: zeroize::ZeroizeOnDrop + Sized + sealed::Sealed {
    /// Derives the peer's key: SHA-256 of the raw X25519 output, as the
    /// firmware does.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a low-order peer key (all-zero shared
    /// secret).
    fn derive(own: &StaticSecret, peer_public: &[u8; 32]) -> Result<Self, Error>;

    /// Seals `plaintext` into `out` (exactly `sealed_len` bytes, checked by
    /// the caller) with extraNonce `extra`; returns `out.len()`.
    #[doc(hidden)]
    fn seal_into(
        &self,
        from: u32,
        id: u32,
        plaintext: &[u8],
        extra: [u8; 4],
        out: &mut [u8],
    ) -> Result<usize, Error>;

    /// Verifies and decrypts `payload` into `out` (exactly
    /// `payload.len() - OVERHEAD` bytes).
    #[doc(hidden)]
    fn open(&self, from: u32, id: u32, payload: &[u8], out: &mut [u8]) -> Result<(), Error>;
}

/// The expanded AES-256-CCM key of a peer (the default form: the fastest
/// cached open).
pub struct PkcKey(Aes256Ccm8);

// The only field wipes its round keys on drop.
impl zeroize::ZeroizeOnDrop for PkcKey {}
impl sealed::Sealed for PkcKey {}

/// The 32-byte AES key of a peer (SHA-256 of the X25519 output): the
/// small-slot form for firmware, expanded again for each packet.
pub struct PkcSecret(Secret<32>);

impl zeroize::ZeroizeOnDrop for PkcSecret {}
impl sealed::Sealed for PkcSecret {}

impl PkcKey {
    /// Derives the key the firmware uses: SHA-256 of the raw X25519 output.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a low-order peer key (all-zero shared
    /// secret).
    pub fn derive(own: &StaticSecret, peer_public: &[u8; 32]) -> Result<Self, Error> {
        Ok(Self(Aes256Ccm8::new(aes_key(own, peer_public)?.expose())))
    }
}

impl PkcKeyForm for PkcKey {
    #[inline]
    fn derive(own: &StaticSecret, peer_public: &[u8; 32]) -> Result<Self, Error> {
        PkcKey::derive(own, peer_public)
    }

    #[inline]
    fn seal_into(
        &self,
        from: u32,
        id: u32,
        plaintext: &[u8],
        extra: [u8; 4],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        seal_with(&self.0, from, id, plaintext, extra, out)
    }

    #[inline]
    fn open(&self, from: u32, id: u32, payload: &[u8], out: &mut [u8]) -> Result<(), Error> {
        open_with(&self.0, from, id, payload, out)
    }
}

impl PkcKeyForm for PkcSecret {
    #[inline]
    fn derive(own: &StaticSecret, peer_public: &[u8; 32]) -> Result<Self, Error> {
        aes_key(own, peer_public).map(Self)
    }

    #[inline]
    fn seal_into(
        &self,
        from: u32,
        id: u32,
        plaintext: &[u8],
        extra: [u8; 4],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        seal_with(
            &Aes256Ccm8::new(self.0.expose()),
            from,
            id,
            plaintext,
            extra,
            out,
        )
    }

    #[inline]
    fn open(&self, from: u32, id: u32, payload: &[u8], out: &mut [u8]) -> Result<(), Error> {
        open_with(&Aes256Ccm8::new(self.0.expose()), from, id, payload, out)
    }
}

/// The firmware's AES-256 key for a peer: SHA-256 of the raw X25519 output.
fn aes_key(own: &StaticSecret, peer_public: &[u8; 32]) -> Result<Secret<32>, Error> {
    let shared = own.diffie_hellman(peer_public)?;
    Ok(Secret::new(sha256(shared.expose())))
}

#[inline]
fn seal_with(
    key: &Aes256Ccm8,
    from: u32,
    id: u32,
    plaintext: &[u8],
    extra: [u8; 4],
    out: &mut [u8],
) -> Result<usize, Error> {
    let (pt, rest) = out.split_at_mut(plaintext.len());
    pt.copy_from_slice(plaintext);
    let tag = key
        .seal_in_place(&nonce(from, id, extra), &[], pt)
        .map_err(|_| Error::TooLong {
            len: plaintext.len(),
            max: MAX_PLAINTEXT_LEN,
        })?;
    rest[..TAG_LEN].copy_from_slice(&tag);
    rest[TAG_LEN..OVERHEAD].copy_from_slice(&extra);
    Ok(out.len())
}

#[inline]
fn open_with(
    key: &Aes256Ccm8,
    from: u32,
    id: u32,
    payload: &[u8],
    out: &mut [u8],
) -> Result<(), Error> {
    let ct_len = payload.len() - OVERHEAD;
    let (ct, rest) = payload.split_at(ct_len);
    let tag: [u8; TAG_LEN] = rest[..TAG_LEN].try_into().expect("length checked");
    let extra: [u8; 4] = rest[TAG_LEN..].try_into().expect("length checked");
    out.copy_from_slice(ct);
    key.open_in_place(&nonce(from, id, extra), &[], out, &tag)
        .map_err(Error::from)
}

crate::visibility::pub_if_hazmat! {
    /// The 13-byte CCM nonce.
    fn nonce(from: u32, id: u32, extra: [u8; 4]) -> [u8; 13] {
        let mut n = [0u8; 13];
        n[0..4].copy_from_slice(&id.to_le_bytes());
        n[4..8].copy_from_slice(&extra);
        n[8..12].copy_from_slice(&from.to_le_bytes());
        n
    }
}

/// RAM of one cache slot holding a [`PkcKey`] on this target.
pub const SLOT_BYTES_EXPANDED: usize = crate::cache::SharedSecretCache::<
    PkcKey,
    32,
    &mut [crate::cache::Slot<PkcKey>],
>::BYTES_PER_SLOT;
/// RAM of one cache slot holding a [`PkcSecret`] on this target.
pub const SLOT_BYTES_SECRET: usize = crate::cache::SharedSecretCache::<
    PkcSecret,
    32,
    &mut [crate::cache::Slot<PkcSecret>],
>::BYTES_PER_SLOT;
