//! `wireseal.sphinx` fulfills: hold times (BOLT #4 attribution data) and the
//! final node's `fulfillment_payload`, with the same operations and field
//! names as `wireseal sphinx fulfill` on the command line.

use super::failure::{block, incoming, secrets};
use crate::buffers::to_bytes;
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::fulfill::{self, payload, Returned};

/// The hold times of a fulfilled HTLC: `hold_times_ms` (one per hop that
/// vouched, in path order), `attribution` (`"valid"`, `"absent"` or
/// `"broken"`), `blamed_hop` (from 1, when it breaks), and the final node's
/// payload: `payload_status` (`"absent"`, `"valid"`, `"ignored"`),
/// `payload` (its records without padding, when valid) and `payload_error`
/// (why it is ignored).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct HoldTimes {
    /// Hold times in milliseconds, one per vouching hop.
    hold_times_ms: Vec<u64>,
    /// `"valid"`, `"absent"` or `"broken"`.
    attribution: String,
    /// The hop where it breaks, from 1, or `None`.
    blamed_hop: Option<usize>,
    /// `"absent"`, `"valid"` or `"ignored"`.
    payload_status: String,
    /// The payload's records, when valid.
    payload: Option<Py<PyBytes>>,
    /// Why the payload is ignored, or `None`.
    payload_error: Option<String>,
}

#[pymethods]
impl HoldTimes {
    fn __repr__(&self) -> String {
        format!(
            "HoldTimes(hold_times_ms={:?}, attribution={:?}, payload_status={:?})",
            self.hold_times_ms, self.attribution, self.payload_status
        )
    }
}

/// What a hop sends back with `update_fulfill_htlc`: `payload` (the
/// `fulfillment_payload`, or `None`) and `attribution_data` (or `None` from
/// a hop inside a blinded path).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct Fulfilled {
    /// The `fulfillment_payload`, or `None`.
    payload: Option<Py<PyBytes>>,
    /// The attribution data, or `None`.
    attribution_data: Option<Py<PyBytes>>,
}

#[pymethods]
impl Fulfilled {
    fn __repr__(&self) -> String {
        format!(
            "Fulfilled(payload={}, attribution={})",
            self.payload.is_some(),
            self.attribution_data.is_some()
        )
    }
}

fn fulfilled(py: Python<'_>, r: &Returned) -> Fulfilled {
    Fulfilled {
        payload: r.payload.as_ref().map(|p| to_bytes(py, p).unbind()),
        attribution_data: r
            .attribution
            .as_ref()
            .map(|a| to_bytes(py, a.as_bytes()).unbind()),
    }
}

/// At the recipient or an intermediate hop of a fulfilled HTLC without a
/// payload: adds this hop's hold time (`hold_time_ms`, 0 when `None`) and
/// HMACs to `attribution_data` (a new block when `None`); returns the 920
/// bytes.
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

/// At the final node: seals `records` (a TLV stream without `padding`) into
/// a `fulfillment_payload` when given, and starts the attribution data with
/// `hold_time_ms` unless `blinded` (a `path_key` came with the HTLC).
/// Returns `Fulfilled`.
#[pyfunction]
#[pyo3(signature = (shared_secret, *, hold_time_ms=None, records=None, blinded=false))]
fn fulfill_create(
    py: Python<'_>,
    shared_secret: &[u8],
    hold_time_ms: Option<u64>,
    records: Option<&[u8]>,
    blinded: bool,
) -> PyResult<Fulfilled> {
    let ss = super::shared_secret(shared_secret)?;
    let hold = hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS);
    let r = fulfill::create_at(&ss, incoming(blinded), hold, records).map_err(errors::sphinx)?;
    Ok(fulfilled(py, &r))
}

/// At a hop passing a fulfill back: adds this hop's hold time and HMACs
/// (over `payload` as received) to `attribution_data` unless `blinded`,
/// then its layer of `payload`. Returns `Fulfilled`.
#[pyfunction]
#[pyo3(signature = (shared_secret, *, payload=None, attribution_data=None, hold_time_ms=None, blinded=false))]
fn fulfill_relay(
    py: Python<'_>,
    shared_secret: &[u8],
    payload: Option<&[u8]>,
    attribution_data: Option<&[u8]>,
    hold_time_ms: Option<u64>,
    blinded: bool,
) -> PyResult<Fulfilled> {
    let ss = super::shared_secret(shared_secret)?;
    let mut r = Returned {
        payload: payload.map(<[u8]>::to_vec),
        attribution: attribution_data.map(|a| block(Some(a))).transpose()?,
    };
    let hold = hold_time_ms.unwrap_or(UNKNOWN_HOLD_TIME_MS);
    fulfill::relay(&ss, incoming(blinded), hold, &mut r).map_err(errors::sphinx)?;
    Ok(fulfilled(py, &r))
}

/// At the origin: the hold times in a fulfill's `attribution_data` and its
/// `payload` (`None` when none came back) over the route's
/// `shared_secrets`, the last `blinded_hops` inside a blinded path. Returns
/// `HoldTimes`.
#[pyfunction]
#[pyo3(signature = (shared_secrets, attribution_data=None, *, payload=None, blinded_hops=0))]
fn fulfill_unwrap(
    py: Python<'_>,
    shared_secrets: Vec<Vec<u8>>,
    attribution_data: Option<&[u8]>,
    payload: Option<&[u8]>,
    blinded_hops: usize,
) -> PyResult<HoldTimes> {
    let hs = secrets(&shared_secrets, blinded_hops)?;
    let f = fulfill::unwrap_returned(&hs, payload, attribution_data).map_err(errors::sphinx)?;
    Ok(HoldTimes {
        hold_times_ms: f.hold_times.hold_times_ms,
        attribution: f.hold_times.attribution.to_string(),
        blamed_hop: f.hold_times.blamed_hop,
        payload_status: f.payload.name().to_string(),
        payload: f.payload.records().map(|r| to_bytes(py, r).unbind()),
        payload_error: match &f.payload {
            fulfill::Payload::Ignored(e) => Some(e.to_string()),
            _ => None,
        },
    })
}

/// `records` with the `padding` record BOLT #4 asks for: the plaintext of a
/// `fulfillment_payload` (at least 256 bytes, a multiple of 256).
#[pyfunction]
fn fulfillment_padded<'py>(py: Python<'py>, records: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    Ok(to_bytes(
        py,
        &payload::padded(records).map_err(errors::sphinx)?,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HoldTimes>()?;
    m.add_class::<Fulfilled>()?;
    m.add_function(wrap_pyfunction!(fulfill_wrap, m)?)?;
    m.add_function(wrap_pyfunction!(fulfill_create, m)?)?;
    m.add_function(wrap_pyfunction!(fulfill_relay, m)?)?;
    m.add_function(wrap_pyfunction!(fulfill_unwrap, m)?)?;
    m.add_function(wrap_pyfunction!(fulfillment_padded, m)?)?;
    m.add("MAX_PAYLOAD_LEN", fulfill::MAX_PAYLOAD_LEN)?;
    Ok(())
}
