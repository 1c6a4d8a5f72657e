//! Encoding the plain-text header of a version 2 or 3 stream.

use super::header::{Extension, Version, MAGIC};

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
