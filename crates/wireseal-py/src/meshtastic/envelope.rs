//! `wireseal.meshtastic.EnvelopeDecoder`: MQTT `ServiceEnvelope`s in, one
//! dict per packet out (channel or PKC decryption, node keys learned from
//! NodeInfo, signatures checked, the firmware's signature policy applied),
//! one at a time or as a batch, or the gateway's JSON record.

use super::keys::{static_secret, Psk};
use crate::buffers::{batch_or_default, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict};
use wireseal::meshtastic::app::PacketKind;
use wireseal::meshtastic::decoder::{Decoded, Decryption};
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::{self as mt, ReplayWindow, SignaturePolicy};

/// Decodes the envelopes of one MQTT feed: channels by name and PSK, our
/// node's key for PKC direct messages to it, an optional replay window.
#[pyclass(module = "wireseal.meshtastic")]
pub struct EnvelopeDecoder {
    inner: mt::Decoder,
}

fn decoded<'py>(py: Python<'py>, dec: &mt::Decoder, d: &Decoded) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("from_", d.from)?;
    out.set_item("to", d.to)?;
    out.set_item("id", d.id)?;
    out.set_item("channel_id", &d.channel_id)?;
    out.set_item("gateway_id", &d.gateway_id)?;
    out.set_item("channel_hash", d.channel_hash)?;
    let r = &d.reception;
    out.set_item("rx_time", r.rx_time)?;
    out.set_item("rx_snr", r.rx_snr())?;
    out.set_item("rx_rssi", r.rx_rssi)?;
    out.set_item("hop_limit", r.hop_limit)?;
    out.set_item("hop_start", r.hop_start)?;
    out.set_item("relay_node", r.relay_node)?;
    out.set_item("claimed_signed", r.claimed_signed)?;
    out.set_item("portnum", d.portnum())?;
    out.set_item("payload", d.payload().map(|p| PyBytes::new(py, p)))?;
    out.set_item("text", d.text())?;
    let channel = match d.decryption {
        Decryption::Channel(i) => dec.channel_name(i),
        _ => None,
    };
    out.set_item("kind", PacketKind::of(d.portnum()).as_str())?;
    out.set_item("decryption", d.decryption.as_str())?;
    out.set_item("channel", channel)?;
    out.set_item("our_node", d.our_node)?;
    out.set_item("signature", d.signature.as_str())?;
    out.set_item("policy", d.verdict.map(|v| v.as_str()))?;
    out.set_item(
        "policy_reason",
        d.verdict.and_then(|v| v.concern()).map(|c| c.as_str()),
    )?;
    out.set_item("identity", d.identity.map(|i| i.as_str()))?;
    out.set_item("control", d.control().map(|c| c.as_str()))?;
    out.set_item("key_event", d.key_event.map(|e| e.as_str()))?;
    out.set_item("error", d.error.as_ref().map(|e| e.as_str()))?;
    Ok(out)
}

#[pymethods]
impl EnvelopeDecoder {
    /// A decoder with no channels, no node key and no replay window, judging
    /// signatures as a node with `signature_policy` ("compatible", the
    /// firmware's default, "balanced" or "strict") would.
    #[new]
    #[pyo3(signature = (*, signature_policy="compatible"))]
    fn new(signature_policy: &str) -> PyResult<Self> {
        let policy: SignaturePolicy = signature_policy.parse().map_err(errors::meshtastic)?;
        Ok(Self {
            inner: mt::Decoder::new().with_signature_policy(policy),
        })
    }

    /// Adds channel `name` with its PSK (bytes as configured on the radio,
    /// or text as the apps show it); returns its index.
    fn add_channel(&mut self, name: &str, psk: Psk) -> PyResult<usize> {
        Ok(self.inner.add_channel_key(name, psk.key()?))
    }

    /// Adds a node of ours (its number and X25519 private key), for PKC
    /// messages to it (several nodes may be ours; a node given again gets
    /// the new key); `InvalidKeyError` for an unclamped key.
    fn set_node(&mut self, node: u32, private_key: &[u8]) -> PyResult<()> {
        let own = static_secret(private_key)?;
        let engine = mt::PkcEngine::with_capacity(own, mt::decoder::DEFAULT_PKC_PEERS)
            .map_err(errors::meshtastic)?;
        let d = std::mem::take(&mut self.inner);
        self.inner = d.with_node_engine(node, engine);
        Ok(())
    }

    /// Rejects repeated (from, id) pairs (reported as `error="replay"`).
    fn set_replay_window(&mut self, ids_per_sender: usize, max_senders: usize) {
        let d = std::mem::take(&mut self.inner);
        self.inner = d.with_replay_window(ReplayWindow::new(ids_per_sender, max_senders));
    }

    /// The signature policy's name.
    #[getter]
    fn signature_policy(&self) -> &'static str {
        self.inner.signature_policy().as_str()
    }

    /// How `node`'s number relates to its pinned key ("matches", "mismatch",
    /// "legacy"), `None` when no key is pinned.
    fn node_identity(&self, node: u32) -> Option<&'static str> {
        self.inner.nodes().identity(node).map(|i| i.as_str())
    }

    /// Decodes one envelope to the gateway's JSON record (the line
    /// `wireseal meshtastic gateway` prints for it).
    fn decode_record(&mut self, py: Python<'_>, now: u64, envelope: &[u8]) -> PyResult<String> {
        let inner = &mut self.inner;
        let d = py
            .allow_threads(|| inner.decode(now, envelope))
            .map_err(errors::meshtastic)?;
        Ok(wireseal_io::record::to_json(&PacketRecord::new(
            &self.inner,
            &d,
        )))
    }

    /// Decodes one envelope (`now` in milliseconds). A packet that cannot
    /// be decrypted is a dict whose `error` says why; only an unusable
    /// envelope raises.
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        now: u64,
        envelope: &[u8],
    ) -> PyResult<Bound<'py, PyDict>> {
        let inner = &mut self.inner;
        let d = py
            .allow_threads(|| inner.decode(now, envelope))
            .map_err(errors::meshtastic)?;
        decoded(py, &self.inner, &d)
    }

    /// Decodes many envelopes on `batch` (all cores by default); returns, in
    /// input order, a dict or the exception instance `decode` would raise.
    #[pyo3(signature = (now, envelopes, *, batch=None))]
    fn decode_batch(
        &mut self,
        py: Python<'_>,
        now: u64,
        envelopes: Vec<PyBackedBytes>,
        batch: Option<&Bound<'_, Batch>>,
    ) -> PyResult<Vec<PyObject>> {
        let b = batch_or_default(batch);
        // Borrowed, not copied: extracting `Vec<u8>` reads a `bytes` object
        // one item at a time, which cost more than decoding it.
        let refs: Vec<&[u8]> = envelopes.iter().map(|e| &e[..]).collect();
        let inner = &mut self.inner;
        let res = py.allow_threads(|| inner.decode_batch(now, b, &refs));
        res.iter()
            .map(|r| match r {
                Ok(d) => Ok(decoded(py, &self.inner, d)?.into_any().unbind()),
                Err(e) => Ok(errors::meshtastic(*e).into_value(py).into_any()),
            })
            .collect()
    }
}
