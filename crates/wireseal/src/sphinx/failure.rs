//! Failure onions (BOLT #4 "Returning Errors"): created by the failing hop,
//! re-obfuscated by every hop on the way back, unwrapped and attributed by the
//! origin.
//!
//! Packet: `HMAC(32) | failure_len(u16) | failure_message | pad_len(u16) | pad`,
//! the HMAC keyed with `um` over everything after it, the whole packet XORed
//! with the `ammag` stream of each hop.

use super::keys::{derive, HopSecrets, KeyKind, SharedSecret};
use super::{SphinxError, HMAC_LEN};
use crate::primitives::chacha20::KeyStream;
use crate::primitives::sha::{ct_eq, hmac_sha256};

/// `failure_len + pad_len` is padded up to at least this many bytes.
pub const MIN_PADDED_LEN: usize = 256;

/// Size of the failure packet carrying a message of `msg_len` bytes.
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
pub fn create_into(
    ss: &SharedSecret,
    message: &[u8],
    out: &mut [u8],
) -> Result<usize, SphinxError> {
    let msg_len = u16::try_from(message.len()).map_err(|_| SphinxError::BadFailure)?;
    let n = failure_len(message.len());
    let out = out
        .get_mut(..n)
        .ok_or(SphinxError::BufferTooSmall { required: n })?;
    let pad = n - HMAC_LEN - 4 - message.len();
    let (mac, body) = out.split_at_mut(HMAC_LEN);
    body[..2].copy_from_slice(&msg_len.to_be_bytes());
    body[2..2 + message.len()].copy_from_slice(message);
    let rest = &mut body[2 + message.len()..];
    rest[..2].copy_from_slice(&(pad as u16).to_be_bytes());
    rest[2..].fill(0);
    let um = derive(KeyKind::Um, ss.expose());
    mac.copy_from_slice(&hmac_sha256(um.expose(), &[body]));
    wrap(ss, out);
    Ok(n)
}

/// [`create_into`], returning a new buffer.
pub fn create(ss: &SharedSecret, message: &[u8]) -> Result<Vec<u8>, SphinxError> {
    let mut v = vec![0u8; failure_len(message.len())];
    create_into(ss, message, &mut v)?;
    Ok(v)
}

/// Adds this hop's obfuscation layer to a failure packet passing back.
pub fn wrap(ss: &SharedSecret, packet: &mut [u8]) {
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
/// HMAC verifies with its message. [`SphinxError::UnattributableFailure`] when none does.
pub fn unwrap(secrets: &HopSecrets, packet: &[u8]) -> Result<Failure, SphinxError> {
    if packet.len() < HMAC_LEN + 4 {
        return Err(SphinxError::BadFailure);
    }
    // Every hop's layer is removed and every HMAC checked, whichever hop
    // failed, so the work does not depend on the failing position.
    let mut buf = packet.to_vec();
    let mut found: Option<(usize, Vec<u8>)> = None;
    for (hop, ss) in secrets.as_slice().iter().enumerate() {
        wrap(ss, &mut buf);
        let um = derive(KeyKind::Um, ss.expose());
        let (mac, body) = buf.split_at(HMAC_LEN);
        let ok = ct_eq(&hmac_sha256(um.expose(), &[body]), mac);
        if ok && found.is_none() {
            found = Some((hop, body.to_vec()));
        }
    }
    if let Some((hop, body)) = found {
        let len = u16::from_be_bytes([body[0], body[1]]) as usize;
        let message = body
            .get(2..2 + len)
            .ok_or(SphinxError::BadFailure)?
            .to_vec();
        let pad_at = 2 + len;
        let pad_len = body
            .get(pad_at..pad_at + 2)
            .map(|p| u16::from_be_bytes([p[0], p[1]]) as usize)
            .ok_or(SphinxError::BadFailure)?;
        if pad_at + 2 + pad_len != body.len() {
            return Err(SphinxError::BadFailure);
        }
        return Ok(Failure { hop, message });
    }
    Err(SphinxError::UnattributableFailure)
}
