//! [`EncryptWriter`]: an [`Encryptor`] as a [`Write`] over any writer.

use crate::aescrypt::error::Error;
use crate::aescrypt::options::EncryptOptions;
use crate::aescrypt::session::SessionMaterial;
use crate::aescrypt::Encryptor;
use crate::batch::Batch;
use std::io::{self, Write};

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
    ) -> Result<Self, Error> {
        Self::with_material(batch, out, password, opts, SessionMaterial::generate())
    }

    /// As [`EncryptWriter::new`] with caller-supplied per-file randomness
    /// (for known-answer tests; see [`Encryptor::with_material`]).
    ///
    /// # Errors
    ///
    /// As [`Encryptor::new`].
    pub fn with_material(
        batch: &'b Batch,
        out: W,
        password: &str,
        opts: &EncryptOptions,
        material: SessionMaterial,
    ) -> Result<Self, Error> {
        Ok(Self {
            batch,
            out,
            enc: Encryptor::with_material(password, opts, material)?,
            poisoned: false,
        })
    }

    fn check(&self) -> io::Result<()> {
        if self.poisoned {
            Err(io::Error::other("aescrypt encryptor failed earlier"))
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
