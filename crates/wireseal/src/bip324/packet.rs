//! Packets: `length(3, FSChaCha20) || FSChaCha20Poly1305(header(1) ||
//! contents) || tag(16)`. Header bit 0x80 marks a decoy; other bits are
//! ignored on receipt and sent as zero.

use super::fschacha::{FsChaCha20, FsChaCha20Poly1305};
use super::Error;
use crate::secret::Secret;

/// Bytes of the encrypted length field.
pub const LENGTH_LEN: usize = 3;
/// Bytes of the header.
pub const HEADER_LEN: usize = 1;
/// Bytes of the tag.
pub const TAG_LEN: usize = 16;
/// Packet bytes besides the contents.
pub const OVERHEAD: usize = LENGTH_LEN + HEADER_LEN + TAG_LEN;
/// The decoy ("ignore") bit of the header byte.
pub const DECOY_FLAG: u8 = 0x80;
/// Largest contents the 3-byte length field can carry.
pub const MAX_CONTENTS_LEN: usize = (1 << 24) - 1;
/// Bitcoin Core's receive limit on contents (`MAX_CONTENTS_LEN` there): 1 + 12
/// message-type bytes + 4,000,000 (`MAX_PROTOCOL_MESSAGE_LENGTH`).
pub const CORE_MAX_CONTENTS_LEN: usize = 4_000_013;

/// Wire size of a packet with `contents_len` bytes of contents.
pub const fn sealed_len(contents_len: usize) -> usize {
    contents_len + OVERHEAD
}

/// Contents length of a whole sealed packet of `sealed_len` bytes (length
/// field included).
///
/// # Errors
///
/// [`Error::Truncated`] when `sealed_len` is under [`OVERHEAD`].
pub const fn opened_len(sealed_len: usize) -> Result<usize, Error> {
    if sealed_len < OVERHEAD {
        Err(Error::Truncated {
            len: sealed_len,
            min: OVERHEAD,
        })
    } else {
        Ok(sealed_len - OVERHEAD)
    }
}

/// What a packet is for: application data, or a decoy the receiver ignores
/// (header bit [`DECOY_FLAG`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketType {
    /// Contents for the application.
    Genuine,
    /// Padding traffic: the receiver drops the contents.
    Decoy,
}

impl PacketType {
    /// The header byte sent for this type.
    pub const fn header(self) -> u8 {
        match self {
            PacketType::Genuine => 0,
            PacketType::Decoy => DECOY_FLAG,
        }
    }

    /// The type a received header byte announces (bits other than
    /// [`DECOY_FLAG`] are ignored, as the BIP requires).
    pub const fn from_header(header: u8) -> Self {
        if header & DECOY_FLAG != 0 {
            PacketType::Decoy
        } else {
            PacketType::Genuine
        }
    }
}

/// Encrypts outbound packets (one direction of a session).
#[derive(Debug)]
pub struct PacketSender {
    pub(super) length: FsChaCha20,
    pub(super) packet: FsChaCha20Poly1305,
}

impl PacketSender {
    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): a sender from a
        /// caller-chosen length key and packet key. Two senders with the
        /// same keys reuse every nonce; real senders come from a handshake.
        fn new(length_key: &Secret<32>, packet_key: &Secret<32>) -> Self {
            Self {
                length: FsChaCha20::new(length_key),
                packet: FsChaCha20Poly1305::new(packet_key),
            }
        }
    }

    /// Encrypts `contents` as one packet of type `kind` into
    /// `out[..sealed_len(contents.len())]` and returns that length. `aad` is
    /// the sent garbage on the very first packet of a session and empty
    /// afterwards. On error nothing changes.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `out` is shorter than the packet,
    /// [`Error::TooLong`] for contents over [`MAX_CONTENTS_LEN`],
    /// [`Error::Exhausted`] when the key schedule is spent.
    pub fn seal_into(
        &mut self,
        contents: &[u8],
        kind: PacketType,
        aad: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        if contents.len() > MAX_CONTENTS_LEN {
            return Err(Error::TooLong {
                len: contents.len(),
                max: MAX_CONTENTS_LEN,
            });
        }
        let n = sealed_len(contents.len());
        let dst = out
            .get_mut(LENGTH_LEN + HEADER_LEN..n)
            .ok_or(Error::BufferTooSmall { required: n })?;
        dst[..contents.len()].copy_from_slice(contents);
        self.seal_in_place(contents.len(), kind, aad, out)
            .map(|p| p.len())
    }

    /// Like [`Self::seal_into`], but the contents already sit at
    /// `buf[4..4 + contents_len]` (after room for the length and header), so
    /// nothing is copied. Returns the sealed packet, `buf[..sealed_len]`.
    ///
    /// # Errors
    ///
    /// As [`Self::seal_into`].
    pub fn seal_in_place<'a>(
        &mut self,
        contents_len: usize,
        kind: PacketType,
        aad: &[u8],
        buf: &'a mut [u8],
    ) -> Result<&'a mut [u8], Error> {
        if contents_len > MAX_CONTENTS_LEN {
            return Err(Error::TooLong {
                len: contents_len,
                max: MAX_CONTENTS_LEN,
            });
        }
        let n = sealed_len(contents_len);
        let buf = buf
            .get_mut(..n)
            .ok_or(Error::BufferTooSmall { required: n })?;
        let (len_field, rest) = buf.split_at_mut(LENGTH_LEN);
        let (body, tag_out) = rest.split_at_mut(HEADER_LEN + contents_len);
        // Both ciphers check exhaustion before changing anything.
        let mut len_bytes = [0u8; LENGTH_LEN];
        len_bytes.copy_from_slice(&(contents_len as u32).to_le_bytes()[..LENGTH_LEN]);
        body[0] = kind.header();
        let tag = self.packet.seal(aad, body)?;
        self.length.crypt(&mut len_bytes)?;
        len_field.copy_from_slice(&len_bytes);
        tag_out.copy_from_slice(&tag);
        Ok(buf)
    }

    /// The sealed packet in a new `Vec`.
    ///
    /// # Errors
    ///
    /// As [`Self::seal_into`] (never [`Error::BufferTooSmall`]).
    pub fn seal_to_vec(
        &mut self,
        contents: &[u8],
        kind: PacketType,
        aad: &[u8],
    ) -> Result<Vec<u8>, Error> {
        if contents.len() > MAX_CONTENTS_LEN {
            return Err(Error::TooLong {
                len: contents.len(),
                max: MAX_CONTENTS_LEN,
            });
        }
        let mut v = vec![0u8; sealed_len(contents.len())];
        self.seal_into(contents, kind, aad, &mut v)?;
        Ok(v)
    }
}

/// A decrypted packet: its type and contents (borrowed from the caller's
/// buffer).
#[derive(Debug, PartialEq, Eq)]
pub struct Opened<'a> {
    /// [`PacketType::Decoy`] when the header's decoy bit (0x80) is set:
    /// ignore the contents.
    pub kind: PacketType,
    /// The contents.
    pub contents: &'a [u8],
}

/// Result of [`PacketReceiver::open_next`] on a stream buffer.
#[derive(Debug, PartialEq, Eq)]
pub enum Next<'a> {
    /// The buffer holds no whole packet yet; at least this many bytes are
    /// needed in total (from the start of the buffer).
    NeedMore(usize),
    /// One packet was opened; `consumed` bytes of the buffer were used.
    Packet {
        /// The packet.
        packet: Opened<'a>,
        /// Bytes of the buffer the packet occupied.
        consumed: usize,
    },
}

/// Decrypts inbound packets (one direction of a session). Any failure
/// poisons it.
#[derive(Debug)]
pub struct PacketReceiver {
    pub(super) length: FsChaCha20,
    pub(super) packet: FsChaCha20Poly1305,
    /// Contents length of the packet whose length field was decrypted.
    pending: Option<usize>,
    max_contents: usize,
    poisoned: bool,
}

impl PacketReceiver {
    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): a receiver from a
        /// caller-chosen length key and packet key of the peer's direction,
        /// with Bitcoin Core's receive limit. Real receivers come from a
        /// handshake.
        fn new(length_key: &Secret<32>, packet_key: &Secret<32>) -> Self {
            Self {
                length: FsChaCha20::new(length_key),
                packet: FsChaCha20Poly1305::new(packet_key),
                pending: None,
                max_contents: CORE_MAX_CONTENTS_LEN,
                poisoned: false,
            }
        }
    }

    /// The same receiver accepting contents up to `max` bytes (default
    /// [`CORE_MAX_CONTENTS_LEN`], capped at [`MAX_CONTENTS_LEN`]).
    pub fn with_max_contents(mut self, max: usize) -> Self {
        self.set_max_contents(max);
        self
    }

    /// Sets the largest contents length accepted.
    pub(crate) fn set_max_contents(&mut self, max: usize) {
        self.max_contents = max.min(MAX_CONTENTS_LEN);
    }

    /// The largest contents length accepted.
    pub fn max_contents(&self) -> usize {
        self.max_contents
    }

    /// True after a failure; every later call fails with
    /// [`Error::Poisoned`].
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    fn fail(&mut self, e: Error) -> Error {
        self.poisoned = true;
        e
    }

    /// Decrypts the 3-byte length field of the next packet and returns how
    /// many more bytes the packet occupies (header + contents + tag).
    /// Announced contents over the limit poison the receiver.
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for a length over the receive limit,
    /// [`Error::OutOfOrder`] when the previous length's packet was not
    /// opened, [`Error::Poisoned`] after an earlier failure,
    /// [`Error::Exhausted`] when the key schedule is spent.
    pub fn decrypt_length(&mut self, field: [u8; LENGTH_LEN]) -> Result<usize, Error> {
        if self.poisoned {
            return Err(Error::Poisoned);
        }
        if self.pending.is_some() {
            return Err(self.fail(Error::OutOfOrder));
        }
        let mut f = field;
        if let Err(e) = self.length.crypt(&mut f) {
            return Err(self.fail(e));
        }
        let len = u32::from_le_bytes([f[0], f[1], f[2], 0]) as usize;
        if len > self.max_contents {
            return Err(self.fail(Error::TooLong {
                len,
                max: self.max_contents,
            }));
        }
        self.pending = Some(len);
        Ok(len + HEADER_LEN + TAG_LEN)
    }

    /// Bytes after the length field of the packet whose length was decrypted.
    pub fn pending_len(&self) -> Option<usize> {
        self.pending.map(|l| l + HEADER_LEN + TAG_LEN)
    }

    /// Verifies and decrypts, in place, the body of the packet whose length
    /// was just decrypted: `body` is exactly header + contents + tag. `aad`
    /// is the received garbage for the session's first packet, empty
    /// afterwards.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`] when the tag does not verify; [`Error::Truncated`] /
    /// [`Error::TooLong`] when `body` is not the announced size;
    /// [`Error::OutOfOrder`] before [`Self::decrypt_length`];
    /// [`Error::Poisoned`] after an earlier failure. Every error poisons the
    /// receiver.
    pub fn open_body<'a>(&mut self, aad: &[u8], body: &'a mut [u8]) -> Result<Opened<'a>, Error> {
        if self.poisoned {
            return Err(Error::Poisoned);
        }
        let Some(len) = self.pending else {
            return Err(self.fail(Error::OutOfOrder));
        };
        let expected = len + HEADER_LEN + TAG_LEN;
        if body.len() < expected {
            return Err(self.fail(Error::Truncated {
                len: body.len(),
                min: expected,
            }));
        }
        if body.len() > expected {
            return Err(self.fail(Error::TooLong {
                len: body.len(),
                max: expected,
            }));
        }
        match self.packet.open(aad, body) {
            Ok(pt) => {
                self.pending = None;
                let (header, contents) = pt.split_at(HEADER_LEN);
                Ok(Opened {
                    kind: PacketType::from_header(header[0]),
                    contents,
                })
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Opens the packet at the start of a stream buffer, in place: decrypts
    /// the length when it is not yet known, and returns
    /// [`Next::NeedMore`] until the whole packet is there. Call again with
    /// the same (grown) buffer after `NeedMore`.
    ///
    /// # Errors
    ///
    /// As [`Self::decrypt_length`] and [`Self::open_body`]; every error
    /// poisons the receiver.
    pub fn open_next<'a>(&mut self, aad: &[u8], buf: &'a mut [u8]) -> Result<Next<'a>, Error> {
        if self.poisoned {
            return Err(Error::Poisoned);
        }
        let rest = match self.pending_len() {
            Some(r) => r,
            None => {
                let Some(field) = buf.get(..LENGTH_LEN) else {
                    return Ok(Next::NeedMore(LENGTH_LEN));
                };
                let mut f = [0u8; LENGTH_LEN];
                f.copy_from_slice(field);
                self.decrypt_length(f)?
            }
        };
        let total = LENGTH_LEN + rest;
        match buf.get_mut(LENGTH_LEN..total) {
            None => Ok(Next::NeedMore(total)),
            Some(body) => {
                let packet = self.open_body(aad, body)?;
                Ok(Next::Packet {
                    packet,
                    consumed: total,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet with any header byte, built from the two ciphers (length
    /// field under FSChaCha20, header + contents under FSChaCha20Poly1305),
    /// exactly as [`PacketSender`] lays it out.
    fn packet_with_header(
        len: &mut FsChaCha20,
        aead: &mut FsChaCha20Poly1305,
        header: u8,
        contents: &[u8],
    ) -> Vec<u8> {
        let mut l = [0u8; 3];
        l.copy_from_slice(&(contents.len() as u32).to_le_bytes()[..3]);
        len.crypt(&mut l).unwrap();
        let mut body = vec![header];
        body.extend_from_slice(contents);
        let tag = aead.seal(b"", &mut body).unwrap();
        let mut wire = l.to_vec();
        wire.extend_from_slice(&body);
        wire.extend_from_slice(&tag);
        wire
    }

    /// Only the header's 0x80 bit means decoy; the other bits are ignored
    /// on receipt and sent as zero.
    #[test]
    fn other_header_bits_are_ignored() {
        let (lk, pk) = (Secret::new([0x11u8; 32]), Secret::new([0x22u8; 32]));
        let mut len = FsChaCha20::new(&lk);
        let mut aead = FsChaCha20Poly1305::new(&pk);
        let mut rx = PacketReceiver::new(&lk, &pk);
        // The hand-built packets are the sender's own for headers 0x00 and
        // 0x80, so the others differ from a real packet only in the header.
        let mut reference = PacketSender::new(&lk, &pk);
        for (i, header) in [0x00u8, 0x80, 0x7f, 0xff, 0x01, 0xfe, 0x40, 0xc0]
            .into_iter()
            .enumerate()
        {
            let contents = vec![i as u8; 5 + i];
            let wire = packet_with_header(&mut len, &mut aead, header, &contents);
            let mine = reference
                .seal_to_vec(&contents, PacketType::from_header(header), b"")
                .unwrap();
            if header & !DECOY_FLAG == 0 {
                assert_eq!(wire, mine, "header {header:#04x}");
            } else {
                assert_ne!(wire, mine, "header {header:#04x}");
            }
            let mut buf = wire.clone();
            match rx.open_next(b"", &mut buf).unwrap() {
                Next::Packet { packet, consumed } => {
                    assert_eq!(consumed, wire.len());
                    assert_eq!(
                        packet.kind == PacketType::Decoy,
                        header & 0x80 != 0,
                        "header {header:#04x}"
                    );
                    assert_eq!(packet.contents, &contents[..]);
                }
                n => panic!("{n:?}"),
            }
        }
        assert!(!rx.is_poisoned());
    }

    #[test]
    fn size_helpers_are_exact() {
        assert_eq!(sealed_len(0), OVERHEAD);
        assert_eq!(opened_len(sealed_len(77)), Ok(77));
        assert_eq!(
            opened_len(OVERHEAD - 1),
            Err(Error::Truncated {
                len: OVERHEAD - 1,
                min: OVERHEAD
            })
        );
    }
}
