//! `wireseal.peat`: peat-btle mesh keys from genesis, mesh-wide frames,
//! per-peer E2EE sessions and the encryption policy. Mesh ids, names and
//! their rules come from `wireseal::peat`; this module converts and calls.

use crate::buffers::{bytes_with, to_bytes};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use wireseal::keys::StaticSecret;
use wireseal::peat as pt;
use wireseal::peat::policy as pol;

/// A mesh id by the library's rule (any case in, upper case kept).
fn parse_id(mesh_id: &str) -> PyResult<pt::MeshId> {
    mesh_id.parse().map_err(errors::peat)
}

/// A policy value by the library's name.
fn parse<T: std::str::FromStr<Err = pt::Error>>(text: &str) -> PyResult<T> {
    text.parse().map_err(errors::peat)
}

/// Mesh id and mesh key derived from a mesh name and a 32-byte seed.
#[pyclass(module = "wireseal.peat", frozen)]
pub struct Genesis {
    inner: pt::Genesis,
}

#[pymethods]
impl Genesis {
    /// Derives the genesis of mesh `name` from `seed` (32 bytes), or from a
    /// fresh seed from the OS CSPRNG when `seed` is None (not kept).
    #[new]
    #[pyo3(signature = (name, seed=None))]
    fn new(name: &str, seed: Option<&[u8]>) -> PyResult<Self> {
        let inner = match seed {
            Some(seed) => pt::Genesis::derive(name, &errors::arr32("seed", seed)?),
            None => pt::Genesis::generate(name),
        };
        Ok(Self {
            inner: inner.map_err(errors::peat)?,
        })
    }

    /// The mesh id (8 upper-case hex digits).
    #[getter]
    fn mesh_id(&self) -> String {
        self.inner.mesh_id().to_string()
    }

    /// The mesh secret (32 bytes).
    #[getter]
    fn secret<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        to_bytes(py, self.inner.secret().expose())
    }

    /// A sealer for this mesh's mesh-wide frames.
    fn sealer(&self) -> MeshSealer {
        MeshSealer {
            inner: pt::MeshSealer::from_key(self.inner.mesh_key()),
        }
    }

    fn __repr__(&self) -> String {
        format!("Genesis(mesh_id={:?})", self.inner.mesh_id())
    }
}

/// The mesh id of mesh `name` with `seed`.
#[pyfunction]
fn mesh_id(name: &str, seed: &[u8]) -> PyResult<String> {
    let id = pt::mesh_id(name, &errors::arr32("seed", seed)?).map_err(errors::peat)?;
    Ok(id.to_string())
}

/// A mesh id as every driver uses it (upper case); `InvalidInputError` or
/// `TooLongError` when it is not one.
#[pyfunction]
fn parse_mesh_id(mesh_id: &str) -> PyResult<String> {
    Ok(parse_id(mesh_id)?.to_string())
}

/// Seals and opens mesh-wide frames (0xAE, ChaCha20-Poly1305) with nonces
/// drawn in bulk from the OS CSPRNG.
#[pyclass(module = "wireseal.peat")]
pub struct MeshSealer {
    inner: pt::MeshSealer,
}

#[pymethods]
impl MeshSealer {
    /// A sealer for `mesh_id` (any case; letters are upper-cased) and its
    /// 32-byte `secret`.
    #[new]
    fn new(mesh_id: &str, secret: &[u8]) -> PyResult<Self> {
        let id = parse_id(mesh_id)?;
        Ok(Self {
            inner: pt::MeshSealer::new(&id, &errors::arr32("secret", secret)?),
        })
    }

    /// Seals a document into a mesh-wide frame.
    fn seal<'py>(&mut self, py: Python<'py>, plaintext: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let inner = &mut self.inner;
        bytes_with(py, pt::sealed_len(plaintext.len()), |out| {
            inner
                .seal_into(plaintext, out)
                .map(|_| ())
                .map_err(errors::peat)
        })
    }

    /// Opens a mesh-wide frame; `AuthError` when the tag fails.
    fn open<'py>(&self, py: Python<'py>, frame: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let v = py
            .allow_threads(|| self.inner.open_to_vec(frame))
            .map_err(errors::peat)?;
        Ok(to_bytes(py, &v))
    }
}

/// Per-peer E2EE sessions (0xAF frames, 0xB0 key exchange), replay
/// detection by nonce history. `now` is milliseconds on the caller's clock.
#[pyclass(module = "wireseal.peat")]
pub struct PeerSessions {
    inner: pt::PeerSessions,
}

#[pymethods]
impl PeerSessions {
    /// Sessions for node `node_id` with X25519 identity `private_key`.
    #[new]
    #[pyo3(signature = (node_id, private_key, *, max_sessions=None, ttl_ms=None))]
    fn new(
        node_id: u32,
        private_key: &[u8],
        max_sessions: Option<usize>,
        ttl_ms: Option<u64>,
    ) -> PyResult<Self> {
        let k = StaticSecret::from_bytes(&errors::arr32("private key", private_key)?)
            .map_err(|_| errors::InvalidKeyError::new_err("invalid X25519 private key"))?;
        let mut s = pt::PeerSessions::new(node_id, k);
        if let Some(m) = max_sessions {
            s = s.with_max_sessions(m);
        }
        if let Some(t) = ttl_ms {
            s = s.with_ttl(t);
        }
        Ok(Self { inner: s })
    }

    /// Our public key (32 bytes).
    #[getter]
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        to_bytes(py, self.inner.public_key())
    }

    /// Starts a session with `peer`; returns the key-exchange frame to send.
    fn initiate<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        peer: u32,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let f = self.inner.initiate(now, peer).map_err(errors::peat)?;
        Ok(to_bytes(py, &f))
    }

    /// Handles a peer's key-exchange frame. Returns `(peer, response)`:
    /// the frame to send back, or `None` when the frame was ignored.
    fn handle_key_exchange<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        frame: &[u8],
    ) -> PyResult<(u32, Option<Bound<'py, PyBytes>>)> {
        let inner = &mut self.inner;
        let r = py
            .allow_threads(|| inner.handle_key_exchange(now, frame))
            .map_err(errors::peat)?;
        Ok(match r {
            pt::KeyExchangeOutcome::Established { peer, response } => {
                (peer, Some(to_bytes(py, &response)))
            }
            pt::KeyExchangeOutcome::Ignored { peer } => (peer, None),
            #[allow(unreachable_patterns)]
            _ => return Err(errors::StateError::new_err("unknown key-exchange outcome")),
        })
    }

    /// Seals `plaintext` for `peer` (an established session).
    fn seal<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        peer: u32,
        plaintext: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let v = self
            .inner
            .seal_to_vec(now, peer, plaintext)
            .map_err(errors::peat)?;
        Ok(to_bytes(py, &v))
    }

    /// Opens a per-peer frame; returns `(sender, counter, plaintext)`.
    fn open<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        frame: &[u8],
    ) -> PyResult<(u32, u64, Bound<'py, PyBytes>)> {
        let m = self.inner.open_to_vec(now, frame).map_err(errors::peat)?;
        Ok((m.sender, m.counter, to_bytes(py, &m.plaintext)))
    }

    /// The session state with `peer`: `"awaiting-peer-key"`,
    /// `"established"`, `"closed"`, or `None` when there is none.
    fn state(&self, peer: u32) -> Option<&'static str> {
        self.inner.state(peer).map(pt::SessionState::as_str)
    }

    /// Closes the session with `peer` (its key is dropped).
    fn close(&mut self, peer: u32) {
        self.inner.close(peer)
    }

    /// Removes every session idle for longer than the timeout; returns their peers.
    fn cleanup_expired(&mut self, now: u64) -> Vec<u32> {
        self.inner.cleanup_expired(now)
    }
}

/// A record value as a Python object.
fn field(py: Python<'_>, f: &pol::Field) -> PyResult<PyObject> {
    Ok(match f {
        pol::Field::Name(s) => s.into_pyobject(py)?.into_any().unbind(),
        pol::Field::Names(v) => PyList::new(py, v)?.into_any().unbind(),
        pol::Field::Int(n) => n.into_pyobject(py)?.into_any().unbind(),
        pol::Field::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        pol::Field::Record(fields) => record(py, fields)?.into_any().unbind(),
        _ => py.None(),
    })
}

fn record<'py>(py: Python<'py>, fields: &[(&str, pol::Field)]) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (k, v) in fields {
        out.set_item(k, field(py, v)?)?;
    }
    Ok(out)
}

/// The protection a document gets under the policy of `level`, with the
/// default classes and overrides, as the same record `wireseal peat policy
/// --json` prints. Names are the library's (`"mesh-wide"`, `"known-peer"`,
/// `"app:7"`); `adaptive=(battery_below_percent, rate_above_hz)` turns on
/// the low-power rule (None for a threshold that never fires);
/// `always_encrypt` replaces the always-encrypt list. Conditions default to
/// a full battery and no updates. `InvalidInputError` for an unknown name or
/// a value out of range.
#[pyfunction]
#[pyo3(signature = (level, data_type, link, *, battery_percent=None, update_rate_hz=None, adaptive=None, always_encrypt=None))]
#[allow(clippy::too_many_arguments)]
fn decide<'py>(
    py: Python<'py>,
    level: &str,
    data_type: &str,
    link: &str,
    battery_percent: Option<u8>,
    update_rate_hz: Option<f64>,
    adaptive: Option<(Option<u8>, Option<f64>)>,
    always_encrypt: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut policy = pol::Policy::new(parse(level)?);
    let data: pol::DataType = parse(data_type)?;
    let link: pol::Link = parse(link)?;
    if let Some((b, r)) = adaptive {
        policy.adaptive = Some(pol::Adaptive::new(b, r).map_err(errors::peat)?);
    }
    if let Some(list) = always_encrypt {
        policy.always_encrypt = list.iter().map(|t| parse(t)).collect::<PyResult<_>>()?;
    }
    let full = pol::Conditions::FULL_POWER;
    let cond = pol::Conditions::new(
        battery_percent.unwrap_or(full.battery_percent),
        update_rate_hz.unwrap_or(full.update_rate_hz),
    )
    .map_err(errors::peat)?;
    record(py, &pol::explain(&policy, data, link, cond).fields())
}

/// Size of a mesh-wide frame for a document of `plaintext_len` bytes.
#[pyfunction]
fn sealed_len(plaintext_len: usize) -> usize {
    pt::sealed_len(plaintext_len)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Genesis>()?;
    m.add_class::<MeshSealer>()?;
    m.add_class::<PeerSessions>()?;
    m.add_function(wrap_pyfunction!(mesh_id, m)?)?;
    m.add_function(wrap_pyfunction!(parse_mesh_id, m)?)?;
    m.add_function(wrap_pyfunction!(decide, m)?)?;
    m.add_function(wrap_pyfunction!(sealed_len, m)?)?;
    Ok(())
}
