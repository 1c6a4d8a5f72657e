//! "batch of N, all cores vs 1 core": every format's batch API at batch
//! sizes from 1 to 16,384, the same calls on a one-thread [`Batch`] and on
//! all cores, sampled alternately. A ratio below 1 would mean that spreading
//! a batch of that size over the cores costs more than it saves; the
//! library's batches measure that break-even themselves and stay on the
//! calling thread below it (`wireseal::batch`), so the ratio is about 1 for
//! small batches and grows toward the number of cores for large ones.
//!
//! Each format's rows are a plot of the report (its `*-batch` plot in
//! [`crate::report::plots::PLOTS`]): items per second against the batch
//! size, one core and all cores. This module measures; each format's file
//! builds that format's batches.

pub(crate) mod bip324;
pub(crate) mod meshtastic;
pub(crate) mod peat;
pub(crate) mod sphinx;

use crate::{Better, Ctx, Row};
use std::time::{Duration, Instant};
use wireseal::batch::Batch;

/// The batch sizes of every format's rows.
pub(crate) const SIZES: [usize; 8] = [1, 4, 16, 64, 256, 1024, 4096, 16384];

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
    SIZES
        .iter()
        .map(|&n| {
            let (mut a, mut b) = (make(n), make(n));
            let (t_one, t_all) = pair(ctx, || call(&one, &mut a), || call(&all, &mut b));
            Row::new(
                section,
                format!("{api}: batch of {n}, all cores vs 1 core"),
                &format!("{items}/s"),
                Better::Higher,
                n as f64 / t_all,
                "same calls, 1 core",
                Some(n as f64 / t_one),
            )
            .at(plot, series.clone(), n as f64)
        })
        .collect()
}

/// Median seconds per call of `a` and of `b`, sampled alternately; one call
/// of each first (warm-up, and to choose how to sample).
fn pair(ctx: &Ctx, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let t = Instant::now();
    a();
    let long = t.elapsed() > LONG_CALL;
    b();
    if long {
        ctx.time_pair_job(3, a, b)
    } else {
        ctx.time_pair_per_op(a, b)
    }
}
