//! `wireseal.meshtastic`: PKC direct messages through the shared-secret
//! cache, channel packets (AES-CTR), the channel hash, the 16-byte header,
//! and the MQTT envelope decoder.

mod channel;
mod envelope;
mod header;
mod keys;
mod pkc;
mod record;

use pyo3::prelude::*;
use wireseal::meshtastic as mt;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<channel::ChannelKey>()?;
    m.add_class::<header::PacketHeader>()?;
    m.add_class::<pkc::PkcEngine>()?;
    m.add_class::<envelope::EnvelopeDecoder>()?;
    m.add_function(wrap_pyfunction!(keys::generate_private_key, m)?)?;
    m.add_function(wrap_pyfunction!(keys::public_key, m)?)?;
    m.add_function(wrap_pyfunction!(pkc::sealed_len, m)?)?;
    m.add_function(wrap_pyfunction!(pkc::opened_len, m)?)?;
    m.add_function(wrap_pyfunction!(channel::channel_hash, m)?)?;
    m.add_function(wrap_pyfunction!(keys::node_number, m)?)?;
    m.add("HEADER_LEN", mt::HEADER_LEN)?;
    m.add("MAX_PAYLOAD_LEN", mt::MAX_PAYLOAD_LEN)?;
    Ok(())
}
