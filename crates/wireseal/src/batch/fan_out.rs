//! When a parallel call wakes its batch's other threads: only once the work
//! left is predicted to take longer alone than waking them costs.
//!
//! A call works alone on the calling thread first and times itself after
//! its 1st, 8th, 64th, ... chunk. From the time per chunk so far it predicts
//! how long the chunks left would take alone, and how long taken in rounds by
//! all of the batch's threads; it hands them out only when that saves at
//! least twice what a fan-out costs ([`FanOutCost`]). Below that
//! break-even the call finishes alone and wakes nobody, so no batch size is
//! slower on all cores than on one (a fan-out that cannot pay for itself is
//! never started) and a large batch loses at most its first chunk to the
//! decision.
//!
//! What a fan-out costs is measured by every fan-out, on the machine and
//! under the load at hand: from the wake-up to the last helper starting,
//! plus from the last thread finishing to the caller running again (a call
//! returns only after every helper it woke has run). A smoothed value
//! is kept per thread pool: on a quiet machine with idle cores a few
//! microseconds, on a VM whose idle vCPUs sleep in the host tens, and with
//! more runnable threads than cores a scheduler slice. Calls that stay alone
//! only because of an estimate raised by such load lower it again, so the
//! pool tries a fan-out after a few dozen of them. The clock decides only
//! where work runs; the results are those of one thread.
//!
//! Timing a call costs two clock reads (about 23 ns each on the 2-vCPU
//! bench VM), a twentieth of a batch of four small BIP324 packets. So a
//! [`Batch`](super::Batch) remembers how its small calls (at most
//! [`SMALL_CHUNKS_PER_THREAD`] chunks per thread) went: once
//! [`QUIET_SMALL`] of them in a row stayed alone with a predicted saving
//! under an eighth of the break-even, the next ones run alone untimed,
//! except one in [`PROBE`] on each thread, which times itself as before; a
//! small call that spreads, or comes within that eighth, starts the count
//! again, so calls near the break-even (four Sphinx peels) keep timing
//! themselves. A `Batch` that serves both cheap and costly small calls
//! runs the costly ones alone while cheap ones dominate (never slower than
//! one thread); such callers give each kind its own `Batch`.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What a fan-out is assumed to cost before one has been measured: about
/// what waking two idle vCPUs of a cloud VM costs (measured 7–19 µs on the
/// 2-vCPU bench machine), on the high side so that a first call near the
/// break-even stays alone.
pub(super) const INITIAL_NS: u64 = 20_000;
/// Bounds of the learned cost.
const MIN_NS: u64 = 1_000;
const MAX_NS: u64 = 20_000_000;
/// Spread only when dividing the work saves `MARGIN` times the fan-out's
/// cost: measured costs vary by 4x from call to call, so the break-even is
/// kept with room to spare (at the threshold on two threads, spreading takes
/// 3/4 of the time alone with the cost as estimated, all of it with twice
/// that cost).
const MARGIN: u128 = 2;
/// A small call whose predicted saving stays below a `FAR_BELOW`th of the
/// break-even counts as one that stayed alone (see [`SmallCalls`]); one
/// nearer to it keeps the next small calls timed.
const FAR_BELOW: u128 = 8;

/// The smoothed cost of one fan-out of a thread pool, learned from the
/// fan-outs it ran.
#[derive(Debug)]
pub(crate) struct FanOutCost {
    nanos: AtomicU64,
}

impl Default for FanOutCost {
    fn default() -> Self {
        Self::new(INITIAL_NS)
    }
}

impl FanOutCost {
    /// A cost starting at `nanos` (clamped to the learned bounds).
    pub(crate) const fn new(nanos: u64) -> Self {
        let n = if nanos < MIN_NS {
            MIN_NS
        } else if nanos > MAX_NS {
            MAX_NS
        } else {
            nanos
        };
        Self {
            nanos: AtomicU64::new(n),
        }
    }

    /// The current estimate, in nanoseconds.
    pub(crate) fn nanos(&self) -> u64 {
        self.nanos.load(Ordering::Relaxed)
    }

    /// Folds in one measured fan-out: a quarter of the way toward the sample,
    /// which counts at most 4x (or at least a quarter of) the estimate, so
    /// one preempted thread cannot keep every later call alone for long and
    /// one lucky call cannot make the next ones spread too eagerly.
    pub(crate) fn learn(&self, sample: Duration) {
        let cur = self.nanos();
        let s = nanos(sample).clamp(cur / 4, cur.saturating_mul(4));
        let next = if s >= cur {
            cur + (s - cur) / 4
        } else {
            cur - (cur - s) / 4
        };
        self.nanos
            .store(next.clamp(MIN_NS, MAX_NS), Ordering::Relaxed);
    }

    /// Whether spreading work predicted to take `alone` on one thread and
    /// `spread` on all of them would save less than a [`FAR_BELOW`]th of
    /// the break-even.
    pub(crate) fn far_below(&self, alone: Duration, spread: Duration) -> bool {
        let saving = alone.saturating_sub(spread).as_nanos();
        saving.saturating_mul(FAR_BELOW) < MARGIN * u128::from(self.nanos())
    }

    /// Whether work predicted to take `alone` on one thread and `spread` on
    /// all of them should be spread: when what spreading saves, `alone -
    /// spread`, is at least [`MARGIN`] times the cost of a fan-out.
    ///
    /// An estimate above [`INITIAL_NS`] is only ever raised by slow
    /// fan-outs, and a call that stays alone measures nothing; so a call
    /// that would have spread at [`INITIAL_NS`] but stays alone lowers the
    /// estimate by a sixteenth toward it, and after a burst of load the pool
    /// tries a fan-out again within a few dozen such calls.
    pub(crate) fn worth_spreading(&self, alone: Duration, spread: Duration) -> bool {
        let saving = alone.saturating_sub(spread).as_nanos();
        let cur = self.nanos();
        if MARGIN * u128::from(cur) <= saving {
            return true;
        }
        if cur > INITIAL_NS && MARGIN * u128::from(INITIAL_NS) <= saving {
            let lower = (cur - cur / 16).max(INITIAL_NS);
            let _ = self
                .nanos
                .compare_exchange(cur, lower, Ordering::Relaxed, Ordering::Relaxed);
        }
        false
    }
}

/// Most chunks per thread of a call counted as small (see the module docs).
pub(crate) const SMALL_CHUNKS_PER_THREAD: usize = 2;
/// Small calls in a row that stayed alone before the next ones go untimed.
const QUIET_SMALL: u32 = 8;
/// One untimed small call in `PROBE` on each thread times itself anyway.
const PROBE: u32 = 16;

thread_local! {
    /// Untimed small calls on this thread, for [`PROBE`].
    static SMALL_TICK: Cell<u32> = const { Cell::new(0) };
}

/// How a batch's recent small calls went: how many in a row stayed alone
/// far below the break-even (up to [`QUIET_SMALL`]).
#[derive(Debug, Default)]
pub(crate) struct SmallCalls {
    alone: AtomicU32,
}

impl SmallCalls {
    /// Whether a small call may run alone without timing itself. Reads the
    /// shared count only, so calls from many threads do not contend.
    pub(crate) fn untimed(&self) -> bool {
        if self.alone.load(Ordering::Relaxed) < QUIET_SMALL {
            return false;
        }
        SMALL_TICK.with(|t| {
            let n = t.get().wrapping_add(1);
            t.set(n);
            n % PROBE != 0
        })
    }

    /// A timed small call ended: `quiet` when it stayed alone far below
    /// the break-even ([`Alone::far_below`]), not when it spread or came
    /// near to.
    pub(crate) fn timed(&self, quiet: bool) {
        let cur = self.alone.load(Ordering::Relaxed);
        let next = if quiet { (cur + 1).min(QUIET_SMALL) } else { 0 };
        if next != cur {
            self.alone.store(next, Ordering::Relaxed);
        }
    }
}

/// How a call that started alone is doing: it times itself at chunk counts
/// 1, 8, 64, ... (a clock read is about 25 ns, so a batch of tiny chunks
/// reads it only a few times).
pub(crate) struct Alone {
    start: Instant,
    next_check: usize,
    /// Whether every prediction so far saved less than a
    /// [`FAR_BELOW`]th of the break-even.
    far_below: bool,
}

impl Alone {
    /// Starts timing a call.
    pub(crate) fn start() -> Self {
        Self {
            start: Instant::now(),
            next_check: 1,
            far_below: true,
        }
    }

    /// Whether spreading this call never came near paying: every
    /// prediction saved less than a [`FAR_BELOW`]th of the break-even.
    pub(crate) fn far_below(&self) -> bool {
        self.far_below
    }

    /// After `done` of `total` chunks: whether the rest, predicted from the
    /// time per chunk so far, is worth spreading over `threads`. At least
    /// two chunks must be left (one would only move to another thread).
    pub(crate) fn spread_now(
        &mut self,
        done: usize,
        total: usize,
        threads: usize,
        cost: &FanOutCost,
    ) -> bool {
        if done < self.next_check {
            return false;
        }
        self.next_check = done.saturating_mul(8);
        let left = total.saturating_sub(done);
        if left < 2 {
            return false;
        }
        if threads < 2 {
            return false;
        }
        // Chunks are not split: the threads take `left` chunks in rounds.
        let per_chunk = self.start.elapsed() / u32::try_from(done).unwrap_or(u32::MAX);
        let alone = per_chunk.saturating_mul(u32::try_from(left).unwrap_or(u32::MAX));
        let rounds = left.div_ceil(threads);
        let spread = per_chunk.saturating_mul(u32::try_from(rounds).unwrap_or(u32::MAX));
        self.far_below &= cost.far_below(alone, spread);
        cost.worth_spreading(alone, spread)
    }
}

/// What one fan-out cost, as its threads saw it: the latest start and the
/// latest finish, in nanoseconds after the fan-out began.
pub(crate) struct FanOutClock {
    began: Instant,
    latest_start: AtomicU64,
    latest_finish: AtomicU64,
}

impl FanOutClock {
    /// Starts the clock as the threads are woken.
    pub(crate) fn start() -> Self {
        Self {
            began: Instant::now(),
            latest_start: AtomicU64::new(0),
            latest_finish: AtomicU64::new(0),
        }
    }

    /// A thread of the fan-out starts.
    pub(crate) fn thread_started(&self) {
        let at = nanos(self.began.elapsed());
        self.latest_start.fetch_max(at, Ordering::Relaxed);
    }

    /// A thread of the fan-out has no chunk left to take.
    pub(crate) fn thread_finished(&self) {
        let at = nanos(self.began.elapsed());
        self.latest_finish.fetch_max(at, Ordering::Relaxed);
    }

    /// Once the fan-out has returned: the time its last thread took to start
    /// plus the time from its last thread finishing until now.
    pub(crate) fn overhead(&self) -> Duration {
        let total = nanos(self.began.elapsed());
        let start = self.latest_start.load(Ordering::Relaxed);
        let finish = self.latest_finish.load(Ordering::Relaxed);
        Duration::from_nanos(start.saturating_add(total.saturating_sub(finish)))
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_small_calls_go_untimed_but_probe() {
        let s = SmallCalls::default();
        for _ in 0..QUIET_SMALL {
            assert!(!s.untimed(), "timed until {QUIET_SMALL} stayed alone");
            s.timed(true);
        }
        let untimed = (0..PROBE * 4).filter(|_| s.untimed()).count();
        assert_eq!(untimed, (PROBE as usize - 1) * 4, "one in {PROBE} is timed");
        // A probe that spreads, or nearly: every small call is timed again.
        s.timed(false);
        assert!(!s.untimed());
    }

    #[test]
    fn break_even_counts_the_fan_out() {
        let us = Duration::from_micros;
        let c = FanOutCost::new(10_000);
        // Spread when it saves at least 2 x 10 µs.
        assert!(!c.worth_spreading(us(40), Duration::from_nanos(20_001)));
        assert!(c.worth_spreading(us(40), us(20)));
        assert!(!c.worth_spreading(us(20), us(40)));
        assert_eq!(c.nanos(), 10_000, "at or below the initial cost: kept");
    }

    #[test]
    fn a_high_estimate_decays_while_calls_stay_alone() {
        let us = Duration::from_micros;
        let c = FanOutCost::new(INITIAL_NS * 8);
        // Saves 2 x the initial cost: alone at 8 x, and the estimate drops.
        assert!(!c.worth_spreading(us(80), us(40)));
        assert_eq!(c.nanos(), INITIAL_NS * 8 - INITIAL_NS / 2);
        // Too small to spread even at the initial cost: no change.
        assert!(!c.worth_spreading(us(20), us(10)));
        assert_eq!(c.nanos(), INITIAL_NS * 8 - INITIAL_NS / 2);
        let mut calls = 0;
        while !c.worth_spreading(us(80), us(40)) {
            calls += 1;
        }
        assert!(calls < 40, "{calls} calls before spreading again");
        assert_eq!(c.nanos(), INITIAL_NS);
    }

    #[test]
    fn learning_moves_a_quarter_and_bounds_outliers() {
        let c = FanOutCost::new(10_000);
        c.learn(Duration::from_micros(18));
        assert_eq!(c.nanos(), 12_000);
        // A preempted thread (10 ms) counts as 4x the estimate.
        c.learn(Duration::from_millis(10));
        assert_eq!(c.nanos(), 12_000 + 36_000 / 4);
        let c = FanOutCost::new(10_000);
        c.learn(Duration::ZERO);
        assert_eq!(c.nanos(), 10_000 - 7_500 / 4);
        let c = FanOutCost::new(0);
        assert_eq!(c.nanos(), MIN_NS);
        c.learn(Duration::ZERO);
        assert_eq!(c.nanos(), MIN_NS);
        assert_eq!(FanOutCost::new(u64::MAX).nanos(), MAX_NS);
    }

    #[test]
    fn checks_at_powers_of_eight_and_never_for_one_chunk_left() {
        let never = FanOutCost::new(MAX_NS);
        let always = FanOutCost::new(MIN_NS);
        let mut a = Alone::start();
        std::thread::sleep(Duration::from_millis(2));
        // 2 ms per chunk, 4 ms left (2 ms spread): not worth a 20 ms fan-out.
        assert!(!a.spread_now(1, 3, 2, &never));
        // Next check at 8: nothing before it.
        assert!(!a.spread_now(2, 100, 2, &always));
        assert!(!a.spread_now(7, 100, 2, &always));
        assert!(a.spread_now(8, 100, 2, &always));
        assert!(!a.spread_now(9, 100, 2, &always), "next check at 64");
        let mut b = Alone::start();
        std::thread::sleep(Duration::from_millis(2));
        assert!(!b.spread_now(1, 2, 2, &always), "one chunk left");
        let mut c = Alone::start();
        std::thread::sleep(Duration::from_millis(2));
        assert!(!c.spread_now(1, 100, 1, &always), "one thread");
        let mut d = Alone::start();
        std::thread::sleep(Duration::from_millis(2));
        assert!(d.spread_now(1, 100, 2, &always), "two threads");
    }

    #[test]
    fn fan_out_overhead_is_start_plus_tail() {
        let clock = FanOutClock::start();
        clock.thread_started();
        clock.thread_finished();
        std::thread::sleep(Duration::from_millis(2));
        let o = clock.overhead();
        assert!(o >= Duration::from_millis(2), "{o:?}");
    }
}
