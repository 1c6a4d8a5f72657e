//! What the gateway reports while it runs: to its listeners
//! ([`Gateway::on_event`](crate::Gateway::on_event), a channel for tests and
//! embedding programs) and, in words, to its log.

use crate::flood::FloodReport;
use std::time::Duration;
use wireseal::meshtastic::NodeId;

/// Something that happened.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// The store is open (schema created or migrated).
    StoreOpened {
        /// The store, without secrets.
        store: String,
    },
    /// The store cannot be reached at start; the gateway waits for it and
    /// reads nothing from the broker meanwhile.
    StoreWaiting {
        /// The store, without secrets.
        store: String,
        /// Why.
        reason: String,
        /// When it tries again.
        retry_in: Duration,
        /// How long it has been failing.
        failing_for: Duration,
    },
    /// Connected to the broker (the subscription follows).
    Connected {
        /// `HOST:PORT`.
        broker: String,
        /// Failed attempts before this one.
        after_attempts: u64,
    },
    /// The broker accepted the subscription: messages published from now on
    /// reach the gateway.
    Subscribed {
        /// The filter, with its QoS.
        filter: String,
    },
    /// The broker could not be reached or the connection was lost.
    ConnectionFailed {
        /// `HOST:PORT`.
        broker: String,
        /// Why, in words.
        reason: String,
        /// Failed attempts in a row, this one included.
        attempt: u64,
        /// The most attempts allowed (`max-retries`), if limited.
        limit: Option<u64>,
        /// When it tries again.
        retry_in: Duration,
        /// How long it has been failing.
        failing_for: Duration,
    },
    /// The store did not take a batch; it is written again later.
    StoreUnavailable {
        /// Why.
        reason: String,
        /// Messages held unacknowledged.
        held: usize,
        /// When it tries again.
        retry_in: Duration,
    },
    /// The store took a batch again after being unavailable.
    StoreRestored {
        /// How long it was unavailable.
        after: Duration,
        /// Messages still held.
        held: usize,
    },
    /// A record the store refused (counted, acknowledged).
    StoreRejected {
        /// Why.
        reason: String,
    },
    /// Retention removed old packets.
    Pruned {
        /// Packets removed.
        packets: u64,
        /// Receptions removed.
        receptions: u64,
    },
    /// The flood guard refused messages in the last interval.
    FloodRefused(FloodReport),
    /// A node announced a key other than its pinned one (kept the pinned).
    KeyConflict {
        /// The node.
        node: u32,
    },
    /// A node renumbered by firmware 2.8 was linked to its older number.
    Renumbered {
        /// The older number.
        from: u32,
        /// The `crc32` number.
        to: u32,
    },
    /// The HTTP read side listens (`--http`).
    HttpListening {
        /// The address, with the port the system chose for port 0.
        addr: std::net::SocketAddr,
    },
    /// The gateway is stopping: it commits and acknowledges what it holds.
    Stopping {
        /// Why.
        reason: crate::StopReason,
    },
}

impl Event {
    /// A short stable name: `store-opened`, `subscribed`, `connection-failed`, ...
    pub const fn as_str(&self) -> &'static str {
        match self {
            Event::StoreOpened { .. } => "store-opened",
            Event::StoreWaiting { .. } => "store-waiting",
            Event::Connected { .. } => "connected",
            Event::Subscribed { .. } => "subscribed",
            Event::ConnectionFailed { .. } => "connection-failed",
            Event::StoreUnavailable { .. } => "store-unavailable",
            Event::StoreRestored { .. } => "store-restored",
            Event::StoreRejected { .. } => "store-rejected",
            Event::Pruned { .. } => "pruned",
            Event::FloodRefused(_) => "flood-refused",
            Event::KeyConflict { .. } => "key-conflict",
            Event::Renumbered { .. } => "renumbered",
            Event::HttpListening { .. } => "http-listening",
            Event::Stopping { .. } => "stopping",
        }
    }
}

impl std::fmt::Display for Event {
    /// The event in words, as the log writes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::StoreOpened { store } => write!(f, "store: {store}"),
            Event::StoreWaiting {
                store,
                reason,
                retry_in,
                failing_for,
            } => write!(
                f,
                "store unavailable: {store}: {reason}; retrying in {} ms, failing for {} s \
                 (nothing is read from the broker meanwhile)",
                retry_in.as_millis(),
                failing_for.as_secs()
            ),
            Event::Connected {
                broker,
                after_attempts: 0,
            } => write!(f, "connected to {broker}"),
            Event::Connected {
                broker,
                after_attempts,
            } => write!(
                f,
                "connected to {broker} after {after_attempts} failed attempt(s)"
            ),
            Event::Subscribed { filter } => write!(f, "subscribed to {filter}"),
            Event::ConnectionFailed {
                broker,
                reason,
                attempt,
                limit,
                retry_in,
                failing_for,
            } => {
                let limit = match limit {
                    Some(m) => format!("attempt {attempt} of {m}"),
                    None => format!("attempt {attempt}, no retry limit (--max-retries N gives up)"),
                };
                write!(
                    f,
                    "connection: cannot reach the broker at {broker} ({reason}); retrying in {} ms, \
                     {limit}, failing for {} s",
                    retry_in.as_millis(),
                    failing_for.as_secs()
                )
            }
            Event::StoreUnavailable {
                reason,
                held,
                retry_in,
            } => write!(
                f,
                "store unavailable: {reason}; holding {held} messages unacknowledged, trying \
                 again in {} ms",
                retry_in.as_millis()
            ),
            Event::StoreRestored { after, held } => write!(
                f,
                "store: database available again after {:.1} s; writing the {held} messages held",
                after.as_secs_f64()
            ),
            Event::StoreRejected { reason } => write!(f, "a message was not stored: {reason}"),
            Event::Pruned {
                packets,
                receptions,
            } => write!(
                f,
                "retention: removed {packets} packets and {receptions} receptions"
            ),
            Event::FloodRefused(r) => {
                let top: Vec<String> = r
                    .top
                    .iter()
                    .map(|(n, c)| format!("{} ({c})", NodeId(*n)))
                    .collect();
                write!(
                    f,
                    "flood guard: refused {} messages from {} node(s) in the last {} s: {}",
                    r.refused,
                    r.nodes,
                    r.interval_ms / 1000,
                    top.join(", ")
                )
            }
            Event::KeyConflict { node } => write!(
                f,
                "node {} announced a key other than its pinned one (kept the pinned key)",
                NodeId(*node)
            ),
            Event::Renumbered { from, to } => write!(
                f,
                "node {} is {} renumbered by firmware 2.8 (the same key; linked)",
                NodeId(*to),
                NodeId(*from)
            ),
            Event::HttpListening { addr } => write!(f, "serving HTTP on http://{addr}/"),
            Event::Stopping { reason } => write!(f, "stopping ({reason})"),
        }
    }
}
