//! What an orchestrator's probes ask: is the gateway subscribed to its
//! broker, and does its store take writes. Kept from the gateway's own
//! events ([`Health::observe`]), readable from any thread.

use crate::event::Event;
use std::sync::atomic::{AtomicBool, Ordering};

/// The gateway's state as the probes and `/metrics` see it.
#[derive(Debug, Default)]
pub struct Health {
    connected: AtomicBool,
    subscribed: AtomicBool,
    store_down: AtomicBool,
    stopping: AtomicBool,
}

impl Health {
    /// Takes in one of the gateway's events.
    pub fn observe(&self, e: &Event) {
        let set = |b: &AtomicBool, v: bool| b.store(v, Ordering::Relaxed);
        match e {
            Event::Connected { .. } => set(&self.connected, true),
            Event::Subscribed { .. } => set(&self.subscribed, true),
            Event::ConnectionFailed { .. } => {
                set(&self.connected, false);
                set(&self.subscribed, false);
            }
            Event::StoreWaiting { .. } | Event::StoreUnavailable { .. } => {
                set(&self.store_down, true)
            }
            Event::StoreOpened { .. } | Event::StoreRestored { .. } => set(&self.store_down, false),
            Event::Stopping { .. } => set(&self.stopping, true),
            _ => {}
        }
    }

    /// Whether the broker connection is up.
    pub fn connected(&self) -> bool {
        self.connected.load(Ordering::Relaxed)
    }

    /// Whether the subscription is in place.
    pub fn subscribed(&self) -> bool {
        self.subscribed.load(Ordering::Relaxed)
    }

    /// Whether the store takes writes (true without a store).
    pub fn store_writable(&self) -> bool {
        !self.store_down.load(Ordering::Relaxed)
    }

    /// Ready for traffic: subscribed, the store writable, not stopping.
    ///
    /// # Errors
    /// What is not ready, in words.
    pub fn ready(&self) -> Result<(), &'static str> {
        if self.stopping.load(Ordering::Relaxed) {
            Err("stopping")
        } else if !self.subscribed() {
            Err("not subscribed to the broker")
        } else if !self.store_writable() {
            Err("the store does not take writes")
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ready_follows_the_events() {
        let h = Health::default();
        assert!(h.ready().is_err());
        h.observe(&Event::Subscribed {
            filter: "msh/#".into(),
        });
        assert_eq!(h.ready(), Ok(()));
        h.observe(&Event::StoreUnavailable {
            reason: "x".into(),
            held: 1,
            retry_in: Duration::ZERO,
        });
        assert!(h.ready().is_err());
        h.observe(&Event::StoreRestored {
            after: Duration::ZERO,
            held: 0,
        });
        assert_eq!(h.ready(), Ok(()));
        h.observe(&Event::ConnectionFailed {
            broker: "b".into(),
            reason: "r".into(),
            attempt: 1,
            limit: None,
            retry_in: Duration::ZERO,
            failing_for: Duration::ZERO,
        });
        assert!(h.ready().is_err());
    }
}
