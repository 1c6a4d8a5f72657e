//! Peeling many onions at once across cores (a routing node's hot path).

use super::packet::Onion;
use super::peel::Peeled;
use super::Error;
use crate::batch::Batch;
use crate::primitives::secp256k1::PrivateKey;

/// One incoming onion with its associated data (the payment hash).
#[derive(Debug, Clone, Copy)]
pub struct PeelItem<'a> {
    /// The serialized 1366-byte payment onion.
    pub onion: &'a [u8],
    /// Associated data committed to by the HMAC.
    pub associated_data: &'a [u8],
}

/// Parses and peels every item with `node_key`, in parallel on `batch`;
/// results are in input order and identical to peeling one at a time
/// ([`Onion::parse`] then [`Onion::peel`], with their errors per item).
///
/// Replay checking is left to the caller: record each successful result's
/// [`Peeled::replay_tag`] in order, after the batch returns.
pub fn peel_batch(
    batch: &Batch,
    node_key: &PrivateKey,
    items: &[PeelItem<'_>],
) -> Vec<Result<Peeled, Error>> {
    batch.map(items, |it| {
        Onion::parse(it.onion).and_then(|o| o.peel(node_key, it.associated_data))
    })
}
