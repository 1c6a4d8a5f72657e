//! Onions a hop cannot peel (BOLT #4 `BADONION` failures): the hop answers
//! with `update_fail_malformed_htlc` (a failure code and the SHA-256 of the
//! onion it received), and the hop before it turns that into a failure of
//! its own carrying the same code and hash.
//!
//! A forwarding node and the final node alike may return
//! `invalid_onion_version`, `invalid_onion_hmac` and `invalid_onion_key`:
//! a node cannot know it is the final one before its onion peels.

use super::{Error, Onion, HMAC_LEN};
use crate::primitives::secp256k1::PrivateKey;
use crate::primitives::sha::sha256_parts;
use core::fmt;

/// Failure-code flag: the onion the sending peer encrypted is unparsable.
pub const BADONION: u16 = 0x8000;
/// Failure-code flag: permanent failure.
pub const PERM: u16 = 0x4000;
/// Failure-code flag: node failure (otherwise channel).
pub const NODE: u16 = 0x2000;
/// Failure-code flag: a channel forwarding parameter was violated.
pub const UPDATE: u16 = 0x1000;

/// Bytes of the failure message a `BADONION` failure carries: the code and
/// `sha256_of_onion`.
pub const MESSAGE_LEN: usize = 2 + HMAC_LEN;

/// Why a hop could not peel an onion, as BOLT #4 names it.
///
/// Spelled (`Display`) `invalid_onion_version`, `invalid_onion_hmac`,
/// `invalid_onion_key`, `invalid_onion_blinding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BadOnion {
    /// The version byte is not one the hop knows (`BADONION|PERM|4`).
    Version,
    /// The onion's HMAC does not verify (`BADONION|PERM|5`).
    Hmac,
    /// The ephemeral key is not a point (`BADONION|PERM|6`).
    Key,
    /// An error inside a blinded path (`BADONION|PERM|24`): what every hop
    /// past a blinded path's introduction node returns, whatever failed.
    Blinding,
}

impl BadOnion {
    /// The reason a peel error names, for the errors that are the onion's
    /// fault before anything in it was authenticated: an unknown version
    /// ([`Error::UnknownVersion`]), a failed HMAC ([`Error::Auth`]) or a bad
    /// ephemeral key ([`Error::InvalidKey`]). `None` for any other error:
    /// a payload that fails to parse behind a valid HMAC is answered with
    /// an ordinary failure (`invalid_onion_payload`).
    pub fn from_peel_error(e: &Error) -> Option<Self> {
        match e {
            Error::UnknownVersion(_) => Some(BadOnion::Version),
            Error::Auth => Some(BadOnion::Hmac),
            Error::InvalidKey => Some(BadOnion::Key),
            _ => None,
        }
    }

    /// The failure code.
    pub const fn code(self) -> u16 {
        BADONION
            | PERM
            | match self {
                BadOnion::Version => 4,
                BadOnion::Hmac => 5,
                BadOnion::Key => 6,
                BadOnion::Blinding => 24,
            }
    }

    /// The reason a failure code names, if it is one of these.
    pub const fn from_code(code: u16) -> Option<Self> {
        match code {
            0xc004 => Some(BadOnion::Version),
            0xc005 => Some(BadOnion::Hmac),
            0xc006 => Some(BadOnion::Key),
            0xc018 => Some(BadOnion::Blinding),
            _ => None,
        }
    }

    /// The name BOLT #4 gives the failure.
    pub const fn name(self) -> &'static str {
        match self {
            BadOnion::Version => "invalid_onion_version",
            BadOnion::Hmac => "invalid_onion_hmac",
            BadOnion::Key => "invalid_onion_key",
            BadOnion::Blinding => "invalid_onion_blinding",
        }
    }
}

impl fmt::Display for BadOnion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a hop sends in `update_fail_malformed_htlc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    /// The failure code (`BADONION` set).
    pub failure_code: u16,
    /// SHA-256 of the onion the hop received (zero for
    /// `invalid_onion_blinding`, which hides it).
    pub sha256_of_onion: [u8; 32],
}

impl Malformed {
    /// The reply of a hop (forwarding or final) that could not peel `onion`
    /// (the packet as it arrived) for `reason`.
    pub fn new(reason: BadOnion, onion: &[u8]) -> Self {
        let sha256_of_onion = match reason {
            BadOnion::Blinding => [0; 32],
            _ => sha256_parts(&[onion]),
        };
        Self {
            failure_code: reason.code(),
            sha256_of_onion,
        }
    }

    /// The reply for a peel error, when it is one a hop answers with
    /// `update_fail_malformed_htlc` ([`BadOnion::from_peel_error`]).
    pub fn for_peel_error(e: &Error, onion: &[u8]) -> Option<Self> {
        BadOnion::from_peel_error(e).map(|r| Self::new(r, onion))
    }

    /// At a hop, forwarding or final: peels `onion` (a payment onion or an
    /// onion message, as received) with `key` (the node key, or the blinded
    /// key of a hop inside a blinded path) and `associated_data`, and
    /// returns the `update_fail_malformed_htlc` reply it calls for, or
    /// `None` when its HMAC verifies (the hop then forwards or receives it,
    /// or answers a malformed payload with an ordinary failure).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::TooLong`] or [`Error::UnsupportedSize`]
    /// for a packet of neither onion size (no peer sends one).
    pub fn reply_for(
        onion: &[u8],
        key: &PrivateKey,
        associated_data: &[u8],
    ) -> Result<Option<Self>, Error> {
        let peeled = Onion::parse_message(onion).and_then(|o| o.peel(key, associated_data));
        match peeled {
            Ok(_) => Ok(None),
            Err(
                e @ (Error::Truncated { .. }
                | Error::TooLong { .. }
                | Error::UnsupportedSize { .. }),
            ) => Err(e),
            Err(e) => Ok(Self::for_peel_error(&e, onion)),
        }
    }

    /// The reason its code names, if any.
    pub const fn reason(&self) -> Option<BadOnion> {
        BadOnion::from_code(self.failure_code)
    }

    /// At the hop that received it: the failure message of the failure it
    /// creates in turn (the code and `sha256_of_onion`), to pass to
    /// [`super::failure::create_at`].
    ///
    /// # Errors
    ///
    /// [`Error::BadFailure`] when the code lacks the `BADONION` flag (BOLT #2:
    /// the peer broke the protocol, and the channel fails).
    pub fn failure_message(&self) -> Result<[u8; MESSAGE_LEN], Error> {
        if self.failure_code & BADONION == 0 {
            return Err(Error::BadFailure);
        }
        let mut m = [0u8; MESSAGE_LEN];
        m[..2].copy_from_slice(&self.failure_code.to_be_bytes());
        m[2..].copy_from_slice(&self.sha256_of_onion);
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_bolt4s() {
        for (r, code, name) in [
            (BadOnion::Version, 0xc004, "invalid_onion_version"),
            (BadOnion::Hmac, 0xc005, "invalid_onion_hmac"),
            (BadOnion::Key, 0xc006, "invalid_onion_key"),
            (BadOnion::Blinding, 0xc018, "invalid_onion_blinding"),
        ] {
            assert_eq!(r.code(), code);
            assert_eq!(BadOnion::from_code(code), Some(r));
            assert_eq!(r.to_string(), name);
        }
        assert_eq!(BadOnion::from_code(0x400f), None);
        assert_eq!(BadOnion::from_peel_error(&Error::BadPayload), None);
        assert_eq!(BadOnion::from_peel_error(&Error::FrameOverflow), None);
    }

    #[test]
    fn the_upstream_hop_repeats_code_and_hash() {
        let onion = [0x01u8; 1366];
        let m = Malformed::for_peel_error(&Error::UnknownVersion(1), &onion).unwrap();
        assert_eq!(m.failure_code, 0xc004);
        assert_eq!(m.sha256_of_onion, sha256_parts(&[&onion]));
        let msg = m.failure_message().unwrap();
        assert_eq!(&msg[..2], &[0xc0, 0x04]);
        assert_eq!(&msg[2..], &m.sha256_of_onion);
        let bad = Malformed {
            failure_code: 0x4005,
            sha256_of_onion: [0; 32],
        };
        assert_eq!(bad.failure_message(), Err(Error::BadFailure));
        assert_eq!(
            Malformed::new(BadOnion::Blinding, &onion).sha256_of_onion,
            [0; 32]
        );
        let key = PrivateKey::from_bytes(&[0x11; 32]).unwrap();
        let reply = Malformed::reply_for(&onion, &key, &[]).unwrap().unwrap();
        assert_eq!(reply.reason(), Some(BadOnion::Version));
        let mut zero = [0u8; 1366];
        zero[1] = 0x02;
        zero[2..34].copy_from_slice(&key.public_key().serialize()[1..]);
        let reply = Malformed::reply_for(&zero, &key, &[]).unwrap();
        assert_eq!(reply.map(|r| r.failure_code), Some(0xc005));
        assert_eq!(
            Malformed::reply_for(&onion[..100], &key, &[]),
            Err(Error::Truncated {
                len: 100,
                min: 1366
            })
        );
    }
}
