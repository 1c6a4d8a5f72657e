//! Meshtastic: PKC direct messages and channel packets, byte-compatible with
//! the firmware (`CryptoEngine`, `RadioInterface`).
//!
//! - [`header`]: the 16-byte over-the-air header.
//! - [`pkc`]: direct messages, X25519 → SHA-256 → AES-256-CCM, through a
//!   [`crate::cache::SharedSecretCache`] keyed by the peer's whole public key
//!   (a repeat message costs one CCM operation instead of an X25519).
//! - [`channel`]: channel packets, PSK expansion, AES-CTR, the channel hash.
//! - [`replay`]: an optional per-sender replay window, consulted only after
//!   the tag verified.
//! - [`xeddsa`], [`identity`], [`policy`]: firmware 2.8 packet signatures,
//!   node numbers derived from keys, and the signature policies.
//! - [`envelope`], [`decoder`], [`app`]: MQTT envelopes, the feed decoder and
//!   the application payloads it reads; `record` (feature `serde`) is the
//!   JSON record of one decoded packet.
//! - [`batch`]: opening many packets across cores on the caller's
//!   [`Batch`](crate::batch::Batch).
//! - [`NodeId`]: node numbers as `!%08x`; [`untrusted`]: the one check that
//!   text from the feed can be a topic level, a log field or a file name;
//!   `packet_key` (std): what makes two copies one packet, by id or by
//!   content.
//!
//! Every outcome has one name, the same in records, stores, counters and
//! Python: each enum's `as_str`, which its `Display` and (feature `serde`)
//! `Serialize` write ([`decoder::Decryption`], [`decoder::Signature`],
//! [`Identity`], [`app::PacketKind`], ...).
//!
//! Time is `now`, the caller's milliseconds, the first argument after the
//! receiver.
//!
//! The common path: a PKC direct message through the shared-secret cache
//! (the second message to the same peer skips the X25519), and a channel
//! packet under the default key:
//!
//! ```
//! use wireseal::keys::StaticSecret;
//! use wireseal::meshtastic::{self, ChannelKey, PacketHeader, PkcEngine, PkcPacket};
//!
//! let alice = StaticSecret::generate();
//! let bob = StaticSecret::generate();
//! let (alice_pub, bob_pub) = (*alice.public_key(), *bob.public_key());
//! let mut a = PkcEngine::new(alice)?;
//! let mut b = PkcEngine::new(bob)?;
//! let now = 0; // the caller's clock, milliseconds
//! for id in [7, 8] {
//!     let to_bob = PkcPacket { peer_public: &bob_pub, from: 0x929, id };
//!     let payload = a.seal_to_vec(now, to_bob, b"hi")?;
//!     assert_eq!(payload.len(), meshtastic::sealed_len(2));
//!     let from_alice = PkcPacket { peer_public: &alice_pub, from: 0x929, id };
//!     assert_eq!(b.open_to_vec(now, from_alice, &payload)?, b"hi");
//! }
//! assert_eq!(b.cache().stats().hits, 1); // the second open reused the key
//!
//! // A channel packet: AES-CTR under the expanded PSK, no tag.
//! let key: ChannelKey = "AQ==".parse()?; // the app's text for the default key
//! let mut body = b"\x08\x01\x12\x04test".to_vec();
//! key.seal_in_place(0x929, 7, &mut body)?;
//! let header = PacketHeader { to: 0xffff_ffff, from: 0x929, id: 7, channel: key.hash("LongFast"), ..Default::default() };
//! let frame = header.frame(&body)?;
//! let (parsed, payload) = PacketHeader::parse(&frame)?;
//! let mut plain = payload.to_vec();
//! let opened = key.open_in_place(parsed.from, parsed.id, &mut plain)?;
//! assert_eq!(opened, b"\x08\x01\x12\x04test");
//! # Ok::<(), meshtastic::Error>(())
//! ```

#[cfg(feature = "alloc")]
pub mod app;
#[cfg(feature = "std")]
pub mod batch;
pub mod channel;
#[cfg(feature = "alloc")]
pub mod decoder;
#[cfg(feature = "alloc")]
pub mod envelope;
mod error;
pub mod header;
pub mod identity;
mod node_id;
#[cfg(feature = "std")]
pub mod packet_key;
pub mod pkc;
#[cfg(feature = "alloc")]
mod pkc_ahead;
mod pkc_keys;
mod pkc_wire;
#[cfg(feature = "alloc")]
pub mod policy;
#[cfg(feature = "serde")]
pub mod record;
#[cfg(feature = "alloc")]
pub mod replay;
pub mod untrusted;
pub mod xeddsa;

#[cfg(feature = "std")]
pub use batch::{open_batch_len, SealedPkc};
pub use channel::{ChannelCipher, ChannelKey};
#[cfg(feature = "alloc")]
pub use decoder::Decoder;
pub use error::Error;
pub use header::{PacketHeader, HEADER_LEN, MAX_PAYLOAD_LEN};
pub use identity::{node_number, Identity};
pub use node_id::NodeId;
pub use pkc::{opened_len, sealed_len, PkcEngine, PkcKey, PkcKeyForm, PkcPacket, PkcSecret};
#[cfg(feature = "alloc")]
pub use policy::{SignaturePolicy, Verdict};
#[cfg(feature = "alloc")]
pub use replay::ReplayWindow;

/// The name of the firmware's default channel (the `LongFast` modem preset,
/// whose channel has no name of its own); its key is [`channel::DEFAULT_PSK`].
pub const DEFAULT_CHANNEL_NAME: &str = "LongFast";

/// `Display` and (feature `serde`) `Serialize` of an enum through its
/// `as_str`, so that every driver writes the same name.
macro_rules! named {
    ($($t:ty),* $(,)?) => {$(
        impl core::fmt::Display for $t {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        #[cfg(feature = "serde")]
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    )*};
}

named!(Identity, untrusted::Unusable);
#[cfg(feature = "std")]
named!(
    decoder::Decryption,
    decoder::Signature,
    decoder::Undecoded,
    decoder::KeyEvent,
    decoder::Control,
    policy::SignaturePolicy,
    policy::Verdict,
    policy::Concern,
    app::PacketKind,
);
