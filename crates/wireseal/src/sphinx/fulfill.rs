//! Attribution data of fulfilled HTLCs (BOLT #4 "Hold times for successful
//! payments"): every hop on the way back reports how long it held the HTLC,
//! with HMACs that cover no message; the origin reads the hold times.
//!
//! Hold times are given in milliseconds and travel in units of 100 ms
//! (rounded down, saturating). Hops are counted from 1.

use super::attribution::{hold_time_units, Attribution, AttributionData, Walk, MAX_HOPS};
use super::keys::{derive, HopSecrets, KeyKind, SharedSecret};
use super::Error;
use crate::primitives::hmac_stream::HmacSha256Stream;

/// At the recipient or an intermediate hop: adds this hop's hold time and
/// HMACs to `attribution`, in place. `attribution` is what came from
/// downstream, or [`AttributionData::new`] at the recipient (and at a hop
/// that received none).
pub fn wrap(ss: &SharedSecret, hold_time_ms: u64, attribution: &mut AttributionData) {
    let um = HmacSha256Stream::new(derive(KeyKind::Um, ss.expose()).expose());
    attribution.shift_right();
    attribution.add_hop(&um, hold_time_units(hold_time_ms), &[]);
    attribution.crypt(ss);
}

/// What the origin learns from a fulfill's attribution data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldTimes {
    /// Whether the attribution data was absent, vouched for every hop that
    /// can vouch (the first 20), or broke.
    pub attribution: Attribution,
    /// The hold time of every hop that vouched, in milliseconds, in path
    /// order.
    pub hold_times_ms: Vec<u64>,
    /// When the attribution breaks: the first hop, counted from 1, whose
    /// HMAC does not verify (it changed the data or does not support
    /// attribution).
    pub blamed_hop: Option<usize>,
}

/// At the origin: the hold times in a fulfill's `attribution_data` (if any
/// came back) over the route's `secrets`. Data of the wrong length breaks at
/// hop 1. HMACs are compared in constant time, and every hop that can vouch
/// is processed whichever one breaks.
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route.
pub fn unwrap(secrets: &HopSecrets, attribution: Option<&[u8]>) -> Result<HoldTimes, Error> {
    if secrets.is_empty() {
        return Err(Error::NoHops);
    }
    let mut walk = Walk::new(secrets.len(), attribution);
    for (i, ss) in secrets.as_slice().iter().enumerate().take(MAX_HOPS) {
        let um = HmacSha256Stream::new(derive(KeyKind::Um, ss.expose()).expose());
        walk.step(i, ss, &um, &[], true);
    }
    Ok(HoldTimes {
        attribution: walk.status(),
        hold_times_ms: walk.hold_times_ms(),
        blamed_hop: walk.broken_at,
    })
}
