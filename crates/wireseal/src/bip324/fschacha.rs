//! The two forward-secure ciphers of BIP324: FSChaCha20 (packet lengths) and
//! FSChaCha20Poly1305 (packet contents), both rekeyed every
//! [`REKEY_INTERVAL`] messages.
//!
//! Each cipher keeps its current key, the message index within the epoch
//! and the epoch, so that [`super::state::DirectionState`] can export them
//! and move them forward ([`FsChaCha20::skip`], [`FsChaCha20Poly1305::skip`])
//! by the same rules as sealing or opening one message at a time.

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
/// The ChaCha20 block holding the next FSChaCha20 key (its last 32 bytes).
const NEXT_KEY_BLOCK: u32 = (EPOCH_STREAM / raw::BLOCK_LEN) as u32 - 1;

fn nonce(low: u32, epoch: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&low.to_le_bytes());
    n[4..].copy_from_slice(&epoch.to_le_bytes());
    n
}

/// Messages a cipher at `index` of `epoch` may still process: the message
/// that would need epoch `u64::MAX + 1` is refused ([`Error::Exhausted`]).
/// Saturates at `u64::MAX`.
pub(crate) fn messages_left(index: u32, epoch: u64) -> u64 {
    (u64::MAX - epoch)
        .saturating_mul(u64::from(REKEY_INTERVAL))
        .saturating_add(u64::from(REKEY_INTERVAL - 1 - index))
}

/// The FSChaCha20 key of epoch `epoch + 1`: the last 32 bytes of epoch
/// `epoch`'s keystream (nonce `LE32(0) || LE64(epoch)`), i.e. the second
/// half of its 11th ChaCha20 block.
pub(crate) fn next_length_key(key: &Secret<32>, epoch: u64) -> Secret<32> {
    let mut block = Secret::<{ raw::BLOCK_LEN }>::new([0u8; raw::BLOCK_LEN]);
    raw::keystream(
        key.expose(),
        &nonce(0, epoch),
        NEXT_KEY_BLOCK,
        block.expose_mut(),
    );
    let mut next = Secret::new([0u8; 32]);
    next.expose_mut().copy_from_slice(&block.expose()[32..]);
    next
}

/// The FSChaCha20Poly1305 key of epoch `epoch + 1`: the first 32 bytes of
/// encrypting 32 zero bytes under nonce `FFFFFFFF || LE64(epoch)` with empty
/// AAD. The RFC 8439 AEAD encrypts with the ChaCha20 keystream from block
/// counter 1, so those bytes are that keystream's first 32.
pub(crate) fn next_packet_key(key: &Secret<32>, epoch: u64) -> Secret<32> {
    let mut next = Secret::new([0u8; 32]);
    raw::keystream(key.expose(), &nonce(u32::MAX, epoch), 1, next.expose_mut());
    next
}

/// Copies a key into a new secret.
fn copy_key(key: &Secret<32>) -> Secret<32> {
    Secret::new(*key.expose())
}

/// FSChaCha20: a continuous ChaCha20 keystream per epoch (nonce
/// `LE32(0) || LE64(epoch)`, block counter from 0), 3 bytes per chunk; after
/// 224 chunks the next 32 keystream bytes become the key.
///
/// The whole epoch's keystream (704 bytes) is computed at once when the epoch
/// starts, so a length costs three XORs.
pub(crate) struct FsChaCha20 {
    key: Secret<32>,
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
        Self::at(copy_key(key), 0, 0)
    }

    /// A cipher whose epoch `epoch` has key `key`, at chunk `chunk`
    /// (below [`REKEY_INTERVAL`]).
    pub(crate) fn at(key: Secret<32>, epoch: u64, chunk: u32) -> Self {
        debug_assert!(chunk < REKEY_INTERVAL);
        let mut s = Self {
            key,
            stream: Secret::new([0u8; EPOCH_STREAM]),
            chunk,
            epoch,
        };
        s.fill_stream();
        s
    }

    fn fill_stream(&mut self) {
        raw::keystream(
            self.key.expose(),
            &nonce(0, self.epoch),
            0,
            self.stream.expose_mut(),
        );
    }

    /// The current epoch's key, epoch and chunk index.
    pub(crate) fn position(&self) -> (&Secret<32>, u64, u32) {
        (&self.key, self.epoch, self.chunk)
    }

    /// An independent copy (the same key, keystream and position), for
    /// reading lengths ahead without moving this cipher.
    pub(crate) fn duplicate(&self) -> Self {
        Self {
            key: copy_key(&self.key),
            stream: Secret::new(*self.stream.expose()),
            chunk: self.chunk,
            epoch: self.epoch,
        }
    }

    /// Messages this cipher may still process.
    pub(crate) fn left(&self) -> u64 {
        messages_left(self.chunk, self.epoch)
    }

    /// Encrypts or decrypts one 3-byte length field in place.
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when the epoch counter would wrap.
    pub(crate) fn crypt(&mut self, chunk: &mut [u8; CHUNK]) -> Result<(), Error> {
        if self.left() == 0 {
            return Err(Error::Exhausted);
        }
        let at = self.chunk as usize * CHUNK;
        let ks = &self.stream.expose()[at..at + CHUNK];
        for (c, k) in chunk.iter_mut().zip(ks) {
            *c ^= k;
        }
        self.chunk += 1;
        if self.chunk == REKEY_INTERVAL {
            self.key = next_length_key(&self.key, self.epoch);
            self.epoch += 1;
            self.chunk = 0;
            self.fill_stream();
        }
        Ok(())
    }

    /// Moves the cipher forward by `n` messages, as `n` calls of
    /// [`Self::crypt`] would; the keystream is recomputed once, for the
    /// epoch it ends in. Nothing changes on error.
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when fewer than `n` messages are left.
    pub(crate) fn skip(&mut self, n: u64) -> Result<(), Error> {
        if n > self.left() {
            return Err(Error::Exhausted);
        }
        let (key, epoch, chunk) = skip_key(&self.key, self.epoch, self.chunk, n, next_length_key);
        if epoch != self.epoch {
            self.key = key;
            self.epoch = epoch;
            self.fill_stream();
        }
        self.chunk = chunk;
        Ok(())
    }
}

/// The key, epoch and index `n` messages after (`key`, `epoch`, `index`),
/// rekeying with `rekey` at every epoch boundary crossed. The caller has
/// checked that `n` messages are left.
pub(crate) fn skip_key(
    key: &Secret<32>,
    epoch: u64,
    index: u32,
    n: u64,
    rekey: fn(&Secret<32>, u64) -> Secret<32>,
) -> (Secret<32>, u64, u32) {
    let interval = u64::from(REKEY_INTERVAL);
    let total = u64::from(index) + n;
    let mut key = copy_key(key);
    let mut e = epoch;
    for _ in 0..total / interval {
        key = rekey(&key, e);
        e += 1;
    }
    (key, e, (total % interval) as u32)
}

/// FSChaCha20Poly1305: ChaCha20-Poly1305 with nonce
/// `LE32(packet in epoch) || LE64(epoch)`; after 224 packets the key becomes
/// the first 32 bytes of encrypting 32 zero bytes under nonce
/// `FFFFFFFF || LE64(epoch)` with empty AAD ([`next_packet_key`]).
pub(crate) struct FsChaCha20Poly1305 {
    raw_key: Secret<32>,
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
        Self::at(copy_key(key), 0, 0)
    }

    /// A cipher whose epoch `epoch` has key `key`, at packet `packet`
    /// (below [`REKEY_INTERVAL`]).
    pub(crate) fn at(key: Secret<32>, epoch: u64, packet: u32) -> Self {
        debug_assert!(packet < REKEY_INTERVAL);
        Self {
            key: ChaChaKey::new(key.expose()),
            raw_key: key,
            packet,
            epoch,
        }
    }

    /// The current epoch's key, epoch and packet index.
    pub(crate) fn position(&self) -> (&Secret<32>, u64, u32) {
        (&self.raw_key, self.epoch, self.packet)
    }

    /// Messages this cipher may still process.
    pub(crate) fn left(&self) -> u64 {
        messages_left(self.packet, self.epoch)
    }

    fn check(&self) -> Result<(), Error> {
        if self.left() == 0 {
            Err(Error::Exhausted)
        } else {
            Ok(())
        }
    }

    fn advance(&mut self) {
        self.packet += 1;
        if self.packet == REKEY_INTERVAL {
            *self = Self::at(
                next_packet_key(&self.raw_key, self.epoch),
                self.epoch + 1,
                0,
            );
        }
    }

    /// Moves the cipher forward by `n` messages, as `n` seals or opens
    /// would. Nothing changes on error.
    ///
    /// # Errors
    ///
    /// [`Error::Exhausted`] when fewer than `n` messages are left.
    pub(crate) fn skip(&mut self, n: u64) -> Result<(), Error> {
        if n > self.left() {
            return Err(Error::Exhausted);
        }
        let (key, epoch, packet) =
            skip_key(&self.raw_key, self.epoch, self.packet, n, next_packet_key);
        if epoch == self.epoch {
            self.packet = packet;
        } else {
            *self = Self::at(key, epoch, packet);
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The next-key functions against the ciphers' own definitions: the
    /// tail of the 704-byte epoch stream, and the AEAD encryption of 32
    /// zero bytes.
    #[test]
    fn rekey_functions_follow_the_definitions() {
        let key = Secret::new([0x5au8; 32]);
        for epoch in [0u64, 1, 0x0102_0304_0506_0708, u64::MAX - 1] {
            let mut stream = [0u8; EPOCH_STREAM];
            raw::keystream(key.expose(), &nonce(0, epoch), 0, &mut stream);
            assert_eq!(
                next_length_key(&key, epoch).expose()[..],
                stream[EPOCH_STREAM - 32..]
            );
            let mut zeros = [0u8; 32];
            let _ = ChaChaKey::new(key.expose()).seal_in_place(
                &nonce(u32::MAX, epoch),
                b"",
                &mut zeros,
            );
            assert_eq!(next_packet_key(&key, epoch).expose(), &zeros);
        }
    }

    /// `skip(n)` lands where `n` single steps land, across epochs.
    #[test]
    fn skip_equals_single_steps() {
        let key = Secret::new([7u8; 32]);
        for n in [0u64, 1, 223, 224, 225, 447, 448, 1000] {
            let mut stepped = FsChaCha20::new(&key);
            let mut aead = FsChaCha20Poly1305::new(&key);
            for _ in 0..n {
                stepped.crypt(&mut [0u8; 3]).unwrap();
                aead.seal(b"", &mut []).unwrap();
            }
            let mut skipped = FsChaCha20::new(&key);
            skipped.skip(n).unwrap();
            let mut aead_skipped = FsChaCha20Poly1305::new(&key);
            aead_skipped.skip(n).unwrap();
            let (k1, e1, c1) = stepped.position();
            let (k2, e2, c2) = skipped.position();
            assert_eq!((k1.expose(), e1, c1), (k2.expose(), e2, c2), "{n}");
            assert_eq!(stepped.stream.expose(), skipped.stream.expose(), "{n}");
            let (k1, e1, c1) = aead.position();
            let (k2, e2, c2) = aead_skipped.position();
            assert_eq!((k1.expose(), e1, c1), (k2.expose(), e2, c2), "{n}");
        }
    }

    /// The last epoch: 223 messages, then `Exhausted`, for single steps and
    /// for `skip` alike.
    #[test]
    fn exhaustion_is_the_same_for_steps_and_skips() {
        let key = Secret::new([1u8; 32]);
        let mut len = FsChaCha20::at(Secret::new([1u8; 32]), u64::MAX - 1, 220);
        assert_eq!(len.left(), 4 + 223);
        assert_eq!(len.skip(228), Err(Error::Exhausted));
        len.skip(227).unwrap();
        assert_eq!(len.crypt(&mut [0u8; 3]), Err(Error::Exhausted));
        let mut aead = FsChaCha20Poly1305::at(copy_key(&key), u64::MAX, 222);
        assert_eq!(aead.left(), 1);
        aead.seal(b"", &mut []).unwrap();
        assert_eq!(aead.seal(b"", &mut []), Err(Error::Exhausted));
        assert_eq!(aead.skip(1), Err(Error::Exhausted));
        assert_eq!(messages_left(0, 0), u64::MAX);
    }
}
