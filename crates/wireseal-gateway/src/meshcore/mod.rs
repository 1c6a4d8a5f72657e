//! MeshCore in the gateway: observer feeds beside the Meshtastic one, on
//! the same connection, event loop, sinks, store and read side.
//!
//! A message whose topic matches one of the `meshcore-topic` filters
//! ([`topics`]) is MeshCore's; every other message is Meshtastic's. Its
//! payload is read ([`feed`]: an observer's JSON object or the packet's
//! bytes), its packet parsed and decoded by the library's
//! [`Decoder`](wireseal::meshcore::Decoder) (our channels, our identities,
//! and the keys of the verified adverts heard, up to the peer limit), and
//! what the firmware drops is counted under the library's reason
//! ([`Error::reason`](wireseal::meshcore::Error::reason)), never stored.
//! The copies of one packet that several observers publish share one
//! decoding and one flood decision (the packet hash says which messages
//! are copies); each is a reception of its own.

pub mod feed;
pub(crate) mod state;
pub mod topics;
