//! MQTT envelopes: the protobuf `ServiceEnvelope` a Meshtastic gateway
//! publishes (on `msh/<region>/2/e/<channel>/<gateway>`), encoded with
//! `prost` from messages declared by field number ([`messages`]). Decoding
//! reads the plain form of the messages on every envelope's path directly,
//! one copy per `bytes` field where `prost`'s generated code makes two, and
//! hands anything else (a field repeated, a group, ...) to `prost`, whose
//! answer stands: the two are compared by differential tests and by the
//! `meshtastic_envelope` fuzz target.
//!
//! Decoding is bounded: the whole envelope is at most [`MAX_ENVELOPE_LEN`]
//! bytes, a ciphertext at most one LoRa payload ([`MAX_PAYLOAD_LEN`]), a
//! public key exactly 32 bytes when present, and the two strings at most
//! [`MAX_ID_LEN`] bytes. Fields this crate does not model are skipped.
//!
//! ```
//! use wireseal::meshtastic::envelope::{self, MeshPacket, PayloadVariant, ServiceEnvelope};
//!
//! let env = ServiceEnvelope {
//!     packet: Some(MeshPacket {
//!         from: 0x929,
//!         to: 0xffff_ffff,
//!         id: 7,
//!         channel: 8,
//!         payload_variant: Some(PayloadVariant::Encrypted(vec![1, 2, 3])),
//!         ..Default::default()
//!     }),
//!     channel_id: "LongFast".into(),
//!     gateway_id: "!00000929".into(),
//! };
//! let bytes = envelope::encode_to_vec(&env);
//! assert_eq!(envelope::decode(&bytes).unwrap(), env);
//! ```

pub mod messages;
pub mod payloads;
mod reader;

pub use messages::{
    Data, KeyVerification, MeshPacket, PayloadVariant, Position, ServiceEnvelope, User,
};
pub use payloads::{
    AirQualityMetrics, DeviceMetrics, EnvironmentMetrics, HardwareMessage, MapReport, Neighbor,
    NeighborInfo, Paxcount, PowerMetrics, RouteDiscovery, Telemetry, TelemetryVariant, Waypoint,
};

use super::{Error, MAX_PAYLOAD_LEN};
use alloc::borrow::Cow;
use alloc::vec::Vec;
use compact_str::CompactString;
use prost::Message;

/// Largest envelope accepted (bytes). A full LoRa payload with every header
/// field and both strings at their limits fits with room to spare.
pub const MAX_ENVELOPE_LEN: usize = 1024;
/// Largest `channel_id` or `gateway_id` accepted (bytes).
pub const MAX_ID_LEN: usize = 64;
/// Largest `Data` message accepted (bytes): one LoRa payload.
pub const MAX_DATA_LEN: usize = MAX_PAYLOAD_LEN;
/// X25519 public key length.
pub const PUBLIC_KEY_LEN: usize = 32;
/// The `channel_id` of PKC direct messages; gateways publish them under
/// `<root>/2/e/PKI/<gateway>`.
pub const PKI_CHANNEL_ID: &str = "PKI";
/// The `portnum` of text messages.
pub const TEXT_MESSAGE_APP: i32 = 1;
/// The `portnum` of position packets (payload: [`Position`]).
pub const POSITION_APP: i32 = 3;
/// The `portnum` of NodeInfo packets (payload: [`User`]).
pub const NODEINFO_APP: i32 = 4;
/// The `portnum` of remote hardware (GPIO) packets (payload:
/// [`HardwareMessage`]).
pub const REMOTE_HARDWARE_APP: i32 = 2;
/// The `portnum` of routing packets (acknowledgements and errors).
pub const ROUTING_APP: i32 = 5;
/// The `portnum` of remote administration packets (`AdminMessage`).
pub const ADMIN_APP: i32 = 6;
/// The `portnum` of waypoints (payload: [`Waypoint`]).
pub const WAYPOINT_APP: i32 = 8;
/// The `portnum` of detection-sensor alerts (payload: text).
pub const DETECTION_SENSOR_APP: i32 = 10;
/// The `portnum` of people counters (payload: [`Paxcount`]).
pub const PAXCOUNTER_APP: i32 = 34;
/// The `portnum` of telemetry (payload: [`Telemetry`]).
pub const TELEMETRY_APP: i32 = 67;
/// The `portnum` of traceroutes (payload: [`RouteDiscovery`]).
pub const TRACEROUTE_APP: i32 = 70;
/// The `portnum` of neighbour reports (payload: [`NeighborInfo`]).
pub const NEIGHBORINFO_APP: i32 = 71;
/// The `portnum` of map reports, sent on `<root>/2/map/` without a packet
/// id (payload: [`MapReport`]).
pub const MAP_REPORT_APP: i32 = 73;
/// The `portnum` of the key-verification exchange (payload:
/// [`KeyVerification`]).
pub const KEY_VERIFICATION_APP: i32 = 12;

/// Decodes and checks an envelope.
///
/// # Errors
/// [`Error::TooLong`] over [`MAX_ENVELOPE_LEN`]; [`Error::Malformed`] when
/// the bytes are not a `ServiceEnvelope` or carry no packet;
/// [`Error::FieldLength`] for a ciphertext over one LoRa payload, a public
/// key that is not 32 bytes, or an id string over [`MAX_ID_LEN`].
pub fn decode(bytes: &[u8]) -> Result<ServiceEnvelope, Error> {
    check_len(bytes)?;
    let env = match reader::envelope(bytes) {
        Ok(env) => env,
        Err(reader::Unusual) => prost_envelope(bytes)?,
    };
    check(&env)?;
    Ok(env)
}

/// A packet's payload, apart from its envelope ([`decode_in_place`]).
pub(crate) enum Payload<'a> {
    /// Plaintext `Data`.
    Decoded(Data),
    /// A channel or PKC ciphertext, borrowed from the envelope's bytes
    /// where the envelope was read in place.
    Encrypted(Cow<'a, [u8]>),
}

/// A checked envelope without its packet's payload ([`decode_in_place`]).
#[derive(Debug)]
pub(crate) struct Head {
    /// The packet; its `payload_variant` is `None`.
    pub packet: MeshPacket,
    /// `ServiceEnvelope.channel_id`.
    pub channel_id: CompactString,
    /// `ServiceEnvelope.gateway_id`.
    pub gateway_id: CompactString,
}

/// [`decode`], its packet's payload apart: a ciphertext stays in `bytes`
/// (not copied) when the envelope is in the plain form the direct reader
/// reads, and the ids are copied once, into the head (inline up to 24
/// bytes, so a usual envelope's ids allocate nothing).
///
/// # Errors
/// As [`decode`].
pub(crate) fn decode_in_place(bytes: &[u8]) -> Result<(Head, Payload<'_>), Error> {
    check_len(bytes)?;
    let env = match reader::envelope_in_place(bytes) {
        Ok(env) => env,
        Err(reader::Unusual) => return split(prost_envelope(bytes)?),
    };
    check_fields(
        present(env.packet.as_ref())?,
        env.channel_id,
        env.gateway_id,
        env.encrypted,
    )?;
    // `present` refused an envelope without a packet.
    let mut packet = env.packet.unwrap_or_default();
    let payload = match env.encrypted {
        Some(ct) => Payload::Encrypted(Cow::Borrowed(ct)),
        None => take_payload(&mut packet)?,
    };
    Ok((
        Head {
            packet,
            channel_id: env.channel_id.into(),
            gateway_id: env.gateway_id.into(),
        },
        payload,
    ))
}

/// A checked envelope's head and its packet's payload, apart.
///
/// # Errors
/// [`check`]'s errors.
pub(crate) fn split(env: ServiceEnvelope) -> Result<(Head, Payload<'static>), Error> {
    check(&env)?;
    let ServiceEnvelope {
        packet,
        channel_id,
        gateway_id,
    } = env;
    // `check` refuses an envelope without a packet.
    let mut packet = packet.unwrap_or_default();
    let payload = take_payload(&mut packet)?;
    Ok((
        Head {
            packet,
            channel_id: channel_id.into(),
            gateway_id: gateway_id.into(),
        },
        payload,
    ))
}

/// Takes a checked packet's payload out of it.
fn take_payload(packet: &mut MeshPacket) -> Result<Payload<'static>, Error> {
    match packet.payload_variant.take() {
        Some(PayloadVariant::Decoded(d)) => Ok(Payload::Decoded(d)),
        Some(PayloadVariant::Encrypted(ct)) => Ok(Payload::Encrypted(Cow::Owned(ct))),
        // `check` refuses a packet without payload.
        None => Err(Error::Malformed {
            what: "packet without payload",
        }),
    }
}

fn check_len(bytes: &[u8]) -> Result<(), Error> {
    if bytes.len() > MAX_ENVELOPE_LEN {
        return Err(Error::TooLong {
            len: bytes.len(),
            max: MAX_ENVELOPE_LEN,
        });
    }
    Ok(())
}

/// What `prost`'s generated decoder makes of an envelope.
fn prost_envelope(bytes: &[u8]) -> Result<ServiceEnvelope, Error> {
    ServiceEnvelope::decode(bytes).map_err(|_| Error::Malformed {
        what: "ServiceEnvelope",
    })
}

/// The size checks [`decode`] applies, for envelopes built in memory.
///
/// # Errors
/// As [`decode`], except for the overall length.
pub fn check(env: &ServiceEnvelope) -> Result<(), Error> {
    check_fields(
        present(env.packet.as_ref())?,
        &env.channel_id,
        &env.gateway_id,
        None,
    )
}

/// An envelope's packet, which it must have.
fn present(p: Option<&MeshPacket>) -> Result<&MeshPacket, Error> {
    p.ok_or(Error::Malformed {
        what: "envelope without packet",
    })
}

/// The checks of an envelope with a packet: its ids' lengths, then its
/// packet's (the ciphertext in `encrypted` when it was left in the
/// envelope's bytes).
fn check_fields(
    p: &MeshPacket,
    channel_id: &str,
    gateway_id: &str,
    encrypted: Option<&[u8]>,
) -> Result<(), Error> {
    for (field, s) in [("channel_id", channel_id), ("gateway_id", gateway_id)] {
        if s.len() > MAX_ID_LEN {
            return Err(Error::FieldLength {
                field,
                len: s.len(),
            });
        }
    }
    if !p.public_key.is_empty() && p.public_key.len() != PUBLIC_KEY_LEN {
        return Err(Error::FieldLength {
            field: "public_key",
            len: p.public_key.len(),
        });
    }
    let encrypted = encrypted.or(match &p.payload_variant {
        Some(PayloadVariant::Encrypted(c)) => Some(c.as_slice()),
        _ => None,
    });
    match (encrypted, &p.payload_variant) {
        (Some(c), _) if c.len() > MAX_PAYLOAD_LEN => Err(Error::FieldLength {
            field: "encrypted",
            len: c.len(),
        }),
        (None, Some(PayloadVariant::Decoded(d))) if d.payload.len() > MAX_DATA_LEN => {
            Err(Error::FieldLength {
                field: "payload",
                len: d.payload.len(),
            })
        }
        (None, None) => Err(Error::Malformed {
            what: "packet without payload",
        }),
        _ => Ok(()),
    }
}

/// Parses a decrypted `Data` message. A plaintext is accepted as `Data` only
/// when it parses and names a port (portnum 0 is what a wrong channel key
/// most often yields), as the firmware does.
///
/// # Errors
/// [`Error::TooLong`] over [`MAX_DATA_LEN`]; [`Error::Malformed`] otherwise.
pub fn decode_data(plaintext: &[u8]) -> Result<Data, Error> {
    if plaintext.len() > MAX_DATA_LEN {
        return Err(Error::TooLong {
            len: plaintext.len(),
            max: MAX_DATA_LEN,
        });
    }
    let data = reader::data(plaintext).or_else(|reader::Unusual| Data::decode(plaintext));
    match data {
        Ok(d) if d.portnum != 0 => Ok(d),
        _ => Err(Error::Malformed { what: "Data" }),
    }
}

/// Parses the [`User`] of a NodeInfo payload.
///
/// # Errors
/// [`Error::Malformed`] when it is not a `User`.
pub fn decode_user(payload: &[u8]) -> Result<User, Error> {
    match reader::user(payload) {
        Ok(user) => Ok(user.to_user()),
        Err(reader::Unusual) => prost_user(payload),
    }
}

/// What `prost`'s generated decoder makes of a `User`.
fn prost_user(payload: &[u8]) -> Result<User, Error> {
    User::decode(payload).map_err(|_| Error::Malformed { what: "User" })
}

/// The key a NodeInfo payload announces: `Ok(Some(key))` when it is a
/// [`User`] whose `public_key` is 32 bytes, `Ok(None)` when that field is
/// empty or of another length (what [`decode_user`] would give, without
/// building the `User`).
///
/// # Errors
/// [`Error::Malformed`] when it is not a `User`.
pub(crate) fn announced_key(payload: &[u8]) -> Result<Option<[u8; PUBLIC_KEY_LEN]>, Error> {
    let key = match reader::user(payload) {
        Ok(user) => user.public_key.try_into().ok(),
        Err(reader::Unusual) => prost_user(payload)?.public_key.as_slice().try_into().ok(),
    };
    Ok(key)
}

/// Parses the [`Position`] of a position payload.
///
/// # Errors
/// [`Error::Malformed`] when it is not a `Position`.
pub fn decode_position(payload: &[u8]) -> Result<Position, Error> {
    Position::decode(payload).map_err(|_| Error::Malformed { what: "Position" })
}

/// Parses the [`KeyVerification`] of a key-verification payload.
///
/// # Errors
/// [`Error::Malformed`] when it is not a `KeyVerification`.
pub fn decode_key_verification(payload: &[u8]) -> Result<KeyVerification, Error> {
    KeyVerification::decode(payload).map_err(|_| Error::Malformed {
        what: "KeyVerification",
    })
}

/// Parses an application payload of any message type this module declares
/// (a [`Telemetry`], a [`Waypoint`], ...); `what` names it in the error.
///
/// # Errors
/// [`Error::TooLong`] over [`MAX_DATA_LEN`]; [`Error::Malformed`] when the
/// bytes are not such a message.
pub fn decode_payload<M: Message + Default>(
    payload: &[u8],
    what: &'static str,
) -> Result<M, Error> {
    if payload.len() > MAX_DATA_LEN {
        return Err(Error::TooLong {
            len: payload.len(),
            max: MAX_DATA_LEN,
        });
    }
    M::decode(payload).map_err(|_| Error::Malformed { what })
}

/// Parses a bare `MeshPacket` (what a node logs or sends to its phone),
/// with the checks [`decode`] applies to the packet inside an envelope.
///
/// # Errors
/// [`Error::TooLong`] over [`MAX_ENVELOPE_LEN`]; [`Error::Malformed`] when
/// the bytes are not a `MeshPacket` or carry no payload;
/// [`Error::FieldLength`] as [`decode`].
pub fn decode_packet(bytes: &[u8]) -> Result<MeshPacket, Error> {
    check_len(bytes)?;
    let packet = match reader::packet(bytes) {
        Ok(packet) => packet,
        Err(reader::Unusual) => {
            MeshPacket::decode(bytes).map_err(|_| Error::Malformed { what: "MeshPacket" })?
        }
    };
    let env = ServiceEnvelope {
        packet: Some(packet),
        ..Default::default()
    };
    check(&env)?;
    Ok(env.packet.expect("set above"))
}

/// Bytes [`encode_into`] writes for `env`.
pub fn encoded_len(env: &ServiceEnvelope) -> usize {
    env.encoded_len()
}

/// Encodes `env` into `out`; returns the bytes written.
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than [`encoded_len`].
pub fn encode_into(env: &ServiceEnvelope, out: &mut [u8]) -> Result<usize, Error> {
    let n = env.encoded_len();
    if out.len() < n {
        return Err(Error::BufferTooSmall { required: n });
    }
    let mut w = &mut out[..n];
    env.encode(&mut w)
        .map_err(|_| Error::BufferTooSmall { required: n })?;
    Ok(n)
}

/// Encodes `env` into a new vector.
pub fn encode_to_vec(env: &ServiceEnvelope) -> Vec<u8> {
    env.encode_to_vec()
}

/// Encodes a `Data` message (the plaintext a channel or PKC packet carries).
pub fn encode_data(data: &Data) -> Vec<u8> {
    data.encode_to_vec()
}

/// Encodes an application payload of any message type this module declares.
pub fn encode_payload<M: Message>(payload: &M) -> Vec<u8> {
    payload.encode_to_vec()
}

/// Encodes a `User` (the payload of a NodeInfo packet).
pub fn encode_user(user: &User) -> Vec<u8> {
    user.encode_to_vec()
}
