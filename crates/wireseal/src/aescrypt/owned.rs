//! Decrypting a stream whose pieces the caller hands over: an
//! [`OwnedDecryptor`] keeps each piece (a buffer it owns, or one borrowed
//! for its whole life) instead of decrypting it, so it copies nothing.
//! [`OwnedDecryptor::update`] checks the password as soon as the header and
//! session block are in; [`OwnedDecryptor::finish`] checks the stream's
//! length and works out the plaintext's ([`Unverified::plaintext_len`]),
//! so that [`Unverified::decrypt_into`] can fill a buffer of exactly that
//! many bytes (a language binding's own string type, say, whose size must
//! be known before it is made): the body HMAC on one thread beside CBC on
//! the others, the plaintext released only when the HMAC matched and wiped
//! from the buffer otherwise.
//!
//! The bytes decrypted are the very bytes the HMAC covers, so there is
//! nothing to check twice ([`ReleasePass`](super::ReleasePass), for input
//! read again from a source that might change, checks each chunk's
//! digest). A piece's `as_ref` must give the same bytes every time, as
//! every owned buffer (`Vec<u8>`, `Box<[u8]>`, `Arc<[u8]>`) and borrowed
//! slice does.

use super::body::{body_len, check_tag, final_len, Trailer};
use super::decrypt::Decrypted;
use super::error::Error;
use super::header::{Header, Limits};
use super::key::{StretchedKey, StretchedKeys};
use super::opener::Opener;
use super::prefix::PrefixReader;
use crate::batch::Batch;
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_b2b, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::secret::Secret;
use std::sync::Arc;
use zeroize::Zeroize;

/// Whole blocks one thread decrypts at a time (bytes).
const SPAN: usize = 256 * 1024;

/// A streaming decryptor that keeps the pieces it is fed (buffers it owns,
/// or slices borrowed for its whole life) and decrypts them only at the
/// end, so it copies nothing: [`OwnedDecryptor::update`] checks the
/// password as soon as the header and session block are in;
/// [`OwnedDecryptor::finish`] checks the stream's length and works out the
/// plaintext's; [`Unverified::decrypt_into`] (or
/// [`Unverified::decrypt_with`], for a buffer made once the length is
/// known) runs the body HMAC on one thread beside CBC on the others and
/// wipes the plaintext unless the HMAC matched. A piece's `as_ref` must
/// give the same bytes every time, as every owned buffer and borrowed slice
/// does.
///
/// ```
/// use wireseal::aescrypt::{self, EncryptOptions, Limits, OwnedDecryptor};
/// use wireseal::batch::Batch;
///
/// let batch = Batch::calling_thread();
/// let file = aescrypt::encrypt_to_vec(&batch, "pw", b"attack at dawn", &EncryptOptions::v2())?;
/// let mut d = OwnedDecryptor::new("pw", &Limits::default());
/// for piece in file.chunks(7) {
///     d.update(piece.to_vec())?;
/// }
/// let stream = d.finish()?;
/// let mut plain = vec![0u8; stream.plaintext_len()];
/// stream.decrypt_into(&batch, &mut plain)?; // the HMAC matched
/// assert_eq!(plain, b"attack at dawn");
/// # Ok::<(), aescrypt::Error>(())
/// ```
pub struct OwnedDecryptor<P> {
    opener: Opener,
    phase: Phase,
    pieces: Vec<P>,
    /// Bytes fed.
    fed: u64,
}

enum Phase {
    Prefix(PrefixReader),
    Body(Box<Keys>),
    Failed,
}

/// What decrypting the body takes.
struct Keys {
    header: Header,
    key: Secret<32>,
    /// The body's initial chaining value.
    chain: [u8; 16],
}

impl<P> core::fmt::Debug for OwnedDecryptor<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OwnedDecryptor")
            .field("pieces", &self.pieces.len())
            .field("fed", &self.fed)
            .finish_non_exhaustive()
    }
}

impl<P: AsRef<[u8]>> OwnedDecryptor<P> {
    /// A decryptor for one stream, refusing headers beyond `limits`.
    pub fn new(password: &str, limits: &Limits) -> Self {
        Self::opening(Opener::new(password), limits)
    }

    /// A decryptor for one stream whose password key comes from `keys`,
    /// as [`Decryptor::with_keys`](super::Decryptor::with_keys).
    pub fn with_keys(keys: Arc<StretchedKeys>, limits: &Limits) -> Self {
        Self::opening(Opener::shared(keys), limits)
    }

    /// A reader that unlocks its stream with `opener`.
    fn opening(opener: Opener, limits: &Limits) -> Self {
        Self {
            opener,
            phase: Phase::Prefix(PrefixReader::new(limits)),
            pieces: Vec::new(),
            fed: 0,
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
            Phase::Body(k) => Some(&k.header),
            _ => None,
        }
    }

    /// Keeps the next piece of the stream. The password key is derived
    /// (slowly, by design) as soon as the header and session block are in;
    /// nothing else is done with the body yet.
    ///
    /// # Errors
    ///
    /// A header error ([`Error::NotAesCrypt`], a limit, ...),
    /// [`Error::WrongPassword`], or [`Error::Poisoned`] after an earlier
    /// error. The pieces kept are dropped then.
    pub fn update(&mut self, piece: P) -> Result<(), Error> {
        let mut rest = piece.as_ref();
        let r = match &mut self.phase {
            Phase::Prefix(reader) => match reader.feed(&mut rest) {
                Ok(Some((header, block))) => {
                    self.opener.unlock(&header, &block).map(|(chain, key)| {
                        self.phase = Phase::Body(Box::new(Keys { header, key, chain }));
                    })
                }
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            },
            Phase::Body(_) => Ok(()),
            Phase::Failed => Err(Error::Poisoned),
        };
        match r {
            Ok(()) => {
                self.fed += piece.as_ref().len() as u64;
                self.pieces.push(piece);
                Ok(())
            }
            Err(e) => {
                self.phase = Phase::Failed;
                self.pieces = Vec::new();
                Err(e)
            }
        }
    }

    /// Ends the stream: checks its length, and works out the plaintext's
    /// from the final block (not yet authenticated: only
    /// [`Unverified::decrypt_into`] says whether the stream is genuine).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::PartialBlock`], or
    /// [`Error::Poisoned`] after an earlier error: as
    /// [`Decryptor::finish`](super::Decryptor::finish) for the same bytes.
    pub fn finish(self) -> Result<Unverified<P>, Error> {
        let keys = match self.phase {
            Phase::Prefix(reader) => return Err(reader.truncated()),
            Phase::Body(k) => *k,
            Phase::Failed => return Err(Error::Poisoned),
        };
        let prefix_len = keys.header.prefix_len();
        let blen = body_len(&keys.header, self.fed - prefix_len as u64)?;
        let blen = usize::try_from(blen).map_err(|_| Error::PartialBlock)?;
        let body = Body::of(&self.pieces, prefix_len, blen);
        let t = Trailer::parse(&keys.header, &body.after);
        // Every version's trailer ends in the 32-byte HMAC (`after` is the
        // trailer: the body's length was taken from it).
        let tag: [u8; 32] = t.tag.try_into().map_err(|_| Error::Auth)?;
        let size_mod = t.size_mod;
        // The final block's plaintext length (an error here is reported
        // after the HMAC, as the one-pass decryptor reports it).
        let last = if blen == 0 {
            Ok(0)
        } else {
            let i = blen / BLOCK - 1;
            let mut pt = [0u8; 16];
            let iv = body.iv(keys.chain, i);
            aes256_cbc_decrypt_b2b(keys.key.expose(), &iv, &body.block(i), &mut pt);
            let keep = final_len(keys.header.version, size_mod, &pt);
            pt.zeroize();
            keep
        };
        drop(body);
        Ok(Unverified {
            keys,
            prefix_len,
            body_len: blen,
            last,
            tag,
            pieces: self.pieces,
        })
    }
}

/// A whole stream, from [`OwnedDecryptor::finish`], not yet authenticated.
pub struct Unverified<P> {
    keys: Keys,
    prefix_len: usize,
    body_len: usize,
    /// Plaintext bytes in the final block, or why it cannot be right.
    last: Result<usize, Error>,
    /// The stored HMAC.
    tag: [u8; 32],
    pieces: Vec<P>,
}

impl<P> core::fmt::Debug for Unverified<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Unverified")
            .field("body_len", &self.body_len)
            .finish_non_exhaustive()
    }
}

/// A run of whole blocks inside one piece, decrypted by one thread: its
/// ciphertext, the block before it and where its plaintext goes.
struct Span<'a> {
    ct: &'a [u8],
    iv: [u8; 16],
    out: &'a mut [u8],
}

impl<P: AsRef<[u8]>> Unverified<P> {
    /// The stream's header.
    pub fn header(&self) -> &Header {
        &self.keys.header
    }

    /// The plaintext's length, if the stream is genuine (0 when its final
    /// block cannot be right: [`Unverified::decrypt_into`] then fails).
    pub fn plaintext_len(&self) -> usize {
        match self.last {
            Ok(keep) if self.body_len > 0 => self.body_len - BLOCK + keep,
            _ => 0,
        }
    }

    /// Checks the body HMAC (constant time) on one of `batch`'s threads
    /// while the others decrypt the body into the first
    /// [`Unverified::plaintext_len`] bytes of `out`; those bytes are wiped
    /// unless the HMAC matched and the final block is right.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `out` is shorter (nothing is written
    /// then), [`Error::Auth`], [`Error::BadPadding`] or
    /// [`Error::Malformed`]: as [`Decryptor::finish`](super::Decryptor::finish)
    /// for the same bytes.
    pub fn decrypt_into(self, batch: &Batch, out: &mut [u8]) -> Result<Decrypted, Error> {
        let len = self.plaintext_len();
        if out.len() < len {
            return Err(Error::BufferTooSmall { required: len });
        }
        let header = self.keys.header.clone();
        self.decrypt_with(batch, |_, fill| fill(out))??;
        Ok(Decrypted {
            header,
            plaintext_len: len as u64,
        })
    }

    /// As [`Unverified::decrypt_into`], for a buffer that `make` makes: it
    /// is called on this thread with the plaintext's length and `fill`, and
    /// must call `fill` once with a buffer of at least that length (a
    /// language binding's own string type, made and zeroed while the HMAC
    /// already runs on another thread). `fill` decrypts into the buffer,
    /// waits for the HMAC, and wipes the buffer and returns the error
    /// unless the HMAC matched and the final block is right; `make`'s
    /// result is returned. Give `make`'s result out only when `fill`
    /// returned `Ok`.
    ///
    /// # Errors
    ///
    /// From `fill`: as [`Unverified::decrypt_into`]. Here: the same error
    /// when `make` did not call `fill`.
    pub fn decrypt_with<T, M>(self, batch: &Batch, make: M) -> Result<T, Error>
    where
        M: FnOnce(usize, &mut Fill<'_>) -> T,
    {
        let len = self.plaintext_len();
        let body = Body::of(&self.pieces, self.prefix_len, self.body_len);
        let k = &self.keys;
        let tag = &self.tag;
        let last = self.last;
        let verdict = Verdict::default();
        let mut filled = None;
        let made = batch.overlap(
            || {
                let mut mac = HmacSha256Stream::new(k.key.expose());
                body.segments.iter().for_each(|(_, s)| mac.update(s));
                verdict.set(check_tag(mac.finalize(), tag).and(last.map(drop)));
            },
            || {
                let (body, verdict, filled) = (&body, &verdict, &mut filled);
                let mut fill = move |out: &mut [u8]| -> Result<(), Error> {
                    let out = out
                        .get_mut(..len)
                        .ok_or(Error::BufferTooSmall { required: len })?;
                    if last.is_ok() {
                        body.decrypt(batch, k, out);
                    }
                    let v = verdict.wait();
                    if v.is_err() {
                        out.zeroize();
                    }
                    *filled = Some(v);
                    v
                };
                make(len, &mut fill)
            },
        );
        filled.unwrap_or_else(|| verdict.wait()).map(|()| made)
    }
}

/// The HMAC's verdict, from the thread that computes it to the one that
/// waits for it.
#[derive(Default)]
struct Verdict {
    value: std::sync::Mutex<Option<Result<(), Error>>>,
    ready: std::sync::Condvar,
}

impl Verdict {
    fn set(&self, v: Result<(), Error>) {
        if let Ok(mut slot) = self.value.lock() {
            *slot = Some(v);
        }
        self.ready.notify_all();
    }

    /// Blocks until it is set (a poisoned lock reads as a failure).
    fn wait(&self) -> Result<(), Error> {
        let Ok(mut slot) = self.value.lock() else {
            return Err(Error::Poisoned);
        };
        loop {
            if let Some(v) = *slot {
                return v;
            }
            slot = match self.ready.wait(slot) {
                Ok(s) => s,
                Err(_) => return Err(Error::Poisoned),
            };
        }
    }
}

/// What [`Unverified::decrypt_with`] hands its `make`: decrypts into the
/// buffer it is given (see there).
pub type Fill<'a> = dyn FnMut(&mut [u8]) -> Result<(), Error> + Send + 'a;

/// A stream's body as it lies in the pieces: each piece's share, with its
/// offset in the body.
struct Body<'a> {
    segments: Vec<(usize, &'a [u8])>,
    len: usize,
    /// The bytes after it (the trailer).
    after: Vec<u8>,
}

impl<'a> Body<'a> {
    fn of<P: AsRef<[u8]>>(pieces: &'a [P], prefix: usize, len: usize) -> Self {
        let mut segments = Vec::with_capacity(pieces.len());
        let mut after = Vec::new();
        let (mut at, end) = (0usize, prefix + len);
        for piece in pieces {
            let b = piece.as_ref();
            let (lo, hi) = (at.max(prefix), (at + b.len()).min(end));
            if lo < hi {
                segments.push((lo - prefix, &b[lo - at..hi - at]));
            }
            after.extend_from_slice(&b[end.clamp(at, at + b.len()) - at..]);
            at += b.len();
        }
        Self {
            segments,
            len,
            after,
        }
    }

    /// Ciphertext block `i`, wherever its bytes lie.
    fn block(&self, i: usize) -> [u8; 16] {
        let mut out = [0u8; 16];
        let mut at = i * BLOCK;
        let mut k = self
            .segments
            .partition_point(|(off, s)| off + s.len() <= at);
        let mut filled = 0;
        while filled < BLOCK {
            let (off, s) = self.segments[k];
            let take = (off + s.len() - at).min(BLOCK - filled);
            out[filled..filled + take].copy_from_slice(&s[at - off..at - off + take]);
            filled += take;
            at += take;
            k += 1;
        }
        out
    }

    /// The chaining value before block `i`.
    fn iv(&self, chain: [u8; 16], i: usize) -> [u8; 16] {
        match i.checked_sub(1) {
            Some(j) => self.block(j),
            None => chain,
        }
    }

    /// Decrypts the body into `out` (its plaintext's length): runs of
    /// blocks on `batch`'s threads, then the final block up to its
    /// plaintext.
    fn decrypt(&self, batch: &Batch, k: &Keys, out: &mut [u8]) {
        let Some(last) = (self.len / BLOCK).checked_sub(1) else {
            return;
        };
        let (full, tail) = out.split_at_mut(last * BLOCK);
        let mut spans = self.spans(k, last, full);
        batch.for_each_mut_coarse(&mut spans, |s| {
            aes256_cbc_decrypt_b2b(k.key.expose(), &s.iv, s.ct, s.out);
        });
        let mut pt = [0u8; 16];
        let iv = self.iv(k.chain, last);
        aes256_cbc_decrypt_b2b(k.key.expose(), &iv, &self.block(last), &mut pt);
        tail.copy_from_slice(&pt[..tail.len()]);
        pt.zeroize();
    }

    /// Blocks `0..last` as runs inside one piece (at most [`SPAN`] bytes
    /// each, with their slices of `full`), the blocks that cross from one
    /// piece to the next decrypted here.
    fn spans<'o>(&'o self, keys: &Keys, last: usize, mut full: &'o mut [u8]) -> Vec<Span<'o>> {
        let mut spans = Vec::with_capacity(self.len / SPAN + self.segments.len() + 1);
        let mut next = 0usize;
        let cross = |i: usize, full: &mut &'o mut [u8]| {
            let (out, rest) = core::mem::take(full).split_at_mut(BLOCK);
            aes256_cbc_decrypt_b2b(
                keys.key.expose(),
                &self.iv(keys.chain, i),
                &self.block(i),
                out,
            );
            *full = rest;
        };
        for &(off, s) in &self.segments {
            let first = off.div_ceil(BLOCK).min(last);
            let end = ((off + s.len()) / BLOCK).min(last);
            for i in next..first {
                cross(i, &mut full);
            }
            next = next.max(first);
            let mut i = first;
            while i < end {
                let n = (end - i).min(SPAN / BLOCK);
                let (out, rest) = core::mem::take(&mut full).split_at_mut(n * BLOCK);
                full = rest;
                let ct = &s[i * BLOCK - off..(i + n) * BLOCK - off];
                spans.push(Span {
                    ct,
                    iv: self.iv(keys.chain, i),
                    out,
                });
                i += n;
            }
            next = next.max(end);
        }
        for i in next..last {
            cross(i, &mut full);
        }
        spans
    }
}
