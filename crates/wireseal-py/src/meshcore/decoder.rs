//! `Decoder`: one packet in, the library's record out as a dict (the very
//! JSON `wireseal meshcore decode --json` prints, read by Python's `json`);
//! `packet_hash` and `parse` for the header alone.

use super::keys::{ChannelKey, LocalIdentity};
use crate::buffers::{batch_or_default, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict, PyList};
use wireseal::meshcore as mc;

/// Decodes MeshCore packets with the channels, identities and peers it
/// holds, trying every matching key; only the keys given are used.
#[pyclass(module = "wireseal.meshcore")]
pub struct Decoder {
    inner: mc::Decoder,
}

#[pymethods]
impl Decoder {
    /// A decoder of `channels` (numbered in this order, as the record's
    /// `channel` reports them), our `identities` (direct messages to them
    /// open) and `peers` (32-byte public keys of senders whose messages to
    /// us open).
    #[new]
    #[pyo3(signature = (channels=Vec::new(), identities=Vec::new(), peers=Vec::new()))]
    fn new(
        channels: Vec<PyRef<'_, ChannelKey>>,
        identities: Vec<PyRef<'_, LocalIdentity>>,
        peers: Vec<Vec<u8>>,
    ) -> PyResult<Self> {
        let mut d = Self {
            inner: mc::Decoder::new(),
        };
        for c in &channels {
            d.add_channel(c);
        }
        for i in &identities {
            d.add_identity(i);
        }
        for p in &peers {
            d.add_peer(p)?;
        }
        Ok(d)
    }

    /// Adds a channel; returns its number.
    fn add_channel(&mut self, channel: &ChannelKey) -> usize {
        self.inner.add_channel(channel.copy())
    }

    /// Adds one of our identities.
    fn add_identity(&mut self, identity: &LocalIdentity) {
        self.inner.add_identity(identity.copy());
    }

    /// Adds a peer by its 32-byte public key; False when it was known.
    /// `InvalidKeyError` for a key that is not an Ed25519 point.
    fn add_peer(&mut self, public_key: &[u8]) -> PyResult<bool> {
        let peer = mc::PublicIdentity::from_slice(public_key).map_err(errors::meshcore)?;
        Ok(self.inner.add_peer(peer))
    }

    /// Decodes one packet (`now` in milliseconds ages the shared-secret
    /// caches) to its record: `payload_type`, `route_type`,
    /// `transport_codes`, `path`, `hash`, `payload_len` and an object named
    /// after the type. A packet the firmware drops raises the exception of
    /// its kind, with `reason` set to the library's reason.
    #[pyo3(signature = (raw, now=0))]
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        raw: &[u8],
        now: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inner = &mut self.inner;
        let d = py
            .allow_threads(|| inner.decode(now, raw))
            .map_err(errors::meshcore)?;
        json_loads(py, &wireseal_io::record::meshcore_to_json(&d))
    }

    /// Decodes many packets (the GIL released while they decode, parsing,
    /// advert checks and group packets across `batch`'s threads): a list in
    /// input order of what `decode` returns for each, or the exception it
    /// would raise (returned, not raised).
    #[pyo3(signature = (raws, now=0, *, batch=None))]
    fn decode_batch(
        &mut self,
        py: Python<'_>,
        raws: Vec<PyBackedBytes>,
        now: u64,
        batch: Option<&Bound<'_, Batch>>,
    ) -> PyResult<Vec<PyObject>> {
        let b = batch_or_default(batch);
        let refs: Vec<&[u8]> = raws.iter().map(|r| &r[..]).collect();
        let inner = &mut self.inner;
        // The records' JSON made with the GIL released too; only reading it
        // (and making the exceptions) needs it.
        let lines: Vec<Result<String, mc::Error>> = py.allow_threads(|| {
            inner
                .decode_batch(b, now, &refs)
                .iter()
                .map(|r| {
                    r.as_ref()
                        .map(wireseal_io::record::meshcore_to_json)
                        .map_err(|e| *e)
                })
                .collect()
        });
        lines
            .into_iter()
            .map(|line| match line {
                Ok(text) => Ok(json_loads(py, &text)?.unbind()),
                Err(e) => Ok(errors::meshcore(e).into_value(py).into_any()),
            })
            .collect()
    }

    /// The decoder's record of one packet as one line of JSON: what
    /// `wireseal meshcore decode --json` prints for it.
    #[pyo3(signature = (raw, now=0))]
    fn decode_json(&mut self, py: Python<'_>, raw: &[u8], now: u64) -> PyResult<String> {
        let inner = &mut self.inner;
        let d = py
            .allow_threads(|| inner.decode(now, raw))
            .map_err(errors::meshcore)?;
        Ok(wireseal_io::record::meshcore_to_json(&d))
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

static LOADS: GILOnceCell<PyObject> = GILOnceCell::new();

/// `json.loads(text)`: the record's JSON read by Python's own reader, so
/// the dict is the JSON the command line prints, value for value.
fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let loads = LOADS.get_or_try_init(py, || -> PyResult<PyObject> {
        Ok(py.import("json")?.getattr("loads")?.unbind())
    })?;
    loads.bind(py).call1((text,))
}

/// The packet hash (8 bytes) observers publish and the firmware logs: of
/// the type, the payload, and for TRACE the path length. Raises for a
/// packet the firmware drops.
#[pyfunction]
pub(super) fn packet_hash<'py>(py: Python<'py>, raw: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let p = mc::Packet::parse(raw).map_err(errors::meshcore)?;
    Ok(PyBytes::new(py, &p.hash()))
}

/// The header fields of a packet, parsed with every check the firmware
/// makes: `route_type`, `payload_type` (names as in the record),
/// `transport_codes` (a pair, or None), `path_hash_size`, `path` (a list of
/// hops, bytes each), `payload` (bytes) and `hash` (8 bytes). Raises for a
/// packet the firmware drops.
#[pyfunction]
pub(super) fn parse<'py>(py: Python<'py>, raw: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let p = mc::Packet::parse(raw).map_err(errors::meshcore)?;
    let d = PyDict::new(py);
    d.set_item("route_type", p.route.as_str())?;
    d.set_item("payload_type", p.payload_type.as_str())?;
    d.set_item("transport_codes", p.transport_codes.map(|[a, b]| (a, b)))?;
    d.set_item("path_hash_size", p.path_len.hash_size())?;
    let hops: Vec<Bound<'py, PyBytes>> = p.hops().map(|h| PyBytes::new(py, h)).collect();
    d.set_item("path", PyList::new(py, hops)?)?;
    d.set_item("payload", PyBytes::new(py, p.payload))?;
    d.set_item("hash", PyBytes::new(py, &p.hash()))?;
    Ok(d)
}
