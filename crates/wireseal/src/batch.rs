//! Batch work across cores (rayon), with results in input order, identical to
//! doing the items one at a time.
//!
//! A [`Batch`] runs on rayon's global pool (all cores) or on a pool of a fixed
//! number of threads, which is how benchmarks compare one core with all.
//!
//! Formats that write many packets into one caller buffer, back to back,
//! share crate-internal layout helpers here: one sizes the buffer, one
//! places each packet, and one hands each item its own region of the buffer
//! by splitting it recursively across the threads, so no per-item slice list
//! is built on the calling thread.

use core::ops::Range;
use rayon::prelude::*;

/// Items per rayon task: small packets are cheap, so hand out chunks.
const MIN_CHUNK: usize = 16;

/// Most items, and most buffer bytes, one region task handles on its own
/// before it splits in two.
const REGION_LEAF_ITEMS: usize = 32;
const REGION_LEAF_BYTES: usize = 32 * 1024;

/// The sum of `lens`, saturating at `usize::MAX` (no buffer is that large, so
/// a size check against the result then fails instead of wrapping).
pub(crate) fn total_len(lens: impl IntoIterator<Item = usize>) -> usize {
    lens.into_iter().fold(0usize, usize::saturating_add)
}

/// Ranges of the given lengths laid back to back from offset 0, in order:
/// where a batch call puts each packet in one shared buffer.
pub(crate) fn consecutive_ranges(lens: impl IntoIterator<Item = usize>) -> Vec<Range<usize>> {
    let lens = lens.into_iter();
    let mut ranges = Vec::with_capacity(lens.size_hint().0);
    let mut at = 0usize;
    for n in lens {
        let end = at.saturating_add(n);
        ranges.push(at..end);
        at = end;
    }
    ranges
}

/// Whether `ranges` are ascending, do not overlap and lie within `len`
/// bytes: the precondition of [`Batch::for_each_region`].
pub(crate) fn ranges_fit(ranges: &[Range<usize>], len: usize) -> bool {
    let mut at = 0;
    ranges.iter().all(|r| {
        let ok = r.start >= at && r.start <= r.end && r.end <= len;
        at = r.end;
        ok
    })
}

/// Where batch work runs.
#[derive(Debug, Default)]
pub struct Batch {
    pool: Option<rayon::ThreadPool>,
}

impl Batch {
    /// Runs on rayon's global pool (one thread per core).
    pub fn all_cores() -> Self {
        Self { pool: None }
    }

    /// Runs on a dedicated pool of `threads` threads (at least 1).
    pub fn with_threads(threads: usize) -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .expect("building a rayon pool");
        Self { pool: Some(pool) }
    }

    /// Number of worker threads this batch uses.
    pub fn threads(&self) -> usize {
        match &self.pool {
            Some(p) => p.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }

    /// `items.map(f)` in parallel, results in input order.
    pub fn map<T, R, F>(&self, items: &[T], f: F) -> Vec<R>
    where
        T: Sync,
        R: Send,
        F: Fn(&T) -> R + Sync + Send,
    {
        let run = || items.par_iter().with_min_len(MIN_CHUNK).map(&f).collect();
        match &self.pool {
            Some(p) => p.install(run),
            None => run(),
        }
    }

    /// Applies `f` to every item in place, in parallel. Items are handed
    /// out in chunks (cheap items: one packet each).
    pub fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        self.for_each_mut_chunked(items, MIN_CHUNK, f);
    }

    /// Like [`Batch::for_each_mut`] for items that are each a large job
    /// (a whole session's run of packets): every item may go to its own
    /// thread, so even a handful of jobs spreads over the cores.
    pub fn for_each_mut_coarse<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        self.for_each_mut_chunked(items, 1, f);
    }

    /// Runs `background` on this batch's threads while `foreground` runs on
    /// the calling thread (which need not be `Send`), and returns once both
    /// are done. With one thread the two run one after the other,
    /// `background` first.
    pub fn overlap<B, F, R>(&self, background: B, foreground: F) -> R
    where
        B: FnOnce() + Send,
        F: FnOnce() -> R,
    {
        if self.threads() < 2 {
            background();
            return foreground();
        }
        match &self.pool {
            Some(p) => p.in_place_scope(|s| {
                s.spawn(|_| background());
                foreground()
            }),
            None => rayon::in_place_scope(|s| {
                s.spawn(|_| background());
                foreground()
            }),
        }
    }

    /// Calls `f(i, &mut items[i], &mut out[ranges[i]])` for every item, in
    /// parallel. `ranges` (one per item) must satisfy [`ranges_fit`] for
    /// `out`; the buffer is split recursively on the worker threads, so the
    /// calling thread does no per-item work and nothing is allocated.
    ///
    /// # Panics
    /// When `items` and `ranges` differ in length, or (slicing out of bounds)
    /// when the ranges do not fit: a bug in the caller, which checks them
    /// first (debug builds check [`ranges_fit`] here too).
    pub(crate) fn for_each_region<T, F>(
        &self,
        items: &mut [T],
        ranges: &[Range<usize>],
        out: &mut [u8],
        f: F,
    ) where
        T: Send,
        F: Fn(usize, &mut T, &mut [u8]) + Sync + Send,
    {
        assert_eq!(items.len(), ranges.len(), "one range per item");
        debug_assert!(ranges_fit(ranges, out.len()), "ranges must fit the buffer");
        let mut run = || split_regions(0, items, ranges, out, 0, &f);
        match &self.pool {
            Some(p) => p.install(run),
            None => run(),
        }
    }

    fn for_each_mut_chunked<T, F>(&self, items: &mut [T], min_len: usize, f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        let mut run = || items.par_iter_mut().with_min_len(min_len).for_each(&f);
        match &self.pool {
            Some(p) => p.install(run),
            None => run(),
        }
    }
}

/// Runs `f` over `items[..]` (whose first index is `first`) and their
/// regions of `out` (which starts at offset `base` of the caller's buffer),
/// halving the work on `rayon::join` until a half is small.
fn split_regions<T, F>(
    first: usize,
    items: &mut [T],
    ranges: &[Range<usize>],
    out: &mut [u8],
    base: usize,
    f: &F,
) where
    T: Send,
    F: Fn(usize, &mut T, &mut [u8]) + Sync + Send,
{
    let n = items.len();
    if n <= 1 || (n <= REGION_LEAF_ITEMS && out.len() <= REGION_LEAF_BYTES) {
        for (k, (item, r)) in items.iter_mut().zip(ranges).enumerate() {
            f(first + k, item, &mut out[r.start - base..r.end - base]);
        }
        return;
    }
    let mid = n / 2;
    let at = ranges[mid].start;
    let (lo_out, hi_out) = out.split_at_mut(at - base);
    let (lo_items, hi_items) = items.split_at_mut(mid);
    let (lo_ranges, hi_ranges) = ranges.split_at(mid);
    rayon::join(
        || split_regions(first, lo_items, lo_ranges, lo_out, base, f),
        || split_regions(first + mid, hi_items, hi_ranges, hi_out, at, f),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let serial: Vec<u64> = items.iter().map(|x| x * x + 1).collect();
        assert_eq!(Batch::all_cores().map(&items, |x| x * x + 1), serial);
        let b = Batch::with_threads(2);
        assert_eq!(b.threads(), 2);
        assert_eq!(b.map(&items, |x| x * x + 1), serial);
        let mut m = items.clone();
        b.for_each_mut(&mut m, |x| *x = *x * *x + 1);
        assert_eq!(m, serial);
        let mut m = items.clone();
        b.for_each_mut_coarse(&mut m, |x| *x = *x * *x + 1);
        assert_eq!(m, serial);
    }

    #[test]
    fn regions_get_their_own_bytes() {
        let lens: Vec<usize> = (0..5_000).map(|i| i % 7).collect();
        let ranges = consecutive_ranges(lens.iter().copied());
        let total = total_len(lens.iter().copied());
        assert_eq!(ranges.last().map(|r| r.end), Some(total));
        assert!(ranges_fit(&ranges, total) && !ranges_fit(&ranges, total - 1));
        let mut out = vec![0u8; total];
        let mut seen = vec![0usize; lens.len()];
        Batch::with_threads(2).for_each_region(&mut seen, &ranges, &mut out, |i, s, region| {
            *s = region.len();
            region.fill(i as u8);
        });
        assert_eq!(seen, lens);
        for (i, r) in ranges.iter().enumerate() {
            assert!(out[r.clone()].iter().all(|&b| b == i as u8));
        }
        assert_eq!(total_len([usize::MAX, 1]), usize::MAX);
        assert!(!ranges_fit(&[2..3, 1..2], 10));
    }
}
