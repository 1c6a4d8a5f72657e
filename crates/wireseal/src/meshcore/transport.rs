//! Region transport codes (`TransportKey::calcTransportCode`): a packet
//! sent on a transport route carries, per region, the first two bytes of
//! HMAC-SHA256 under the region's 16-byte key over the type byte and the
//! payload (little-endian; 0 and `FFFF` are reserved and move to 1 and
//! `FFFE`). A public region's key is SHA-256 of its `#name`, first 16
//! bytes.

use super::error::Error;
use super::packet::PayloadType;
use crate::primitives::hmac_key::HmacSha256Key;
use crate::secret::Secret;
use sha2::{Digest, Sha256};

/// The key of a public name (a `#hashtag` channel, a region): SHA-256 of
/// `#` and `bare`, first 16 bytes.
pub(crate) fn name_key(bare: &str) -> Secret<16> {
    let mut h = Sha256::new();
    h.update(b"#");
    h.update(bare.as_bytes());
    let mut key = Secret::<16>::new([0u8; 16]);
    key.expose_mut().copy_from_slice(&h.finalize()[..16]);
    key
}

/// A region's transport key. Wiped on drop.
pub struct RegionKey {
    key: Secret<16>,
}

impl core::fmt::Debug for RegionKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RegionKey(redacted)")
    }
}

impl RegionKey {
    /// The key of a public region: `name` with or without its `#`.
    ///
    /// # Errors
    /// [`Error::Argument`] for an empty name.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        let bare = name.strip_prefix('#').unwrap_or(name);
        if bare.is_empty() {
            return Err(Error::Argument {
                what: "region",
                reason: "a non-empty name",
            });
        }
        Ok(Self {
            key: name_key(bare),
        })
    }

    /// A private region's 16-byte key.
    pub fn from_bytes(key: &[u8; 16]) -> Self {
        Self {
            key: Secret::new(*key),
        }
    }

    /// The transport code of a packet of `payload_type` carrying `payload`.
    pub fn code(&self, payload_type: PayloadType, payload: &[u8]) -> u16 {
        let mac = HmacSha256Key::new(self.key.expose()).mac(&[&[payload_type.bits()], payload]);
        match u16::from_le_bytes([mac[0], mac[1]]) {
            0 => 1,
            0xffff => 0xfffe,
            c => c,
        }
    }
}
