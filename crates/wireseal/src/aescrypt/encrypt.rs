//! Writing version 2 and 3 streams: a streaming [`std::io::Write`]
//! encryptor over any writer, plus one-shot helpers.
//!
//! The body is processed in [`CHUNK`]-byte chunks. When more than one thread
//! is available, chunk *i* is CBC-encrypted on a rayon worker while this
//! thread computes the HMAC over chunk *i-1* and writes it out, so the
//! HMAC and the writer's copy hide behind the (serial) CBC encryption.

use super::error::Error;
use super::header::{header_len, write_header, Extension, Limits, Version, CONTAINER_LEN};
use super::kdf;
use super::session::{seal_session, SessionMaterial};
use crate::primitives::aes_cbc::{Aes256CbcEnc, BLOCK};
use crate::primitives::hmac_stream::HmacSha256Stream;
use std::io::{self, Write};
use zeroize::Zeroizing;

/// Body bytes per pipeline step (memory use is about three chunks).
pub const CHUNK: usize = 1 << 20;

/// Default PBKDF2 iteration count for version 3 (AES Crypt 4's default).
pub const DEFAULT_V3_ITERATIONS: u32 = 300_000;

/// How to write a stream.
#[derive(Debug, Clone)]
pub struct EncryptOptions {
    version: Version,
    iterations: u32,
    extensions: Vec<Extension>,
}

impl Default for EncryptOptions {
    /// Version 2 (what Duplicati writes), with a `CREATED_BY` extension and
    /// the recommended 128-byte container.
    fn default() -> Self {
        let created = Extension::new(
            "CREATED_BY",
            concat!("wireseal ", env!("CARGO_PKG_VERSION")).as_bytes(),
        )
        .expect("a short ASCII identifier is valid");
        let container = Extension::container(CONTAINER_LEN).expect("128 bytes is valid");
        Self {
            version: Version::V2,
            iterations: DEFAULT_V3_ITERATIONS,
            extensions: vec![created, container],
        }
    }
}

impl EncryptOptions {
    /// Version 2 with the default extensions.
    pub fn v2() -> Self {
        Self::default()
    }

    /// Version 3 with `iterations` PBKDF2 rounds and the default extensions.
    pub fn v3(iterations: u32) -> Result<Self, Error> {
        Self::default().version(Version::V3)?.iterations(iterations)
    }

    /// Sets the version (2 or 3; 0 and 1 are read-only).
    pub fn version(mut self, v: Version) -> Result<Self, Error> {
        if v < Version::V2 {
            return Err(Error::CannotWriteVersion(v.as_u8()));
        }
        self.version = v;
        Ok(self)
    }

    /// Sets the version 3 PBKDF2 iteration count (at least 1).
    pub fn iterations(mut self, n: u32) -> Result<Self, Error> {
        if n == 0 {
            return Err(Error::InvalidIterations);
        }
        self.iterations = n;
        Ok(self)
    }

    /// Replaces the extensions (an empty list writes none). Writing more
    /// than readers accept by default ([`Limits::default`]: 1024 extensions,
    /// 1 MiB of header) fails with [`Error::InvalidExtension`].
    pub fn extensions(mut self, ext: Vec<Extension>) -> Self {
        self.extensions = ext;
        self
    }

    /// The version that will be written.
    pub fn get_version(&self) -> Version {
        self.version
    }

    /// Bytes before the body: header, public IV and session block.
    pub fn prefix_len(&self) -> usize {
        header_len(self.version, &self.extensions) + super::header::SESSION_BLOCK_LEN
    }

    /// Exact length of the stream for a plaintext of `plaintext_len` bytes.
    pub fn encrypted_len(&self, plaintext_len: u64) -> u64 {
        let body = match self.version {
            Version::V3 => (plaintext_len / 16 + 1) * 16,
            _ => plaintext_len.div_ceil(16) * 16,
        };
        self.prefix_len() as u64 + body + self.version.trailer_len() as u64
    }
}

/// Streaming encryptor: write plaintext in, call [`Encryptor::finish`] to
/// write the padding and the HMAC. Memory stays at about three [`CHUNK`]s
/// whatever the size of the input.
///
/// Dropping the encryptor without `finish` leaves an incomplete stream
/// (which no reader accepts). An error from the inner writer poisons the
/// encryptor: later calls fail.
pub struct Encryptor<W: Write> {
    out: W,
    version: Version,
    cbc: Aes256CbcEnc,
    mac: HmacSha256Stream,
    /// Buffered plaintext (wiped on drop).
    stage: Zeroizing<Vec<u8>>,
    stage_len: usize,
    cur: Vec<u8>,
    prev: Vec<u8>,
    prev_len: usize,
    poisoned: bool,
    parallel: bool,
}

impl<W: Write> Encryptor<W> {
    /// Derives the password key (slow for version 3 by design), writes the
    /// header and session block to `out`, and returns the encryptor.
    pub fn new(out: W, password: &str, opts: &EncryptOptions) -> Result<Self, Error> {
        Self::with_material(out, password, opts, SessionMaterial::generate())
    }

    /// As [`Encryptor::new`] with caller-supplied per-file randomness.
    ///
    /// Reusing material across files breaks the format's security; this
    /// exists for known-answer tests and benchmarks.
    pub fn with_material(
        mut out: W,
        password: &str,
        opts: &EncryptOptions,
        material: SessionMaterial,
    ) -> Result<Self, Error> {
        if opts.version < Version::V2 {
            return Err(Error::CannotWriteVersion(opts.version.as_u8()));
        }
        // Never write a header our own reader refuses by default.
        let lim = Limits::default();
        let ext_end: usize = 5 + opts
            .extensions
            .iter()
            .map(|e| 2 + e.raw().len())
            .sum::<usize>();
        if opts.extensions.len() > lim.max_extensions || ext_end > lim.max_header_len {
            return Err(Error::InvalidExtension(
                "more extensions or header bytes than readers accept by default",
            ));
        }
        let pkey = kdf::derive(opts.version, password, &material.public_iv, opts.iterations);
        let mut head = Vec::with_capacity(opts.prefix_len());
        write_header(
            &mut head,
            opts.version,
            &opts.extensions,
            opts.iterations,
            &material.public_iv,
        );
        head.extend_from_slice(&seal_session(opts.version, &pkey, &material));
        out.write_all(&head)?;
        Ok(Self {
            out,
            version: opts.version,
            cbc: Aes256CbcEnc::new(material.session_key.expose(), &material.session_iv),
            mac: HmacSha256Stream::new(material.session_key.expose()),
            stage: Zeroizing::new(vec![0u8; CHUNK + BLOCK]),
            stage_len: 0,
            cur: vec![0u8; CHUNK],
            prev: vec![0u8; CHUNK],
            prev_len: 0,
            poisoned: false,
            parallel: rayon::current_num_threads() > 1,
        })
    }

    /// Encrypts one full chunk, from the stage or from `input`.
    fn push_chunk(&mut self, input: Option<&[u8]>) -> io::Result<()> {
        let Self {
            out,
            cbc,
            mac,
            stage,
            cur,
            prev,
            prev_len,
            parallel,
            ..
        } = self;
        let src: &[u8] = match input {
            Some(s) => s,
            None => &stage[..CHUNK],
        };
        let done = &prev[..*prev_len];
        let mut res = Ok(());
        if *parallel && !done.is_empty() {
            rayon::in_place_scope(|s| {
                s.spawn(|_| cbc.encrypt_b2b(src, cur));
                mac.update(done);
                res = out.write_all(done);
            });
        } else {
            cbc.encrypt_b2b(src, cur);
            mac.update(done);
            res = out.write_all(done);
        }
        std::mem::swap(cur, prev);
        *prev_len = CHUNK;
        res
    }

    fn check(&self) -> io::Result<()> {
        if self.poisoned {
            Err(io::Error::other("aescrypt encryptor failed earlier"))
        } else {
            Ok(())
        }
    }

    /// Pads, encrypts the rest, writes the trailer, and returns the writer.
    pub fn finish(mut self) -> Result<W, Error> {
        self.check()?;
        let rem = self.stage_len;
        let pad = match self.version {
            Version::V3 => BLOCK - rem % BLOCK,
            _ => (BLOCK - rem % BLOCK) % BLOCK,
        };
        let total = rem + pad;
        self.stage[rem..total].fill(pad as u8);
        let mut last = std::mem::take(&mut self.stage);
        self.cbc.encrypt_in_place(&mut last[..total]);
        self.mac.update(&self.prev[..self.prev_len]);
        self.out.write_all(&self.prev[..self.prev_len])?;
        self.mac.update(&last[..total]);
        self.out.write_all(&last[..total])?;
        if self.version != Version::V3 {
            self.out.write_all(&[(rem % BLOCK) as u8])?;
        }
        let tag = self.mac.clone().finalize();
        self.out.write_all(&tag)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for Encryptor<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.check()?;
        let n = data.len();
        let mut rest = data;
        let r = (|| {
            if self.stage_len > 0 {
                let take = (CHUNK - self.stage_len).min(rest.len());
                self.stage[self.stage_len..self.stage_len + take].copy_from_slice(&rest[..take]);
                self.stage_len += take;
                rest = &rest[take..];
                if self.stage_len == CHUNK {
                    self.push_chunk(None)?;
                    self.stage_len = 0;
                }
            }
            while rest.len() >= CHUNK {
                let (now, later) = rest.split_at(CHUNK);
                self.push_chunk(Some(now))?;
                rest = later;
            }
            if !rest.is_empty() {
                self.stage[..rest.len()].copy_from_slice(rest);
                self.stage_len = rest.len();
            }
            Ok(())
        })();
        match r {
            Ok(()) => Ok(n),
            Err(e) => {
                self.poisoned = true;
                Err(e)
            }
        }
    }

    /// Flushes the inner writer (buffered plaintext stays buffered until a
    /// chunk fills or [`Encryptor::finish`]).
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Encrypts `plaintext` into a new vector.
pub fn encrypt_to_vec(
    password: &str,
    plaintext: &[u8],
    opts: &EncryptOptions,
) -> Result<Vec<u8>, Error> {
    let len = usize::try_from(opts.encrypted_len(plaintext.len() as u64)).map_err(|_| {
        Error::BufferTooSmall {
            required: usize::MAX,
        }
    })?;
    let mut e = Encryptor::new(Vec::with_capacity(len), password, opts)?;
    e.write_all(plaintext)?;
    e.finish()
}

/// Encrypts `plaintext` into `out` (see [`EncryptOptions::encrypted_len`]);
/// returns the number of bytes written.
pub fn encrypt_into(
    password: &str,
    plaintext: &[u8],
    opts: &EncryptOptions,
    out: &mut [u8],
) -> Result<usize, Error> {
    let need = opts.encrypted_len(plaintext.len() as u64);
    let need = usize::try_from(need).unwrap_or(usize::MAX);
    if out.len() < need {
        return Err(Error::BufferTooSmall { required: need });
    }
    let mut e = Encryptor::new(&mut out[..need], password, opts)?;
    e.write_all(plaintext)?;
    e.finish()?;
    Ok(need)
}
