//! The plain-text header: magic, version, extensions, iteration count and
//! public IV. Parsing is sans-IO: feed bytes, get a header or "need more".

use super::error::{Error, Region};

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
    pub fn as_u8(self) -> u8 {
        match self {
            Version::V0 => 0,
            Version::V1 => 1,
            Version::V2 => 2,
            Version::V3 => 3,
        }
    }

    /// Parses a version octet.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Version::V0),
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            3 => Some(Version::V3),
            _ => None,
        }
    }

    /// Length of the trailer: the size octet (versions 1-2) and the HMAC.
    pub fn trailer_len(self) -> usize {
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
    raw: Vec<u8>,
}

impl Extension {
    /// An `identifier 0x00 value` extension (e.g. `CREATED_BY`).
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
    /// The value of the first extension whose identifier is `id`.
    pub fn extension(&self, id: &str) -> Option<&[u8]> {
        self.extensions
            .iter()
            .find(|e| e.identifier() == Some(id.as_bytes()))
            .and_then(Extension::value)
    }
}

/// Result of feeding bytes to [`parse_header`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parse<T> {
    /// The buffer must hold at least this many bytes (from the stream start).
    NeedMore(usize),
    /// Parsed.
    Done(T),
}

/// Limits on what an untrusted header may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted header (extensions included), in bytes.
    pub max_header_len: usize,
    /// Largest accepted version 3 PBKDF2 iteration count.
    pub max_iterations: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_header_len: 1 << 20,
            max_iterations: 10_000_000,
        }
    }
}

fn be16(b: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]) as usize)
}

/// Parses the header at the start of `buf` (sans-IO). Returns
/// [`Parse::NeedMore`] with the minimum buffer length when `buf` is short.
pub fn parse_header(buf: &[u8], limits: &Limits) -> Result<Parse<Header>, Error> {
    let have_magic = buf.len().min(3);
    if buf.get(..have_magic) != MAGIC.get(..have_magic) {
        return Err(Error::NotAesCrypt);
    }
    if buf.len() < 5 {
        return Ok(Parse::NeedMore(5));
    }
    let version = Version::from_u8(buf[3]).ok_or(Error::UnsupportedVersion(buf[3]))?;
    let mut pos = 5;
    let mut extensions = Vec::new();
    let mut iterations = None;
    if version >= Version::V2 {
        loop {
            let Some(len) = be16(buf, pos) else {
                return Ok(Parse::NeedMore(pos + 2));
            };
            pos += 2;
            if len == 0 {
                break;
            }
            if pos + len > limits.max_header_len {
                return Err(Error::HeaderTooLarge {
                    limit: limits.max_header_len,
                });
            }
            let Some(raw) = buf.get(pos..pos + len) else {
                return Ok(Parse::NeedMore(pos + len));
            };
            extensions.push(Extension { raw: raw.to_vec() });
            pos += len;
        }
    }
    if version == Version::V3 {
        let Some(it) = buf.get(pos..pos + 4) else {
            return Ok(Parse::NeedMore(pos + 4));
        };
        let it = u32::from_be_bytes([it[0], it[1], it[2], it[3]]);
        if it == 0 {
            return Err(Error::Malformed("version 3 iteration count is zero"));
        }
        if it > limits.max_iterations {
            return Err(Error::TooManyIterations {
                iterations: it,
                limit: limits.max_iterations,
            });
        }
        iterations = Some(it);
        pos += 4;
    }
    let Some(iv) = buf.get(pos..pos + 16) else {
        return Ok(Parse::NeedMore(pos + 16));
    };
    let mut public_iv = [0u8; 16];
    public_iv.copy_from_slice(iv);
    let v0_size_mod = if version == Version::V0 { buf[4] } else { 0 };
    if v0_size_mod > 15 {
        return Err(Error::Malformed("version 0 size octet above 15"));
    }
    Ok(Parse::Done(Header {
        version,
        extensions,
        iterations,
        public_iv,
        v0_size_mod,
        len: pos + 16,
    }))
}

/// Reads exactly one header from `r` (never reading past it).
pub fn read_header<R: std::io::Read>(r: &mut R, limits: &Limits) -> Result<Header, Error> {
    let mut buf = Vec::with_capacity(256);
    loop {
        match parse_header(&buf, limits)? {
            Parse::Done(h) => return Ok(h),
            Parse::NeedMore(n) => {
                let mut have = buf.len();
                buf.resize(n, 0);
                while have < n {
                    match r.read(&mut buf[have..]) {
                        Ok(0) => {
                            // Report a wrong magic or version before truncation.
                            buf.truncate(have);
                            parse_header(&buf, limits)?;
                            return Err(Error::Truncated(Region::Header));
                        }
                        Ok(k) => have += k,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(Error::Io(e)),
                    }
                }
            }
        }
    }
}

/// `read_exact`, with end-of-input reported as truncation of `region`.
pub(crate) fn read_exact_or<R: std::io::Read>(
    r: &mut R,
    buf: &mut [u8],
    region: Region,
) -> Result<(), Error> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Error::Truncated(region)
        } else {
            Error::Io(e)
        }
    })
}

/// Appends the header of a version 2 or 3 stream to `out`.
pub(crate) fn write_header(
    out: &mut Vec<u8>,
    version: Version,
    extensions: &[Extension],
    iterations: u32,
    public_iv: &[u8; 16],
) {
    out.extend_from_slice(MAGIC);
    out.push(version.as_u8());
    out.push(0);
    for e in extensions {
        out.extend_from_slice(&(e.raw.len() as u16).to_be_bytes());
        out.extend_from_slice(&e.raw);
    }
    out.extend_from_slice(&[0, 0]);
    if version == Version::V3 {
        out.extend_from_slice(&iterations.to_be_bytes());
    }
    out.extend_from_slice(public_iv);
}

/// Encoded header length for [`write_header`].
pub(crate) fn header_len(version: Version, extensions: &[Extension]) -> usize {
    let ext: usize = extensions.iter().map(|e| 2 + e.raw.len()).sum();
    5 + ext + 2 + if version == Version::V3 { 4 } else { 0 } + 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_parse_reports_what_it_needs() {
        let mut v = Vec::new();
        let ext = [
            Extension::new("CREATED_BY", b"x").unwrap(),
            Extension::container(128).unwrap(),
        ];
        write_header(&mut v, Version::V3, &ext, 1000, &[7u8; 16]);
        assert_eq!(v.len(), header_len(Version::V3, &ext));
        let l = Limits::default();
        for cut in 0..v.len() {
            match parse_header(&v[..cut], &l).unwrap() {
                Parse::NeedMore(n) => assert!(n > cut && n <= v.len(), "{cut} {n}"),
                Parse::Done(_) => panic!("done early at {cut}"),
            }
        }
        let Parse::Done(h) = parse_header(&v, &l).unwrap() else {
            panic!()
        };
        assert_eq!(h.iterations, Some(1000));
        assert_eq!(h.extension("CREATED_BY"), Some(&b"x"[..]));
        assert!(h.extensions[1].is_container());
        assert_eq!(h.len, v.len());
        assert!(matches!(parse_header(b"AEZ", &l), Err(Error::NotAesCrypt)));
        assert!(matches!(
            parse_header(b"AES\x04\x00", &l),
            Err(Error::UnsupportedVersion(4))
        ));
        let strict = Limits {
            max_header_len: 64,
            ..l
        };
        assert!(matches!(
            parse_header(&v, &strict),
            Err(Error::HeaderTooLarge { .. })
        ));
        let low = Limits {
            max_iterations: 999,
            ..l
        };
        assert!(matches!(
            parse_header(&v, &low),
            Err(Error::TooManyIterations { .. })
        ));
    }

    #[test]
    fn extension_rules() {
        assert!(Extension::new("", b"x").is_err());
        assert!(Extension::new("a\0b", b"x").is_err());
        assert!(Extension::new("a", &vec![0u8; 70_000]).is_err());
        let e = Extension::new("ID", b"val").unwrap();
        assert_eq!(e.identifier(), Some(&b"ID"[..]));
        assert_eq!(e.value(), Some(&b"val"[..]));
        assert!(!e.is_container());
    }
}
