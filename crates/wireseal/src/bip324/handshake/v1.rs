//! The responder's first step: telling a v1 peer from a v2 one by the
//! initiator's first bytes, before anything of ours is written.

use super::{check_garbage, Handshake, Start};
use crate::bip324::keys::{Network, Role};
use crate::bip324::Error;
use crate::keys::EllSwiftKeypair;

/// What the first bytes from an initiator say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerKind {
    /// Too few bytes to tell (fewer than 16, all matching the v1 prefix).
    NeedMore,
    /// A v1 peer: its first 16 bytes are the v1 `version` message header.
    V1,
    /// Not v1: carry on with the v2 handshake.
    V2,
}

/// Classifies an inbound connection by its first bytes (responder side).
pub fn classify_first_bytes(network: Network, received: &[u8]) -> PeerKind {
    let prefix = network.v1_prefix();
    let n = received.len().min(prefix.len());
    if received[..n] != prefix[..n] {
        PeerKind::V2
    } else if n == prefix.len() {
        PeerKind::V1
    } else {
        PeerKind::NeedMore
    }
}

/// (Responder) nothing written yet: waiting for enough of the initiator's
/// first bytes to tell v1 from v2 (see [`Handshake::classify`]).
#[derive(Debug)]
pub struct AwaitingPeer {
    key: EllSwiftKeypair,
    garbage: Vec<u8>,
}

/// Result of [`Handshake::<AwaitingPeer>::classify`].
#[derive(Debug)]
pub enum Classified {
    /// Fewer than 16 bytes so far, all matching the v1 prefix: read more and
    /// call again with everything received.
    NeedMore(Handshake<AwaitingPeer>),
    /// The initiator speaks v1 (its first 16 bytes are `magic || "version"
    /// || 00x5`). Nothing was written; our unused key is dropped (and wiped),
    /// and the driver can hand the connection to a v1 implementation.
    V1,
    /// The initiator speaks v2: write our key next.
    V2(Handshake<Start>),
}

impl Handshake<AwaitingPeer> {
    /// A responder that first checks the initiator's opening bytes (see
    /// [`Self::classify`]) and only then may write its single-use `key` and
    /// up to 4095 bytes of `garbage`.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for garbage over [`super::MAX_GARBAGE_LEN`] bytes.
    pub fn accept(network: Network, key: EllSwiftKeypair, garbage: &[u8]) -> Result<Self, Error> {
        check_garbage(garbage)?;
        Ok(Self {
            role: Role::Responder,
            network,
            state: AwaitingPeer {
                key,
                garbage: garbage.to_vec(),
            },
        })
    }

    /// Classifies the connection by everything received so far (from its
    /// first byte); writes nothing. See [`classify_first_bytes`].
    pub fn classify(self, received: &[u8]) -> Classified {
        match classify_first_bytes(self.network, received) {
            PeerKind::NeedMore => Classified::NeedMore(self),
            PeerKind::V1 => Classified::V1,
            PeerKind::V2 => {
                let AwaitingPeer { key, garbage } = self.state;
                Classified::V2(Handshake {
                    role: self.role,
                    network: self.network,
                    state: Start { key, garbage },
                })
            }
        }
    }
}
