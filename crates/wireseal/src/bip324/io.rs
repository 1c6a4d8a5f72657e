//! The v2 handshake and session over blocking [`std::io::Read`] +
//! [`std::io::Write`] streams (a `TcpStream`, a pipe, anything).
//!
//! [`handshake`] runs either role (a responder classifies the initiator's
//! first bytes before it writes anything) and returns a [`Reader`] and a
//! [`Writer`] that hold no stream: each call takes the stream (or one half
//! of it, e.g. a `TcpStream::try_clone`), so the halves can live on
//! different threads. Timeouts are the caller's (`set_read_timeout` and
//! friends); after a failed or timed-out call, drop the connection.
//!
//! ```no_run
//! use std::net::TcpStream;
//! use wireseal::bip324::{io, KeyPool, Network, PacketType, Role};
//!
//! # fn main() -> Result<(), io::Error> {
//! let mut stream = TcpStream::connect("127.0.0.1:8333")?;
//! let pool = KeyPool::new(4);
//! let config = io::Config::new(Network::MAINNET);
//! let mut conn = io::handshake(&mut stream, Role::Initiator, pool.take(), &config)?;
//! conn.writer.send(&mut stream, b"hello", PacketType::Genuine)?;
//! let reply = conn.reader.receive(&mut stream)?;
//! # let _ = reply;
//! # Ok(())
//! # }
//! ```

pub use super::driver::{Config, Error, Stage};
use super::driver::{HandshakeCore, Step, HANDSHAKE_READ_CHUNK, READ_CHUNK};
use super::keys::Role;
use super::packet::PacketType;
use crate::keys::EllSwiftKeypair;
use std::io::{Read, Write};

super::session_halves::session_halves!();

/// Runs the v2 handshake on `stream` as `role` with our single-use `key`
/// (from a [`super::KeyPool`]), sending `config`'s garbage and decoys.
///
/// # Errors
///
/// [`Error::V1Peer`] when a responder sees a v1 `version` message (nothing
/// was written), [`Error::Disconnected`] when the peer closes the stream,
/// [`Error::Protocol`] for a bad terminator search or packet,
/// [`Error::Io`] when the stream fails.
pub fn handshake<S: Read + Write + ?Sized>(
    stream: &mut S,
    role: Role,
    key: EllSwiftKeypair,
    config: &Config,
) -> Result<Established, Error> {
    let mut core = HandshakeCore::new(role, key, config)?;
    loop {
        match core.step()? {
            Step::Write => {
                stream.write_all(&core.out)?;
                stream.flush()?;
                core.out.clear();
            }
            Step::Read(stage) => {
                let mut chunk = [0u8; HANDSHAKE_READ_CHUNK];
                let n = stream.read(&mut chunk)?;
                if n == 0 {
                    return Err(Error::Disconnected { stage });
                }
                core.received(&chunk[..n]);
            }
            Step::Done => break,
        }
    }
    Ok(established(core, config))
}

impl Reader {
    /// The next genuine packet's contents, reading from `r` as needed;
    /// decoys are skipped.
    ///
    /// # Errors
    ///
    /// [`Error::Disconnected`] at end of stream (stage
    /// [`Stage::BetweenPackets`] or [`Stage::MidPacket`]),
    /// [`Error::Protocol`] when a packet fails (the session is then
    /// poisoned), [`Error::Io`] when the stream fails.
    pub fn receive<R: Read + ?Sized>(&mut self, r: &mut R) -> Result<&[u8], Error> {
        let range = loop {
            if let Some(range) = self.state.next_buffered()? {
                break range;
            }
            if self.fill(r)? == 0 {
                return Err(Error::Disconnected {
                    stage: self.state.eof_stage(),
                });
            }
        };
        Ok(&self.state.buf[range])
    }

    /// Reads once from `r` into the buffer (at most 64 KiB); returns the
    /// bytes read, 0 at end of stream.
    ///
    /// # Errors
    ///
    /// The stream's error; the buffer is unchanged.
    pub fn fill<R: Read + ?Sized>(&mut self, r: &mut R) -> std::io::Result<usize> {
        let n = r.read(self.state.spare(READ_CHUNK))?;
        self.state.filled(n);
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
        w.write_all(&self.state.out)?;
        w.flush()?;
        self.state.out.clear();
        Ok(())
    }
}
