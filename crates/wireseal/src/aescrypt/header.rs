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

/// The next field the header parser expects.
#[derive(Debug, Clone, Copy)]
enum Step {
    Magic,
    VersionOctets,
    ExtLen,
    ExtBody(usize),
    Iterations,
    Iv,
}

/// Incremental header parser: it asks for the exact number of bytes of the
/// next field ([`HeaderParser::need`]) and keeps everything parsed so far,
/// so each input byte is looked at once, however the input is split.
struct HeaderParser<'l> {
    limits: &'l Limits,
    step: Step,
    /// Bytes consumed so far.
    pos: usize,
    version: Version,
    reserved: u8,
    extensions: Vec<Extension>,
    iterations: Option<u32>,
}

impl<'l> HeaderParser<'l> {
    fn new(limits: &'l Limits) -> Self {
        Self {
            limits,
            step: Step::Magic,
            pos: 0,
            version: Version::V0,
            reserved: 0,
            extensions: Vec::new(),
            iterations: None,
        }
    }

    /// Length of the next field.
    fn need(&self) -> usize {
        match self.step {
            Step::Magic => 3,
            Step::VersionOctets | Step::ExtLen => 2,
            Step::ExtBody(n) => n,
            Step::Iterations => 4,
            Step::Iv => 16,
        }
    }

    /// Consumes the next field; `field` holds exactly [`Self::need`] bytes.
    fn feed(&mut self, field: &[u8]) -> Result<Option<Header>, Error> {
        debug_assert_eq!(field.len(), self.need());
        self.pos += field.len();
        match self.step {
            Step::Magic => {
                if field != MAGIC {
                    return Err(Error::NotAesCrypt);
                }
                self.step = Step::VersionOctets;
            }
            Step::VersionOctets => {
                self.version =
                    Version::from_u8(field[0]).ok_or(Error::UnsupportedVersion(field[0]))?;
                self.reserved = field[1];
                if self.version == Version::V0 && self.reserved > 15 {
                    return Err(Error::Malformed("version 0 size octet above 15"));
                }
                self.step = if self.version >= Version::V2 {
                    Step::ExtLen
                } else {
                    Step::Iv
                };
            }
            Step::ExtLen => {
                let len = u16::from_be_bytes([field[0], field[1]]) as usize;
                self.step = if len != 0 {
                    if self.extensions.len() >= self.limits.max_extensions {
                        return Err(Error::TooManyExtensions {
                            limit: self.limits.max_extensions,
                        });
                    }
                    if self.pos + len > self.limits.max_header_len {
                        return Err(Error::HeaderTooLarge {
                            limit: self.limits.max_header_len,
                        });
                    }
                    Step::ExtBody(len)
                } else if self.version == Version::V3 {
                    Step::Iterations
                } else {
                    Step::Iv
                };
            }
            Step::ExtBody(_) => {
                self.extensions.push(Extension {
                    raw: field.to_vec(),
                });
                self.step = Step::ExtLen;
            }
            Step::Iterations => {
                let it = u32::from_be_bytes([field[0], field[1], field[2], field[3]]);
                if it == 0 {
                    return Err(Error::Malformed("version 3 iteration count is zero"));
                }
                if it > self.limits.max_iterations {
                    return Err(Error::TooManyIterations {
                        iterations: it,
                        limit: self.limits.max_iterations,
                    });
                }
                self.iterations = Some(it);
                self.step = Step::Iv;
            }
            Step::Iv => {
                let mut public_iv = [0u8; 16];
                public_iv.copy_from_slice(field);
                return Ok(Some(Header {
                    version: self.version,
                    extensions: std::mem::take(&mut self.extensions),
                    iterations: self.iterations,
                    public_iv,
                    v0_size_mod: if self.version == Version::V0 {
                        self.reserved
                    } else {
                        0
                    },
                    len: self.pos,
                }));
            }
        }
        Ok(None)
    }
}

/// Parses the header at the start of `buf` (sans-IO). Returns
/// [`Parse::NeedMore`] with the minimum buffer length when `buf` is short.
///
/// One call costs time linear in the header's length. A caller that
/// re-parses a growing buffer after every `NeedMore` pays that again each
/// time; [`read_header`] parses incrementally instead.
pub fn parse_header(buf: &[u8], limits: &Limits) -> Result<Parse<Header>, Error> {
    let have_magic = buf.len().min(MAGIC.len());
    if buf.get(..have_magic) != MAGIC.get(..have_magic) {
        return Err(Error::NotAesCrypt);
    }
    let mut p = HeaderParser::new(limits);
    loop {
        let (at, n) = (p.pos, p.need());
        let Some(field) = buf.get(at..at + n) else {
            return Ok(Parse::NeedMore(at + n));
        };
        if let Some(h) = p.feed(field)? {
            return Ok(Parse::Done(h));
        }
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full<R: std::io::Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads exactly one header from `r` (never reading past it), one field at
/// a time: time is linear in the header's length, and at most
/// [`Limits::max_header_len`] bytes and [`Limits::max_extensions`]
/// extensions are accepted.
pub fn read_header<R: std::io::Read>(r: &mut R, limits: &Limits) -> Result<Header, Error> {
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
            if matches!(p.step, Step::Magic) && field[..got] != MAGIC[..got] {
                return Err(Error::NotAesCrypt);
            }
            return Err(Error::Truncated(Region::Header));
        }
        if let Some(h) = p.feed(&field[..n])? {
            return Ok(h);
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

    /// A v2 header of `n` one-byte extensions, then the IV.
    fn tiny_extensions(n: usize) -> Vec<u8> {
        let mut v = b"AES\x02\x00".to_vec();
        for _ in 0..n {
            v.extend_from_slice(&[0, 1, b'x']);
        }
        v.extend_from_slice(&[0, 0]);
        v.extend_from_slice(&[5u8; 16]);
        v
    }

    /// Hands out one byte per `read`, the worst case for a reader.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            let Some(first) = buf.first_mut() else {
                return Ok(0);
            };
            *first = b;
            self.0 = rest;
            Ok(1)
        }
    }

    /// The number of extensions is capped, and parsing is incremental: a
    /// header of ~350,000 one-byte extensions (what fits in 1 MiB), read one
    /// byte at a time, parses in linear time. (Re-parsing from the start on
    /// every read, as before, took ~10^11 steps here: this test would not
    /// finish.)
    #[test]
    fn many_tiny_extensions_are_capped_and_parsed_in_linear_time() {
        let l = Limits::default();
        assert_eq!(l.max_extensions, 1024);
        let ok = tiny_extensions(1024);
        let h = read_header(&mut Trickle(&ok), &l).unwrap();
        assert_eq!(h.extensions.len(), 1024);
        assert_eq!(h.len, ok.len());
        assert_eq!(h.public_iv, [5u8; 16]);
        let Parse::Done(p) = parse_header(&ok, &l).unwrap() else {
            panic!()
        };
        assert_eq!(p, h);

        let over = tiny_extensions(1025);
        assert!(matches!(
            read_header(&mut Trickle(&over), &l),
            Err(Error::TooManyExtensions { limit: 1024 })
        ));
        assert!(matches!(
            parse_header(&over, &l),
            Err(Error::TooManyExtensions { limit: 1024 })
        ));

        // The most 1 MiB of header can hold, with the count cap lifted.
        let n = ((1 << 20) - 5) / 3;
        let huge = tiny_extensions(n);
        let lifted = Limits {
            max_extensions: usize::MAX,
            ..l
        };
        let h = read_header(&mut Trickle(&huge), &lifted).unwrap();
        assert_eq!(h.extensions.len(), n);
        assert_eq!(h.len, huge.len());
        // One more extension crosses the 1 MiB header limit.
        assert!(matches!(
            read_header(&mut &tiny_extensions(n + 1)[..], &lifted),
            Err(Error::HeaderTooLarge { limit }) if limit == 1 << 20
        ));
        // And the default count cap stops the same header after 1024.
        assert!(matches!(
            read_header(&mut &huge[..], &l),
            Err(Error::TooManyExtensions { limit: 1024 })
        ));
    }

    #[test]
    fn read_header_stops_at_the_header_and_reports_truncation() {
        let l = Limits::default();
        let mut v = tiny_extensions(3);
        let hlen = v.len();
        v.extend_from_slice(b"rest");
        let mut r = &v[..];
        let h = read_header(&mut r, &l).unwrap();
        assert_eq!(h.len, hlen);
        assert_eq!(r, b"rest", "nothing past the header was consumed");
        for cut in 0..hlen {
            assert!(
                matches!(
                    read_header(&mut &v[..cut], &l),
                    Err(Error::Truncated(Region::Header))
                ),
                "{cut}"
            );
        }
        assert!(matches!(
            read_header(&mut &b"AZ"[..], &l),
            Err(Error::NotAesCrypt)
        ));
        assert!(matches!(
            read_header(&mut &b"AES\x00\x10"[..], &l),
            Err(Error::Malformed(_))
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
