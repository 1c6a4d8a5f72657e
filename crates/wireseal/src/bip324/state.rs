//! The state of one direction of a session, exported for batch engines
//! outside the library (such as a GPU engine), in a documented, versioned
//! form.
//!
//! A direction ([`PacketSender`] or [`PacketReceiver`]) is two ciphers:
//! FSChaCha20 for the 3-byte lengths and FSChaCha20Poly1305 for header and
//! contents. Each stands at a [`Position`] (its rekey epoch, and the index of
//! the next message within the epoch, below [`REKEY_INTERVAL`]) with that
//! epoch's key. The next message's length is XORed with bytes `3 × index ..
//! 3 × index + 3` of the ChaCha20 keystream of the length key with nonce
//! `LE32(0) ‖ LE64(epoch)`; its body is sealed with ChaCha20-Poly1305 under
//! the packet key with nonce `LE32(index) ‖ LE64(epoch)`; every
//! [`REKEY_INTERVAL`] messages each key is replaced as BIP324 says
//! ([`DirectionState::advance`] applies those rules). Both ciphers move by
//! one per packet, so in every state a session produces the two positions
//! are equal; the form keeps them apart because the ciphers are separate.
//!
//! [`DirectionState`] holds the keys in zeroizing [`Secret`]s. Its byte form
//! ([`DirectionState::to_bytes`], [`STATE_LEN`] bytes, version
//! [`STATE_VERSION`]) is:
//!
//! | bytes | field |
//! |---|---|
//! | 0 | version, [`STATE_VERSION`] |
//! | 1..33 | length key of the current epoch |
//! | 33..41 | length epoch, LE64 |
//! | 41..45 | length index in the epoch (0..=223), LE32 |
//! | 45..77 | packet key of the current epoch |
//! | 77..85 | packet epoch, LE64 |
//! | 85..89 | packet index in the epoch (0..=223), LE32 |
//!
//! A new layout gets a new version; [`DirectionState::from_bytes`] refuses
//! versions it does not know ([`Error::StateVersion`]).
//!
//! # Security: the engine's contract
//!
//! An export copies the keys; the direction keeps them. Sealing `n` packets
//! from an export and then sealing through the sender again, without
//! [`PacketSender::advance`]`(n)` in between, reuses nonces. A receiving
//! engine verifies each tag before it releases anything, advances the
//! receiver ([`PacketReceiver::advance`]) by the number of packets that
//! verified in order, and gives the first packet that did not to the
//! receiver itself (which fails it, wipes it and poisons itself).

use super::fschacha::{messages_left, next_length_key, next_packet_key, skip_key};
use super::fschacha::{FsChaCha20, FsChaCha20Poly1305, REKEY_INTERVAL};
use super::packet::{sealed_len, PacketReceiver, PacketSender, HEADER_LEN, LENGTH_LEN, TAG_LEN};
use super::Error;
use crate::secret::Secret;

/// Version of the byte form [`DirectionState::to_bytes`] writes.
pub const STATE_VERSION: u8 = 1;
/// Bytes of the byte form.
pub const STATE_LEN: usize = 89;

/// Where one cipher of a direction stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// The rekey epoch (0 for a session's first [`REKEY_INTERVAL`]
    /// messages).
    pub epoch: u64,
    /// The index of the next message within the epoch, below
    /// [`REKEY_INTERVAL`].
    pub index: u32,
}

/// One direction's keys and positions (see the [module docs](self)).
pub struct DirectionState {
    length_key: Secret<32>,
    length: Position,
    packet_key: Secret<32>,
    packet: Position,
}

impl core::fmt::Debug for DirectionState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DirectionState")
            .field("length", &self.length)
            .field("packet", &self.packet)
            .finish_non_exhaustive()
    }
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().expect("4 bytes"))
}

impl DirectionState {
    fn from_ciphers(length: &FsChaCha20, packet: &FsChaCha20Poly1305) -> Self {
        let (lk, le, li) = length.position();
        let (pk, pe, pi) = packet.position();
        Self {
            length_key: Secret::new(*lk.expose()),
            length: Position {
                epoch: le,
                index: li,
            },
            packet_key: Secret::new(*pk.expose()),
            packet: Position {
                epoch: pe,
                index: pi,
            },
        }
    }

    /// The length cipher's key for its current epoch.
    pub fn length_key(&self) -> &Secret<32> {
        &self.length_key
    }

    /// The length cipher's position.
    pub fn length_position(&self) -> Position {
        self.length
    }

    /// The packet cipher's key for its current epoch.
    pub fn packet_key(&self) -> &Secret<32> {
        &self.packet_key
    }

    /// The packet cipher's position.
    pub fn packet_position(&self) -> Position {
        self.packet
    }

    /// Messages this direction may still seal or open before its key
    /// schedule is spent (saturating at `u64::MAX`).
    pub fn messages_left(&self) -> u64 {
        messages_left(self.length.index, self.length.epoch)
            .min(messages_left(self.packet.index, self.packet.epoch))
    }

    /// Moves both ciphers forward by `n` messages, rekeying at every epoch
    /// boundary as sealing or opening them one by one would (one ChaCha20
    /// block per boundary and cipher).
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when fewer than `n` messages are left; nothing
    /// changes then.
    pub fn advance(&mut self, n: u64) -> Result<(), Error> {
        if n > self.messages_left() {
            return Err(Error::Exhausted);
        }
        let (lk, le, li) = skip_key(
            &self.length_key,
            self.length.epoch,
            self.length.index,
            n,
            next_length_key,
        );
        let (pk, pe, pi) = skip_key(
            &self.packet_key,
            self.packet.epoch,
            self.packet.index,
            n,
            next_packet_key,
        );
        *self = Self {
            length_key: lk,
            length: Position {
                epoch: le,
                index: li,
            },
            packet_key: pk,
            packet: Position {
                epoch: pe,
                index: pi,
            },
        };
        Ok(())
    }

    /// The byte form (see the [module docs](self)), in a zeroizing buffer.
    pub fn to_bytes(&self) -> Secret<STATE_LEN> {
        let mut out = Secret::new([0u8; STATE_LEN]);
        let b = out.expose_mut();
        b[0] = STATE_VERSION;
        b[1..33].copy_from_slice(self.length_key.expose());
        b[33..41].copy_from_slice(&self.length.epoch.to_le_bytes());
        b[41..45].copy_from_slice(&self.length.index.to_le_bytes());
        b[45..77].copy_from_slice(self.packet_key.expose());
        b[77..85].copy_from_slice(&self.packet.epoch.to_le_bytes());
        b[85..89].copy_from_slice(&self.packet.index.to_le_bytes());
        out
    }

    /// Parses the byte form.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] / [`Error::TooLong`] for any length but
    /// [`STATE_LEN`]; [`Error::StateVersion`] for a version other than
    /// [`STATE_VERSION`]; [`Error::InvalidState`] for an index of
    /// [`REKEY_INTERVAL`] or more.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.len() < STATE_LEN {
            return Err(Error::Truncated {
                len: bytes.len(),
                min: STATE_LEN,
            });
        }
        if bytes.len() > STATE_LEN {
            return Err(Error::TooLong {
                len: bytes.len(),
                max: STATE_LEN,
            });
        }
        if bytes[0] != STATE_VERSION {
            return Err(Error::StateVersion { version: bytes[0] });
        }
        let key = |b: &[u8]| Secret::<32>::from_slice(b).expect("32 bytes");
        let s = Self {
            length_key: key(&bytes[1..33]),
            length: Position {
                epoch: le_u64(&bytes[33..41]),
                index: le_u32(&bytes[41..45]),
            },
            packet_key: key(&bytes[45..77]),
            packet: Position {
                epoch: le_u64(&bytes[77..85]),
                index: le_u32(&bytes[85..89]),
            },
        };
        if s.length.index >= REKEY_INTERVAL || s.packet.index >= REKEY_INTERVAL {
            return Err(Error::InvalidState);
        }
        Ok(s)
    }
}

/// One whole packet found by [`PacketReceiver::frame`]: it occupies
/// `wire[offset..offset + sealed_len(contents_len)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framed {
    /// Where the packet's length field starts.
    pub offset: usize,
    /// Its contents length (header and tag not counted).
    pub contents_len: usize,
}

impl PacketSender {
    /// A copy of this sender's keys and positions, for a batch engine.
    /// Read the [module docs](self)' contract first: after sealing `n`
    /// packets from it, call [`Self::advance`]`(n)`.
    pub fn export_state(&self) -> DirectionState {
        DirectionState::from_ciphers(&self.length, &self.packet)
    }

    /// Moves the sender past `n` packets that an engine sealed from
    /// [`Self::export_state`]. Nothing changes on error.
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when fewer than `n` packets are left.
    pub fn advance(&mut self, n: u64) -> Result<(), Error> {
        if n > self.messages_left() {
            return Err(Error::Exhausted);
        }
        self.packet.skip(n)?;
        self.length.skip(n)
    }

    /// Packets this sender can still seal before its key schedule ends
    /// (what [`DirectionState::messages_left`] of an export says, without
    /// copying the keys).
    pub fn messages_left(&self) -> u64 {
        self.length.left().min(self.packet.left())
    }

    /// A sender at `state`: what an engine runs to seal on the CPU the
    /// packets it had sealed from that export elsewhere, when the sealed
    /// bytes never left it (its device failed after the sender was
    /// advanced past them). The packets must be the same ones, with the
    /// same contents: two senders from one state that seal different
    /// packets reuse nonces (see the module's contract).
    pub fn from_state(state: &DirectionState) -> Self {
        Self {
            length: state_length(state),
            packet: state_packet(state),
        }
    }
}

/// One receiver's stream for [`frame_interleaved`]: what
/// [`PacketReceiver::frame`] takes, and where it stopped.
#[derive(Debug)]
pub struct FrameJob<'a> {
    /// The receiver (not changed).
    pub receiver: &'a PacketReceiver,
    /// Its wire bytes, from a packet boundary.
    pub wire: &'a [u8],
    /// Where its packets are appended.
    pub out: &'a mut Vec<Framed>,
    /// Set to the offset where framing stopped (what
    /// [`PacketReceiver::frame`] returns).
    pub end: usize,
}

impl<'a> FrameJob<'a> {
    /// A job framing `wire` for `receiver` into `out`.
    pub fn new(receiver: &'a PacketReceiver, wire: &'a [u8], out: &'a mut Vec<Framed>) -> Self {
        Self {
            receiver,
            wire,
            out,
            end: 0,
        }
    }
}

/// Streams walked side by side by [`frame_interleaved`].
const INTERLEAVE: usize = 16;

/// [`PacketReceiver::frame`] for many receivers, with the same results,
/// walking up to sixteen streams side by side. One stream's walk is a chain
/// of dependent reads (a packet's place comes from the length before it),
/// and on a batch larger than the caches each read waits on memory; the
/// reads of independent streams overlap, so a batch engine frames its jobs
/// several times faster this way than one after another.
pub fn frame_interleaved(jobs: &mut [FrameJob<'_>]) {
    for group in jobs.chunks_mut(INTERLEAVE) {
        let mut walks: Vec<(Walk<'_>, &mut FrameJob<'_>)> = Vec::with_capacity(group.len());
        for job in group.iter_mut() {
            match Walk::new(job.receiver, job.wire) {
                Some(w) => walks.push((w, job)),
                None => job.end = 0,
            }
        }
        while !walks.is_empty() {
            let mut i = 0;
            while i < walks.len() {
                let (walk, job) = &mut walks[i];
                if walk.step(job.out) {
                    i += 1;
                } else {
                    job.end = walk.at;
                    walks.swap_remove(i);
                }
            }
        }
    }
}

/// A walk over a receiver's wire bytes, one packet per [`Walk::step`], with
/// a copy of its length cipher: the one rule of [`PacketReceiver::frame`].
struct Walk<'w> {
    length: FsChaCha20,
    left: u64,
    max: usize,
    wire: &'w [u8],
    at: usize,
}

impl<'w> Walk<'w> {
    /// `None` for a poisoned receiver or one between a length and its body.
    fn new(rx: &PacketReceiver, wire: &'w [u8]) -> Option<Self> {
        rx.at_boundary().ok()?;
        Some(Self {
            length: rx.length.duplicate(),
            left: rx.packet.left(),
            max: rx.max_contents(),
            wire,
            at: 0,
        })
    }

    /// Frames the next packet into `out`; false (and nothing appended)
    /// when the walk stops there.
    #[inline]
    fn step(&mut self, out: &mut Vec<Framed>) -> bool {
        if self.left == 0 {
            return false;
        }
        let Some(field) = self.wire.get(self.at..self.at + LENGTH_LEN) else {
            return false;
        };
        let mut f = [0u8; LENGTH_LEN];
        f.copy_from_slice(field);
        if self.length.crypt(&mut f).is_err() {
            return false;
        }
        let len = u32::from_le_bytes([f[0], f[1], f[2], 0]) as usize;
        let total = sealed_len(len);
        if len > self.max || self.wire.len() - self.at < total {
            return false;
        }
        debug_assert_eq!(total, LENGTH_LEN + HEADER_LEN + len + TAG_LEN);
        out.push(Framed {
            offset: self.at,
            contents_len: len,
        });
        self.at += total;
        self.left -= 1;
        true
    }
}

fn state_length(s: &DirectionState) -> FsChaCha20 {
    FsChaCha20::at(
        Secret::new(*s.length_key.expose()),
        s.length.epoch,
        s.length.index,
    )
}

fn state_packet(s: &DirectionState) -> FsChaCha20Poly1305 {
    FsChaCha20Poly1305::at(
        Secret::new(*s.packet_key.expose()),
        s.packet.epoch,
        s.packet.index,
    )
}

impl PacketReceiver {
    /// A copy of this receiver's keys and positions, for a batch engine
    /// (see the [module docs](self)' contract).
    ///
    /// # Errors
    ///
    /// [`Error::Poisoned`] after a failure; [`Error::OutOfOrder`] between a
    /// packet's length and its body (export at packet boundaries only).
    pub fn export_state(&self) -> Result<DirectionState, Error> {
        self.at_boundary()?;
        Ok(DirectionState::from_ciphers(&self.length, &self.packet))
    }

    fn at_boundary(&self) -> Result<(), Error> {
        if self.is_poisoned() {
            Err(Error::Poisoned)
        } else if self.pending_len().is_some() {
            Err(Error::OutOfOrder)
        } else {
            Ok(())
        }
    }

    /// Moves the receiver past `n` packets that an engine opened from
    /// [`Self::export_state`] and whose tags verified. Nothing changes on
    /// error.
    ///
    /// # Errors
    ///
    /// As [`Self::export_state`], and [`Error::Exhausted`] when fewer than
    /// `n` packets are left.
    pub fn advance(&mut self, n: u64) -> Result<(), Error> {
        self.at_boundary()?;
        if n > self.length.left().min(self.packet.left()) {
            return Err(Error::Exhausted);
        }
        self.packet.skip(n)?;
        self.length.skip(n)
    }

    /// Finds the whole packets at the start of `wire` without changing the
    /// receiver: decrypts each length field in turn with a copy of the
    /// length cipher and appends one [`Framed`] per packet to `out`. Stops
    /// before a length field or body that is not all there, a length over
    /// [`Self::max_contents`], or a packet beyond the key schedule, and
    /// returns the offset where it stopped (`wire.len()` when it framed
    /// everything). Opening from that offset with [`Self::open_next`] after
    /// the framed packets gives the error (or `NeedMore`) the receiver
    /// would give. A poisoned receiver, or one between a length and its
    /// body, frames nothing.
    pub fn frame(&self, wire: &[u8], out: &mut Vec<Framed>) -> usize {
        let Some(mut walk) = Walk::new(self, wire) else {
            return 0;
        };
        while walk.step(out) {}
        walk.at
    }

    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): a receiver at
        /// `state`, with Bitcoin Core's receive limit.
        fn from_state(state: &DirectionState) -> Self {
            let keys = (Secret::new([0u8; 32]), Secret::new([0u8; 32]));
            let mut r = Self::new(&keys.0, &keys.1);
            r.length = state_length(state);
            r.packet = state_packet(state);
            r
        }
    }
}
