//! Node identity as firmware 2.8 derives it: a node's number is the CRC-32
//! of its X25519 public key (`NodeDB::createNewIdentity`), so a NodeInfo
//! whose key does not hash to its sender's number either comes from older
//! firmware, which numbered nodes from their MAC address, or claims a key
//! that is not the sender's.
//!
//! The firmware accepts a signed NodeInfo from a node it has no key for only
//! when `crc32(public_key) == from` and the signature verifies with that key
//! (`verifyFirstContactNodeInfo` in `Router.cpp`); unsigned NodeInfo is
//! trusted on first use whatever the number.

use super::Error;
use crate::primitives::crc32::crc32;

/// The node number firmware 2.8 gives the node holding `public_key`:
/// `crc32(public_key)`.
pub fn node_number(public_key: &[u8; 32]) -> u32 {
    crc32(public_key)
}

/// How a node's number relates to its public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Identity {
    /// `crc32(public_key)` is the node's number: a 2.8 identity.
    Matches,
    /// The number is not `crc32(public_key)`, yet the node signs (or its
    /// NodeInfo is signed): a 2.8 node would have derived its number from
    /// its key, so the key is not this node's. The firmware refuses such a
    /// first contact.
    Mismatch,
    /// The number is not `crc32(public_key)` (or no key is known) and
    /// nothing is signed: older firmware, which numbered nodes otherwise.
    Legacy,
}

impl Identity {
    /// The identity of node `node` holding `public_key` (`None`: no key
    /// known), `signed` telling whether it signs (its NodeInfo carries a
    /// signature, or it has signed before).
    pub fn of(node: u32, public_key: Option<&[u8; 32]>, signed: bool) -> Self {
        match public_key {
            Some(k) if node_number(k) == node => Identity::Matches,
            Some(_) if signed => Identity::Mismatch,
            _ => Identity::Legacy,
        }
    }

    /// `"matches"`, `"mismatch"` or `"legacy"`.
    pub const fn as_str(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Every identity, in declaration order.
    pub const ALL: [Identity; 3] = [Identity::Matches, Identity::Mismatch, Identity::Legacy];

    /// Every identity's name, in the order of [`Identity::ALL`].
    pub const NAMES: [&'static str; 3] = ["matches", "mismatch", "legacy"];

    /// The identity's position in [`Identity::ALL`] and [`Identity::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            Identity::Matches => 0,
            Identity::Mismatch => 1,
            Identity::Legacy => 2,
        }
    }
}

impl core::str::FromStr for Identity {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "matches" => Ok(Identity::Matches),
            "mismatch" => Ok(Identity::Mismatch),
            "legacy" => Ok(Identity::Legacy),
            _ => Err(Error::UnknownName {
                what: "identity",
                expected: "matches, mismatch, legacy",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_follows_the_crc_and_the_signature() {
        let key = [7u8; 32];
        let n = node_number(&key);
        assert_eq!(Identity::of(n, Some(&key), false), Identity::Matches);
        assert_eq!(Identity::of(n, Some(&key), true), Identity::Matches);
        assert_eq!(Identity::of(n ^ 1, Some(&key), true), Identity::Mismatch);
        assert_eq!(Identity::of(n ^ 1, Some(&key), false), Identity::Legacy);
        assert_eq!(Identity::of(n, None, true), Identity::Legacy);
        for i in [Identity::Matches, Identity::Mismatch, Identity::Legacy] {
            assert_eq!(i.to_string().parse::<Identity>().unwrap(), i);
        }
        assert!("Matches".parse::<Identity>().is_err());
    }
}
