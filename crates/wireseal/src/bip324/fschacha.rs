//! The two forward-secure ciphers of BIP324: FSChaCha20 (packet lengths) and
//! FSChaCha20Poly1305 (packet contents), both rekeyed every
//! [`REKEY_INTERVAL`] messages.

use super::Error;
use crate::primitives::chacha20 as raw;
use crate::primitives::chacha20poly1305::{ChaChaKey, TAG_LEN};
use crate::secret::Secret;

/// Messages per key (BIP324 `REKEY_INTERVAL`).
pub const REKEY_INTERVAL: u32 = 224;

/// Length-field bytes.
const CHUNK: usize = 3;
/// One epoch of FSChaCha20 keystream: 224 three-byte chunks then the next
/// 32-byte key, exactly 11 ChaCha20 blocks.
const EPOCH_STREAM: usize = REKEY_INTERVAL as usize * CHUNK + 32;

fn nonce(low: u32, epoch: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&low.to_le_bytes());
    n[4..].copy_from_slice(&epoch.to_le_bytes());
    n
}

/// FSChaCha20: a continuous ChaCha20 keystream per epoch (nonce
/// `LE32(0) || LE64(epoch)`, block counter from 0), 3 bytes per chunk; after
/// 224 chunks the next 32 keystream bytes become the key.
///
/// The whole epoch's keystream (704 bytes) is computed at once when the epoch
/// starts, so a length costs three XORs.
pub(crate) struct FsChaCha20 {
    stream: Secret<EPOCH_STREAM>,
    chunk: u32,
    epoch: u64,
}

impl core::fmt::Debug for FsChaCha20 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FsChaCha20(redacted)")
    }
}

impl FsChaCha20 {
    /// A cipher at chunk 0 of epoch 0.
    pub(crate) fn new(key: &Secret<32>) -> Self {
        let mut s = Self {
            stream: Secret::new([0u8; EPOCH_STREAM]),
            chunk: 0,
            epoch: 0,
        };
        raw::keystream(key.expose(), &nonce(0, 0), 0, s.stream.expose_mut());
        s
    }

    /// Encrypts or decrypts one 3-byte length field in place.
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when the epoch counter would wrap.
    pub(crate) fn crypt(&mut self, chunk: &mut [u8; CHUNK]) -> Result<(), Error> {
        if self.chunk + 1 == REKEY_INTERVAL && self.epoch == u64::MAX {
            return Err(Error::Exhausted);
        }
        let at = self.chunk as usize * CHUNK;
        let ks = &self.stream.expose()[at..at + CHUNK];
        for (c, k) in chunk.iter_mut().zip(ks) {
            *c ^= k;
        }
        self.chunk += 1;
        if self.chunk == REKEY_INTERVAL {
            let mut key = Secret::<32>::new([0u8; 32]);
            key.expose_mut()
                .copy_from_slice(&self.stream.expose()[EPOCH_STREAM - 32..]);
            self.epoch += 1;
            self.chunk = 0;
            raw::keystream(
                key.expose(),
                &nonce(0, self.epoch),
                0,
                self.stream.expose_mut(),
            );
        }
        Ok(())
    }
}

/// FSChaCha20Poly1305: ChaCha20-Poly1305 with nonce
/// `LE32(packet in epoch) || LE64(epoch)`; after 224 packets the key becomes
/// the first 32 bytes of encrypting 32 zero bytes under nonce
/// `FFFFFFFF || LE64(epoch)` with empty AAD.
pub(crate) struct FsChaCha20Poly1305 {
    key: ChaChaKey,
    packet: u32,
    epoch: u64,
}

impl core::fmt::Debug for FsChaCha20Poly1305 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FsChaCha20Poly1305(redacted)")
    }
}

impl FsChaCha20Poly1305 {
    /// A cipher at packet 0 of epoch 0.
    pub(crate) fn new(key: &Secret<32>) -> Self {
        Self {
            key: ChaChaKey::new(key.expose()),
            packet: 0,
            epoch: 0,
        }
    }

    fn check(&self) -> Result<(), Error> {
        if self.packet + 1 == REKEY_INTERVAL && self.epoch == u64::MAX {
            Err(Error::Exhausted)
        } else {
            Ok(())
        }
    }

    fn advance(&mut self) {
        self.packet += 1;
        if self.packet == REKEY_INTERVAL {
            let mut next = Secret::<32>::new([0u8; 32]);
            let _ = self
                .key
                .seal_in_place(&nonce(u32::MAX, self.epoch), b"", next.expose_mut());
            self.key = ChaChaKey::new(next.expose());
            self.packet = 0;
            self.epoch += 1;
        }
    }

    /// Encrypts `buf` in place and returns the tag.
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when the epoch counter would wrap.
    pub(crate) fn seal(&mut self, aad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN], Error> {
        self.check()?;
        let tag = self
            .key
            .seal_in_place(&nonce(self.packet, self.epoch), aad, buf);
        self.advance();
        Ok(tag)
    }

    /// Verifies and decrypts `ct_and_tag` in place, returning the plaintext
    /// prefix. The counter moves only when the tag verifies.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`] when the tag does not verify (the buffer is wiped),
    /// [`Error::Exhausted`] when the epoch counter would wrap.
    pub(crate) fn open<'a>(
        &mut self,
        aad: &[u8],
        ct_and_tag: &'a mut [u8],
    ) -> Result<&'a mut [u8], Error> {
        self.check()?;
        let pt = self
            .key
            .open_in_place(&nonce(self.packet, self.epoch), aad, ct_and_tag)
            .map_err(|_| Error::Auth)?;
        self.advance();
        Ok(pt)
    }
}
