//! BIP324 v2 encrypted transport for Bitcoin P2P (BIP v1.0.2), sans-IO.
//!
//! * [`Connection`]: one end of a connection, handshake and session, in the
//!   shape of quinn-proto's: bytes received in ([`Connection::receive`]),
//!   bytes to send out ([`Connection::transmit`]), [`Event`]s out
//!   ([`Connection::poll_event`]). Garbage, decoys, the version packet,
//!   v1-peer detection before a responder writes anything
//!   ([`Error::V1Peer`]), a peer on another network named as such
//!   ([`Error::WrongNetwork`]), bounded input, poisoning on failure. No
//!   clock: BIP324 has no timers. [`Connection::split`] gives the
//!   established [`Inbound`] and [`Outbound`] directions for separate
//!   tasks.
//! * Drivers beside the core, which never imports them: [`io`] (blocking
//!   `std::io::Read + Write`) and, with the non-default `tokio` feature,
//!   `tokio` (`AsyncRead + AsyncWrite`); both run a [`Connection`].
//! * [`classify_first_bytes`]: v1-peer detection for a driver that serves
//!   v1 and v2 on one port. The handshake's steps under [`Connection`] as
//!   consuming typestate (`handshake::Handshake` and its states) are public
//!   only with the non-default `hazmat` feature, for the bench, the fuzz
//!   targets and the library's tests: [`Connection`] is the way in.
//! * [`Session`], [`PacketSender`], [`PacketReceiver`]: the packet ciphers
//!   (FSChaCha20 lengths, FSChaCha20Poly1305 contents, rekey every 224
//!   packets), `seal_into` / `seal_in_place` / `seal_to_vec` and in-place
//!   opening into caller buffers, sized by [`sealed_len`] / [`opened_len`],
//!   with no allocation per packet. Any receive failure poisons the
//!   receiver.
//! * [`KeyPool`]: pre-generated ElligatorSwift keys, each encoded with
//!   fresh auxiliary randomness (never the all-zero input that makes
//!   encodings recognisable).
//! * [`state`]: one direction's keys and positions, exported in a
//!   versioned form for batch engines outside the library (a GPU), and
//!   moved forward by what they sealed or opened.
//! * [`batch`]: many sessions' packets across cores, on the caller's
//!   [`crate::batch::Batch`]. (The mixed test-traffic profile the command
//!   line and the bench send is `wireseal_io::traffic`.)
//!
//! Keys: ECDH via libsecp256k1's BIP324 hasher, then HKDF-SHA256 with salt
//! `"bitcoin_v2_shared_secret" || magic` ([`Network`]).
//!
//! # Example
//!
//! Both sides in memory, through [`Connection`]; a driver moves the same
//! bytes over a socket:
//!
//! ```
//! use wireseal::bip324::{Config, Connection, Event, KeyPool, Network, PacketType, Role};
//!
//! # fn main() -> Result<(), wireseal::bip324::Error> {
//! let pool = KeyPool::new(2);
//! let config = Config::new(Network::MAINNET)
//!     .with_random_garbage(64)
//!     .with_decoys(vec![b"a decoy".to_vec()]);
//! let mut a = Connection::new(Role::Initiator, pool.take(), &config)?;
//! let mut b = Connection::new(Role::Responder, pool.take(), &config)?;
//! for _ in 0..3 {
//!     let n = a.transmit().len();
//!     b.receive(a.transmit())?;
//!     a.transmitted(n);
//!     let n = b.transmit().len();
//!     a.receive(b.transmit())?;
//!     b.transmitted(n);
//! }
//! assert!(a.is_established() && b.is_established());
//! assert_eq!(a.session_id(), b.session_id());
//!
//! a.send(b"hello", PacketType::Genuine)?;
//! a.send(b"ignored", PacketType::Decoy)?;
//! b.receive(a.transmit())?;
//! assert!(matches!(b.poll_event()?, Some(Event::Established { .. })));
//! assert_eq!(b.poll_event()?, Some(Event::Packet(b"hello")));
//! assert_eq!(b.poll_event()?, None);
//!
//! // Another network's magic: both sides say so as soon as they see the
//! // other's garbage terminator.
//! let mut a = Connection::new(Role::Initiator, pool.take(), &Config::new(Network::SIGNET))?;
//! let mut b = Connection::new(Role::Responder, pool.take(), &config)?;
//! b.receive(a.transmit())?;
//! let err = a.receive(b.transmit()).unwrap_err();
//! assert_eq!(
//!     err,
//!     wireseal::bip324::Error::WrongNetwork { ours: Network::SIGNET, theirs: Network::MAINNET }
//! );
//! # Ok(())
//! # }
//! ```

pub mod batch;
mod config;
mod connection;
mod driver;
mod error;
mod fschacha;
#[cfg(feature = "hazmat")]
pub mod handshake;
// Without `hazmat` the typestate's accessors that only the bench, the fuzz
// targets and the tests call are unused.
#[cfg(not(feature = "hazmat"))]
#[allow(dead_code)]
mod handshake;
pub mod io;
mod keys;
pub mod message;
mod packet;
mod pool;
mod session;
mod stage;
pub mod state;
mod stream;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use config::Config;
pub use connection::{Connection, Event};
pub use error::Error;
pub use fschacha::REKEY_INTERVAL;
pub use handshake::{classify_first_bytes, PeerKind, MAX_GARBAGE_LEN};
pub use keys::{MagicHex, Network, Role, SessionKeys, TERMINATOR_LEN};
pub use packet::{
    opened_len, sealed_len, Next, Opened, PacketReceiver, PacketSender, PacketType,
    CORE_MAX_CONTENTS_LEN, DECOY_FLAG, HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN, OVERHEAD, TAG_LEN,
};
pub use pool::KeyPool;
pub use session::Session;
pub use stage::Stage;
pub use stream::{Inbound, Outbound, READ_CHUNK};

pub use crate::keys::{EllSwiftKeypair, ELLSWIFT_LEN};
