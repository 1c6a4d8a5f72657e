//! What the [`super::io`] and `tokio` drivers share, with no I/O of its own:
//! the handshake as a loop of "write these bytes" / "read more" steps, the
//! inbound stream buffer and the outbound queue, and the drivers' error.

use super::handshake::{
    AwaitingPeer, Classified, GarbageRead, GarbageReceived, Handshake, KeyRead, KeySent,
    KeysDerived, Start, VersionRead, VersionSent,
};
use super::keys::{Network, Role};
use super::packet::{
    Next, PacketReceiver, PacketSender, PacketType, CORE_MAX_CONTENTS_LEN, HEADER_LEN, LENGTH_LEN,
    MAX_CONTENTS_LEN,
};
use super::session::Session;
use crate::keys::EllSwiftKeypair;
use core::fmt;
use core::ops::Range;

/// Bytes a driver reads from its stream at a time after the handshake.
pub(crate) const READ_CHUNK: usize = 64 * 1024;

/// Bytes a driver reads at a time during the handshake, and the capacity
/// its input buffer grows to in doubling steps: a key, the longest garbage
/// and its terminator. Past this (a large decoy or version packet) the
/// buffer grows as the packet needs.
pub(crate) const HANDSHAKE_READ_CHUNK: usize =
    crate::keys::ELLSWIFT_LEN + super::MAX_GARBAGE_LEN + super::TERMINATOR_LEN;

/// How a driver runs the handshake and the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The network whose magic salts the keys.
    pub network: Network,
    /// Garbage sent after our key (at most [`super::MAX_GARBAGE_LEN`] bytes).
    pub garbage: Vec<u8>,
    /// Contents of decoy packets sent before our version packet.
    pub decoys: Vec<Vec<u8>>,
    /// Largest contents accepted from the peer (see
    /// [`PacketReceiver::set_max_contents`]).
    pub max_contents: usize,
}

impl Config {
    /// No garbage, no decoys, Bitcoin Core's receive limit.
    pub fn new(network: Network) -> Self {
        Self {
            network,
            garbage: Vec::new(),
            decoys: Vec::new(),
            max_contents: CORE_MAX_CONTENTS_LEN,
        }
    }
}

/// Where the peer was when it closed the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// (Responder) before its first bytes told v1 from v2.
    Handshake,
    /// Before its whole 64-byte key.
    Key,
    /// Before its garbage terminator.
    GarbageTerminator,
    /// Before its version packet (or inside a decoy before it).
    Version,
    /// After the handshake, at a packet boundary.
    BetweenPackets,
    /// After the handshake, inside a packet.
    MidPacket,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Handshake => "during the handshake",
            Stage::Key => "before sending its key",
            Stage::GarbageTerminator => "before its garbage terminator",
            Stage::Version => "before its version packet",
            Stage::BetweenPackets => "between packets",
            Stage::MidPacket => "in the middle of a packet",
        })
    }
}

/// What went wrong in a driver: the stream, the peer's behaviour, or the
/// protocol. Timeouts are the caller's (wrap the calls in its own
/// deadline).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer closed the connection (end of stream) at `stage`.
    #[error("peer disconnected {stage}")]
    Disconnected {
        /// Where the peer was.
        stage: Stage,
    },
    /// (Responder) the initiator sent a v1 `version` message; nothing of
    /// ours was written.
    #[error("peer is not v2: it sent a v1 version message")]
    V1Peer,
    /// The handshake or a packet failed (see [`super::Error`]).
    #[error(transparent)]
    Protocol(#[from] super::Error),
    /// Reading or writing the stream failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The next thing a handshake driver must do.
pub(crate) enum Step {
    /// Write all of `HandshakeCore::out`, then clear it.
    Write,
    /// Read more bytes into `HandshakeCore::inbuf`; end of stream means the
    /// peer left at this stage.
    Read(Stage),
    /// Established: call [`HandshakeCore::finish`].
    Done,
}

/// The handshake's state. The states that hold the session's ciphers (about
/// 1.6 KiB) are boxed, so a handshake waiting for the peer's key (what a
/// silent or slow peer keeps a listener holding) is a few hundred bytes.
enum State {
    Awaiting(Handshake<AwaitingPeer>),
    Start(Handshake<Start>),
    KeySent(Handshake<KeySent>),
    Derived(Handshake<KeysDerived>),
    VersionSent(Box<Handshake<VersionSent>>),
    Garbage(Box<Handshake<GarbageReceived>>),
    Done(Box<Session>),
    Failed,
}

/// The handshake of either role as steps for a driver loop.
pub(crate) struct HandshakeCore {
    state: State,
    decoys: Vec<Vec<u8>>,
    /// Bytes received and not yet used.
    pub(crate) inbuf: Vec<u8>,
    /// Bytes to send.
    pub(crate) out: Vec<u8>,
}

impl HandshakeCore {
    pub(crate) fn new(role: Role, key: EllSwiftKeypair, config: &Config) -> Result<Self, Error> {
        let state = match role {
            Role::Initiator => {
                State::Start(Handshake::initiator(config.network, key, &config.garbage)?)
            }
            Role::Responder => {
                State::Awaiting(Handshake::accept(config.network, key, &config.garbage)?)
            }
        };
        Ok(Self {
            state,
            decoys: config.decoys.clone(),
            inbuf: Vec::new(),
            out: Vec::new(),
        })
    }

    /// Appends bytes read from the peer to `inbuf`. Up to
    /// [`HANDSHAKE_READ_CHUNK`] the capacity doubles but never passes that
    /// size, so a handshake that never completes holds at most that much,
    /// and a peer trickling bytes in holds about twice what it sent.
    pub(crate) fn received(&mut self, bytes: &[u8]) {
        let needed = self.inbuf.len() + bytes.len();
        if needed > self.inbuf.capacity() && needed <= HANDSHAKE_READ_CHUNK {
            let target = (self.inbuf.capacity() * 2).clamp(needed, HANDSHAKE_READ_CHUNK);
            self.inbuf.reserve_exact(target - self.inbuf.len());
        }
        self.inbuf.extend_from_slice(bytes);
    }

    /// Advances as far as the bytes in `inbuf` allow.
    pub(crate) fn step(&mut self) -> Result<Step, Error> {
        loop {
            if !self.out.is_empty() {
                return Ok(Step::Write);
            }
            let (next, step) = match core::mem::replace(&mut self.state, State::Failed) {
                State::Awaiting(h) => match h.classify(&self.inbuf) {
                    Classified::NeedMore(h) => (State::Awaiting(h), Some(Stage::Handshake)),
                    Classified::V1 => return Err(Error::V1Peer),
                    Classified::V2(h) => (State::Start(h), None),
                },
                State::Start(h) => (State::KeySent(h.write_key(&mut self.out)), None),
                State::KeySent(h) => match h.read_key(&self.inbuf) {
                    KeyRead::NeedMore(h) => (State::KeySent(h), Some(Stage::Key)),
                    KeyRead::V1Peer => return Err(Error::V1Peer),
                    KeyRead::Derived {
                        handshake,
                        consumed,
                    } => {
                        self.inbuf.drain(..consumed);
                        (State::Derived(handshake), None)
                    }
                },
                State::Derived(h) => {
                    let decoys: Vec<&[u8]> = self.decoys.iter().map(Vec::as_slice).collect();
                    let h = h.write_version(&decoys, &mut self.out)?;
                    (State::VersionSent(Box::new(h)), None)
                }
                State::VersionSent(h) => match h.read_garbage(&self.inbuf)? {
                    GarbageRead::NeedMore(h) => (
                        State::VersionSent(Box::new(h)),
                        Some(Stage::GarbageTerminator),
                    ),
                    GarbageRead::Found {
                        handshake,
                        consumed,
                    } => {
                        self.inbuf.drain(..consumed);
                        (State::Garbage(Box::new(handshake)), None)
                    }
                },
                State::Garbage(h) => match h.read_version(&mut self.inbuf)? {
                    VersionRead::NeedMore(h, _) => {
                        (State::Garbage(Box::new(h)), Some(Stage::Version))
                    }
                    VersionRead::Decoy(h, consumed) => {
                        self.inbuf.drain(..consumed);
                        (State::Garbage(Box::new(h)), None)
                    }
                    VersionRead::Done { session, consumed } => {
                        self.inbuf.drain(..consumed);
                        self.state = State::Done(Box::new(session));
                        return Ok(Step::Done);
                    }
                },
                State::Done(s) => {
                    self.state = State::Done(s);
                    return Ok(Step::Done);
                }
                State::Failed => return Err(super::Error::Poisoned.into()),
            };
            self.state = next;
            if let Some(stage) = step {
                return Ok(Step::Read(stage));
            }
        }
    }

    /// The established session and the bytes received past the handshake.
    pub(crate) fn finish(self, config: &Config) -> (ReadState, WriteState, [u8; 32]) {
        let State::Done(session) = self.state else {
            unreachable!("finish is called after Step::Done")
        };
        let id = *session.id();
        let (sender, mut receiver) = session.split();
        receiver.set_max_contents(config.max_contents);
        let read = ReadState {
            receiver,
            end: self.inbuf.len(),
            buf: self.inbuf,
            start: 0,
            packets: 0,
        };
        (
            read,
            WriteState {
                sender,
                out: Vec::new(),
            },
            id,
        )
    }
}

/// The inbound half's state: the receiver and the bytes read but not used
/// (`buf[start..end]`). All of `buf` is initialized, so a read goes into
/// `buf[end..]` without zeroing it again.
#[derive(Debug)]
pub(crate) struct ReadState {
    receiver: PacketReceiver,
    pub(crate) buf: Vec<u8>,
    start: usize,
    end: usize,
    packets: u64,
}

impl ReadState {
    /// The next genuine packet's contents range in `buf` from the bytes
    /// already read, skipping decoys; `None` when no whole packet is left
    /// (the used bytes are then dropped from `buf`).
    pub(crate) fn next_buffered(&mut self) -> Result<Option<Range<usize>>, Error> {
        loop {
            match self
                .receiver
                .open_next(b"", &mut self.buf[self.start..self.end])?
            {
                Next::NeedMore(_) => {
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                    return Ok(None);
                }
                Next::Packet { packet, consumed } => {
                    let at = self.start + LENGTH_LEN + HEADER_LEN;
                    let range = at..at + packet.contents.len();
                    let kind = packet.kind;
                    self.start += consumed;
                    self.packets += 1;
                    if kind == PacketType::Genuine {
                        return Ok(Some(range));
                    }
                }
            }
        }
    }

    /// Bytes read and not yet used.
    pub(crate) fn buffered_len(&self) -> usize {
        self.end - self.start
    }

    /// Room for the next read of at most `chunk` bytes: `buf[end..]`,
    /// grown (and zeroed) only past what earlier reads already used.
    pub(crate) fn spare(&mut self, chunk: usize) -> &mut [u8] {
        if self.buf.len() < self.end + chunk {
            self.buf.resize(self.end + chunk, 0);
        }
        &mut self.buf[self.end..self.end + chunk]
    }

    /// Records `n` bytes read into [`Self::spare`].
    pub(crate) fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// Packets opened so far, decoys included.
    pub(crate) fn packets(&self) -> u64 {
        self.packets
    }

    /// The stage an end of stream now means.
    pub(crate) fn eof_stage(&self) -> Stage {
        if self.buffered_len() == 0 {
            Stage::BetweenPackets
        } else {
            Stage::MidPacket
        }
    }
}

/// The outbound half's state: the sender and the packets queued.
#[derive(Debug)]
pub(crate) struct WriteState {
    sender: PacketSender,
    pub(crate) out: Vec<u8>,
}

impl WriteState {
    /// Seals one packet onto the queue; on error the queue is unchanged.
    pub(crate) fn queue(&mut self, contents: &[u8], kind: PacketType) -> Result<(), Error> {
        if contents.len() > MAX_CONTENTS_LEN {
            return Err(super::Error::TooLong {
                len: contents.len(),
                max: MAX_CONTENTS_LEN,
            }
            .into());
        }
        let at = self.out.len();
        self.out
            .resize(at + PacketSender::sealed_len(contents.len()), 0);
        if let Err(e) = self
            .sender
            .seal_into(contents, kind, b"", &mut self.out[at..])
        {
            self.out.truncate(at);
            return Err(e.into());
        }
        Ok(())
    }
}
