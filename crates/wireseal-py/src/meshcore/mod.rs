//! `wireseal.meshcore`: MeshCore channels and identities, the strict
//! decoder (its dict is the library's record, the JSON `wireseal meshcore
//! decode --json` prints), the builders of group texts, adverts and direct
//! messages, packet hashes and header fields.

mod build;
mod decoder;
mod keys;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::meshcore as mc;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<keys::ChannelKey>()?;
    m.add_class::<keys::LocalIdentity>()?;
    m.add_class::<decoder::Decoder>()?;
    m.add_function(wrap_pyfunction!(build::encrypt_group, m)?)?;
    m.add_function(wrap_pyfunction!(build::advert, m)?)?;
    m.add_function(wrap_pyfunction!(build::text_message, m)?)?;
    m.add_function(wrap_pyfunction!(decoder::packet_hash, m)?)?;
    m.add_function(wrap_pyfunction!(decoder::parse, m)?)?;
    m.add(
        "PUBLIC_CHANNEL_KEY",
        PyBytes::new(m.py(), &mc::PUBLIC_CHANNEL_KEY),
    )?;
    m.add("MAX_TRANS_UNIT", mc::MAX_TRANS_UNIT)?;
    m.add("MAX_PACKET_PAYLOAD", mc::MAX_PACKET_PAYLOAD)?;
    m.add("MAX_PATH_SIZE", mc::MAX_PATH_SIZE)?;
    m.add("MAX_TEXT_LEN", mc::MAX_TEXT_LEN)?;
    Ok(())
}
