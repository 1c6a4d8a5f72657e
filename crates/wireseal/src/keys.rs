//! Key types the wire formats take and return.
//!
//! X25519 keys (Meshtastic, peat), secp256k1 keys (Sphinx) and BIP324's
//! ElligatorSwift key pairs. Secret halves zeroize on drop and print nothing
//! in `Debug`.

#[cfg(feature = "std")]
pub use crate::primitives::ellswift::{EllSwiftKeypair, ELLSWIFT_LEN};
#[cfg(feature = "std")]
pub use crate::primitives::secp256k1::{PrivateKey, PublicKey};
pub use crate::primitives::x25519::StaticSecret;
