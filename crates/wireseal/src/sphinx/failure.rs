//! Failure onions (BOLT #4 "Returning Errors"): created by the failing hop,
//! re-obfuscated by every hop on the way back, unwrapped and attributed by the
//! origin, with or without [`attribution_data`](super::attribution).
//!
//! Packet: `HMAC(32) | failure_len(u16) | failure_message | pad_len(u16) | pad`,
//! the HMAC keyed with `um` over everything after it, the whole packet XORed
//! with the `ammag` stream of each hop.
//!
//! Hold times are given in milliseconds and travel in units of 100 ms
//! ([`super::attribution::hold_time_units`]: rounded down, saturating). Hops
//! are counted from 1 (the first hop after the origin).

use super::attribution::{hold_time_units, Attribution, AttributionData, Walk, MAX_HOPS};
use super::keys::{derive, HopSecrets, KeyKind, SharedSecret};
use super::{Error, HMAC_LEN};
use crate::batch::Batch;
use crate::primitives::chacha20::KeyStream;
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::primitives::sha::ct_eq;

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
    padded_failure_len(msg_len, MIN_PADDED_LEN)
}

/// The `um` key of `ss`, keyed once for the HMACs that use it.
fn um(ss: &SharedSecret) -> HmacSha256Stream {
    HmacSha256Stream::new(derive(KeyKind::Um, ss.expose()).expose())
}

/// Applies (or removes) hop `ss`'s `ammag` stream.
fn ammag(ss: &SharedSecret, packet: &mut [u8]) {
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
    let msg_len = u16::try_from(message.len()).map_err(|_| Error::TooLong {
        len: message.len(),
        max: MAX_MESSAGE_LEN,
    })?;
    let n = padded_failure_len(message.len(), min_padded);
    if n - MIN_FAILURE_LEN - message.len() > MAX_MESSAGE_LEN {
        return Err(Error::TooLong {
            len: n,
            max: MAX_MESSAGE_LEN,
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
    let um = um(ss);
    let n = plain_into(&um, message, min_padded, out)?;
    let mut a = AttributionData::new();
    a.add_hop(&um, hold_time_units(hold_time_ms), &out[..n]);
    a.crypt(ss);
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

fn check_len(packet: &[u8]) -> Result<(), Error> {
    if packet.len() < MIN_FAILURE_LEN {
        return Err(Error::Truncated {
            len: packet.len(),
            min: MIN_FAILURE_LEN,
        });
    }
    Ok(())
}

/// Adds this hop's obfuscation layer to a failure packet passing back, in
/// place; returns the packet. Without attribution data: see
/// [`wrap_attributed_in_place`].
///
/// # Errors
///
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`]
/// (left unchanged).
pub fn wrap_in_place<'a>(ss: &SharedSecret, packet: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
    check_len(packet)?;
    ammag(ss, packet);
    Ok(packet)
}

/// Adds this hop's layer to a failure packet passing back and to its
/// attribution data, in place, reporting `hold_time_ms` as this hop's hold
/// time. `attribution` is what came from downstream, or
/// [`AttributionData::new`] when nothing did (the hops after this one then
/// cannot vouch, this one and those before it still can).
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
    check_len(packet)?;
    attribution.shift_right();
    attribution.add_hop(&um(ss), hold_time_units(hold_time_ms), packet);
    attribution.crypt(ss);
    ammag(ss, packet);
    Ok(packet)
}

/// A failure attributed to a hop by its packet HMAC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The failing hop, counted from 1 (the first hop after the origin).
    pub hop: usize,
    /// The failure message (`failuremsg`: a failure code and its data).
    pub message: Vec<u8>,
}

impl Failure {
    /// The failing hop's index in the route's hop list (`hop - 1`).
    pub const fn hop_index(&self) -> usize {
        self.hop.saturating_sub(1)
    }
}

/// What the origin learns from a failure packet and its attribution data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped {
    /// The hop whose packet HMAC verifies (the hop that created the
    /// failure), counted from 1; `None` when no hop's does (the packet was
    /// garbled on the way back).
    pub hop: Option<usize>,
    /// That hop's failure message; `None` when there is no such hop, or its
    /// authenticated packet is malformed inside (lengths that do not add
    /// up).
    pub message: Option<Vec<u8>>,
    /// Whether the attribution data was absent, vouched for every hop up to
    /// the failing one, or broke.
    pub attribution: Attribution,
    /// The hold time of every hop that vouched, in milliseconds, in path
    /// order.
    pub hold_times_ms: Vec<u64>,
    /// The hop to blame, counted from 1, when the message cannot be trusted
    /// or the attribution breaks: the first hop whose attribution HMAC does
    /// not verify; else, for an unattributable packet, hop 1 when
    /// attribution is absent and, when it is valid, the route's last hop
    /// (hop 21 on a longer route: the first that could not vouch); else,
    /// for a malformed message, the hop that sent it.
    pub blamed_hop: Option<usize>,
}

impl Unwrapped {
    /// The failing hop's index in the route's hop list (`hop - 1`).
    pub fn hop_index(&self) -> Option<usize> {
        self.hop.map(|h| h.saturating_sub(1))
    }

    /// The blamed hop's index in the route's hop list (`blamed_hop - 1`).
    pub fn blamed_index(&self) -> Option<usize> {
        self.blamed_hop.map(|h| h.saturating_sub(1))
    }

    /// The failure, when a hop's HMAC verifies and its message is well
    /// formed.
    pub fn failure(&self) -> Option<Failure> {
        Some(Failure {
            hop: self.hop?,
            message: self.message.clone()?,
        })
    }
}

/// The failure message inside an authenticated packet body (after the
/// HMAC), or `None` when its lengths do not add up.
fn message_of(body: &[u8]) -> Option<Vec<u8>> {
    let len = u16::from_be_bytes([*body.first()?, *body.get(1)?]) as usize;
    let message = body.get(2..2 + len)?;
    let pad_at = 2 + len;
    let pad = body.get(pad_at..pad_at + 2)?;
    let pad_len = u16::from_be_bytes([pad[0], pad[1]]) as usize;
    (pad_at + 2 + pad_len == body.len()).then(|| message.to_vec())
}

/// At the origin: removes every hop's layer, checking each hop's packet HMAC
/// and, for the first 20 hops, its attribution HMAC (in constant time,
/// always over the whole route, whichever hop failed), and reports the
/// failing hop, its message, the hold times and the hop to blame.
/// `attribution` is the `attribution_data` that came back, if any; one of
/// the wrong length breaks at hop 1 (that hop sent malformed data).
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route, [`Error::Truncated`] for a packet
/// shorter than [`MIN_FAILURE_LEN`]. An unattributable or malformed packet
/// is a result, not an error.
pub fn unwrap_attributed(
    secrets: &HopSecrets,
    packet: &[u8],
    attribution: Option<&[u8]>,
) -> Result<Unwrapped, Error> {
    let n = secrets.len();
    if n == 0 {
        return Err(Error::NoHops);
    }
    check_len(packet)?;
    let mut buf = packet.to_vec();
    let mut walk = Walk::new(n, attribution);
    let mut found: Option<(usize, Option<Vec<u8>>)> = None;
    for (i, ss) in secrets.as_slice().iter().enumerate() {
        ammag(ss, &mut buf);
        let um = um(ss);
        walk.step(i, ss, &um, &buf, found.is_none());
        let (mac, body) = buf.split_at(HMAC_LEN);
        let mut m = um.clone();
        m.update(body);
        if ct_eq(&m.finalize(), mac) && found.is_none() {
            found = Some((i + 1, message_of(body)));
        }
    }
    let status = walk.status();
    let (hop, message) = match found {
        Some((hop, message)) => (Some(hop), message),
        None => (None, None),
    };
    let blamed_hop = walk.broken_at.or(match (hop, &message, status) {
        (Some(_), Some(_), _) => None,
        (Some(h), None, _) => Some(h),
        (None, _, Attribution::Absent) => Some(1),
        (None, _, _) => Some(n.min(MAX_HOPS + 1)),
    });
    Ok(Unwrapped {
        hop,
        message,
        attribution: status,
        hold_times_ms: walk.hold_times_ms(),
        blamed_hop,
    })
}

/// At the origin, without attribution data: the hop whose packet HMAC
/// verifies and its message (every hop's layer is removed and every HMAC
/// checked in constant time, whichever hop failed).
///
/// # Errors
///
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`],
/// [`Error::Auth`] when no hop's HMAC verifies (the failure cannot be
/// attributed, or the route is empty), [`Error::BadFailure`] when the
/// attributed packet's lengths do not add up.
pub fn unwrap(secrets: &HopSecrets, packet: &[u8]) -> Result<Failure, Error> {
    if secrets.is_empty() {
        check_len(packet)?;
        return Err(Error::Auth);
    }
    let u = unwrap_attributed(secrets, packet, None)?;
    match (u.hop, u.message) {
        (Some(hop), Some(message)) => Ok(Failure { hop, message }),
        (Some(_), None) => Err(Error::BadFailure),
        (None, _) => Err(Error::Auth),
    }
}

/// One failure for [`unwrap_batch`]: the route's secrets, the packet and
/// its attribution data, if any.
#[derive(Debug, Clone, Copy)]
pub struct UnwrapItem<'a> {
    /// The shared secrets of the route the failed HTLC took.
    pub secrets: &'a HopSecrets,
    /// The failure packet (`update_fail_htlc`'s `reason`).
    pub packet: &'a [u8],
    /// Its `attribution_data`, if any.
    pub attribution: Option<&'a [u8]>,
}

/// [`unwrap_attributed`] for many failures on `batch`: results in input
/// order, each equal to unwrapping that item alone.
pub fn unwrap_batch(batch: &Batch, items: &[UnwrapItem<'_>]) -> Vec<Result<Unwrapped, Error>> {
    batch.map(items, |it| {
        unwrap_attributed(it.secrets, it.packet, it.attribution)
    })
}
