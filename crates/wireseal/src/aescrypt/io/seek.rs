//! [`SeekDecryptor`]: verify the whole stream, then read it, releasing each
//! chunk only after it matched what was verified.

use super::{read_exact_or, read_header, Error};
use crate::aescrypt::body::{
    body_len, check_tag, decrypt_blocks, final_len, last_block, prefix_len, Trailer,
};
use crate::aescrypt::error::Error as FormatError;
use crate::aescrypt::header::{Header, Limits, Version, SESSION_BLOCK_LEN};
use crate::aescrypt::options::CHUNK;
use crate::aescrypt::session::unlock;
use crate::batch::Batch;
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_b2b, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::primitives::sha::{ct_eq, sha256};
use crate::secret::Secret;
use std::io::{self, Read, Seek, SeekFrom};
use zeroize::Zeroize;

/// A [`Read`] over the plaintext of a seekable stream that releases only
/// verified plaintext.
///
/// [`SeekDecryptor::new`] checks the password, then makes a first pass over
/// the body computing its HMAC and a SHA-256 digest of every [`CHUNK`] of
/// ciphertext (32 bytes of memory per MiB of input), and fails with
/// [`Auth`](FormatError::Auth) unless the HMAC matched. Reads then decrypt
/// in a second pass, and each chunk is released only after its ciphertext
/// matched the digest recorded in the first pass, so an input rewritten
/// between the passes yields an error ([`io::ErrorKind::InvalidData`]
/// carrying [`InputChanged`](FormatError::InputChanged)) and never modified
/// plaintext. After any error, every later read fails.
pub struct SeekDecryptor<'b, R: Read + Seek> {
    batch: &'b Batch,
    inner: R,
    header: Header,
    key: Secret<32>,
    chain: [u8; 16],
    left: u64,
    final_keep: usize,
    plaintext_len: u64,
    /// SHA-256 of each ciphertext chunk, recorded in the first pass.
    digests: Vec<[u8; 32]>,
    next_chunk: usize,
    failed: bool,
    ct: Vec<u8>,
    out: Vec<u8>,
    pos: usize,
    end: usize,
}

impl<'b, R: Read + Seek> SeekDecryptor<'b, R> {
    /// Parses the header at the current position, checks the password
    /// ([`WrongPassword`](FormatError::WrongPassword)) and the body HMAC
    /// ([`Auth`](FormatError::Auth)), recording a digest of each chunk, then
    /// rewinds to the body.
    ///
    /// # Errors
    ///
    /// As [`Decryptor::finish`](crate::aescrypt::Decryptor::finish), or
    /// [`Error::Io`] when reading or seeking fails.
    pub fn new(
        batch: &'b Batch,
        mut inner: R,
        password: &str,
        limits: &Limits,
    ) -> Result<Self, Error> {
        let header = read_header(&mut inner, limits)?;
        let v = header.version;
        let mut blk = [0u8; SESSION_BLOCK_LEN];
        if v != Version::V0 {
            read_exact_or(&mut inner, &mut blk, header.len)?;
        }
        let (chain, key) = unlock(&header, password, &blk)?;
        let start = inner.stream_position()?;
        let end = inner.seek(SeekFrom::End(0))?;
        let blen = body_len(&header, end.saturating_sub(start))?;
        let mut trailer = [0u8; 33];
        let trailer = &mut trailer[..v.trailer_len()];
        inner.seek(SeekFrom::Start(start + blen))?;
        let at = prefix_len(&header).saturating_add(usize::try_from(blen).unwrap_or(usize::MAX));
        read_exact_or(&mut inner, trailer, at)?;
        let trailer = Trailer::parse(&header, trailer);
        // Pass 1: the HMAC and a digest per chunk, keeping the last two blocks.
        inner.seek(SeekFrom::Start(start))?;
        let mut ct = vec![0u8; CHUNK];
        let mut mac = HmacSha256Stream::new(key.expose());
        let mut digests = Vec::new();
        let mut left = blen;
        let mut tail = [0u8; 32];
        let mut at = prefix_len(&header);
        while left > 0 {
            let n = (left.min(CHUNK as u64)) as usize;
            read_exact_or(&mut inner, &mut ct[..n], at)?;
            let chunk = &ct[..n];
            let mut digest = [0u8; 32];
            batch.overlap(|| digest = sha256(chunk), || mac.update(chunk));
            digests.push(digest);
            if n >= 32 {
                tail.copy_from_slice(&ct[n - 32..n]);
            } else {
                tail.copy_within(n.., 0);
                tail[32 - n..].copy_from_slice(&ct[..n]);
            }
            left -= n as u64;
            at += n;
        }
        check_tag(mac.finalize(), trailer.tag)?;
        let final_keep = if blen == 0 {
            0
        } else {
            let iv: [u8; 16] = if blen == 16 {
                chain
            } else {
                tail[..16].try_into().unwrap_or(chain)
            };
            let mut last = [0u8; 16];
            aes256_cbc_decrypt_b2b(key.expose(), &iv, &tail[16..], &mut last);
            let keep = final_len(v, trailer.size_mod, &last);
            last.zeroize();
            keep?
        };
        inner.seek(SeekFrom::Start(start))?;
        let plaintext_len = if blen == 0 {
            0
        } else {
            blen - BLOCK as u64 + final_keep as u64
        };
        Ok(Self {
            batch,
            inner,
            header,
            chain,
            key,
            left: blen,
            final_keep,
            plaintext_len,
            digests,
            next_chunk: 0,
            failed: false,
            ct,
            out: vec![0u8; CHUNK],
            pos: 0,
            end: 0,
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

    /// Reads, checks and decrypts the next chunk into `self.out`.
    fn next_chunk(&mut self) -> io::Result<()> {
        let n = self.left.min(CHUNK as u64) as usize;
        self.inner.read_exact(&mut self.ct[..n])?;
        let ct = &self.ct[..n];
        let (batch, key, chain, out) = (self.batch, &self.key, &self.chain, &mut self.out);
        let mut digest = [0u8; 32];
        batch.overlap(
            || decrypt_blocks(key.expose(), chain, ct, &mut out[..n]),
            || digest = sha256(ct),
        );
        let recorded = self.digests.get(self.next_chunk);
        if !recorded.is_some_and(|d| ct_eq(&digest, d)) {
            self.out[..n].zeroize();
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                FormatError::InputChanged,
            ));
        }
        self.next_chunk += 1;
        self.chain = last_block(ct).unwrap_or(self.chain);
        self.left -= n as u64;
        self.pos = 0;
        self.end = if self.left == 0 {
            n - BLOCK + self.final_keep
        } else {
            n
        };
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
            if self.pos < self.end {
                let n = (self.end - self.pos).min(buf.len());
                buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.left == 0 {
                return Ok(0);
            }
            if let Err(e) = self.next_chunk() {
                self.failed = true;
                return Err(e);
            }
        }
    }
}

impl<R: Read + Seek> Drop for SeekDecryptor<'_, R> {
    fn drop(&mut self) {
        self.out.zeroize();
    }
}
