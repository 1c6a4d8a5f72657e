//! [`MeshId`]: the id of a peat-btle mesh, with its one parsing and case
//! rule.
//!
//! The mesh id is the HKDF salt of the mesh-wide key, byte for byte, so
//! `cbe6fc55` and `CBE6FC55` written as given would be two different keys.
//! peat-btle writes its ids in upper case (genesis makes 8 upper-case hex
//! digits; its default id is `DEMO`) and compares them exactly, so a
//! [`MeshId`] is upper case: parsing upper-cases ASCII letters, and
//! [`Display`](core::fmt::Display) gives the upper-case form back.

use super::Error;
use core::fmt;
use core::str::FromStr;

/// Most characters a mesh id may have.
pub const MESH_ID_MAX_LEN: usize = 64;

/// The id of a peat-btle mesh: 1 to [`MESH_ID_MAX_LEN`] ASCII letters,
/// digits, `-` or `_`, letters in upper case.
///
/// Parse it with [`str::parse`] (any case in, upper case kept); genesis
/// derives one ([`super::Genesis::mesh_id`]). Every entry point that takes a
/// mesh id takes a `&MeshId`, so every driver applies the same rule.
///
/// ```
/// use wireseal::peat::MeshId;
///
/// let id: MeshId = "cbe6fc55".parse()?;
/// assert_eq!(id.to_string(), "CBE6FC55");
/// assert_eq!(id, "CBE6FC55".parse::<MeshId>()?);
/// assert!("".parse::<MeshId>().is_err());
/// # Ok::<(), wireseal::peat::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId {
    len: u8,
    /// The id's bytes, then zeros (so the derived comparisons are exact).
    bytes: [u8; MESH_ID_MAX_LEN],
}

impl MeshId {
    /// The id as text (upper case).
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored.
        core::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// The id's bytes: the HKDF salt of the mesh-wide key.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The 8-hex-digit id genesis derives from the first 4 bytes of its hash.
    #[cfg(feature = "std")]
    pub(super) fn from_hash_prefix(prefix: [u8; 4]) -> Self {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let mut bytes = [0u8; MESH_ID_MAX_LEN];
        for (i, b) in prefix.iter().enumerate() {
            bytes[2 * i] = HEX[usize::from(b >> 4)];
            bytes[2 * i + 1] = HEX[usize::from(b & 0x0f)];
        }
        Self { len: 8, bytes }
    }
}

impl FromStr for MeshId {
    type Err = Error;

    /// Parses a mesh id in any case; letters are upper-cased.
    ///
    /// # Errors
    /// [`Error::TooLong`] above [`MESH_ID_MAX_LEN`] bytes;
    /// [`Error::InvalidMeshId`] when empty or holding any other character.
    fn from_str(s: &str) -> Result<Self, Error> {
        if s.len() > MESH_ID_MAX_LEN {
            return Err(Error::TooLong {
                len: s.len(),
                max: MESH_ID_MAX_LEN,
            });
        }
        let ok = !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok {
            return Err(Error::InvalidMeshId);
        }
        let mut bytes = [0u8; MESH_ID_MAX_LEN];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        bytes.make_ascii_uppercase();
        Ok(Self {
            // At most MESH_ID_MAX_LEN (64), checked above.
            len: s.len() as u8,
            bytes,
        })
    }
}

impl fmt::Display for MeshId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for MeshId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MeshId({:?})", self.as_str())
    }
}

impl PartialEq<str> for MeshId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for MeshId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_case_rule() {
        let lower: MeshId = "cbe6fc55".parse().unwrap();
        let upper: MeshId = "CBE6FC55".parse().unwrap();
        assert_eq!(lower, upper);
        assert_eq!(lower.as_bytes(), b"CBE6FC55");
        assert_eq!(format!("{lower}"), "CBE6FC55");
        assert_eq!(format!("{lower:?}"), "MeshId(\"CBE6FC55\")");
        let mixed: MeshId = "Alpha_team-2".parse().unwrap();
        assert_eq!(mixed, "ALPHA_TEAM-2");
        assert_eq!(MeshId::from_hash_prefix([0xcb, 0xe6, 0xfc, 0x55]), upper);
    }

    #[test]
    fn refused_ids() {
        for bad in ["", " DEMO", "DE MO", "DÉMO", "a.b", "a/b", "\0"] {
            assert_eq!(bad.parse::<MeshId>(), Err(Error::InvalidMeshId), "{bad:?}");
        }
        let long = "A".repeat(65);
        assert_eq!(
            long.parse::<MeshId>(),
            Err(Error::TooLong { len: 65, max: 64 })
        );
        assert_eq!(long[..64].parse::<MeshId>().unwrap().as_str(), &long[..64]);
    }
}
