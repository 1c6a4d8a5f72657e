//! The v2 handshake and session over tokio [`AsyncRead`] + [`AsyncWrite`]
//! streams (non-default `tokio` feature).
//!
//! The same shape as [`super::io`]: [`handshake`] runs either role and
//! returns a [`Reader`] and a [`Writer`] that hold no stream, so each half
//! can go with one half of a split stream (`TcpStream::into_split`,
//! `tokio::io::split`) to its own task. Timeouts are the caller's: wrap a
//! call in `tokio::time::timeout`. [`Reader::receive`] and [`Reader::fill`]
//! are cancel-safe (a cancelled read loses no bytes); after a cancelled
//! [`handshake`] or [`Writer::flush`], drop the connection.
//!
//! ```no_run
//! use tokio::net::TcpStream;
//! use wireseal::bip324::{tokio::{handshake, Config, Error}, KeyPool, Network, PacketType, Role};
//!
//! # async fn run() -> Result<(), Error> {
//! let mut stream = TcpStream::connect("127.0.0.1:8333").await?;
//! let pool = KeyPool::new(4);
//! let config = Config::new(Network::MAINNET);
//! let mut conn = handshake(&mut stream, Role::Initiator, pool.take(), &config).await?;
//! let (mut rd, mut wr) = stream.into_split();
//! conn.writer.send(&mut wr, b"hello", PacketType::Genuine).await?;
//! let reply = conn.reader.receive(&mut rd).await?;
//! # let _ = reply;
//! # Ok(())
//! # }
//! ```

pub use super::driver::{Config, Error, Stage};
use super::driver::{HandshakeCore, Step, HANDSHAKE_READ_CHUNK, READ_CHUNK};
use super::keys::Role;
use super::packet::PacketType;
use crate::keys::EllSwiftKeypair;
use ::tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use std::future::poll_fn;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{ready, Poll};

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
pub async fn handshake<S: AsyncRead + AsyncWrite + Unpin + ?Sized>(
    stream: &mut S,
    role: Role,
    key: EllSwiftKeypair,
    config: &Config,
) -> Result<Established, Error> {
    let mut core = HandshakeCore::new(role, key, config)?;
    loop {
        match core.step()? {
            Step::Write => {
                stream.write_all(&core.out).await?;
                stream.flush().await?;
                core.out.clear();
            }
            Step::Read(stage) => {
                if read_handshake(stream, &mut core).await? == 0 {
                    return Err(Error::Disconnected { stage });
                }
            }
            Step::Done => break,
        }
    }
    Ok(established(core, config))
}

/// Reads once (at most [`HANDSHAKE_READ_CHUNK`] bytes) into a buffer on
/// the stack of the poll that finds bytes, then appends them to the
/// handshake's input: a handshake waiting on a silent or slow peer holds
/// no read buffer, only the bytes it received. Cancel-safe.
async fn read_handshake<R: AsyncRead + Unpin + ?Sized>(
    r: &mut R,
    core: &mut HandshakeCore,
) -> std::io::Result<usize> {
    poll_fn(|cx| {
        let mut chunk = [MaybeUninit::<u8>::uninit(); HANDSHAKE_READ_CHUNK];
        let mut rb = ReadBuf::uninit(&mut chunk);
        ready!(Pin::new(&mut *r).poll_read(cx, &mut rb))?;
        core.received(rb.filled());
        Poll::Ready(Ok(rb.filled().len()))
    })
    .await
}

impl Reader {
    /// The next genuine packet's contents, reading from `r` as needed;
    /// decoys are skipped. Cancel-safe.
    ///
    /// # Errors
    ///
    /// [`Error::Disconnected`] at end of stream (stage
    /// [`Stage::BetweenPackets`] or [`Stage::MidPacket`]),
    /// [`Error::Protocol`] when a packet fails (the session is then
    /// poisoned), [`Error::Io`] when the stream fails.
    pub async fn receive<R: AsyncRead + Unpin + ?Sized>(
        &mut self,
        r: &mut R,
    ) -> Result<&[u8], Error> {
        let range = loop {
            if let Some(range) = self.state.next_buffered()? {
                break range;
            }
            if self.fill(r).await? == 0 {
                return Err(Error::Disconnected {
                    stage: self.state.eof_stage(),
                });
            }
        };
        Ok(&self.state.buf[range])
    }

    /// Reads once from `r` into the buffer (at most 64 KiB); returns the
    /// bytes read, 0 at end of stream. Cancel-safe.
    ///
    /// # Errors
    ///
    /// The stream's error; the buffer is unchanged.
    pub async fn fill<R: AsyncRead + Unpin + ?Sized>(
        &mut self,
        r: &mut R,
    ) -> std::io::Result<usize> {
        poll_fn(|cx| {
            let mut rb = ReadBuf::new(self.state.spare(READ_CHUNK));
            ready!(Pin::new(&mut *r).poll_read(cx, &mut rb))?;
            let n = rb.filled().len();
            self.state.filled(n);
            Poll::Ready(Ok(n))
        })
        .await
    }
}

impl Writer {
    /// Seals one packet and writes it (with anything queued) to `w`.
    ///
    /// # Errors
    ///
    /// [`Error::Protocol`] when the packet cannot be sealed (nothing is
    /// written), [`Error::Io`] when the stream fails.
    pub async fn send<W: AsyncWrite + Unpin + ?Sized>(
        &mut self,
        w: &mut W,
        contents: &[u8],
        kind: PacketType,
    ) -> Result<(), Error> {
        self.queue(contents, kind)?;
        self.flush(w).await
    }

    /// Writes and flushes everything queued.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the stream fails; how much was written is then
    /// unknown, so drop the connection.
    pub async fn flush<W: AsyncWrite + Unpin + ?Sized>(&mut self, w: &mut W) -> Result<(), Error> {
        w.write_all(&self.state.out).await?;
        w.flush().await?;
        self.state.out.clear();
        Ok(())
    }
}
