//! The listener's log on stderr: one line per event up to a budget per
//! interval, and at the end of every interval in which lines were left out,
//! one line with the count of each kind of event. A client reconnecting in
//! a loop therefore costs at most `budget + 1` lines per interval.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Lines printed per interval before further ones are only counted.
pub(super) const LINES_PER_INTERVAL: u32 = 20;

/// What happened, for the counts in the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Event {
    /// A handshake completed (the line carries the session id).
    Session,
    /// A served connection ended cleanly.
    Closed,
    /// A connection ended with an error (handshake deadline included).
    Failed,
    /// A connection was turned away: `--max-connections` reached.
    RefusedFull,
    /// A connection was turned away: `--max-per-ip` reached for its address.
    RefusedPerIp,
    /// `accept` itself failed (out of file descriptors and the like).
    AcceptFailed,
}

impl Event {
    const ALL: [Event; 6] = [
        Event::Session,
        Event::Closed,
        Event::Failed,
        Event::RefusedFull,
        Event::RefusedPerIp,
        Event::AcceptFailed,
    ];

    fn index(self) -> usize {
        self as usize
    }

    fn label(self) -> &'static str {
        match self {
            Event::Session => "sessions established",
            Event::Closed => "closed",
            Event::Failed => "errors",
            Event::RefusedFull => "refused (listener full)",
            Event::RefusedPerIp => "refused (per-IP limit)",
            Event::AcceptFailed => "accept failures",
        }
    }
}

/// The budget and the counts of one interval, driven by the caller's clock.
#[derive(Debug)]
pub(super) struct RateLimit {
    interval: Duration,
    budget: u32,
    start: Instant,
    printed: u32,
    left_out: u64,
    counts: [u64; Event::ALL.len()],
}

impl RateLimit {
    /// A limit of `budget` lines per `interval`, the first interval starting
    /// at `now`.
    pub(super) fn new(now: Instant, interval: Duration, budget: u32) -> Self {
        Self {
            interval,
            budget,
            start: now,
            printed: 0,
            left_out: 0,
            counts: [0; Event::ALL.len()],
        }
    }

    /// Counts one event; true when its line is to be printed.
    pub(super) fn record(&mut self, e: Event) -> bool {
        self.counts[e.index()] += 1;
        if self.printed < self.budget {
            self.printed += 1;
            true
        } else {
            self.left_out += 1;
            false
        }
    }

    /// Once the interval that began at the last roll has passed: starts a
    /// new one and returns the summary of the old one if it left lines out.
    pub(super) fn roll(&mut self, now: Instant) -> Option<String> {
        let elapsed = now.saturating_duration_since(self.start);
        if elapsed < self.interval {
            return None;
        }
        let summary = (self.left_out > 0).then(|| {
            let counts: Vec<String> = Event::ALL
                .iter()
                .filter(|e| self.counts[e.index()] > 0)
                .map(|e| format!("{} {}", self.counts[e.index()], e.label()))
                .collect();
            format!(
                "last {}s: {}; {} lines left out",
                elapsed.as_secs(),
                counts.join(", "),
                self.left_out
            )
        });
        *self = Self::new(now, self.interval, self.budget);
        summary
    }
}

/// The listener's shared log.
#[derive(Debug)]
pub(super) struct ListenerLog {
    limit: Mutex<RateLimit>,
}

impl ListenerLog {
    /// A log printing at most [`LINES_PER_INTERVAL`] event lines per
    /// `interval`.
    pub(super) fn new(interval: Duration) -> Self {
        Self {
            limit: Mutex::new(RateLimit::new(Instant::now(), interval, LINES_PER_INTERVAL)),
        }
    }

    /// Counts `e` and prints `line()` unless this interval's budget is spent.
    pub(super) fn event(&self, e: Event, line: impl FnOnce() -> String) {
        let print = self.limit.lock().map(|mut l| l.record(e)).unwrap_or(true);
        if print {
            eprintln!("wireseal: {}", line());
        }
    }

    /// Prints the summary of the interval that has just ended, if it left
    /// lines out.
    pub(super) fn roll(&self) {
        let summary = self
            .limit
            .lock()
            .ok()
            .and_then(|mut l| l.roll(Instant::now()));
        if let Some(s) = summary {
            eprintln!("wireseal: {s}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_then_one_summary_per_interval() {
        let t0 = Instant::now();
        let mut l = RateLimit::new(t0, Duration::from_secs(10), 3);
        let printed = (0..1000)
            .filter(|i| {
                l.record(if i % 2 == 0 {
                    Event::RefusedFull
                } else {
                    Event::Session
                })
            })
            .count();
        assert_eq!(printed, 3);
        assert_eq!(l.roll(t0 + Duration::from_secs(9)), None, "too early");
        let s = l.roll(t0 + Duration::from_secs(10)).unwrap();
        assert_eq!(
            s,
            "last 10s: 500 sessions established, 500 refused (listener full); 997 lines left out"
        );
        // A fresh budget, and no summary for an interval that printed all.
        assert!(l.record(Event::Closed));
        assert_eq!(l.roll(t0 + Duration::from_secs(20)), None);
    }
}
