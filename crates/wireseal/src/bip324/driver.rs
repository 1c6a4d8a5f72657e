//! What the [`super::io`] and `tokio` drivers share, with no I/O of its own:
//! their error type, and `session_halves!`, which declares each driver's
//! `Established`, `Reader` and `Writer` around the sans-IO
//! [`super::Inbound`] / [`super::Outbound`]. Each driver expands the macro
//! once and adds its reading and writing methods in a second `impl` block.

use crate::error::ErrorKind;

/// What went wrong in a driver: the protocol (the peer's behaviour
/// included, e.g. [`super::Error::Disconnected`],
/// [`super::Error::WrongNetwork`]) or the stream. Timeouts are the
/// caller's (wrap the calls in its own deadline).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The handshake or a packet failed, or the peer left (see
    /// [`super::Error`]).
    #[error(transparent)]
    Protocol(#[from] super::Error),
    /// Reading or writing the stream failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The failure's kind: the protocol error's, or [`ErrorKind::Io`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Protocol(e) => e.kind(),
            Error::Io(_) => ErrorKind::Io,
        }
    }
}

/// Declares `Established`, `Reader` and `Writer` (each holding only
/// sans-IO state) with their I/O-free methods, and `established`, which
/// splits a connection whose handshake completed.
macro_rules! session_halves {
    () => {
        /// An established session: both halves and the session id.
        #[derive(Debug)]
        pub struct Established {
            /// The inbound half.
            pub reader: Reader,
            /// The outbound half.
            pub writer: Writer,
            /// The session id (equal on both sides).
            pub session_id: [u8; 32],
        }

        /// The halves of `conn`, whose handshake completed.
        fn established(conn: super::Connection) -> Result<Established, Error> {
            let session_id = conn.session_id().copied().unwrap_or_default();
            let (inbound, outbound) = conn.split()?;
            Ok(Established {
                reader: Reader { inbound },
                writer: Writer { outbound },
                session_id,
            })
        }

        /// The inbound half of a session.
        #[derive(Debug)]
        pub struct Reader {
            inbound: super::Inbound,
        }

        impl Reader {
            /// The next genuine packet's contents from bytes already read,
            /// without reading; `None` when no whole packet is buffered.
            ///
            /// # Errors
            ///
            /// [`Error::Protocol`] when a packet fails (the session is then
            /// poisoned).
            pub fn receive_buffered(&mut self) -> Result<Option<&[u8]>, Error> {
                Ok(self.inbound.next_packet()?)
            }

            /// Bytes read and not yet used (0 at a packet boundary).
            pub fn buffered_len(&self) -> usize {
                self.inbound.buffered_len()
            }

            /// Packets opened so far, decoys included.
            pub fn packets(&self) -> u64 {
                self.inbound.packets()
            }
        }

        /// The outbound half of a session.
        #[derive(Debug)]
        pub struct Writer {
            outbound: super::Outbound,
        }

        impl Writer {
            /// Seals one packet onto the queue without writing.
            ///
            /// # Errors
            ///
            /// [`Error::Protocol`] when the packet cannot be sealed (the
            /// queue is unchanged).
            pub fn queue(&mut self, contents: &[u8], kind: super::PacketType) -> Result<(), Error> {
                Ok(self.outbound.queue(contents, kind)?)
            }

            /// Bytes queued and not yet written.
            pub fn queued_len(&self) -> usize {
                self.outbound.transmit().len()
            }
        }
    };
}
pub(super) use session_halves;
