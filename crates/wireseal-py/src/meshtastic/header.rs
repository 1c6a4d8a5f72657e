//! `wireseal.meshtastic.PacketHeader`: the 16-byte over-the-air header.

use crate::buffers::to_bytes;
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::meshtastic as mt;

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

    /// The 16 header bytes; `InvalidInputError` when a 3-bit field is over 7.
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
