//! The onion packet on the wire: `version(1) | ephemeral key(33) |
//! routing info (payload area) | HMAC(32)`.

use super::{Area, Error, HMAC_LEN, VERSION};
use crate::primitives::secp256k1::{PublicKey, PUBLIC_KEY_LEN};

/// Bytes of an onion packet around its payload area.
pub const OVERHEAD: usize = 1 + PUBLIC_KEY_LEN + HMAC_LEN;

/// Smallest packet with room for one hop frame (a length byte and an HMAC).
const MIN_ONION_LEN: usize = OVERHEAD + HMAC_LEN + 1;

/// Size of an onion packet whose payload area is `area` bytes
/// (1366 for payments).
pub const fn onion_len(area: usize) -> usize {
    OVERHEAD + area
}

/// Size of the payload area of an onion packet of `onion_len` bytes
/// (1300 for a payment onion); the inverse of [`onion_len`].
///
/// # Errors
///
/// [`Error::Truncated`] when `onion_len` leaves no room for one hop frame.
pub const fn area_len(onion_len: usize) -> Result<usize, Error> {
    if onion_len < MIN_ONION_LEN {
        return Err(Error::Truncated {
            len: onion_len,
            min: MIN_ONION_LEN,
        });
    }
    Ok(onion_len - OVERHEAD)
}

/// A parsed onion packet (version 0). The routing information stays
/// encrypted until [`Onion::peel`].
#[derive(Clone, PartialEq, Eq)]
pub struct Onion {
    pub(crate) ephemeral: PublicKey,
    pub(crate) routing_info: Vec<u8>,
    pub(crate) hmac: [u8; HMAC_LEN],
}

impl core::fmt::Debug for Onion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Onion")
            .field("ephemeral", &self.ephemeral)
            .field("area", &self.routing_info.len())
            .finish_non_exhaustive()
    }
}

impl Onion {
    /// Parses a payment onion: exactly 1366 bytes ([`Area::Payment`]).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] / [`Error::TooLong`] for any other size,
    /// [`Error::UnknownVersion`] for a version other than 0,
    /// [`Error::InvalidKey`] when the key is not a curve point.
    pub fn parse(bytes: &[u8]) -> Result<Self, Error> {
        let want = Area::Payment.onion_len();
        if bytes.len() < want {
            return Err(Error::Truncated {
                len: bytes.len(),
                min: want,
            });
        }
        if bytes.len() > want {
            return Err(Error::TooLong {
                len: bytes.len(),
                max: want,
            });
        }
        Self::parse_any(bytes)
    }

    /// Parses an onion message packet of either [`Area`]: 1366 or 32834
    /// bytes (payload areas of 1300 or 32768 bytes, the two sizes BOLT #4
    /// recommends).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] below 1366 bytes, [`Error::TooLong`] above 32834,
    /// [`Error::UnsupportedSize`] in between, then as [`Onion::parse`].
    pub fn parse_message(bytes: &[u8]) -> Result<Self, Error> {
        let (small, large) = (Area::Payment.onion_len(), Area::MessageLarge.onion_len());
        match bytes.len() {
            len if len < small => Err(Error::Truncated { len, min: small }),
            len if len > large => Err(Error::TooLong { len, max: large }),
            len if len != small && len != large => Err(Error::UnsupportedSize { len }),
            _ => Self::parse_any(bytes),
        }
    }

    /// Parses a packet whose size the caller has checked.
    fn parse_any(bytes: &[u8]) -> Result<Self, Error> {
        area_len(bytes.len())?;
        let (head, rest) = bytes.split_at(1 + PUBLIC_KEY_LEN);
        if head[0] != VERSION {
            return Err(Error::UnknownVersion(head[0]));
        }
        let ephemeral = PublicKey::from_slice(&head[1..]).map_err(|_| Error::InvalidKey)?;
        let (ri, mac) = rest.split_at(rest.len() - HMAC_LEN);
        let mut hmac = [0u8; HMAC_LEN];
        hmac.copy_from_slice(mac);
        Ok(Self {
            ephemeral,
            routing_info: ri.to_vec(),
            hmac,
        })
    }

    /// Serialized size.
    pub fn len(&self) -> usize {
        onion_len(self.routing_info.len())
    }

    /// Never true: an onion has at least its fixed fields.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The payload area.
    pub fn area(&self) -> Area {
        // Parsing and building make only the two areas.
        if self.routing_info.len() == Area::MessageLarge.bytes() {
            Area::MessageLarge
        } else {
            Area::Payment
        }
    }

    /// The ephemeral public key carried in this onion.
    pub fn ephemeral_key(&self) -> &PublicKey {
        &self.ephemeral
    }

    /// The packet HMAC.
    pub fn hmac(&self) -> &[u8; HMAC_LEN] {
        &self.hmac
    }

    /// Writes the serialized packet into `out`; returns the bytes written
    /// ([`Onion::len`]).
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `out` is shorter than [`Onion::len`].
    pub fn write_into(&self, out: &mut [u8]) -> Result<usize, Error> {
        let n = self.len();
        let out = out
            .get_mut(..n)
            .ok_or(Error::BufferTooSmall { required: n })?;
        out[0] = VERSION;
        out[1..1 + PUBLIC_KEY_LEN].copy_from_slice(&self.ephemeral.serialize());
        let ri_end = 1 + PUBLIC_KEY_LEN + self.routing_info.len();
        out[1 + PUBLIC_KEY_LEN..ri_end].copy_from_slice(&self.routing_info);
        out[ri_end..].copy_from_slice(&self.hmac);
        Ok(n)
    }

    /// The serialized packet, in a new buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len()];
        let _ = self.write_into(&mut v);
        v
    }
}
