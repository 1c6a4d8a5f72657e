//! The origin's side of failures: every hop's layer removed, the failing
//! hop found by its packet HMAC, the attribution data read.

use super::{ammag, check_len, um};
use crate::batch::Batch;
use crate::primitives::sha::ct_eq;
use crate::sphinx::attribution::{Attribution, Walk, MAX_HOPS};
use crate::sphinx::keys::HopSecrets;
use crate::sphinx::{Error, HMAC_LEN};

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
    /// Whether the attribution data was absent, vouched for every hop that
    /// can vouch up to the failing one, or broke. Hops inside a blinded
    /// path ([`HopSecrets::with_blinded_tail`]) add none and are not read.
    pub attribution: Attribution,
    /// The hold time of every hop that vouched, in milliseconds, in path
    /// order.
    pub hold_times_ms: Vec<u64>,
    /// The hop to blame, counted from 1, when the message cannot be trusted
    /// or the attribution breaks: the first hop whose attribution HMAC does
    /// not verify; else, for an unattributable packet, hop 1 when
    /// attribution is absent (and hop 1 adds it), and when it is valid the
    /// first hop that could not vouch: the route's last hop on a route of up
    /// to 20 hops, hop 21 when more hops precede a blinded path, and none
    /// when the packet broke inside a blinded path (the origin cannot tell
    /// its hops apart); else, for a malformed message, the hop that sent it.
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
/// and, for the first 20 hops that add attribution data (those before a
/// blinded tail, see [`HopSecrets::with_blinded_tail`]), its attribution
/// HMAC (in constant time, always over the whole route, whichever hop
/// failed), and reports the failing hop, its message, the hold times and
/// the hop to blame. `attribution` is the `attribution_data` that came
/// back, if any; one of the wrong length breaks at hop 1 (that hop sent
/// malformed data).
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route, [`Error::Truncated`] for a packet
/// shorter than [`MIN_FAILURE_LEN`](super::MIN_FAILURE_LEN). An unattributable or malformed packet
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
    let mut walk = Walk::new(secrets, attribution);
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
    let attributing = secrets.attributing();
    let blamed_hop = walk.broken_at.or(match (hop, &message, status) {
        (Some(_), Some(_), _) => None,
        (Some(h), None, _) => Some(h),
        (None, _, Attribution::Absent) => (walk.vouching() > 0).then_some(1),
        (None, _, _) if attributing > MAX_HOPS => Some(MAX_HOPS + 1),
        (None, _, _) => (attributing == n).then_some(n),
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
/// [`Error::Truncated`] for a packet shorter than [`MIN_FAILURE_LEN`](super::MIN_FAILURE_LEN),
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
