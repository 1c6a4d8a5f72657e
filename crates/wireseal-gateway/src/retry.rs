//! Waiting between attempts to reach a server: 100 ms doubling to 10 s, the
//! attempts counted, the wait said in an event at the first failure and
//! then once a minute. One rule for the broker and the store.

use std::time::{Duration, Instant};

/// How often a server still unreachable is said again.
pub const NOTICE_EVERY: Duration = Duration::from_secs(60);

/// Failed attempts since the last success, and the next wait.
#[derive(Debug, Clone)]
pub struct Backoff {
    wait: Duration,
    min: Duration,
    max: Duration,
    /// Failed attempts in a row.
    pub attempts: u64,
    since: Option<Instant>,
    last_notice: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new(Duration::from_millis(100), Duration::from_secs(10))
    }
}

/// What one failure means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failure {
    /// Failed attempts in a row, this one included.
    pub attempt: u64,
    /// How long to wait before the next.
    pub wait: Duration,
    /// How long it has been failing.
    pub failing_for: Duration,
    /// Whether this failure should be said (the first, then once a minute).
    pub notice: bool,
}

impl Backoff {
    /// Waits from `min` doubling to `max`.
    pub fn new(min: Duration, max: Duration) -> Self {
        Self {
            wait: min,
            min,
            max,
            attempts: 0,
            since: None,
            last_notice: None,
        }
    }

    /// Records a failure.
    pub fn failed(&mut self) -> Failure {
        let now = Instant::now();
        self.attempts += 1;
        let since = *self.since.get_or_insert(now);
        let notice = self
            .last_notice
            .is_none_or(|t| now.duration_since(t) >= NOTICE_EVERY);
        if notice {
            self.last_notice = Some(now);
        }
        let wait = self.wait;
        self.wait = (self.wait * 2).min(self.max);
        Failure {
            attempt: self.attempts,
            wait,
            failing_for: now.duration_since(since),
            notice,
        }
    }

    /// A success: starts over; returns the failed attempts before it.
    pub fn succeeded(&mut self) -> u64 {
        let n = self.attempts;
        *self = Self::new(self.min, self.max);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_its_cap_and_speaks_once_a_minute() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..9).map(|_| b.failed().wait.as_millis() as u64).collect();
        assert_eq!(
            waits,
            [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]
        );
        assert_eq!(b.attempts, 9);
        let mut b = Backoff::default();
        assert!(b.failed().notice);
        assert!(!b.failed().notice);
        assert_eq!(b.succeeded(), 2);
        assert!(b.failed().notice);
    }
}
