//! Minimal TLV streams (BOLT #1): enough to read and write the route-blinding
//! fields this module needs. Types must strictly increase.

use super::{bigsize, Error};

/// Iterates over `(type, value)` records of a TLV stream, checking that
/// types strictly increase and lengths stay inside the stream.
pub fn records(stream: &[u8]) -> Records<'_> {
    Records {
        rest: stream,
        last: None,
    }
}

/// Iterator returned by [`records`].
#[derive(Debug)]
pub struct Records<'a> {
    rest: &'a [u8],
    last: Option<u64>,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(u64, &'a [u8]), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let r = (|| {
            let (t, a) = bigsize::read(self.rest)?;
            let (l, b) = bigsize::read(self.rest.get(a..).ok_or(Error::BadPayload)?)?;
            let start = a + b;
            let end = usize::try_from(l)
                .ok()
                .and_then(|l| start.checked_add(l))
                .filter(|e| *e <= self.rest.len())
                .ok_or(Error::BadPayload)?;
            if self.last.is_some_and(|p| t <= p) {
                return Err(Error::BadPayload);
            }
            self.last = Some(t);
            let v = &self.rest[start..end];
            self.rest = &self.rest[end..];
            Ok((t, v))
        })();
        if r.is_err() {
            self.rest = &[];
        }
        Some(r)
    }
}

/// The value of record `t`, if present.
///
/// # Errors
///
/// [`Error::BadPayload`] when the stream up to record `t` is malformed
/// (types not increasing, a length past the end, a non-canonical BigSize).
pub fn find(stream: &[u8], t: u64) -> Result<Option<&[u8]>, Error> {
    for r in records(stream) {
        let (ty, v) = r?;
        if ty == t {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// Appends record `(t, v)` to `out` (the caller keeps types increasing).
pub fn push(out: &mut Vec<u8>, t: u64, v: &[u8]) {
    bigsize::push(t, out);
    bigsize::push(v.len() as u64, out);
    out.extend_from_slice(v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_write_and_reject() {
        let mut s = Vec::new();
        push(&mut s, 1, b"hello");
        push(&mut s, 561, &[0x12, 0x34, 0x56]);
        assert_eq!(hex::encode(&s), "010568656c6c6ffd023103123456");
        assert_eq!(find(&s, 561).unwrap(), Some(&[0x12, 0x34, 0x56][..]));
        assert_eq!(find(&s, 2).unwrap(), None);
        // Out of order, truncated.
        assert!(find(&hex::decode("0201000100").unwrap(), 9).is_err());
        assert!(find(&hex::decode("010568656c").unwrap(), 9).is_err());
    }
}
