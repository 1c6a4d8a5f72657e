//! A PKC direct message opened by a batch ahead of the ordered step, and
//! how the ordered step takes it over (built without `std` too, where no
//! batch opens anything ahead).
#![cfg_attr(not(feature = "std"), allow(dead_code))]

use crate::meshtastic::envelope::Data;
use crate::meshtastic::pkc_ahead::{FreshKeys, KeyFrom};
use crate::meshtastic::{Error, PkcEngine, PkcPacket};
#[allow(unused_imports)]
use crate::prelude::*;
use zeroize::Zeroize;

/// A PKC payload opened in a batch's parallel step.
pub(super) struct Ahead {
    /// The sender key it was opened with.
    pub(super) key: [u8; 32],
    /// Where that key came from (the cache, or derived in the batch).
    pub(super) from: KeyFrom,
    /// What opening it gave.
    pub(super) opened: Opened,
}

/// What opening a PKC payload ahead gave.
pub(super) enum Opened {
    /// The tag did not verify.
    Failed(Error),
    /// The plaintext's `Data`, or why it is not one.
    Data(Result<Data, Error>),
    /// The `Data`, now in the decoded packet (the packet was settled ahead).
    InPacket,
}

impl core::fmt::Debug for Ahead {
    /// Leaves the plaintext out.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ahead")
            .field("from", &self.from)
            .field(
                "opened",
                &matches!(self.opened, Opened::Data(Ok(_)) | Opened::InPacket),
            )
            .finish_non_exhaustive()
    }
}

impl Ahead {
    /// What [`Decoder::decode`](super::Decoder::decode) would have made of
    /// the payload with `packet`'s key at time `now`, the engine's cache and
    /// replay window left as it leaves them; or `None`, changing nothing,
    /// when that is not the key it was opened with or the key has left the
    /// cache since (open it again then).
    pub(super) fn settle(
        self,
        engine: &mut PkcEngine,
        now: u64,
        packet: PkcPacket<'_>,
        fresh: &mut FreshKeys,
    ) -> Option<Result<Data, Error>> {
        if *packet.peer_public != self.key
            || !engine.book_ahead(now, self.from, packet.peer_public, fresh)
        {
            return None;
        }
        let data = match self.opened {
            Opened::Failed(e) => return Some(Err(e)),
            Opened::Data(data) => data,
            // Taken back from the packet before the ordered step.
            Opened::InPacket => Err(Error::Auth),
        };
        Some(match engine.accept_replay(packet.from, packet.id) {
            Ok(()) => data,
            Err(e) => {
                if let Ok(mut unreleased) = data {
                    unreleased.payload.zeroize();
                }
                Err(e)
            }
        })
    }
}
