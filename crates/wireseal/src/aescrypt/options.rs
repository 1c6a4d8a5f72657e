//! [`EncryptOptions`]: what an [`Encryptor`](super::Encryptor) writes.

use super::error::Error;
use super::header::{Extension, Limits, Version, CONTAINER_LEN, SESSION_BLOCK_LEN};
use super::header_writer::header_len;
use crate::primitives::aes_cbc::BLOCK;

/// Body bytes per pipeline step of the encryptor and decryptors.
pub const CHUNK: usize = 1 << 20;

/// Default PBKDF2 iteration count for version 3 (AES Crypt 4's default).
pub const DEFAULT_V3_ITERATIONS: u32 = 300_000;

/// How to write a stream: the version, the version 3 iteration count and
/// the header's extensions. Built with [`EncryptOptions::v2`] or
/// [`EncryptOptions::v3`] and the `with_*` methods.
#[derive(Debug, Clone)]
pub struct EncryptOptions {
    pub(crate) version: Version,
    pub(crate) iterations: u32,
    pub(crate) extensions: Vec<Extension>,
    /// Bytes before the body (header, public IV, session block), kept in
    /// step with the fields above so [`encrypted_len`] can be `const`.
    prefix_len: usize,
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
            prefix_len: 0,
        }
        .measured()
    }
}

impl EncryptOptions {
    /// Version 2 with the default extensions.
    pub fn v2() -> Self {
        Self::default()
    }

    /// Version 3 with `iterations` PBKDF2 rounds and the default extensions.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidIterations`] for 0.
    pub fn v3(iterations: u32) -> Result<Self, Error> {
        Self::default()
            .with_version(Version::V3)?
            .with_iterations(iterations)
    }

    /// Sets the version (2 or 3; 0 and 1 are read-only).
    ///
    /// # Errors
    ///
    /// [`Error::CannotWriteVersion`] for versions 0 and 1.
    pub fn with_version(mut self, v: Version) -> Result<Self, Error> {
        if v < Version::V2 {
            return Err(Error::CannotWriteVersion(v.as_u8()));
        }
        self.version = v;
        Ok(self.measured())
    }

    /// Sets the version 3 PBKDF2 iteration count (at least 1).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidIterations`] for 0.
    pub fn with_iterations(mut self, n: u32) -> Result<Self, Error> {
        if n == 0 {
            return Err(Error::InvalidIterations);
        }
        self.iterations = n;
        Ok(self)
    }

    /// Replaces the extensions (an empty list writes none). Writing more
    /// than readers accept by default ([`Limits::default`]: 1024 extensions,
    /// 1 MiB of header) fails with [`Error::InvalidExtension`] when the
    /// encryptor is made.
    pub fn with_extensions(mut self, ext: Vec<Extension>) -> Self {
        self.extensions = ext;
        self.measured()
    }

    /// The version that will be written.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The version 3 PBKDF2 iteration count (unused by version 2).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Bytes before the body: header, public IV and session block.
    pub const fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    fn measured(mut self) -> Self {
        self.prefix_len = header_len(self.version, &self.extensions) + SESSION_BLOCK_LEN;
        self
    }

    /// Refuses options whose stream our own reader would refuse by default.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.version < Version::V2 {
            return Err(Error::CannotWriteVersion(self.version.as_u8()));
        }
        let lim = Limits::default();
        let ext_end: usize = 5 + self
            .extensions
            .iter()
            .map(|e| 2 + e.raw().len())
            .sum::<usize>();
        if self.extensions.len() > lim.max_extensions || ext_end > lim.max_header_len {
            return Err(Error::InvalidExtension(
                "more extensions or header bytes than readers accept by default",
            ));
        }
        Ok(())
    }
}

/// Exact length of the stream `opts` writes for a plaintext of
/// `plaintext_len` bytes (saturating at `usize::MAX`): what
/// [`encrypt_into`](super::encrypt_into) needs.
pub const fn encrypted_len(opts: &EncryptOptions, plaintext_len: usize) -> usize {
    let blocks = match opts.version {
        Version::V3 => plaintext_len / BLOCK + 1,
        _ => plaintext_len.div_ceil(BLOCK),
    };
    blocks
        .saturating_mul(BLOCK)
        .saturating_add(opts.prefix_len + opts.version.trailer_len())
}
