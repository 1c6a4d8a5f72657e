//! `wireseal.sphinx`: BOLT #4 onions (build, peel, batch peel), failure
//! packets, onion messages and blinded paths.

use crate::buffers::{batch_or_default, bytes_with, to_bytes, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::secret::Secret;
use wireseal::sphinx::{self as sx, Hop, Onion, Padding, Peeled as RPeeled, Route};

fn private_key(b: &[u8]) -> PyResult<PrivateKey> {
    let a = errors::arr32("private key", b)?;
    PrivateKey::from_bytes(&a)
        .map_err(|_| errors::InvalidKeyError::new_err("invalid secp256k1 private key"))
}

fn public_key(b: &[u8]) -> PyResult<PublicKey> {
    PublicKey::from_slice(b).map_err(|_| {
        errors::InvalidKeyError::new_err("invalid secp256k1 public key (33 bytes, compressed)")
    })
}

fn shared_secret(b: &[u8]) -> PyResult<sx::SharedSecret> {
    Ok(Secret::new(errors::arr32("shared secret", b)?))
}

/// Largest payload area `build` accepts (onion message packets are at most
/// 32834 bytes; the length fields allow 64 KiB).
const MAX_AREA: usize = 1 << 16;

fn padding(name: &str) -> PyResult<Padding> {
    match name {
        "random" => Ok(Padding::Random),
        "deterministic" => Ok(Padding::Deterministic),
        _ => Err(pyo3::exceptions::PyValueError::new_err(
            "padding must be \"random\" or \"deterministic\"",
        )),
    }
}

/// One peeled layer: the hop's payload, its shared secret, and the onion to
/// forward (`None` at the final hop).
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct Peeled {
    /// This hop's TLV payload (without its length prefix).
    payload: Py<PyBytes>,
    /// The onion for the next hop, or `None` when this hop is the recipient.
    next_onion: Option<Py<PyBytes>>,
    /// This hop's shared secret (to create or wrap a failure).
    shared_secret: Py<PyBytes>,
}

#[pymethods]
impl Peeled {
    /// True when this hop is the final recipient.
    #[getter]
    fn is_final(&self) -> bool {
        self.next_onion.is_none()
    }

    fn __repr__(&self) -> String {
        format!("Peeled(final={})", self.next_onion.is_none())
    }
}

fn peeled(py: Python<'_>, p: RPeeled) -> Peeled {
    let next_onion = match &p {
        RPeeled::Forward { next, .. } => Some(to_bytes(py, &next.to_vec()).unbind()),
        _ => None,
    };
    Peeled {
        payload: to_bytes(py, p.payload()).unbind(),
        next_onion,
        shared_secret: to_bytes(py, p.shared_secret().expose()).unbind(),
    }
}

/// Builds an onion. Returns `(onion, shared_secrets)`: the serialized packet
/// and one 32-byte shared secret per hop (keep them to read a failure).
#[pyfunction]
#[pyo3(signature = (session_key, hops, associated_data, *, area=sx::PAYMENT_AREA, padding="random"))]
#[allow(clippy::type_complexity)]
fn build<'py>(
    py: Python<'py>,
    session_key: &[u8],
    hops: Vec<(Vec<u8>, Vec<u8>)>,
    associated_data: &[u8],
    area: usize,
    padding: &str,
) -> PyResult<(Bound<'py, PyBytes>, Vec<Bound<'py, PyBytes>>)> {
    if area == 0 || area > MAX_AREA {
        return Err(errors::LimitError::new_err(format!(
            "the payload area is 1 to {MAX_AREA} bytes"
        )));
    }
    let key = private_key(session_key)?;
    let pad = self::padding(padding)?;
    let keys = hops
        .iter()
        .map(|(k, _)| public_key(k))
        .collect::<PyResult<Vec<_>>>()?;
    let route_hops: Vec<Hop<'_>> = keys
        .iter()
        .zip(&hops)
        .map(|(k, (_, p))| Hop {
            pubkey: *k,
            payload: p,
        })
        .collect();
    let route = Route {
        hops: &route_hops,
        associated_data,
        area,
        padding: pad,
    };
    let mut secrets = None;
    let onion = bytes_with(py, sx::onion_len(area), |out| {
        let (_, s) = sx::build_into(&key, &route, out).map_err(errors::sphinx)?;
        secrets = Some(s);
        Ok(())
    })?;
    let secrets = secrets
        .map(|s| {
            s.as_slice()
                .iter()
                .map(|x| to_bytes(py, x.expose()))
                .collect()
        })
        .unwrap_or_default();
    Ok((onion, secrets))
}

/// Peels one layer of a payment onion (1366 bytes) or, with
/// `message=True`, of an onion message (1366 or 32834 bytes).
#[pyfunction]
#[pyo3(signature = (node_key, onion, associated_data, *, message=false))]
fn peel(
    py: Python<'_>,
    node_key: &[u8],
    onion: &[u8],
    associated_data: &[u8],
    message: bool,
) -> PyResult<Peeled> {
    let key = private_key(node_key)?;
    let r = py.allow_threads(|| {
        let o = if message {
            Onion::parse_message(onion)?
        } else {
            Onion::parse(onion)?
        };
        o.peel(&key, associated_data)
    });
    Ok(peeled(py, r.map_err(errors::sphinx)?))
}

/// Peels many payment onions `[(onion, associated_data), ...]` on `batch`
/// (all cores by default). Returns, in input order, a `Peeled` or the
/// exception instance that peeling that onion alone would raise.
#[pyfunction]
#[pyo3(signature = (node_key, items, *, batch=None))]
fn peel_batch(
    py: Python<'_>,
    node_key: &[u8],
    items: Vec<(Vec<u8>, Vec<u8>)>,
    batch: Option<&Bound<'_, Batch>>,
) -> PyResult<Vec<PyObject>> {
    let key = private_key(node_key)?;
    let b = batch_or_default(batch);
    let refs: Vec<sx::PeelItem<'_>> = items
        .iter()
        .map(|(o, a)| sx::PeelItem {
            onion: o,
            associated_data: a,
        })
        .collect();
    let res = py.allow_threads(|| sx::peel_batch(b, &key, &refs));
    res.into_iter()
        .map(|r| match r {
            Ok(p) => Ok(Py::new(py, peeled(py, p))?.into_any()),
            Err(e) => Ok(errors::sphinx(e).into_value(py).into_any()),
        })
        .collect()
}

/// A failure packet from the failing hop: `message` (a failure code and its
/// data) under the hop's `shared_secret`, padded and wrapped once.
#[pyfunction]
fn failure_create<'py>(
    py: Python<'py>,
    shared_secret: &[u8],
    message: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let ss = self::shared_secret(shared_secret)?;
    let v = sx::failure::create_to_vec(&ss, message).map_err(errors::sphinx)?;
    Ok(to_bytes(py, &v))
}

/// Wraps a failure packet once more (each hop on the way back does this).
#[pyfunction]
fn failure_wrap<'py>(
    py: Python<'py>,
    shared_secret: &[u8],
    packet: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let ss = self::shared_secret(shared_secret)?;
    bytes_with(py, packet.len(), |out| {
        out.copy_from_slice(packet);
        sx::failure::wrap_in_place(&ss, out);
        Ok(())
    })
}

/// At the origin: finds the hop that created `packet`. Returns
/// `(hop_index, message)`; raises `AuthError` when no hop's HMAC matches.
#[pyfunction]
fn failure_unwrap<'py>(
    py: Python<'py>,
    shared_secrets: Vec<Vec<u8>>,
    packet: &[u8],
) -> PyResult<(usize, Bound<'py, PyBytes>)> {
    let ss = shared_secrets
        .iter()
        .map(|s| shared_secret(s))
        .collect::<PyResult<Vec<_>>>()?;
    let hs = sx::HopSecrets::new(ss);
    let f = sx::failure::unwrap(&hs, packet).map_err(errors::sphinx)?;
    Ok((f.hop, to_bytes(py, &f.message)))
}

/// A blinded path as its creator computes it.
#[pyclass(module = "wireseal.sphinx", frozen, get_all)]
pub struct BlindedPath {
    /// The first hop's path key `E` (33 bytes), given to the sender.
    first_path_key: Py<PyBytes>,
    /// The blinded node id of each hop (33 bytes each).
    blinded_node_ids: Vec<Py<PyBytes>>,
    /// The sealed `encrypted_recipient_data` of each hop.
    encrypted_data: Vec<Py<PyBytes>>,
}

/// Builds a blinded path from `session_key` over `hops` =
/// `[(node_id, recipient_data), ...]`.
#[pyfunction]
fn blind_path(
    py: Python<'_>,
    session_key: &[u8],
    hops: Vec<(Vec<u8>, Vec<u8>)>,
) -> PyResult<BlindedPath> {
    let key = private_key(session_key)?;
    let ids = hops
        .iter()
        .map(|(k, _)| public_key(k))
        .collect::<PyResult<Vec<_>>>()?;
    let pairs: Vec<(PublicKey, &[u8])> = ids
        .iter()
        .zip(&hops)
        .map(|(k, (_, d))| (*k, d.as_slice()))
        .collect();
    let p = sx::blinding::blind_path(&key, &pairs).map_err(errors::sphinx)?;
    Ok(BlindedPath {
        first_path_key: to_bytes(py, &p.first_path_key.serialize()).unbind(),
        blinded_node_ids: p
            .hops
            .iter()
            .map(|h| to_bytes(py, &h.blinded_node_id.serialize()).unbind())
            .collect(),
        encrypted_data: p
            .hops
            .iter()
            .map(|h| to_bytes(py, &h.encrypted_data).unbind())
            .collect(),
    })
}

/// What a hop of a blinded path learns from its path key.
#[pyclass(module = "wireseal.sphinx", frozen)]
pub struct Unblinded {
    inner: sx::blinding::Unblinded,
}

#[pymethods]
impl Unblinded {
    /// The blinded private key that peels this hop's onion layer.
    #[getter]
    fn blinded_private_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        to_bytes(py, self.inner.blinded_privkey().to_secret().expose())
    }

    /// Decrypts this hop's `encrypted_recipient_data`; `AuthError` when it
    /// does not authenticate.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        encrypted_data: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let v = self
            .inner
            .open_to_vec(encrypted_data)
            .map_err(errors::sphinx)?;
        Ok(to_bytes(py, &v))
    }

    /// The next hop's path key (33 bytes); `data` (the decrypted recipient
    /// data) may carry a `next_path_key_override`.
    #[pyo3(signature = (data=None))]
    fn next_path_key<'py>(
        &self,
        py: Python<'py>,
        data: Option<&[u8]>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let k = match data {
            Some(d) => self.inner.next_path_key_for(d),
            None => self.inner.next_path_key(),
        }
        .map_err(errors::sphinx)?;
        Ok(to_bytes(py, &k.serialize()))
    }
}

/// At a hop of a blinded path: derives what `node_key` needs from `path_key`.
#[pyfunction]
fn unblind(py: Python<'_>, node_key: &[u8], path_key: &[u8]) -> PyResult<Unblinded> {
    let key = private_key(node_key)?;
    let pk = public_key(path_key)?;
    let inner = py
        .allow_threads(|| sx::blinding::unblind(&key, &pk))
        .map_err(errors::sphinx)?;
    Ok(Unblinded { inner })
}

/// The compressed public key (33 bytes) of a secp256k1 private key.
#[pyfunction]
fn public_key_of<'py>(py: Python<'py>, private_key: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let k = self::private_key(private_key)?;
    Ok(to_bytes(py, &k.public_key().serialize()))
}

/// Size of an onion with a payload area of `area` bytes.
#[pyfunction]
fn onion_len(area: usize) -> usize {
    sx::onion_len(area)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Peeled>()?;
    m.add_class::<BlindedPath>()?;
    m.add_class::<Unblinded>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(peel, m)?)?;
    m.add_function(wrap_pyfunction!(peel_batch, m)?)?;
    m.add_function(wrap_pyfunction!(failure_create, m)?)?;
    m.add_function(wrap_pyfunction!(failure_wrap, m)?)?;
    m.add_function(wrap_pyfunction!(failure_unwrap, m)?)?;
    m.add_function(wrap_pyfunction!(blind_path, m)?)?;
    m.add_function(wrap_pyfunction!(unblind, m)?)?;
    m.add_function(wrap_pyfunction!(public_key_of, m)?)?;
    m.add_function(wrap_pyfunction!(onion_len, m)?)?;
    m.add("PAYMENT_AREA", sx::PAYMENT_AREA)?;
    m.add("MESSAGE_AREA_LARGE", sx::MESSAGE_AREA_LARGE)?;
    m.add("PAYMENT_ONION_LEN", sx::PAYMENT_ONION_LEN)?;
    Ok(())
}
