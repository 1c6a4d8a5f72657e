//! Route blinding (BOLT #4 "Route Blinding"): building a blinded path, and at
//! each hop deriving the blinded private key, decrypting the hop's
//! `encrypted_recipient_data` and the next path key.
//!
//! For a hop with node id `N` and path key `E = e·G`:
//! `ss = SHA-256(ECDH(e, N))`, blinded node id `B = HMAC("blinded_node_id", ss)·N`,
//! `rho = HMAC("rho", ss)`, data sealed with ChaCha20-Poly1305 under `rho`
//! (zero nonce, no associated data), next path key `E' = SHA-256(E || ss)·E`.

use super::keys::{blinding_factor, derive, KeyKind, SharedSecret};
use super::{tlv, Error};
use crate::primitives::chacha20poly1305::{ChaChaKey, NONCE_LEN, TAG_LEN};
use crate::primitives::secp256k1::{PrivateKey, PublicKey};
use crate::primitives::sha::hmac_sha256;
use crate::secret::Secret;

/// TLV type of `next_path_key_override` inside encrypted recipient data.
pub const NEXT_PATH_KEY_OVERRIDE: u64 = 8;
/// TLV type of `next_node_id` inside encrypted recipient data.
pub const NEXT_NODE_ID: u64 = 4;

/// Size of sealed `encrypted_recipient_data` for `data_len` bytes of
/// recipient data (the data and a 16-byte tag).
pub const fn sealed_len(data_len: usize) -> usize {
    data_len + TAG_LEN
}

/// Size of the recipient data inside `sealed_len` bytes of
/// `encrypted_recipient_data`; the inverse of [`sealed_len`].
///
/// # Errors
///
/// [`Error::Truncated`] when `sealed_len` is shorter than the tag.
pub const fn opened_len(sealed_len: usize) -> Result<usize, Error> {
    match sealed_len.checked_sub(TAG_LEN) {
        Some(n) => Ok(n),
        None => Err(Error::Truncated {
            len: sealed_len,
            min: TAG_LEN,
        }),
    }
}

fn blinding_tweak(ss: &SharedSecret) -> [u8; 32] {
    hmac_sha256(b"blinded_node_id", &[ss.expose()])
}

/// One hop of a blinded path, as the path's creator computes it.
#[derive(Debug)]
pub struct BlindedHop {
    /// The path key `E` this hop receives.
    pub path_key: PublicKey,
    /// The shared secret with the hop.
    pub shared_secret: SharedSecret,
    /// The blinded node id the sender encrypts the onion layer to.
    pub blinded_node_id: PublicKey,
    /// The sealed `encrypted_recipient_data` for this hop.
    pub encrypted_data: Vec<u8>,
}

/// Blinds one hop with path private key `e`: returns the hop and the next
/// path private key `e·SHA-256(E || ss)`.
///
/// # Errors
///
/// [`Error::KeyDerivation`] when a derived scalar or point is out of range
/// (negligible probability).
pub fn blind_hop(
    path_privkey: PrivateKey,
    node_id: &PublicKey,
    data: &[u8],
) -> Result<(BlindedHop, PrivateKey), Error> {
    let path_key = path_privkey.public_key();
    let ss = path_privkey.ecdh_sha256(node_id);
    let blinded_node_id = node_id
        .mul_tweak_vartime(&blinding_tweak(&ss))
        .map_err(|_| Error::KeyDerivation)?;
    let mut encrypted_data = data.to_vec();
    let rho = derive(KeyKind::Rho, ss.expose());
    let tag =
        ChaChaKey::new(rho.expose()).seal_in_place(&[0u8; NONCE_LEN], &[], &mut encrypted_data);
    encrypted_data.extend_from_slice(&tag);
    let next = path_privkey
        .mul_tweak(&blinding_factor(&path_key, &ss))
        .map_err(|_| Error::KeyDerivation)?;
    Ok((
        BlindedHop {
            path_key,
            shared_secret: ss,
            blinded_node_id,
            encrypted_data,
        },
        next,
    ))
}

/// A blinded path: what the recipient publishes.
#[derive(Debug)]
pub struct BlindedPath {
    /// The path key handed to the introduction node.
    pub first_path_key: PublicKey,
    /// The hops, in order.
    pub hops: Vec<BlindedHop>,
}

/// Blinds the path `hops` = `(node id, recipient data)` with `session_key`.
///
/// # Errors
///
/// [`Error::NoHops`] for an empty path, otherwise as [`blind_hop`].
pub fn blind_path(
    session_key: &PrivateKey,
    hops: &[(PublicKey, &[u8])],
) -> Result<BlindedPath, Error> {
    let mut e = session_key.duplicate();
    let mut out = Vec::with_capacity(hops.len());
    for (node, data) in hops {
        let (hop, next) = blind_hop(e, node, data)?;
        out.push(hop);
        e = next;
    }
    let first_path_key = out.first().ok_or(Error::NoHops)?.path_key;
    Ok(BlindedPath {
        first_path_key,
        hops: out,
    })
}

/// What a hop on a blinded path derives from its node key and the path key.
#[derive(Debug)]
pub struct Unblinded {
    path_key: PublicKey,
    shared_secret: SharedSecret,
    blinded_privkey: PrivateKey,
}

/// At a blinded hop: derives the shared secret with the path key and the
/// blinded private key `HMAC("blinded_node_id", ss)·k` that peels the onion.
///
/// # Errors
///
/// [`Error::KeyDerivation`] when the blinded key is out of range (negligible
/// probability).
pub fn unblind(node_key: &PrivateKey, path_key: &PublicKey) -> Result<Unblinded, Error> {
    let ss = node_key.ecdh_sha256(path_key);
    let blinded_privkey = node_key
        .duplicate()
        .mul_tweak(&blinding_tweak(&ss))
        .map_err(|_| Error::KeyDerivation)?;
    Ok(Unblinded {
        path_key: *path_key,
        shared_secret: ss,
        blinded_privkey,
    })
}

impl Unblinded {
    /// The private key that peels this hop's onion layer.
    pub fn blinded_privkey(&self) -> &PrivateKey {
        &self.blinded_privkey
    }

    /// The shared secret with the path key.
    pub fn shared_secret(&self) -> &SharedSecret {
        &self.shared_secret
    }

    /// Opens `encrypted_recipient_data` in place: `buf` holds the sealed
    /// data on entry; returns the recipient data, the first
    /// [`opened_len`] bytes of `buf`. The tag is checked before anything is
    /// released; on failure `buf` is wiped.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when `buf` is shorter than the tag, [`Error::Auth`]
    /// when the tag does not verify (wrong node key or path key, tampered
    /// data).
    pub fn open_in_place<'a>(&self, buf: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
        opened_len(buf.len())?;
        let rho = derive(KeyKind::Rho, self.shared_secret.expose());
        ChaChaKey::new(rho.expose())
            .open_in_place(&[0u8; NONCE_LEN], &[], buf)
            .map_err(|_| Error::Auth)
    }

    /// Opens `encrypted_recipient_data` into a new buffer (tag checked before
    /// anything is returned).
    ///
    /// # Errors
    ///
    /// As [`Unblinded::open_in_place`].
    pub fn open_to_vec(&self, encrypted_data: &[u8]) -> Result<Vec<u8>, Error> {
        let mut buf = encrypted_data.to_vec();
        let n = self.open_in_place(&mut buf)?.len();
        buf.truncate(n);
        Ok(buf)
    }

    /// The computed next path key `SHA-256(E || ss)·E` (ignoring any override).
    ///
    /// # Errors
    ///
    /// [`Error::KeyDerivation`] when the point is out of range (negligible
    /// probability).
    pub fn next_path_key(&self) -> Result<PublicKey, Error> {
        self.path_key
            .mul_tweak_vartime(&blinding_factor(&self.path_key, &self.shared_secret))
            .map_err(|_| Error::KeyDerivation)
    }

    /// The next path key for decrypted data `data`: its
    /// `next_path_key_override` when present, else [`Unblinded::next_path_key`].
    ///
    /// # Errors
    ///
    /// [`Error::BadPayload`] for a malformed TLV stream,
    /// [`Error::InvalidKey`] for an override that is not a curve point,
    /// otherwise as [`Unblinded::next_path_key`].
    pub fn next_path_key_for(&self, data: &[u8]) -> Result<PublicKey, Error> {
        match tlv::find(data, NEXT_PATH_KEY_OVERRIDE)? {
            Some(k) => PublicKey::from_slice(k).map_err(|_| Error::InvalidKey),
            None => self.next_path_key(),
        }
    }
}

crate::visibility::pub_if_test_vectors! {
    /// The blinding tweak `HMAC("blinded_node_id", ss)` as a secret, for the
    /// route-blinding vectors that list it.
    fn node_id_tweak(ss: &SharedSecret) -> Secret<32> {
        Secret::new(blinding_tweak(ss))
    }
}
