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

use std::sync::atomic::{AtomicU64, Ordering};
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

/// How a call that started alone is doing: it times itself at chunk counts
/// 1, 8, 64, ... (a clock read is about 25 ns, so a batch of tiny chunks
/// reads it only a few times).
pub(crate) struct Alone {
    start: Instant,
    next_check: usize,
}

impl Alone {
    /// Starts timing a call.
    pub(crate) fn start() -> Self {
        Self {
            start: Instant::now(),
            next_check: 1,
        }
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
