//! The BIP324 report curves: time per packet and packets per second against
//! the batch size (packets handed over in one call, spread over up to
//! [`MAX_LANES`] sessions), on one core and on all cores, next to the
//! `bip324` crate doing the same packets on the same sessions' shape (it
//! has no batch path: one packet per call). Rows are points of the
//! `bip324-latency` and `bip324-throughput` plots.

use super::{lanes_rt, Lane, CRATE, S};
use crate::{Better, Ctx, Row};
use wireseal::batch::Batch;
use wireseal_io::traffic::mixed_sizes;

/// Sessions a batch spans at most: a node's peers whose packets arrive
/// together.
const MAX_LANES: usize = 64;
/// Batch sizes of the curves (packets per call).
const BATCHES: [usize; 8] = [1, 4, 16, 64, 256, 1024, 4096, 16384];

/// The rows of both curves.
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let mut rows = Vec::new();
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let profile = mixed_sizes(2024, BATCHES[BATCHES.len() - 1]);
    for b in BATCHES {
        let n_lanes = b.min(MAX_LANES);
        let per_lane = &profile[..b / n_lanes];
        let data: Vec<u8> = (0..per_lane.iter().map(|&s| s as usize).sum::<usize>())
            .map(|i| i as u8)
            .collect();
        for (batch, cores) in [(&one, 1), (&all, all.threads())] {
            let mut lanes: Vec<Lane> = (0..n_lanes).map(|_| Lane::new()).collect();
            let (ours, theirs) = pair(ctx, batch, &mut lanes, per_lane, &data);
            let series = if cores == 1 {
                "wireseal, 1 core".to_owned()
            } else {
                format!("wireseal, {cores} cores")
            };
            let peer = if cores == 1 {
                format!("{CRATE}, 1 core")
            } else {
                format!("{CRATE}, {cores} cores")
            };
            let per_packet = |t: f64| t / b as f64 * 1e6;
            rows.push(
                Row::new(
                    S,
                    format!("batch of {b} packets, {cores} core(s): time per packet"),
                    "µs",
                    Better::Lower,
                    per_packet(ours),
                    peer.clone(),
                    theirs.map(per_packet),
                )
                .at("bip324-latency", series.clone(), b as f64),
            );
            rows.push(
                Row::new(
                    S,
                    format!("batch of {b} packets, {cores} core(s): packets/s"),
                    "pkt/s",
                    Better::Higher,
                    b as f64 / ours,
                    peer,
                    theirs.map(|t| b as f64 / t),
                )
                .at("bip324-throughput", series, b as f64),
            );
        }
    }
    rows
}

/// Seconds per batch call for ours and, when built with it, the crate's
/// seconds for the same packets on as many sessions, spread by `batch`;
/// sampled alternately.
fn pair(
    ctx: &Ctx,
    batch: &Batch,
    lanes: &mut [Lane],
    sizes: &[u32],
    data: &[u8],
) -> (f64, Option<f64>) {
    #[cfg(feature = "rust-peers")]
    {
        let cap = wireseal::bip324::batch::wire_len(sizes);
        let mut crate_lanes: Vec<(super::peer::Pair, Vec<u8>)> = (0..lanes.len())
            .map(|_| (super::peer::Pair::new(), Vec::with_capacity(cap)))
            .collect();
        let (ours, theirs) = ctx.time_pair_per_op(
            || lanes_rt(batch, lanes, sizes, data),
            || {
                batch.for_each_mut_coarse(&mut crate_lanes, |(p, w)| {
                    std::hint::black_box(p.lane(sizes, data, w));
                });
            },
        );
        (ours, Some(theirs))
    }
    #[cfg(not(feature = "rust-peers"))]
    {
        (
            ctx.time_per_op(|| lanes_rt(batch, lanes, sizes, data)),
            None,
        )
    }
}
