//! Where decoded packets go: every [`Sink`] sees every MQTT message, in
//! order. The gateway's own are JSON lines ([`JsonLines`]), the record
//! republished ([`Republish`]), the firmware's JSON ([`FirmwareJson`]) and
//! the store ([`StoreSink`]); a program embedding the gateway adds its own
//! with [`Gateway::add_sink`](crate::Gateway::add_sink).
//!
//! A sink that keeps what it is given (the store) is *durable*: it answers
//! [`Handled::Pending`] and later reports through its [`Committer`] which
//! messages it has committed. The gateway acknowledges a message to the
//! broker only once every durable sink has committed it, and with a durable
//! sink it takes the feed at QoS 1 in a persistent session, so that nothing
//! acknowledged is lost and nothing unacknowledged is forgotten.

mod firmware;
mod json_lines;
mod republish;
mod store;

pub use firmware::FirmwareJson;
pub use json_lines::JsonLines;
pub use republish::Republish;
pub use store::StoreSink;

use crate::event::Event;
use wireseal::meshtastic::decoder::{Decoded, Decoder};
use wireseal::meshtastic::packet_key::PacketKey;

/// One MQTT message as the sinks see it: a Meshtastic packet
/// ([`Item::packet`]), a MeshCore packet ([`Item::meshcore`]), or neither.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// Its position in the feed since the gateway started (from 1): what a
    /// durable sink reports committed.
    pub seq: u64,
    /// The topic it came on (untrusted: never a topic, path or markup of
    /// ours without the library's check).
    pub topic: &'a str,
    /// When the gateway took it from the broker, Unix milliseconds.
    pub rx_time_ms: u64,
    /// The Meshtastic packet; `None` for a message that is not an envelope,
    /// one the flood guard refused, or a MeshCore feed's message (such a
    /// message still takes its place in the order of acknowledgements).
    pub packet: Option<Packet<'a>>,
    /// The MeshCore packet, for a message of a MeshCore feed that carried
    /// one the library's parser and the flood guard let through.
    pub meshcore: Option<MeshcorePacket<'a>>,
}

/// A MeshCore packet and this reception of it.
#[derive(Debug, Clone, Copy)]
pub struct MeshcorePacket<'a> {
    /// The library's decoded packet.
    pub decoded: &'a wireseal::meshcore::Decoded,
    /// The name of the configured channel whose key opened it (a group
    /// packet), if it has one.
    pub channel: Option<&'a str>,
    /// This observer's reception of it.
    pub heard: &'a Heard,
    /// Whether this copy brings news of the packet: the first copy of it
    /// seen lately, or the first one a key of ours opened (a copy that
    /// does not is the same packet again, heard elsewhere).
    pub fresh: bool,
}

/// One observer's reception of a MeshCore packet, as its feed said it.
#[derive(Debug, Clone, PartialEq)]
pub struct Heard {
    /// The observer's public key as 64 lowercase hex digits, or the
    /// library's label ([`UNUSABLE_LABEL`](wireseal::meshtastic::untrusted::UNUSABLE_LABEL))
    /// when its message and topic named none.
    pub observer: String,
    /// Signal to noise ratio in dB.
    pub snr: Option<f32>,
    /// Received signal strength in dBm.
    pub rssi: Option<i32>,
    /// Received or sent by the observer.
    pub direction: crate::meshcore::feed::Direction,
}

/// A decoded packet and what the gateway made of its ids.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a> {
    /// The library's decoded packet.
    pub decoded: &'a Decoded,
    /// The decoder (channel names, the node table).
    pub decoder: &'a Decoder,
    /// What makes copies of it one packet.
    pub key: PacketKey,
    /// `channel_id` as a topic level: itself, or the library's label when it
    /// cannot be used ([`safe_level`](wireseal::meshtastic::untrusted::safe_level)).
    pub channel_level: &'a str,
    /// `gateway_id` the same way.
    pub gateway_level: &'a str,
}

/// Appends the library's record of a MeshCore packet as JSON to `out`,
/// through [`wireseal_io::record::meshcore_to_json`]: the one shape the
/// command line, Python and the gateway write.
pub fn meshcore_json(d: &wireseal::meshcore::Decoded, out: &mut Vec<u8>) {
    out.extend_from_slice(wireseal_io::record::meshcore_to_json(d).as_bytes());
}

/// What a sink did with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// Done with it (for a durable sink: committed already).
    Done,
    /// A durable sink will report its commit through its [`Committer`].
    Pending,
}

/// Why a sink cannot go on.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SinkError {
    /// Its output went away (a closed pipe): the gateway ends cleanly.
    #[error("{0}: the output was closed")]
    Closed(&'static str),
    /// It failed in a way retrying cannot mend: the gateway ends with it.
    #[error("{sink}: {source}")]
    Failed {
        /// The sink's name.
        sink: &'static str,
        /// Why.
        #[source]
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },
}

impl SinkError {
    /// Sink `sink` failed with `source` (an error, or a reason in words).
    pub fn failed(
        sink: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        SinkError::Failed {
            sink,
            source: std::sync::Arc::from(source.into()),
        }
    }
}

/// What the gateway lends a sink while it handles an item.
pub trait Context {
    /// Publishes `payload` on `topic` at QoS 0 (not retained) on the
    /// gateway's output connection; false when its queue is full or the sink
    /// did not say it [`publishes`](Sink::publishes) (the message is
    /// dropped; count it).
    fn publish(&mut self, topic: &str, payload: Vec<u8>) -> bool;

    /// The gateway's counts.
    fn counters(&self) -> &crate::Counters;
}

/// A destination for decoded packets.
pub trait Sink: Send {
    /// A short name for messages (`store`, `json-lines`, ...).
    fn name(&self) -> &'static str;

    /// Whether it keeps what it is given: then the gateway acknowledges a
    /// message only after this sink committed it.
    fn durable(&self) -> bool {
        false
    }

    /// Whether it publishes ([`Context::publish`]): then the gateway opens
    /// its output connection.
    fn publishes(&self) -> bool {
        false
    }

    /// Called once before the first item, for a durable sink to keep the
    /// handle through which it reports commits.
    fn attach(&mut self, committer: Committer) {
        let _ = committer;
    }

    /// Takes one item.
    ///
    /// # Errors
    /// [`SinkError::Closed`] when its output went away, [`SinkError::Failed`]
    /// when it cannot go on.
    fn handle(&mut self, item: &Item<'_>, cx: &mut dyn Context) -> Result<Handled, SinkError>;

    /// Whether it takes another item now (a full buffer says no: the
    /// gateway stops reading from the broker meanwhile).
    fn has_room(&self) -> bool {
        true
    }

    /// Writes out what it buffered (called a few times a second).
    ///
    /// # Errors
    /// As [`Sink::handle`].
    fn flush(&mut self) -> Result<(), SinkError> {
        Ok(())
    }

    /// No more items come: a durable sink commits what it holds, reports it,
    /// then reports [`Notice::Closed`].
    fn close(&mut self) {}

    /// The gateway stops without waiting (a second interrupt, a fatal
    /// error): what is not committed stays unacknowledged.
    fn abandon(&mut self) {}
}

/// What a durable sink tells the gateway, from any thread.
#[derive(Debug)]
pub enum Notice {
    /// Every item up to this `seq` that the sink took is committed.
    Committed {
        /// The sink's index.
        sink: usize,
        /// The last committed item.
        upto: u64,
    },
    /// The sink closed after committing everything.
    Closed {
        /// The sink's index.
        sink: usize,
    },
    /// The sink stopped for good; what it held stays unacknowledged.
    Failed {
        /// The sink's index.
        sink: usize,
        /// Why.
        error: SinkError,
    },
    /// Something the gateway reports (the store went away, came back, ...).
    Event(Event),
}

/// A durable sink's way to report commits (cloneable, usable from any
/// thread).
#[derive(Debug, Clone)]
pub struct Committer {
    sink: usize,
    tx: tokio::sync::mpsc::UnboundedSender<Notice>,
}

impl Committer {
    pub(crate) fn new(sink: usize, tx: tokio::sync::mpsc::UnboundedSender<Notice>) -> Self {
        Self { sink, tx }
    }

    /// Every item up to `upto` this sink took is committed.
    pub fn committed(&self, upto: u64) {
        let _ = self.tx.send(Notice::Committed {
            sink: self.sink,
            upto,
        });
    }

    /// The sink closed after committing everything.
    pub fn closed(&self) {
        let _ = self.tx.send(Notice::Closed { sink: self.sink });
    }

    /// The sink stopped for good.
    pub fn failed(&self, error: SinkError) {
        let _ = self.tx.send(Notice::Failed {
            sink: self.sink,
            error,
        });
    }

    /// Reports an event through the gateway (its log and its listeners).
    pub fn event(&self, e: Event) {
        let _ = self.tx.send(Notice::Event(e));
    }
}
