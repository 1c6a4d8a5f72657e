//! [`SeekDecryptor`]: verify the whole stream, then read it, releasing each
//! chunk only after it matched what was verified: the sans-IO
//! [`VerifyPass`] and [`ReleasePass`] over a seekable reader.

use super::{read_up_to, twin, Error};
use crate::aescrypt::error::Error as FormatError;
use crate::aescrypt::header::{Header, Limits};
use crate::aescrypt::key::StretchedKeys;
use crate::aescrypt::options::CHUNK;
use crate::aescrypt::two_pass::{ReleasePass, VerifyPass};
use crate::batch::Batch;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use zeroize::Zeroize;

/// A [`Read`] over the plaintext of a seekable stream that releases only
/// verified plaintext.
///
/// [`SeekDecryptor::new`] reads the stream once with a [`VerifyPass`]: it
/// checks the password and the body HMAC, recording a SHA-256 digest of
/// every [`CHUNK`] of ciphertext (32 bytes of memory per MiB of input), and
/// fails with [`Auth`](FormatError::Auth) unless the HMAC matched. Reads
/// then decrypt in a second pass ([`ReleasePass`]), and each chunk is
/// released only after its ciphertext matched the digest recorded in the
/// first pass, so an input rewritten between the passes yields an error
/// ([`io::ErrorKind::InvalidData`] carrying
/// [`InputChanged`](FormatError::InputChanged)) and never modified
/// plaintext. After any error, every later read fails.
pub struct SeekDecryptor<'b, R: Read + Seek> {
    batch: &'b Batch,
    inner: R,
    /// The second pass; `None` once it ended (or failed).
    release: Option<ReleasePass>,
    header: Header,
    plaintext_len: u64,
    failed: bool,
    /// Ciphertext read for the second pass.
    ct: Vec<u8>,
    /// Verified plaintext not yet read.
    out: Vec<u8>,
    pos: usize,
}

impl<'b, R: Read + Seek> SeekDecryptor<'b, R> {
    /// Verifies the stream that starts at the current position and ends at
    /// the end of the input: parses the header, checks the password
    /// ([`WrongPassword`](FormatError::WrongPassword)) and the body HMAC
    /// ([`Auth`](FormatError::Auth)), recording a digest of each chunk,
    /// then rewinds to the stream's start.
    ///
    /// # Errors
    ///
    /// As [`VerifyPass::update`] and [`VerifyPass::finish`], or
    /// [`Error::Io`] when reading or seeking fails.
    pub fn new(batch: &'b Batch, inner: R, password: &str, limits: &Limits) -> Result<Self, Error> {
        Self::verified(batch, inner, VerifyPass::new(password, limits))
    }

    /// As [`SeekDecryptor::new`], the password key coming from `keys`
    /// (stretched once for every stream that shares its salt; see
    /// [`StretchedKeys`]).
    ///
    /// # Errors
    ///
    /// As [`SeekDecryptor::new`].
    pub fn with_keys(
        batch: &'b Batch,
        inner: R,
        keys: Arc<StretchedKeys>,
        limits: &Limits,
    ) -> Result<Self, Error> {
        Self::verified(batch, inner, VerifyPass::with_keys(keys, limits))
    }

    /// Runs the first pass `verify` over the stream, then rewinds.
    fn verified(batch: &'b Batch, mut inner: R, mut verify: VerifyPass) -> Result<Self, Error> {
        let start = inner.stream_position()?;
        // Hash this chunk on a thread of the batch while this thread reads
        // the next.
        let mut x = Vec::new();
        let mut have = read_up_to(&mut inner, &mut x, CHUNK)?;
        let mut y = twin(&x);
        while have > 0 {
            let mut hashed = Ok(());
            let (v, xs) = (&mut verify, &x[..have]);
            let next = batch.overlap(
                || hashed = v.update(batch, xs),
                || read_up_to(&mut inner, &mut y, CHUNK),
            );
            hashed?;
            have = next?;
            std::mem::swap(&mut x, &mut y);
        }
        let release = verify.finish()?;
        inner.seek(SeekFrom::Start(start))?;
        // Room for the largest chunk up front: a vector that grew would
        // leave unwiped copies of plaintext behind.
        let most = usize::try_from(release.plaintext_len()).map_or(CHUNK, |n| n.min(CHUNK));
        Ok(Self {
            batch,
            inner,
            header: release.header().clone(),
            plaintext_len: release.plaintext_len(),
            release: Some(release),
            failed: false,
            ct: x,
            out: Vec::with_capacity(most),
            pos: 0,
        })
    }

    /// The stream's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Total plaintext length (known after the first pass).
    pub fn plaintext_len(&self) -> u64 {
        self.plaintext_len
    }

    /// Reads the next piece of the stream into the second pass, until it
    /// released plaintext or ended.
    fn fill(&mut self) -> Result<(), Error> {
        self.out.zeroize();
        self.pos = 0;
        while self.out.is_empty() {
            let Some(release) = self.release.as_mut() else {
                return Ok(());
            };
            let want = release.next_len();
            let got = if want == 0 {
                // The whole stream was read again: anything after it was
                // not there in the first pass.
                read_up_to(&mut self.inner, &mut self.ct, 1)?
            } else {
                read_up_to(&mut self.inner, &mut self.ct, want)?
            };
            if got == 0 {
                if let Some(r) = self.release.take() {
                    r.finish()?;
                }
                return Ok(());
            }
            release.update(self.batch, &self.ct[..got], &mut self.out)?;
        }
        Ok(())
    }
}

impl<R: Read + Seek> Read for SeekDecryptor<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.failed {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    FormatError::Poisoned,
                ));
            }
            if self.pos < self.out.len() {
                let n = (self.out.len() - self.pos).min(buf.len());
                buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.release.is_none() {
                return Ok(0);
            }
            if let Err(e) = self.fill() {
                self.failed = true;
                self.release = None;
                self.out.zeroize();
                return Err(e.into());
            }
        }
    }
}

impl<R: Read + Seek> Drop for SeekDecryptor<'_, R> {
    fn drop(&mut self) {
        self.out.zeroize();
    }
}
