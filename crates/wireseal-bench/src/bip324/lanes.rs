//! Independent sessions across cores: lanes, each sealing then opening its
//! packets of the mixed profile in runs of [`RUN`], one core and all cores
//! on the same lanes' shape, both through a `Batch`; the crate on lanes of
//! its own sessions.

use super::{lanes_rt, Lane, CRATE, LANE, RUN, S};
use crate::{Better, Ctx, Row};
use wireseal::batch::Batch;

/// The batch rows: one core against the crate, all cores against the
/// crate on all cores, and all cores against one.
pub(super) fn rows(ctx: &Ctx, sizes: &[u32], data: &[u8]) -> Vec<Row> {
    let all = Batch::all_cores();
    let one = Batch::with_threads(1);
    let threads = all.threads();
    let per_lane = &sizes[..LANE];
    // Our seal jobs take every packet's contents back to back.
    let lane_data: Vec<u8> = (0..per_lane.iter().map(|&x| x as usize).sum::<usize>())
        .map(|i| i as u8)
        .collect();
    let n_lanes = threads * 32;
    let mut lanes: Vec<Lane> = (0..n_lanes).map(|_| Lane::new()).collect();
    let mut lanes1: Vec<Lane> = (0..n_lanes).map(|_| Lane::new()).collect();
    let n_all = n_lanes * per_lane.len();
    let (ours_all, ours_lanes1) = ctx.time_pair_per_op(
        || lanes_rt(&all, &mut lanes, per_lane, &lane_data),
        || lanes_rt(&one, &mut lanes1, per_lane, &lane_data),
    );
    let (ours_all, ours_lanes1) = (n_all as f64 / ours_all, n_all as f64 / ours_lanes1);
    let (theirs_all, theirs_lanes1) = theirs(ctx, per_lane, data, n_lanes);
    vec![
        Row::new(
            S,
            format!("mixed batch ({LANE}/lane, seal+open runs of {RUN}), 1 core"),
            "pkt/s",
            Better::Higher,
            ours_lanes1,
            CRATE,
            theirs_lanes1,
        )
        .seed("715,000 pkt/s (CPU seed)"),
        Row::new(
            S,
            format!("mixed batch, all cores ({threads} thr)"),
            "pkt/s",
            Better::Higher,
            ours_all,
            if theirs_all.is_some() {
                format!("{CRATE}, all cores")
            } else {
                CRATE.to_string()
            },
            theirs_all,
        )
        .seed("21M pkt/s (GPU seed)"),
        Row::new(
            S,
            "mixed batch, all cores vs 1 core",
            "pkt/s",
            Better::Higher,
            ours_all,
            "wireseal batch, 1 core",
            Some(ours_lanes1),
        ),
    ]
}

/// The crate on `n_lanes` lanes of its own sessions, each doing the lane's
/// packets a run at a time: packets per second on all cores and on one.
#[cfg(feature = "rust-peers")]
fn theirs(ctx: &Ctx, per_lane: &[u32], data: &[u8], n_lanes: usize) -> (Option<f64>, Option<f64>) {
    use super::peer::Pair;
    use std::hint::black_box;
    let all = Batch::all_cores();
    let one = Batch::with_threads(1);
    let n_all = n_lanes * per_lane.len();
    let lane_cap = wireseal::bip324::batch::wire_len(&per_lane[..RUN]);
    let crate_lanes = || -> Vec<(Pair, Vec<u8>)> {
        (0..n_lanes)
            .map(|_| (Pair::new(), Vec::with_capacity(lane_cap)))
            .collect()
    };
    let (mut crate_lanes, mut crate_lanes1) = (crate_lanes(), crate_lanes());
    let crate_pass = |b: &Batch, lanes: &mut [(Pair, Vec<u8>)]| {
        b.for_each_mut_coarse(lanes, |(p, w)| {
            for run in per_lane.chunks(RUN) {
                black_box(p.lane(run, data, w));
            }
        });
        n_all
    };
    let (t_all, t1) = ctx.time_pair_per_op(
        || crate_pass(&all, &mut crate_lanes),
        || crate_pass(&one, &mut crate_lanes1),
    );
    (Some(n_all as f64 / t_all), Some(n_all as f64 / t1))
}

/// Without the crate: no figures.
#[cfg(not(feature = "rust-peers"))]
fn theirs(
    _ctx: &Ctx,
    _per_lane: &[u32],
    _data: &[u8],
    _n_lanes: usize,
) -> (Option<f64>, Option<f64>) {
    (None, None)
}
