//! `fulfillment_payload`: data the final node returns to the origin with
//! `update_fulfill_htlc` (BOLT #4 "Successful Payments").
//!
//! The plaintext is a `fulfillment_payload_tlvs` stream: the application's
//! records and, when needed, a `padding` record (type 1) that brings it to
//! at least 256 bytes and a multiple of 256 ([`padded`]; the smallest such
//! size, so exactly 256 whenever possible). It is sealed with
//! ChaCha20-Poly1305 under the final node's `fulfillment` key, an all-zero
//! nonce and no associated data; with its 16-byte tag it is at most
//! [`MAX_PAYLOAD_LEN`] bytes.

use crate::primitives::chacha20poly1305::{ChaChaKey, NONCE_LEN, TAG_LEN};
use crate::sphinx::keys::{derive, KeyKind, SharedSecret};
use crate::sphinx::{bigsize, tlv, Error};

/// Longest `fulfillment_payload` (32 KiB, tag included).
pub const MAX_PAYLOAD_LEN: usize = 32_768;
/// TLV type of the `padding` record.
pub const PADDING_TYPE: u64 = 1;
/// The padded stream is at least this long and a multiple of it.
pub const PADDING_BLOCK: usize = 256;

/// The `fulfillment_payload` as the origin opened it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// None came back.
    Absent,
    /// The final node's records (a TLV stream), its `padding` record
    /// removed.
    Valid(Vec<u8>),
    /// One came back and is ignored, as BOLT #4 requires: why.
    /// [`Error::Auth`] (the tag does not verify: a hop changed it, or it was
    /// not sealed for this route), [`Error::BadPayload`] (lengths that do not
    /// add up, types not strictly increasing), [`Error::UnknownEvenType`],
    /// [`Error::Truncated`] (shorter than a tag) or [`Error::TooLong`].
    Ignored(Error),
}

impl Payload {
    /// `absent`, `valid` or `ignored`: what the drivers print.
    pub const fn name(&self) -> &'static str {
        match self {
            Payload::Absent => "absent",
            Payload::Valid(_) => "valid",
            Payload::Ignored(_) => "ignored",
        }
    }

    /// The records, when valid.
    pub fn records(&self) -> Option<&[u8]> {
        match self {
            Payload::Valid(r) => Some(r),
            _ => None,
        }
    }
}

/// The value length of the `padding` record that brings `records_len`
/// bytes of records to a multiple of [`PADDING_BLOCK`] (at least one
/// block), or `None` when they already are. A padding record takes its
/// value, one type byte and a BigSize length (1 byte below 253, 3 bytes
/// up to 65535), so it is never 255 or 256 bytes long: then the next block
/// is the target.
const fn padding_for(records_len: usize) -> Option<usize> {
    if records_len >= PADDING_BLOCK && records_len % PADDING_BLOCK == 0 {
        return None;
    }
    let mut target = records_len.div_ceil(PADDING_BLOCK) * PADDING_BLOCK;
    if target < PADDING_BLOCK {
        target = PADDING_BLOCK;
    }
    loop {
        let record = target - records_len;
        if record >= 2 && record <= 254 {
            return Some(record - 2);
        }
        if record >= 257 {
            return Some(record - 4);
        }
        target += PADDING_BLOCK;
    }
}

/// Checks a stream of records to seal: well formed, types strictly
/// increasing, no `padding` record.
fn check_records(records: &[u8]) -> Result<(), Error> {
    for r in tlv::records(records) {
        if r?.0 == PADDING_TYPE {
            return Err(Error::PaddingGiven);
        }
    }
    Ok(())
}

/// `records` with the `padding` record (zero bytes) the rule asks for, in
/// type order: the plaintext of a `fulfillment_payload`.
///
/// # Errors
///
/// [`Error::BadPayload`] for a malformed stream (lengths past the end, a
/// non-canonical BigSize, types not strictly increasing),
/// [`Error::PaddingGiven`] when it holds a `padding` record,
/// [`Error::TooLong`] when the padded stream and its tag exceed
/// [`MAX_PAYLOAD_LEN`].
pub fn padded(records: &[u8]) -> Result<Vec<u8>, Error> {
    check_records(records)?;
    let len = padded_len(records.len());
    if len + TAG_LEN > MAX_PAYLOAD_LEN {
        return Err(Error::TooLong {
            len: len + TAG_LEN,
            max: MAX_PAYLOAD_LEN,
        });
    }
    let Some(pad) = padding_for(records.len()) else {
        return Ok(records.to_vec());
    };
    // The padding record goes after a type-0 record, before the rest.
    let mut split = 0;
    if let Some(Ok((0, v))) = tlv::records(records).next() {
        split = bigsize::len(0) + bigsize::len(v.len() as u64) + v.len();
    }
    let mut out = Vec::with_capacity(len + TAG_LEN);
    out.extend_from_slice(&records[..split]);
    tlv::push(&mut out, PADDING_TYPE, &vec![0u8; pad]);
    out.extend_from_slice(&records[split..]);
    Ok(out)
}

/// Size of the padded stream for `records_len` bytes of records.
pub const fn padded_len(records_len: usize) -> usize {
    match padding_for(records_len) {
        None => records_len,
        Some(v) => records_len + 1 + bigsize::len(v as u64) + v,
    }
}

/// Size of the `fulfillment_payload` for `records_len` bytes of records:
/// the padded stream and the tag.
pub const fn sealed_len(records_len: usize) -> usize {
    padded_len(records_len) + TAG_LEN
}

fn key(ss: &SharedSecret) -> ChaChaKey {
    ChaChaKey::new(derive(KeyKind::Fulfillment, ss.expose()).expose())
}

/// At the final node: pads `records` ([`padded`]) and seals them under the
/// `fulfillment` key of `ss`, its shared secret with the origin; returns the
/// `fulfillment_payload` ([`sealed_len`] bytes).
///
/// # Errors
///
/// As [`padded`].
pub fn seal(ss: &SharedSecret, records: &[u8]) -> Result<Vec<u8>, Error> {
    let mut buf = padded(records)?;
    let tag = key(ss).seal_in_place(&[0u8; NONCE_LEN], &[], &mut buf);
    buf.extend_from_slice(&tag);
    Ok(buf)
}

/// At the origin, on the payload with every other hop's layer removed: opens
/// it with the final hop's key `ss` and checks its records (tag first;
/// nothing is read from a payload that does not verify).
pub fn open(ss: &SharedSecret, mut payload: Vec<u8>) -> Payload {
    if payload.len() > MAX_PAYLOAD_LEN {
        return Payload::Ignored(Error::TooLong {
            len: payload.len(),
            max: MAX_PAYLOAD_LEN,
        });
    }
    if payload.len() < TAG_LEN {
        return Payload::Ignored(Error::Truncated {
            len: payload.len(),
            min: TAG_LEN,
        });
    }
    let Ok(plain) = key(ss).open_in_place(&[0u8; NONCE_LEN], &[], &mut payload) else {
        return Payload::Ignored(Error::Auth);
    };
    match records_of(plain) {
        Ok(records) => Payload::Valid(records),
        Err(e) => Payload::Ignored(e),
    }
}

/// The records of a decrypted stream without its `padding` record.
fn records_of(plain: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(plain.len());
    for r in tlv::records(plain) {
        let (t, v) = r?;
        if t == PADDING_TYPE {
            continue;
        }
        if t % 2 == 0 {
            return Err(Error::UnknownEvenType(t));
        }
        tlv::push(&mut out, t, v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The padding record's size jumps from 254 to 257 bytes, so some
    /// lengths need a second block.
    #[test]
    fn padding_reaches_a_block_whatever_the_length() {
        for len in 0..2000 {
            let p = padded_len(len);
            assert!(p >= PADDING_BLOCK && p % PADDING_BLOCK == 0, "{len} -> {p}");
            assert!(p < len + 2 * PADDING_BLOCK + 4, "{len} -> {p}");
        }
        assert_eq!(padded_len(0), 512);
        assert_eq!(padded_len(254), 256);
        assert_eq!(padded_len(255), 512);
        assert_eq!(padded_len(256), 256);
        assert_eq!(padded_len(257), 768);
        assert_eq!(sealed_len(9), 272);
    }

    #[test]
    fn records_are_checked_before_sealing() {
        let ss = SharedSecret::new([7; 32]);
        assert_eq!(seal(&ss, &[0x01, 0x00]), Err(Error::PaddingGiven));
        assert_eq!(seal(&ss, &[0x05, 0x02, 0x00]), Err(Error::BadPayload));
        assert_eq!(seal(&ss, &[0x05, 0x00, 0x03, 0x00]), Err(Error::BadPayload));
        let big = {
            let mut r = Vec::new();
            tlv::push(&mut r, 3, &vec![0; 32_600]);
            r
        };
        assert!(matches!(seal(&ss, &big), Err(Error::TooLong { .. })));
        // A type-0 record stays in front of the padding.
        let p = padded(&[0x00, 0x01, 0xaa, 0x03, 0x00]).unwrap();
        assert_eq!(p.len(), 256);
        assert_eq!(&p[..5], &[0x00, 0x01, 0xaa, 0x01, 249]);
        assert_eq!(&p[254..], &[0x03, 0x00]);
    }

    #[test]
    fn open_ignores_what_it_cannot_trust() {
        let ss = SharedSecret::new([7; 32]);
        let records = [0x03, 0x01, 0x42];
        let sealed = seal(&ss, &records).unwrap();
        assert_eq!(open(&ss, sealed.clone()), Payload::Valid(records.to_vec()));
        let mut bad = sealed.clone();
        bad[10] ^= 1;
        assert_eq!(open(&ss, bad), Payload::Ignored(Error::Auth));
        assert_eq!(
            open(&SharedSecret::new([8; 32]), sealed),
            Payload::Ignored(Error::Auth)
        );
        // Records the final node should not have sent: sealed by hand.
        for (plain, why) in [
            (vec![0x04, 0x00], Error::UnknownEvenType(4)),
            (vec![0x05, 0x00, 0x03, 0x00], Error::BadPayload),
            (vec![0x05, 0x05, 0x00], Error::BadPayload),
        ] {
            let mut buf = plain;
            let tag = key(&ss).seal_in_place(&[0u8; NONCE_LEN], &[], &mut buf);
            buf.extend_from_slice(&tag);
            assert_eq!(open(&ss, buf), Payload::Ignored(why));
        }
        assert!(matches!(
            open(&ss, vec![0; 15]),
            Payload::Ignored(Error::Truncated { len: 15, min: 16 })
        ));
    }
}
