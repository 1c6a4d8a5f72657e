//! Body crypto shared by every reader: CBC decryption across the caller's
//! cores, the trailer (size octet and HMAC) and the final block's length.

use super::error::Error;
use super::header::{Header, Version};
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_b2b, BLOCK};
use crate::primitives::sha::ct_eq;

/// Bytes before the body: the header and, in versions 1-3, the session block.
pub(crate) fn prefix_len(header: &Header) -> usize {
    header.prefix_len()
}

/// The last ciphertext block of `ct`: the chaining value for what follows.
pub(crate) fn last_block(ct: &[u8]) -> Option<[u8; 16]> {
    ct.len()
        .checked_sub(BLOCK)
        .and_then(|s| ct.get(s..))
        .and_then(|b| b.try_into().ok())
}

/// CBC-decrypts `ct` into `pt` (whole blocks) on this thread. Callers run
/// it beside the HMAC (or SHA-256) of the same bytes, which is several
/// times slower: splitting it across threads would gain nothing and make
/// every call wait for the whole batch.
pub(crate) fn decrypt_blocks(key: &[u8; 32], chain: &[u8; 16], ct: &[u8], pt: &mut [u8]) {
    aes256_cbc_decrypt_b2b(key, chain, ct, pt);
}

/// Constant-time tag check, mapped to the right error for the version.
pub(crate) fn check_tag(computed: [u8; 32], tag: &[u8]) -> Result<(), Error> {
    if ct_eq(&computed, tag) {
        Ok(())
    } else {
        Err(Error::Auth)
    }
}

/// Plaintext bytes in the final (decrypted, authenticated) block.
/// `size_mod` is the size octet of versions 0-2 (unused for version 3).
pub(crate) fn final_len(version: Version, size_mod: u8, last: &[u8]) -> Result<usize, Error> {
    if version == Version::V3 {
        let p = *last.last().ok_or(Error::BadPadding)? as usize;
        if p == 0 || p > BLOCK || last.len() != BLOCK {
            return Err(Error::BadPadding);
        }
        if last[BLOCK - p..].iter().any(|&b| b as usize != p) {
            return Err(Error::BadPadding);
        }
        Ok(BLOCK - p)
    } else if size_mod > 15 {
        Err(Error::Malformed("size octet above 15"))
    } else if size_mod == 0 {
        Ok(BLOCK)
    } else {
        Ok(size_mod as usize)
    }
}

/// The body length of a stream with `after_prefix` bytes after the
/// session block (body and trailer). The one place the stream's length is
/// checked: a trailer fits, the body is whole blocks, version 3 has at
/// least its padding block.
pub(crate) fn body_len(header: &Header, after_prefix: u64) -> Result<u64, Error> {
    let v = header.version;
    let tl = v.trailer_len() as u64;
    let prefix = prefix_len(header);
    let seen = |n: u64| prefix.saturating_add(usize::try_from(n).unwrap_or(usize::MAX));
    let blen = after_prefix.checked_sub(tl).ok_or(Error::Truncated {
        len: seen(after_prefix),
        min: seen(tl),
    })?;
    if blen % BLOCK as u64 != 0 {
        return Err(Error::PartialBlock);
    }
    if blen == 0 && v == Version::V3 {
        return Err(Error::Truncated {
            len: seen(after_prefix),
            min: seen(tl + BLOCK as u64),
        });
    }
    Ok(blen)
}

/// The trailer after the body: the size octet and the HMAC tag.
pub(crate) struct Trailer<'a> {
    /// Plaintext length mod 16 (versions 0-2; 0 for version 3).
    pub(crate) size_mod: u8,
    /// The body HMAC as stored.
    pub(crate) tag: &'a [u8],
}

impl<'a> Trailer<'a> {
    /// Splits `bytes`, exactly [`Version::trailer_len`] long.
    pub(crate) fn parse(header: &Header, bytes: &'a [u8]) -> Trailer<'a> {
        let size_mod = match header.version {
            Version::V0 => header.v0_size_mod,
            Version::V1 | Version::V2 => bytes.first().copied().unwrap_or(0),
            Version::V3 => 0,
        };
        let tag = &bytes[bytes.len().saturating_sub(32)..];
        Trailer { size_mod, tag }
    }
}
