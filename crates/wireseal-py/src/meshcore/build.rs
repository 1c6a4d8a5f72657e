//! The builders: the packets a node sends, byte for byte as the firmware
//! builds them (flood, empty path).

use super::keys::{ChannelKey, LocalIdentity};
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::meshcore as mc;

/// The GRP_TXT packet a node floods for `text` ("<sender>: <message>", at
/// most 160 bytes) on `channel_key`'s channel at `timestamp` (seconds).
#[pyfunction]
pub(super) fn encrypt_group<'py>(
    py: Python<'py>,
    channel_key: &ChannelKey,
    timestamp: u32,
    text: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = [0u8; mc::MAX_TRANS_UNIT];
    let n = channel_key
        .inner
        .encode_group_text(timestamp, text, &mut out)
        .map_err(errors::meshcore)?;
    Ok(PyBytes::new(py, &out[..n]))
}

/// The signed ADVERT packet a chat node floods for itself: `name` (cut at a
/// whole UTF-8 character to 31 bytes, 23 with a location), `timestamp`, and
/// a location in degrees when both `lat` and `lon` are given.
#[pyfunction]
#[pyo3(signature = (identity, name, timestamp, lat=None, lon=None))]
pub(super) fn advert<'py>(
    py: Python<'py>,
    identity: &LocalIdentity,
    name: &str,
    timestamp: u32,
    lat: Option<f64>,
    lon: Option<f64>,
) -> PyResult<Bound<'py, PyBytes>> {
    if lat.is_some() != lon.is_some() {
        return Err(errors::InvalidInputError::new_err(
            "lat and lon go together: give both or neither",
        ));
    }
    let advert = mc::AdvertOut {
        node_type: mc::NodeType::Chat,
        location: lat.zip(lon),
        name,
    };
    let mut out = [0u8; mc::MAX_TRANS_UNIT];
    let n = mc::encode_advert(&identity.inner, timestamp, &advert, &mut out)
        .map_err(errors::meshcore)?;
    Ok(PyBytes::new(py, &out[..n]))
}

/// The TXT_MSG packet `identity` floods to the peer with
/// `peer_public_key` (32 bytes): `text` (at most 160 bytes) at `timestamp`,
/// send `attempt` (0-3 in the flags; from 4 on also after a NUL).
#[pyfunction]
#[pyo3(signature = (identity, peer_public_key, timestamp, text, attempt=0))]
pub(super) fn text_message<'py>(
    py: Python<'py>,
    identity: &LocalIdentity,
    peer_public_key: &[u8],
    timestamp: u32,
    text: &str,
    attempt: u8,
) -> PyResult<Bound<'py, PyBytes>> {
    let peer = mc::PublicIdentity::from_slice(peer_public_key).map_err(errors::meshcore)?;
    let mut out = [0u8; mc::MAX_TRANS_UNIT];
    let n = mc::encode_text_message(&identity.inner, &peer, timestamp, attempt, text, &mut out)
        .map_err(errors::meshcore)?;
    Ok(PyBytes::new(py, &out[..n]))
}
