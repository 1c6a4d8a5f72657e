//! `PkcEngine`: PKC direct messages through the shared-secret cache, one
//! at a time or as a batch, and the lengths of their payloads.

use super::keys::static_secret;
use crate::buffers::{batch_or_default, bytes_with, to_bytes, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use wireseal::meshtastic as mt;

/// Size of a sealed PKC payload for a plaintext of `plaintext_len` bytes.
#[pyfunction]
pub(super) fn sealed_len(plaintext_len: usize) -> usize {
    mt::sealed_len(plaintext_len)
}

/// Plaintext size of a sealed PKC payload of `sealed_len` bytes;
/// `TruncatedError` / `TooLongError` when no payload has that size.
#[pyfunction]
pub(super) fn opened_len(sealed_len: usize) -> PyResult<usize> {
    mt::opened_len(sealed_len).map_err(errors::meshtastic)
}

/// A node's PKC state: its key, the per-peer shared-secret cache (a repeat
/// message skips the X25519) and an optional replay window.
#[pyclass(module = "wireseal.meshtastic")]
pub struct PkcEngine {
    inner: mt::PkcEngine,
}

/// Largest cache a Python caller may ask for (each slot is preallocated).
const MAX_CACHE_PEERS: usize = 1 << 20;

fn peer32(b: &[u8]) -> PyResult<[u8; 32]> {
    errors::arr32("peer public key", b)
}

#[pymethods]
impl PkcEngine {
    /// An engine for `private_key` caching `capacity` peers, entries expiring
    /// `ttl_ms` after derivation (never when `None`), and, when
    /// `replay_window=(ids_per_sender, max_senders)`, rejecting repeated
    /// (from, id) pairs with `ReplayError`. `capacity` is at most 2**20.
    /// `InvalidKeyError` for a private key that is not clamped (the
    /// firmware would use it differently).
    #[new]
    #[pyo3(signature = (private_key, *, capacity=16, ttl_ms=None, replay_window=None))]
    fn new(
        private_key: &[u8],
        capacity: usize,
        ttl_ms: Option<u64>,
        replay_window: Option<(usize, usize)>,
    ) -> PyResult<Self> {
        if capacity > MAX_CACHE_PEERS {
            return Err(errors::LimitError::new_err(format!(
                "capacity is at most {MAX_CACHE_PEERS} peers"
            )));
        }
        let mut e = mt::PkcEngine::with_capacity(static_secret(private_key)?, capacity.max(1))
            .map_err(errors::meshtastic)?;
        if let Some(t) = ttl_ms {
            e = e.with_ttl(t);
        }
        if let Some((ids, senders)) = replay_window {
            e = e.with_replay_window(mt::ReplayWindow::new(ids, senders));
        }
        Ok(Self { inner: e })
    }

    /// Our public key (32 bytes).
    #[getter]
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        to_bytes(py, self.inner.public_key())
    }

    /// Replaces our key; every cached peer key is flushed.
    /// `InvalidKeyError` for an unclamped key (the engine is unchanged).
    fn set_own_key(&mut self, private_key: &[u8]) -> PyResult<()> {
        self.inner
            .set_own_key(static_secret(private_key)?)
            .map_err(errors::meshtastic)
    }

    /// Forgets a peer's cached key; returns whether it was cached.
    fn invalidate_peer(&mut self, peer_public: &[u8]) -> PyResult<bool> {
        Ok(self.inner.invalidate_peer(&peer32(peer_public)?))
    }

    /// The cache's counters: a dict with `hits`, `misses`, `evictions`,
    /// `expirations`, `flushes` and `len`.
    fn cache_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.cache().stats();
        let d = PyDict::new(py);
        d.set_item("hits", s.hits)?;
        d.set_item("misses", s.misses)?;
        d.set_item("evictions", s.evictions)?;
        d.set_item("expirations", s.expirations)?;
        d.set_item("flushes", s.flushes)?;
        d.set_item("len", self.inner.cache().len())?;
        Ok(d)
    }

    /// Seals `plaintext` to `peer_public` as node `from_` with packet `id`:
    /// `ciphertext | tag(8) | extraNonce(4)`, the extraNonce from the OS
    /// CSPRNG. `now` is milliseconds on the caller's clock (for the cache's
    /// TTL).
    fn seal<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        peer_public: &[u8],
        from_: u32,
        id: u32,
        plaintext: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let peer = peer32(peer_public)?;
        // The library's own refusal, before allocating the output.
        if plaintext.len() > mt::pkc::MAX_PLAINTEXT_LEN {
            return Err(errors::meshtastic(mt::Error::TooLong {
                len: plaintext.len(),
                max: mt::pkc::MAX_PLAINTEXT_LEN,
            }));
        }
        let cached = self.inner.cache().peek(now, &peer).is_some();
        let inner = &mut self.inner;
        let mut work = move |out: &mut [u8]| {
            let packet = mt::PkcPacket {
                peer_public: &peer,
                from: from_,
                id,
            };
            inner
                .seal_into(now, packet, plaintext, out)
                .map(|_| ())
                .map_err(errors::meshtastic)
        };
        let n = mt::sealed_len(plaintext.len());
        if cached {
            PyBytes::new_with(py, n, |b| work(b))
        } else {
            bytes_with(py, n, work)
        }
    }

    /// Verifies and decrypts a PKC payload from `peer_public` (node `from_`,
    /// packet `id`). `AuthError` when the tag fails, `ReplayError` when the
    /// replay window has seen (from, id); the window advances only after the
    /// tag verified.
    fn open<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        peer_public: &[u8],
        from_: u32,
        id: u32,
        payload: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let peer = peer32(peer_public)?;
        let n = mt::opened_len(payload.len()).map_err(errors::meshtastic)?;
        let cached = self.inner.cache().peek(now, &peer).is_some();
        let inner = &mut self.inner;
        let mut work = move |out: &mut [u8]| {
            let packet = mt::PkcPacket {
                peer_public: &peer,
                from: from_,
                id,
            };
            inner
                .open_into(now, packet, payload, out)
                .map(|_| ())
                .map_err(errors::meshtastic)
        };
        if cached {
            PyBytes::new_with(py, n, |b| work(b))
        } else {
            bytes_with(py, n, work)
        }
    }

    /// Opens many payloads `[(peer_public, from_, id, payload), ...]` on
    /// `batch` (all cores by default). Returns, in input order, the
    /// plaintext or the exception instance opening it alone would raise;
    /// the cache and the replay window end as if opened one at a time.
    #[pyo3(signature = (now, packets, *, batch=None))]
    fn open_batch(
        &mut self,
        py: Python<'_>,
        now: u64,
        packets: Vec<(Vec<u8>, u32, u32, Vec<u8>)>,
        batch: Option<&Bound<'_, Batch>>,
    ) -> PyResult<Vec<PyObject>> {
        let keys = packets
            .iter()
            .map(|(k, ..)| peer32(k))
            .collect::<PyResult<Vec<_>>>()?;
        let refs: Vec<mt::SealedPkc<'_>> = keys
            .iter()
            .zip(&packets)
            .map(|(k, (_, from, id, payload))| mt::SealedPkc {
                packet: mt::PkcPacket {
                    peer_public: k,
                    from: *from,
                    id: *id,
                },
                payload,
            })
            .collect();
        let b = batch_or_default(batch);
        let inner = &mut self.inner;
        let mut out = vec![0u8; mt::open_batch_len(&refs)];
        let res = py
            .allow_threads(|| inner.open_batch_into(now, b, &refs, &mut out))
            .map_err(errors::meshtastic)?;
        res.into_iter()
            .map(|r| match r {
                Ok(range) => Ok(to_bytes(py, &out[range]).into_any().unbind()),
                Err(e) => Ok(errors::meshtastic(e).into_value(py).into_any()),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("PkcEngine(cached_peers={})", self.inner.cache().len())
    }
}
