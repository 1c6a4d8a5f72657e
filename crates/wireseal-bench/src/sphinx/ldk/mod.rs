//! LDK (`lightning` 0.2.7) as the Sphinx peer: its public payment-onion
//! API, building and peeling onions ([`Ldk`]), and for what it keeps
//! crate-private (failures and their attribution data) three
//! `ChannelManager` nodes in a line whose calls are timed (`net`, over the
//! nodes of `node`; a fuzz target builds its networks from the same two
//! files). Built without the `rust-peers` feature, [`Ldk`] stands in doing
//! nothing and the section marks LDK's rows skipped
//! ([`crate::peers::rust_peers::mark_skipped`]).

#[cfg(not(feature = "rust-peers"))]
mod absent;
#[cfg(feature = "rust-peers")]
pub(crate) mod net;
#[cfg(feature = "rust-peers")]
mod node;
#[cfg(feature = "rust-peers")]
mod onion;

#[cfg(not(feature = "rust-peers"))]
pub use absent::Ldk;
#[cfg(feature = "rust-peers")]
pub use onion::Ldk;
