//! `wireseal.meshtastic.EnvelopeDecoder`: MQTT `ServiceEnvelope`s in, one
//! dict per packet out (channel or PKC decryption, node keys learned from
//! NodeInfo, signatures checked), one at a time or as a batch.

use crate::buffers::{batch_or_default, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{Decoded, Decryption, KeyEvent};
use wireseal::meshtastic::{self as mt, ReplayWindow};

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
    out.set_item("rx_time", d.rx_time)?;
    out.set_item("hop_limit", d.hop_limit)?;
    out.set_item("hop_start", d.hop_start)?;
    out.set_item("portnum", d.portnum())?;
    out.set_item("payload", d.payload().map(|p| PyBytes::new(py, p)))?;
    out.set_item("text", d.text())?;
    let (how, channel) = match d.decryption {
        Decryption::Channel(i) => ("channel", dec.channel_name(i)),
        Decryption::Pkc => ("pkc", None),
        Decryption::Plain => ("plain", None),
        _ => ("none", None),
    };
    out.set_item("decryption", how)?;
    out.set_item("channel", channel)?;
    out.set_item("signature", d.signature.as_str())?;
    let event = match &d.key_event {
        Some(KeyEvent::Learned { node }) => Some(("learned", *node)),
        Some(KeyEvent::Conflict { node, .. }) => Some(("conflict", *node)),
        Some(KeyEvent::TableFull { node }) => Some(("table-full", *node)),
        _ => None,
    };
    out.set_item("key_event", event)?;
    out.set_item("error", d.error.as_ref().map(|e| e.reason()))?;
    Ok(out)
}

#[pymethods]
impl EnvelopeDecoder {
    /// A decoder with no channels, no node key and no replay window.
    #[new]
    fn new() -> Self {
        Self {
            inner: mt::Decoder::new(),
        }
    }

    /// Adds channel `name` with its PSK (as configured on the radio);
    /// returns its index.
    fn add_channel(&mut self, name: &str, psk: &[u8]) -> PyResult<usize> {
        self.inner
            .add_channel(name, psk)
            .map_err(errors::meshtastic)
    }

    /// Our node number and X25519 private key, for PKC messages to us.
    fn set_node(&mut self, node: u32, private_key: &[u8]) -> PyResult<()> {
        let k = StaticSecret::from_bytes(&errors::arr32("private key", private_key)?)
            .map_err(|_| errors::InvalidKeyError::new_err("invalid X25519 private key"))?;
        self.inner.set_node(node, k);
        Ok(())
    }

    /// Rejects repeated (from, id) pairs (reported as `error="replay"`).
    fn set_replay_window(&mut self, ids_per_sender: usize, max_senders: usize) {
        self.inner
            .set_replay_window(ReplayWindow::new(ids_per_sender, max_senders));
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
        let res = py.allow_threads(|| inner.decode_batch(now, &refs, b));
        res.iter()
            .map(|r| match r {
                Ok(d) => Ok(decoded(py, &self.inner, d)?.into_any().unbind()),
                Err(e) => Ok(errors::meshtastic(*e).into_value(py).into_any()),
            })
            .collect()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EnvelopeDecoder>()
}
