//! Sphinx onion packets, Lightning BOLT #4: build, peel, failure onions with
//! attribution data, fulfill hold times, onion messages and route blinding,
//! byte-compatible with the specification and its test vectors.
//!
//! * [`build()`] wraps hop payloads for a [`Route`] ([`build_into`] writes into
//!   a caller buffer, [`build_to_vec`] allocates). A route has a payload
//!   [`Area`] (`payment`, 1300 bytes, or `message-large`, 32768) and a
//!   [`Padding`] (by default BOLT #4's `pad`-key stream). Per-hop shared
//!   secrets are derived linearly ([`keys::session_secrets`]): the running
//!   ephemeral private key is multiplied by each blinding factor, so a hop
//!   costs one ECDH and one fixed-base multiplication, the floor for this
//!   format.
//! * [`Onion::peel`] is a consuming transition to [`Peeled::Forward`] or
//!   [`Peeled::Final`]; the HMAC is checked in constant time before the payload
//!   is decrypted or parsed, and a hop frame must end inside the payload area.
//!   [`ReplayLog`] lets the caller keep a replay log keyed by shared secret.
//! * [`failure`] creates, wraps and unwraps failure packets, with or without
//!   [`attribution`] data (hold times and the hop to blame), and truncates
//!   return packets to 32 KiB on the way back; [`failure::unwrap_batch`]
//!   unwraps many at once. [`fulfill`] does the same for fulfilled HTLCs:
//!   their hold times and the final node's `fulfillment_payload`
//!   ([`fulfill::payload`]). A hop finds its shared secret with
//!   [`keys::shared_secret`] (or in [`Peeled`]); the origin keeps the route's
//!   [`HopSecrets`] from [`build()`] or derives them again.
//! * Blinded paths and attribution: a hop whose HTLC came with a `path_key`
//!   ([`Incoming::Blinded`]) adds no attribution data
//!   ([`failure::create_at`], [`failure::relay_in_place`],
//!   [`fulfill::create_at`], [`fulfill::relay`]); the origin reads it up to
//!   the introduction node ([`HopSecrets::with_blinded_tail`]).
//! * [`malformed`]: the `update_fail_malformed_htlc` reply of a hop
//!   (forwarding or final) that cannot peel its onion.
//! * [`blinding`] builds and unblinds blinded paths (payments and onion
//!   messages).
//! * [`peel_batch`] peels many onions on the caller's [`Batch`](crate::batch::Batch).
//! * Size helpers: [`onion_len`] (payload area to packet size),
//!   [`area_len`] (packet size to payload area),
//!   [`failure::failure_len`].
//!
//! Hops are counted from 1 (the first hop after the origin) wherever a
//! result names one. Hold times are milliseconds in the API and units of
//! 100 ms on the wire.
//!
//! Only TLV hop payloads are supported; the retired 65-byte "legacy" payload
//! (first byte 0) is rejected when peeled.
//!
//! # Example
//!
//! A two-hop payment onion, peeled by both hops; Bob fails the payment and
//! Alice passes the failure back with its attribution data:
//!
//! ```
//! use wireseal::keys::PrivateKey;
//! use wireseal::sphinx::{build_to_vec, failure, Attribution, Hop, Onion, Peeled, Route};
//!
//! let session = PrivateKey::random();
//! let (alice, bob) = (PrivateKey::random(), PrivateKey::random());
//! let hops = [
//!     Hop { pubkey: alice.public_key(), payload: &[0x02, 0x01, 0x2a] },
//!     Hop { pubkey: bob.public_key(), payload: &[0x02, 0x01, 0x07] },
//! ];
//! let payment_hash = [0x11; 32];
//! let (bytes, secrets) = build_to_vec(&session, &Route::new(&hops, &payment_hash))?;
//!
//! let Peeled::Forward { payload, next, shared_secret: alice_ss } =
//!     Onion::parse(&bytes)?.peel(&alice, &payment_hash)?
//! else {
//!     panic!("Alice forwards");
//! };
//! assert_eq!(payload, [0x02, 0x01, 0x2a]);
//! let Peeled::Final { payload, shared_secret: bob_ss } = next.peel(&bob, &payment_hash)? else {
//!     panic!("Bob is the recipient");
//! };
//! assert_eq!(payload, [0x02, 0x01, 0x07]);
//!
//! // Bob held the HTLC for 250 ms, Alice for 1.2 s.
//! let (mut packet, mut attribution) = failure::create_attributed_to_vec(&bob_ss, &[0x40, 0x0f], 250)?;
//! failure::wrap_attributed_in_place(&alice_ss, 1200, &mut packet, &mut attribution)?;
//!
//! let got = failure::unwrap_attributed(&secrets, &packet, Some(attribution.as_bytes()))?;
//! assert_eq!(got.hop, Some(2));
//! assert_eq!(got.message.as_deref(), Some(&[0x40, 0x0f][..]));
//! assert_eq!(got.attribution, Attribution::Valid);
//! assert_eq!(got.hold_times_ms, [1200, 200]);
//! assert_eq!(got.blamed_hop, None);
//! # Ok::<(), wireseal::sphinx::Error>(())
//! ```

pub mod attribution;
pub mod bigsize;
pub mod blinding;
pub mod failure;
pub mod fulfill;
pub mod keys;
pub mod malformed;
pub mod tlv;

mod area;
mod batch;
mod build;
mod error;
mod packet;
mod peel;

pub use area::{Area, Padding};
pub use attribution::{Attribution, AttributionData, Incoming, ATTRIBUTION_LEN};
pub use batch::{peel_batch, PeelItem};
pub use build::{build, build_into, build_to_vec, Hop, Route};
pub use error::Error;
pub use keys::{HopSecrets, SharedSecret};
pub use packet::{area_len, onion_len, Onion, OVERHEAD};
pub use peel::{MemoryReplayLog, Peeled, ReplayLog, ReplayTag};

/// Packet version byte.
pub const VERSION: u8 = 0;
/// HMAC length.
pub const HMAC_LEN: usize = 32;
/// Payload area of a payment onion (and of a small onion message):
/// [`Area::Payment`]`.bytes()`.
pub const PAYMENT_AREA: usize = 1300;
/// Payload area of a large onion message: [`Area::MessageLarge`]`.bytes()`.
pub const MESSAGE_AREA_LARGE: usize = 32768;
/// Size of a payment onion (1366 bytes).
pub const PAYMENT_ONION_LEN: usize = onion_len(PAYMENT_AREA);
/// Size of a large onion message packet (32834 bytes).
pub const MESSAGE_ONION_LEN_LARGE: usize = onion_len(MESSAGE_AREA_LARGE);
