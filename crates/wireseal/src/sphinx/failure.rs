//! Failure onions (BOLT #4 "Returning Errors"): created by the failing hop,
//! re-obfuscated by every hop on the way back, unwrapped and attributed by the
//! origin.
//!
//! Packet: `HMAC(32) | failure_len(u16) | failure_message | pad_len(u16) | pad`,
//! the HMAC keyed with `um` over everything after it, the whole packet XORed
//! with the `ammag` stream of each hop.

use super::keys::{derive, HopSecrets, KeyKind, SharedSecret};
use super::{Error, HMAC_LEN};
use crate::primitives::chacha20::KeyStream;
use crate::primitives::sha::{ct_eq, hmac_sha256};

/// `failure_len + pad_len` is padded up to at least this many bytes.
pub const MIN_PADDED_LEN: usize = 256;

/// Longest failure message a packet can carry (its length is a `u16`).
pub const MAX_MESSAGE_LEN: usize = u16::MAX as usize;

/// Shortest failure packet: the HMAC and the two length fields.
pub const MIN_FAILURE_LEN: usize = HMAC_LEN + 4;

/// Size of the failure packet carrying a message of `msg_len` bytes (the
/// sealed size; the message length itself is only known after
/// [`unwrap`], as padding hides it).
pub const fn failure_len(msg_len: usize) -> usize {
    let body = if msg_len > MIN_PADDED_LEN {
        msg_len
    } else {
        MIN_PADDED_LEN
    };
    HMAC_LEN + 2 + 2 + body
}

/// Creates the failure packet at the failing hop, from its shared secret,
/// into `out` (at least [`failure_len`] bytes); returns the bytes written.
///
/// # Errors
///
/// [`Error::TooLong`] for a message over [`MAX_MESSAGE_LEN`] bytes,
/// [`Error::BufferTooSmall`] when `out` is too short.
pub fn create_into(ss: &SharedSecret, message: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    let msg_len = u16::try_from(message.len()).map_err(|_| Error::TooLong {
        len: message.len(),
        max: MAX_MESSAGE_LEN,
    })?;
    let n = failure_len(message.len());
    let out = out
        .get_mut(..n)
        .ok_or(Error::BufferTooSmall { required: n })?;
    let pad = n - MIN_FAILURE_LEN - message.len();
    let (mac, body) = out.split_at_mut(HMAC_LEN);
    body[..2].copy_from_slice(&msg_len.to_be_bytes());
    body[2..2 + message.len()].copy_from_slice(message);
    let rest = &mut body[2 + message.len()..];
    rest[..2].copy_from_slice(&(pad as u16).to_be_bytes());
    rest[2..].fill(0);
    let um = derive(KeyKind::Um, ss.expose());
    mac.copy_from_slice(&hmac_sha256(um.expose(), &[body]));
    wrap_in_place(ss, out);
    Ok(n)
}

/// [`create_into`], returning a new buffer.
///
/// # Errors
///
/// [`Error::TooLong`] for a message over [`MAX_MESSAGE_LEN`] bytes.
pub fn create_to_vec(ss: &SharedSecret, message: &[u8]) -> Result<Vec<u8>, Error> {
    let mut v = vec![0u8; failure_len(message.len())];
    create_into(ss, message, &mut v)?;
    Ok(v)
}

/// Adds this hop's obfuscation layer to a failure packet passing back, in
/// place.
pub fn wrap_in_place(ss: &SharedSecret, packet: &mut [u8]) {
    let ammag = derive(KeyKind::Ammag, ss.expose());
    KeyStream::new(ammag.expose(), 0).xor(packet);
}

/// A failure attributed to a hop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Index of the failing hop in the path (0 = first hop).
    pub hop: usize,
    /// The failure message (`failuremsg`: a failure code and its data).
    pub message: Vec<u8>,
}

/// At the origin: peels the layers hop by hop, checking each hop's `um` HMAC in
/// constant time (always over the whole path), and returns the first hop whose
/// HMAC verifies with its message.
///
/// # Errors
///
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`],
/// [`Error::Auth`] when no hop's HMAC verifies (the failure cannot be
/// attributed), [`Error::BadFailure`] when the attributed packet's lengths do
/// not add up.
pub fn unwrap(secrets: &HopSecrets, packet: &[u8]) -> Result<Failure, Error> {
    if packet.len() < MIN_FAILURE_LEN {
        return Err(Error::Truncated {
            len: packet.len(),
            min: MIN_FAILURE_LEN,
        });
    }
    // Every hop's layer is removed and every HMAC checked, whichever hop
    // failed, so the work does not depend on the failing position.
    let mut buf = packet.to_vec();
    let mut found: Option<(usize, Vec<u8>)> = None;
    for (hop, ss) in secrets.as_slice().iter().enumerate() {
        wrap_in_place(ss, &mut buf);
        let um = derive(KeyKind::Um, ss.expose());
        let (mac, body) = buf.split_at(HMAC_LEN);
        let ok = ct_eq(&hmac_sha256(um.expose(), &[body]), mac);
        if ok && found.is_none() {
            found = Some((hop, body.to_vec()));
        }
    }
    if let Some((hop, body)) = found {
        let len = u16::from_be_bytes([body[0], body[1]]) as usize;
        let message = body.get(2..2 + len).ok_or(Error::BadFailure)?.to_vec();
        let pad_at = 2 + len;
        let pad_len = body
            .get(pad_at..pad_at + 2)
            .map(|p| u16::from_be_bytes([p[0], p[1]]) as usize)
            .ok_or(Error::BadFailure)?;
        if pad_at + 2 + pad_len != body.len() {
            return Err(Error::BadFailure);
        }
        return Ok(Failure { hop, message });
    }
    Err(Error::Auth)
}
