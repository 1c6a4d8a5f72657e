//! Batch work across cores (rayon), with results in input order, identical to
//! doing the items one at a time.
//!
//! A [`Batch`] runs on rayon's global pool (all cores), on a pool of a fixed
//! number of threads (how benchmarks compare one core with all), or on the
//! calling thread alone ([`Batch::calling_thread`]: no pool, nothing
//! started).
//!
//! Formats that write many packets into one caller buffer, back to back,
//! share crate-internal layout helpers here: one sizes the buffer, one
//! places each packet, and one hands each item its own region of the buffer
//! in chunks, so no per-item slice list is built.
//!
//! Every parallel call cuts its items into chunks (about eight per thread,
//! at most a few dozen items each) and starts alone on the calling thread.
//! It wakes the batch's threads only when the chunks left, timed from the
//! ones done so far, take long enough alone to pay for waking them, a cost
//! each pool measures on its own fan-outs (see the `fan_out` module's
//! notes): below that break-even a call never leaves the calling thread, so
//! no batch size runs slower on all cores than on one.
//!
//! A fan-out wakes `threads - 1` of the batch's threads from the calling
//! thread (one job each in a `rayon` scope), and the calling thread takes
//! chunks beside them from a shared counter until none is left. Two other
//! ways were measured on the 2-vCPU bench machine, a VM:
//!
//! - Waking the threads one from another (`rayon::join`'s way) lets the
//!   kernel queue the woken thread on the waker's CPU, where it stays for
//!   many milliseconds: a 16,384-frame peat batch ran its two threads on
//!   one vCPU and scaled 1.2x.
//! - Waking all of the pool's threads at once while the calling thread
//!   waits (`rayon::broadcast`): in about half of the fan-outs the second
//!   thread started 0.4–0.6 ms late (queued, by the look of it, behind the
//!   first on one vCPU), after the other had taken every chunk, so batches
//!   of 4,096 cached Meshtastic PKC opens (1.7 ms on one core) scaled 1.0x
//!   at the median. With the calling thread working, one thread is woken
//!   there, it lands on the idle vCPU, and the same batches scale
//!   1.5–1.7x.
//!
//! A call returns only after every helper has run, so where no core is
//! free a helper that starts late adds its wait; that wait is part of the
//! cost the pool learns, so under such load only larger batches fan out.

mod fan_out;

use core::ops::Range;
use fan_out::{Alone, FanOutClock, FanOutCost, SmallCalls, SMALL_CHUNKS_PER_THREAD};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most items in one chunk of cheap items (small packets).
const MAX_CHUNK: usize = 16;

/// Most items, and most buffer bytes, in one chunk of buffer regions.
const MAX_REGION_ITEMS: usize = 32;
const MAX_REGION_BYTES: usize = 32 * 1024;

/// Chunks a parallel call aims for per thread (counting at least two
/// threads, so that one thread and two cut a batch alike): enough that the
/// first one, done alone to time the work, is a small share, and that the
/// threads end together.
const CHUNKS_PER_THREAD: usize = 8;

/// What a fan-out of rayon's global pool costs, shared by every
/// [`Batch::all_cores`].
static GLOBAL_FAN_OUT: FanOutCost = FanOutCost::new(fan_out::INITIAL_NS);

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
    threads: Threads,
    /// What a fan-out of a dedicated pool costs (unused otherwise).
    fan_out: FanOutCost,
    /// How this batch's small calls went (see the `fan_out` module).
    small: SmallCalls,
}

/// The threads a [`Batch`] runs on.
#[derive(Debug, Default)]
enum Threads {
    /// rayon's global pool.
    #[default]
    Global,
    /// A pool of the batch's own.
    Pool(rayon::ThreadPool),
    /// The calling thread only: no pool, nothing started.
    Caller,
}

impl Batch {
    /// Runs on rayon's global pool (one thread per core).
    pub fn all_cores() -> Self {
        Self {
            threads: Threads::Global,
            fan_out: FanOutCost::default(),
            small: SmallCalls::default(),
        }
    }

    /// Runs everything on the calling thread: no pool is built and rayon's
    /// global pool is never started. The bytes are those of any other
    /// batch; for small inputs (an AES Crypt buffer of a few KiB, a handful
    /// of packets) and for callers that manage their own threads.
    pub fn calling_thread() -> Self {
        Self {
            threads: Threads::Caller,
            fan_out: FanOutCost::default(),
            small: SmallCalls::default(),
        }
    }

    /// Runs on a dedicated pool of `threads` threads (at least 1).
    pub fn with_threads(threads: usize) -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .expect("building a rayon pool");
        Self {
            threads: Threads::Pool(pool),
            fan_out: FanOutCost::default(),
            small: SmallCalls::default(),
        }
    }

    /// Number of worker threads this batch uses.
    pub fn threads(&self) -> usize {
        match &self.threads {
            Threads::Global => rayon::current_num_threads(),
            Threads::Pool(p) => p.current_num_threads(),
            Threads::Caller => 1,
        }
    }

    crate::visibility::pub_if_hazmat! {
        /// `items.map(f)` in parallel, results in input order.
        fn map<T, R, F>(&self, items: &[T], f: F) -> Vec<R>
        where
            T: Sync,
            R: Send,
            F: Fn(&T) -> R + Sync + Send,
        {
            let size = self.chunk_len(items.len(), MAX_CHUNK);
            let chunks: Vec<Mutex<Vec<R>>> = items
                .chunks(size)
                .map(|c| Mutex::new(Vec::with_capacity(c.len())))
                .collect();
            self.run_chunks(chunks.len(), |k| {
                let start = k * size;
                let end = items.len().min(start + size);
                let done: Vec<R> = items[start..end].iter().map(&f).collect();
                *lock(&chunks[k]) = done;
            });
            let mut out = Vec::with_capacity(items.len());
            for c in chunks {
                out.append(&mut c.into_inner().unwrap_or_else(|e| e.into_inner()));
            }
            out
        }
    }

    /// Applies `f` to every item in place, in parallel: started on the
    /// calling thread, the batch's threads woken only when the items left
    /// pay for it. Items are handed out in chunks (cheap items: one packet
    /// each).
    pub fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        self.for_each_mut_chunked(items, MAX_CHUNK, f);
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

    crate::visibility::pub_if_hazmat! {
        /// Runs `background` on this batch's threads while `foreground` runs on
        /// the calling thread (which need not be `Send`), and returns once both
        /// are done. With one thread the two run one after the other,
        /// `background` first.
        fn overlap<B, F, R>(&self, background: B, foreground: F) -> R
        where
            B: FnOnce() + Send,
            F: FnOnce() -> R,
        {
            if self.threads() < 2 {
                background();
                return foreground();
            }
            match &self.threads {
                Threads::Pool(p) => p.in_place_scope(|s| {
                    s.spawn(|_| background());
                    foreground()
                }),
                Threads::Global | Threads::Caller => rayon::in_place_scope(|s| {
                    s.spawn(|_| background());
                    foreground()
                }),
            }
        }
    }

    /// Calls `f(i, &mut items[i], &mut out[ranges[i]])` for every item, in
    /// parallel. `ranges` (one per item) must satisfy [`ranges_fit`] for
    /// `out`. The calling thread cuts `items` and `out` into chunks of a few
    /// dozen items (one small list per call, nothing per item) and the
    /// threads take the chunks.
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
        let most = self.chunk_len(items.len(), MAX_REGION_ITEMS);
        self.run_each(region_chunks(items, ranges, out, most), |c| {
            for (j, (item, r)) in c.items.iter_mut().zip(c.ranges).enumerate() {
                f(
                    c.first + j,
                    item,
                    &mut c.out[r.start - c.base..r.end - c.base],
                );
            }
        });
    }

    fn for_each_mut_chunked<T, F>(&self, items: &mut [T], most: usize, f: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync + Send,
    {
        let size = self.chunk_len(items.len(), most);
        let chunks: Vec<&mut [T]> = items.chunks_mut(size).collect();
        self.run_each(chunks, |c| c.iter_mut().for_each(&f));
    }

    /// Items per run when a caller cuts `items` cheap items into runs of
    /// its own, each one unit of work ([`Batch::for_each_mut_coarse`]): as
    /// the batch's own calls cut them.
    pub(crate) fn run_len(&self, items: usize) -> usize {
        self.chunk_len(items, MAX_CHUNK)
    }

    /// Items per chunk for `items` items: about [`CHUNKS_PER_THREAD`] chunks
    /// per thread, at most `most` items each.
    fn chunk_len(&self, items: usize, most: usize) -> usize {
        let chunks = self.threads().max(2).saturating_mul(CHUNKS_PER_THREAD);
        items.div_ceil(chunks).clamp(1, most.max(1))
    }

    /// The fan-out cost of this batch's pool.
    fn fan_out_cost(&self) -> &FanOutCost {
        match &self.threads {
            Threads::Pool(_) => &self.fan_out,
            Threads::Global | Threads::Caller => &GLOBAL_FAN_OUT,
        }
    }

    /// Hands each of `chunks` (owned or mutably borrowed pieces of the work)
    /// to `work` exactly once, on the batch's threads ([`Self::run_chunks`]).
    fn run_each<C, W>(&self, chunks: Vec<C>, work: W)
    where
        C: Send,
        W: Fn(C) + Sync,
    {
        let slots: Vec<Mutex<Option<C>>> =
            chunks.into_iter().map(|c| Mutex::new(Some(c))).collect();
        self.run_chunks(slots.len(), |k| {
            if let Some(c) = lock(&slots[k]).take() {
                work(c);
            }
        });
    }

    /// Calls `work(k)` once for every `k` in `0..chunks`: alone on the
    /// calling thread while the work left is below the break-even (see the
    /// module docs; a small call whose like stayed alone runs alone
    /// untimed), then on the calling thread and `threads - 1` helpers it
    /// wakes, each taking the next chunk index until none is left.
    /// Returns when every chunk is done.
    fn run_chunks<W>(&self, chunks: usize, work: W)
    where
        W: Fn(usize) + Sync,
    {
        let threads = self.threads();
        let small = chunks <= SMALL_CHUNKS_PER_THREAD * threads;
        // Nothing to share (one chunk, or one left after the first, which
        // would only move), no one to share it with (one thread), or a small
        // call whose like stayed alone: handing the work to a worker would
        // only add a wake-up and a wait, and timing it two clock reads.
        if chunks <= 2 || threads < 2 || (small && self.small.untimed()) {
            (0..chunks).for_each(work);
            return;
        }
        let cost = self.fan_out_cost();
        let mut alone = Alone::start();
        for k in 0..chunks {
            work(k);
            if alone.spread_now(k + 1, chunks, threads, cost) {
                self.fan_out(k + 1, chunks, &work);
                if small {
                    self.small.timed(false);
                }
                return;
            }
        }
        if small {
            self.small.timed(alone.far_below());
        }
    }

    /// Runs chunks `from..chunks` on all of the batch's threads and learns
    /// what the fan-out cost: the calling thread wakes `threads - 1` helpers
    /// and takes chunks beside them (see the module docs).
    fn fan_out<W>(&self, from: usize, chunks: usize, work: &W)
    where
        W: Fn(usize) + Sync,
    {
        let next = AtomicUsize::new(from);
        let clock = FanOutClock::start();
        let take = || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= chunks {
                break;
            }
            work(k);
        };
        let helpers = self.threads() - 1;
        match &self.threads {
            Threads::Pool(p) => p.in_place_scope(|s| take_beside(s, helpers, &take, &clock)),
            Threads::Global | Threads::Caller => {
                rayon::in_place_scope(|s| take_beside(s, helpers, &take, &clock));
            }
        }
        self.fan_out_cost().learn(clock.overhead());
    }
}

/// Spawns `helpers` jobs on `s`'s pool that each run `take` (timed on
/// `clock`), and runs `take` on the calling thread beside them.
fn take_beside<'s, F: Fn() + Sync>(
    s: &rayon::Scope<'s>,
    helpers: usize,
    take: &'s F,
    clock: &'s FanOutClock,
) {
    for _ in 0..helpers {
        s.spawn(move |_| {
            clock.thread_started();
            take();
            clock.thread_finished();
        });
    }
    take();
    clock.thread_finished();
}

/// A run of consecutive items with the part of the buffer their ranges
/// cover (which starts at offset `base` of the caller's buffer).
struct RegionChunk<'a, T> {
    first: usize,
    items: &'a mut [T],
    ranges: &'a [Range<usize>],
    out: &'a mut [u8],
    base: usize,
}

/// Cuts `items` and `out` into chunks of at most `most` items and about
/// [`MAX_REGION_BYTES`] bytes (a single larger item is a chunk of its own).
fn region_chunks<'a, T>(
    mut items: &'a mut [T],
    mut ranges: &'a [Range<usize>],
    mut out: &'a mut [u8],
    most: usize,
) -> Vec<RegionChunk<'a, T>> {
    let mut chunks = Vec::new();
    let (mut first, mut base) = (0, 0);
    while !items.is_empty() {
        let start = ranges[0].start;
        let mut n = 1;
        while n < items.len() && n < most && ranges[n].end.saturating_sub(start) <= MAX_REGION_BYTES
        {
            n += 1;
        }
        // The chunk owns the bytes up to where the next chunk's first range
        // starts (or all that is left).
        let cut = ranges.get(n).map_or(out.len() + base, |r| r.start);
        let (chunk_out, rest_out) = core::mem::take(&mut out).split_at_mut(cut - base);
        let (chunk_items, rest_items) = core::mem::take(&mut items).split_at_mut(n);
        let (chunk_ranges, rest_ranges) = ranges.split_at(n);
        chunks.push(RegionChunk {
            first,
            items: chunk_items,
            ranges: chunk_ranges,
            out: chunk_out,
            base,
        });
        (items, ranges, out) = (rest_items, rest_ranges, rest_out);
        first += n;
        base = cut;
    }
    chunks
}

/// The guarded value, also after a panic elsewhere poisoned the lock (each
/// chunk is taken once; a panic is re-raised by the scope anyway).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests;
