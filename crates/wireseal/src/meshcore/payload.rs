//! The payloads' cleartext layouts (`docs/payloads.md`), borrowed from a
//! parsed [`Packet`]. [`Packet::parse`] has already checked each type's
//! minimum length, so these never fail on a parsed packet of their type;
//! they check the type.

use super::error::Error;
use super::identity::SIGNATURE_SIZE;
use super::packet::{Packet, PayloadType};
use super::{MAX_ADVERT_DATA_SIZE, PUB_KEY_SIZE};

/// An advert: a node's key, its clock, its signature and its app data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdvertPayload<'a> {
    /// The node's Ed25519 key.
    pub public_key: &'a [u8; PUB_KEY_SIZE],
    /// The node's clock (seconds since 1970) when it signed.
    pub timestamp: u32,
    /// Ed25519 signature over `public_key ‖ timestamp ‖ app_data`.
    pub signature: &'a [u8; SIGNATURE_SIZE],
    /// App data, cut to 32 bytes as every receiver cuts it before
    /// verifying and parsing.
    pub app_data: &'a [u8],
}

/// A peer-to-peer payload (TXT_MSG, REQ, RESPONSE, PATH): the two node
/// hashes and the MAC-then-ciphertext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerPayload<'a> {
    /// The recipient's hash (first byte of its key).
    pub dest_hash: u8,
    /// The sender's hash.
    pub src_hash: u8,
    /// `MAC(2) ‖ ciphertext`.
    pub sealed: &'a [u8],
}

/// An anonymous request: the recipient's hash, the sender's whole key and
/// the MAC-then-ciphertext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnonReqPayload<'a> {
    /// The recipient's hash.
    pub dest_hash: u8,
    /// The sender's Ed25519 key.
    pub sender: &'a [u8; PUB_KEY_SIZE],
    /// `MAC(2) ‖ ciphertext`.
    pub sealed: &'a [u8],
}

/// A group payload (GRP_TXT, GRP_DATA): the channel hash and the
/// MAC-then-ciphertext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupPayload<'a> {
    /// The channel's hash (first byte of SHA-256 of its key).
    pub channel_hash: u8,
    /// `MAC(2) ‖ ciphertext`.
    pub sealed: &'a [u8],
}

fn expect(packet: &Packet<'_>, types: &[PayloadType]) -> Result<(), Error> {
    if types.contains(&packet.payload_type) {
        Ok(())
    } else {
        Err(Error::Argument {
            what: "payload type",
            reason: "not the layout asked for",
        })
    }
}

impl<'a> AdvertPayload<'a> {
    /// The advert of an ADVERT packet.
    ///
    /// # Errors
    /// [`Error::Argument`] for another payload type.
    pub fn of(packet: &Packet<'a>) -> Result<Self, Error> {
        expect(packet, &[PayloadType::Advert])?;
        let p = packet.payload;
        let (public_key, rest) = p
            .split_first_chunk::<PUB_KEY_SIZE>()
            .ok_or(Error::Truncated {
                len: p.len(),
                min: 100,
            })?;
        let (ts, rest) = rest.split_first_chunk::<4>().ok_or(Error::Truncated {
            len: p.len(),
            min: 100,
        })?;
        let (signature, app_data) =
            rest.split_first_chunk::<SIGNATURE_SIZE>()
                .ok_or(Error::Truncated {
                    len: p.len(),
                    min: 100,
                })?;
        Ok(Self {
            public_key,
            timestamp: u32::from_le_bytes(*ts),
            signature,
            app_data: &app_data[..app_data.len().min(MAX_ADVERT_DATA_SIZE)],
        })
    }
}

impl<'a> PeerPayload<'a> {
    /// The hashes and sealed bytes of a TXT_MSG, REQ, RESPONSE or PATH.
    ///
    /// # Errors
    /// [`Error::Argument`] for another payload type.
    pub fn of(packet: &Packet<'a>) -> Result<Self, Error> {
        use PayloadType::*;
        expect(packet, &[TxtMsg, Req, Response, Path])?;
        match packet.payload {
            [dest_hash, src_hash, sealed @ ..] => Ok(Self {
                dest_hash: *dest_hash,
                src_hash: *src_hash,
                sealed,
            }),
            _ => Err(Error::Truncated {
                len: packet.payload.len(),
                min: 5,
            }),
        }
    }
}

impl<'a> AnonReqPayload<'a> {
    /// The parts of an ANON_REQ.
    ///
    /// # Errors
    /// [`Error::Argument`] for another payload type.
    pub fn of(packet: &Packet<'a>) -> Result<Self, Error> {
        expect(packet, &[PayloadType::AnonReq])?;
        let p = packet.payload;
        let (&dest_hash, rest) = p.split_first().ok_or(Error::Truncated {
            len: p.len(),
            min: 36,
        })?;
        let (sender, sealed) =
            rest.split_first_chunk::<PUB_KEY_SIZE>()
                .ok_or(Error::Truncated {
                    len: p.len(),
                    min: 36,
                })?;
        Ok(Self {
            dest_hash,
            sender,
            sealed,
        })
    }
}

impl<'a> GroupPayload<'a> {
    /// The parts of a GRP_TXT or GRP_DATA.
    ///
    /// # Errors
    /// [`Error::Argument`] for another payload type.
    pub fn of(packet: &Packet<'a>) -> Result<Self, Error> {
        expect(packet, &[PayloadType::GrpTxt, PayloadType::GrpData])?;
        match packet.payload {
            [channel_hash, sealed @ ..] => Ok(Self {
                channel_hash: *channel_hash,
                sealed,
            }),
            [] => Err(Error::Truncated { len: 0, min: 4 }),
        }
    }
}

/// The checksum an ACK carries (SHA-256 of the acknowledged message and
/// its sender's key, first 4 bytes), as the firmware reads it
/// (little-endian).
///
/// # Errors
/// [`Error::Argument`] for another payload type.
pub fn ack_checksum(packet: &Packet<'_>) -> Result<u32, Error> {
    expect(packet, &[PayloadType::Ack])?;
    let (c, _) = packet
        .payload
        .split_first_chunk::<4>()
        .ok_or(Error::Truncated {
            len: packet.payload.len(),
            min: 4,
        })?;
    Ok(u32::from_le_bytes(*c))
}
