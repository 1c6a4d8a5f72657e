//! The v2 handshake and session over tokio [`AsyncRead`] + [`AsyncWrite`]
//! streams (non-default `tokio` feature).
//!
//! The same shape as [`super::io`]: [`handshake`] runs a
//! [`super::Connection`] of either role and returns a [`Reader`] and a [`Writer`] that hold no stream, so each half
//! can go with one half of a split stream (`TcpStream::into_split`,
//! `tokio::io::split`) to its own task. Timeouts are the caller's: wrap a
//! call in `tokio::time::timeout`. [`Reader::receive`] and [`Reader::fill`]
//! are cancel-safe (a cancelled read loses no bytes); after a cancelled
//! [`handshake`] or [`Writer::flush`], drop the connection.
//!
//! ```no_run
//! use tokio::net::TcpStream;
//! use wireseal::bip324::tokio::{handshake, Error};
//! use wireseal::bip324::{Config, KeyPool, Network, PacketType, Role};
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

pub use super::driver::Error;
use super::stream::HANDSHAKE_READ_CHUNK;
use super::{Config, Connection, PacketType, Role};
use crate::keys::EllSwiftKeypair;
use ::tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use std::future::poll_fn;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{ready, Poll};

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
pub async fn handshake<S: AsyncRead + AsyncWrite + Unpin + ?Sized>(
    stream: &mut S,
    role: Role,
    key: EllSwiftKeypair,
    config: &Config,
) -> Result<Established, Error> {
    let mut conn = Connection::new(role, key, config)?;
    loop {
        if !conn.transmit().is_empty() {
            write_all(stream, &mut conn).await?;
        }
        if conn.is_established() {
            return established(conn);
        }
        match read_handshake(stream, &mut conn).await? {
            None => {
                return Err(super::Error::Disconnected {
                    stage: conn.stage(),
                }
                .into());
            }
            Some(Ok(())) => {}
            Some(Err(e)) => {
                if !conn.transmit().is_empty() {
                    let _ = write_all(stream, &mut conn).await;
                }
                return Err(e.into());
            }
        }
    }
}

/// Writes and flushes everything `conn` has queued.
async fn write_all<W: AsyncWrite + Unpin + ?Sized>(
    w: &mut W,
    conn: &mut Connection,
) -> std::io::Result<()> {
    let n = conn.transmit().len();
    w.write_all(conn.transmit()).await?;
    w.flush().await?;
    conn.transmitted(n);
    Ok(())
}

/// Reads once (at most [`HANDSHAKE_READ_CHUNK`] bytes) into a buffer on
/// the stack of the poll that finds bytes, then hands them to the
/// connection: a handshake waiting on a silent or slow peer holds no read
/// buffer, only the bytes it received. `None` at end of stream, else what
/// the connection made of the bytes. Cancel-safe.
async fn read_handshake<R: AsyncRead + Unpin + ?Sized>(
    r: &mut R,
    conn: &mut Connection,
) -> std::io::Result<Option<Result<(), super::Error>>> {
    poll_fn(|cx| {
        let mut chunk = [MaybeUninit::<u8>::uninit(); HANDSHAKE_READ_CHUNK];
        let mut rb = ReadBuf::uninit(&mut chunk);
        ready!(Pin::new(&mut *r).poll_read(cx, &mut rb))?;
        if rb.filled().is_empty() {
            return Poll::Ready(Ok(None));
        }
        Poll::Ready(Ok(Some(conn.receive(rb.filled()))))
    })
    .await
}

impl Reader {
    /// The next genuine packet's contents, reading from `r` as needed;
    /// decoys are skipped. Cancel-safe.
    ///
    /// # Errors
    ///
    /// [`super::Error::Disconnected`] at end of stream (stage
    /// [`super::Stage::BetweenPackets`] or [`super::Stage::MidPacket`]),
    /// another [`Error::Protocol`] when a packet fails (the session is then
    /// poisoned), [`Error::Io`] when the stream fails.
    pub async fn receive<R: AsyncRead + Unpin + ?Sized>(
        &mut self,
        r: &mut R,
    ) -> Result<&[u8], Error> {
        let range = loop {
            if let Some(range) = self.inbound.next_range()? {
                break range;
            }
            if self.fill(r).await? == 0 {
                let stage = self.inbound.stage();
                return Err(super::Error::Disconnected { stage }.into());
            }
        };
        Ok(self.inbound.at(range))
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
            let mut rb = ReadBuf::new(self.inbound.receive_buffer());
            ready!(Pin::new(&mut *r).poll_read(cx, &mut rb))?;
            let n = rb.filled().len();
            self.inbound.received(n);
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
        let n = self.outbound.transmit().len();
        w.write_all(self.outbound.transmit()).await?;
        w.flush().await?;
        self.outbound.transmitted(n);
        Ok(())
    }
}
