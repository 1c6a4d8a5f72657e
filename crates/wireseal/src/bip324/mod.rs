//! BIP324 v2 encrypted transport for Bitcoin P2P (BIP v1.0.2), sans-IO.
//!
//! * [`Handshake`]: consuming typestate for initiator and responder, with
//!   garbage (up to 4095 bytes), the garbage-terminator search, decoys
//!   before the version packet and v1-peer detection before a responder
//!   writes anything ([`Handshake::accept`], [`Handshake::classify`],
//!   [`classify_first_bytes`]).
//! * [`Session`], [`PacketSender`], [`PacketReceiver`]: the packet ciphers
//!   (FSChaCha20 lengths, FSChaCha20Poly1305 contents, rekey every 224
//!   packets), `seal_into` / `seal_in_place` / `seal_to_vec` and in-place
//!   opening into caller buffers, sized by [`sealed_len`] / [`opened_len`],
//!   with no allocation per packet. Any receive failure poisons the receiver.
//! * [`KeyPool`]: pre-generated ElligatorSwift keys, each encoded with fresh
//!   auxiliary randomness (never the all-zero input that makes encodings
//!   recognisable).
//! * [`batch`]: many sessions' packets across cores, on the caller's
//!   [`crate::batch::Batch`].
//! * Drivers beside the core, which never imports them: [`io`] (blocking
//!   `std::io::Read + Write`) and, with the non-default `tokio` feature,
//!   `tokio` (`AsyncRead + AsyncWrite`).
//!
//! Keys: ECDH via libsecp256k1's BIP324 hasher, then HKDF-SHA256 with salt
//! `"bitcoin_v2_shared_secret" || magic` ([`Network`]).
//!
//! # Example
//!
//! Both sides of a handshake in memory, then one packet each way:
//!
//! ```
//! use wireseal::bip324::{
//!     GarbageRead, Handshake, KeyRead, Network, Next, PacketType, Session, VersionRead,
//! };
//! use wireseal::keys::EllSwiftKeypair;
//!
//! # fn main() -> Result<(), wireseal::bip324::Error> {
//! let net = Network::MAINNET;
//! let (mut to_b, mut to_a) = (Vec::new(), Vec::new());
//! let a = Handshake::initiator(net, EllSwiftKeypair::generate(), b"garbage")?
//!     .write_key(&mut to_b);
//! let b = Handshake::responder(net, EllSwiftKeypair::generate(), b"")?.write_key(&mut to_a);
//! let KeyRead::Derived { handshake: a, .. } = a.read_key(&to_a) else { unreachable!() };
//! let KeyRead::Derived { handshake: b, .. } = b.read_key(&to_b) else { unreachable!() };
//! let (mut to_b, mut to_a) = (to_b.split_off(64), to_a.split_off(64));
//! let a = a.write_version(&[b"a decoy"], &mut to_b)?;
//! let b = b.write_version(&[], &mut to_a)?;
//!
//! // Each side finds the other's garbage terminator, skips decoys and
//! // reads the version packet.
//! fn finish(
//!     h: Handshake<wireseal::bip324::VersionSent>,
//!     input: &mut [u8],
//! ) -> Result<Session, wireseal::bip324::Error> {
//!     let GarbageRead::Found { handshake: mut h, consumed: mut at } = h.read_garbage(input)?
//!     else { unreachable!("whole input given") };
//!     loop {
//!         match h.read_version(&mut input[at..])? {
//!             VersionRead::Decoy(next, used) => (h, at) = (next, at + used),
//!             VersionRead::Done { session, .. } => return Ok(session),
//!             VersionRead::NeedMore(..) => unreachable!("whole input given"),
//!         }
//!     }
//! }
//! let mut a = finish(a, &mut to_a)?;
//! let mut b = finish(b, &mut to_b)?;
//! assert_eq!(a.id(), b.id());
//!
//! let mut wire = vec![0u8; Session::sealed_len(5)];
//! let n = a.seal_into(b"hello", PacketType::Genuine, &mut wire)?;
//! let Next::Packet { packet, consumed } = b.open_next(&mut wire[..n])? else { unreachable!() };
//! assert_eq!((packet.kind, packet.contents, consumed), (PacketType::Genuine, &b"hello"[..], n));
//!
//! let mut back = b.seal_to_vec(b"hi", PacketType::Genuine)?;
//! let Next::Packet { packet, .. } = a.open_next(&mut back)? else { unreachable!() };
//! assert_eq!(packet.contents, b"hi");
//! # Ok(())
//! # }
//! ```

pub mod batch;
mod driver;
mod error;
mod fschacha;
mod handshake;
pub mod io;
mod keys;
mod packet;
mod pool;
mod session;
mod session_halves;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use error::Error;
pub use fschacha::{FsChaCha20, FsChaCha20Poly1305, REKEY_INTERVAL};
pub use handshake::{
    classify_first_bytes, AwaitingPeer, Classified, GarbageRead, GarbageReceived, Handshake,
    KeyRead, KeySent, KeysDerived, PeerKind, Start, VersionRead, VersionSent, MAX_GARBAGE_LEN,
};
pub use keys::{Network, Role, SessionKeys, TERMINATOR_LEN};
pub use packet::{
    opened_len, sealed_len, Next, Opened, PacketReceiver, PacketSender, PacketType,
    CORE_MAX_CONTENTS_LEN, DECOY_FLAG, HEADER_LEN, LENGTH_LEN, MAX_CONTENTS_LEN, OVERHEAD, TAG_LEN,
};
pub use pool::KeyPool;
pub use session::Session;

pub use crate::keys::{EllSwiftKeypair, ELLSWIFT_LEN};
