//! `wireseal.meshtastic`: PKC direct messages through the shared-secret
//! cache, channel packets (AES-CTR), the channel hash and the 16-byte header.

use crate::buffers::{batch_or_default, bytes_with, to_bytes, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic as mt;

fn static_secret(b: &[u8]) -> PyResult<StaticSecret> {
    let a = errors::arr32("private key", b)?;
    StaticSecret::from_bytes(&a)
        .map_err(|_| errors::InvalidKeyError::new_err("invalid X25519 private key"))
}

/// A fresh X25519 private key (32 bytes, clamped as RFC 7748 prescribes).
#[pyfunction]
fn generate_private_key(py: Python<'_>) -> Bound<'_, PyBytes> {
    to_bytes(py, StaticSecret::generate().expose())
}

/// The X25519 public key (32 bytes) of `private_key`.
#[pyfunction]
fn public_key<'py>(py: Python<'py>, private_key: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let k = static_secret(private_key)?;
    Ok(to_bytes(py, k.public_key()))
}

/// Size of a sealed PKC payload for a plaintext of `plaintext_len` bytes.
#[pyfunction]
fn sealed_len(plaintext_len: usize) -> usize {
    mt::sealed_len(plaintext_len)
}

/// Plaintext size of a sealed PKC payload of `sealed_len` bytes;
/// `TruncatedError` / `TooLongError` when no payload has that size.
#[pyfunction]
fn opened_len(sealed_len: usize) -> PyResult<usize> {
    mt::opened_len(sealed_len).map_err(errors::meshtastic)
}

/// A channel key expanded from its PSK as the firmware does (empty or
/// `b"\x00"`: no encryption; one byte: the default key's index; up to 16 or
/// 32 bytes zero-padded).
#[pyclass(module = "wireseal.meshtastic", frozen)]
pub struct ChannelKey {
    inner: mt::ChannelKey,
}

#[pymethods]
impl ChannelKey {
    /// Expands `psk`; `InvalidKeyError` when it is longer than 32 bytes.
    #[new]
    fn new(psk: &[u8]) -> PyResult<Self> {
        let inner = mt::ChannelKey::from_psk(psk).map_err(errors::meshtastic)?;
        Ok(Self { inner })
    }

    /// Whether packets on this channel are encrypted.
    #[getter]
    fn is_encrypted(&self) -> bool {
        self.inner.is_encrypted()
    }

    /// The one-byte channel hash for the channel called `name`.
    fn hash(&self, name: &str) -> u8 {
        self.inner.hash(name)
    }

    /// Encrypts a channel payload from node `from_`, packet `id` (AES-CTR).
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        from_: u32,
        id: u32,
        plaintext: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.apply(py, from_, id, plaintext)
    }

    /// Decrypts a channel payload (CTR mode: the same operation as encrypt;
    /// channel packets carry no tag, so nothing is verified).
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        from_: u32,
        id: u32,
        payload: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.apply(py, from_, id, payload)
    }

    fn __repr__(&self) -> &'static str {
        "ChannelKey(<secret>)"
    }
}

impl ChannelKey {
    fn apply<'py>(
        &self,
        py: Python<'py>,
        from: u32,
        id: u32,
        data: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        // Channel payloads are at most 239 bytes: releasing the GIL would
        // cost more than the AES-CTR itself.
        PyBytes::new_with(py, data.len(), |buf| {
            buf.copy_from_slice(data);
            self.inner.seal_in_place(from, id, buf);
            Ok(())
        })
    }
}

/// The one-byte channel hash of a channel called `name` with key `psk`.
#[pyfunction]
fn channel_hash(name: &str, psk: &[u8]) -> PyResult<u8> {
    Ok(mt::ChannelKey::from_psk(psk)
        .map_err(errors::meshtastic)?
        .hash(name))
}

/// The 16-byte over-the-air header.
#[pyclass(module = "wireseal.meshtastic", get_all, set_all, eq)]
#[derive(Clone, PartialEq)]
pub struct PacketHeader {
    /// Destination node number (0xffffffff: broadcast).
    to: u32,
    /// Sender node number.
    from_: u32,
    /// Packet id.
    id: u32,
    /// Hops left (0-7).
    hop_limit: u8,
    /// The sender wants an acknowledgement.
    want_ack: bool,
    /// The packet came through an MQTT gateway.
    via_mqtt: bool,
    /// Hop limit the packet started with (0-7).
    hop_start: u8,
    /// Channel hash (0 for PKC direct messages).
    channel: u8,
    /// Next hop (last byte of its node number), 0 if unknown.
    next_hop: u8,
    /// Relaying node (last byte of its node number).
    relay_node: u8,
}

impl PacketHeader {
    fn to_rust(&self) -> mt::PacketHeader {
        mt::PacketHeader {
            to: self.to,
            from: self.from_,
            id: self.id,
            hop_limit: self.hop_limit,
            want_ack: self.want_ack,
            via_mqtt: self.via_mqtt,
            hop_start: self.hop_start,
            channel: self.channel,
            next_hop: self.next_hop,
            relay_node: self.relay_node,
        }
    }

    fn from_rust(h: &mt::PacketHeader) -> Self {
        Self {
            to: h.to,
            from_: h.from,
            id: h.id,
            hop_limit: h.hop_limit,
            want_ack: h.want_ack,
            via_mqtt: h.via_mqtt,
            hop_start: h.hop_start,
            channel: h.channel,
            next_hop: h.next_hop,
            relay_node: h.relay_node,
        }
    }
}

#[pymethods]
impl PacketHeader {
    /// A header; every field is a keyword argument.
    #[new]
    #[pyo3(signature = (*, to=0xffff_ffff, from_=0, id=0, hop_limit=3, want_ack=false, via_mqtt=false, hop_start=3, channel=0, next_hop=0, relay_node=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        to: u32,
        from_: u32,
        id: u32,
        hop_limit: u8,
        want_ack: bool,
        via_mqtt: bool,
        hop_start: u8,
        channel: u8,
        next_hop: u8,
        relay_node: u8,
    ) -> Self {
        Self {
            to,
            from_,
            id,
            hop_limit,
            want_ack,
            via_mqtt,
            hop_start,
            channel,
            next_hop,
            relay_node,
        }
    }

    /// Parses the header at the start of `frame`; returns `(header, payload)`.
    #[staticmethod]
    fn parse<'py>(py: Python<'py>, frame: &[u8]) -> PyResult<(Self, Bound<'py, PyBytes>)> {
        let (h, payload) = mt::PacketHeader::parse(frame).map_err(errors::meshtastic)?;
        Ok((Self::from_rust(&h), to_bytes(py, payload)))
    }

    /// The 16 header bytes; `MalformedError` when a 3-bit field is over 7.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = self.to_rust().to_bytes().map_err(errors::meshtastic)?;
        Ok(to_bytes(py, &b))
    }

    /// The header followed by `payload`: a whole frame.
    fn frame<'py>(&self, py: Python<'py>, payload: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.to_rust().frame(payload).map_err(errors::meshtastic)?;
        Ok(to_bytes(py, &v))
    }

    fn __repr__(&self) -> String {
        format!(
            "PacketHeader(to={:#010x}, from_={:#010x}, id={:#010x}, hop_limit={}, want_ack={}, via_mqtt={}, hop_start={}, channel={}, next_hop={}, relay_node={})",
            self.to, self.from_, self.id, self.hop_limit,
            if self.want_ack { "True" } else { "False" },
            if self.via_mqtt { "True" } else { "False" },
            self.hop_start, self.channel, self.next_hop, self.relay_node
        )
    }
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
        let mut e = mt::PkcEngine::with_capacity(static_secret(private_key)?, capacity.max(1));
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
    fn set_own_key(&mut self, private_key: &[u8]) -> PyResult<()> {
        self.inner.set_own_key(static_secret(private_key)?);
        Ok(())
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
    /// `ciphertext | tag(8) | extraNonce(4)`. `now` is milliseconds on the
    /// caller's clock (for the cache's TTL); `extra_nonce` (4 bytes) comes
    /// from the OS CSPRNG when `None`.
    #[pyo3(signature = (now, peer_public, from_, id, plaintext, *, extra_nonce=None))]
    #[allow(clippy::too_many_arguments)]
    fn seal<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        peer_public: &[u8],
        from_: u32,
        id: u32,
        plaintext: &[u8],
        extra_nonce: Option<&[u8]>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let peer = peer32(peer_public)?;
        let extra: Option<[u8; 4]> = match extra_nonce {
            Some(e) => Some(
                e.try_into()
                    .map_err(|_| errors::MalformedError::new_err("extra_nonce must be 4 bytes"))?,
            ),
            None => None,
        };
        if plaintext.len() > mt::MAX_PAYLOAD_LEN {
            return Err(errors::meshtastic(mt::Error::TooLong {
                len: plaintext.len(),
                max: mt::MAX_PAYLOAD_LEN,
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
            match extra {
                Some(e) => inner.seal_with_extra_nonce_into(now, packet, e, plaintext, out),
                None => inner.seal_into(now, packet, plaintext, out),
            }
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ChannelKey>()?;
    m.add_class::<PacketHeader>()?;
    m.add_class::<PkcEngine>()?;
    crate::meshtastic_envelope::register(m)?;
    m.add_function(wrap_pyfunction!(generate_private_key, m)?)?;
    m.add_function(wrap_pyfunction!(public_key, m)?)?;
    m.add_function(wrap_pyfunction!(sealed_len, m)?)?;
    m.add_function(wrap_pyfunction!(opened_len, m)?)?;
    m.add_function(wrap_pyfunction!(channel_hash, m)?)?;
    m.add("HEADER_LEN", mt::HEADER_LEN)?;
    m.add("MAX_PAYLOAD_LEN", mt::MAX_PAYLOAD_LEN)?;
    Ok(())
}
