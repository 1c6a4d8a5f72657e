//! BIP324 `seal_batch_into` then `open_batch_into` (the library's batch
//! API, one job per session), a batch of N packets spread over up to 64
//! sessions, for the "batch of N, all cores vs 1 core" rows.

use super::SIZES;
use crate::bip324::our_handshake;
use crate::{Ctx, Row};
use wireseal::bip324::batch::{open_batch_into, seal_batch_into, OpenJob, OpenedRange, SealJob};
use wireseal::bip324::Session;
use wireseal::keys::EllSwiftKeypair;
use wireseal_io::traffic::mixed_sizes;

/// Sessions a batch spans at most.
const MAX_SESSIONS: usize = 64;

/// One session pair with its buffers.
struct Pair {
    a: Session,
    b: Session,
    wire: Vec<u8>,
    opened: Vec<OpenedRange>,
}

/// The rows.
pub(crate) fn rows(ctx: &Ctx) -> Vec<Row> {
    let largest = SIZES[SIZES.len() - 1];
    let profile = mixed_sizes(2024, largest / MAX_SESSIONS);
    let data: Vec<u8> = (0..profile.iter().map(|&s| s as usize).sum::<usize>())
        .map(|i| i as u8)
        .collect();
    super::rows(
        ctx,
        "bip324",
        "mixed packets, seal + open over up to 64 sessions",
        "pkt",
        "bip324-batch",
        |n| {
            let sessions = n.min(MAX_SESSIONS);
            let pairs: Vec<Pair> = (0..sessions)
                .map(|_| {
                    let (a, b) =
                        our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
                    Pair {
                        a,
                        b,
                        wire: Vec::new(),
                        opened: Vec::new(),
                    }
                })
                .collect();
            (pairs, &profile[..n / sessions])
        },
        |batch, (pairs, sizes)| {
            let len: usize = sizes.iter().map(|&s| s as usize).sum();
            let mut seal: Vec<SealJob<'_>> = pairs
                .iter_mut()
                .map(|p| {
                    p.wire.clear();
                    SealJob {
                        sender: &mut p.a.sender,
                        contents: &data[..len],
                        sizes,
                        out: &mut p.wire,
                        result: Ok(0),
                    }
                })
                .collect();
            seal_batch_into(batch, &mut seal);
            assert!(seal.iter().all(|j| j.result == Ok(sizes.len())));
            drop(seal);
            let mut open: Vec<OpenJob<'_>> = pairs
                .iter_mut()
                .map(|p| OpenJob {
                    receiver: &mut p.b.receiver,
                    wire: &mut p.wire,
                    opened: &mut p.opened,
                    result: Ok(0),
                })
                .collect();
            open_batch_into(batch, &mut open);
            assert!(open.iter().all(|j| j.result == Ok(sizes.len())));
        },
    )
}
