//! Reading version 0-3 streams without ever handing out plaintext that the
//! final HMAC rejects.
//!
//! Versions 1-3 carry one HMAC over the whole body, at the end. A reader
//! that must not release unverified plaintext and must also stay within
//! bounded memory therefore has two options, and both are offered:
//!
//! - [`SeekDecryptor`] (a [`Read`] over a `Read + Seek` input) verifies the
//!   HMAC in a first pass, recording a SHA-256 digest of every chunk of
//!   ciphertext, then decrypts in a second pass, releasing each chunk only
//!   after its digest matched;
//! - [`decrypt_into_sink`] makes one pass into a [`ProvisionalSink`]: the
//!   caller's sink holds the plaintext back and is told to
//!   [`commit`](ProvisionalSink::commit) it only after the HMAC matched, or
//!   to [`discard`](ProvisionalSink::discard) it (the CLI's sink is a
//!   private temporary file).
//!
//! [`decrypt_to_vec`] is the in-memory convenience (wipes its output on
//! failure). CBC decryption runs across all cores, overlapped with the HMAC.

use super::encrypt::CHUNK;
use super::error::{Error, Region};
use super::header::{read_exact_or, read_full, read_header, Header, Limits, Version};
use super::kdf;
use super::session::open_session;
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_b2b, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::primitives::sha::{ct_eq, sha256};
use crate::secret::Secret;
use rayon::prelude::*;
use std::io::{self, Read, Seek, SeekFrom};
use zeroize::Zeroize;

/// Ciphertext bytes per parallel decryption task.
const SUB: usize = 128 * 1024;

/// What a successful decryption reports.
#[derive(Debug, Clone)]
pub struct Decrypted {
    /// The stream's header (version, extensions, iterations).
    pub header: Header,
    /// Plaintext bytes produced.
    pub plaintext_len: u64,
}

/// Keys and running state of a body being read.
struct Body {
    key: Secret<32>,
    chain: [u8; 16],
    mac: HmacSha256Stream,
}

/// Reads the header and session block and checks the password. The
/// session block is read before the (deliberately slow) key derivation, so
/// a truncated stream fails at once.
fn begin<R: Read>(r: &mut R, password: &str, limits: &Limits) -> Result<(Header, Body), Error> {
    let header = read_header(r, limits)?;
    let v = header.version;
    let mut blk = [0u8; 80];
    if v != Version::V0 {
        read_exact_or(r, &mut blk, Region::SessionBlock)?;
    }
    let pkey = kdf::derive(
        v,
        password,
        &header.public_iv,
        header.iterations.unwrap_or(1),
    );
    let (chain, key) = if v == Version::V0 {
        (header.public_iv, pkey)
    } else {
        open_session(v, &pkey, &header.public_iv, &blk)?
    };
    let mac = HmacSha256Stream::new(key.expose());
    Ok((header, Body { key, chain, mac }))
}

fn last_block(ct: &[u8]) -> Option<[u8; 16]> {
    ct.len()
        .checked_sub(BLOCK)
        .and_then(|s| ct.get(s..))
        .and_then(|b| b.try_into().ok())
}

/// CBC-decrypts `ct` into `pt` (whole blocks), across cores when large.
fn par_decrypt(key: &[u8; 32], chain: &[u8; 16], ct: &[u8], pt: &mut [u8]) {
    if ct.len() < 2 * SUB || rayon::current_num_threads() < 2 {
        aes256_cbc_decrypt_b2b(key, chain, ct, pt);
        return;
    }
    pt.par_chunks_mut(SUB)
        .zip(ct.par_chunks(SUB))
        .enumerate()
        .for_each(|(i, (p, c))| {
            let iv = if i == 0 {
                Some(*chain)
            } else {
                ct.get(i * SUB - BLOCK..i * SUB)
                    .and_then(|b| b.try_into().ok())
            };
            if let Some(iv) = iv {
                aes256_cbc_decrypt_b2b(key, &iv, c, p);
            }
        });
}

/// Constant-time tag check, mapped to the right error for the version.
fn check_tag(version: Version, computed: [u8; 32], tag: &[u8]) -> Result<(), Error> {
    if ct_eq(&computed, tag) {
        Ok(())
    } else if version == Version::V0 {
        Err(Error::WrongPasswordOrCorrupted)
    } else {
        Err(Error::Corrupted)
    }
}

/// Plaintext bytes in the final (decrypted, authenticated) block.
/// `size_mod` is the size octet of versions 0-2 (unused for version 3).
fn final_len(version: Version, size_mod: u8, last: &[u8]) -> Result<usize, Error> {
    if version == Version::V3 {
        let p = *last.last().ok_or(Error::BadPadding)? as usize;
        if p == 0 || p > BLOCK || last.len() != BLOCK {
            return Err(Error::BadPadding);
        }
        if last[BLOCK - p..].iter().any(|&b| b as usize != p) {
            return Err(Error::BadPadding);
        }
        Ok(BLOCK - p)
    } else if size_mod > 15 {
        Err(Error::Malformed("size octet above 15"))
    } else if size_mod == 0 {
        Ok(BLOCK)
    } else {
        Ok(size_mod as usize)
    }
}

/// Validates the body length and finds the size octet and the tag in the
/// final buffer `x[..have]`. Returns `(body_len, size_mod, tag range)`.
fn split_trailer(header: &Header, x: &[u8]) -> Result<(usize, u8, std::ops::Range<usize>), Error> {
    let v = header.version;
    let tl = v.trailer_len();
    let blen = x
        .len()
        .checked_sub(tl)
        .ok_or(Error::Truncated(Region::Trailer))?;
    if blen % BLOCK != 0 {
        return Err(Error::PartialBlock);
    }
    if blen == 0 && v == Version::V3 {
        return Err(Error::Truncated(Region::Body));
    }
    let size_mod = match v {
        Version::V0 => header.v0_size_mod,
        Version::V1 | Version::V2 => x[blen],
        Version::V3 => 0,
    };
    Ok((blen, size_mod, blen + tl - 32..blen + tl))
}

/// Where [`decrypt_into_sink`] puts plaintext: a destination that holds
/// everything back until it is told the plaintext is authentic.
///
/// Versions 1-3 authenticate the body with one HMAC at its very end, so a
/// one-pass decryptor with bounded memory has to hand plaintext over before
/// it knows whether that plaintext is genuine. Implementing this trait is
/// the explicit promise to hold it back: nothing written through
/// [`write_unverified`](Self::write_unverified) may reach anyone (a reader,
/// a final file name, a parser) until [`commit`](Self::commit) is called,
/// and [`discard`](Self::discard) must destroy all of it. A private
/// temporary file renamed into place on `commit` and deleted on `discard`
/// is the typical implementation (the `wireseal file` command's). For
/// plaintext that is released only once verified, with no such promise, use
/// [`SeekDecryptor`] or [`decrypt_to_vec`].
pub trait ProvisionalSink {
    /// Appends plaintext that is **not yet authenticated** (it may be
    /// forged or garbage until [`commit`](Self::commit)).
    fn write_unverified(&mut self, plaintext: &[u8]) -> io::Result<()>;

    /// Called once, after the final HMAC matched and the last plaintext was
    /// written: everything written is authentic and may be released. An
    /// error here is reported as [`Error::Io`] after [`discard`](Self::discard).
    fn commit(&mut self) -> io::Result<()>;

    /// Called when decryption failed (wrong password, corruption,
    /// truncation, I/O): everything written must be destroyed, never used.
    fn discard(&mut self);
}

/// An in-memory sink: plaintext is appended; `discard` wipes and clears the
/// **whole** vector (including anything it held before).
impl ProvisionalSink for Vec<u8> {
    fn write_unverified(&mut self, plaintext: &[u8]) -> io::Result<()> {
        self.extend_from_slice(plaintext);
        Ok(())
    }

    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn discard(&mut self) {
        self.zeroize();
    }
}

/// One pass: decrypts `input` into a [`ProvisionalSink`], checking the
/// password first and the body HMAC at the end, then calling
/// [`ProvisionalSink::commit`] on success or [`ProvisionalSink::discard`] on
/// any error.
///
/// This is the fastest path (one read of the input, bounded memory, any
/// input), but the sink receives all but the final block before the HMAC is
/// known; see [`ProvisionalSink`] for what that obliges the sink to do. The
/// final block (and with it the length of the plaintext) is written only
/// after the HMAC matched.
pub fn decrypt_into_sink<R: Read + Send, S: ProvisionalSink + Send + ?Sized>(
    password: &str,
    input: R,
    sink: &mut S,
    limits: &Limits,
) -> Result<Decrypted, Error> {
    let r = one_pass(password, input, sink, limits).and_then(|d| {
        sink.commit()?;
        Ok(d)
    });
    if r.is_err() {
        sink.discard();
    }
    r
}

fn one_pass<R: Read + Send, S: ProvisionalSink + Send + ?Sized>(
    password: &str,
    mut input: R,
    sink: &mut S,
    limits: &Limits,
) -> Result<Decrypted, Error> {
    let (header, mut body) = begin(&mut input, password, limits)?;
    let k = header.version.trailer_len() + BLOCK;
    let mut x = vec![0u8; CHUNK + k];
    let mut y = vec![0u8; CHUNK + k];
    let mut pt = zeroize::Zeroizing::new(vec![0u8; CHUNK + k]);
    let mut have = read_full(&mut input, &mut x)?;
    let mut written: u64 = 0;
    // Invariant: x is full, so x[..CHUNK] holds no final block.
    while have == x.len() {
        let chain = body.chain;
        let key = &body.key;
        let mac = &mut body.mac;
        let (xs, ys, ps) = (&x, &mut y, &mut *pt);
        let inp = &mut input;
        let out = &mut *sink;
        let mut step: io::Result<usize> = Ok(0);
        rayon::in_place_scope(|s| {
            s.spawn(|_| {
                step = (|| {
                    par_decrypt(key.expose(), &chain, &xs[..CHUNK], &mut ps[..CHUNK]);
                    out.write_unverified(&ps[..CHUNK])?;
                    ys[..k].copy_from_slice(&xs[CHUNK..]);
                    Ok(k + read_full(inp, &mut ys[k..])?)
                })();
            });
            mac.update(&xs[..CHUNK]);
        });
        have = step?;
        body.chain = last_block(&x[..CHUNK]).unwrap_or(body.chain);
        std::mem::swap(&mut x, &mut y);
        written += CHUNK as u64;
    }
    let x = &x[..have];
    let (blen, size_mod, tag) = split_trailer(&header, x)?;
    let ct = &x[..blen];
    let mac = &mut body.mac;
    rayon::join(
        || mac.update(ct),
        || par_decrypt(body.key.expose(), &body.chain, ct, &mut pt[..blen]),
    );
    let computed = body.mac.clone().finalize();
    check_tag(header.version, computed, &x[tag])?;
    // An empty body is an empty plaintext whatever the size octet says
    // (old AES Crypt 1.x writers leave it unset).
    let n = if blen == 0 {
        0
    } else {
        blen - BLOCK + final_len(header.version, size_mod, &pt[blen - BLOCK..blen])?
    };
    sink.write_unverified(&pt[..n])?;
    Ok(Decrypted {
        header,
        plaintext_len: written + n as u64,
    })
}

/// Decrypts a whole stream held in memory. Nothing is returned unless both
/// HMACs match; the working buffer is wiped on failure.
pub fn decrypt_to_vec(password: &str, data: &[u8], limits: &Limits) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(data.len());
    decrypt_into_sink(password, data, &mut out, limits)?;
    Ok(out)
}

/// A [`Read`] over the plaintext of a seekable stream that releases only
/// verified plaintext.
///
/// [`SeekDecryptor::new`] checks the password, then makes a first pass over
/// the body computing its HMAC and a SHA-256 digest of every [`CHUNK`] of
/// ciphertext (32 bytes of memory per MiB of input), and fails with
/// [`Error::Corrupted`] unless the HMAC matched. Reads then decrypt in a
/// second pass, and each chunk is released only after its ciphertext
/// matched the digest recorded in the first pass, so an input rewritten
/// between the passes yields an error
/// ([`io::ErrorKind::InvalidData`] carrying [`Error::InputChanged`]) and
/// never modified plaintext. After any error, every later read fails.
pub struct SeekDecryptor<R: Read + Seek> {
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

impl<R: Read + Seek> SeekDecryptor<R> {
    /// Parses the header at the current position, checks the password
    /// ([`Error::WrongPassword`]) and the body HMAC ([`Error::Corrupted`]),
    /// recording a digest of each chunk, then rewinds to the body.
    pub fn new(mut inner: R, password: &str, limits: &Limits) -> Result<Self, Error> {
        let (header, body) = begin(&mut inner, password, limits)?;
        let v = header.version;
        let start = inner.stream_position()?;
        let end = inner.seek(SeekFrom::End(0))?;
        let tl = v.trailer_len() as u64;
        let avail = end.saturating_sub(start);
        let blen = avail
            .checked_sub(tl)
            .ok_or(Error::Truncated(Region::Trailer))?;
        if blen % BLOCK as u64 != 0 {
            return Err(Error::PartialBlock);
        }
        if blen == 0 && v == Version::V3 {
            return Err(Error::Truncated(Region::Body));
        }
        let mut trailer = [0u8; 33];
        let trailer = &mut trailer[..tl as usize];
        inner.seek(SeekFrom::Start(start + blen))?;
        read_exact_or(&mut inner, trailer, Region::Trailer)?;
        let size_mod = match v {
            Version::V0 => header.v0_size_mod,
            Version::V1 | Version::V2 => trailer[0],
            Version::V3 => 0,
        };
        let tag = &trailer[trailer.len() - 32..];
        // Pass 1: the HMAC and a digest per chunk, keeping the last two blocks.
        inner.seek(SeekFrom::Start(start))?;
        let mut ct = vec![0u8; CHUNK];
        let mut mac = body.mac.clone();
        let mut digests = Vec::new();
        let mut left = blen;
        let mut tail = [0u8; 32];
        while left > 0 {
            let n = (left.min(CHUNK as u64)) as usize;
            read_exact_or(&mut inner, &mut ct[..n], Region::Body)?;
            let chunk = &ct[..n];
            let ((), digest) = rayon::join(|| mac.update(chunk), || sha256(chunk));
            digests.push(digest);
            if n >= 32 {
                tail.copy_from_slice(&ct[n - 32..n]);
            } else {
                tail.copy_within(n.., 0);
                tail[32 - n..].copy_from_slice(&ct[..n]);
            }
            left -= n as u64;
        }
        check_tag(v, mac.finalize(), tag)?;
        let final_keep = if blen == 0 {
            0
        } else {
            let iv: [u8; 16] = if blen == 16 {
                body.chain
            } else {
                tail[..16].try_into().unwrap_or(body.chain)
            };
            let mut last = [0u8; 16];
            aes256_cbc_decrypt_b2b(body.key.expose(), &iv, &tail[16..], &mut last);
            let keep = final_len(v, size_mod, &last);
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
            inner,
            header,
            chain: body.chain,
            key: body.key,
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
        let (key, chain, out) = (&self.key, &self.chain, &mut self.out);
        let (digest, ()) = rayon::join(
            || sha256(ct),
            || par_decrypt(key.expose(), chain, ct, &mut out[..n]),
        );
        let recorded = self.digests.get(self.next_chunk);
        if !recorded.is_some_and(|d| ct_eq(&digest, d)) {
            self.out[..n].zeroize();
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                Error::InputChanged,
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

impl<R: Read + Seek> Read for SeekDecryptor<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.failed {
                return Err(io::Error::other("aescrypt reader failed earlier"));
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

impl<R: Read + Seek> Drop for SeekDecryptor<R> {
    fn drop(&mut self) {
        self.out.zeroize();
    }
}
