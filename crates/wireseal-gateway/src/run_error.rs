//! [`RunError`]: why a running gateway stopped with an error.

use crate::config::ConfigError;
use crate::sink::SinkError;
use crate::store::StoreError;

/// Why the gateway stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A setting cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `max-retries` failed attempts to reach the broker in a row.
    #[error(
        "gave up after {attempts} failed attempt(s) to reach the broker at {broker}: {reason}"
    )]
    GaveUp {
        /// `HOST:PORT`.
        broker: String,
        /// Attempts made.
        attempts: u64,
        /// The last reason, as the MQTT client gave it.
        reason: String,
    },
    /// The broker refused the subscription (nothing would ever arrive).
    #[error("the broker refused the subscription to {0}")]
    Subscription(String),
    /// The subscription could not be sent (the client's queue is gone).
    #[error("subscribing: {0}")]
    Subscribe(String),
    /// The store cannot be used (its schema, a refusal, a write error
    /// retrying cannot mend).
    #[error("store: {0}")]
    Store(#[from] StoreError),
    /// A sink cannot go on.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The runtime could not start.
    #[error("starting the runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The read side could not listen on its address.
    #[error("--http {addr}: {source}")]
    Http {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why it cannot be served.
        #[source]
        source: std::io::Error,
    },
}
