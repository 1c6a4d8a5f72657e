//! Group channels: a 16- or 32-byte secret, found by the first byte of its
//! SHA-256 (`BaseChatMesh::addChannel`, `setChannel`).
//!
//! The public channel's key is published (`izOH6cXN6mrJ5e26oRXNcg==`);
//! a `#hashtag` channel's key is the first 16 bytes of SHA-256 of its
//! name with the `#`; a private channel has a random key. The cipher takes
//! the key zero-padded to 32 bytes; the hash is taken over the key as
//! configured (16 or 32 bytes).

use super::cipher::{ciphertext_len, CipherKey};
use super::error::Error;
use super::packet::{PacketOut, PayloadType};
use super::plaintext::{compose_text, TextType};
use super::{MAC_SIZE, MAX_PACKET_PAYLOAD};
use crate::secret::Secret;
use sha2::{Digest, Sha256};

/// The public channel's key.
pub const PUBLIC_CHANNEL_KEY: [u8; 16] = [
    0x8b, 0x33, 0x87, 0xe9, 0xc5, 0xcd, 0xea, 0x6a, 0xc9, 0xe5, 0xed, 0xba, 0xa1, 0x15, 0xcd, 0x72,
];

/// A group channel's key, expanded for use. Wiped on drop.
pub struct ChannelKey {
    cipher: CipherKey,
    hash: u8,
    len: usize,
}

impl core::fmt::Debug for ChannelKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChannelKey")
            .field("hash", &self.hash)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl ChannelKey {
    /// A channel of a 16- or 32-byte key.
    ///
    /// # Errors
    /// [`Error::KeyLength`] for any other length.
    pub fn from_bytes(key: &[u8]) -> Result<Self, Error> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::KeyLength {
                what: "channel key",
                len: key.len(),
                expected: "16 or 32 bytes",
            });
        }
        let mut secret = Secret::<32>::new([0u8; 32]);
        secret.expose_mut()[..key.len()].copy_from_slice(key);
        Ok(Self {
            cipher: CipherKey::new(secret),
            hash: Sha256::digest(key)[0],
            len: key.len(),
        })
    }

    /// The public channel.
    pub fn public() -> Self {
        Self::from_bytes(&PUBLIC_CHANNEL_KEY).expect("16 bytes")
    }

    /// A hashtag channel: `name` with or without its leading `#`, taken
    /// as written (MeshCore does not fold case; `#Test` and `#test` are
    /// two channels).
    ///
    /// # Errors
    /// [`Error::Argument`] for an empty name or one with whitespace or
    /// control characters.
    pub fn hashtag(name: &str) -> Result<Self, Error> {
        let bare = name.strip_prefix('#').unwrap_or(name);
        if bare.is_empty() || bare.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(Error::Argument {
                what: "hashtag",
                reason: "a non-empty name without spaces or control characters",
            });
        }
        Self::from_bytes(super::transport::name_key(bare).expose())
    }

    /// A channel of base64 key text (standard alphabet, as the apps share
    /// it; padding optional).
    ///
    /// # Errors
    /// [`Error::KeyText`] when the text is not base64 (never repeated);
    /// [`Error::KeyLength`] unless it holds 16 or 32 bytes.
    #[cfg(feature = "alloc")]
    pub fn from_base64(text: &str) -> Result<Self, Error> {
        use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
        use base64::engine::DecodePaddingMode;
        use base64::Engine;
        let config =
            GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
        let engine = GeneralPurpose::new(&base64::alphabet::STANDARD, config);
        let bytes =
            zeroize::Zeroizing::new(engine.decode(text.trim()).map_err(|_| Error::KeyText {
                reason: "the channel key is not base64",
            })?);
        Self::from_bytes(&bytes)
    }

    /// The channel's hash byte, as packets carry it.
    pub fn hash(&self) -> u8 {
        self.hash
    }

    /// The key's length as configured (16 or 32).
    pub fn key_len(&self) -> usize {
        self.len
    }

    /// The channel's cipher (the key zero-padded to 32 bytes).
    pub fn cipher(&self) -> &CipherKey {
        &self.cipher
    }

    /// Writes a group payload `channel_hash ‖ MAC ‖ ciphertext` of
    /// `plaintext`; returns its length.
    ///
    /// # Errors
    /// [`Error::PayloadTooLong`] when it would exceed 184 bytes;
    /// [`Error::BufferTooSmall`].
    pub fn seal_payload_into(&self, plaintext: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        let n = 1 + MAC_SIZE + ciphertext_len(plaintext.len());
        if n > MAX_PACKET_PAYLOAD {
            return Err(Error::PayloadTooLong { len: n });
        }
        if out.len() < n {
            return Err(Error::BufferTooSmall { required: n });
        }
        out[0] = self.hash;
        self.cipher.seal_into(plaintext, &mut out[1..n])?;
        Ok(n)
    }

    /// Writes the GRP_TXT packet a node floods (empty path) for `text`
    /// (`"<sender>: <message>"`, at most 160 bytes), byte for byte what
    /// `BaseChatMesh::sendGroupMessage` sends; returns its length.
    ///
    /// # Errors
    /// [`Error::Argument`] for text over 160 bytes;
    /// [`Error::BufferTooSmall`].
    pub fn encode_group_text(
        &self,
        timestamp: u32,
        text: &str,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let mut pt = Secret::<{ 5 + super::MAX_TEXT_LEN }>::new([0u8; 5 + super::MAX_TEXT_LEN]);
        let n = compose_text(timestamp, TextType::Plain, 0, None, text, pt.expose_mut())?;
        let mut payload = [0u8; MAX_PACKET_PAYLOAD];
        let len = self.seal_payload_into(&pt.expose()[..n], &mut payload)?;
        PacketOut::flood(PayloadType::GrpTxt, &payload[..len]).encode_into(out)
    }

    /// Writes a GRP_DATA packet (flood, empty path) carrying `data` of
    /// `data_type`; returns its length.
    ///
    /// # Errors
    /// [`Error::Argument`] for data over 255 bytes;
    /// [`Error::PayloadTooLong`]; [`Error::BufferTooSmall`].
    pub fn encode_group_data(
        &self,
        data_type: u16,
        data: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let len = u8::try_from(data.len()).map_err(|_| Error::Argument {
            what: "group data",
            reason: "at most 255 bytes",
        })?;
        let mut pt = Secret::<MAX_PACKET_PAYLOAD>::new([0u8; MAX_PACKET_PAYLOAD]);
        let n = 3 + data.len();
        if n > MAX_PACKET_PAYLOAD {
            return Err(Error::PayloadTooLong { len: n });
        }
        let p = pt.expose_mut();
        p[..2].copy_from_slice(&data_type.to_le_bytes());
        p[2] = len;
        p[3..n].copy_from_slice(data);
        let mut payload = [0u8; MAX_PACKET_PAYLOAD];
        let plen = self.seal_payload_into(&pt.expose()[..n], &mut payload)?;
        PacketOut::flood(PayloadType::GrpData, &payload[..plen]).encode_into(out)
    }
}
