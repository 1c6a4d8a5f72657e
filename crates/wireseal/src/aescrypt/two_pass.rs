//! Reading a stream twice, sans-IO, so that only verified plaintext is
//! ever released and memory stays bounded: a [`VerifyPass`] checks the
//! password and the body HMAC and records a digest of every [`CHUNK`] of
//! ciphertext; the [`ReleasePass`] it ends with decrypts the same bytes
//! again, releasing each chunk only once its ciphertext matched its digest.
//! [`SeekDecryptor`](super::io::SeekDecryptor) drives both over a seekable
//! reader; any other source that can be read twice (a file, a browser's
//! `Blob`) can drive them the same way.

use super::body::{body_len, check_tag, decrypt_blocks, final_len, last_block, Trailer};
use super::decrypt::Decrypted;
use super::error::Error;
use super::header::{Header, Limits};
use super::key::{StretchedKey, StretchedKeys};
use super::opener::Opener;
use super::options::CHUNK;
use super::prefix::PrefixReader;
use crate::batch::Batch;
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_b2b, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::primitives::sha::{ct_eq, sha256};
use crate::secret::Secret;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use zeroize::{Zeroize, Zeroizing};

/// Pieces smaller than this are hashed on the calling thread alone.
const SERIAL_BELOW: usize = 16 * 1024;

/// The longest trailer (versions 1-2: the size octet and the HMAC).
const MAX_TRAILER: usize = 33;

/// Pass one: fed the whole stream in pieces of any size, it checks the
/// password (as soon as the header and session block are in) and, at
/// [`finish`](Self::finish), the stream's length and body HMAC. It keeps
/// a SHA-256 digest of the header and session block and of every
/// [`CHUNK`] of body ciphertext (32 bytes per MiB of input) and releases
/// no plaintext at all; [`finish`](Self::finish) hands over the
/// [`ReleasePass`] that reads the stream a second time.
///
/// After an error, every later call fails with [`Error::Poisoned`].
///
/// ```
/// use wireseal::aescrypt::{self, EncryptOptions, Limits, VerifyPass};
/// use wireseal::batch::Batch;
///
/// let batch = Batch::calling_thread();
/// let file = aescrypt::encrypt_to_vec(&batch, "pw", b"attack at dawn", &EncryptOptions::v2())?;
/// let mut verify = VerifyPass::new("pw", &Limits::default());
/// for piece in file.chunks(7) {
///     verify.update(&batch, piece)?;
/// }
/// let mut release = verify.finish()?; // the HMAC matched
/// let mut plain = Vec::new();
/// for piece in file.chunks(100) {
///     release.update(&batch, piece, &mut plain)?; // the same bytes again
/// }
/// release.finish()?;
/// assert_eq!(plain, b"attack at dawn");
/// # Ok::<(), aescrypt::Error>(())
/// ```
pub struct VerifyPass {
    opener: Opener,
    /// SHA-256 of the header and session block so far.
    prefix: Sha256,
    phase: Phase,
}

enum Phase {
    Prefix(PrefixReader),
    Body(Box<Verifying>),
    Failed,
}

/// Pass one's state once the password was checked.
struct Verifying {
    header: Header,
    key: Secret<32>,
    /// The body's initial chaining value.
    chain: [u8; 16],
    mac: HmacSha256Stream,
    /// SHA-256 of the header and session block.
    prefix_digest: [u8; 32],
    /// SHA-256 of the current chunk so far.
    chunk: Sha256,
    chunk_len: usize,
    digests: Vec<[u8; 32]>,
    /// Bytes known to be body (followed by at least a trailer's worth).
    body: u64,
    /// The last two blocks of the body so far.
    tail: [u8; 32],
    /// The last bytes seen (at most a trailer): the trailer, if the
    /// stream ends here.
    held: Vec<u8>,
}

impl core::fmt::Debug for VerifyPass {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("VerifyPass(redacted)")
    }
}

impl VerifyPass {
    /// The first pass over one stream, refusing headers beyond `limits`.
    pub fn new(password: &str, limits: &Limits) -> Self {
        Self::opening(Opener::new(password), limits)
    }

    /// The first pass over one stream whose password key comes from
    /// `keys`, as [`Decryptor::with_keys`](super::Decryptor::with_keys).
    pub fn with_keys(keys: Arc<StretchedKeys>, limits: &Limits) -> Self {
        Self::opening(Opener::shared(keys), limits)
    }

    /// A reader that unlocks its stream with `opener`.
    fn opening(opener: Opener, limits: &Limits) -> Self {
        Self {
            opener,
            prefix: Sha256::new(),
            phase: Phase::Prefix(PrefixReader::new(limits)),
        }
    }

    /// Offers a version 3 key stretched ahead of reading, as
    /// [`Decryptor::offer_key`](super::Decryptor::offer_key) does.
    pub fn offer_key(&mut self, key: StretchedKey) {
        self.opener.offer(key);
    }

    /// The header, once it has been read and the password checked.
    pub fn header(&self) -> Option<&Header> {
        match &self.phase {
            Phase::Body(v) => Some(&v.header),
            _ => None,
        }
    }

    /// Feeds the next bytes of the stream. The password key is derived
    /// (slowly, by design) as soon as the header and session block are in;
    /// the body is hashed (its HMAC beside the chunk digest, on a thread of
    /// the batch). Nothing is decrypted.
    ///
    /// # Errors
    ///
    /// A header error ([`Error::NotAesCrypt`], a limit, ...),
    /// [`Error::WrongPassword`], or [`Error::Poisoned`] after an earlier
    /// error.
    pub fn update(&mut self, batch: &Batch, input: &[u8]) -> Result<(), Error> {
        let r = self.step(batch, input);
        if r.is_err() {
            self.phase = Phase::Failed;
        }
        r
    }

    /// Ends the first pass: checks the stream's length and body HMAC
    /// (constant time) and the final block, and returns the second pass.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::PartialBlock`], [`Error::Auth`],
    /// [`Error::BadPadding`], [`Error::Malformed`], or
    /// [`Error::Poisoned`] after an earlier error: exactly as
    /// [`Decryptor::finish`](super::Decryptor::finish) for the same bytes.
    pub fn finish(self) -> Result<ReleasePass, Error> {
        match self.phase {
            Phase::Prefix(reader) => Err(reader.truncated()),
            Phase::Body(v) => v.finish(),
            Phase::Failed => Err(Error::Poisoned),
        }
    }

    fn step(&mut self, batch: &Batch, mut rest: &[u8]) -> Result<(), Error> {
        loop {
            match &mut self.phase {
                Phase::Prefix(reader) => {
                    let before = rest;
                    let done = reader.feed(&mut rest)?;
                    self.prefix.update(&before[..before.len() - rest.len()]);
                    let Some((header, block)) = done else {
                        return Ok(());
                    };
                    let prefix_digest: [u8; 32] = self.prefix.finalize_reset().into();
                    let (chain, key) = self.opener.unlock(&header, &block)?;
                    let mac = HmacSha256Stream::new(key.expose());
                    self.phase = Phase::Body(Box::new(Verifying {
                        header,
                        key,
                        chain,
                        mac,
                        prefix_digest,
                        chunk: Sha256::new(),
                        chunk_len: 0,
                        digests: Vec::new(),
                        body: 0,
                        tail: [0u8; 32],
                        held: Vec::with_capacity(MAX_TRAILER),
                    }));
                }
                Phase::Body(v) => {
                    v.absorb(batch, rest);
                    return Ok(());
                }
                Phase::Failed => return Err(Error::Poisoned),
            }
        }
    }
}

impl Verifying {
    /// Hashes everything but the last trailer's worth of bytes seen.
    fn absorb(&mut self, batch: &Batch, rest: &[u8]) {
        let keep = self.header.version.trailer_len();
        let ready = (self.held.len() + rest.len()).saturating_sub(keep);
        let mut held = std::mem::take(&mut self.held);
        let from_held = ready.min(held.len());
        self.hash_body(batch, &held[..from_held]);
        held.drain(..from_held);
        let (body, after) = rest.split_at(ready - from_held);
        self.hash_body(batch, body);
        // At most a trailer's worth: `ready` took everything before it.
        held.extend_from_slice(after);
        self.held = held;
    }

    /// Body bytes: the HMAC, the chunk digests and the tail.
    fn hash_body(&mut self, batch: &Batch, mut data: &[u8]) {
        while !data.is_empty() {
            let take = (CHUNK - self.chunk_len).min(data.len());
            let (piece, next) = data.split_at(take);
            let (chunk, mac) = (&mut self.chunk, &mut self.mac);
            if take < SERIAL_BELOW {
                chunk.update(piece);
                mac.update(piece);
            } else {
                batch.overlap(|| chunk.update(piece), || mac.update(piece));
            }
            if take >= 32 {
                self.tail.copy_from_slice(&piece[take - 32..]);
            } else {
                self.tail.copy_within(take.., 0);
                self.tail[32 - take..].copy_from_slice(piece);
            }
            self.chunk_len += take;
            self.body += take as u64;
            if self.chunk_len == CHUNK {
                self.digests.push(self.chunk.finalize_reset().into());
                self.chunk_len = 0;
            }
            data = next;
        }
    }

    /// Checks the length, the HMAC and the final block.
    fn finish(self: Box<Self>) -> Result<ReleasePass, Error> {
        let mut this = *self;
        let v = this.header.version;
        let blen = body_len(&this.header, this.body + this.held.len() as u64)?;
        if this.chunk_len > 0 {
            this.digests.push(this.chunk.finalize().into());
        }
        let trailer = Trailer::parse(&this.header, &this.held);
        check_tag(this.mac.finalize(), trailer.tag)?;
        let final_keep = if blen == 0 {
            0
        } else {
            let iv: [u8; 16] = if blen == BLOCK as u64 {
                this.chain
            } else {
                this.tail[..16].try_into().unwrap_or(this.chain)
            };
            let mut last = [0u8; 16];
            aes256_cbc_decrypt_b2b(this.key.expose(), &iv, &this.tail[16..], &mut last);
            let keep = final_len(v, trailer.size_mod, &last);
            last.zeroize();
            keep?
        };
        let plaintext_len = if blen == 0 {
            0
        } else {
            blen - BLOCK as u64 + final_keep as u64
        };
        let prefix_len = this.header.prefix_len();
        Ok(ReleasePass {
            stream_len: prefix_len as u64 + blen + this.held.len() as u64,
            prefix_len,
            header: this.header,
            key: this.key,
            chain: this.chain,
            prefix_digest: this.prefix_digest,
            prefix: Sha256::new(),
            body_len: blen,
            final_keep,
            plaintext_len,
            trailer: this.held,
            digests: this.digests,
            pos: 0,
            ct: Vec::new(),
            pt: Zeroizing::new(Vec::new()),
            failed: false,
        })
    }
}

/// Pass two, from [`VerifyPass::finish`]: fed the same stream again from
/// its first byte, in pieces of any size, it decrypts each [`CHUNK`] of
/// the body and releases its plaintext only once the chunk's ciphertext
/// matched the digest pass one recorded. Input that differs from what
/// pass one verified (another header or session block, a changed chunk,
/// another trailer, more or fewer bytes) fails with
/// [`Error::InputChanged`], and nothing from a changed chunk is released.
///
/// It holds at most one chunk of ciphertext (when a chunk arrives in
/// several pieces) and one of plaintext (wiped on drop). After an error,
/// every later call fails with [`Error::Poisoned`].
pub struct ReleasePass {
    header: Header,
    key: Secret<32>,
    /// Chaining value for the next chunk.
    chain: [u8; 16],
    prefix_len: usize,
    prefix_digest: [u8; 32],
    /// SHA-256 of the prefix so far, this pass.
    prefix: Sha256,
    body_len: u64,
    /// Plaintext bytes in the final block.
    final_keep: usize,
    plaintext_len: u64,
    stream_len: u64,
    /// The trailer pass one verified.
    trailer: Vec<u8>,
    digests: Vec<[u8; 32]>,
    /// Bytes of the stream fed so far, this pass.
    pos: u64,
    /// The current chunk's ciphertext, when it came in several pieces.
    ct: Vec<u8>,
    /// Plaintext scratch (wiped on drop).
    pt: Zeroizing<Vec<u8>>,
    failed: bool,
}

impl core::fmt::Debug for ReleasePass {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ReleasePass(redacted)")
    }
}

impl ReleasePass {
    /// The stream's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The plaintext's length (known since pass one).
    pub fn plaintext_len(&self) -> u64 {
        self.plaintext_len
    }

    /// The stream's length in bytes, as pass one read it: what this pass
    /// must be fed.
    pub fn stream_len(&self) -> u64 {
        self.stream_len
    }

    /// How many bytes complete the current step (the rest of the header
    /// and session block, of the current chunk, or of the trailer); 0 once
    /// the whole stream was fed. A caller that can choose its reads' sizes
    /// reads this many and so spares this pass a copy of each chunk.
    pub fn next_len(&self) -> usize {
        let p = self.prefix_len as u64;
        let left = if self.pos < p {
            p - self.pos
        } else if self.pos < p + self.body_len {
            let off = self.pos - p;
            let start = off / CHUNK as u64 * CHUNK as u64;
            (self.body_len - start).min(CHUNK as u64) - (off - start)
        } else {
            self.stream_len.saturating_sub(self.pos)
        };
        // At most a chunk, a header or a trailer.
        usize::try_from(left).unwrap_or(CHUNK)
    }

    /// Feeds the next bytes of the stream (pass one's bytes, again, from
    /// the first) and appends to `out` the plaintext of every chunk they
    /// complete, once its ciphertext matched its digest.
    ///
    /// # Errors
    ///
    /// [`Error::InputChanged`] when the bytes differ from those pass one
    /// verified (the changed chunk's plaintext is not appended), or
    /// [`Error::Poisoned`] after an earlier error.
    pub fn update(&mut self, batch: &Batch, input: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        if self.failed {
            return Err(Error::Poisoned);
        }
        let r = self.step(batch, input, out);
        if r.is_err() {
            self.failed = true;
            self.pt.zeroize();
            self.ct.clear();
        }
        r
    }

    /// Ends the second pass: every byte pass one read was fed again.
    ///
    /// # Errors
    ///
    /// [`Error::InputChanged`] when the stream ended early, or
    /// [`Error::Poisoned`] after an earlier error.
    pub fn finish(self) -> Result<Decrypted, Error> {
        if self.failed {
            return Err(Error::Poisoned);
        }
        if self.pos != self.stream_len {
            return Err(Error::InputChanged);
        }
        Ok(Decrypted {
            plaintext_len: self.plaintext_len,
            header: self.header,
        })
    }

    fn step(&mut self, batch: &Batch, mut rest: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let p = self.prefix_len as u64;
        while !rest.is_empty() {
            let want = self.next_len();
            if want == 0 {
                // More bytes than pass one read.
                return Err(Error::InputChanged);
            }
            if self.pos < p {
                let (piece, next) = rest.split_at(want.min(rest.len()));
                self.prefix.update(piece);
                self.pos += piece.len() as u64;
                rest = next;
                if self.pos == p {
                    let got: [u8; 32] = self.prefix.finalize_reset().into();
                    if got != self.prefix_digest {
                        return Err(Error::InputChanged);
                    }
                }
            } else if self.pos < p + self.body_len {
                let k = usize::try_from((self.pos - p) / CHUNK as u64)
                    .map_err(|_| Error::InputChanged)?;
                if self.ct.is_empty() && rest.len() >= want {
                    let (piece, next) = rest.split_at(want);
                    self.release(batch, k, piece, out)?;
                    self.pos += want as u64;
                    rest = next;
                } else {
                    let (piece, next) = rest.split_at(want.min(rest.len()));
                    self.ct.extend_from_slice(piece);
                    self.pos += piece.len() as u64;
                    rest = next;
                    if piece.len() == want {
                        let ct = std::mem::take(&mut self.ct);
                        let r = self.release(batch, k, &ct, out);
                        self.ct = ct;
                        self.ct.clear();
                        r?;
                    }
                }
            } else {
                let off = usize::try_from(self.pos - p - self.body_len).unwrap_or(usize::MAX);
                let (piece, next) = rest.split_at(want.min(rest.len()));
                if self.trailer.get(off..off + piece.len()) != Some(piece) {
                    return Err(Error::InputChanged);
                }
                self.pos += piece.len() as u64;
                rest = next;
            }
        }
        Ok(())
    }

    /// Decrypts chunk `k` and appends its plaintext if its digest matches.
    fn release(
        &mut self,
        batch: &Batch,
        k: usize,
        ct: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let n = ct.len();
        if self.pt.len() < n {
            self.pt.resize(n, 0);
        }
        let (key, chain, pt) = (&self.key, &self.chain, &mut self.pt[..n]);
        let mut digest = [0u8; 32];
        if n < SERIAL_BELOW {
            decrypt_blocks(key.expose(), chain, ct, pt);
            digest = sha256(ct);
        } else {
            batch.overlap(
                || decrypt_blocks(key.expose(), chain, ct, pt),
                || digest = sha256(ct),
            );
        }
        if !self.digests.get(k).is_some_and(|d| ct_eq(&digest, d)) {
            self.pt[..n].zeroize();
            return Err(Error::InputChanged);
        }
        self.chain = last_block(ct).unwrap_or(self.chain);
        let last = (k as u64 + 1) * CHUNK as u64 >= self.body_len;
        let keep = if last {
            n.saturating_sub(BLOCK) + self.final_keep
        } else {
            n
        };
        out.extend_from_slice(&self.pt[..keep]);
        self.pt[..n].zeroize();
        Ok(())
    }
}
