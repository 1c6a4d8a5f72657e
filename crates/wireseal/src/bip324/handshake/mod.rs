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

use super::keys::{expected_terminator, shared_secret, Network, Role, SessionKeys, TERMINATOR_LEN};
use super::packet::{sealed_len, Next, PacketType, MAX_CONTENTS_LEN};
use super::session::Session;
use super::Error;
use crate::keys::{EllSwiftKeypair, ELLSWIFT_LEN};
use crate::secret::Secret;

mod v1;
pub use v1::{classify_first_bytes, AwaitingPeer, Classified, PeerKind};

/// Most garbage bytes a peer may send before its terminator.
pub const MAX_GARBAGE_LEN: usize = 4095;

/// A handshake in state `S`.
#[derive(Debug)]
pub struct Handshake<S> {
    role: Role,
    network: Network,
    state: S,
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
    /// The ECDH secret, kept (wiped on drop) until the peer's terminator is
    /// found, to recognise a terminator made under another network's magic.
    shared: Secret<32>,
    garbage: Vec<u8>,
}

/// Our version packet is written; looking for the peer's terminator.
#[derive(Debug)]
pub struct VersionSent {
    session: Session,
    expect: [u8; TERMINATOR_LEN],
    shared: Secret<32>,
    /// Positions of the input already searched.
    scanned: usize,
    /// The terminators the peer would send under the other known networks,
    /// computed the first time the search comes up empty.
    others: Option<Vec<(Network, [u8; TERMINATOR_LEN])>>,
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
        let shared = shared_secret(&self.state.key, &t, self.role);
        let keys = SessionKeys::from_shared(&shared, self.network);
        let KeySent { key, garbage } = self.state;
        drop(key);
        KeyRead::Derived {
            handshake: Handshake {
                role: self.role,
                network: self.network,
                state: KeysDerived {
                    keys,
                    shared,
                    garbage,
                },
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
        let KeysDerived { shared, .. } = self.state;
        Ok(Handshake {
            role: self.role,
            network: self.network,
            state: VersionSent {
                session,
                expect,
                shared,
                scanned: 0,
                others: None,
            },
        })
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
    /// `input`, which starts right after the peer's key and holds
    /// everything received since (call again with the grown input after
    /// [`GarbageRead::NeedMore`]; positions already searched are not
    /// searched again).
    ///
    /// When our terminator is not there, the terminators the same ECDH
    /// secret gives under the other networks of [`Network::KNOWN`] are
    /// looked for too: a peer set up for another network sends one of them
    /// right after its garbage, and the handshake fails at once with
    /// [`Error::WrongNetwork`] instead of waiting for bytes that never
    /// come. (Garbage is chosen before the keys exist, so it holds one of
    /// them by chance with probability about 2^-114.)
    ///
    /// # Errors
    ///
    /// [`Error::WrongNetwork`] when the peer's terminator belongs to
    /// another known network, [`Error::NoGarbageTerminator`] when 4095
    /// bytes of garbage carry no terminator.
    pub fn read_garbage(mut self, input: &[u8]) -> Result<GarbageRead, Error> {
        let window = &input[..input.len().min(MAX_GARBAGE_LEN + TERMINATOR_LEN)];
        let Some(last) = window.len().checked_sub(TERMINATOR_LEN) else {
            return Ok(GarbageRead::NeedMore(self));
        };
        let from = self.state.scanned.min(last + 1);
        let found = window[from..]
            .windows(TERMINATOR_LEN)
            .position(|w| w == self.state.expect)
            .map(|i| from + i);
        if let Some(i) = found {
            let garbage = input[..i].to_vec();
            let VersionSent { session, .. } = self.state;
            return Ok(GarbageRead::Found {
                handshake: Handshake {
                    role: self.role,
                    network: self.network,
                    state: GarbageReceived { session, garbage },
                },
                consumed: i + TERMINATOR_LEN,
            });
        }
        let (role, network) = (self.role, self.network);
        let shared = &self.state.shared;
        let others = self.state.others.get_or_insert_with(|| {
            Network::KNOWN
                .iter()
                .filter(|(_, n)| *n != network)
                .map(|&(_, n)| (n, expected_terminator(shared, n, role)))
                .collect()
        });
        for w in window[from..].windows(TERMINATOR_LEN) {
            if let Some((theirs, _)) = others.iter().find(|(_, t)| w == t) {
                return Err(Error::WrongNetwork {
                    ours: network,
                    theirs: *theirs,
                });
            }
        }
        if window.len() == MAX_GARBAGE_LEN + TERMINATOR_LEN {
            return Err(Error::NoGarbageTerminator);
        }
        self.state.scanned = last + 1;
        Ok(GarbageRead::NeedMore(self))
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
    /// Sets the receive limit for the peer's decoys and version packet.
    pub(crate) fn set_max_contents(&mut self, max: usize) {
        self.state.session.receiver.set_max_contents(max);
    }

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
