//! `ChannelKey` and the channel hash: channel packets (AES-CTR) under a
//! PSK as the radio expands it.

use super::keys::Psk;
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::meshtastic as mt;

/// A channel key expanded from its PSK as the firmware does (empty or
/// `b"\x00"`: no encryption; one byte: the default key's index; up to 16 or
/// 32 bytes zero-padded), or from PSK text (`"AQ=="`, `"hex:..."`,
/// `"none"`, `"default"`, `"simpleN"`).
#[pyclass(module = "wireseal.meshtastic", frozen)]
pub struct ChannelKey {
    inner: mt::ChannelKey,
}

#[pymethods]
impl ChannelKey {
    /// Expands `psk` (bytes or text); `InvalidKeyError` when it is longer
    /// than 32 bytes or the text cannot be read.
    #[new]
    fn new(psk: Psk) -> PyResult<Self> {
        Ok(Self { inner: psk.key()? })
    }

    /// Whether packets on this channel are encrypted.
    #[getter]
    fn is_encrypted(&self) -> bool {
        self.inner.is_encrypted()
    }

    /// The PSK's length when the firmware's rule zero-padded it (2-15 or
    /// 17-31 bytes), else `None`.
    #[getter]
    fn padded_from(&self) -> Option<usize> {
        self.inner.padded_from()
    }

    /// The one-byte channel hash for the channel called `name`.
    fn hash(&self, name: &str) -> u8 {
        self.inner.hash(name)
    }

    /// Encrypts a channel payload from node `from_`, packet `id` (AES-CTR);
    /// `TooLongError` over one LoRa payload (239 bytes).
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
        if data.len() > mt::MAX_PAYLOAD_LEN {
            return Err(errors::meshtastic(mt::Error::TooLong {
                len: data.len(),
                max: mt::MAX_PAYLOAD_LEN,
            }));
        }
        PyBytes::new_with(py, data.len(), |buf| {
            buf.copy_from_slice(data);
            self.inner
                .seal_in_place(from, id, buf)
                .map(|_| ())
                .map_err(errors::meshtastic)
        })
    }
}

/// The one-byte channel hash of a channel called `name` with key `psk`
/// (bytes or text).
#[pyfunction]
pub(super) fn channel_hash(name: &str, psk: Psk) -> PyResult<u8> {
    Ok(psk.key()?.hash(name))
}
