//! "batch of N, all cores vs 1 core": every format's batch API at batch
//! sizes from 1 to 16,384, the same calls on a one-thread [`Batch`] and on
//! all cores, sampled alternately. A ratio below 1 would mean that spreading
//! a batch of that size over the cores costs more than it saves; the
//! library's batches measure that break-even themselves and stay on the
//! calling thread below it (`wireseal::batch`), so the ratio is about 1 for
//! small batches and grows toward the number of cores for large ones.
//!
//! Each size is sampled in at least [`PAIRS`] alternated pairs; the all-cores
//! figure is the one-core median times the median of the per-pair speedups,
//! so that a burst of load from elsewhere spoils one pair rather than the
//! row. Beside each API, a calibration row runs perfectly parallel work (an
//! independent SHA-256 per item, nothing shared, nothing allocated) through
//! the same two batches, about as long on one core as the APIs' batches of
//! 4,096 (3–5 ms): what any work of that size can gain on this machine at
//! that moment. Where it falls short of the number of cores, so do the
//! APIs' rows, for the same reasons (no core free, or waking idle cores
//! costing a share of so short a job); an API's row at or above it scales as
//! well as work of its size can there. Beside the gateway's `decode_batch`,
//! whose work touches far more memory than the calibration's, a second
//! floor runs that very work with nothing shared: the envelopes decoded one
//! at a time by independent decoders, one per thread, each on its own copy,
//! the results handed to the calling thread and dropped there as a caller
//! of `decode_batch` drops its own.
//!
//! Each format's rows are a plot of the report (its `*-batch` plot in
//! [`crate::report::plots::PLOTS`]): items per second against the batch
//! size, one core and all cores. This module measures; each format's file
//! builds that format's batches.

pub(crate) mod bip324;
pub(crate) mod meshtastic;
pub(crate) mod peat;
pub(crate) mod sphinx;

use crate::timing::PairTimes;
use crate::{Better, Ctx, Row};
use std::time::{Duration, Instant};
use wireseal::batch::Batch;

/// The batch sizes of every format's rows.
pub(crate) const SIZES: [usize; 8] = [1, 4, 16, 64, 256, 1024, 4096, 16384];

/// Alternated pairs sampled per size, at least.
const PAIRS: usize = 9;

/// The calibration's batch size.
const CALIBRATION: usize = 4096;

/// The bytes each calibration item hashes (about 1 µs each: 4,096 of them
/// take about as long as the APIs' batches of that size).
const CALIBRATION_ITEM: usize = 1024;

/// One call longer than this is sampled as whole jobs (three each), not
/// calibrated into many calls per sample.
const LONG_CALL: Duration = Duration::from_millis(20);

/// The rows of one batch API: `make(n)` builds the state of a batch of `n`
/// items (twice per size: one for each batch, so neither warms the other's
/// caches), `call` runs one batch call on it. `items` names what is counted
/// (`"pkt"`, `"docs"`, ...).
pub(crate) fn rows<S>(
    ctx: &Ctx,
    section: &str,
    api: &str,
    items: &str,
    plot: &'static str,
    mut make: impl FnMut(usize) -> S,
    call: impl Fn(&Batch, &mut S),
) -> Vec<Row> {
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let series = format!("all cores ({} threads)", all.threads());
    let mut out: Vec<Row> = SIZES
        .iter()
        .map(|&n| {
            let (mut a, mut b) = (make(n), make(n));
            let t = pair(ctx, || call(&one, &mut a), || call(&all, &mut b));
            Row::new(
                section,
                format!("{api}: batch of {n}, all cores vs 1 core"),
                &format!("{items}/s"),
                Better::Higher,
                n as f64 / t.a * t.ratio,
                "same calls, 1 core",
                Some(n as f64 / t.a),
            )
            .at(plot, series.clone(), n as f64)
        })
        .collect();
    out.push(calibration(ctx, section, api, &one, &all));
    out
}

/// The calibration row beside `api`: [`CALIBRATION`]'s independent hashes
/// on one core and on all.
fn calibration(ctx: &Ctx, section: &str, api: &str, one: &Batch, all: &Batch) -> Row {
    let (n, len) = (CALIBRATION, CALIBRATION_ITEM);
    let make = || vec![[0x5au8; CALIBRATION_ITEM]; n];
    let (mut a, mut b) = (make(), make());
    let hash_all = |batch: &Batch, items: &mut Vec<[u8; CALIBRATION_ITEM]>| {
        batch.for_each_mut(items, |item| {
            let d = wireseal::hazmat::sha::sha256(&item[..]);
            item[..32].copy_from_slice(&d);
        });
    };
    let t = pair(ctx, || hash_all(one, &mut a), || hash_all(all, &mut b));
    Row::new(
        section,
        format!(
            "calibration beside {api}: independent SHA-256 of {len} B items, \
             batch of {n}, all cores vs 1 core"
        ),
        "items/s",
        Better::Higher,
        n as f64 / t.a * t.ratio,
        "same calls, 1 core",
        Some(n as f64 / t.a),
    )
}

/// `a` and `b` sampled in alternated pairs, with the median of the
/// per-pair ratios; one call of each first (warm-up, and to choose how to
/// sample).
fn pair(ctx: &Ctx, mut a: impl FnMut(), mut b: impl FnMut()) -> PairTimes {
    let t = Instant::now();
    a();
    let long = t.elapsed() > LONG_CALL;
    b();
    let pairs = PAIRS.max(ctx.samples());
    if long {
        ctx.time_pair_ratio_job(pairs, a, b)
    } else {
        ctx.time_pair_ratio_per_op(pairs, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test --release -p wireseal-bench --lib
    /// batch_scaling::tests::meshtastic_rows -- --ignored --nocapture`
    /// prints Meshtastic's batch rows, each with its calibration row, as
    /// one core and all cores per second and their ratio.
    #[test]
    #[ignore = "a benchmark"]
    fn meshtastic_rows() {
        let ctx = Ctx { full: false };
        for r in meshtastic::pkc_open(&ctx)
            .into_iter()
            .chain(meshtastic::gateway(&ctx))
        {
            println!("{:80} {:5.2}x", r.workload, r.ratio.unwrap_or(0.0));
        }
    }
}
