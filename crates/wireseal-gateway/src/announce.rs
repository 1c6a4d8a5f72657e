//! Where events go: every listener, then the log (rate-limited for the
//! kinds that can come in floods).

use crate::event::Event;
use crate::log::Log;

/// A listener of events.
pub type Listener = Box<dyn Fn(&Event) + Send + Sync>;

/// The listeners and the log, together: one way to report an event.
pub(crate) struct Announcer {
    pub(crate) listeners: Vec<Listener>,
    pub(crate) log: Log,
}

impl Announcer {
    /// Sends `e` to the listeners, then to the log: the kinds a hostile
    /// feed or a failing store can repeat go through the log's rate limit,
    /// the others are always written.
    pub(crate) fn emit(&mut self, e: Event) {
        self.tell_listeners(&e);
        match e {
            Event::StoreUnavailable { .. }
            | Event::StoreRejected { .. }
            | Event::KeyConflict { .. } => self.log.line(e.as_str(), &e.to_string()),
            _ => self.log.always(&e.to_string()),
        }
    }

    /// Sends `e` to the listeners only (the caller logs its own line).
    pub(crate) fn tell_listeners(&self, e: &Event) {
        for l in &self.listeners {
            l(e);
        }
    }
}
