//! Channel packets: PSK expansion, AES-128/256-CTR, and the channel hash.
//!
//! Channel packets carry no authentication tag (the firmware has none):
//! anyone holding the PSK can forge them. Use PKC direct messages when that
//! matters.
//!
//! Counter block: `LE64(id) | LE32(from) | 00000000`, the last four bytes a
//! big-endian block counter from 0.

use super::Error;
use crate::primitives::aes_ctr;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The firmware's default channel key (PSK index 1, "AQ==").
pub const DEFAULT_PSK: [u8; 16] = [
    0xd4, 0xf1, 0xbb, 0x3a, 0x20, 0x29, 0x07, 0x59, 0xf0, 0xbc, 0xff, 0xab, 0xcf, 0x4e, 0x69, 0x01,
];

/// An expanded channel key: none (plaintext channel), AES-128 or AES-256.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ChannelKey {
    key: [u8; 32],
    len: u8,
}

impl core::fmt::Debug for ChannelKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ChannelKey({} bytes, redacted)", self.len)
    }
}

impl ChannelKey {
    /// Expands a PSK as the firmware does: empty = no encryption; one byte
    /// = index over the default key (0 = no encryption, i adds i-1 to its
    /// last byte); 2–15 bytes zero-padded to 16; 17–31 zero-padded to 32;
    /// 16 and 32 bytes as they are.
    ///
    /// # Errors
    /// [`Error::InvalidPsk`] for a PSK longer than 32 bytes.
    pub fn from_psk(psk: &[u8]) -> Result<Self, Error> {
        let mut key = [0u8; 32];
        let len = match psk.len() {
            0 => 0,
            1 => {
                let index = psk[0];
                if index == 0 {
                    0
                } else {
                    key[..16].copy_from_slice(&DEFAULT_PSK);
                    key[15] = key[15].wrapping_add(index - 1);
                    16
                }
            }
            n @ 2..=16 => {
                key[..n].copy_from_slice(psk);
                16
            }
            n @ 17..=32 => {
                key[..n].copy_from_slice(psk);
                32
            }
            n => return Err(Error::InvalidPsk { len: n }),
        };
        Ok(Self { key, len })
    }

    /// The expanded key bytes (empty when the channel is unencrypted).
    pub fn expanded(&self) -> &[u8] {
        &self.key[..self.len as usize]
    }

    /// Whether packets on this channel are encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.len != 0
    }

    /// The one-byte channel hash: XOR of the name's bytes XOR the XOR of
    /// the expanded key's bytes.
    pub fn hash(&self, name: &str) -> u8 {
        xor(name.as_bytes()) ^ xor(self.expanded())
    }

    /// Encrypts a channel packet's payload in place for sender `from`,
    /// packet `id` (no tag: see the module docs). A no-op on an unencrypted
    /// channel.
    pub fn seal_in_place(&self, from: u32, id: u32, buf: &mut [u8]) {
        self.apply(from, id, buf);
    }

    /// Decrypts a channel packet's payload in place (the same keystream as
    /// [`ChannelKey::seal_in_place`]; nothing is verified, channel packets
    /// carry no tag).
    pub fn open_in_place(&self, from: u32, id: u32, buf: &mut [u8]) {
        self.apply(from, id, buf);
    }

    /// Applies the CTR keystream of sender `from`, packet `id` to `buf` in
    /// place: what both [`ChannelKey::seal_in_place`] and
    /// [`ChannelKey::open_in_place`] do. A no-op on an unencrypted channel.
    pub fn apply(&self, from: u32, id: u32, buf: &mut [u8]) {
        if !self.is_encrypted() {
            return;
        }
        let ok = aes_ctr::apply_keystream(self.expanded(), &counter_block(from, id), buf);
        debug_assert!(ok, "expanded keys are 16 or 32 bytes");
    }
}

/// The initial counter block for (from, id).
pub fn counter_block(from: u32, id: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..8].copy_from_slice(&u64::from(id).to_le_bytes());
    b[8..12].copy_from_slice(&from.to_le_bytes());
    b
}

fn xor(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |a, b| a ^ b)
}
