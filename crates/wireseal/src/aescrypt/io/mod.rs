//! `std::io` adapters over the sans-IO [`Encryptor`](super::Encryptor) and
//! [`Decryptor`]: a [`Write`](std::io::Write)r that encrypts
//! ([`EncryptWriter`]), one pass from any [`Read`] to any
//! [`Write`](std::io::Write) ([`encrypt_stream`]), one pass from any
//! [`Read`] into a [`ProvisionalSink`] ([`decrypt_into_sink`]), a [`Read`]er that releases
//! only verified plaintext from a seekable input ([`SeekDecryptor`], over
//! the sans-IO [`VerifyPass`](super::VerifyPass) and
//! [`ReleasePass`](super::ReleasePass)),
//! and [`read_header`], all over the caller's streams: nothing here opens a
//! file (the drivers' output file, written beside its target and renamed into
//! place, is `wireseal_io::PartialFile`). The I/O overlaps the crypto on the
//! caller's [`Batch`]. Everything here fails with this
//! module's [`Error`]: the format's error or the I/O's.

mod error;
mod seek;
mod writer;

pub use error::Error;
pub use seek::SeekDecryptor;
pub use writer::{encrypt_stream, EncryptWriter};

use super::header::{Header, Limits};
use super::header_parser::HeaderParser;
use super::options::CHUNK;
use super::sink::ProvisionalSink;
use super::{Decrypted, Decryptor};
use crate::batch::Batch;
use std::io::{self, Read};

/// Reads up to `max` bytes into `buf` (from its start) until `max` are in
/// or the input ends; returns the bytes read. `buf` grows as data arrives,
/// so a short input touches little memory.
pub(crate) fn read_up_to<R: Read + ?Sized>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<usize> {
    let mut n = 0;
    loop {
        if n == buf.len() {
            if n >= max {
                return Ok(n);
            }
            buf.resize((2 * n).clamp(16 << 10, max), 0);
        }
        let end = buf.len().min(max);
        match r.read(&mut buf[n..end]) {
            Ok(0) => return Ok(n),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The second buffer of a double-buffered pass, made after the first read:
/// as long as the first grew, so a long input is read a whole chunk per
/// call from then on (one call into Python per chunk for a Python stream)
/// rather than growing again from 16 KiB.
pub(crate) fn twin(first: &[u8]) -> Vec<u8> {
    vec![0; first.len()]
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads exactly one header from `r` (never reading past it), one field at
/// a time: time is linear in the header's length, and at most
/// [`Limits::max_header_len`] bytes and [`Limits::max_extensions`]
/// extensions are accepted.
///
/// # Errors
///
/// As [`parse_header`](super::parse_header),
/// [`Truncated`](super::Error::Truncated) when the input ends inside the
/// header, or [`Error::Io`].
pub fn read_header<R: Read>(r: &mut R, limits: &Limits) -> Result<Header, Error> {
    let mut p = HeaderParser::new(limits);
    let mut field = vec![0u8; 16];
    loop {
        let n = p.need();
        if field.len() < n {
            field.resize(n, 0);
        }
        let got = read_full(r, &mut field[..n])?;
        if got < n {
            // Report a wrong magic before truncation.
            p.check_partial(&field[..got])?;
            return Err(p.truncated(got).into());
        }
        if let Some(h) = p.feed(&field[..n])? {
            return Ok(h);
        }
    }
}

/// One pass: decrypts `input` into a [`ProvisionalSink`] with a
/// [`Decryptor`], reading the next [`CHUNK`] while the current one is
/// decrypted, then calling [`ProvisionalSink::commit`] on success or
/// [`ProvisionalSink::discard`] on any error.
///
/// This is the fastest path (one read of the input, bounded memory, any
/// input), but the sink receives all but the final block before the HMAC is
/// known; see [`ProvisionalSink`] for what that obliges the sink to do.
///
/// # Errors
///
/// As [`Decryptor::update`] and [`Decryptor::finish`], or [`Error::Io`]
/// when reading fails.
pub fn decrypt_into_sink<R, S>(
    batch: &Batch,
    password: &str,
    input: R,
    sink: &mut S,
    limits: &Limits,
) -> Result<Decrypted, Error>
where
    R: Read + Send,
    S: ProvisionalSink + Send + ?Sized,
    S::Error: Into<Error>,
{
    decrypt_into_sink_with(batch, Decryptor::new(password, limits), input, sink)
}

/// [`decrypt_into_sink`] with a [`Decryptor`] made by the caller (one
/// whose password key comes from [`StretchedKeys`](super::StretchedKeys)
/// shared by many streams, or that was offered a
/// [`StretchedKey`](super::StretchedKey)), not yet fed.
///
/// # Errors
///
/// As [`decrypt_into_sink`].
pub fn decrypt_into_sink_with<R, S>(
    batch: &Batch,
    mut dec: Decryptor,
    mut input: R,
    sink: &mut S,
) -> Result<Decrypted, Error>
where
    R: Read + Send,
    S: ProvisionalSink + Send + ?Sized,
    S::Error: Into<Error>,
{
    let mut x = Vec::new();
    let mut have = match read_up_to(&mut input, &mut x, CHUNK) {
        Ok(n) => n,
        Err(e) => {
            sink.discard();
            return Err(e.into());
        }
    };
    let mut y = twin(&x);
    while have > 0 {
        let mut next = Ok(0);
        let (inp, ys) = (&mut input, &mut y);
        batch
            .overlap(
                || next = read_up_to(inp, ys, CHUNK),
                || dec.update(batch, &x[..have], sink),
            )
            .map_err(Into::into)?;
        have = match next {
            Ok(n) => n,
            Err(e) => {
                sink.discard();
                return Err(e.into());
            }
        };
        std::mem::swap(&mut x, &mut y);
    }
    dec.finish(sink).map_err(Into::into)
}
