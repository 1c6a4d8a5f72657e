//! The plain-text header as data: version, extensions, iteration count,
//! public IV, and the limits a reader puts on them.

use super::error::Error;

/// The `AES` magic every stream starts with.
pub const MAGIC: &[u8; 3] = b"AES";
/// Size of the session block (versions 1-3): 48 encrypted bytes + HMAC.
pub const SESSION_BLOCK_LEN: usize = 48 + 32;
/// Length of the container extension AES Crypt recommends writers include.
pub const CONTAINER_LEN: usize = 128;

/// An AES Crypt stream format version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// Version 0: one key from the password, size octet in the header.
    V0,
    /// Version 1: a random session key wrapped under the password key.
    V1,
    /// Version 2: version 1 plus header extensions (AES Crypt 3.x, pyAesCrypt,
    /// SharpAESCrypt / Duplicati).
    V2,
    /// Version 3: PBKDF2-HMAC-SHA512 over the UTF-8 password, PKCS#7 padding
    /// (AES Crypt 4.x).
    V3,
}

impl Version {
    /// The version octet.
    pub const fn as_u8(self) -> u8 {
        match self {
            Version::V0 => 0,
            Version::V1 => 1,
            Version::V2 => 2,
            Version::V3 => 3,
        }
    }

    /// Parses a version octet.
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Version::V0),
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            3 => Some(Version::V3),
            _ => None,
        }
    }

    /// Length of the trailer: the size octet (versions 1-2) and the HMAC.
    pub const fn trailer_len(self) -> usize {
        match self {
            Version::V1 | Version::V2 => 33,
            Version::V0 | Version::V3 => 32,
        }
    }
}

/// One header extension, kept as its raw bytes: `identifier 0x00 value`,
/// or all zeros for a container (reserved space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extension {
    pub(crate) raw: Vec<u8>,
}

impl Extension {
    /// An `identifier 0x00 value` extension (e.g. `CREATED_BY`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidExtension`] for an empty identifier, a NUL in it, or
    /// more than 65,535 bytes in all.
    pub fn new(identifier: &str, value: &[u8]) -> Result<Self, Error> {
        if identifier.is_empty() || identifier.as_bytes().contains(&0) {
            return Err(Error::InvalidExtension(
                "identifier must be non-empty and contain no NUL",
            ));
        }
        let mut raw = Vec::with_capacity(identifier.len() + 1 + value.len());
        raw.extend_from_slice(identifier.as_bytes());
        raw.push(0);
        raw.extend_from_slice(value);
        Self::from_raw(raw)
    }

    /// A container extension of `len` zero bytes (space for later edits).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidExtension`] unless `len` is 1..=65535.
    pub fn container(len: usize) -> Result<Self, Error> {
        Self::from_raw(vec![0u8; len])
    }

    fn from_raw(raw: Vec<u8>) -> Result<Self, Error> {
        if raw.is_empty() || raw.len() > u16::MAX as usize {
            return Err(Error::InvalidExtension("length must be 1..=65535 bytes"));
        }
        Ok(Self { raw })
    }

    /// The raw extension bytes as stored.
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// True for a container (first byte 0: no identifier).
    pub fn is_container(&self) -> bool {
        self.raw.first() == Some(&0)
    }

    /// The identifier (bytes before the first NUL); `None` for a container
    /// or an extension without a NUL.
    pub fn identifier(&self) -> Option<&[u8]> {
        if self.is_container() {
            return None;
        }
        let nul = self.raw.iter().position(|&b| b == 0)?;
        self.raw.get(..nul)
    }

    /// The value (bytes after the first NUL); `None` as for [`Self::identifier`].
    pub fn value(&self) -> Option<&[u8]> {
        let id = self.identifier()?;
        self.raw.get(id.len() + 1..)
    }
}

/// A parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Stream version.
    pub version: Version,
    /// Extensions in stream order (versions 2-3), containers included.
    pub extensions: Vec<Extension>,
    /// PBKDF2 iterations (version 3 only).
    pub iterations: Option<u32>,
    /// The public IV (salt of the password key derivation).
    pub public_iv: [u8; 16],
    /// Version 0 only: the plaintext length modulo 16 (reserved octet).
    pub v0_size_mod: u8,
    /// Encoded length of the header in bytes, up to and including the IV.
    pub len: usize,
}

impl Header {
    /// Bytes before the body: the header and, in versions 1-3, the 80-byte
    /// session block. A stream that ends before them cannot be unlocked; one
    /// that ends after them was cut in its body or trailer.
    pub const fn prefix_len(&self) -> usize {
        match self.version {
            Version::V0 => self.len,
            _ => self.len + SESSION_BLOCK_LEN,
        }
    }

    /// The value of the first extension whose identifier is `id`.
    pub fn extension(&self, id: &str) -> Option<&[u8]> {
        self.extensions
            .iter()
            .find(|e| e.identifier() == Some(id.as_bytes()))
            .and_then(Extension::value)
    }
}

/// Limits on what an untrusted header may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted header (extensions included), in bytes.
    pub max_header_len: usize,
    /// Largest accepted number of extensions (containers included).
    pub max_extensions: usize,
    /// Largest accepted version 3 PBKDF2 iteration count.
    pub max_iterations: u32,
}

impl Default for Limits {
    /// 1 MiB of header, 1024 extensions, 10,000,000 PBKDF2 iterations.
    fn default() -> Self {
        Self {
            max_header_len: 1 << 20,
            max_extensions: 1024,
            max_iterations: 10_000_000,
        }
    }
}
