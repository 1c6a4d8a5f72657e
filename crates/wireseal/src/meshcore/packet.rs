//! The packet: `header | [transport codes] | path_len | path | payload`.
//!
//! [`Packet::parse`] refuses every packet the firmware's
//! `Dispatcher::tryParsePacket` and `Mesh::onRecvPacket` drop (version,
//! reserved hash size, path over 64 bytes or past the end, payload over 184
//! bytes or under its type's minimum) and borrows the rest; [`PacketOut`]
//! writes one.

use super::error::Error;
pub use super::payload_type::PayloadType;
use super::{MAX_PACKET_PAYLOAD, MAX_PATH_SIZE};
use core::fmt;
use sha2::{Digest, Sha256};

/// How a packet travels (the header's low two bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteType {
    /// Flooded, with region transport codes.
    TransportFlood,
    /// Flooded: repeaters append their hash to the path.
    Flood,
    /// Sent along the path it carries.
    Direct,
    /// Sent along its path, with region transport codes.
    TransportDirect,
}

impl RouteType {
    /// Every route type, in wire order.
    pub const ALL: [RouteType; 4] = [
        RouteType::TransportFlood,
        RouteType::Flood,
        RouteType::Direct,
        RouteType::TransportDirect,
    ];

    /// The route type of a header's low two bits.
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 3 {
            0 => RouteType::TransportFlood,
            1 => RouteType::Flood,
            2 => RouteType::Direct,
            _ => RouteType::TransportDirect,
        }
    }

    /// The two header bits.
    pub const fn bits(self) -> u8 {
        match self {
            RouteType::TransportFlood => 0,
            RouteType::Flood => 1,
            RouteType::Direct => 2,
            RouteType::TransportDirect => 3,
        }
    }

    /// The stable name: `transport_flood`, `flood`, `direct`,
    /// `transport_direct`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RouteType::TransportFlood => "transport_flood",
            RouteType::Flood => "flood",
            RouteType::Direct => "direct",
            RouteType::TransportDirect => "transport_direct",
        }
    }

    /// Whether the packet carries two region transport codes.
    pub const fn has_transport_codes(self) -> bool {
        matches!(self, RouteType::TransportFlood | RouteType::TransportDirect)
    }

    /// Whether the packet is flooded (its path grows as it travels).
    pub const fn is_flood(self) -> bool {
        matches!(self, RouteType::TransportFlood | RouteType::Flood)
    }

    /// The route type of a stable name.
    ///
    /// # Errors
    /// [`Error::UnknownName`] for any other text.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == name)
            .ok_or(Error::UnknownName {
                what: "route type",
                expected: "transport_flood, flood, direct, transport_direct",
            })
    }
}

impl fmt::Display for RouteType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The path length byte: a hop count (0-63) and the bytes per hop (1-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PathLen(u8);

impl PathLen {
    /// Reads a path length byte.
    ///
    /// # Errors
    /// [`Error::ReservedHashSize`] when the size bits are `0b11`;
    /// [`Error::PathTooLong`] when the path would exceed 64 bytes.
    pub const fn from_byte(b: u8) -> Result<Self, Error> {
        if b >> 6 == 3 {
            return Err(Error::ReservedHashSize(b));
        }
        let p = PathLen(b);
        if p.byte_len() > MAX_PATH_SIZE {
            return Err(Error::PathTooLong { len: p.byte_len() });
        }
        Ok(p)
    }

    /// The byte for `hops` hops of `hash_size` bytes each.
    ///
    /// # Errors
    /// [`Error::Argument`] for a hash size outside 1-3 or more than 63
    /// hops; [`Error::PathTooLong`] over 64 bytes.
    pub const fn new(hash_size: usize, hops: usize) -> Result<Self, Error> {
        if hash_size == 0 || hash_size > 3 {
            return Err(Error::Argument {
                what: "path hash size",
                reason: "1, 2 or 3 bytes per hop",
            });
        }
        if hops > 63 {
            return Err(Error::Argument {
                what: "path",
                reason: "at most 63 hops",
            });
        }
        Self::from_byte((((hash_size - 1) << 6) | hops) as u8)
    }

    /// The byte as sent.
    pub const fn byte(self) -> u8 {
        self.0
    }

    /// Bytes per hop (1-3).
    pub const fn hash_size(self) -> usize {
        (self.0 >> 6) as usize + 1
    }

    /// Number of hops.
    pub const fn hops(self) -> usize {
        (self.0 & 63) as usize
    }

    /// Path length in bytes.
    pub const fn byte_len(self) -> usize {
        self.hash_size() * self.hops()
    }
}

/// A parsed packet, borrowing the received bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// How it travels.
    pub route: RouteType,
    /// What it carries.
    pub payload_type: PayloadType,
    /// The two region transport codes (transport routes only).
    pub transport_codes: Option<[u16; 2]>,
    /// The path length byte.
    pub path_len: PathLen,
    /// The path: [`PathLen::hops`] hops of [`PathLen::hash_size`] bytes.
    pub path: &'a [u8],
    /// The payload.
    pub payload: &'a [u8],
}

impl<'a> Packet<'a> {
    /// Parses a received packet, with every check the firmware makes
    /// before it handles one.
    ///
    /// # Errors
    /// [`Error::Truncated`] when the packet ends before its path length
    /// byte, path or payload; [`Error::Version`], [`Error::ReservedHashSize`],
    /// [`Error::PathTooLong`], [`Error::PayloadTooLong`] and
    /// [`Error::PayloadTooShort`] as their docs say; [`Error::TooLong`]
    /// over 255 bytes (a LoRa frame).
    pub fn parse(raw: &'a [u8]) -> Result<Self, Error> {
        if raw.len() > super::MAX_TRANS_UNIT {
            return Err(Error::TooLong {
                len: raw.len(),
                max: super::MAX_TRANS_UNIT,
            });
        }
        let (&header, rest) = raw
            .split_first()
            .ok_or(Error::Truncated { len: 0, min: 2 })?;
        let version = header >> 6;
        if version != 0 {
            return Err(Error::Version(version));
        }
        let route = RouteType::from_bits(header);
        let payload_type = PayloadType::from_bits(header >> 2);
        let (transport_codes, rest) = if route.has_transport_codes() {
            if rest.len() < 5 {
                return Err(Error::Truncated {
                    len: raw.len(),
                    min: 6,
                });
            }
            let c1 = u16::from_le_bytes([rest[0], rest[1]]);
            let c2 = u16::from_le_bytes([rest[2], rest[3]]);
            (Some([c1, c2]), &rest[4..])
        } else {
            (None, rest)
        };
        let (&len_byte, rest) = rest.split_first().ok_or(Error::Truncated {
            len: raw.len(),
            min: 2,
        })?;
        let path_len = PathLen::from_byte(len_byte)?;
        let n = path_len.byte_len();
        if rest.len() < n {
            return Err(Error::Truncated {
                len: raw.len(),
                min: raw.len() - rest.len() + n,
            });
        }
        let (path, payload) = rest.split_at(n);
        if payload.len() > MAX_PACKET_PAYLOAD {
            return Err(Error::PayloadTooLong { len: payload.len() });
        }
        let min = payload_type.min_payload();
        if payload.len() < min {
            return Err(Error::PayloadTooShort {
                payload_type,
                len: payload.len(),
                min,
            });
        }
        Ok(Self {
            route,
            payload_type,
            transport_codes,
            path_len,
            path,
            payload,
        })
    }

    /// The path's hops, each [`PathLen::hash_size`] bytes (a repeater's
    /// public key prefix; SNR bytes in a direct TRACE).
    pub fn hops(&self) -> core::slice::ChunksExact<'a, u8> {
        self.path.chunks_exact(self.path_len.hash_size())
    }

    /// The packet hash observers publish and the firmware's logs print:
    /// SHA-256 of the type byte (then, for TRACE only, the path length as
    /// 16-bit little-endian) and the payload, first 8 bytes.
    pub fn hash(&self) -> [u8; 8] {
        packet_hash(self.payload_type, self.path_len, self.payload)
    }
}

/// [`Packet::hash`] from its parts.
pub fn packet_hash(payload_type: PayloadType, path_len: PathLen, payload: &[u8]) -> [u8; 8] {
    let mut h = Sha256::new();
    h.update([payload_type.bits()]);
    if payload_type == PayloadType::Trace {
        h.update(u16::from(path_len.byte()).to_le_bytes());
    }
    h.update(payload);
    let d = h.finalize();
    let mut out = [0u8; 8];
    out.copy_from_slice(&d[..8]);
    out
}

/// A packet to send: the header's parts, the path and the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketOut<'a> {
    /// How it travels.
    pub route: RouteType,
    /// What it carries.
    pub payload_type: PayloadType,
    /// Region transport codes; required for transport routes, refused
    /// otherwise.
    pub transport_codes: Option<[u16; 2]>,
    /// Bytes per hop (1-3); the firmware's default is 1.
    pub path_hash_size: usize,
    /// The path (a whole number of hops).
    pub path: &'a [u8],
    /// The payload.
    pub payload: &'a [u8],
}

impl<'a> PacketOut<'a> {
    /// A flood packet with an empty path, as a node sends its own adverts
    /// and group messages.
    pub const fn flood(payload_type: PayloadType, payload: &'a [u8]) -> Self {
        Self {
            route: RouteType::Flood,
            payload_type,
            transport_codes: None,
            path_hash_size: 1,
            path: &[],
            payload,
        }
    }

    /// The encoded length.
    pub const fn len(&self) -> usize {
        let codes = if self.route.has_transport_codes() {
            4
        } else {
            0
        };
        1 + codes + 1 + self.path.len() + self.payload.len()
    }

    /// Always false: a packet has at least a header and a path length.
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// Writes the packet into `out` and returns its length. The result
    /// always parses back with [`Packet::parse`].
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] (nothing written); [`Error::Argument`]
    /// when the path is not a whole number of hops, or transport codes
    /// are missing for a transport route or given for another;
    /// [`Error::PathTooLong`], [`Error::PayloadTooLong`],
    /// [`Error::PayloadTooShort`] for what a receiver would drop.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<usize, Error> {
        let hops = self.path.len() / self.path_hash_size.max(1);
        let path_len = PathLen::new(self.path_hash_size, hops)?;
        if path_len.byte_len() != self.path.len() {
            return Err(Error::Argument {
                what: "path",
                reason: "a whole number of hops",
            });
        }
        if self.payload.len() > MAX_PACKET_PAYLOAD {
            return Err(Error::PayloadTooLong {
                len: self.payload.len(),
            });
        }
        let min = self.payload_type.min_payload();
        if self.payload.len() < min {
            return Err(Error::PayloadTooShort {
                payload_type: self.payload_type,
                len: self.payload.len(),
                min,
            });
        }
        if self.route.has_transport_codes() != self.transport_codes.is_some() {
            return Err(Error::Argument {
                what: "transport codes",
                reason: "given exactly for the transport routes",
            });
        }
        let len = self.len();
        if out.len() < len {
            return Err(Error::BufferTooSmall { required: len });
        }
        out[0] = (self.payload_type.bits() << 2) | self.route.bits();
        let mut i = 1;
        if let Some([c1, c2]) = self.transport_codes {
            out[1..3].copy_from_slice(&c1.to_le_bytes());
            out[3..5].copy_from_slice(&c2.to_le_bytes());
            i = 5;
        }
        out[i] = path_len.byte();
        i += 1;
        out[i..i + self.path.len()].copy_from_slice(self.path);
        i += self.path.len();
        out[i..i + self.payload.len()].copy_from_slice(self.payload);
        Ok(len)
    }

    /// [`PacketOut::encode_into`] into a new vector.
    ///
    /// # Errors
    /// As [`PacketOut::encode_into`], except `BufferTooSmall`.
    #[cfg(feature = "alloc")]
    pub fn to_vec(&self) -> Result<crate::prelude::Vec<u8>, Error> {
        let mut v = crate::prelude::vec![0u8; self.len()];
        self.encode_into(&mut v)?;
        Ok(v)
    }
}
