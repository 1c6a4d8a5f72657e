//! Failure onions (BOLT #4 "Returning Errors"): created by the failing hop,
//! re-obfuscated by every hop on the way back, unwrapped and attributed by the
//! origin, with or without [`attribution_data`](super::attribution).
//!
//! Packet: `HMAC(32) | failure_len(u16) | failure_message | pad_len(u16) | pad`,
//! the HMAC keyed with `um` over everything after it, the whole packet XORed
//! with the `ammag` stream of each hop.
//!
//! Return packets are at most [`MAX_RETURN_LEN`] (32,768) bytes: a failing
//! hop creates none longer, and a hop passing a longer one back truncates it
//! to its first 32,768 bytes instead of refusing it (earlier versions of
//! BOLT #4 allowed them).
//!
//! Hold times are given in milliseconds and travel in units of 100 ms
//! ([`super::attribution::hold_time_units`]: rounded down, saturating). Hops
//! are counted from 1 (the first hop after the origin). A hop decides with
//! [`Incoming`] whether it adds attribution data ([`create_at`],
//! [`relay_in_place`]); the origin reads it up to a blinded path's
//! introduction node ([`HopSecrets::with_blinded_tail`](super::HopSecrets::with_blinded_tail)).

use super::attribution::{hold_time_units, AttributionData, Incoming};
use super::keys::{derive, KeyKind, SharedSecret};
use super::{Error, HMAC_LEN};
use crate::primitives::chacha20::KeyStream;
use crate::primitives::hmac_stream::HmacSha256Stream;

/// `failure_len + pad_len` is padded up to at least this many bytes.
pub const MIN_PADDED_LEN: usize = 256;

/// Longest return packet (BOLT #4: 32 KiB, leaving room in
/// `update_fail_htlc` for attribution data); hops truncate longer ones.
pub const MAX_RETURN_LEN: usize = 32_768;

/// Shortest failure packet: the HMAC and the two length fields.
pub const MIN_FAILURE_LEN: usize = HMAC_LEN + 4;

/// Longest failure message a packet can carry: what fits in
/// [`MAX_RETURN_LEN`] with the HMAC and the two length fields.
pub const MAX_MESSAGE_LEN: usize = MAX_RETURN_LEN - MIN_FAILURE_LEN;

/// Size of the failure packet carrying a message of `msg_len` bytes (the
/// sealed size; the message length itself is only known after
/// [`unwrap`], as padding hides it).
pub const fn failure_len(msg_len: usize) -> usize {
    padded_failure_len(msg_len, MIN_PADDED_LEN)
}

/// The `um` key of `ss`, keyed once for the HMACs that use it.
pub(crate) fn um(ss: &SharedSecret) -> HmacSha256Stream {
    HmacSha256Stream::new(derive(KeyKind::Um, ss.expose()).expose())
}

/// Applies (or removes) hop `ss`'s `ammag` stream.
pub(crate) fn ammag(ss: &SharedSecret, packet: &mut [u8]) {
    let key = derive(KeyKind::Ammag, ss.expose());
    KeyStream::new(key.expose(), 0).xor(packet);
}

/// Size of a failure packet whose message and padding take at least
/// `min_padded` bytes.
const fn padded_failure_len(msg_len: usize, min_padded: usize) -> usize {
    let body = if msg_len > min_padded {
        msg_len
    } else {
        min_padded
    };
    HMAC_LEN + 2 + 2 + body
}

/// Writes the packet before obfuscation (HMAC included) into `out`, the
/// message and its padding taking at least `min_padded` bytes; returns its
/// length.
fn plain_into(
    um: &HmacSha256Stream,
    message: &[u8],
    min_padded: usize,
    out: &mut [u8],
) -> Result<usize, Error> {
    if message.len() > MAX_MESSAGE_LEN {
        return Err(Error::TooLong {
            len: message.len(),
            max: MAX_MESSAGE_LEN,
        });
    }
    let msg_len = message.len() as u16;
    let n = padded_failure_len(message.len(), min_padded);
    if n > MAX_RETURN_LEN {
        return Err(Error::TooLong {
            len: n,
            max: MAX_RETURN_LEN,
        });
    }
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
    let mut m = um.clone();
    m.update(body);
    mac.copy_from_slice(&m.finalize());
    Ok(n)
}

/// Creates the failure packet at the failing hop, from its shared secret,
/// into `out` (at least [`failure_len`] bytes); returns the bytes written.
/// Without attribution data: see [`create_attributed_into`].
///
/// # Errors
///
/// [`Error::TooLong`] for a message over [`MAX_MESSAGE_LEN`] bytes,
/// [`Error::BufferTooSmall`] when `out` is too short.
pub fn create_into(ss: &SharedSecret, message: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    let n = plain_into(&um(ss), message, MIN_PADDED_LEN, out)?;
    ammag(ss, &mut out[..n]);
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

/// Creates the failure packet into `out` (as [`create_into`]) and its
/// attribution data into `attribution`, reporting `hold_time_ms` as this
/// hop's hold time; returns the packet's length.
///
/// # Errors
///
/// As [`create_into`]; on error `attribution` is unchanged.
pub fn create_attributed_into(
    ss: &SharedSecret,
    message: &[u8],
    hold_time_ms: u64,
    out: &mut [u8],
    attribution: &mut AttributionData,
) -> Result<usize, Error> {
    create_attributed_padded(ss, message, MIN_PADDED_LEN, hold_time_ms, out, attribution)
}

crate::visibility::pub_if_test_vectors! {
    /// [`create_attributed_into`] with the message and its padding taking
    /// at least `min_padded` bytes instead of [`MIN_PADDED_LEN`] (BOLT #4's
    /// attribution vectors pad to 1024). Nodes pad to 256, as the
    /// specification asks; this exists to reproduce the vectors.
    ///
    /// # Errors
    ///
    /// As [`create_into`]; [`Error::TooLong`] when the padding would not
    /// fit its `u16` length.
    fn create_attributed_padded_into(
        ss: &SharedSecret,
        message: &[u8],
        min_padded: usize,
        hold_time_ms: u64,
        out: &mut [u8],
        attribution: &mut AttributionData,
    ) -> Result<usize, Error> {
        create_attributed_padded(ss, message, min_padded, hold_time_ms, out, attribution)
    }
}

fn create_attributed_padded(
    ss: &SharedSecret,
    message: &[u8],
    min_padded: usize,
    hold_time_ms: u64,
    out: &mut [u8],
    attribution: &mut AttributionData,
) -> Result<usize, Error> {
    let n = plain_into(&um(ss), message, min_padded, out)?;
    let mut a = AttributionData::new();
    add_layer(ss, hold_time_ms, &out[..n], &mut a);
    ammag(ss, &mut out[..n]);
    *attribution = a;
    Ok(n)
}

/// [`create_attributed_into`], returning the packet and its attribution
/// data.
///
/// # Errors
///
/// As [`create_into`].
pub fn create_attributed_to_vec(
    ss: &SharedSecret,
    message: &[u8],
    hold_time_ms: u64,
) -> Result<(Vec<u8>, AttributionData), Error> {
    let mut v = vec![0u8; failure_len(message.len())];
    let mut a = AttributionData::new();
    create_attributed_into(ss, message, hold_time_ms, &mut v, &mut a)?;
    Ok((v, a))
}

pub(crate) fn check_len(packet: &[u8]) -> Result<(), Error> {
    if packet.len() < MIN_FAILURE_LEN {
        return Err(Error::Truncated {
            len: packet.len(),
            min: MIN_FAILURE_LEN,
        });
    }
    Ok(())
}

/// The part of a received return packet a hop passes back: its first
/// [`MAX_RETURN_LEN`] bytes.
fn truncated(packet: &mut [u8]) -> Result<&mut [u8], Error> {
    check_len(packet)?;
    let n = packet.len().min(MAX_RETURN_LEN);
    Ok(&mut packet[..n])
}

/// Adds this hop's obfuscation layer to a failure packet passing back, in
/// place; returns the packet to send upstream: `packet` itself, or its first
/// [`MAX_RETURN_LEN`] bytes when it is longer (the rest is left as it was).
/// Without attribution data: see [`wrap_attributed_in_place`].
///
/// # Errors
///
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`]
/// (left unchanged).
pub fn wrap_in_place<'a>(ss: &SharedSecret, packet: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
    let packet = truncated(packet)?;
    ammag(ss, packet);
    Ok(packet)
}

/// Adds this hop's layer to a failure packet passing back and to its
/// attribution data, in place, reporting `hold_time_ms` as this hop's hold
/// time; returns the packet to send upstream (its first [`MAX_RETURN_LEN`]
/// bytes when longer: the HMACs cover what is sent). `attribution` is what
/// came from downstream, or [`AttributionData::new`] when nothing did (the
/// hops after this one then cannot vouch, this one and those before it
/// still can). For a hop inside a blinded path, see [`relay_in_place`].
///
/// # Errors
///
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`];
/// then neither input is changed.
pub fn wrap_attributed_in_place<'a>(
    ss: &SharedSecret,
    hold_time_ms: u64,
    packet: &'a mut [u8],
    attribution: &mut AttributionData,
) -> Result<&'a mut [u8], Error> {
    let packet = truncated(packet)?;
    attribution.shift_right();
    add_layer(ss, hold_time_ms, packet, attribution);
    ammag(ss, packet);
    Ok(packet)
}

/// This hop's hold time and HMACs over `packet` (as it received or created
/// it), then its `ammagext` stream.
fn add_layer(ss: &SharedSecret, hold_time_ms: u64, packet: &[u8], a: &mut AttributionData) {
    a.add_hop(&um(ss), hold_time_units(hold_time_ms), packet);
    a.crypt(ss);
}

/// At the failing hop, as BOLT #4 has it for an HTLC that arrived as
/// `incoming`: the failure packet and, unless the HTLC carried a
/// `path_key` ([`Incoming::Blinded`]), its attribution data with this hop's
/// hold time.
///
/// # Errors
///
/// As [`create_into`].
pub fn create_at(
    ss: &SharedSecret,
    incoming: Incoming,
    message: &[u8],
    hold_time_ms: u64,
) -> Result<(Vec<u8>, Option<AttributionData>), Error> {
    if incoming.adds_attribution() {
        let (p, a) = create_attributed_to_vec(ss, message, hold_time_ms)?;
        Ok((p, Some(a)))
    } else {
        Ok((create_to_vec(ss, message)?, None))
    }
}

/// At a hop passing a failure back, as BOLT #4 has it for an HTLC that
/// arrived as `incoming`: truncates the packet to [`MAX_RETURN_LEN`] bytes,
/// adds this hop's layer to it and, unless the HTLC carried a `path_key`,
/// adds this hop's hold time and HMACs to `attribution` (shifting what came
/// from downstream, or starting a new block when nothing did). A hop inside
/// a blinded path ([`Incoming::Blinded`]) leaves `None` in `attribution`.
/// Returns the packet to send upstream.
///
/// # Errors
///
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`];
/// then neither input is changed.
pub fn relay_in_place<'a>(
    ss: &SharedSecret,
    incoming: Incoming,
    hold_time_ms: u64,
    packet: &'a mut [u8],
    attribution: &mut Option<AttributionData>,
) -> Result<&'a mut [u8], Error> {
    let packet = truncated(packet)?;
    *attribution = incoming.pass_on(attribution.take(), |a| {
        add_layer(ss, hold_time_ms, packet, a)
    });
    ammag(ss, packet);
    Ok(packet)
}

mod origin;

pub use origin::{unwrap, unwrap_attributed, unwrap_batch, Failure, UnwrapItem, Unwrapped};
