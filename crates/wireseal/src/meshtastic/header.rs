//! The 16-byte over-the-air packet header (`PacketHeader` in the firmware's
//! `RadioInterface.h`): all integers little-endian.
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | `to` (0xffffffff = broadcast) |
//! | 4..8 | `from` |
//! | 8..12 | `id` |
//! | 12 | flags: hop_limit (bits 0–2), want_ack (bit 3), via_mqtt (bit 4), hop_start (bits 5–7) |
//! | 13 | channel hash (or 0 for PKC direct messages) |
//! | 14 | next_hop (last byte of the next hop's node number) |
//! | 15 | relay_node (last byte of the relaying node's number) |

use super::Error;

/// Header length on the air.
pub const HEADER_LEN: usize = 16;
/// Largest LoRa frame the firmware sends (header included).
pub const MAX_FRAME_LEN: usize = 255;
/// Largest payload after the header.
pub const MAX_PAYLOAD_LEN: usize = MAX_FRAME_LEN - HEADER_LEN;
/// Broadcast destination.
pub const BROADCAST: u32 = 0xffff_ffff;

const HOP_LIMIT_MASK: u8 = 0x07;
const WANT_ACK: u8 = 0x08;
const VIA_MQTT: u8 = 0x10;
const HOP_START_SHIFT: u8 = 5;

/// A parsed packet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PacketHeader {
    /// Destination node number.
    pub to: u32,
    /// Sender node number.
    pub from: u32,
    /// Packet id (unique per sender).
    pub id: u32,
    /// Hops left (0–7).
    pub hop_limit: u8,
    /// Sender wants an acknowledgement.
    pub want_ack: bool,
    /// Came through an MQTT gateway.
    pub via_mqtt: bool,
    /// Hop limit the packet started with (0–7).
    pub hop_start: u8,
    /// Channel hash (0 for PKC direct messages).
    pub channel: u8,
    /// Next hop (last byte of its node number), 0 if unknown.
    pub next_hop: u8,
    /// Relaying node (last byte of its node number).
    pub relay_node: u8,
}

impl PacketHeader {
    /// Parses the header at the start of `frame`; returns it and the payload.
    ///
    /// # Errors
    /// [`Error::Truncated`] below [`HEADER_LEN`] bytes; [`Error::TooLong`]
    /// above [`MAX_FRAME_LEN`].
    pub fn parse(frame: &[u8]) -> Result<(Self, &[u8]), Error> {
        if frame.len() < HEADER_LEN {
            return Err(Error::Truncated {
                len: frame.len(),
                min: HEADER_LEN,
            });
        }
        if frame.len() > MAX_FRAME_LEN {
            return Err(Error::TooLong {
                len: frame.len(),
                max: MAX_FRAME_LEN,
            });
        }
        let (h, payload) = frame.split_at(HEADER_LEN);
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let flags = h[12];
        Ok((
            Self {
                to: u32_at(0),
                from: u32_at(4),
                id: u32_at(8),
                hop_limit: flags & HOP_LIMIT_MASK,
                want_ack: flags & WANT_ACK != 0,
                via_mqtt: flags & VIA_MQTT != 0,
                hop_start: flags >> HOP_START_SHIFT,
                channel: h[13],
                next_hop: h[14],
                relay_node: h[15],
            },
            payload,
        ))
    }

    /// The flags byte.
    ///
    /// # Errors
    /// [`Error::HeaderField`] when a hop count does not fit its 3 bits.
    pub fn flags(&self) -> Result<u8, Error> {
        if self.hop_limit > HOP_LIMIT_MASK {
            return Err(Error::HeaderField { field: "hop_limit" });
        }
        if self.hop_start > HOP_LIMIT_MASK {
            return Err(Error::HeaderField { field: "hop_start" });
        }
        Ok(self.hop_limit
            | if self.want_ack { WANT_ACK } else { 0 }
            | if self.via_mqtt { VIA_MQTT } else { 0 }
            | (self.hop_start << HOP_START_SHIFT))
    }

    /// The 16 header bytes.
    ///
    /// # Errors
    /// As [`PacketHeader::flags`].
    pub fn to_bytes(&self) -> Result<[u8; HEADER_LEN], Error> {
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(&self.to.to_le_bytes());
        b[4..8].copy_from_slice(&self.from.to_le_bytes());
        b[8..12].copy_from_slice(&self.id.to_le_bytes());
        b[12] = self.flags()?;
        b[13] = self.channel;
        b[14] = self.next_hop;
        b[15] = self.relay_node;
        Ok(b)
    }

    /// Header followed by `payload`, as sent on the air.
    ///
    /// # Errors
    /// [`Error::TooLong`] for a payload above [`MAX_PAYLOAD_LEN`]; as
    /// [`PacketHeader::flags`].
    #[cfg(feature = "alloc")]
    pub fn frame(&self, payload: &[u8]) -> Result<alloc::vec::Vec<u8>, Error> {
        if payload.len() > MAX_PAYLOAD_LEN {
            return Err(Error::TooLong {
                len: payload.len(),
                max: MAX_PAYLOAD_LEN,
            });
        }
        let mut v = alloc::vec::Vec::with_capacity(HEADER_LEN + payload.len());
        v.extend_from_slice(&self.to_bytes()?);
        v.extend_from_slice(payload);
        Ok(v)
    }
}
