//! Key derivation: per-hop shared secrets (linear), the derived stream and
//! MAC keys (`rho`, `mu`, `um`, `ammag`, `ammagext`, `pad`, `fulfillment`)
//! and blinding factors.

use super::Error;
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::primitives::secp256k1::{PrivateKey, PublicKey};
use crate::primitives::sha::sha256_parts;
use crate::secret::Secret;
use std::sync::OnceLock;

/// A hop's shared secret: SHA-256 of the compressed ECDH point.
pub type SharedSecret = Secret<32>;

crate::visibility::pub_if_hazmat! {
    /// The key types of BOLT #4 ("key generation").
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum KeyKind {
        /// Stream key that encrypts the routing information.
        Rho,
        /// MAC key of the routing information.
        Mu,
        /// MAC key of a failure message and of attribution data.
        Um,
        /// Stream key that obfuscates a failure message.
        Ammag,
        /// Stream key that obfuscates attribution data.
        AmmagExt,
        /// Stream key of the deterministic initial padding (keyed by the session key).
        Pad,
        /// ChaCha20-Poly1305 key of the final node's `fulfillment_payload`.
        Fulfillment,
    }
}

impl KeyKind {
    const ALL: [KeyKind; 7] = [
        KeyKind::Rho,
        KeyKind::Mu,
        KeyKind::Um,
        KeyKind::Ammag,
        KeyKind::AmmagExt,
        KeyKind::Pad,
        KeyKind::Fulfillment,
    ];

    fn label(self) -> &'static [u8] {
        match self {
            KeyKind::Rho => b"rho",
            KeyKind::Mu => b"mu",
            KeyKind::Um => b"um",
            KeyKind::Ammag => b"ammag",
            KeyKind::AmmagExt => b"ammagext",
            KeyKind::Pad => b"pad",
            KeyKind::Fulfillment => b"fulfillment",
        }
    }

    /// The HMAC state keyed with this kind's label, computed once: a
    /// derivation then costs the message and the outer block only.
    fn keyed(self) -> HmacSha256Stream {
        static KEYED: OnceLock<[HmacSha256Stream; 7]> = OnceLock::new();
        let all = KEYED.get_or_init(|| KeyKind::ALL.map(|k| HmacSha256Stream::new(k.label())));
        all[self as usize].clone()
    }
}

crate::visibility::pub_if_hazmat! {
    /// `HMAC-SHA256(key = kind, message = secret)`.
    fn derive(kind: KeyKind, secret: &[u8; 32]) -> Secret<32> {
        let mut m = kind.keyed();
        m.update(secret);
        Secret::new(m.finalize())
    }
}

crate::visibility::pub_if_hazmat! {
    /// `SHA-256(ephemeral_pubkey || shared_secret)`.
    fn blinding_factor(ephemeral: &PublicKey, ss: &SharedSecret) -> [u8; 32] {
        sha256_parts(&[&ephemeral.serialize(), ss.expose()])
    }
}

/// The shared secret of a hop that received an onion whose ephemeral key is
/// `ephemeral` (`SHA-256` of the compressed ECDH point), as that hop needs it
/// to create or wrap a failure or a fulfill's attribution data.
pub fn shared_secret(node_key: &PrivateKey, ephemeral: &PublicKey) -> SharedSecret {
    node_key.ecdh_sha256(ephemeral)
}

/// The shared secrets of a session, one per hop, in path order, and how
/// many of the last hops are inside a blinded path (see
/// [`HopSecrets::with_blinded_tail`]).
#[derive(Debug, Default)]
pub struct HopSecrets {
    secrets: Vec<SharedSecret>,
    blinded: usize,
}

impl HopSecrets {
    /// Wraps secrets given in path order (for an origin that stored them).
    pub fn new(secrets: Vec<SharedSecret>) -> Self {
        Self {
            secrets,
            blinded: 0,
        }
    }

    /// The same route with its last `hops` hops inside a blinded path: the
    /// hops that received the HTLC with a `path_key`, i.e. a blinded path's
    /// hops after its introduction node (all of its hops when the origin is
    /// itself the introduction node). BOLT #4 has those hops add no
    /// attribution data, so the origin reads it up to the hop before them
    /// (the introduction node) and blames none of them for its absence.
    ///
    /// # Errors
    ///
    /// [`Error::BlindedTail`] when `hops` is more than the route's length.
    pub fn with_blinded_tail(mut self, hops: usize) -> Result<Self, Error> {
        if hops > self.secrets.len() {
            return Err(Error::BlindedTail {
                blinded: hops,
                hops: self.secrets.len(),
            });
        }
        self.blinded = hops;
        Ok(self)
    }

    /// How many of the last hops are inside a blinded path (0 without one).
    pub fn blinded_tail(&self) -> usize {
        self.blinded
    }

    /// How many hops, from the first, received the HTLC without a
    /// `path_key` and so add attribution data: the route's length less its
    /// blinded tail (only the first [`MAX_HOPS`](super::attribution::MAX_HOPS)
    /// of them can vouch).
    pub fn attributing(&self) -> usize {
        self.secrets.len() - self.blinded
    }

    /// Number of hops.
    pub fn len(&self) -> usize {
        self.secrets.len()
    }

    /// True when there are no hops.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The shared secret of hop `hop`, counted from 1 (the first hop after
    /// the origin).
    pub fn hop(&self, hop: usize) -> Option<&SharedSecret> {
        self.secrets.get(hop.checked_sub(1)?)
    }

    /// All secrets, in path order.
    pub fn as_slice(&self) -> &[SharedSecret] {
        &self.secrets
    }
}

/// Derives every hop's shared secret from the session key, linearly: the
/// running ephemeral private key `e` is multiplied by each blinding factor, and
/// each hop costs one ECDH plus one fixed-base multiplication (`e·G`), and
/// the last hop's ephemeral key, which nothing uses, is not computed.
///
/// Returns the first ephemeral public key (the one written into the onion) and
/// the secrets.
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route, [`Error::KeyDerivation`] when a
/// derived scalar is out of range (negligible probability).
pub fn session_secrets(
    session_key: &PrivateKey,
    hops: impl ExactSizeIterator<Item = PublicKey>,
) -> Result<(PublicKey, HopSecrets), Error> {
    let n = hops.len();
    if n == 0 {
        return Err(Error::NoHops);
    }
    let mut out = Vec::with_capacity(n);
    let mut e = session_key.duplicate();
    let first = e.public_key();
    for (i, hop) in hops.enumerate() {
        let ss = e.ecdh_sha256(&hop);
        // The last hop's ephemeral key is never used: n ECDH, n - 1 k·G.
        if i + 1 < n {
            let ephemeral = if i == 0 { first } else { e.public_key() };
            let b = blinding_factor(&ephemeral, &ss);
            e = e.mul_tweak(&b).map_err(|_| Error::KeyDerivation)?;
        }
        out.push(ss);
    }
    Ok((first, HopSecrets::new(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::sha::hmac_sha256;

    /// The cached keyed states give the plain HMAC of each label.
    #[test]
    fn derive_is_hmac_of_the_label() {
        let ss = [0x53u8; 32];
        for k in KeyKind::ALL {
            assert_eq!(derive(k, &ss).expose(), &hmac_sha256(k.label(), &[&ss]));
        }
    }

    #[test]
    fn hop_is_counted_from_one() {
        let hs = HopSecrets::new(vec![Secret::new([1; 32]), Secret::new([2; 32])]);
        assert!(hs.hop(0).is_none());
        assert_eq!(hs.hop(1).unwrap().expose(), &[1; 32]);
        assert_eq!(hs.hop(2).unwrap().expose(), &[2; 32]);
        assert!(hs.hop(3).is_none());
    }

    #[test]
    fn blinded_tail_is_at_most_the_route() {
        let hs = HopSecrets::new(vec![Secret::new([1; 32]), Secret::new([2; 32])]);
        assert_eq!((hs.blinded_tail(), hs.attributing()), (0, 2));
        let hs = hs.with_blinded_tail(2).unwrap();
        assert_eq!((hs.blinded_tail(), hs.attributing()), (2, 0));
        assert_eq!(
            hs.with_blinded_tail(3).unwrap_err(),
            Error::BlindedTail {
                blinded: 3,
                hops: 2
            }
        );
    }
}
