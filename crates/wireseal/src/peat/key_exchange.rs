//! Key-exchange frames (39 bytes):
//! `0xB0 | 0x00 | sender u32 LE | flags u8 (bit 0 = ephemeral) | X25519 public key(32)`.
//!
//! As peat-btle's `KeyExchangeMessage::decode` (which needs at least 37
//! payload bytes after marker and reserved byte), a longer frame is accepted
//! and its tail ignored; the reserved byte is ignored too.

use super::error::check_frame;
use super::{Error, KEY_EXCHANGE_MARKER};

/// Length of a key-exchange frame (the encoded length, and the minimum accepted).
pub const KEY_EXCHANGE_LEN: usize = 39;

/// A decoded key-exchange frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyExchange {
    /// The sender's node id.
    pub sender: u32,
    /// Flag bit 0: the key is ephemeral.
    pub ephemeral: bool,
    /// The sender's X25519 public key.
    pub public_key: [u8; 32],
}

impl KeyExchange {
    /// Encodes the 39-byte frame.
    pub fn encode(&self) -> [u8; KEY_EXCHANGE_LEN] {
        let mut f = [0u8; KEY_EXCHANGE_LEN];
        f[0] = KEY_EXCHANGE_MARKER;
        f[1] = 0;
        f[2..6].copy_from_slice(&self.sender.to_le_bytes());
        f[6] = u8::from(self.ephemeral);
        f[7..].copy_from_slice(&self.public_key);
        f
    }

    /// Decodes a key-exchange frame. The reserved byte, the flag bits other
    /// than bit 0 and any bytes after the first 39 are ignored, as peers
    /// ignore them.
    ///
    /// # Errors
    /// [`Error::WrongMarker`] when the first byte is not 0xB0;
    /// [`Error::Truncated`] when the frame is shorter than 39 bytes.
    pub fn decode(frame: &[u8]) -> Result<Self, Error> {
        check_frame(frame, KEY_EXCHANGE_MARKER, KEY_EXCHANGE_LEN)?;
        let f = &frame[..KEY_EXCHANGE_LEN];
        let mut public_key = [0u8; 32];
        public_key.copy_from_slice(&f[7..KEY_EXCHANGE_LEN]);
        Ok(Self {
            sender: u32::from_le_bytes([f[2], f[3], f[4], f[5]]),
            ephemeral: f[6] & 1 != 0,
            public_key,
        })
    }
}
