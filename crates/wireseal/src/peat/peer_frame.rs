//! Per-peer E2EE frames:
//! `0xAF 0x00 | recipient u32 LE | sender u32 LE | counter u64 LE | nonce(12) | ct+tag16`,
//! ChaCha20-Poly1305 under the pair's session key, no AAD.
//!
//! The header (recipient, sender, counter) is **not** authenticated by the
//! wire format: peat-btle passes no AAD. See `docs/peat.md`.

use super::error::check_frame;
use super::{Error, PEER_MARKER};
use crate::primitives::chacha20poly1305::{NONCE_LEN, TAG_LEN};

/// Bytes before the ciphertext: marker, reserved, recipient, sender, counter, nonce.
pub const PEER_HEADER_LEN: usize = 2 + 4 + 4 + 8 + NONCE_LEN;

/// Bytes a per-peer frame adds to a message (header and tag): 46.
pub const PEER_OVERHEAD: usize = PEER_HEADER_LEN + TAG_LEN;

/// Length of the per-peer frame that seals `plaintext_len` bytes.
pub const fn peer_sealed_len(plaintext_len: usize) -> usize {
    plaintext_len + PEER_OVERHEAD
}

/// Length of the plaintext inside a per-peer frame of `sealed_len` bytes.
///
/// # Errors
/// [`Error::Truncated`] when the frame is shorter than [`PEER_OVERHEAD`].
pub const fn peer_opened_len(sealed_len: usize) -> Result<usize, Error> {
    match sealed_len.checked_sub(PEER_OVERHEAD) {
        Some(n) => Ok(n),
        None => Err(Error::Truncated {
            len: sealed_len,
            min: PEER_OVERHEAD,
        }),
    }
}

/// The cleartext header of a per-peer frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerHeader {
    /// Node the frame is for.
    pub recipient: u32,
    /// Node that sent it.
    pub sender: u32,
    /// The sender's message counter (unauthenticated on the wire).
    pub counter: u64,
    /// The ChaCha20-Poly1305 nonce.
    pub nonce: [u8; NONCE_LEN],
}

impl PeerHeader {
    /// Parses the header of a per-peer frame (checking marker and minimum
    /// length, header plus tag). The reserved byte is ignored.
    ///
    /// # Errors
    /// [`Error::WrongMarker`] when the first byte is not 0xAF;
    /// [`Error::Truncated`] when the frame is shorter than [`PEER_OVERHEAD`].
    pub fn parse(frame: &[u8]) -> Result<Self, Error> {
        check_frame(frame, PEER_MARKER, PEER_OVERHEAD)?;
        let u32_at =
            |i: usize| u32::from_le_bytes([frame[i], frame[i + 1], frame[i + 2], frame[i + 3]]);
        let mut c = [0u8; 8];
        c.copy_from_slice(&frame[10..18]);
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&frame[18..PEER_HEADER_LEN]);
        Ok(Self {
            recipient: u32_at(2),
            sender: u32_at(6),
            counter: u64::from_le_bytes(c),
            nonce,
        })
    }

    /// Writes the 30-byte header into `out[..30]` (`out` must be that long).
    pub(crate) fn write(&self, out: &mut [u8]) {
        out[0] = PEER_MARKER;
        out[1] = 0;
        out[2..6].copy_from_slice(&self.recipient.to_le_bytes());
        out[6..10].copy_from_slice(&self.sender.to_le_bytes());
        out[10..18].copy_from_slice(&self.counter.to_le_bytes());
        out[18..PEER_HEADER_LEN].copy_from_slice(&self.nonce);
    }
}
