//! What comes back with a fulfilled HTLC (BOLT #4 "Successful Payments"):
//! attribution data with every hop's hold time, and optionally a
//! `fulfillment_payload` the final node encrypts for the origin.
//!
//! * Without a payload, every hop's HMACs cover no message ([`wrap`]).
//! * With one ([`payload`]), the final node seals a `fulfillment_payload_tlvs`
//!   stream under its `fulfillment` key and its HMACs still cover no
//!   message; every hop after it on the way back covers the payload as it
//!   received it, then obfuscates it with its `ammag` stream, as it does a
//!   failure packet ([`create_at`], [`relay`]).
//! * A hop whose HTLC carried a `path_key` ([`Incoming::Blinded`]) adds no
//!   attribution data, but still obfuscates and passes on the payload: the
//!   payload is end-to-end and reveals nothing of the path.
//! * The origin ([`unwrap_returned`], [`unwrap`]) removes each hop's layers,
//!   reads the hold times up to a blinded path's introduction node
//!   ([`HopSecrets::with_blinded_tail`]) and opens the payload with the last
//!   hop's key, ignoring one whose tag or records are bad.
//!
//! Hold times are given in milliseconds and travel in units of 100 ms
//! (rounded down, saturating). Hops are counted from 1.

pub mod payload;

use super::attribution::{hold_time_units, Attribution, AttributionData, Incoming, Walk};
use super::failure::{ammag, um};
use super::keys::{HopSecrets, SharedSecret};
use super::Error;
pub use payload::{Payload, MAX_PAYLOAD_LEN};

/// At the recipient or an intermediate hop of a fulfill without a
/// `fulfillment_payload`: adds this hop's hold time and HMACs to
/// `attribution`, in place. `attribution` is what came from downstream, or
/// [`AttributionData::new`] at the recipient (and at a hop that received
/// none). A hop inside a blinded path adds none: see [`relay`].
pub fn wrap(ss: &SharedSecret, hold_time_ms: u64, attribution: &mut AttributionData) {
    attribution.shift_right();
    add_layer(ss, hold_time_ms, &[], attribution);
}

fn add_layer(ss: &SharedSecret, hold_time_ms: u64, payload: &[u8], a: &mut AttributionData) {
    a.add_hop(&um(ss), hold_time_units(hold_time_ms), payload);
    a.crypt(ss);
}

/// What a hop sends back with `update_fulfill_htlc` besides the preimage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Returned {
    /// The `fulfillment_payload`, if the final node sent one.
    pub payload: Option<Vec<u8>>,
    /// The `attribution_data`, if any.
    pub attribution: Option<AttributionData>,
}

/// At the final node, for an HTLC that arrived as `incoming`: seals
/// `records` (a `fulfillment_payload_tlvs` stream without padding, see
/// [`payload::seal`]) into a `fulfillment_payload` when given, and starts
/// the attribution data with this hop's hold time unless the HTLC carried
/// a `path_key`. The final node's HMACs do not cover the payload.
///
/// # Errors
///
/// As [`payload::seal`].
pub fn create_at(
    ss: &SharedSecret,
    incoming: Incoming,
    hold_time_ms: u64,
    records: Option<&[u8]>,
) -> Result<Returned, Error> {
    let payload = records.map(|r| payload::seal(ss, r)).transpose()?;
    let attribution = incoming.pass_on(None, |a| add_layer(ss, hold_time_ms, &[], a));
    Ok(Returned {
        payload,
        attribution,
    })
}

/// At a hop passing a fulfill back, for an HTLC that arrived as `incoming`:
/// unless the HTLC carried a `path_key`, adds this hop's hold time and
/// HMACs (over the payload as received) to the attribution data, shifting
/// what came from downstream or starting a new block; a hop inside a
/// blinded path passes none on. Then obfuscates the payload, if any, with
/// this hop's `ammag` stream.
///
/// # Errors
///
/// [`Error::TooLong`] for a payload over [`MAX_PAYLOAD_LEN`] bytes (BOLT #2:
/// a protocol violation); then `returned` is unchanged.
pub fn relay(
    ss: &SharedSecret,
    incoming: Incoming,
    hold_time_ms: u64,
    returned: &mut Returned,
) -> Result<(), Error> {
    let payload = returned.payload.as_deref().unwrap_or_default();
    if payload.len() > MAX_PAYLOAD_LEN {
        return Err(Error::TooLong {
            len: payload.len(),
            max: MAX_PAYLOAD_LEN,
        });
    }
    returned.attribution = incoming.pass_on(returned.attribution.take(), |a| {
        add_layer(ss, hold_time_ms, payload, a)
    });
    if let Some(p) = returned.payload.as_mut() {
        ammag(ss, p);
    }
    Ok(())
}

/// What the origin learns from a fulfill's attribution data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldTimes {
    /// Whether the attribution data was absent, vouched for every hop that
    /// can vouch (the first 20 before a blinded tail), or broke.
    pub attribution: Attribution,
    /// The hold time of every hop that vouched, in milliseconds, in path
    /// order.
    pub hold_times_ms: Vec<u64>,
    /// When the attribution breaks: the first hop, counted from 1, whose
    /// HMAC does not verify (it changed the data or does not support
    /// attribution).
    pub blamed_hop: Option<usize>,
}

/// What the origin learns from a fulfill: its hold times and its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fulfillment {
    /// The hold times, as [`unwrap`] reports them.
    pub hold_times: HoldTimes,
    /// The final node's `fulfillment_payload`, opened.
    pub payload: Payload,
}

/// At the origin: the hold times in a fulfill's `attribution_data` (if any
/// came back) over the route's `secrets`, for a fulfill without a
/// `fulfillment_payload`. Data of the wrong length breaks at hop 1. HMACs
/// are compared in constant time, and every hop that can vouch is processed
/// whichever one breaks.
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route.
pub fn unwrap(secrets: &HopSecrets, attribution: Option<&[u8]>) -> Result<HoldTimes, Error> {
    unwrap_returned(secrets, None, attribution).map(|f| f.hold_times)
}

/// At the origin: [`unwrap`] for a fulfill that may carry a
/// `fulfillment_payload`. Each hop before the last has its `ammag` layer
/// removed from the payload and its HMACs checked over what remains (the
/// payload as it received it); the last hop's HMACs cover no payload, and
/// its `fulfillment` key opens it ([`Payload`]: a bad tag or bad records
/// make it [`Payload::Ignored`], not an error).
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route.
pub fn unwrap_returned(
    secrets: &HopSecrets,
    payload: Option<&[u8]>,
    attribution: Option<&[u8]>,
) -> Result<Fulfillment, Error> {
    let n = secrets.len();
    if n == 0 {
        return Err(Error::NoHops);
    }
    let mut buf = payload.map(<[u8]>::to_vec);
    let mut walk = Walk::new(secrets, attribution);
    for (i, ss) in secrets.as_slice().iter().enumerate() {
        let covered = match buf.as_mut() {
            Some(b) if i + 1 < n => {
                ammag(ss, b);
                &b[..]
            }
            _ => &[][..],
        };
        walk.step(i, ss, &um(ss), covered, true);
    }
    let last = secrets.as_slice().last().ok_or(Error::NoHops)?;
    Ok(Fulfillment {
        hold_times: HoldTimes {
            attribution: walk.status(),
            hold_times_ms: walk.hold_times_ms(),
            blamed_hop: walk.broken_at,
        },
        payload: buf.map_or(Payload::Absent, |b| payload::open(last, b)),
    })
}
