//! The stream-independent half of the `io` and `tokio`
//! drivers: the `Established` session and its
//! `Reader`/`Writer` types with every method that does no I/O. Each driver
//! expands `session_halves!` once and adds its own reading and writing
//! methods in a second `impl` block.

/// Declares `Established`, `Reader` and `Writer` (each holding only
/// sans-IO state) with their I/O-free methods, and `established`, which
/// turns a finished handshake into an `Established`.
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

        /// The session `core` reached, with `config`'s limits.
        fn established(
            core: super::driver::HandshakeCore,
            config: &super::driver::Config,
        ) -> Established {
            let (read, write, session_id) = core.finish(config);
            Established {
                reader: Reader { state: read },
                writer: Writer { state: write },
                session_id,
            }
        }

        /// The inbound half of a session.
        #[derive(Debug)]
        pub struct Reader {
            state: super::driver::ReadState,
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
                Ok(self.state.next_buffered()?.map(|r| &self.state.buf[r]))
            }

            /// Bytes read and not yet used (0 at a packet boundary).
            pub fn buffered_len(&self) -> usize {
                self.state.buffered_len()
            }

            /// Packets opened so far, decoys included.
            pub fn packets(&self) -> u64 {
                self.state.packets()
            }
        }

        /// The outbound half of a session.
        #[derive(Debug)]
        pub struct Writer {
            state: super::driver::WriteState,
        }

        impl Writer {
            /// Seals one packet onto the queue without writing.
            ///
            /// # Errors
            ///
            /// [`Error::Protocol`] when the packet cannot be sealed (the
            /// queue is unchanged).
            pub fn queue(
                &mut self,
                contents: &[u8],
                kind: super::packet::PacketType,
            ) -> Result<(), Error> {
                self.state.queue(contents, kind)
            }

            /// Bytes queued and not yet written.
            pub fn queued_len(&self) -> usize {
                self.state.out.len()
            }
        }
    };
}
pub(super) use session_halves;
