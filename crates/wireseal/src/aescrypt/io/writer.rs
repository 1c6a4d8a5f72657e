//! [`EncryptWriter`]: an [`Encryptor`] as a [`Write`] over any writer.

use super::Error;
use super::{read_up_to, twin};
use crate::aescrypt::error::Error as FormatError;
use crate::aescrypt::key::PasswordKey;
use crate::aescrypt::options::EncryptOptions;
use crate::aescrypt::options::CHUNK;
use crate::aescrypt::session::SessionMaterial;
use crate::aescrypt::Encryptor;
use crate::batch::Batch;
use std::io::{self, Read, Write};
use zeroize::Zeroizing;

/// Streaming encryption into any writer: write plaintext in, call
/// [`finish`](Self::finish) to write the padding and the HMAC. Each chunk
/// is written (and authenticated) on this thread while the next one is
/// CBC-encrypted on the caller's [`Batch`], so the writer need not be
/// `Send`.
///
/// Dropping it without `finish` leaves an incomplete stream (which no
/// reader accepts). An error from the inner writer poisons it: later calls
/// fail.
pub struct EncryptWriter<'b, W: Write> {
    batch: &'b Batch,
    out: W,
    enc: Encryptor,
    poisoned: bool,
}

impl<'b, W: Write> EncryptWriter<'b, W> {
    /// Derives the password key (slow for version 3 by design) and writes
    /// the header and session block to `out` with the first data.
    ///
    /// # Errors
    ///
    /// As [`Encryptor::new`].
    pub fn new(
        batch: &'b Batch,
        out: W,
        password: &str,
        opts: &EncryptOptions,
    ) -> Result<Self, FormatError> {
        Ok(Self::from_encryptor(
            batch,
            out,
            Encryptor::new(password, opts)?,
        ))
    }

    /// A writer for one more stream under a password stretched once (see
    /// [`PasswordKey`]): no key derivation.
    pub fn from_key(batch: &'b Batch, out: W, key: &PasswordKey) -> Self {
        Self::from_encryptor(batch, out, Encryptor::from_key(key))
    }

    crate::visibility::pub_if_test_vectors! {
        /// As [`EncryptWriter::new`] with caller-chosen per-file values, for
        /// known-answer tests only (see `Encryptor::from_material`).
        ///
        /// # Errors
        ///
        /// As [`Encryptor::new`].
        fn from_material(
            batch: &'b Batch,
            out: W,
            password: &str,
            opts: &EncryptOptions,
            material: SessionMaterial,
        ) -> Result<Self, FormatError> {
            let enc = Encryptor::from_material(password, opts, material)?;
            Ok(Self::from_encryptor(batch, out, enc))
        }
    }

    fn from_encryptor(batch: &'b Batch, out: W, enc: Encryptor) -> Self {
        Self {
            batch,
            out,
            enc,
            poisoned: false,
        }
    }

    fn check(&self) -> io::Result<()> {
        if self.poisoned {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                FormatError::Poisoned,
            ))
        } else {
            Ok(())
        }
    }

    /// Pads, encrypts the rest, writes the trailer, flushes, and returns
    /// the writer.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] from the writer (or from an earlier failed write).
    pub fn finish(mut self) -> Result<W, Error> {
        self.check()?;
        let out = &mut self.out;
        self.enc.finish_with(&mut |c| out.write_all(c))?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for EncryptWriter<'_, W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.check()?;
        let out = &mut self.out;
        let r = self
            .enc
            .update_with(self.batch, data, &mut |c| out.write_all(c));
        match r {
            Ok(()) => Ok(data.len()),
            Err(e) => {
                self.poisoned = true;
                Err(e)
            }
        }
    }

    /// Flushes the inner writer (buffered plaintext stays buffered until a
    /// chunk fills or [`EncryptWriter::finish`]).
    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        self.out.flush()
    }
}

/// Encrypts everything `input` yields into `output` with `enc` and returns
/// `output`, flushed: one [`CHUNK`] at a time, reading the next chunk and
/// writing the last one on this thread while the current one is
/// CBC-encrypted on the caller's [`Batch`]. Plaintext buffers are wiped.
///
/// # Errors
///
/// [`Error::Io`] when reading or writing fails; what was written is an
/// incomplete stream (which no reader accepts).
pub fn encrypt_stream<R: Read, W: Write>(
    batch: &Batch,
    mut enc: Encryptor,
    mut input: R,
    mut output: W,
) -> Result<W, Error> {
    let mut cur = Zeroizing::new(Vec::new());
    let mut have = read_up_to(&mut input, &mut cur, CHUNK)?;
    let mut next = Zeroizing::new(twin(&cur));
    while have > 0 {
        let mut read: Option<io::Result<usize>> = None;
        let (inp, out, nx) = (&mut input, &mut output, &mut next);
        enc.update_with(batch, &cur[..have], &mut |c| {
            out.write_all(c)?;
            if read.is_none() {
                read = Some(read_up_to(inp, nx, CHUNK));
            }
            Ok::<(), io::Error>(())
        })?;
        have = match read {
            Some(r) => r?,
            None => read_up_to(&mut input, &mut next, CHUNK)?,
        };
        std::mem::swap(&mut cur, &mut next);
    }
    enc.finish_with(&mut |c| output.write_all(c))?;
    output.flush()?;
    Ok(output)
}
