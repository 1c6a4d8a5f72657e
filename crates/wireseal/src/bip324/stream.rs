//! The two directions of an established connection over a byte stream,
//! sans-IO: [`Inbound`] (received bytes in, opened packets out) and
//! [`Outbound`] (packets in, bytes to send out), with the buffers they
//! share with [`super::Connection`].

use super::packet::{
    sealed_len, Next, PacketReceiver, PacketSender, PacketType, HEADER_LEN, LENGTH_LEN,
    MAX_CONTENTS_LEN,
};
use super::stage::Stage;
use super::Error;
use core::ops::Range;

/// Bytes [`Inbound::receive_buffer`] offers for one read: a read never
/// adds more than this to what is buffered.
pub const READ_CHUNK: usize = 64 * 1024;

/// Bytes offered for one read during the handshake, and the capacity the
/// handshake's input grows to in doubling steps: a key, the longest
/// garbage and its terminator. Past this (a large decoy or version packet)
/// the buffer grows as the packet needs.
pub(crate) const HANDSHAKE_READ_CHUNK: usize =
    crate::keys::ELLSWIFT_LEN + super::MAX_GARBAGE_LEN + super::TERMINATOR_LEN;

/// Bytes received and not yet used, `buf[start..end]`. All of `buf` is
/// initialized, so a read goes into `buf[end..]` without zeroing it again.
#[derive(Debug, Default)]
pub(crate) struct InputBuffer {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl InputBuffer {
    /// The unused bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// The unused bytes, to open in place.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.end]
    }

    /// Marks `n` unused bytes as used.
    pub(crate) fn consume(&mut self, n: usize) {
        self.start += n;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Bytes received and not yet used.
    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }

    /// Moves the unused bytes to the front.
    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
    }

    /// Appends bytes during the handshake. Up to [`HANDSHAKE_READ_CHUNK`]
    /// the capacity doubles but never passes that size, so a handshake
    /// that never completes holds at most that much, and a peer trickling
    /// bytes in holds about twice what it sent.
    pub(crate) fn push_handshake(&mut self, bytes: &[u8]) {
        self.compact();
        self.buf.truncate(self.end);
        let needed = self.end + bytes.len();
        if needed > self.buf.capacity() && needed <= HANDSHAKE_READ_CHUNK {
            let target = (self.buf.capacity() * 2).clamp(needed, HANDSHAKE_READ_CHUNK);
            self.buf.reserve_exact(target - self.buf.len());
        }
        self.buf.extend_from_slice(bytes);
        self.end = self.buf.len();
    }

    /// Appends bytes after the handshake.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.spare(bytes.len()).copy_from_slice(bytes);
        self.end += bytes.len();
    }

    /// Room for the next read of at most `chunk` bytes: `buf[end..]`,
    /// grown (and zeroed) only past what earlier reads already used.
    pub(crate) fn spare(&mut self, chunk: usize) -> &mut [u8] {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        if self.buf.len() < self.end + chunk {
            self.compact();
            if self.buf.len() < self.end + chunk {
                self.buf.resize(self.end + chunk, 0);
            }
        }
        &mut self.buf[self.end..self.end + chunk]
    }

    /// Records `n` bytes read into [`Self::spare`].
    pub(crate) fn filled(&mut self, n: usize) {
        debug_assert!(self.end + n <= self.buf.len());
        self.end = (self.end + n).min(self.buf.len());
    }

    /// The contents range of the next genuine packet, opened in place, from
    /// the bytes buffered; decoys are skipped. `None` when no whole packet
    /// is left (the unused bytes then move to the front).
    pub(crate) fn next_packet(
        &mut self,
        receiver: &mut PacketReceiver,
        packets: &mut u64,
    ) -> Result<Option<Range<usize>>, Error> {
        loop {
            match receiver.open_next(b"", &mut self.buf[self.start..self.end])? {
                Next::NeedMore(_) => {
                    self.compact();
                    return Ok(None);
                }
                Next::Packet { packet, consumed } => {
                    let at = self.start + LENGTH_LEN + HEADER_LEN;
                    let range = at..at + packet.contents.len();
                    let kind = packet.kind;
                    // Not `consume`: the range must stay valid.
                    self.start += consumed;
                    *packets += 1;
                    if kind == PacketType::Genuine {
                        return Ok(Some(range));
                    }
                }
            }
        }
    }

    /// The bytes at `range` (from [`Self::next_packet`]).
    pub(crate) fn at(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }
}

/// Bytes queued for the peer, `buf[sent..]`.
#[derive(Debug, Default)]
pub(crate) struct OutputQueue {
    pub(crate) buf: Vec<u8>,
    sent: usize,
}

impl OutputQueue {
    /// The bytes not yet handed to the stream.
    pub(crate) fn pending(&self) -> &[u8] {
        &self.buf[self.sent..]
    }

    /// Marks `n` pending bytes as sent.
    pub(crate) fn sent(&mut self, n: usize) {
        self.sent = (self.sent + n).min(self.buf.len());
        if self.sent == self.buf.len() {
            self.buf.clear();
            self.sent = 0;
        } else if self.sent >= READ_CHUNK {
            self.buf.drain(..self.sent);
            self.sent = 0;
        }
    }

    /// Seals one packet onto the queue; on error the queue is unchanged.
    pub(crate) fn seal(
        &mut self,
        sender: &mut PacketSender,
        contents: &[u8],
        kind: PacketType,
    ) -> Result<(), Error> {
        self.seal_with(sender, contents.len(), kind, |room| {
            room.copy_from_slice(contents)
        })
    }

    /// Seals one packet of `len` contents bytes onto the queue, `fill`
    /// writing the contents where the packet holds them (exactly `len`
    /// bytes). `fill` does not run for a length over the maximum; on any
    /// error the queue is unchanged and what `fill` wrote is wiped.
    pub(crate) fn seal_with(
        &mut self,
        sender: &mut PacketSender,
        len: usize,
        kind: PacketType,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<(), Error> {
        if len > MAX_CONTENTS_LEN {
            return Err(Error::TooLong {
                len,
                max: MAX_CONTENTS_LEN,
            });
        }
        let at = self.buf.len();
        self.buf.resize(at + sealed_len(len), 0);
        // Until it is sealed, the packet holds plaintext: an error, or a
        // `fill` that panics, leaves it wiped and off the queue.
        let mut unsealed = Unsealed {
            buf: &mut self.buf,
            at,
            sealed: false,
        };
        let packet = &mut unsealed.buf[at..];
        fill(&mut packet[LENGTH_LEN + HEADER_LEN..][..len]);
        sender.seal_in_place(len, kind, b"", packet)?;
        unsealed.sealed = true;
        Ok(())
    }
}

/// A packet appended to an [`OutputQueue`]'s buffer from `at` on: dropped
/// before it is `sealed`, it is wiped and taken off the queue.
struct Unsealed<'a> {
    buf: &'a mut Vec<u8>,
    at: usize,
    sealed: bool,
}

impl Drop for Unsealed<'_> {
    fn drop(&mut self) {
        if !self.sealed {
            crate::secret::wipe(&mut self.buf[self.at..]);
            self.buf.truncate(self.at);
        }
    }
}

/// The receiving direction of an established connection (from
/// [`super::Connection::split`]): bytes read from the stream go in, the
/// contents of genuine packets come out, opened in place in its buffer.
///
/// It buffers what the caller gives it; a driver that reads only when
/// [`Self::next_packet`] returns `None`, into [`Self::receive_buffer`],
/// holds at most one packet (its announced length is checked against the
/// receive limit before any room for it exists) plus one
/// [`READ_CHUNK`]-byte read.
#[derive(Debug)]
pub struct Inbound {
    pub(crate) receiver: PacketReceiver,
    pub(crate) input: InputBuffer,
    pub(crate) packets: u64,
}

impl Inbound {
    /// The next genuine packet's contents from the bytes received so far,
    /// decoys skipped; `None` when no whole packet is buffered.
    ///
    /// # Errors
    ///
    /// As [`PacketReceiver::open_next`]: [`Error::Auth`] for a packet whose
    /// tag fails, [`Error::TooLong`] for a length over the receive limit;
    /// every error poisons the direction ([`Error::Poisoned`] after).
    pub fn next_packet(&mut self) -> Result<Option<&[u8]>, Error> {
        let range = self.next_range()?;
        Ok(range.map(|r| self.input.at(r)))
    }

    /// [`Self::next_packet`] as a range of the buffer, for drivers that
    /// read more in the same loop.
    pub(crate) fn next_range(&mut self) -> Result<Option<Range<usize>>, Error> {
        self.input
            .next_packet(&mut self.receiver, &mut self.packets)
    }

    /// The bytes at `range` of the buffer.
    pub(crate) fn at(&self, range: Range<usize>) -> &[u8] {
        self.input.at(range)
    }

    /// Appends bytes received from the peer (copied into the buffer).
    pub fn receive(&mut self, bytes: &[u8]) {
        self.input.push(bytes);
    }

    /// Room for one read of at most [`READ_CHUNK`] bytes, inside the
    /// buffer; report the bytes read with [`Self::received`].
    pub fn receive_buffer(&mut self) -> &mut [u8] {
        self.input.spare(READ_CHUNK)
    }

    /// Records `n` bytes read into [`Self::receive_buffer`] (at most its
    /// length).
    pub fn received(&mut self, n: usize) {
        self.input.filled(n);
    }

    /// Bytes received and not yet opened (0 at a packet boundary).
    pub fn buffered_len(&self) -> usize {
        self.input.len()
    }

    /// Packets opened since the handshake, decoys included.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// What an end of stream now means: [`Stage::BetweenPackets`] with
    /// nothing buffered, else [`Stage::MidPacket`].
    pub fn stage(&self) -> Stage {
        if self.input.len() == 0 {
            Stage::BetweenPackets
        } else {
            Stage::MidPacket
        }
    }
}

/// The sending direction of an established connection (from
/// [`super::Connection::split`]): packets go in, the bytes to write come
/// out.
#[derive(Debug)]
pub struct Outbound {
    pub(crate) sender: PacketSender,
    pub(crate) output: OutputQueue,
}

impl Outbound {
    /// Seals one packet onto the queue of bytes to send.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for contents over [`MAX_CONTENTS_LEN`],
    /// [`Error::Exhausted`] when the key schedule is spent; the queue is
    /// then unchanged.
    pub fn queue(&mut self, contents: &[u8], kind: PacketType) -> Result<(), Error> {
        self.output.seal(&mut self.sender, contents, kind)
    }

    /// The bytes to write to the peer, in order.
    pub fn transmit(&self) -> &[u8] {
        self.output.pending()
    }

    /// Marks the first `n` bytes of [`Self::transmit`] as written.
    pub fn transmitted(&mut self, n: usize) {
        self.output.sent(n);
    }
}
