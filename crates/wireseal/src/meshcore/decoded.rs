//! What the [`Decoder`](super::Decoder) makes of one packet: owned, so it
//! outlives the received bytes; printed by every driver through the same
//! serializer (see `record`).

use super::advert::NodeType;
use super::packet::{PayloadType, RouteType};
use super::plaintext::TextType;
use super::PUB_KEY_SIZE;
use crate::prelude::{String, Vec};

/// One decoded packet.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// How it travels.
    pub route: RouteType,
    /// What it carries.
    pub payload_type: PayloadType,
    /// Region transport codes (transport routes).
    pub transport_codes: Option<[u16; 2]>,
    /// Bytes per hop of the path.
    pub path_hash_size: usize,
    /// The path's bytes.
    pub path: Vec<u8>,
    /// The packet hash (see [`Packet::hash`](super::Packet::hash)).
    pub hash: [u8; 8],
    /// The payload's length.
    pub payload_len: usize,
    /// The payload, read by type.
    pub body: Body,
}

impl Decoded {
    /// The path's hops.
    pub fn hops(&self) -> core::slice::ChunksExact<'_, u8> {
        self.path.chunks_exact(self.path_hash_size.max(1))
    }
}

/// A payload read by type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Body {
    /// An ADVERT.
    Advert(Advert),
    /// A GRP_TXT or GRP_DATA.
    Group(Group),
    /// A TXT_MSG, REQ, RESPONSE or PATH.
    Peer(Peer),
    /// An ANON_REQ.
    AnonReq(AnonReq),
    /// An ACK's checksum.
    Ack(u32),
    /// Any other type: its payload as received.
    Other(Vec<u8>),
}

/// An advert.
#[derive(Debug, Clone, PartialEq)]
pub struct Advert {
    /// The node's key.
    pub public_key: [u8; PUB_KEY_SIZE],
    /// The node's clock when it signed.
    pub timestamp: u32,
    /// Whether the signature verifies.
    pub signature_valid: bool,
    /// The app data as read; `None` when it is malformed.
    pub data: Option<AdvertFields>,
}

/// An advert's app data.
#[derive(Debug, Clone, PartialEq)]
pub struct AdvertFields {
    /// The node's kind.
    pub node_type: NodeType,
    /// Latitude and longitude in microdegrees.
    pub location: Option<(i32, i32)>,
    /// The first feature word.
    pub feat1: Option<u16>,
    /// The second feature word.
    pub feat2: Option<u16>,
    /// The name (its valid UTF-8 prefix).
    pub name: Option<String>,
}

/// A group packet.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The channel hash.
    pub channel_hash: u8,
    /// What decrypted, if a configured channel's key opened it.
    pub opened: Option<GroupOpened>,
}

/// A group packet one channel opened.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupOpened {
    /// The channel's position among the decoder's channels.
    pub channel: usize,
    /// The content.
    pub content: GroupContent,
}

/// A group packet's content.
#[derive(Debug, Clone, PartialEq)]
pub enum GroupContent {
    /// A GRP_TXT.
    Text(Message),
    /// A GRP_DATA.
    Data {
        /// The application's data type.
        data_type: u16,
        /// The data.
        data: Vec<u8>,
    },
}

/// A decrypted text.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The sender's clock.
    pub timestamp: u32,
    /// The text type.
    pub text_type: TextType,
    /// The send attempt.
    pub attempt: u8,
    /// A signed text's sender prefix.
    pub sender_prefix: Option<[u8; 4]>,
    /// The text.
    pub text: String,
}

/// A peer packet (TXT_MSG, REQ, RESPONSE, PATH).
#[derive(Debug, Clone, PartialEq)]
pub struct Peer {
    /// The recipient's hash.
    pub dest_hash: u8,
    /// The sender's hash.
    pub src_hash: u8,
    /// What decrypted, if one of our identities and a known peer opened it.
    pub opened: Option<PeerOpened>,
}

/// A peer packet that opened.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerOpened {
    /// The sender's key.
    pub from: [u8; PUB_KEY_SIZE],
    /// Our identity's key it was for.
    pub to: [u8; PUB_KEY_SIZE],
    /// The content.
    pub content: PeerContent,
}

/// A peer packet's content.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerContent {
    /// A TXT_MSG's text.
    Text(Message),
    /// A REQ, RESPONSE or PATH plaintext, padding kept.
    Data(Vec<u8>),
}

/// An anonymous request.
#[derive(Debug, Clone, PartialEq)]
pub struct AnonReq {
    /// The recipient's hash.
    pub dest_hash: u8,
    /// The sender's key.
    pub sender: [u8; PUB_KEY_SIZE],
    /// When one of our identities opened it: ours, the sender's clock and
    /// the rest of the plaintext (padding kept).
    pub opened: Option<AnonOpened>,
}

/// An anonymous request that opened.
#[derive(Debug, Clone, PartialEq)]
pub struct AnonOpened {
    /// Our identity's key it was for.
    pub to: [u8; PUB_KEY_SIZE],
    /// The sender's clock.
    pub timestamp: u32,
    /// The request data, padding kept.
    pub data: Vec<u8>,
}
