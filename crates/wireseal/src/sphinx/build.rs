//! Onion construction (sender side).

use super::keys::{derive, session_secrets, HopSecrets, KeyKind};
use super::packet::Onion;
use super::{bigsize, Area, Error, Padding, HMAC_LEN};
use crate::primitives::chacha20::KeyStream;
use crate::primitives::secp256k1::{PrivateKey, PublicKey, PUBLIC_KEY_LEN};
use crate::primitives::sha::hmac_sha256;
use crate::secret::Secret;

/// One hop of a route: the key the onion layer is encrypted to and the hop's
/// payload (the TLV stream, without its BigSize length prefix).
#[derive(Debug, Clone, Copy)]
pub struct Hop<'a> {
    /// The hop's node id (or blinded node id).
    pub pubkey: PublicKey,
    /// The TLV payload, without the BigSize length prefix; not empty.
    pub payload: &'a [u8],
}

impl Hop<'_> {
    /// Bytes this hop takes in the payload area: length prefix, payload, HMAC.
    pub fn frame_len(&self) -> usize {
        bigsize::len(self.payload.len() as u64) + self.payload.len() + HMAC_LEN
    }
}

/// What to build: the hops, the associated data the HMACs commit to, the
/// payload [`Area`] and how its unused tail is filled ([`Padding`]).
///
/// `Route::new(hops, associated_data)` is a payment onion (area
/// [`Area::Payment`], the default [`Padding`]); `with_area` and
/// `with_padding` change either.
#[derive(Debug, Clone, Copy)]
pub struct Route<'a> {
    hops: &'a [Hop<'a>],
    associated_data: &'a [u8],
    area: Area,
    padding: Padding,
}

impl<'a> Route<'a> {
    /// A route over `hops` (first to last; at least one) whose HMACs commit
    /// to `associated_data` (the payment hash for payments, empty for onion
    /// messages), with [`Area::Payment`] and [`Padding::default`].
    pub const fn new(hops: &'a [Hop<'a>], associated_data: &'a [u8]) -> Self {
        Self {
            hops,
            associated_data,
            area: Area::Payment,
            padding: Padding::Deterministic,
        }
    }

    /// The same route with payload area `area`.
    pub const fn with_area(self, area: Area) -> Self {
        Self { area, ..self }
    }

    /// The same route with padding `padding`.
    pub const fn with_padding(self, padding: Padding) -> Self {
        Self { padding, ..self }
    }

    /// The hops, first to last.
    pub const fn hops(&self) -> &'a [Hop<'a>] {
        self.hops
    }

    /// The associated data.
    pub const fn associated_data(&self) -> &'a [u8] {
        self.associated_data
    }

    /// The payload area.
    pub const fn area(&self) -> Area {
        self.area
    }

    /// The padding.
    pub const fn padding(&self) -> Padding {
        self.padding
    }

    /// Size of the onion this route builds ([`Area::onion_len`]).
    pub const fn onion_len(&self) -> usize {
        self.area.onion_len()
    }
}

/// Builds an onion for `route` with `session_key`.
///
/// Returns the onion and the per-hop shared secrets, which the origin keeps to
/// attribute a failure later ([`super::failure::unwrap`]).
///
/// # Errors
///
/// [`Error::NoHops`] for an empty route, [`Error::EmptyPayload`] for an
/// empty hop payload (its zero length prefix is the retired legacy marker,
/// which [`Onion::peel`] rejects), and [`Error::TooLong`] when the hop frames
/// (`len`) do not fit in the payload area (`max`).
pub fn build(session_key: &PrivateKey, route: &Route<'_>) -> Result<(Onion, HopSecrets), Error> {
    let mut routing_info = vec![0u8; route.area.bytes()];
    let (ephemeral, secrets, hmac) = build_routing_info(session_key, route, &mut routing_info)?;
    Ok((
        Onion {
            ephemeral,
            routing_info,
            hmac,
        },
        secrets,
    ))
}

/// Like [`build`], writing the serialized onion into `out` (at least
/// [`Route::onion_len`] bytes); returns the bytes written and the secrets.
///
/// # Errors
///
/// [`Error::BufferTooSmall`] when `out` is too short, otherwise as [`build`].
pub fn build_into(
    session_key: &PrivateKey,
    route: &Route<'_>,
    out: &mut [u8],
) -> Result<(usize, HopSecrets), Error> {
    let n = route.onion_len();
    let out = out
        .get_mut(..n)
        .ok_or(Error::BufferTooSmall { required: n })?;
    let (head, rest) = out.split_at_mut(1 + PUBLIC_KEY_LEN);
    let (ri, mac) = rest.split_at_mut(route.area.bytes());
    let (ephemeral, secrets, hmac) = build_routing_info(session_key, route, ri)?;
    head[0] = super::VERSION;
    head[1..].copy_from_slice(&ephemeral.serialize());
    mac.copy_from_slice(&hmac);
    Ok((n, secrets))
}

/// Like [`build`], returning the serialized onion in a new buffer.
///
/// # Errors
///
/// As [`build`].
pub fn build_to_vec(
    session_key: &PrivateKey,
    route: &Route<'_>,
) -> Result<(Vec<u8>, HopSecrets), Error> {
    let mut out = vec![0u8; route.onion_len()];
    let (_, secrets) = build_into(session_key, route, &mut out)?;
    Ok((out, secrets))
}

fn build_routing_info(
    session_key: &PrivateKey,
    route: &Route<'_>,
    ri: &mut [u8],
) -> Result<(PublicKey, HopSecrets, [u8; HMAC_LEN]), Error> {
    let Route {
        hops,
        associated_data,
        padding,
        ..
    } = *route;
    let area = ri.len();
    let n = hops.len();
    let last = hops.last().ok_or(Error::NoHops)?;
    // A zero length prefix marks the retired legacy payload: no peer could
    // peel it, so refuse to build it.
    if let Some(i) = hops.iter().position(|h| h.payload.is_empty()) {
        return Err(Error::EmptyPayload { hop: i + 1 });
    }
    let total: usize = hops.iter().map(Hop::frame_len).sum();
    if total > area {
        return Err(Error::TooLong {
            len: total,
            max: area,
        });
    }
    let (ephemeral, secrets) = session_secrets(session_key, hops.iter().map(|h| h.pubkey))?;

    // Filler: what the last hop's area tail looks like after every earlier hop
    // shifted in its own stream. Only the bytes that end up there are generated.
    let filler_len = total - last.frame_len();
    let mut filler = vec![0u8; filler_len];
    let rhos: Vec<Secret<32>> = secrets
        .as_slice()
        .iter()
        .map(|ss| derive(KeyKind::Rho, ss.expose()))
        .collect();
    let mut used = 0usize;
    for (hop, rho) in hops[..n - 1].iter().zip(&rhos) {
        let start = area - used;
        used += hop.frame_len();
        KeyStream::new(rho.expose(), start as u64).xor(&mut filler[..used]);
    }

    match padding {
        Padding::Deterministic => {
            let pad = derive(KeyKind::Pad, session_key.to_secret().expose());
            KeyStream::new(pad.expose(), 0).fill(ri);
        }
        Padding::Random => crate::entropy::fill_random(ri),
    }

    let mut next_hmac = [0u8; HMAC_LEN];
    for (i, ((hop, ss), rho)) in hops
        .iter()
        .zip(secrets.as_slice())
        .zip(&rhos)
        .enumerate()
        .rev()
    {
        let frame = hop.frame_len();
        ri.copy_within(..area - frame, frame);
        let p = bigsize::write(hop.payload.len() as u64, ri);
        ri[p..p + hop.payload.len()].copy_from_slice(hop.payload);
        ri[p + hop.payload.len()..frame].copy_from_slice(&next_hmac);
        KeyStream::new(rho.expose(), 0).xor(ri);
        if i == n - 1 {
            ri[area - filler_len..].copy_from_slice(&filler);
        }
        let mu = derive(KeyKind::Mu, ss.expose());
        next_hmac = hmac_sha256(mu.expose(), &[ri, associated_data]);
    }
    Ok((ephemeral, secrets, next_hmac))
}
