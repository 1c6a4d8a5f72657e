//! The v2 handshake and session over blocking [`std::io::Read`] +
//! [`std::io::Write`] streams (a `TcpStream`, a pipe, anything).
//!
//! [`handshake`] runs a [`super::Connection`] of either role (a responder
//! classifies the initiator's first bytes before it writes anything) and
//! returns a [`Reader`] and a [`Writer`] that hold no stream: each call takes the stream (or one half
//! of it, e.g. a `TcpStream::try_clone`), so the halves can live on
//! different threads. Timeouts are the caller's (`set_read_timeout` and
//! friends); after a failed or timed-out call, drop the connection.
//!
//! ```no_run
//! use std::net::TcpStream;
//! use wireseal::bip324::{io, Config, KeyPool, Network, PacketType, Role};
//!
//! # fn main() -> Result<(), io::Error> {
//! let mut stream = TcpStream::connect("127.0.0.1:8333")?;
//! let pool = KeyPool::new(4);
//! let config = Config::new(Network::MAINNET).with_random_garbage(64);
//! let mut conn = io::handshake(&mut stream, Role::Initiator, pool.take(), &config)?;
//! conn.writer.send(&mut stream, b"hello", PacketType::Genuine)?;
//! let reply = conn.reader.receive(&mut stream)?;
//! # let _ = reply;
//! # Ok(())
//! # }
//! ```

pub use super::driver::Error;
use super::stream::HANDSHAKE_READ_CHUNK;
use super::{Config, Connection, PacketType, Role};
use crate::keys::EllSwiftKeypair;
use std::io::{Read, Write};

super::driver::session_halves!();

/// Runs the v2 handshake on `stream` as `role` with our single-use `key`
/// (from a [`super::KeyPool`]), sending `config`'s garbage and decoys.
/// When the handshake fails, what was queued before the failure is still
/// written (best effort), so the peer can see the same failure.
///
/// # Errors
///
/// [`Error::Protocol`] with [`super::Error::V1Peer`] when a responder sees
/// a v1 `version` message (nothing was written),
/// [`super::Error::Disconnected`] when the peer closes the stream,
/// [`super::Error::WrongNetwork`] when the peer uses another known
/// network, other [`super::Error`]s for a bad terminator search or packet;
/// [`Error::Io`] when the stream fails.
pub fn handshake<S: Read + Write + ?Sized>(
    stream: &mut S,
    role: Role,
    key: EllSwiftKeypair,
    config: &Config,
) -> Result<Established, Error> {
    let mut conn = Connection::new(role, key, config)?;
    let mut chunk = [0u8; HANDSHAKE_READ_CHUNK];
    loop {
        if !conn.transmit().is_empty() {
            write_all(stream, &mut conn)?;
        }
        if conn.is_established() {
            return established(conn);
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(super::Error::Disconnected {
                stage: conn.stage(),
            }
            .into());
        }
        if let Err(e) = conn.receive(&chunk[..n]) {
            if !conn.transmit().is_empty() {
                let _ = write_all(stream, &mut conn);
            }
            return Err(e.into());
        }
    }
}

/// Writes and flushes everything `conn` has queued.
fn write_all<W: Write + ?Sized>(w: &mut W, conn: &mut Connection) -> std::io::Result<()> {
    let n = conn.transmit().len();
    w.write_all(conn.transmit())?;
    w.flush()?;
    conn.transmitted(n);
    Ok(())
}

impl Reader {
    /// The next genuine packet's contents, reading from `r` as needed;
    /// decoys are skipped.
    ///
    /// # Errors
    ///
    /// [`super::Error::Disconnected`] at end of stream (stage
    /// [`super::Stage::BetweenPackets`] or [`super::Stage::MidPacket`]),
    /// another [`Error::Protocol`] when a packet fails (the session is then
    /// poisoned), [`Error::Io`] when the stream fails.
    pub fn receive<R: Read + ?Sized>(&mut self, r: &mut R) -> Result<&[u8], Error> {
        let range = loop {
            if let Some(range) = self.inbound.next_range()? {
                break range;
            }
            if self.fill(r)? == 0 {
                let stage = self.inbound.stage();
                return Err(super::Error::Disconnected { stage }.into());
            }
        };
        Ok(self.inbound.at(range))
    }

    /// Reads once from `r` into the buffer (at most 64 KiB); returns the
    /// bytes read, 0 at end of stream.
    ///
    /// # Errors
    ///
    /// The stream's error; the buffer is unchanged.
    pub fn fill<R: Read + ?Sized>(&mut self, r: &mut R) -> std::io::Result<usize> {
        let n = r.read(self.inbound.receive_buffer())?;
        self.inbound.received(n);
        Ok(n)
    }
}

impl Writer {
    /// Seals one packet and writes it (with anything queued) to `w`.
    ///
    /// # Errors
    ///
    /// [`Error::Protocol`] when the packet cannot be sealed (nothing is
    /// written), [`Error::Io`] when the stream fails.
    pub fn send<W: Write + ?Sized>(
        &mut self,
        w: &mut W,
        contents: &[u8],
        kind: PacketType,
    ) -> Result<(), Error> {
        self.queue(contents, kind)?;
        self.flush(w)
    }

    /// Writes and flushes everything queued.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the stream fails; how much was written is then
    /// unknown, so drop the connection.
    pub fn flush<W: Write + ?Sized>(&mut self, w: &mut W) -> Result<(), Error> {
        let n = self.outbound.transmit().len();
        w.write_all(self.outbound.transmit())?;
        w.flush()?;
        self.outbound.transmitted(n);
        Ok(())
    }
}
