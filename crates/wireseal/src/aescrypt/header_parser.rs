//! Parsing the plain-text header, sans-IO: an incremental parser that asks
//! for one field at a time, and [`parse_header`] over a buffer.

use super::error::Error;
use super::header::{Extension, Header, Limits, Version, MAGIC};

/// Result of feeding bytes to [`parse_header`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parse<T> {
    /// The buffer must hold at least this many bytes (from the stream start).
    NeedMore(usize),
    /// Parsed.
    Done(T),
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
#[derive(Debug)]
pub(crate) struct HeaderParser {
    limits: Limits,
    step: Step,
    /// Bytes consumed so far.
    pos: usize,
    version: Version,
    reserved: u8,
    extensions: Vec<Extension>,
    iterations: Option<u32>,
}

impl HeaderParser {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            limits: *limits,
            step: Step::Magic,
            pos: 0,
            version: Version::V0,
            reserved: 0,
            extensions: Vec::new(),
            iterations: None,
        }
    }

    /// Length of the next field.
    pub(crate) fn need(&self) -> usize {
        match self.step {
            Step::Magic => 3,
            Step::VersionOctets | Step::ExtLen => 2,
            Step::ExtBody(n) => n,
            Step::Iterations => 4,
            Step::Iv => 16,
        }
    }

    /// Checks a partial next field: a wrong magic is reported as soon as
    /// its first differing byte is seen.
    pub(crate) fn check_partial(&self, partial: &[u8]) -> Result<(), Error> {
        if matches!(self.step, Step::Magic) && MAGIC.get(..partial.len()) != Some(partial) {
            return Err(Error::NotAesCrypt);
        }
        Ok(())
    }

    /// The error for a stream that ends with `have` bytes of the next field.
    pub(crate) fn truncated(&self, have: usize) -> Error {
        Error::Truncated {
            len: self.pos + have,
            min: self.pos + self.need(),
        }
    }

    /// Consumes the next field; `field` holds exactly [`Self::need`] bytes.
    pub(crate) fn feed(&mut self, field: &[u8]) -> Result<Option<Header>, Error> {
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
                        return Err(Error::TooLong {
                            len: self.pos + len,
                            max: self.limits.max_header_len,
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
/// time; a [`Decryptor`](super::Decryptor) and
/// [`read_header`](super::io::read_header) parse incrementally instead.
///
/// # Errors
///
/// [`Error::NotAesCrypt`], [`Error::UnsupportedVersion`],
/// [`Error::Malformed`], or a limit: [`Error::TooLong`],
/// [`Error::TooManyExtensions`], [`Error::TooManyIterations`].
pub fn parse_header(buf: &[u8], limits: &Limits) -> Result<Parse<Header>, Error> {
    let mut p = HeaderParser::new(limits);
    p.check_partial(&buf[..buf.len().min(MAGIC.len())])?;
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
