//! The firmware's packet signature policy (`SecurityConfig.
//! packet_signature_policy`, firmware 2.8) and what it decides for a
//! decoded packet.
//!
//! The rules, as `checkXeddsaReceivePolicy` and `verifyFirstContactNodeInfo`
//! (`Router.cpp`) and `NodeInfoModule::handleReceivedProtobuf` apply them,
//! for every policy:
//!
//! - a 64-byte signature from a node whose key is known must verify, or the
//!   packet is dropped; a verified signature marks the node as a *signer*;
//! - a signed NodeInfo from a node with no known key is accepted only when
//!   `crc32(public_key) == from` and the signature verifies with that key
//!   (which is then pinned); otherwise it is dropped;
//! - a signature field of any other non-zero length is dropped as malformed;
//! - an unsigned NodeInfo broadcast from a known signer is dropped (its
//!   identity never overwrites the signed one);
//! - PKC direct messages need no signature (the AEAD authenticates them).
//!
//! Then per policy:
//!
//! | | signed, sender key unknown | unsigned |
//! |---|---|---|
//! | [`SignaturePolicy::Compatible`] (the firmware's default) | accepted | accepted; a downgrade (below) is flagged |
//! | [`SignaturePolicy::Balanced`] | accepted | a downgrade is dropped, the rest accepted |
//! | [`SignaturePolicy::Strict`] | dropped | dropped |
//!
//! A *downgrade* is an unsigned broadcast from a known signer that would
//! still fit a LoRa frame with a signature added: a signer always signs
//! such a packet, so someone else sent it.

use super::envelope::Data;
use super::header::{HEADER_LEN, MAX_FRAME_LEN};
use super::xeddsa::SIGNATURE_LEN;
use super::Error;
#[allow(unused_imports)]
use crate::prelude::*;

/// Bytes a signature adds to an encoded `Data`: tag, length, 64 bytes
/// (`XEDDSA_SIGNATURE_FIELD_BYTES`).
pub const SIGNATURE_FIELD_LEN: usize = SIGNATURE_LEN + 2;

/// How a node treats signatures on the packets it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SignaturePolicy {
    /// Accept unsigned packets; drop malformed and invalid signatures (the
    /// firmware's default).
    #[default]
    Compatible,
    /// As compatible, and drop unsigned signable broadcasts from nodes that
    /// have signed before.
    Balanced,
    /// Accept only packets with a verified signature or opened as PKC
    /// direct messages.
    Strict,
}

impl SignaturePolicy {
    /// Every policy, in the firmware's enum order (0, 1, 2).
    pub const ALL: [SignaturePolicy; 3] = [
        SignaturePolicy::Compatible,
        SignaturePolicy::Balanced,
        SignaturePolicy::Strict,
    ];

    /// `"compatible"`, `"balanced"` or `"strict"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            SignaturePolicy::Compatible => "compatible",
            SignaturePolicy::Balanced => "balanced",
            SignaturePolicy::Strict => "strict",
        }
    }
}

impl core::str::FromStr for SignaturePolicy {
    type Err = Error;

    /// The names [`SignaturePolicy::as_str`] gives.
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or(Error::UnknownName {
                what: "signature policy",
                expected: "compatible, balanced, strict",
            })
    }
}

/// What a policy found wrong with a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Concern {
    /// A 64-byte signature that does not verify with the sender's key.
    InvalidSignature,
    /// A signature field that is neither empty nor 64 bytes.
    MalformedSignature,
    /// A signed NodeInfo from a node with no known key whose key does not
    /// hash to its number, or whose signature does not verify with it.
    FirstContact,
    /// Signed, but the sender's key is unknown (refused by strict).
    Unverifiable,
    /// Not signed and not a PKC direct message (refused by strict).
    Unsigned,
    /// An unsigned signable broadcast, or an unsigned NodeInfo broadcast,
    /// from a node that has signed before.
    Downgrade,
    /// A remote administration packet carried in the clear on MQTT (the
    /// firmware ignores these).
    PlainAdmin,
}

impl Concern {
    /// A short stable name: `invalid_signature`, `malformed_signature`,
    /// `first_contact`, `unverifiable`, `unsigned`, `downgrade`,
    /// `plain_admin`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Concern::InvalidSignature => "invalid_signature",
            Concern::MalformedSignature => "malformed_signature",
            Concern::FirstContact => "first_contact",
            Concern::Unverifiable => "unverifiable",
            Concern::Unsigned => "unsigned",
            Concern::Downgrade => "downgrade",
            Concern::PlainAdmin => "plain_admin",
        }
    }
}

/// What the configured policy makes of a decoded packet: what a node with
/// that policy would do with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Acted on.
    Accept,
    /// Acted on, but a stricter policy would drop it.
    Flag(Concern),
    /// Ignored by the node (the decoder still reports its contents).
    Drop(Concern),
}

impl Verdict {
    /// `"accept"`, `"flag"` or `"drop"`.
    pub const fn as_str(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Every verdict's name, in declaration order.
    pub const NAMES: [&'static str; 3] = ["accept", "flag", "drop"];

    /// The verdict's position in [`Verdict::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            Verdict::Accept => 0,
            Verdict::Flag(_) => 1,
            Verdict::Drop(_) => 2,
        }
    }

    /// The concern of a flagged or dropped packet.
    pub const fn concern(&self) -> Option<Concern> {
        match self {
            Verdict::Accept => None,
            Verdict::Flag(c) | Verdict::Drop(c) => Some(*c),
        }
    }

    /// Whether the packet is dropped.
    pub const fn is_drop(&self) -> bool {
        matches!(self, Verdict::Drop(_))
    }
}

/// Whether the firmware would sign `data` if its sender were a signer:
/// with a 64-byte signature added (and none present), it still fits a LoRa
/// frame (`signedDataFits` in `Router.cpp`). The firmware sizes Position,
/// Telemetry, Waypoint and User payloads after dropping fields its schema
/// does not know; this counts the payload as sent, which is the same for
/// every packet a node builds.
pub fn signable_fits(data: &Data) -> bool {
    let unsigned_len = prost::Message::encoded_len(data) - signature_field_len(data);
    unsigned_len + SIGNATURE_FIELD_LEN + HEADER_LEN <= MAX_FRAME_LEN
}

/// Bytes `data`'s own signature field takes.
fn signature_field_len(data: &Data) -> usize {
    match data.xeddsa_signature.len() {
        0 => 0,
        n => 1 + prost::encoding::encoded_len_varint(n as u64) + n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in SignaturePolicy::ALL {
            assert_eq!(p.to_string().parse::<SignaturePolicy>().unwrap(), p);
        }
        assert_eq!(SignaturePolicy::default(), SignaturePolicy::Compatible);
        assert!(matches!(
            "STRICT".parse::<SignaturePolicy>(),
            Err(Error::UnknownName { .. })
        ));
    }

    #[test]
    fn signable_size_is_the_firmware_gate() {
        // Data{portnum: 1, payload: n bytes}, 128 <= n < 16384: portnum 2
        // bytes, payload tag 1 + length 2 + n; with the 66-byte signature
        // field and the 16-byte header: 5 + n + 82 <= 255 up to n = 168.
        let data = |n: usize| Data {
            portnum: 1,
            payload: vec![b'x'; n],
            ..Default::default()
        };
        assert!(signable_fits(&data(168)));
        assert!(!signable_fits(&data(169)));
        // A signature already present does not count twice.
        let mut signed = data(168);
        signed.xeddsa_signature = vec![0; 64];
        assert!(signable_fits(&signed));
    }
}
