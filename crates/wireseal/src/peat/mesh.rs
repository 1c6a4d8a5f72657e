//! Mesh-wide frames: `0xAE 0x00 | nonce(12) | ChaCha20-Poly1305(ct || tag16)`,
//! no AAD, one key per mesh.
//!
//! The key is HKDF-SHA256(salt = mesh_id bytes, ikm = 32-byte secret,
//! info = "PEAT-BTLE-mesh-encryption-v1"), derived and expanded once
//! ([`MeshKey::derive`]); peat-btle re-creates its cipher for every document.

use super::error::check_frame;
use super::mesh_id::MeshId;
use super::{Error, MESH_MARKER};
#[cfg(feature = "std")]
use crate::entropy::NonceSource;
use crate::entropy::{CryptoRng, RngCore};
use crate::primitives::chacha20poly1305::{ChaChaKey, NONCE_LEN, TAG_LEN};
use crate::primitives::sha::hkdf_sha256;
use crate::secret::Secret;

/// HKDF info string of the mesh-wide key.
pub const MESH_HKDF_INFO: &[u8] = b"PEAT-BTLE-mesh-encryption-v1";

/// Bytes before the ciphertext: marker, reserved byte, nonce.
pub const MESH_HEADER_LEN: usize = 2 + NONCE_LEN;

/// Bytes a mesh-wide frame adds to a document (header and tag): 30.
pub const MESH_OVERHEAD: usize = MESH_HEADER_LEN + TAG_LEN;

/// Length of the mesh-wide frame that seals `plaintext_len` bytes.
pub const fn sealed_len(plaintext_len: usize) -> usize {
    plaintext_len + MESH_OVERHEAD
}

/// Length of the plaintext inside a mesh-wide frame of `sealed_len` bytes.
///
/// # Errors
/// [`Error::Truncated`] when the frame is shorter than [`MESH_OVERHEAD`].
pub const fn opened_len(sealed_len: usize) -> Result<usize, Error> {
    match sealed_len.checked_sub(MESH_OVERHEAD) {
        Some(n) => Ok(n),
        None => Err(Error::Truncated {
            len: sealed_len,
            min: MESH_OVERHEAD,
        }),
    }
}

crate::visibility::pub_if_hazmat! {
    /// The raw 32-byte mesh-wide key: HKDF-SHA256(salt = `mesh_id` bytes,
    /// ikm = `secret`, info = [`MESH_HKDF_INFO`]).
    fn derive_key_bytes(mesh_id: &MeshId, secret: &[u8; 32]) -> Secret<32> {
        hkdf_sha256::<32>(mesh_id.as_bytes(), secret, MESH_HKDF_INFO)
    }
}

/// The expanded mesh-wide ChaCha20-Poly1305 key (wiped on drop). `Sync`, so
/// one key serves every thread of a batch.
#[derive(Debug)]
pub struct MeshKey {
    cipher: ChaChaKey,
}

impl MeshKey {
    /// Derives the key of mesh `mesh_id` from the 32-byte shared secret.
    pub fn derive(mesh_id: &MeshId, secret: &[u8; 32]) -> Self {
        let key = derive_key_bytes(mesh_id, secret);
        Self {
            cipher: ChaChaKey::new(key.expose()),
        }
    }

    crate::visibility::pub_if_test_vectors! {
        /// Seals `plaintext` with the given `nonce` into `out[..sealed_len]`
        /// and returns that length, to reproduce a vector. A nonce must never
        /// repeat under one key; [`MeshKey::seal_with_rng_into`] draws fresh ones.
        ///
        /// # Errors
        /// [`Error::BufferTooSmall`] when `out` is shorter than [`sealed_len`].
        #[inline]
        fn seal_with_nonce_into(
            &self,
            nonce: &[u8; NONCE_LEN],
            plaintext: &[u8],
            out: &mut [u8],
        ) -> Result<usize, Error> {
            let n = sealed_len(plaintext.len());
            let Some(out) = out.get_mut(..n) else {
                return Err(Error::BufferTooSmall { required: n });
            };
            let (head, rest) = out.split_at_mut(MESH_HEADER_LEN);
            head[0] = MESH_MARKER;
            head[1] = 0;
            head[2..].copy_from_slice(nonce);
            let (body, tag_out) = rest.split_at_mut(plaintext.len());
            body.copy_from_slice(plaintext);
            let tag = self.cipher.seal_in_place(nonce, b"", body);
            tag_out.copy_from_slice(&tag);
            Ok(n)
        }
    }

    crate::visibility::pub_if_test_vectors! {
        /// Seals `plaintext` with the given `nonce` into a new frame, to
        /// reproduce a vector (a nonce must never repeat under one key).
        #[cfg(feature = "alloc")]
        fn seal_with_nonce_to_vec(&self, nonce: &[u8; NONCE_LEN], plaintext: &[u8]) -> alloc::vec::Vec<u8> {
            let mut out = alloc::vec![0u8; sealed_len(plaintext.len())];
            // The buffer has exactly the right length, so this cannot fail.
            let _ = self.seal_with_nonce_into(nonce, plaintext, &mut out);
            out
        }
    }

    /// Seals `plaintext` with a fresh nonce from the caller's CSPRNG `rng`
    /// (firmware: the RNG peripheral) into
    /// `out[..sealed_len(plaintext.len())]`; returns that length.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than [`sealed_len`]
    /// (no nonce is drawn then); [`Error::Rng`] when `rng` fails
    /// (`try_fill_bytes`).
    #[inline]
    pub fn seal_with_rng_into<R: RngCore + CryptoRng>(
        &self,
        rng: &mut R,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = sealed_len(plaintext.len());
        if out.len() < n {
            return Err(Error::BufferTooSmall { required: n });
        }
        let mut nonce = [0u8; NONCE_LEN];
        rng.try_fill_bytes(&mut nonce).map_err(|_| Error::Rng)?;
        self.seal_with_nonce_into(&nonce, plaintext, out)
    }

    /// Verifies and decrypts a mesh-wide frame in place; returns the
    /// plaintext, which lies inside `frame`. The reserved byte is ignored, as
    /// peers ignore it. On failure the ciphertext is wiped and nothing is
    /// released.
    ///
    /// # Errors
    /// [`Error::WrongMarker`] or [`Error::Truncated`] for a frame that is not
    /// a mesh-wide frame; [`Error::Auth`] when the tag does not verify.
    #[inline]
    pub fn open_in_place<'a>(&self, frame: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
        check_mesh_frame(frame)?;
        let (head, ct_and_tag) = frame.split_at_mut(MESH_HEADER_LEN);
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&head[2..]);
        Ok(self.cipher.open_in_place(&nonce, b"", ct_and_tag)?)
    }

    /// Verifies and decrypts a mesh-wide frame into `out[..opened_len]`,
    /// returning that length; `out` needs [`opened_len`] bytes. On failure
    /// that area is wiped and nothing is released.
    ///
    /// # Errors
    /// As [`MeshKey::open_in_place`], and [`Error::BufferTooSmall`] when
    /// `out` is shorter than [`opened_len`].
    pub fn open_into(&self, frame: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        check_mesh_frame(frame)?;
        let (ct, tag) = frame[MESH_HEADER_LEN..].split_at(frame.len() - MESH_OVERHEAD);
        let Some(out) = out.get_mut(..ct.len()) else {
            return Err(Error::BufferTooSmall { required: ct.len() });
        };
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&frame[2..MESH_HEADER_LEN]);
        self.cipher.open_detached_into(&nonce, b"", ct, tag, out)?;
        Ok(ct.len())
    }

    /// Verifies and decrypts a mesh-wide frame into a new vector.
    ///
    /// # Errors
    /// As [`MeshKey::open_in_place`].
    #[cfg(feature = "alloc")]
    pub fn open_to_vec(&self, frame: &[u8]) -> Result<alloc::vec::Vec<u8>, Error> {
        check_mesh_frame(frame)?;
        let mut buf = frame[MESH_HEADER_LEN..].to_vec();
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&frame[2..MESH_HEADER_LEN]);
        let n = self.cipher.open_in_place(&nonce, b"", &mut buf)?.len();
        buf.truncate(n);
        Ok(buf)
    }
}

fn check_mesh_frame(frame: &[u8]) -> Result<(), Error> {
    check_frame(frame, MESH_MARKER, MESH_OVERHEAD)
}

/// A mesh key plus its own nonce supply from the OS: what a node uses to
/// send (`std`; without it, [`MeshKey::seal_with_rng_into`]).
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct MeshSealer {
    key: MeshKey,
    nonces: NonceSource,
}

#[cfg(feature = "std")]
impl MeshSealer {
    /// A sealer for mesh `mesh_id` with the 32-byte shared secret.
    pub fn new(mesh_id: &MeshId, secret: &[u8; 32]) -> Self {
        Self::from_key(MeshKey::derive(mesh_id, secret))
    }

    /// A sealer around an already derived key.
    pub fn from_key(key: MeshKey) -> Self {
        Self {
            key,
            nonces: NonceSource::new(),
        }
    }

    /// The key, for opening frames.
    pub fn key(&self) -> &MeshKey {
        &self.key
    }

    /// Seals `plaintext` with a fresh random nonce into
    /// `out[..sealed_len(plaintext.len())]`; returns that length.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than [`sealed_len`]
    /// (no nonce is drawn then).
    pub fn seal_into(&mut self, plaintext: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        let n = sealed_len(plaintext.len());
        if out.len() < n {
            return Err(Error::BufferTooSmall { required: n });
        }
        let nonce = self.nonces.take();
        self.key.seal_with_nonce_into(&nonce, plaintext, out)
    }

    /// Seals `plaintext` with a fresh random nonce into a new frame.
    pub fn seal_to_vec(&mut self, plaintext: &[u8]) -> Vec<u8> {
        let nonce = self.nonces.take();
        self.key.seal_with_nonce_to_vec(&nonce, plaintext)
    }

    /// Same as [`MeshKey::open_to_vec`].
    ///
    /// # Errors
    /// As [`MeshKey::open_in_place`].
    pub fn open_to_vec(&self, frame: &[u8]) -> Result<Vec<u8>, Error> {
        self.key.open_to_vec(frame)
    }

    /// Same as [`MeshKey::open_into`].
    ///
    /// # Errors
    /// As [`MeshKey::open_into`].
    pub fn open_into(&self, frame: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        self.key.open_into(frame, out)
    }

    /// Same as [`MeshKey::open_in_place`].
    ///
    /// # Errors
    /// As [`MeshKey::open_in_place`].
    #[inline]
    pub fn open_in_place<'a>(&self, frame: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
        self.key.open_in_place(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(MESH_OVERHEAD, 30);
        assert_eq!(sealed_len(633), 663);
        assert_eq!(opened_len(663), Ok(633));
        assert_eq!(opened_len(29), Err(Error::Truncated { len: 29, min: 30 }));
    }

    fn demo() -> MeshId {
        "DEMO".parse().unwrap()
    }

    #[test]
    fn sealer_round_trip_and_fresh_nonces() {
        let mut s = MeshSealer::new(&demo(), &[0x42; 32]);
        let a = s.seal_to_vec(b"same");
        let b = s.seal_to_vec(b"same");
        assert_ne!(a[2..14], b[2..14]);
        assert_eq!(s.open_to_vec(&a).unwrap(), b"same");
        let mut buf = [0u8; 64];
        let n = s.seal_into(b"doc", &mut buf).unwrap();
        assert_eq!(n, 33);
        assert_eq!(s.open_in_place(&mut buf[..n]).unwrap(), b"doc");
        assert_eq!(
            s.seal_into(b"doc", &mut [0u8; 32]),
            Err(Error::BufferTooSmall { required: 33 })
        );
    }

    #[test]
    fn open_into_needs_exactly_the_plaintext_length() {
        let k = MeshKey::derive(&demo(), &[0x42; 32]);
        let f = k.seal_with_nonce_to_vec(&[7; 12], b"hello");
        assert_eq!(opened_len(f.len()), Ok(5));
        let mut out = [0u8; 4];
        assert_eq!(
            k.open_into(&f, &mut out),
            Err(Error::BufferTooSmall { required: 5 })
        );
        let mut out = [0u8; 5];
        assert_eq!(k.open_into(&f, &mut out), Ok(5));
        assert_eq!(&out, b"hello");
        let mut bad = f.clone();
        bad[20] ^= 1;
        let mut out = [0xffu8; 9];
        assert_eq!(k.open_into(&bad, &mut out), Err(Error::Auth));
        assert_eq!(out, [0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff], "wiped");
        let empty = k.seal_with_nonce_to_vec(&[8; 12], b"");
        assert_eq!(k.open_into(&empty, &mut []), Ok(0));
    }
}
