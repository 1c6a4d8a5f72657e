//! BIP324 v2 encrypted transport for Bitcoin P2P (BIP v1.0.2), sans-IO.
//!
//! * [`Handshake`]: consuming typestate for initiator and responder, with
//!   garbage (up to 4095 bytes), the garbage-terminator search, decoys
//!   before the version packet and v1-peer detection before a responder
//!   writes anything ([`Handshake::accept`], [`Handshake::classify`],
//!   [`classify_first_bytes`]).
//! * [`Session`], [`PacketSender`], [`PacketReceiver`]: the packet ciphers
//!   (FSChaCha20 lengths, FSChaCha20Poly1305 contents, rekey every 224
//!   packets), writing into caller buffers with `*_len()` helpers and no
//!   allocation per packet. Any receive failure poisons the receiver.
//! * [`KeyPool`]: pre-generated ElligatorSwift keys, each encoded with fresh
//!   auxiliary randomness (never the all-zero input that makes encodings
//!   recognisable).
//! * [`batch`]: many sessions' packets across cores.
//!
//! Keys: ECDH via libsecp256k1's BIP324 hasher, then HKDF-SHA256 with salt
//! `"bitcoin_v2_shared_secret" || magic` ([`Network`]).

pub mod batch;
mod error;
mod fschacha;
mod handshake;
mod keys;
mod packet;
mod pool;
mod session;

pub use error::Bip324Error;
pub use fschacha::{FsChaCha20, FsChaCha20Poly1305, REKEY_INTERVAL};
pub use handshake::{
    classify_first_bytes, AwaitingPeer, Classified, GarbageRead, GarbageReceived, Handshake,
    KeyRead, KeySent, KeysDerived, PeerKind, Start, VersionRead, VersionSent, MAX_GARBAGE_LEN,
};
pub use keys::{Network, Role, SessionKeys, TERMINATOR_LEN};
pub use packet::{
    packet_len, Next, Opened, PacketReceiver, PacketSender, CORE_MAX_CONTENTS_LEN, DECOY_FLAG,
    HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN, OVERHEAD, TAG_LEN,
};
pub use pool::KeyPool;
pub use session::Session;

pub use crate::primitives::ellswift::{EllSwiftKeypair, ELLSWIFT_LEN};
