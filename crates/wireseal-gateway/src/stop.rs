//! Stopping: the handle that asks a running gateway to stop from any
//! thread, and why it stopped.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Stops a running gateway from any thread (a signal handler, a test).
#[derive(Debug, Clone, Default)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    wake: Arc<tokio::sync::Notify>,
}

impl Stop {
    /// Asks the gateway to stop: it reads no more, commits and acknowledges
    /// what it holds, disconnects and returns its counts. Asked again while
    /// the store is unavailable, it stops without waiting for it.
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Whether a stop was asked.
    pub fn requested(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    pub(crate) async fn wait(&self) {
        self.wake.notified().await;
    }
}

/// Why the gateway stopped reading (without an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// [`Stop::stop`] was called (a signal).
    Interrupted,
    /// `max-packets` messages were taken.
    MaxPackets,
    /// The log's reader went away (a closed pipe).
    LogClosed,
    /// A sink's output went away (a closed pipe).
    OutputClosed,
}

impl StopReason {
    /// Every reason, in declaration order.
    pub const ALL: [StopReason; 4] = [
        StopReason::Interrupted,
        StopReason::MaxPackets,
        StopReason::LogClosed,
        StopReason::OutputClosed,
    ];

    /// `interrupted`, `max-packets`, `log-closed` or `output-closed`: the
    /// word the log and the events use.
    pub const fn as_str(self) -> &'static str {
        match self {
            StopReason::Interrupted => "interrupted",
            StopReason::MaxPackets => "max-packets",
            StopReason::LogClosed => "log-closed",
            StopReason::OutputClosed => "output-closed",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
