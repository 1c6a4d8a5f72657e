//! `wireseal.sphinx` failure packets with BOLT #4 attribution data, and the
//! reply to an onion that does not peel: the same operations, hop numbers
//! (from 1) and field names as `wireseal sphinx error` on the command line.

use super::{private_key, public_key, shared_secret};
use crate::buffers::{batch_or_default, to_bytes, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::failure::{self, UnwrapItem};
use wireseal::sphinx::malformed::Malformed as RMalformed;
use wireseal::sphinx::{blinding, keys, AttributionData, HopSecrets, Incoming};

/// A failure packet as a hop sends it back: `packet` (`update_fail_htlc`'s
/// `reason`) and its `attribution_data` (920 bytes; `None` from a hop that
/// acts without attribution support).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct FailurePacket {
    /// The failure packet.
    packet: Py<PyBytes>,
    /// Its attribution data, or `None`.
    attribution_data: Option<Py<PyBytes>>,
}

#[pymethods]
impl FailurePacket {
    fn __repr__(&self) -> String {
        format!(
            "FailurePacket(attribution={})",
            self.attribution_data.is_some()
        )
    }
}

/// What the origin learns from a failure: `hop` (the failing hop, counted
/// from 1; `None` when no hop's HMAC verifies), `message` (its failure
/// message; `None` when there is no such hop or the message is malformed),
/// `hold_times_ms` (one per hop that vouched, in path order), `attribution`
/// (`"valid"`, `"absent"` or `"broken"`) and `blamed_hop` (counted from 1,
/// when the message cannot be trusted or the attribution breaks).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct Unwrapped {
    /// The failing hop, from 1, or `None`.
    hop: Option<usize>,
    /// The failure message, or `None`.
    message: Option<Py<PyBytes>>,
    /// Hold times in milliseconds, one per vouching hop.
    hold_times_ms: Vec<u64>,
    /// `"valid"`, `"absent"` or `"broken"`.
    attribution: String,
    /// The hop to blame, from 1, or `None`.
    blamed_hop: Option<usize>,
}

#[pymethods]
impl Unwrapped {
    fn __repr__(&self) -> String {
        format!(
            "Unwrapped(hop={:?}, attribution={:?}, blamed_hop={:?})",
            self.hop, self.attribution, self.blamed_hop
        )
    }
}

fn unwrapped(py: Python<'_>, u: failure::Unwrapped) -> Unwrapped {
    Unwrapped {
        hop: u.hop,
        message: u.message.map(|m| to_bytes(py, &m).unbind()),
        hold_times_ms: u.hold_times_ms,
        attribution: u.attribution.to_string(),
        blamed_hop: u.blamed_hop,
    }
}

/// The route's secrets, its last `blinded_hops` inside a blinded path.
pub(super) fn secrets(list: &[Vec<u8>], blinded_hops: usize) -> PyResult<HopSecrets> {
    HopSecrets::new(
        list.iter()
            .map(|s| shared_secret(s))
            .collect::<PyResult<Vec<_>>>()?,
    )
    .with_blinded_tail(blinded_hops)
    .map_err(errors::sphinx)
}

/// How the hop's HTLC arrived: `blinded` when a `path_key` came with it.
pub(super) fn incoming(blinded: bool) -> Incoming {
    if blinded {
        Incoming::Blinded
    } else {
        Incoming::Unblinded
    }
}

pub(super) fn block(data: Option<&[u8]>) -> PyResult<AttributionData> {
    data.map_or(Ok(AttributionData::new()), |d| {
        AttributionData::from_slice(d).map_err(errors::sphinx)
    })
}

fn packet_out(py: Python<'_>, packet: &[u8], a: Option<&AttributionData>) -> FailurePacket {
    FailurePacket {
        packet: to_bytes(py, packet).unbind(),
        attribution_data: a.map(|a| to_bytes(py, a.as_bytes()).unbind()),
    }
}

/// The shared secret (32 bytes) of a hop with node key `node_key` that
/// received an onion with ephemeral key `ephemeral_key` (`Peeled` has it
/// too): what the failure and fulfill calls take.
#[pyfunction]
fn hop_shared_secret<'py>(
    py: Python<'py>,
    node_key: &[u8],
    ephemeral_key: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let k = private_key(node_key)?;
    let e = public_key(ephemeral_key)?;
    Ok(to_bytes(py, keys::shared_secret(&k, &e).expose()))
}

/// At the failing hop: the failure packet carrying `message` (a failure
/// code and its data) and its attribution data reporting `hold_time_ms`
/// (0 when `None`). `blinded=True` is a hop whose HTLC came with a
/// `path_key` (inside a blinded path): no attribution data, as BOLT #4 has
/// it. `attribution=False` acts as a hop without attribution support.
#[pyfunction]
#[pyo3(signature = (shared_secret, message, *, hold_time_ms=None, attribution=true, blinded=false))]
fn failure_create(
    py: Python<'_>,
    shared_secret: &[u8],
    message: &[u8],
    hold_time_ms: Option<u64>,
    attribution: bool,
    blinded: bool,
) -> PyResult<FailurePacket> {
    let ss = super::shared_secret(shared_secret)?;
    if !attribution {
        let p = failure::create_to_vec(&ss, message).map_err(errors::sphinx)?;
        return Ok(packet_out(py, &p, None));
    }
    let hold = hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS);
    let (p, a) =
        failure::create_at(&ss, incoming(blinded), message, hold).map_err(errors::sphinx)?;
    Ok(packet_out(py, &p, a.as_ref()))
}

/// At an intermediate hop: adds this hop's layer to `packet` (its first
/// 32,768 bytes when longer: the rest is dropped) and to `attribution_data`
/// (a new block when `None`), reporting `hold_time_ms` (0 when `None`).
/// `blinded=True` (a `path_key` came with the HTLC) adds and passes on no
/// attribution data; `attribution=False` wraps the packet only.
#[pyfunction]
#[pyo3(signature = (shared_secret, packet, *, attribution_data=None, hold_time_ms=None, attribution=true, blinded=false))]
fn failure_wrap(
    py: Python<'_>,
    shared_secret: &[u8],
    packet: &[u8],
    attribution_data: Option<&[u8]>,
    hold_time_ms: Option<u64>,
    attribution: bool,
    blinded: bool,
) -> PyResult<FailurePacket> {
    let ss = super::shared_secret(shared_secret)?;
    let mut p = packet.to_vec();
    if !attribution {
        let sent = failure::wrap_in_place(&ss, &mut p).map_err(errors::sphinx)?;
        return Ok(packet_out(py, sent, None));
    }
    let mut a = Some(block(attribution_data)?);
    let hold = hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS);
    let sent = failure::relay_in_place(&ss, incoming(blinded), hold, &mut p, &mut a)
        .map_err(errors::sphinx)?;
    Ok(packet_out(py, sent, a.as_ref()))
}

/// At the origin: reads `packet` and its `attribution_data` (if any came
/// back) over the route's `shared_secrets` (path order), the last
/// `blinded_hops` of them inside a blinded path (they add no attribution
/// data; it is read up to the introduction node). Returns an `Unwrapped`;
/// an unattributable packet is a result, not an exception.
#[pyfunction]
#[pyo3(signature = (shared_secrets, packet, attribution_data=None, *, blinded_hops=0))]
fn failure_unwrap(
    py: Python<'_>,
    shared_secrets: Vec<Vec<u8>>,
    packet: &[u8],
    attribution_data: Option<&[u8]>,
    blinded_hops: usize,
) -> PyResult<Unwrapped> {
    let hs = secrets(&shared_secrets, blinded_hops)?;
    let u = py
        .allow_threads(|| failure::unwrap_attributed(&hs, packet, attribution_data))
        .map_err(errors::sphinx)?;
    Ok(unwrapped(py, u))
}

/// `failure_unwrap` for many failures `[(shared_secrets, packet,
/// attribution_data or None), ...]` on `batch` (all cores by default).
/// Returns, in input order, an `Unwrapped` or the exception instance that
/// unwrapping that item alone would raise.
#[pyfunction]
#[pyo3(signature = (items, *, batch=None))]
#[allow(clippy::type_complexity)]
fn failure_unwrap_batch(
    py: Python<'_>,
    items: Vec<(Vec<Vec<u8>>, Vec<u8>, Option<Vec<u8>>)>,
    batch: Option<&Bound<'_, Batch>>,
) -> PyResult<Vec<PyObject>> {
    let hs = items
        .iter()
        .map(|(s, _, _)| secrets(s, 0))
        .collect::<PyResult<Vec<_>>>()?;
    let refs: Vec<UnwrapItem<'_>> = hs
        .iter()
        .zip(&items)
        .map(|(s, (_, p, a))| UnwrapItem {
            secrets: s,
            packet: p,
            attribution: a.as_deref(),
        })
        .collect();
    let b = batch_or_default(batch);
    let res = py.allow_threads(|| failure::unwrap_batch(b, &refs));
    res.into_iter()
        .map(|r| match r {
            Ok(u) => Ok(Py::new(py, unwrapped(py, u))?.into_any()),
            Err(e) => Ok(errors::sphinx(e).into_value(py).into_any()),
        })
        .collect()
}

/// The `update_fail_malformed_htlc` reply of a hop that cannot peel its
/// onion: `failure_code`, `failure` (its BOLT #4 name), `sha256_of_onion`
/// and `message` (what the hop before passes to `failure_create`).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct Malformed {
    /// The failure code (`BADONION` set).
    failure_code: u16,
    /// `"invalid_onion_version"`, `"invalid_onion_hmac"` or `"invalid_onion_key"`.
    failure: String,
    /// SHA-256 of the onion as received.
    sha256_of_onion: Py<PyBytes>,
    /// The failure code and the hash: the message of the failure the hop
    /// before creates.
    message: Py<PyBytes>,
}

#[pymethods]
impl Malformed {
    fn __repr__(&self) -> String {
        format!("Malformed(failure={:?})", self.failure)
    }
}

/// At a hop, forwarding or final: the `Malformed` reply its onion calls for
/// (`node_key`, and the HTLC's `path_key` for a hop inside a blinded path),
/// or `None` when the onion's HMAC verifies.
#[pyfunction]
#[pyo3(signature = (node_key, onion, associated_data, *, path_key=None))]
fn malformed(
    py: Python<'_>,
    node_key: &[u8],
    onion: &[u8],
    associated_data: &[u8],
    path_key: Option<&[u8]>,
) -> PyResult<Option<Malformed>> {
    let node = private_key(node_key)?;
    let unblinded = path_key
        .map(|p| blinding::unblind(&node, &public_key(p)?).map_err(errors::sphinx))
        .transpose()?;
    let key = unblinded.as_ref().map_or(&node, |u| u.blinded_privkey());
    let reply = RMalformed::reply_for(onion, key, associated_data).map_err(errors::sphinx)?;
    reply
        .map(|m| {
            Ok(Malformed {
                failure_code: m.failure_code,
                failure: m.reason().map_or("", |r| r.name()).to_string(),
                sha256_of_onion: to_bytes(py, &m.sha256_of_onion).unbind(),
                message: to_bytes(py, &m.failure_message().map_err(errors::sphinx)?).unbind(),
            })
        })
        .transpose()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FailurePacket>()?;
    m.add_class::<Unwrapped>()?;
    m.add_class::<Malformed>()?;
    m.add_function(wrap_pyfunction!(hop_shared_secret, m)?)?;
    m.add_function(wrap_pyfunction!(failure_create, m)?)?;
    m.add_function(wrap_pyfunction!(failure_wrap, m)?)?;
    m.add_function(wrap_pyfunction!(failure_unwrap, m)?)?;
    m.add_function(wrap_pyfunction!(failure_unwrap_batch, m)?)?;
    m.add_function(wrap_pyfunction!(malformed, m)?)?;
    m.add("ATTRIBUTION_LEN", wireseal::sphinx::ATTRIBUTION_LEN)?;
    m.add("MAX_RETURN_LEN", failure::MAX_RETURN_LEN)?;
    Ok(())
}
