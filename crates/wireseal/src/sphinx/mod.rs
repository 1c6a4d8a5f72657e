//! Sphinx onion packets, Lightning BOLT #4: build, peel, failure onions,
//! onion messages and route blinding, byte-compatible with the specification
//! and its test vectors.
//!
//! * [`build`] wraps hop payloads for a [`Route`] ([`build_into`] writes into
//!   a caller buffer, [`build_to_vec`] allocates). Per-hop shared secrets are
//!   derived linearly ([`keys::session_secrets`]): the running ephemeral
//!   private key is multiplied by each blinding factor, so a hop costs one
//!   ECDH and one fixed-base multiplication, the floor for this format.
//! * [`Onion::peel`] is a consuming transition to [`Peeled::Forward`] or
//!   [`Peeled::Final`]; the HMAC is checked in constant time before the payload
//!   is decrypted or parsed, and a hop frame must end inside the payload area.
//!   [`ReplayLog`] lets the caller keep a replay log keyed by shared secret.
//! * [`failure`] creates, wraps and attributes failure packets.
//! * [`blinding`] builds and unblinds blinded paths (payments and onion
//!   messages); onion messages use [`MESSAGE_AREA_LARGE`] or [`PAYMENT_AREA`].
//! * [`peel_batch`] peels many onions on the caller's [`Batch`](crate::batch::Batch).
//! * Size helpers: [`onion_len`] (payload area to packet size) and
//!   [`area_len`] (packet size to payload area).
//!
//! Only TLV hop payloads are supported; the retired 65-byte "legacy" payload
//! (first byte 0) is rejected when peeled.
//!
//! # Example
//!
//! A two-hop payment onion, peeled by both hops:
//!
//! ```
//! use wireseal::keys::PrivateKey;
//! use wireseal::sphinx::{build_to_vec, Hop, Onion, Peeled, Route};
//!
//! let session = PrivateKey::random();
//! let (alice, bob) = (PrivateKey::random(), PrivateKey::random());
//! let hops = [
//!     Hop { pubkey: alice.public_key(), payload: &[0x02, 0x01, 0x2a] },
//!     Hop { pubkey: bob.public_key(), payload: &[0x02, 0x01, 0x07] },
//! ];
//! let payment_hash = [0x11; 32];
//! let (bytes, _secrets) = build_to_vec(&session, &Route::payment(&hops, &payment_hash))?;
//!
//! let Peeled::Forward { payload, next, .. } =
//!     Onion::parse(&bytes)?.peel(&alice, &payment_hash)?
//! else {
//!     panic!("Alice forwards");
//! };
//! assert_eq!(payload, [0x02, 0x01, 0x2a]);
//! let Peeled::Final { payload, .. } = next.peel(&bob, &payment_hash)? else {
//!     panic!("Bob is the recipient");
//! };
//! assert_eq!(payload, [0x02, 0x01, 0x07]);
//! # Ok::<(), wireseal::sphinx::Error>(())
//! ```

pub mod bigsize;
pub mod blinding;
pub mod failure;
pub mod keys;
pub mod tlv;

mod batch;
mod build;
mod error;
mod packet;
mod peel;

pub use batch::{peel_batch, PeelItem};
pub use build::{build, build_into, build_to_vec, Hop, Padding, Route};
pub use error::Error;
pub use keys::{HopSecrets, SharedSecret};
pub use packet::{area_len, onion_len, Onion, OVERHEAD};
pub use peel::{MemoryReplayLog, Peeled, ReplayLog, ReplayTag};

/// Packet version byte.
pub const VERSION: u8 = 0;
/// HMAC length.
pub const HMAC_LEN: usize = 32;
/// Payload area of a payment onion (and of a small onion message).
pub const PAYMENT_AREA: usize = 1300;
/// Payload area of a large onion message.
pub const MESSAGE_AREA_LARGE: usize = 32768;
/// Size of a payment onion (1366 bytes).
pub const PAYMENT_ONION_LEN: usize = onion_len(PAYMENT_AREA);
/// Size of a large onion message packet (32834 bytes).
pub const MESSAGE_ONION_LEN_LARGE: usize = onion_len(MESSAGE_AREA_LARGE);
