//! The bytes before the body, sans-IO: the header, then (versions 1-3) the
//! session block, read from pieces of any size by every reader
//! ([`Decryptor`](super::Decryptor), [`VerifyPass`](super::VerifyPass)).

use super::error::Error;
use super::header::{Header, Limits, Version, SESSION_BLOCK_LEN};
use super::header_parser::HeaderParser;

/// What a version 0 stream, which has no session block, unlocks with.
const NO_SESSION_BLOCK: [u8; SESSION_BLOCK_LEN] = [0u8; SESSION_BLOCK_LEN];

enum State {
    Header {
        parser: HeaderParser,
        field: Vec<u8>,
    },
    Session {
        header: Header,
        block: Vec<u8>,
    },
    Done,
}

/// Reads the header one field at a time (each input byte looked at once,
/// however the input is split), then the 80-byte session block.
pub(crate) struct PrefixReader {
    state: State,
}

impl PrefixReader {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            state: State::Header {
                parser: HeaderParser::new(limits),
                field: Vec::new(),
            },
        }
    }

    /// Consumes bytes from the front of `rest` (advancing it past them)
    /// and returns the header and session block (zeros for version 0)
    /// once both are in; nothing after them is consumed.
    ///
    /// # Errors
    ///
    /// As [`parse_header`](super::parse_header); [`Error::Poisoned`] after
    /// the prefix was returned.
    pub(crate) fn feed(
        &mut self,
        rest: &mut &[u8],
    ) -> Result<Option<(Header, [u8; SESSION_BLOCK_LEN])>, Error> {
        loop {
            match &mut self.state {
                State::Header { parser, field } => {
                    let take = (parser.need() - field.len()).min(rest.len());
                    field.extend_from_slice(&rest[..take]);
                    *rest = &rest[take..];
                    parser.check_partial(field)?;
                    if field.len() < parser.need() {
                        return Ok(None);
                    }
                    let parsed = parser.feed(field)?;
                    field.clear();
                    match parsed {
                        Some(h) if h.version == Version::V0 => {
                            self.state = State::Done;
                            return Ok(Some((h, NO_SESSION_BLOCK)));
                        }
                        Some(header) => {
                            self.state = State::Session {
                                header,
                                block: Vec::with_capacity(SESSION_BLOCK_LEN),
                            }
                        }
                        None => {}
                    }
                }
                State::Session { block, .. } => {
                    let take = (SESSION_BLOCK_LEN - block.len()).min(rest.len());
                    block.extend_from_slice(&rest[..take]);
                    *rest = &rest[take..];
                    let Ok(blk) = <[u8; SESSION_BLOCK_LEN]>::try_from(&block[..]) else {
                        return Ok(None);
                    };
                    let State::Session { header, .. } =
                        std::mem::replace(&mut self.state, State::Done)
                    else {
                        return Err(Error::Poisoned);
                    };
                    return Ok(Some((header, blk)));
                }
                State::Done => return Err(Error::Poisoned),
            }
        }
    }

    /// The error for a stream that ends before the prefix is complete.
    pub(crate) fn truncated(&self) -> Error {
        match &self.state {
            State::Header { parser, field } => parser.truncated(field.len()),
            State::Session { header, block } => Error::Truncated {
                len: header.len + block.len(),
                min: header.len + SESSION_BLOCK_LEN,
            },
            State::Done => Error::Poisoned,
        }
    }
}
