//! `wireseal.peat`: peat-btle mesh keys from genesis, mesh-wide frames,
//! per-peer E2EE sessions and the encryption policy.

use crate::buffers::{bytes_with, to_bytes};
use crate::errors;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use wireseal::keys::StaticSecret;
use wireseal::peat as pt;
use wireseal::peat::policy as pol;

/// Mesh id and mesh key derived from a mesh name and a 32-byte seed.
#[pyclass(module = "wireseal.peat", frozen)]
pub struct Genesis {
    inner: pt::Genesis,
}

#[pymethods]
impl Genesis {
    /// Derives the genesis of mesh `name` from `seed` (32 bytes).
    #[new]
    fn new(name: &str, seed: &[u8]) -> PyResult<Self> {
        let s = errors::arr32("seed", seed)?;
        Ok(Self {
            inner: pt::Genesis::derive(name, &s),
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
    Ok(pt::mesh_id(name, &errors::arr32("seed", seed)?))
}

/// Seals and opens mesh-wide frames (0xAE, ChaCha20-Poly1305) with nonces
/// drawn in bulk from the OS CSPRNG.
#[pyclass(module = "wireseal.peat")]
pub struct MeshSealer {
    inner: pt::MeshSealer,
}

#[pymethods]
impl MeshSealer {
    /// A sealer for `mesh_id` (8 hex digits) and its 32-byte `secret`.
    #[new]
    fn new(mesh_id: &str, secret: &[u8]) -> PyResult<Self> {
        Ok(Self {
            inner: pt::MeshSealer::new(mesh_id, &errors::arr32("secret", secret)?),
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
    #[pyo3(signature = (node_id, private_key, *, max_sessions=None, timeout_ms=None))]
    fn new(
        node_id: u32,
        private_key: &[u8],
        max_sessions: Option<usize>,
        timeout_ms: Option<u64>,
    ) -> PyResult<Self> {
        let k = StaticSecret::from_bytes(&errors::arr32("private key", private_key)?)
            .map_err(|_| errors::InvalidKeyError::new_err("invalid X25519 private key"))?;
        let mut s = pt::PeerSessions::new(node_id, k);
        if let Some(m) = max_sessions {
            s = s.with_max_sessions(m);
        }
        if let Some(t) = timeout_ms {
            s = s.with_timeout(t);
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

    /// The session state with `peer`: `"awaiting_peer_key"`,
    /// `"established"`, `"closed"`, or `None` when there is none.
    fn state(&self, peer: u32) -> Option<&'static str> {
        self.inner.state(peer).map(|s| match s {
            pt::SessionState::AwaitingPeerKey => "awaiting_peer_key",
            pt::SessionState::Established => "established",
            _ => "closed",
        })
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

fn level(s: &str) -> PyResult<pol::Level> {
    Ok(match s {
        "none" => pol::Level::None,
        "mesh_wide" => pol::Level::MeshWide,
        "selective" => pol::Level::Selective,
        "peer_e2ee" => pol::Level::PeerE2ee,
        _ => return Err(PyValueError::new_err(format!("unknown level {s:?}"))),
    })
}

fn data_type(o: &Bound<'_, PyAny>) -> PyResult<pol::DataType> {
    if let Ok(n) = o.extract::<u16>() {
        return Ok(pol::DataType::App(n));
    }
    let s: String = o.extract()?;
    Ok(match s.as_str() {
        "counter" => pol::DataType::Counter,
        "heartbeat" => pol::DataType::Heartbeat,
        "location" => pol::DataType::Location,
        "chat" => pol::DataType::Chat,
        "emergency" => pol::DataType::Emergency,
        "sensitive_chat" => pol::DataType::SensitiveChat,
        _ => return Err(PyValueError::new_err(format!("unknown data type {s:?}"))),
    })
}

fn link(s: &str) -> PyResult<pol::Link> {
    Ok(match s {
        "trusted_local" => pol::Link::TrustedLocal,
        "known_peer" => pol::Link::KnownPeer,
        "untrusted_relay" => pol::Link::UntrustedRelay,
        _ => return Err(PyValueError::new_err(format!("unknown link {s:?}"))),
    })
}

fn protection(p: pol::Protection) -> &'static str {
    match p {
        pol::Protection::Plain => "plain",
        pol::Protection::MeshWide => "mesh_wide",
        _ => "peer_e2ee",
    }
}

fn rule(r: pol::Rule) -> &'static str {
    match r {
        pol::Rule::Base => "base",
        pol::Rule::Link => "link",
        pol::Rule::Adaptive => "adaptive",
        _ => "always_encrypt",
    }
}

/// The protection a document gets under the policy of `level` (with the
/// default classes and overrides; `adaptive=(battery_below_percent,
/// rate_above_hz)` turns on the low-power rule). Returns a dict with
/// `protection`, `base`, `after_link`, `after_adaptive` and `decided_by`.
#[pyfunction]
#[pyo3(signature = (level, data_type, link, *, battery_percent=100, update_rate_hz=0.0, adaptive=None))]
fn decide<'py>(
    py: Python<'py>,
    level: &str,
    data_type: &Bound<'_, PyAny>,
    link: &str,
    battery_percent: u8,
    update_rate_hz: f64,
    adaptive: Option<(u8, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut policy = pol::Policy::new(self::level(level)?);
    if let Some((b, r)) = adaptive {
        policy = policy.with_adaptive(b, r);
    }
    let d = pol::decide(
        &policy,
        self::data_type(data_type)?,
        self::link(link)?,
        pol::Conditions {
            battery_percent,
            update_rate_hz,
        },
    );
    let out = PyDict::new(py);
    out.set_item("protection", protection(d.protection))?;
    out.set_item("base", protection(d.base))?;
    out.set_item("after_link", protection(d.after_link))?;
    out.set_item("after_adaptive", protection(d.after_adaptive))?;
    out.set_item("decided_by", rule(d.decided_by))?;
    Ok(out)
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
    m.add_function(wrap_pyfunction!(decide, m)?)?;
    m.add_function(wrap_pyfunction!(sealed_len, m)?)?;
    Ok(())
}
