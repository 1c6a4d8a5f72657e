//! MeshCore packets (firmware v1.17.1): parse and build every packet type
//! with the firmware's limits, Ed25519 identities with the firmware's
//! 64-byte keys, signed adverts, direct messages, anonymous requests,
//! group channels, packet hashes and region transport codes.
//!
//! ```text
//! header(1) [transport codes 2×u16, routes 0 and 3] path_len(1) path payload
//! header = version(2) | payload type(4) | route(2)
//! ```
//!
//! - [`Packet::parse`] refuses what the firmware drops: a version other
//!   than 0, the reserved hash size, a path over 64 bytes or past the end,
//!   a payload over 184 bytes or under its type's minimum.
//! - Ciphers ([`CipherKey`]): `MAC(2) ‖ AES-128-ECB` with encrypt-then-MAC
//!   (HMAC-SHA256 cut to 2 bytes) under a channel key or the X25519 secret
//!   of two identities ([`LocalIdentity::shared_secret`]).
//! - A 2-byte MAC admits a wrong key once in 65,536 tries. [`Decoder`]
//!   reports a packet as decrypted only when the plaintext's structure
//!   holds too, and it tries every matching channel and peer (the firmware
//!   takes the first MAC match): see `plaintext` for the checks.
//!
//! The parser, the ciphers, identities, adverts and builders need no
//! allocator; [`Decoder`] and its [`Decoded`] records need `alloc`, and
//! their JSON shape the `serde` feature.
//!
//! ```
//! use wireseal::meshcore::{ChannelKey, Decoder, Body, GroupContent};
//! let channel = ChannelKey::hashtag("#test")?;
//! let mut packet = [0u8; 255];
//! let n = channel.encode_group_text(1_700_000_000, "Alice: hi", &mut packet)?;
//! let mut decoder = Decoder::new();
//! decoder.add_channel(channel);
//! let d = decoder.decode(0, &packet[..n])?;
//! let Body::Group(g) = d.body else { unreachable!() };
//! let Some(GroupContent::Text(t)) = g.opened.map(|o| o.content) else { unreachable!() };
//! assert_eq!(t.text, "Alice: hi");
//! # Ok::<(), wireseal::meshcore::Error>(())
//! ```

mod advert;
mod channel;
mod cipher;
#[cfg(feature = "alloc")]
mod decoded;
#[cfg(feature = "alloc")]
mod decoder;
mod direct;
mod error;
mod identity;
mod packet;
mod payload;
mod payload_type;
mod plaintext;
#[cfg(feature = "serde")]
mod record;
mod transport;

pub use advert::{
    encode_advert, verify_advert, verify_advert_with, AdvertData, AdvertOut, NodeType,
};
pub use channel::{ChannelKey, PUBLIC_CHANNEL_KEY};
pub use cipher::{ciphertext_len, CipherKey};
#[cfg(feature = "alloc")]
pub use decoded::{
    Advert, AdvertFields, AnonOpened, AnonReq, Body, Decoded, Group, GroupContent, GroupOpened,
    Message, Peer, PeerContent, PeerOpened,
};
#[cfg(feature = "alloc")]
pub use decoder::{Decoder, DEFAULT_CACHE_CAPACITY, DEFAULT_PEER_LIMIT};
pub use direct::{encode_anon_request, encode_text_message, peer_cipher, seal_peer_payload};
pub use error::Error;
pub use identity::{LocalIdentity, PublicIdentity, SIGNATURE_SIZE};
pub use packet::{packet_hash, Packet, PacketOut, PathLen, PayloadType, RouteType};
pub use payload::{ack_checksum, AdvertPayload, AnonReqPayload, GroupPayload, PeerPayload};
pub use plaintext::{
    compose_text, parse_direct_text, parse_group_data, parse_group_text, GroupData, Text, TextType,
};
pub use transport::RegionKey;

/// Largest packet (a LoRa frame).
pub const MAX_TRANS_UNIT: usize = 255;
/// Largest payload the firmware accepts.
pub const MAX_PACKET_PAYLOAD: usize = 184;
/// Largest path in bytes.
pub const MAX_PATH_SIZE: usize = 64;
/// App data bytes of an advert that receivers read and verify.
pub const MAX_ADVERT_DATA_SIZE: usize = 32;
/// Bytes of the truncated MAC.
pub const MAC_SIZE: usize = 2;
/// Bytes of an Ed25519 public key.
pub const PUB_KEY_SIZE: usize = 32;
/// Longest text a node sends (`"<sender>: <message>"` for a group).
pub const MAX_TEXT_LEN: usize = 160;
