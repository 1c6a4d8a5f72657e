//! The onion packet on the wire: `version(1) | ephemeral key(33) |
//! routing info (payload area) | HMAC(32)`.

use super::{SphinxError, HMAC_LEN, MESSAGE_AREA_LARGE, PAYMENT_AREA, VERSION};
use crate::primitives::secp256k1::{PublicKey, PUBLIC_KEY_LEN};

/// Bytes of an onion packet around its payload area.
pub const OVERHEAD: usize = 1 + PUBLIC_KEY_LEN + HMAC_LEN;

/// Size of an onion packet whose payload area is `area` bytes
/// (1366 for payments).
pub const fn onion_len(area: usize) -> usize {
    OVERHEAD + area
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
    /// Parses a payment onion: exactly 1366 bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, SphinxError> {
        if bytes.len() != onion_len(PAYMENT_AREA) {
            return Err(SphinxError::BadLength {
                expected: onion_len(PAYMENT_AREA),
                got: bytes.len(),
            });
        }
        Self::parse_any(bytes)
    }

    /// Parses an onion message packet: 1366 or 32834 bytes (payload areas of
    /// 1300 or 32768 bytes, the two sizes BOLT #4 recommends).
    pub fn parse_message(bytes: &[u8]) -> Result<Self, SphinxError> {
        if bytes.len() != onion_len(PAYMENT_AREA) && bytes.len() != onion_len(MESSAGE_AREA_LARGE) {
            return Err(SphinxError::BadLength {
                expected: onion_len(PAYMENT_AREA),
                got: bytes.len(),
            });
        }
        Self::parse_any(bytes)
    }

    /// Parses a packet with any payload area of at least one hop frame.
    pub fn parse_any(bytes: &[u8]) -> Result<Self, SphinxError> {
        if bytes.len() < OVERHEAD + HMAC_LEN + 1 {
            return Err(SphinxError::BadLength {
                expected: onion_len(PAYMENT_AREA),
                got: bytes.len(),
            });
        }
        let (head, rest) = bytes.split_at(1 + PUBLIC_KEY_LEN);
        if head[0] != VERSION {
            return Err(SphinxError::UnknownVersion(head[0]));
        }
        let ephemeral =
            PublicKey::from_slice(&head[1..]).map_err(|_| SphinxError::BadEphemeralKey)?;
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

    /// Size of the payload area (1300 for payments).
    pub fn area_len(&self) -> usize {
        self.routing_info.len()
    }

    /// The ephemeral public key carried in this onion.
    pub fn ephemeral_key(&self) -> &PublicKey {
        &self.ephemeral
    }

    /// The packet HMAC.
    pub fn hmac(&self) -> &[u8; HMAC_LEN] {
        &self.hmac
    }

    /// Writes the packet into `out`; returns the bytes written.
    pub fn write_to(&self, out: &mut [u8]) -> Result<usize, SphinxError> {
        let n = self.len();
        let out = out
            .get_mut(..n)
            .ok_or(SphinxError::BufferTooSmall { required: n })?;
        out[0] = VERSION;
        out[1..1 + PUBLIC_KEY_LEN].copy_from_slice(&self.ephemeral.serialize());
        let ri_end = 1 + PUBLIC_KEY_LEN + self.routing_info.len();
        out[1 + PUBLIC_KEY_LEN..ri_end].copy_from_slice(&self.routing_info);
        out[ri_end..].copy_from_slice(&self.hmac);
        Ok(n)
    }

    /// The serialized packet.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len()];
        let _ = self.write_to(&mut v);
        v
    }
}
