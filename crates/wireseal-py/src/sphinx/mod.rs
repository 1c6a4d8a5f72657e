//! `wireseal.sphinx`: BOLT #4 onions (build, peel, batch peel), failure
//! packets with attribution data ([`failure`]), fulfills ([`fulfill`]),
//! onion messages and blinded paths. Areas, padding and hop numbers are the
//! library's: the same names and numbers as the command line.

mod failure;
mod fulfill;

use crate::buffers::{batch_or_default, bytes_with, to_bytes, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::secret::Secret;
use wireseal::sphinx::{self as sx, Area, Hop, Onion, Padding, Peeled as RPeeled, Route};

pub(crate) fn private_key(b: &[u8]) -> PyResult<PrivateKey> {
    let a = errors::arr32("private key", b)?;
    PrivateKey::from_bytes(&a)
        .map_err(|_| errors::InvalidKeyError::new_err("invalid secp256k1 private key"))
}

pub(crate) fn public_key(b: &[u8]) -> PyResult<PublicKey> {
    PublicKey::from_slice(b).map_err(|_| {
        errors::InvalidKeyError::new_err("invalid secp256k1 public key (33 bytes, compressed)")
    })
}

pub(crate) fn shared_secret(b: &[u8]) -> PyResult<sx::SharedSecret> {
    Ok(Secret::new(errors::arr32("shared secret", b)?))
}

/// An area as Python gives it: its name (`"payment"`, `"message-large"`)
/// or its size in bytes, read by the library's rules.
#[derive(FromPyObject)]
pub enum AreaArg {
    /// A name or a decimal size.
    Name(String),
    /// A size in bytes.
    Bytes(usize),
}

fn area(a: Option<AreaArg>) -> PyResult<Area> {
    match a {
        None => Ok(Area::default()),
        Some(AreaArg::Name(n)) => n.parse().map_err(errors::sphinx),
        Some(AreaArg::Bytes(b)) => Area::try_from(b).map_err(errors::sphinx),
    }
}

fn padding(name: Option<&str>) -> PyResult<Padding> {
    name.map_or(Ok(Padding::default()), |n| {
        n.parse().map_err(errors::sphinx)
    })
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
/// `area` is `"payment"` (1300 bytes, the default) or `"message-large"`
/// (32768), or the size in bytes; `padding` is `"deterministic"` (BOLT #4's
/// `pad`-key stream, the default) or `"random"`.
#[pyfunction]
#[pyo3(signature = (session_key, hops, associated_data, *, area=None, padding=None))]
#[allow(clippy::type_complexity)]
fn build<'py>(
    py: Python<'py>,
    session_key: &[u8],
    hops: Vec<(Vec<u8>, Vec<u8>)>,
    associated_data: &[u8],
    area: Option<AreaArg>,
    padding: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<Bound<'py, PyBytes>>)> {
    let area = self::area(area)?;
    let pad = self::padding(padding)?;
    let key = private_key(session_key)?;
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
    let route = Route::new(&route_hops, associated_data)
        .with_area(area)
        .with_padding(pad);
    let mut secrets = None;
    let onion = bytes_with(py, route.onion_len(), |out| {
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

/// Size of an onion with payload area `area` (a name or a size in bytes).
#[pyfunction]
fn onion_len(area: AreaArg) -> PyResult<usize> {
    Ok(self::area(Some(area))?.onion_len())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Peeled>()?;
    m.add_class::<BlindedPath>()?;
    m.add_class::<Unblinded>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(peel, m)?)?;
    m.add_function(wrap_pyfunction!(peel_batch, m)?)?;
    failure::register(m)?;
    fulfill::register(m)?;
    m.add_function(wrap_pyfunction!(blind_path, m)?)?;
    m.add_function(wrap_pyfunction!(unblind, m)?)?;
    m.add_function(wrap_pyfunction!(public_key_of, m)?)?;
    m.add_function(wrap_pyfunction!(onion_len, m)?)?;
    m.add("PAYMENT_AREA", sx::PAYMENT_AREA)?;
    m.add("MESSAGE_AREA_LARGE", sx::MESSAGE_AREA_LARGE)?;
    m.add("PAYMENT_ONION_LEN", sx::PAYMENT_ONION_LEN)?;
    Ok(())
}
