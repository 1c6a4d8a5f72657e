//! Keys as Python hands them in: X25519 private keys and channel PSKs
//! (bytes or text), and the functions that make and read node keys.

use crate::buffers::to_bytes;
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic as mt;

pub(crate) fn static_secret(b: &[u8]) -> PyResult<StaticSecret> {
    let a = errors::arr32("private key", b)?;
    StaticSecret::from_bytes(&a)
        .map_err(|_| errors::InvalidKeyError::new_err("invalid X25519 private key"))
}

/// A channel PSK: its bytes as configured on the radio, or text as the apps
/// show it (base64, `hex:HEX`, `none`, `default`, `simpleN`).
#[derive(FromPyObject)]
pub(crate) enum Psk {
    Text(String),
    Bytes(Vec<u8>),
}

impl Psk {
    /// The channel key, expanded by the library's one rule.
    pub(crate) fn key(self) -> PyResult<mt::ChannelKey> {
        match self {
            Psk::Text(t) => t.parse(),
            Psk::Bytes(b) => mt::ChannelKey::from_psk(&b),
        }
        .map_err(errors::meshtastic)
    }
}

/// A fresh X25519 private key (32 bytes, clamped as RFC 7748 prescribes).
#[pyfunction]
pub(super) fn generate_private_key(py: Python<'_>) -> Bound<'_, PyBytes> {
    to_bytes(py, StaticSecret::generate().expose())
}

/// The X25519 public key (32 bytes) of `private_key`.
#[pyfunction]
pub(super) fn public_key<'py>(
    py: Python<'py>,
    private_key: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let k = static_secret(private_key)?;
    Ok(to_bytes(py, k.public_key()))
}

/// The node number firmware 2.8 gives the node with `public_key`:
/// `crc32(public_key)`.
#[pyfunction]
pub(super) fn node_number(public_key: &[u8]) -> PyResult<u32> {
    Ok(mt::node_number(&errors::arr32("public key", public_key)?))
}
