//! The v2 handshake as consuming state transitions, for either role:
//!
//! ```text
//! Handshake<Start> --write_key--> Handshake<KeySent> --read_key--> Handshake<KeysDerived>
//!   --write_version--> Handshake<VersionSent> --read_garbage--> Handshake<GarbageReceived>
//!   --read_version (decoys, then the version packet)--> Session
//! ```
//!
//! A responder first calls [`classify_first_bytes`] on what arrived, so that
//! a v1 peer can be handed to a v1 implementation before anything is sent.
//! "Need more bytes" is a value ([`KeyRead::NeedMore`] and friends), never an
//! error; every error ends the handshake.

use super::keys::{Network, Role, SessionKeys, TERMINATOR_LEN};
use super::packet::{packet_len, Next, PacketSender, MAX_CONTENTS_LEN};
use super::session::Session;
use super::Bip324Error;
use crate::primitives::ellswift::{EllSwiftKeypair, ELLSWIFT_LEN};

/// Most garbage bytes a peer may send before its terminator.
pub const MAX_GARBAGE_LEN: usize = 4095;

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

/// A handshake in state `S`.
#[derive(Debug)]
pub struct Handshake<S> {
    role: Role,
    network: Network,
    state: S,
}

/// Not started: our key and garbage are chosen.
#[derive(Debug)]
pub struct Start {
    key: EllSwiftKeypair,
    garbage: Vec<u8>,
}

/// Our key and garbage are written; waiting for the peer's key.
#[derive(Debug)]
pub struct KeySent {
    key: EllSwiftKeypair,
    garbage: Vec<u8>,
}

/// Keys derived; our terminator and version packet are not yet written.
#[derive(Debug)]
pub struct KeysDerived {
    keys: SessionKeys,
    garbage: Vec<u8>,
}

/// Our version packet is written; looking for the peer's terminator.
#[derive(Debug)]
pub struct VersionSent {
    session: Session,
    expect: [u8; TERMINATOR_LEN],
}

/// The peer's garbage is known; reading its decoys and version packet.
#[derive(Debug)]
pub struct GarbageReceived {
    session: Session,
    /// AAD of the peer's first packet; emptied once that packet is opened.
    garbage: Vec<u8>,
}

impl<S> Handshake<S> {
    /// Our role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The network whose magic salts the keys.
    pub fn network(&self) -> Network {
        self.network
    }

    fn to<T>(&self, state: T) -> Handshake<T> {
        Handshake {
            role: self.role,
            network: self.network,
            state,
        }
    }
}

impl Handshake<Start> {
    /// A handshake for `role` with our single-use `key` (from a
    /// [`super::KeyPool`] or freshly generated) and up to 4095 bytes of
    /// `garbage` to send after it.
    pub fn new(
        role: Role,
        network: Network,
        key: EllSwiftKeypair,
        garbage: &[u8],
    ) -> Result<Self, Bip324Error> {
        if garbage.len() > MAX_GARBAGE_LEN {
            return Err(Bip324Error::TooMuchGarbage { len: garbage.len() });
        }
        Ok(Self {
            role,
            network,
            state: Start {
                key,
                garbage: garbage.to_vec(),
            },
        })
    }

    /// An initiator (see [`Self::new`]).
    pub fn initiator(
        network: Network,
        key: EllSwiftKeypair,
        garbage: &[u8],
    ) -> Result<Self, Bip324Error> {
        Self::new(Role::Initiator, network, key, garbage)
    }

    /// A responder (see [`Self::new`]).
    pub fn responder(
        network: Network,
        key: EllSwiftKeypair,
        garbage: &[u8],
    ) -> Result<Self, Bip324Error> {
        Self::new(Role::Responder, network, key, garbage)
    }

    /// Bytes [`Self::write_key`] appends.
    pub fn write_key_len(&self) -> usize {
        ELLSWIFT_LEN + self.state.garbage.len()
    }

    /// Appends our 64-byte key and our garbage to `out`.
    pub fn write_key(self, out: &mut Vec<u8>) -> Handshake<KeySent> {
        out.extend_from_slice(self.state.key.encoding());
        out.extend_from_slice(&self.state.garbage);
        let Start { key, garbage } = self.state;
        Handshake {
            role: self.role,
            network: self.network,
            state: KeySent { key, garbage },
        }
    }
}

/// Result of [`Handshake::<KeySent>::read_key`].
#[derive(Debug)]
pub enum KeyRead {
    /// Fewer than 64 bytes so far.
    NeedMore(Handshake<KeySent>),
    /// (Responder only) the initiator speaks v1; fall back to v1.
    V1Peer,
    /// Keys derived from the peer's key, which took `consumed` (64) bytes.
    Derived {
        /// The next state.
        handshake: Handshake<KeysDerived>,
        /// Bytes of the input used.
        consumed: usize,
    },
}

impl Handshake<KeySent> {
    /// Reads the peer's 64-byte key from the start of `input`, runs the ECDH
    /// and derives every session key.
    pub fn read_key(self, input: &[u8]) -> KeyRead {
        if self.role == Role::Responder {
            match classify_first_bytes(self.network, input) {
                PeerKind::V1 => return KeyRead::V1Peer,
                PeerKind::NeedMore => return KeyRead::NeedMore(self),
                PeerKind::V2 => {}
            }
        }
        let Some(theirs) = input.get(..ELLSWIFT_LEN) else {
            return KeyRead::NeedMore(self);
        };
        let mut t = [0u8; ELLSWIFT_LEN];
        t.copy_from_slice(theirs);
        let keys = SessionKeys::derive(&self.state.key, &t, self.role, self.network);
        let KeySent { key, garbage } = self.state;
        drop(key);
        KeyRead::Derived {
            handshake: Handshake {
                role: self.role,
                network: self.network,
                state: KeysDerived { keys, garbage },
            },
            consumed: ELLSWIFT_LEN,
        }
    }
}

impl Handshake<KeysDerived> {
    /// The session id.
    pub fn session_id(&self) -> &[u8; 32] {
        &self.state.keys.session_id
    }

    /// Bytes [`Self::write_version`] appends for these decoys.
    pub fn write_version_len(decoys: &[&[u8]]) -> usize {
        TERMINATOR_LEN + decoys.iter().map(|d| packet_len(d.len())).sum::<usize>() + packet_len(0)
    }

    /// Appends our garbage terminator, the `decoys` as decoy packets and our
    /// (empty) version packet; the first of these packets authenticates our
    /// garbage as AAD.
    pub fn write_version(
        self,
        decoys: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> Result<Handshake<VersionSent>, Bip324Error> {
        if let Some(d) = decoys.iter().find(|d| d.len() > MAX_CONTENTS_LEN) {
            return Err(Bip324Error::ContentsTooLarge {
                len: d.len(),
                max: MAX_CONTENTS_LEN,
            });
        }
        let mut session = Session::from_keys(&self.state.keys, self.role);
        let (send, expect) = self.state.keys.terminators(self.role);
        let start = out.len();
        out.resize(start + Self::write_version_len(decoys), 0);
        let buf = &mut out[start..];
        buf[..TERMINATOR_LEN].copy_from_slice(&send);
        let mut at = TERMINATOR_LEN;
        let mut aad: &[u8] = &self.state.garbage;
        for d in decoys {
            at += seal(&mut session.sender, d, true, aad, &mut buf[at..])?;
            aad = b"";
        }
        seal(&mut session.sender, b"", false, aad, &mut buf[at..])?;
        Ok(self.to(VersionSent { session, expect }))
    }
}

fn seal(
    s: &mut PacketSender,
    contents: &[u8],
    decoy: bool,
    aad: &[u8],
    out: &mut [u8],
) -> Result<usize, Bip324Error> {
    s.seal_into(contents, decoy, aad, out)
}

/// Result of [`Handshake::<VersionSent>::read_garbage`].
#[derive(Debug)]
pub enum GarbageRead {
    /// The terminator is not in the input yet.
    NeedMore(Handshake<VersionSent>),
    /// Found: garbage and terminator took `consumed` bytes.
    Found {
        /// The next state.
        handshake: Handshake<GarbageReceived>,
        /// Bytes of the input used.
        consumed: usize,
    },
}

impl Handshake<VersionSent> {
    /// Looks for the peer's garbage terminator at most 4095 bytes into
    /// `input` (which starts right after the peer's key).
    pub fn read_garbage(self, input: &[u8]) -> Result<GarbageRead, Bip324Error> {
        let window = &input[..input.len().min(MAX_GARBAGE_LEN + TERMINATOR_LEN)];
        let found = window
            .windows(TERMINATOR_LEN)
            .position(|w| w == self.state.expect);
        match found {
            Some(i) => {
                let garbage = input[..i].to_vec();
                let VersionSent { session, .. } = self.state;
                Ok(GarbageRead::Found {
                    handshake: Handshake {
                        role: self.role,
                        network: self.network,
                        state: GarbageReceived { session, garbage },
                    },
                    consumed: i + TERMINATOR_LEN,
                })
            }
            None if window.len() == MAX_GARBAGE_LEN + TERMINATOR_LEN => {
                Err(Bip324Error::NoGarbageTerminator)
            }
            None => Ok(GarbageRead::NeedMore(self)),
        }
    }
}

/// Result of [`Handshake::<GarbageReceived>::read_version`].
#[derive(Debug)]
pub enum VersionRead {
    /// No whole packet yet: at least this many bytes are needed from the
    /// start of the buffer.
    NeedMore(Handshake<GarbageReceived>, usize),
    /// A decoy packet of `consumed` bytes was skipped; call again.
    Decoy(Handshake<GarbageReceived>, usize),
    /// The version packet (its contents ignored, as the BIP requires of
    /// this version) completed the handshake.
    Done {
        /// The established session.
        session: Session,
        /// Bytes of the input used.
        consumed: usize,
    },
}

impl Handshake<GarbageReceived> {
    /// The session id.
    pub fn session_id(&self) -> &[u8; 32] {
        self.state.session.id()
    }

    /// Opens the next packet at the start of `buf` (in place). Decoys are
    /// skipped one per call; the first non-decoy packet is the version.
    pub fn read_version(mut self, buf: &mut [u8]) -> Result<VersionRead, Bip324Error> {
        let next = self
            .state
            .session
            .receiver
            .open_next(&self.state.garbage, buf)?;
        match next {
            Next::NeedMore(n) => Ok(VersionRead::NeedMore(self, n)),
            Next::Packet { packet, consumed } => {
                self.state.garbage = Vec::new();
                if packet.decoy {
                    Ok(VersionRead::Decoy(self, consumed))
                } else {
                    Ok(VersionRead::Done {
                        session: self.state.session,
                        consumed,
                    })
                }
            }
        }
    }
}
