//! `wireseal.meshtastic.EnvelopeDecoder`: MQTT `ServiceEnvelope`s in, one
//! dict per packet out (channel or PKC decryption, node keys learned from
//! NodeInfo, signatures checked, the firmware's signature policy applied),
//! one at a time or as a batch, or the gateway's JSON record.

use super::keys::{static_secret, Psk};
use super::record::record;
use crate::buffers::{batch_or_default, Batch};
use crate::errors;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyDict;
use wireseal::meshtastic::decoder::Decoded;
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::{self as mt, ReplayWindow, SignaturePolicy};

/// Decodes the envelopes of one MQTT feed: channels by name and PSK, our
/// node's key for PKC direct messages to it, an optional replay window.
#[pyclass(module = "wireseal.meshtastic")]
pub struct EnvelopeDecoder {
    inner: mt::Decoder,
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
        record(py, |i| self.inner.channel_name(i), &d)
    }

    /// Decodes many envelopes on `batch` (all cores by default); returns, in
    /// input order, a dict or the exception instance `decode` would raise.
    /// The envelopes are decoded with the GIL released; on a batch of
    /// several threads a large call decodes them run after run on a thread
    /// of its own while the dicts of the runs already decoded are built.
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
        let names: Vec<String> = (0..)
            .map_while(|i| self.inner.channel_name(i).map(str::to_owned))
            .collect();
        let inner = &mut self.inner;
        let record = |py, r: &Result<Decoded, mt::Error>| match r {
            Ok(d) => Ok(record(py, |i| names.get(i).map(String::as_str), d)?
                .into_any()
                .unbind()),
            Err(e) => Ok(errors::meshtastic(*e).into_value(py).into_any()),
        };
        if b.threads() < 2 || refs.len() <= PIPELINE_RUN {
            let res = py.allow_threads(|| inner.decode_batch(now, b, &refs));
            return res.iter().map(|r| record(py, r)).collect();
        }
        pipeline(py, &refs, |run| inner.decode_batch(now, b, run), record)
    }
}

/// Envelopes per run of a pipelined `decode_batch`: each run's decoding is
/// spread over the batch's threads, and its dicts take about as long to
/// build as the next run takes to decode.
const PIPELINE_RUN: usize = 512;

/// Envelopes in the first run of a pipelined `decode_batch`: the calling
/// thread waits for that one with nothing to do, so it is short, and each
/// run after it twice as long as the one before, up to [`PIPELINE_RUN`].
const FIRST_RUN: usize = 64;

/// `refs` cut into the runs of a pipelined `decode_batch`.
fn runs<'r, 'e>(mut refs: &'r [&'e [u8]]) -> impl Iterator<Item = &'r [&'e [u8]]> {
    let mut len = FIRST_RUN;
    std::iter::from_fn(move || {
        if refs.is_empty() {
            return None;
        }
        let (run, rest) = refs.split_at(len.min(refs.len()));
        refs = rest;
        len = (len * 2).min(PIPELINE_RUN);
        Some(run)
    })
}

/// A run of decoded envelopes.
type Decodeds = Vec<Result<Decoded, mt::Error>>;

/// Decodes `refs` run after run with `decode` on a thread of its own (the
/// GIL not held), while the calling thread turns the runs already decoded
/// into Python objects with `record`; results in input order. The decoding
/// runs at most one run ahead; a failed `record` stops it. The runs made
/// into dicts go back to the decoding thread to be dropped there, so that
/// freeing them takes nothing from the thread that holds the GIL.
fn pipeline<'py>(
    py: Python<'py>,
    refs: &[&[u8]],
    mut decode: impl FnMut(&[&[u8]]) -> Decodeds + Send,
    record: impl Fn(Python<'py>, &Result<Decoded, mt::Error>) -> PyResult<PyObject>,
) -> PyResult<Vec<PyObject>> {
    std::thread::scope(|s| {
        let (tx, mut rx) = std::sync::mpsc::sync_channel(1);
        let (done_tx, done_rx) = std::sync::mpsc::channel::<Decodeds>();
        s.spawn(move || {
            for run in runs(refs) {
                if tx.send(decode(run)).is_err() {
                    break;
                }
                done_rx.try_iter().for_each(drop);
            }
            drop(tx);
            // Until the calling thread is done with the last run.
            done_rx.iter().for_each(drop);
        });
        let mut out = Vec::with_capacity(refs.len());
        loop {
            let (back, next) = py.allow_threads(move || {
                let next = rx.recv();
                (rx, next)
            });
            rx = back;
            let Ok(decoded) = next else {
                break;
            };
            for r in &decoded {
                out.push(record(py, r)?);
            }
            // The decoding thread has ended only if it panicked, which the
            // scope raises again.
            let _ = done_tx.send(decoded);
        }
        Ok(out)
    })
}
