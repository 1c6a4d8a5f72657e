//! Reading version 0-3 streams, sans-IO: a [`Decryptor`] fed with bytes
//! that never hands out plaintext the final HMAC rejects, except through a
//! [`ProvisionalSink`], plus the in-memory [`decrypt_to_vec`] and
//! [`decrypt_into`].

use super::body::{self, body_len, check_tag, decrypt_blocks, final_len, last_block, Trailer};
use super::error::Error;
use super::header::{Header, Limits};
use super::header_parser::{parse_header, Parse};
use super::key::{StretchedKey, StretchedKeys};
use super::opener::Opener;
use super::options::CHUNK;
use super::prefix::PrefixReader;
use super::sink::{ProvisionalSink, SliceSink};
use crate::batch::Batch;
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_b2b, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::secret::Secret;
use std::sync::Arc;
use zeroize::Zeroizing;

/// Pieces smaller than this are decrypted on the calling thread.
const SERIAL_BELOW: usize = 16 * 1024;

/// The shortest stream of any version: a version 0 header and IV (21
/// bytes), an empty body and the HMAC (32 bytes).
const MIN_STREAM: usize = 21 + 32;

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
    header: Header,
    key: Secret<32>,
    chain: [u8; 16],
    mac: HmacSha256Stream,
    /// Ciphertext not yet decrypted: always at least the trailer and one
    /// block, so the final block waits for [`Decryptor::finish`].
    held: Vec<u8>,
    /// Body bytes decrypted and handed to the sink so far.
    done: u64,
}

enum Phase {
    Prefix(PrefixReader),
    Body(Box<Body>),
    Failed,
}

/// The sans-IO reader: feed it the stream in pieces of any size with
/// [`update`](Self::update), then call [`finish`](Self::finish).
///
/// Plaintext goes only into a [`ProvisionalSink`], whose
/// [`commit`](ProvisionalSink::commit) is called once the body HMAC
/// matched and whose [`discard`](ProvisionalSink::discard) is called on any
/// error. The final block (and with it the length of the plaintext) is
/// written only after the HMAC matched. The password key is derived (slowly,
/// by design) as soon as the header and session block are in; a wrong
/// password fails there, before any body byte is decrypted. After an error,
/// every later call fails with [`Error::Poisoned`].
pub struct Decryptor {
    opener: Opener,
    phase: Phase,
    /// Plaintext scratch (wiped on drop).
    pt: Zeroizing<Vec<u8>>,
}

impl core::fmt::Debug for Decryptor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Decryptor(redacted)")
    }
}

impl Decryptor {
    /// A reader for one stream, refusing headers beyond `limits`.
    pub fn new(password: &str, limits: &Limits) -> Self {
        Self::opening(Opener::new(password), limits)
    }

    /// A reader for one stream whose password key comes from `keys`
    /// (stretched once for every stream that shares its salt), refusing
    /// headers beyond `limits`.
    pub fn with_keys(keys: Arc<StretchedKeys>, limits: &Limits) -> Self {
        Self::opening(Opener::shared(keys), limits)
    }

    /// A reader that unlocks its stream with `opener`.
    fn opening(opener: Opener, limits: &Limits) -> Self {
        Self {
            opener,
            phase: Phase::Prefix(PrefixReader::new(limits)),
            pt: Zeroizing::new(Vec::new()),
        }
    }

    /// Offers a version 3 key stretched ahead of reading (see
    /// [`StretchedKey`]): used in place of stretching the password if this
    /// stream's header names its public IV and iterations. It counts only
    /// when offered before the header and session block are in.
    pub fn offer_key(&mut self, key: StretchedKey) {
        self.opener.offer(key);
    }

    /// The header, once it has been read and the password checked.
    pub fn header(&self) -> Option<&Header> {
        match &self.phase {
            Phase::Body(b) => Some(&b.header),
            _ => None,
        }
    }

    /// Feeds the next bytes of the stream. Plaintext that is ready (all but
    /// the last block) goes to `sink`, decrypted on a thread of the batch
    /// while this thread computes the HMAC.
    ///
    /// # Errors
    ///
    /// A header error ([`Error::NotAesCrypt`], a limit, ...),
    /// [`Error::WrongPassword`], the sink's own failure, or
    /// [`Error::Poisoned`] after an earlier error, in the sink's error type.
    /// `sink` has been told to [`discard`](ProvisionalSink::discard)
    /// everything.
    pub fn update<S: ProvisionalSink + Send + ?Sized>(
        &mut self,
        batch: &Batch,
        input: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let r = self.step(batch, input, sink);
        if r.is_err() {
            self.phase = Phase::Failed;
            sink.discard();
        }
        r
    }

    /// Ends the stream: checks its length and the body HMAC (constant
    /// time), writes the final plaintext and commits the sink.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::PartialBlock`], [`Error::Auth`],
    /// [`Error::BadPadding`], [`Error::Malformed`], the sink's own failure,
    /// or [`Error::Poisoned`], in the sink's error type; `sink` has been
    /// told to [`discard`](ProvisionalSink::discard) everything.
    pub fn finish<S: ProvisionalSink + ?Sized>(
        mut self,
        sink: &mut S,
    ) -> Result<Decrypted, S::Error> {
        let r = self.end(sink).and_then(|d| {
            sink.commit()?;
            Ok(d)
        });
        if r.is_err() {
            sink.discard();
        }
        r
    }

    fn step<S: ProvisionalSink + Send + ?Sized>(
        &mut self,
        batch: &Batch,
        mut rest: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        loop {
            match &mut self.phase {
                Phase::Prefix(p) => match p.feed(&mut rest)? {
                    Some((header, block)) => self.unlock(header, &block)?,
                    None => return Ok(()),
                },
                Phase::Body(b) => return b.absorb(batch, rest, sink, &mut self.pt),
                Phase::Failed => return Err(Error::Poisoned.into()),
            }
        }
    }

    fn unlock(&mut self, header: Header, block: &[u8; 80]) -> Result<(), Error> {
        let (chain, key) = self.opener.unlock(&header, block)?;
        let mac = HmacSha256Stream::new(key.expose());
        self.phase = Phase::Body(Box::new(Body {
            header,
            key,
            chain,
            mac,
            held: Vec::new(),
            done: 0,
        }));
        Ok(())
    }

    fn end<S: ProvisionalSink + ?Sized>(&mut self, sink: &mut S) -> Result<Decrypted, S::Error> {
        match std::mem::replace(&mut self.phase, Phase::Failed) {
            Phase::Prefix(p) => Err(p.truncated().into()),
            Phase::Body(b) => b.finish(sink),
            Phase::Failed => Err(Error::Poisoned.into()),
        }
    }
}

impl Body {
    /// Decrypts what can be released now: everything but the last
    /// `trailer + BLOCK` bytes, in whole blocks, straight from `input`
    /// where possible (only a few bytes at each piece's edges are copied).
    fn absorb<S: ProvisionalSink + Send + ?Sized>(
        &mut self,
        batch: &Batch,
        mut rest: &[u8],
        sink: &mut S,
        pt: &mut Vec<u8>,
    ) -> Result<(), S::Error> {
        let keep = self.header.version.trailer_len() + BLOCK;
        let avail = self.held.len() + rest.len();
        let ready = avail.saturating_sub(keep) / BLOCK * BLOCK;
        if ready <= self.held.len() {
            let held = std::mem::take(&mut self.held);
            self.decrypt(batch, &held[..ready], &[], sink, pt)?;
            self.held = held;
            self.held.drain(..ready);
            self.held.extend_from_slice(rest);
            return Ok(());
        }
        let mut direct = ready;
        let mut head = std::mem::take(&mut self.held);
        if !head.is_empty() {
            let fill = (BLOCK - head.len() % BLOCK) % BLOCK;
            head.extend_from_slice(&rest[..fill]);
            rest = &rest[fill..];
            direct -= head.len();
        }
        let done = self.decrypt(batch, &head, &rest[..direct], sink, pt);
        self.held = head;
        self.held.clear();
        done?;
        self.held.extend_from_slice(&rest[direct..]);
        Ok(())
    }

    /// Decrypts whole blocks into the sink: `head` (the few blocks held
    /// back from the last input, often empty), then `ct`, one [`CHUNK`] at a
    /// time, `head` written with the first chunk in one piece. CBC on a
    /// thread of the batch (then the sink write), the HMAC on this thread.
    fn decrypt<S: ProvisionalSink + Send + ?Sized>(
        &mut self,
        batch: &Batch,
        mut head: &[u8],
        ct: &[u8],
        sink: &mut S,
        pt: &mut Vec<u8>,
    ) -> Result<(), S::Error> {
        let mut pieces = ct.chunks(CHUNK);
        loop {
            let piece = pieces.next().unwrap_or_default();
            let (h, n) = (head.len(), head.len() + piece.len());
            if n == 0 {
                return Ok(());
            }
            if pt.len() < n {
                pt.resize(n, 0);
            }
            let (key, mac) = (&self.key, &mut self.mac);
            let chain = self.chain;
            let after_head = last_block(head).unwrap_or(chain);
            let out = &mut pt[..n];
            let mut wrote = Ok(());
            let mut background = || {
                let (head_pt, piece_pt) = out.split_at_mut(h);
                decrypt_blocks(key.expose(), &chain, head, head_pt);
                decrypt_blocks(key.expose(), &after_head, piece, piece_pt);
                wrote = sink.write_unverified(out);
            };
            let mut foreground = || {
                mac.update(head);
                mac.update(piece);
            };
            if n < SERIAL_BELOW {
                background();
                foreground();
            } else {
                batch.overlap(background, foreground);
            }
            wrote?;
            self.chain = last_block(piece).unwrap_or(after_head);
            self.done += n as u64;
            head = &[];
        }
    }

    /// Checks the length and the HMAC, then writes the final plaintext.
    fn finish<S: ProvisionalSink + ?Sized>(mut self, sink: &mut S) -> Result<Decrypted, S::Error> {
        let v = self.header.version;
        let blen = body_len(&self.header, self.done + self.held.len() as u64)?;
        let tail = usize::try_from(blen - self.done).map_err(|_| Error::PartialBlock)?;
        let (ct, trailer) = self.held.split_at(tail);
        let trailer = Trailer::parse(&self.header, trailer);
        self.mac.update(ct);
        let mut pt = Zeroizing::new(vec![0u8; tail]);
        aes256_cbc_decrypt_b2b(self.key.expose(), &self.chain, ct, &mut pt);
        check_tag(self.mac.finalize(), trailer.tag)?;
        // An empty body is an empty plaintext whatever the size octet says
        // (old AES Crypt 1.x writers leave it unset).
        let n = if blen == 0 {
            0
        } else {
            tail - BLOCK + final_len(v, trailer.size_mod, &pt[tail - BLOCK..])?
        };
        sink.write_unverified(&pt[..n])?;
        Ok(Decrypted {
            header: self.header,
            plaintext_len: blen - tail as u64 + n as u64,
        })
    }
}

/// Decrypts a whole stream held in memory. Nothing is returned unless the
/// HMACs match; the working buffer is wiped on failure.
///
/// # Errors
///
/// As [`Decryptor::update`] and [`Decryptor::finish`].
pub fn decrypt_to_vec(
    batch: &Batch,
    password: &str,
    data: &[u8],
    limits: &Limits,
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(data.len());
    let mut d = Decryptor::new(password, limits);
    d.update(batch, data, &mut out)?;
    d.finish(&mut out)?;
    Ok(out)
}

/// Decrypts a whole stream held in memory into `out`; returns the
/// plaintext length. `out` must hold the body (the stream less its header,
/// session block and trailer); [`decrypted_len`] of the stream's length
/// always suffices. On failure, whatever was written to `out` is wiped.
///
/// # Errors
///
/// [`Error::BufferTooSmall`] when `out` is shorter than the body, otherwise
/// as [`decrypt_to_vec`].
pub fn decrypt_into(
    batch: &Batch,
    password: &str,
    data: &[u8],
    limits: &Limits,
    out: &mut [u8],
) -> Result<usize, Error> {
    if let Parse::Done(h) = parse_header(data, limits)? {
        let tl = h.version.trailer_len();
        let required = data.len().saturating_sub(body::prefix_len(&h) + tl);
        if out.len() < required {
            return Err(Error::BufferTooSmall { required });
        }
    }
    let mut sink = SliceSink { out, len: 0 };
    let mut d = Decryptor::new(password, limits);
    d.update(batch, data, &mut sink)?;
    d.finish(&mut sink)?;
    Ok(sink.len)
}

/// An upper bound on the plaintext length of a stream of `encrypted_len`
/// bytes, enough for [`decrypt_into`] whatever the version and header.
///
/// # Errors
///
/// [`Error::Truncated`] when no stream is that short (53 bytes: a version 0
/// header, an empty body and the HMAC).
pub const fn decrypted_len(encrypted_len: usize) -> Result<usize, Error> {
    match encrypted_len.checked_sub(MIN_STREAM) {
        Some(n) => Ok(n),
        None => Err(Error::Truncated {
            len: encrypted_len,
            min: MIN_STREAM,
        }),
    }
}
