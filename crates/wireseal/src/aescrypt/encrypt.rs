//! Writing version 2 and 3 streams, sans-IO: an [`Encryptor`] fed with
//! plaintext that appends ciphertext to a caller's vector or writes it into
//! a caller's buffer, plus the one-shot [`encrypt_to_vec`] and
//! [`encrypt_into`].
//!
//! The body is processed in [`CHUNK`]-byte chunks, each CBC-encrypted in
//! place in the encryptor's own buffer. With more than one thread in the
//! caller's [`Batch`], chunk *i* is encrypted on a batch thread while this
//! thread computes the HMAC over chunk *i-1*, hands it out (appends it to
//! the output, or writes it in
//! [`io::EncryptWriter`](super::io::EncryptWriter)) and copies chunk *i+1*
//! of the caller's plaintext into the buffer chunk *i-1* leaves free, so
//! the HMAC, the output and the copy hide behind the (serial) CBC
//! encryption.

use super::error::Error;
use super::header::Version;
use super::header_writer::write_header;
use super::kdf;
use super::key::PasswordKey;
use super::options::{encrypted_len, EncryptOptions, CHUNK};
use super::session::{seal_session, SessionMaterial};
use crate::batch::Batch;
use crate::primitives::aes_cbc::{Aes256CbcEnc, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::secret::Secret;
use core::convert::Infallible;
use zeroize::Zeroizing;

/// The sans-IO writer: [`update`](Self::update) with plaintext in pieces of
/// any size, then [`finish`](Self::finish); each appends the ciphertext
/// that is ready to the caller's vector. Memory stays at about two
/// [`CHUNK`]s whatever the size of the input.
pub struct Encryptor {
    version: Version,
    cbc: Aes256CbcEnc,
    mac: HmacSha256Stream,
    /// Header and session block, until the first output.
    head: Vec<u8>,
    /// Plaintext of the next chunk, encrypted in place once full. The two
    /// buffers trade places after each chunk and hold plaintext in turn
    /// (wiped on drop); they grow as they are used, so a small stream
    /// touches little memory.
    stage: Zeroizing<Vec<u8>>,
    stage_len: usize,
    /// Ciphertext of the last chunk, not yet authenticated nor output.
    prev: Zeroizing<Vec<u8>>,
    prev_len: usize,
}

impl core::fmt::Debug for Encryptor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Encryptor(redacted)")
    }
}

impl Encryptor {
    /// Derives the password key (slow for version 3 by design) and prepares
    /// the header and session block, output by the first call.
    ///
    /// # Errors
    ///
    /// [`Error::CannotWriteVersion`] or [`Error::InvalidExtension`] for
    /// options a reader would refuse.
    pub fn new(password: &str, opts: &EncryptOptions) -> Result<Self, Error> {
        opts.check()?;
        let m = SessionMaterial::generate();
        let pkey = kdf::derive(opts.version, password, &m.public_iv, opts.iterations);
        Ok(Self::build(opts, &pkey, &m))
    }

    /// An encryptor for one more stream under a password stretched once
    /// (see [`PasswordKey`]): a fresh session IV and key, no key
    /// derivation.
    pub fn from_key(key: &PasswordKey) -> Self {
        Self::build(key.options(), key.secret(), &key.material())
    }

    crate::visibility::pub_if_test_vectors! {
        /// As [`Encryptor::new`] with caller-chosen per-file values, for
        /// known-answer tests only: reusing material across files breaks
        /// the format's security.
        ///
        /// # Errors
        ///
        /// As [`Encryptor::new`].
        fn from_material(
            password: &str,
            opts: &EncryptOptions,
            material: SessionMaterial,
        ) -> Result<Self, Error> {
            opts.check()?;
            let pkey = kdf::derive(opts.version, password, &material.public_iv, opts.iterations);
            Ok(Self::build(opts, &pkey, &material))
        }
    }

    fn build(opts: &EncryptOptions, pkey: &Secret<32>, material: &SessionMaterial) -> Self {
        let mut head = Vec::with_capacity(opts.prefix_len());
        write_header(
            &mut head,
            opts.version,
            &opts.extensions,
            opts.iterations,
            &material.public_iv,
        );
        head.extend_from_slice(&seal_session(opts.version, pkey, material));
        Self {
            version: opts.version,
            cbc: Aes256CbcEnc::new(material.session_key.expose(), &material.session_iv),
            mac: HmacSha256Stream::new(material.session_key.expose()),
            head,
            stage: Zeroizing::new(Vec::new()),
            stage_len: 0,
            prev: Zeroizing::new(Vec::new()),
            prev_len: 0,
        }
    }

    /// Encrypts `plaintext`, appending the ciphertext that is ready to
    /// `out` (the header first; body chunks one [`CHUNK`] behind).
    pub fn update(&mut self, batch: &Batch, plaintext: &[u8], out: &mut Vec<u8>) {
        let r: Result<(), Infallible> = self.update_with(batch, plaintext, &mut |c| {
            out.extend_from_slice(c);
            Ok(())
        });
        let Ok(()) = r;
    }

    /// Pads, encrypts the rest and appends it with the trailer to `out`.
    pub fn finish(self, out: &mut Vec<u8>) {
        let r: Result<(), Infallible> = self.finish_with(&mut |c| {
            out.extend_from_slice(c);
            Ok(())
        });
        let Ok(()) = r;
    }

    /// Exactly how many bytes [`update_into`](Self::update_into) (or
    /// [`update`](Self::update)) writes for `plaintext_len` more bytes of
    /// plaintext: the header on the first call, then whole chunks, one
    /// [`CHUNK`] behind the input.
    pub fn update_len(&self, plaintext_len: usize) -> usize {
        let pushes = self.stage_len.saturating_add(plaintext_len) / CHUNK;
        let body = match pushes {
            0 => 0,
            k => self.prev_len + (k - 1).saturating_mul(CHUNK),
        };
        self.head.len().saturating_add(body)
    }

    /// Encrypts `plaintext` into `out`, which must hold
    /// [`update_len`](Self::update_len) bytes; returns the bytes written.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `out` is shorter than that; nothing
    /// was consumed then.
    pub fn update_into(
        &mut self,
        batch: &Batch,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let need = self.update_len(plaintext.len());
        let dst = out
            .get_mut(..need)
            .ok_or(Error::BufferTooSmall { required: need })?;
        let mut at = 0;
        let r: Result<(), Infallible> = self.update_with(batch, plaintext, &mut |c| {
            dst[at..at + c.len()].copy_from_slice(c);
            at += c.len();
            Ok(())
        });
        let Ok(()) = r;
        debug_assert_eq!(at, need, "update_len matches what was written");
        Ok(at)
    }

    /// Exactly how many bytes [`finish_into`](Self::finish_into) (or
    /// [`finish`](Self::finish)) writes: what is still held, the padding
    /// and the trailer.
    pub fn finish_len(&self) -> usize {
        let rem = self.stage_len;
        let padded = match self.version {
            Version::V3 => rem / BLOCK * BLOCK + BLOCK,
            _ => rem.div_ceil(BLOCK) * BLOCK,
        };
        self.head.len() + self.prev_len + padded + self.version.trailer_len()
    }

    /// Pads and encrypts the rest into `out`, which must hold
    /// [`finish_len`](Self::finish_len) bytes; returns the bytes written.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `out` is shorter than that (the
    /// stream cannot be finished then: size `out` with `finish_len`).
    pub fn finish_into(self, out: &mut [u8]) -> Result<usize, Error> {
        let need = self.finish_len();
        let dst = out
            .get_mut(..need)
            .ok_or(Error::BufferTooSmall { required: need })?;
        let mut at = 0;
        let r: Result<(), Infallible> = self.finish_with(&mut |c| {
            dst[at..at + c.len()].copy_from_slice(c);
            at += c.len();
            Ok(())
        });
        let Ok(()) = r;
        debug_assert_eq!(at, need, "finish_len matches what was written");
        Ok(at)
    }

    /// As [`Encryptor::update`], handing each piece of ciphertext to `emit`
    /// on this thread (overlapped with the next chunk's CBC) instead of
    /// copying it into a vector.
    pub(crate) fn update_with<E>(
        &mut self,
        batch: &Batch,
        plaintext: &[u8],
        emit: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.head.is_empty() {
            emit(&self.head)?;
            self.head.clear();
        }
        let take = (CHUNK - self.stage_len).min(plaintext.len());
        grow(&mut self.stage, self.stage_len + take);
        self.stage[self.stage_len..self.stage_len + take].copy_from_slice(&plaintext[..take]);
        self.stage_len += take;
        let mut rest = &plaintext[take..];
        while self.stage_len == CHUNK {
            rest = self.push_chunk(batch, rest, emit)?;
        }
        Ok(())
    }

    /// Encrypts the full stage in place while the previous chunk is
    /// authenticated and emitted and up to a [`CHUNK`] of `rest` is copied
    /// into its buffer, which becomes the next stage; returns what is left
    /// of `rest`.
    fn push_chunk<'r, E>(
        &mut self,
        batch: &Batch,
        rest: &'r [u8],
        emit: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<&'r [u8], E> {
        let Self {
            cbc,
            mac,
            stage,
            prev,
            prev_len,
            ..
        } = self;
        let take = rest.len().min(CHUNK);
        let done = *prev_len;
        let r = batch.overlap(
            || cbc.encrypt_in_place(&mut stage[..CHUNK]),
            || {
                mac.update(&prev[..done]);
                let r = emit(&prev[..done]);
                grow(prev, take);
                prev[..take].copy_from_slice(&rest[..take]);
                r
            },
        );
        std::mem::swap(stage, prev);
        *prev_len = CHUNK;
        self.stage_len = take;
        r.map(|()| &rest[take..])
    }

    /// As [`Encryptor::finish`], handing the ciphertext to `emit`.
    pub(crate) fn finish_with<E>(
        mut self,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.head.is_empty() {
            emit(&self.head)?;
        }
        let rem = self.stage_len;
        let pad = match self.version {
            Version::V3 => BLOCK - rem % BLOCK,
            _ => (BLOCK - rem % BLOCK) % BLOCK,
        };
        let total = rem + pad;
        grow(&mut self.stage, total);
        self.stage[rem..total].fill(pad as u8);
        let last = &mut self.stage[..total];
        self.cbc.encrypt_in_place(last);
        self.mac.update(&self.prev[..self.prev_len]);
        emit(&self.prev[..self.prev_len])?;
        self.mac.update(last);
        emit(last)?;
        if self.version != Version::V3 {
            emit(&[(rem % BLOCK) as u8])?;
        }
        let mac = std::mem::replace(&mut self.mac, HmacSha256Stream::new(&[]));
        emit(&mac.finalize())
    }
}

/// Makes `buf` at least `len` bytes long (zero-filled). A buffer that must
/// move to grow is copied and the old one wiped (it may hold plaintext).
fn grow(buf: &mut Zeroizing<Vec<u8>>, len: usize) {
    if buf.len() >= len {
        return;
    }
    if buf.capacity() < len {
        let mut bigger = Zeroizing::new(Vec::with_capacity(
            len.next_power_of_two().min(CHUNK).max(len),
        ));
        bigger.extend_from_slice(buf);
        *buf = bigger;
    }
    buf.resize(len, 0);
}

/// Encrypts `plaintext` into a new vector.
///
/// # Errors
///
/// As [`Encryptor::new`].
pub fn encrypt_to_vec(
    batch: &Batch,
    password: &str,
    plaintext: &[u8],
    opts: &EncryptOptions,
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(encrypted_len(opts, plaintext.len()));
    let mut e = Encryptor::new(password, opts)?;
    e.update(batch, plaintext, &mut out);
    e.finish(&mut out);
    Ok(out)
}

/// Encrypts `plaintext` into `out` (see [`encrypted_len`]); returns the
/// number of bytes written.
///
/// # Errors
///
/// [`Error::BufferTooSmall`] when `out` is shorter than [`encrypted_len`],
/// otherwise as [`Encryptor::new`].
pub fn encrypt_into(
    batch: &Batch,
    password: &str,
    plaintext: &[u8],
    opts: &EncryptOptions,
    out: &mut [u8],
) -> Result<usize, Error> {
    let need = encrypted_len(opts, plaintext.len());
    let Some(dst) = out.get_mut(..need) else {
        return Err(Error::BufferTooSmall { required: need });
    };
    let mut e = Encryptor::new(password, opts)?;
    let mut at = 0;
    // `dst` holds exactly `encrypted_len` bytes, what the encryptor emits.
    let mut emit = |c: &[u8]| -> Result<(), Infallible> {
        dst[at..at + c.len()].copy_from_slice(c);
        at += c.len();
        Ok(())
    };
    let Ok(()) = e.update_with(batch, plaintext, &mut emit);
    let Ok(()) = e.finish_with(&mut emit);
    debug_assert_eq!(at, need, "encrypted_len matches what was written");
    Ok(need)
}
