//! `wireseal.sphinx` failure packets and fulfill hold times, with BOLT #4
//! attribution data: the same operations, hop numbers (from 1) and field
//! names as `wireseal sphinx error` / `sphinx fulfill` on the command line.

use super::{private_key, public_key, shared_secret};
use crate::buffers::{batch_or_default, to_bytes, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::failure::{self, UnwrapItem};
use wireseal::sphinx::{fulfill, keys, AttributionData, HopSecrets};

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

/// The hold times of a fulfilled HTLC: `hold_times_ms` (one per hop that
/// vouched, in path order), `attribution` (`"valid"`, `"absent"` or
/// `"broken"`) and `blamed_hop` (from 1, when it breaks).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct HoldTimes {
    /// Hold times in milliseconds, one per vouching hop.
    hold_times_ms: Vec<u64>,
    /// `"valid"`, `"absent"` or `"broken"`.
    attribution: String,
    /// The hop where it breaks, from 1, or `None`.
    blamed_hop: Option<usize>,
}

#[pymethods]
impl HoldTimes {
    fn __repr__(&self) -> String {
        format!(
            "HoldTimes(hold_times_ms={:?}, attribution={:?})",
            self.hold_times_ms, self.attribution
        )
    }
}

fn secrets(list: &[Vec<u8>]) -> PyResult<HopSecrets> {
    Ok(HopSecrets::new(
        list.iter()
            .map(|s| shared_secret(s))
            .collect::<PyResult<Vec<_>>>()?,
    ))
}

fn block(data: Option<&[u8]>) -> PyResult<AttributionData> {
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
/// (0 when `None`). `attribution=False` acts as a hop without attribution
/// support (no attribution data).
#[pyfunction]
#[pyo3(signature = (shared_secret, message, *, hold_time_ms=None, attribution=true))]
fn failure_create(
    py: Python<'_>,
    shared_secret: &[u8],
    message: &[u8],
    hold_time_ms: Option<u64>,
    attribution: bool,
) -> PyResult<FailurePacket> {
    let ss = super::shared_secret(shared_secret)?;
    if !attribution {
        let p = failure::create_to_vec(&ss, message).map_err(errors::sphinx)?;
        return Ok(packet_out(py, &p, None));
    }
    let hold = hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS);
    let (p, a) = failure::create_attributed_to_vec(&ss, message, hold).map_err(errors::sphinx)?;
    Ok(packet_out(py, &p, Some(&a)))
}

/// At an intermediate hop: adds this hop's layer to `packet` and to
/// `attribution_data` (a new block when `None`), reporting `hold_time_ms`
/// (0 when `None`). `attribution=False` wraps the packet only and drops the
/// attribution data.
#[pyfunction]
#[pyo3(signature = (shared_secret, packet, *, attribution_data=None, hold_time_ms=None, attribution=true))]
fn failure_wrap(
    py: Python<'_>,
    shared_secret: &[u8],
    packet: &[u8],
    attribution_data: Option<&[u8]>,
    hold_time_ms: Option<u64>,
    attribution: bool,
) -> PyResult<FailurePacket> {
    let ss = super::shared_secret(shared_secret)?;
    let mut p = packet.to_vec();
    if !attribution {
        failure::wrap_in_place(&ss, &mut p).map_err(errors::sphinx)?;
        return Ok(packet_out(py, &p, None));
    }
    let mut a = block(attribution_data)?;
    let hold = hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS);
    failure::wrap_attributed_in_place(&ss, hold, &mut p, &mut a).map_err(errors::sphinx)?;
    Ok(packet_out(py, &p, Some(&a)))
}

/// At the origin: reads `packet` and its `attribution_data` (if any came
/// back) over the route's `shared_secrets` (path order). Returns an
/// `Unwrapped`; an unattributable packet is a result, not an exception.
#[pyfunction]
#[pyo3(signature = (shared_secrets, packet, attribution_data=None))]
fn failure_unwrap(
    py: Python<'_>,
    shared_secrets: Vec<Vec<u8>>,
    packet: &[u8],
    attribution_data: Option<&[u8]>,
) -> PyResult<Unwrapped> {
    let hs = secrets(&shared_secrets)?;
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
        .map(|(s, _, _)| secrets(s))
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

/// At the recipient or an intermediate hop of a fulfilled HTLC: adds this
/// hop's hold time (`hold_time_ms`, 0 when `None`) and HMACs to
/// `attribution_data` (a new block when `None`); returns the 920 bytes.
#[pyfunction]
#[pyo3(signature = (shared_secret, *, attribution_data=None, hold_time_ms=None))]
fn fulfill_wrap<'py>(
    py: Python<'py>,
    shared_secret: &[u8],
    attribution_data: Option<&[u8]>,
    hold_time_ms: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ss = super::shared_secret(shared_secret)?;
    let mut a = block(attribution_data)?;
    fulfill::wrap(&ss, hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS), &mut a);
    Ok(to_bytes(py, a.as_bytes()))
}

/// At the origin: the hold times in a fulfill's `attribution_data` (`None`
/// when none came back) over the route's `shared_secrets`. Returns
/// `HoldTimes`.
#[pyfunction]
#[pyo3(signature = (shared_secrets, attribution_data=None))]
fn fulfill_unwrap(
    shared_secrets: Vec<Vec<u8>>,
    attribution_data: Option<&[u8]>,
) -> PyResult<HoldTimes> {
    let hs = secrets(&shared_secrets)?;
    let h = fulfill::unwrap(&hs, attribution_data).map_err(errors::sphinx)?;
    Ok(HoldTimes {
        hold_times_ms: h.hold_times_ms,
        attribution: h.attribution.to_string(),
        blamed_hop: h.blamed_hop,
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FailurePacket>()?;
    m.add_class::<Unwrapped>()?;
    m.add_class::<HoldTimes>()?;
    m.add_function(wrap_pyfunction!(hop_shared_secret, m)?)?;
    m.add_function(wrap_pyfunction!(failure_create, m)?)?;
    m.add_function(wrap_pyfunction!(failure_wrap, m)?)?;
    m.add_function(wrap_pyfunction!(failure_unwrap, m)?)?;
    m.add_function(wrap_pyfunction!(failure_unwrap_batch, m)?)?;
    m.add_function(wrap_pyfunction!(fulfill_wrap, m)?)?;
    m.add_function(wrap_pyfunction!(fulfill_unwrap, m)?)?;
    m.add("ATTRIBUTION_LEN", wireseal::sphinx::ATTRIBUTION_LEN)?;
    Ok(())
}
