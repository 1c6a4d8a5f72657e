//! The protobuf messages of an MQTT envelope, declared from the public
//! schema's field numbers (`mqtt.proto`, `mesh.proto`). Fields this crate
//! does not model are skipped on decode.

use alloc::{string::String, vec::Vec};

/// `ServiceEnvelope`: what a gateway publishes on MQTT.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServiceEnvelope {
    /// The packet as the gateway received it.
    #[prost(message, optional, tag = "1")]
    pub packet: Option<MeshPacket>,
    /// Channel name, or `PKI` for PKC direct messages.
    #[prost(string, tag = "2")]
    pub channel_id: String,
    /// The publishing gateway's node id (`!xxxxxxxx`).
    #[prost(string, tag = "3")]
    pub gateway_id: String,
}

/// `MeshPacket`: header fields and either the decoded `Data` or its ciphertext.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MeshPacket {
    /// Sender node number.
    #[prost(fixed32, tag = "1")]
    pub from: u32,
    /// Destination node number (`0xffffffff` = broadcast).
    #[prost(fixed32, tag = "2")]
    pub to: u32,
    /// Channel hash when encrypted, channel index when decoded.
    #[prost(uint32, tag = "3")]
    pub channel: u32,
    /// The payload: decoded or encrypted.
    #[prost(oneof = "PayloadVariant", tags = "4, 5")]
    pub payload_variant: Option<PayloadVariant>,
    /// Packet id (unique per sender).
    #[prost(fixed32, tag = "6")]
    pub id: u32,
    /// Receive time, seconds since the Unix epoch.
    #[prost(fixed32, tag = "7")]
    pub rx_time: u32,
    /// Signal-to-noise ratio at the receiving gateway (dB), as the bits of
    /// its `float` (`f32::from_bits`): kept as bits so that packets compare
    /// equal to themselves whatever the sender put there (a NaN included).
    #[prost(fixed32, tag = "8")]
    pub rx_snr_bits: u32,
    /// Hops left.
    #[prost(uint32, tag = "9")]
    pub hop_limit: u32,
    /// Sender wants an acknowledgement.
    #[prost(bool, tag = "10")]
    pub want_ack: bool,
    /// Received signal strength at the receiving gateway (dBm).
    #[prost(int32, tag = "12")]
    pub rx_rssi: i32,
    /// Came through MQTT.
    #[prost(bool, tag = "14")]
    pub via_mqtt: bool,
    /// Hop limit the packet started with.
    #[prost(uint32, tag = "15")]
    pub hop_start: u32,
    /// The sender's X25519 public key (PKC packets).
    #[prost(bytes = "vec", tag = "16")]
    pub public_key: Vec<u8>,
    /// Encrypted with PKC rather than a channel key.
    #[prost(bool, tag = "17")]
    pub pki_encrypted: bool,
    /// Next hop (last byte of its node number).
    #[prost(uint32, tag = "18")]
    pub next_hop: u32,
    /// Relaying node (last byte of its node number).
    #[prost(uint32, tag = "19")]
    pub relay_node: u32,
    /// How the uplinking node received it (`TransportMechanism`: 0 internal,
    /// 1 LoRa, 5 MQTT, ...).
    #[prost(int32, tag = "21")]
    pub transport_mechanism: i32,
    /// The uplinking node's claim that the packet carried a valid XEdDSA
    /// signature. Never trusted: the firmware resets it and checks the
    /// signature itself, and so does the decoder.
    #[prost(bool, tag = "22")]
    pub xeddsa_signed: bool,
}

/// The two payload forms of a [`MeshPacket`].
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum PayloadVariant {
    /// Plaintext `Data`.
    #[prost(message, tag = "4")]
    Decoded(Data),
    /// Channel (AES-CTR) or PKC (AES-CCM) ciphertext of a `Data`.
    #[prost(bytes, tag = "5")]
    Encrypted(Vec<u8>),
}

/// `Data`: the application payload.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Data {
    /// Application port (1 = text message, 4 = node info, ...).
    #[prost(int32, tag = "1")]
    pub portnum: i32,
    /// Application bytes.
    #[prost(bytes = "vec", tag = "2")]
    pub payload: Vec<u8>,
    /// Sender asks for a response.
    #[prost(bool, tag = "3")]
    pub want_response: bool,
    /// Final destination (routing).
    #[prost(fixed32, tag = "4")]
    pub dest: u32,
    /// Original sender (routing).
    #[prost(fixed32, tag = "5")]
    pub source: u32,
    /// The packet this one answers.
    #[prost(fixed32, tag = "6")]
    pub request_id: u32,
    /// The message this one replies to.
    #[prost(fixed32, tag = "7")]
    pub reply_id: u32,
    /// Whether the payload is an emoji reaction.
    #[prost(fixed32, tag = "8")]
    pub emoji: u32,
    /// Flag bits (for example "ok to MQTT").
    #[prost(uint32, optional, tag = "9")]
    pub bitfield: Option<u32>,
    /// XEdDSA signature over `from ‖ id ‖ portnum ‖ payload` (64 bytes), or empty.
    #[prost(bytes = "vec", tag = "10")]
    pub xeddsa_signature: Vec<u8>,
}

/// `User`: the payload of a NodeInfo packet (portnum 4).
#[derive(Clone, PartialEq, prost::Message)]
pub struct User {
    /// Node id string (`!xxxxxxxx`).
    #[prost(string, tag = "1")]
    pub id: String,
    /// Long name.
    #[prost(string, tag = "2")]
    pub long_name: String,
    /// Short name.
    #[prost(string, tag = "3")]
    pub short_name: String,
    /// Hardware model (`HardwareModel` enum value).
    #[prost(int32, tag = "5")]
    pub hw_model: i32,
    /// Licensed amateur radio operator (no encryption).
    #[prost(bool, tag = "6")]
    pub is_licensed: bool,
    /// Device role (`Config.DeviceConfig.Role` enum value).
    #[prost(int32, tag = "7")]
    pub role: i32,
    /// The node's X25519 public key (32 bytes), or empty.
    #[prost(bytes = "vec", tag = "8")]
    pub public_key: Vec<u8>,
}

/// `Position`: the payload of a position packet (portnum 3), the fields
/// a map needs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Position {
    /// Latitude in 1e-7 degrees.
    #[prost(sfixed32, optional, tag = "1")]
    pub latitude_i: Option<i32>,
    /// Longitude in 1e-7 degrees.
    #[prost(sfixed32, optional, tag = "2")]
    pub longitude_i: Option<i32>,
    /// Altitude above mean sea level, metres.
    #[prost(int32, optional, tag = "3")]
    pub altitude: Option<i32>,
    /// Fix time, seconds since the Unix epoch.
    #[prost(fixed32, tag = "4")]
    pub time: u32,
    /// Time of the position estimate, seconds since the Unix epoch.
    #[prost(fixed32, tag = "7")]
    pub timestamp: u32,
    /// Position dilution of precision, in 1/100 units.
    #[prost(uint32, tag = "11")]
    pub pdop: u32,
    /// Horizontal dilution of precision, in 1/100 units.
    #[prost(uint32, tag = "12")]
    pub hdop: u32,
    /// Vertical dilution of precision, in 1/100 units.
    #[prost(uint32, tag = "13")]
    pub vdop: u32,
    /// Ground speed, m/s.
    #[prost(uint32, optional, tag = "15")]
    pub ground_speed: Option<u32>,
    /// True heading, 1/100 degrees.
    #[prost(uint32, optional, tag = "16")]
    pub ground_track: Option<u32>,
    /// Satellites in view.
    #[prost(uint32, tag = "19")]
    pub sats_in_view: u32,
    /// Bits of latitude and longitude kept (position precision).
    #[prost(uint32, tag = "23")]
    pub precision_bits: u32,
}

/// `KeyVerification`: the payload of a key-verification packet (portnum 12).
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyVerification {
    /// The requesting node's random value.
    #[prost(uint64, tag = "1")]
    pub nonce: u64,
    /// The final hash (sent by the requesting node at the end).
    #[prost(bytes = "vec", tag = "2")]
    pub hash1: Vec<u8>,
    /// The intermediate hash (sent by the responding node).
    #[prost(bytes = "vec", tag = "3")]
    pub hash2: Vec<u8>,
}
