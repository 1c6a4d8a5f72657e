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
//! - [`batch`]: opening many packets across cores.
//!
//! ```
//! use wireseal::meshtastic::PkcEngine;
//! use wireseal::keys::StaticSecret;
//!
//! let alice = StaticSecret::generate();
//! let bob = StaticSecret::generate();
//! let (alice_pub, bob_pub) = (*alice.public_key(), *bob.public_key());
//! let mut a = PkcEngine::new(alice);
//! let mut b = PkcEngine::new(bob);
//! let payload = a.seal(&bob_pub, 0x929, 7, b"hi", None, 0).unwrap();
//! assert_eq!(b.open(&alice_pub, 0x929, 7, &payload, 0).unwrap(), b"hi");
//! ```

pub mod batch;
pub mod channel;
mod error;
pub mod header;
pub mod pkc;
pub mod replay;

pub use batch::{batch_output_len, PkcPacket};
pub use channel::ChannelKey;
pub use error::Error;
pub use header::{PacketHeader, HEADER_LEN, MAX_PAYLOAD_LEN};
pub use pkc::PkcEngine;
pub use replay::ReplayWindow;
