//! The Meshtastic MQTT gateway as a library and a service.
//!
//! A [`Gateway`] is built from [`Config`] (the command line's flags or a
//! TOML file, one set of names), checked before anything connects, and run
//! by one event loop: MQTT in, the library's sans-IO
//! [`Decoder`](wireseal::meshtastic::Decoder) (channels, PKC direct messages
//! to any of our nodes through the shared-secret cache, XEdDSA signatures,
//! the firmware's signature policy, the node table with 2.8 renumbering),
//! then the flood guard ([`flood`]) and the packet key (packets without an
//! id keyed by content, [`wireseal::meshtastic::packet_key`]), then every
//! [`Sink`](sink::Sink) in order: JSON lines, the record republished, the
//! 2.7 firmware's JSON ([`firmware_json`]), the store ([`store`]: SQLite or
//! PostgreSQL, retention), and any sink of the caller's. A message is
//! acknowledged to the broker only once every durable sink has committed it.
//!
//! MeshCore observer feeds ([`meshcore`]) ride along: a message whose topic
//! matches a `meshcore-topic` filter is read as an observer's JSON object or
//! the packet's bytes, decoded by the library's
//! [`meshcore::Decoder`](wireseal::meshcore::Decoder), and handed to the
//! same sinks as an [`Item::meshcore`](sink::Item::meshcore); the store keeps
//! it in tables of its own, in the same transactions.
//!
//! Text from the feed reaches a topic, a log line or the store's ids only
//! through the library's
//! [`safe_level`](wireseal::meshtastic::untrusted::safe_level). Memory is
//! bounded: the node table, the PKC caches, the flood guard, the content
//! window and the store's buffer each have a size.
//!
//! Embedding, with a sink of one's own:
//!
//! ```no_run
//! use wireseal_gateway::sink::{Context, Handled, Item, Sink, SinkError};
//! use wireseal_gateway::{Config, Gateway};
//!
//! struct Count(u64);
//!
//! impl Sink for Count {
//!     fn name(&self) -> &'static str {
//!         "count"
//!     }
//!     fn handle(&mut self, item: &Item<'_>, _: &mut dyn Context) -> Result<Handled, SinkError> {
//!         self.0 += u64::from(item.packet.is_some());
//!         Ok(Handled::Done)
//!     }
//! }
//!
//! let config = Config::from_toml(r#"broker = "mqtt://127.0.0.1:1883"
//! json = false"#)?;
//! let mut gw = Gateway::new(config)?;
//! gw.add_sink(Box::new(Count(0)));
//! let events = gw.events();
//! let stop = gw.stop_handle();
//! std::thread::spawn(move || {
//!     // ... wait for a `subscribed` event, publish, then:
//!     let _ = events.recv();
//!     stop.stop();
//! });
//! let summary = gw.run()?;
//! println!("{summary}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! See docs/gateway.md for every setting, the JSON fields and the figures,
//! and docs/gateway-store.md for the schema.

mod acks;
mod announce;
mod api;
pub mod config;
pub mod counters;
mod endpoint;
pub mod event;
mod event_loop;
pub mod flood;
mod gateway;
pub mod health;
pub mod http;
mod ingest;
pub mod keys;
pub mod log;
pub mod meshcore;
pub mod metrics;
pub mod mqtt;
mod mqtt_words;
mod page;
mod prepared;
pub mod retry;
mod run_error;
pub mod setup;
pub mod sink;
mod stop;
pub mod store;
pub mod tls;

pub use config::{Config, ConfigError, MqttVersion};
pub use counters::Counters;
pub use endpoint::{Endpoint, EndpointError};
pub use event::Event;
pub use gateway::Gateway;
pub use page::{TileUrl, TileUrlError};
pub use run_error::RunError;
pub use stop::{Stop, StopReason};
/// The 2.7 firmware's JSON, built in the drivers' shared crate.
pub use wireseal_io::firmware_json;
