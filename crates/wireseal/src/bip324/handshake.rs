//! The v2 handshake as consuming state transitions, for either role:
//!
//! ```text
//! (responder) Handshake::accept -> Handshake<AwaitingPeer> --classify--> V1 (nothing sent)
//!                                                                     | V2: Handshake<Start>
//! Handshake<Start> --write_key--> Handshake<KeySent> --read_key--> Handshake<KeysDerived>
//!   --write_version--> Handshake<VersionSent> --read_garbage--> Handshake<GarbageReceived>
//!   --read_version (decoys, then the version packet)--> Session
//! ```
//!
//! A responder that may have to fall back to v1 on the same connection
//! starts with [`Handshake::accept`]: the only step from
//! [`Handshake<AwaitingPeer>`] is [`Handshake::classify`], which looks at the
//! initiator's first bytes before anything is written and hands back a
//! [`Handshake<Start>`] (from which our key can be written) only once the
//! peer is known to speak v2. [`Handshake::responder`] skips that step, for
//! drivers that only speak v2 or ran [`classify_first_bytes`] themselves;
//! its [`Handshake::read_key`] still reports a v1 peer ([`KeyRead::V1Peer`]),
//! but only after our key went out.
//!
//! An initiator never sends an encoding whose first 16 bytes are the v1
//! prefix of its network (a responder would take it for a v1 peer): in that
//! case, which has probability 2^-128, [`Handshake::new`] re-encodes the
//! key with fresh randomness.
//!
//! "Need more bytes" is a value ([`KeyRead::NeedMore`] and friends), never an
//! error; every error ends the handshake.

use super::keys::{Network, Role, SessionKeys, TERMINATOR_LEN};
use super::packet::{sealed_len, Next, PacketType, MAX_CONTENTS_LEN};
use super::session::Session;
use super::Error;
use crate::keys::{EllSwiftKeypair, ELLSWIFT_LEN};

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

/// (Responder) nothing written yet: waiting for enough of the initiator's
/// first bytes to tell v1 from v2 (see [`Handshake::classify`]).
#[derive(Debug)]
pub struct AwaitingPeer {
    key: EllSwiftKeypair,
    garbage: Vec<u8>,
}

/// Not started: our key and garbage are chosen (for a responder created by
/// [`Handshake::accept`]: the peer is known to speak v2).
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

fn check_garbage(garbage: &[u8]) -> Result<(), Error> {
    if garbage.len() > MAX_GARBAGE_LEN {
        return Err(Error::TooLong {
            len: garbage.len(),
            max: MAX_GARBAGE_LEN,
        });
    }
    Ok(())
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
    /// [`Error::TooLong`] for garbage over [`MAX_GARBAGE_LEN`] bytes.
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

impl Handshake<Start> {
    /// A handshake for `role` with our single-use `key` (from a
    /// [`super::KeyPool`] or freshly generated) and up to 4095 bytes of
    /// `garbage` to send after it.
    ///
    /// An initiator's key whose encoding starts with the network's v1 prefix
    /// is re-encoded (same key, fresh randomness) so that the responder can
    /// never mistake it for a v1 peer. A responder made here writes its key
    /// without looking at the peer's bytes first; use [`Handshake::accept`]
    /// to detect a v1 peer before anything is sent.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for garbage over [`MAX_GARBAGE_LEN`] bytes.
    pub fn new(
        role: Role,
        network: Network,
        mut key: EllSwiftKeypair,
        garbage: &[u8],
    ) -> Result<Self, Error> {
        check_garbage(garbage)?;
        if role == Role::Initiator {
            let prefix = network.v1_prefix();
            while key.encoding()[..prefix.len()] == prefix {
                key.reencode();
            }
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
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for garbage over [`MAX_GARBAGE_LEN`] bytes.
    pub fn initiator(
        network: Network,
        key: EllSwiftKeypair,
        garbage: &[u8],
    ) -> Result<Self, Error> {
        Self::new(Role::Initiator, network, key, garbage)
    }

    /// A responder that writes its key without first checking for a v1
    /// peer (see [`Self::new`]); prefer [`Handshake::accept`] when the
    /// connection may have to fall back to v1.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for garbage over [`MAX_GARBAGE_LEN`] bytes.
    pub fn responder(
        network: Network,
        key: EllSwiftKeypair,
        garbage: &[u8],
    ) -> Result<Self, Error> {
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
    /// and derives every session key. A responder checks the v1 prefix here
    /// too ([`KeyRead::V1Peer`]), which matters only when it was made with
    /// [`Handshake::responder`] and so skipped [`Handshake::classify`].
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
        TERMINATOR_LEN + decoys.iter().map(|d| sealed_len(d.len())).sum::<usize>() + sealed_len(0)
    }

    /// Appends our garbage terminator, the `decoys` as decoy packets and our
    /// (empty) version packet; the first of these packets authenticates our
    /// garbage as AAD.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for a decoy over [`MAX_CONTENTS_LEN`] bytes
    /// (nothing is appended).
    pub fn write_version(
        self,
        decoys: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> Result<Handshake<VersionSent>, Error> {
        if let Some(d) = decoys.iter().find(|d| d.len() > MAX_CONTENTS_LEN) {
            return Err(Error::TooLong {
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
            at += session
                .sender
                .seal_into(d, PacketType::Decoy, aad, &mut buf[at..])?;
            aad = b"";
        }
        session
            .sender
            .seal_into(b"", PacketType::Genuine, aad, &mut buf[at..])?;
        Ok(self.to(VersionSent { session, expect }))
    }
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
    ///
    /// # Errors
    ///
    /// [`Error::NoGarbageTerminator`] when 4095 bytes of garbage carry no
    /// terminator.
    pub fn read_garbage(self, input: &[u8]) -> Result<GarbageRead, Error> {
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
                Err(Error::NoGarbageTerminator)
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
    ///
    /// # Errors
    ///
    /// As [`super::PacketReceiver::open_next`]: [`Error::Auth`] when a
    /// packet (or the peer's garbage, the first packet's AAD) does not
    /// verify, [`Error::TooLong`] for an announced length over the limit.
    pub fn read_version(mut self, buf: &mut [u8]) -> Result<VersionRead, Error> {
        let next = self
            .state
            .session
            .receiver
            .open_next(&self.state.garbage, buf)?;
        match next {
            Next::NeedMore(n) => Ok(VersionRead::NeedMore(self, n)),
            Next::Packet { packet, consumed } => {
                self.state.garbage = Vec::new();
                if packet.kind == PacketType::Decoy {
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
