//! One end of a v2 connection, sans-IO: the whole handshake and the session
//! after it, fed the bytes received, holding the bytes to send, handing out
//! events. No socket, no clock: BIP324 has no timers, so deadlines are the
//! driver's.

use super::handshake::{
    AwaitingPeer, Classified, GarbageRead, GarbageReceived, Handshake, KeyRead, KeySent,
    VersionRead, VersionSent,
};
use super::keys::{Network, Role};
use super::packet::{PacketReceiver, PacketSender, PacketType, MAX_CONTENTS_LEN};
use super::stage::Stage;
use super::stream::{
    Inbound, InputBuffer, Outbound, OutputQueue, HANDSHAKE_READ_CHUNK, READ_CHUNK,
};
use super::{Config, Error};
use crate::keys::EllSwiftKeypair;
use core::fmt;

/// What [`Connection::poll_event`] hands out.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The peer's version packet arrived: the session is up. Once per
    /// connection, before any packet.
    Established {
        /// The session id (equal on both sides; compare it out of band to
        /// rule out a man in the middle).
        session_id: [u8; 32],
    },
    /// A genuine packet's contents (decoys are dropped), borrowed from the
    /// connection's buffer until the next call.
    Packet(&'a [u8]),
}

/// The handshake's progress. The states that hold the session's ciphers
/// (about 1.6 KiB) are boxed, so a connection waiting for the peer's key
/// (what a silent or slow peer keeps a listener holding) is small.
enum State {
    Awaiting(Handshake<AwaitingPeer>),
    KeySent(Handshake<KeySent>),
    VersionSent(Box<Handshake<VersionSent>>),
    Version(Box<Handshake<GarbageReceived>>),
    Established(Box<(PacketSender, PacketReceiver)>),
    Failed,
}

/// One end of a v2 connection, sans-IO, in the shape of quinn-proto's
/// `Connection`: feed it the bytes received ([`Self::receive`], or
/// [`Self::receive_buffer`] + [`Self::received`] to read in place), write
/// [`Self::transmit`] to the peer, take [`Self::poll_event`] until it
/// returns `None`, queue packets with [`Self::send`].
///
/// The handshake follows BIP324 for either role: our key and garbage,
/// the garbage-terminator search (up to 4095 bytes), decoys and the
/// version packet each way; a responder classifies the initiator's first
/// bytes before it writes anything ([`Error::V1Peer`] for a v1 peer, with
/// nothing sent), and a peer set up for another known network is reported
/// as [`Error::WrongNetwork`] as soon as its terminator arrives. Input is
/// bounded: garbage by the terminator search, every packet by the receive
/// limit ([`Config::with_max_contents`]) before room for it exists.
///
/// Any error poisons the connection: later calls return
/// [`Error::Poisoned`], except [`Self::transmit`], which still holds what
/// was queued before the failure (a driver may write it, so that the peer
/// can see the same failure, e.g. our terminator after a network mismatch).
///
/// ```
/// use wireseal::bip324::{Config, Connection, Event, KeyPool, Network, PacketType, Role};
///
/// # fn main() -> Result<(), wireseal::bip324::Error> {
/// let pool = KeyPool::new(2);
/// let config = Config::new(Network::SIGNET).with_random_garbage(64);
/// let mut a = Connection::new(Role::Initiator, pool.take(), &config)?;
/// let mut b = Connection::new(Role::Responder, pool.take(), &config)?;
/// // Move bytes until both sides are quiet (a driver does this with a socket).
/// while !a.transmit().is_empty() || !b.transmit().is_empty() {
///     let n = a.transmit().len();
///     b.receive(a.transmit())?;
///     a.transmitted(n);
///     let n = b.transmit().len();
///     a.receive(b.transmit())?;
///     b.transmitted(n);
/// }
/// let Some(Event::Established { session_id }) = a.poll_event()? else { unreachable!() };
/// assert_eq!(b.session_id(), Some(&session_id));
/// a.send(b"hello", PacketType::Genuine)?;
/// b.receive(a.transmit())?;
/// assert!(matches!(b.poll_event()?, Some(Event::Established { .. })));
/// assert_eq!(b.poll_event()?, Some(Event::Packet(b"hello")));
/// assert_eq!(b.poll_event()?, None);
/// # Ok(())
/// # }
/// ```
pub struct Connection {
    role: Role,
    network: Network,
    state: State,
    input: InputBuffer,
    output: OutputQueue,
    decoys: Vec<Vec<u8>>,
    max_contents: usize,
    session_id: Option<[u8; 32]>,
    /// The [`Event::Established`] not yet handed out.
    announce: bool,
    packets: u64,
    poisoned: bool,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("role", &self.role)
            .field("network", &self.network)
            .field("stage", &self.stage())
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// A connection for `role` with our single-use `key` (from a
    /// [`super::KeyPool`]). An initiator queues its key and garbage at
    /// once; a responder writes nothing until the initiator's first bytes
    /// show it speaks v2.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for garbage over [`super::MAX_GARBAGE_LEN`] bytes or a
    /// decoy over [`MAX_CONTENTS_LEN`] bytes.
    pub fn new(role: Role, key: EllSwiftKeypair, config: &Config) -> Result<Self, Error> {
        if let Some(d) = config.decoys().iter().find(|d| d.len() > MAX_CONTENTS_LEN) {
            return Err(Error::TooLong {
                len: d.len(),
                max: MAX_CONTENTS_LEN,
            });
        }
        let mut output = OutputQueue::default();
        let state = match role {
            Role::Initiator => {
                let h = Handshake::initiator(config.network(), key, config.garbage())?;
                State::KeySent(h.write_key(&mut output.buf))
            }
            Role::Responder => {
                State::Awaiting(Handshake::accept(config.network(), key, config.garbage())?)
            }
        };
        Ok(Self {
            role,
            network: config.network(),
            state,
            input: InputBuffer::default(),
            output,
            decoys: config.decoys().to_vec(),
            max_contents: config.max_contents(),
            session_id: None,
            announce: false,
            packets: 0,
            poisoned: false,
        })
    }

    /// Our role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The network whose magic salts the keys.
    pub fn network(&self) -> Network {
        self.network
    }

    /// True once the peer's version packet arrived.
    pub fn is_established(&self) -> bool {
        matches!(self.state, State::Established(_))
    }

    /// True after a failure.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The session id, once the keys are derived (before the handshake
    /// completes).
    pub fn session_id(&self) -> Option<&[u8; 32]> {
        self.session_id.as_ref()
    }

    /// Packets opened since the handshake, decoys included.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Bytes received and not yet used.
    pub fn buffered_len(&self) -> usize {
        self.input.len()
    }

    /// What an end of stream from the peer now means (for
    /// [`Error::Disconnected`]).
    pub fn stage(&self) -> Stage {
        match &self.state {
            State::Awaiting(_) | State::Failed => Stage::Handshake,
            State::KeySent(_) => Stage::Key,
            State::VersionSent(_) => Stage::GarbageTerminator,
            State::Version(_) => Stage::Version,
            State::Established(_) if self.input.len() == 0 => Stage::BetweenPackets,
            State::Established(_) => Stage::MidPacket,
        }
    }

    fn check(&self) -> Result<(), Error> {
        if self.poisoned {
            Err(Error::Poisoned)
        } else {
            Ok(())
        }
    }

    fn fail(&mut self, e: Error) -> Error {
        self.poisoned = true;
        self.state = State::Failed;
        e
    }

    /// Takes bytes received from the peer (copied into the connection's
    /// buffer) and runs the handshake as far as they allow. After the
    /// handshake the packets are opened by [`Self::poll_event`].
    ///
    /// # Errors
    ///
    /// [`Error::V1Peer`] (responder: a v1 `version` message, nothing was
    /// sent), [`Error::WrongNetwork`], [`Error::NoGarbageTerminator`],
    /// [`Error::Auth`] (the peer's garbage or a handshake packet failed),
    /// [`Error::TooLong`] (a handshake packet over the receive limit),
    /// [`Error::Poisoned`] after an earlier failure. Every error poisons
    /// the connection.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.check()?;
        if self.is_established() {
            self.input.push(bytes);
            return Ok(());
        }
        self.input.push_handshake(bytes);
        self.advance().map_err(|e| self.fail(e))
    }

    /// Room for one read from the stream, inside the connection's buffer
    /// (about 4 KiB during the handshake, [`READ_CHUNK`] after); report
    /// the bytes read with [`Self::received`].
    pub fn receive_buffer(&mut self) -> &mut [u8] {
        let chunk = if self.is_established() {
            READ_CHUNK
        } else {
            HANDSHAKE_READ_CHUNK
        };
        self.input.spare(chunk)
    }

    /// Records `n` bytes read into [`Self::receive_buffer`] and runs the
    /// handshake as far as they allow.
    ///
    /// # Errors
    ///
    /// As [`Self::receive`].
    pub fn received(&mut self, n: usize) -> Result<(), Error> {
        self.check()?;
        self.input.filled(n);
        if self.is_established() {
            return Ok(());
        }
        self.advance().map_err(|e| self.fail(e))
    }

    /// The bytes to write to the peer, in order.
    pub fn transmit(&self) -> &[u8] {
        self.output.pending()
    }

    /// Marks the first `n` bytes of [`Self::transmit`] as written.
    pub fn transmitted(&mut self, n: usize) {
        self.output.sent(n);
    }

    /// Queues one packet for the peer (see [`Self::transmit`]).
    ///
    /// # Errors
    ///
    /// [`Error::NotEstablished`] before the handshake completes,
    /// [`Error::TooLong`] for contents over [`MAX_CONTENTS_LEN`],
    /// [`Error::Exhausted`] when the key schedule is spent,
    /// [`Error::Poisoned`] after a failure; nothing is queued then.
    pub fn send(&mut self, contents: &[u8], kind: PacketType) -> Result<(), Error> {
        self.send_with(contents.len(), kind, |room| room.copy_from_slice(contents))
    }

    /// [`Self::send`] for contents that `fill` writes straight into the
    /// packet being queued (exactly `len` bytes), for callers whose contents
    /// are not in a slice (a JavaScript array, a file) or who would
    /// otherwise copy them twice. `fill` runs only on an established,
    /// unpoisoned connection and a length within [`MAX_CONTENTS_LEN`].
    ///
    /// # Errors
    ///
    /// As [`Self::send`]; nothing is queued then, and what `fill` wrote is
    /// wiped.
    pub fn send_with(
        &mut self,
        len: usize,
        kind: PacketType,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<(), Error> {
        self.check()?;
        let State::Established(keys) = &mut self.state else {
            return Err(Error::NotEstablished);
        };
        self.output.seal_with(&mut keys.0, len, kind, fill)
    }

    /// The next event: [`Event::Established`] once, then one
    /// [`Event::Packet`] per genuine packet among the bytes received;
    /// `None` when nothing more can happen without more bytes.
    ///
    /// # Errors
    ///
    /// As [`super::PacketReceiver::open_next`] ([`Error::Auth`],
    /// [`Error::TooLong`]); every error poisons the connection.
    pub fn poll_event(&mut self) -> Result<Option<Event<'_>>, Error> {
        self.check()?;
        if self.announce {
            self.announce = false;
            let session_id = self.session_id.unwrap_or_default();
            return Ok(Some(Event::Established { session_id }));
        }
        let State::Established(keys) = &mut self.state else {
            return Ok(None);
        };
        match self.input.next_packet(&mut keys.1, &mut self.packets) {
            Ok(Some(range)) => Ok(Some(Event::Packet(self.input.at(range)))),
            Ok(None) => Ok(None),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// The two directions, for use from separate tasks, with the bytes
    /// received past the handshake. A pending [`Event::Established`] is
    /// dropped (read [`Self::session_id`] first).
    ///
    /// # Errors
    ///
    /// [`Error::NotEstablished`] before the handshake completes,
    /// [`Error::Poisoned`] after a failure.
    pub fn split(self) -> Result<(Inbound, Outbound), Error> {
        self.check()?;
        let State::Established(keys) = self.state else {
            return Err(Error::NotEstablished);
        };
        let (sender, receiver) = *keys;
        Ok((
            Inbound {
                receiver,
                input: self.input,
                packets: self.packets,
            },
            Outbound {
                sender,
                output: self.output,
            },
        ))
    }

    /// Runs the handshake as far as the buffered bytes allow.
    fn advance(&mut self) -> Result<(), Error> {
        loop {
            match core::mem::replace(&mut self.state, State::Failed) {
                State::Awaiting(h) => match h.classify(self.input.bytes()) {
                    Classified::NeedMore(h) => {
                        self.state = State::Awaiting(h);
                        return Ok(());
                    }
                    Classified::V1 => return Err(Error::V1Peer),
                    Classified::V2(h) => {
                        self.state = State::KeySent(h.write_key(&mut self.output.buf));
                    }
                },
                State::KeySent(h) => match h.read_key(self.input.bytes()) {
                    KeyRead::NeedMore(h) => {
                        self.state = State::KeySent(h);
                        return Ok(());
                    }
                    KeyRead::V1Peer => return Err(Error::V1Peer),
                    KeyRead::Derived {
                        handshake,
                        consumed,
                    } => {
                        self.input.consume(consumed);
                        self.session_id = Some(*handshake.session_id());
                        let decoys = core::mem::take(&mut self.decoys);
                        let decoys: Vec<&[u8]> = decoys.iter().map(Vec::as_slice).collect();
                        let h = handshake.write_version(&decoys, &mut self.output.buf)?;
                        self.state = State::VersionSent(Box::new(h));
                    }
                },
                State::VersionSent(h) => match h.read_garbage(self.input.bytes())? {
                    GarbageRead::NeedMore(h) => {
                        self.state = State::VersionSent(Box::new(h));
                        return Ok(());
                    }
                    GarbageRead::Found {
                        mut handshake,
                        consumed,
                    } => {
                        self.input.consume(consumed);
                        handshake.set_max_contents(self.max_contents);
                        self.state = State::Version(Box::new(handshake));
                    }
                },
                State::Version(h) => match h.read_version(self.input.bytes_mut())? {
                    VersionRead::NeedMore(h, _) => {
                        self.state = State::Version(Box::new(h));
                        return Ok(());
                    }
                    VersionRead::Decoy(h, consumed) => {
                        self.input.consume(consumed);
                        self.state = State::Version(Box::new(h));
                    }
                    VersionRead::Done { session, consumed } => {
                        self.input.consume(consumed);
                        self.announce = true;
                        self.state = State::Established(Box::new(session.split()));
                        return Ok(());
                    }
                },
                State::Established(k) => {
                    self.state = State::Established(k);
                    return Ok(());
                }
                State::Failed => return Err(Error::Poisoned),
            }
        }
    }
}
