//! [`Ingest`]: the feed's state between events, with one method per event
//! the event loop hands it (a message, a connection, a subscription, a
//! connection error, a durable sink's notice, a tick). MQTT in → the
//! library's decoder → the flood guard and the packet key → every sink, in
//! order → acknowledgement once every durable sink has committed.

use crate::acks::Acks;
use crate::announce::Announcer;
use crate::counters::Counters;
use crate::event::Event;
use crate::flood::FloodGuard;
use crate::log::safe_topic;
use crate::meshcore::state::{Meshcore, Taken};
use crate::mqtt::{self, Ack};
use crate::prepared::Prepared;
use crate::retry::Backoff;
use crate::run_error::RunError;
use crate::sink::{Context, Handled, Item, MeshcorePacket, Notice, Packet, Sink, SinkError};
use crate::stop::{Stop, StopReason};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use wireseal::meshtastic::decoder::{Decoded, KeyEvent, Undecoded};
use wireseal::meshtastic::envelope::{self, PayloadVariant};
use wireseal::meshtastic::packet_key::{ContentWindow, PacketKey};
use wireseal::meshtastic::untrusted::{safe_level, UNUSABLE_LABEL};
use wireseal::meshtastic::{Error, NodeId};

/// What a step tells the loop: go on, or leave it (the reason is in
/// [`Ingest::failure`] or [`Ingest::closing`]).
pub(crate) type Step = ControlFlow<()>;

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// What a sink borrows while it handles an item.
struct Cx<'a> {
    output: Option<&'a mqtt::Sender>,
    counters: &'a Counters,
}

impl Context for Cx<'_> {
    fn publish(&mut self, topic: &str, payload: Vec<u8>) -> bool {
        self.output.is_some_and(|o| o.publish(topic, payload))
    }

    fn counters(&self) -> &Counters {
        self.counters
    }
}

/// The body that keys a packet without an id: its payload, or for one not
/// decoded its ciphertext (read again from the envelope: such packets are
/// rare).
fn body(d: &Decoded, raw: &[u8]) -> Vec<u8> {
    if let Some(p) = d.payload() {
        return p.to_vec();
    }
    match envelope::decode(raw)
        .ok()
        .and_then(|e| e.packet?.payload_variant)
    {
        Some(PayloadVariant::Encrypted(c)) => c,
        _ => Vec::new(),
    }
}

/// The undecoded outcomes a feed carries all the time (direct messages to
/// other nodes, copies from other gateways): counted, never logged.
fn routine(e: &Undecoded) -> bool {
    matches!(e, Undecoded::NotForUs | Undecoded::Replay)
}

/// What the loop runs with, and its state between events.
pub(crate) struct Ingest {
    pub(crate) p: Prepared,
    pub(crate) sinks: Vec<Box<dyn Sink>>,
    durable: Vec<bool>,
    sink_closed: Vec<bool>,
    acks: Acks,
    pub(crate) announce: Announcer,
    pub(crate) counters: Arc<Counters>,
    pub(crate) stop: Stop,
    pub(crate) output: Option<mqtt::Sender>,
    broker: String,
    flood: FloodGuard,
    content: ContentWindow,
    /// The MeshCore feeds, when the settings name any.
    meshcore: Option<Meshcore>,
    backoff: Backoff,
    /// When to connect again after a connection error.
    pub(crate) reconnect_at: Option<tokio::time::Instant>,
    connection: u64,
    seq: u64,
    start: Instant,
    next_stats: Option<Instant>,
    pub(crate) closing: Option<StopReason>,
    store_down: bool,
    pub(crate) failure: Option<RunError>,
}

impl Ingest {
    /// The state before the first event; durable sinks report commits on
    /// `committer`'s channel.
    pub(crate) fn new(
        mut p: Prepared,
        mut sinks: Vec<Box<dyn Sink>>,
        announce: Announcer,
        counters: Arc<Counters>,
        stop: Stop,
        notices: &tokio::sync::mpsc::UnboundedSender<Notice>,
        output: Option<mqtt::Sender>,
    ) -> Self {
        let durable: Vec<bool> = sinks.iter().map(|s| s.durable()).collect();
        for (i, s) in sinks.iter_mut().enumerate() {
            if durable[i] {
                s.attach(crate::sink::Committer::new(i, notices.clone()));
            }
        }
        let n = sinks.len();
        Self {
            broker: p.mqtt.endpoint.to_string(),
            flood: FloodGuard::new(p.flood),
            meshcore: p.meshcore.take().map(|m| Meshcore::new(m, p.flood)),
            content: ContentWindow::new(p.dedup_window.as_millis() as u64, 65_536),
            next_stats: p.stats.map(|d| Instant::now() + d),
            p,
            sinks,
            durable,
            sink_closed: vec![false; n],
            acks: Acks::new(n),
            announce,
            counters,
            stop,
            output,
            backoff: Backoff::default(),
            reconnect_at: None,
            connection: 0,
            seq: 0,
            start: Instant::now(),
            closing: None,
            store_down: false,
            failure: None,
        }
    }

    /// Whether any sink reports commits.
    pub(crate) fn has_durable(&self) -> bool {
        self.durable.iter().any(|d| *d)
    }

    /// Whether to read the next message now: not closing, connected, and
    /// every sink with room.
    pub(crate) fn can_read(&self) -> bool {
        self.closing.is_none()
            && self.reconnect_at.is_none()
            && self.sinks.iter().all(|s| s.has_room())
    }

    /// Before each wait: starts closing when a stop is due, writes the
    /// statistics when due; `Break` once closed (every durable sink has
    /// committed), or at once on a second interruption while the store is
    /// down.
    pub(crate) fn before_wait(&mut self) -> Step {
        if self.closing.is_none() {
            let reason = if self.stop.requested() {
                Some(StopReason::Interrupted)
            } else if (self.p.max_packets).is_some_and(|m| self.counters.messages.get() >= m) {
                Some(StopReason::MaxPackets)
            } else if self.announce.log.closed() {
                Some(StopReason::LogClosed)
            } else {
                None
            };
            if let Some(r) = reason {
                self.closing = Some(r);
                self.announce.emit(Event::Stopping { reason: r });
                self.sinks.iter_mut().for_each(|s| s.close());
            }
        }
        if self.closing.is_some() {
            let all_closed = (self.durable.iter().zip(&self.sink_closed)).all(|(d, c)| !d || *c);
            if all_closed {
                return Step::Break(());
            }
            if self.store_down
                && self.stop.requested()
                && self.closing == Some(StopReason::Interrupted)
            {
                self.announce.log.always(&format!(
                    "store: stopping with {} messages not stored and not acknowledged; the broker \
                     delivers them again to the next session with this --client-id",
                    self.acks.held()
                ));
                self.sinks.iter_mut().for_each(|s| s.abandon());
                return Step::Break(());
            }
        }
        if let Some(t) = self.next_stats.filter(|t| Instant::now() >= *t) {
            let line = serde_json::json!({ "stats": self.counters.snapshot() }).to_string();
            self.announce.log.raw(&line);
            self.next_stats = self.p.stats.map(|d| t + d);
        }
        Step::Continue(())
    }

    /// What the client read, dispatched to its step.
    pub(crate) fn on_incoming(
        &mut self,
        ev: Result<mqtt::Incoming, String>,
        client: &mqtt::Client,
    ) -> Step {
        match ev {
            Ok(mqtt::Incoming::Connected) => self.on_connected(client),
            Ok(mqtt::Incoming::Subscribed { granted }) => self.on_subscribed(granted),
            Ok(mqtt::Incoming::Publish { topic, ack, .. }) if self.p.is_own_output(&topic) => {
                self.counters.own_output.bump();
                self.seq += 1;
                self.acks.taken(self.seq, ack, self.connection, unix_ms());
                self.acks.release(client, self.connection, &self.counters);
                Step::Continue(())
            }
            Ok(mqtt::Incoming::Publish {
                topic,
                payload,
                ack,
            }) => self.on_publish(&topic, &payload, ack, client),
            Ok(mqtt::Incoming::Other | mqtt::Incoming::Disconnected) => Step::Continue(()),
            Err(reason) => self.on_connection_error(reason),
        }
    }

    /// (Re)connected: subscribe.
    fn on_connected(&mut self, client: &mqtt::Client) -> Step {
        self.connection += 1;
        self.counters.connects.bump();
        let after_attempts = self.backoff.succeeded();
        self.announce.emit(Event::Connected {
            broker: self.broker.clone(),
            after_attempts,
        });
        let persistent = self.p.mqtt.persistent.is_some();
        if let Err(e) = client.subscribe(&self.p.filters, persistent) {
            self.failure = Some(RunError::Subscribe(e));
            return Step::Break(());
        }
        Step::Continue(())
    }

    /// The broker answered the subscription.
    fn on_subscribed(&mut self, granted: bool) -> Step {
        let qos = if self.p.mqtt.persistent.is_some() {
            " at QoS 1"
        } else {
            ""
        };
        let filter = format!("{}{qos}", self.p.filters.join(", "));
        if !granted {
            self.failure = Some(RunError::Subscription(filter));
            return Step::Break(());
        }
        self.announce.emit(Event::Subscribed { filter });
        Step::Continue(())
    }

    /// A message of the feed: decoded (as MeshCore's when its topic is a
    /// MeshCore feed's, else as a Meshtastic envelope), keyed, guarded,
    /// handed to every sink in order, then queued for acknowledgement.
    fn on_publish(
        &mut self,
        topic: &str,
        payload: &[u8],
        ack: Option<Ack>,
        client: &mqtt::Client,
    ) -> Step {
        self.counters.messages.bump();
        self.seq += 1;
        let taken_ms = unix_ms();
        let now = self.start.elapsed().as_millis() as u64;
        let (decoded, taken) = match self.meshcore.as_ref().is_some_and(|m| m.claims(topic)) {
            true => (None, self.take_meshcore(now, topic, payload)),
            false => (self.decode(now, topic, payload), None),
        };
        let admitted = decoded.as_ref().and_then(|d| self.admit(now, d, payload));
        let packet = match (&decoded, &admitted) {
            (Some(d), Some((key, channel_level, gateway_level))) => Some(Packet {
                decoded: d,
                decoder: &self.p.decoder,
                key: *key,
                channel_level,
                gateway_level,
            }),
            _ => None,
        };
        let meshcore = match (&taken, &self.meshcore) {
            (Some(t), Some(m)) => Some(MeshcorePacket {
                decoded: &t.decoded,
                channel: m.channel_name(&t.decoded),
                heard: &t.heard,
                fresh: t.fresh,
            }),
            _ => None,
        };
        let item = Item {
            seq: self.seq,
            topic,
            rx_time_ms: taken_ms,
            packet,
            meshcore,
        };
        let mut cx = Cx {
            output: self.output.as_ref(),
            counters: &self.counters,
        };
        for (i, s) in self.sinks.iter_mut().enumerate() {
            match s.handle(&item, &mut cx) {
                Ok(Handled::Pending) if self.durable[i] => self.acks.pending(i, item.seq),
                Ok(_) => {}
                Err(SinkError::Closed(_)) => {
                    self.closing = self.closing.or(Some(StopReason::OutputClosed))
                }
                Err(e) => self.failure = self.failure.take().or(Some(RunError::Sink(e))),
            }
        }
        if self.failure.is_some() {
            return Step::Break(());
        }
        self.acks.taken(self.seq, ack, self.connection, taken_ms);
        self.acks.release(client, self.connection, &self.counters);
        Step::Continue(())
    }

    /// A MeshCore feed's message: its packet and this reception, or why
    /// there is none (counted, and logged at a limited rate).
    fn take_meshcore(&mut self, now: u64, topic: &str, payload: &[u8]) -> Option<Taken> {
        let m = self.meshcore.as_mut()?;
        let t0 = Instant::now();
        let r = m.take(now, topic, payload, &self.counters);
        (self.counters.decode_seconds).observe(t0.elapsed().as_secs_f64());
        match r {
            Ok(t) => Some(t),
            Err(d) => {
                if d.log {
                    let msg = format!(
                        "{}: {} bytes on {}",
                        d.reason,
                        payload.len(),
                        safe_topic(topic)
                    );
                    self.announce.log.line("meshcore", &msg);
                }
                None
            }
        }
    }

    /// The library's decoder on one message; what it cannot read is counted
    /// and logged (rate-limited), what it reads is counted and its key
    /// events announced.
    fn decode(&mut self, now: u64, topic: &str, payload: &[u8]) -> Option<Decoded> {
        let t0 = Instant::now();
        let result = self.p.decoder.decode(now, payload);
        let c = &self.counters;
        c.decode_seconds.observe(t0.elapsed().as_secs_f64());
        let d = match result {
            Ok(d) => d,
            Err(e) => {
                let kind = match e {
                    Error::TooLong { .. } => {
                        c.oversized.bump();
                        "oversized"
                    }
                    _ => {
                        c.malformed.bump();
                        "malformed"
                    }
                };
                let msg = format!("{} bytes on {}: {e}", payload.len(), safe_topic(topic));
                self.announce.log.line(kind, &msg);
                return None;
            }
        };
        c.record(&d);
        match d.key_event {
            Some(KeyEvent::Conflict { node, .. }) => {
                self.announce.emit(Event::KeyConflict { node })
            }
            Some(KeyEvent::Renumbered { from, to, .. }) => {
                self.announce.emit(Event::Renumbered { from, to })
            }
            _ => {}
        }
        if let Some(e) = d.error.filter(|e| !routine(e)) {
            let msg = format!(
                "packet {:#010x} from {} on {}",
                d.id,
                NodeId(d.from),
                safe_topic(topic)
            );
            self.announce.log.line(e.as_str(), &msg);
        }
        Some(d)
    }

    /// The packet's key and topic levels, or `None` when the flood guard
    /// refuses its sender.
    fn admit<'d>(
        &mut self,
        now: u64,
        d: &'d Decoded,
        payload: &[u8],
    ) -> Option<(PacketKey, &'d str, &'d str)> {
        let channel_level = safe_level(&d.channel_id);
        let gateway_level = safe_level(&d.gateway_id);
        if channel_level.is_err() || gateway_level.is_err() {
            self.counters.unusable_ids.bump();
        }
        // Wall-clock time: gateways and restarts agree on a content's window.
        let wall = unix_ms();
        let key = match d.id {
            0 => (self.content).key(wall, d.from, 0, d.portnum(), &body(d, payload)),
            id => self.content.key(wall, d.from, id, None, &[]),
        };
        if !self.flood.admit(now, d.from, key.as_i64()) {
            self.counters.flood_refused.bump();
            return None;
        }
        Some((
            key,
            channel_level.unwrap_or(UNUSABLE_LABEL),
            gateway_level.unwrap_or(UNUSABLE_LABEL),
        ))
    }

    /// A connection error: back off, or give up after `max-retries`.
    fn on_connection_error(&mut self, reason: String) -> Step {
        self.counters.connection_errors.bump();
        let f = self.backoff.failed();
        if self.p.max_retries.is_some_and(|m| f.attempt >= m) {
            self.failure = Some(RunError::GaveUp {
                broker: self.broker.clone(),
                attempts: f.attempt,
                reason,
            });
            return Step::Break(());
        }
        let event = Event::ConnectionFailed {
            broker: self.broker.clone(),
            reason: reason.clone(),
            attempt: f.attempt,
            limit: self.p.max_retries,
            retry_in: f.wait,
            failing_for: f.failing_for,
        };
        if f.notice {
            self.announce.emit(event);
        } else {
            let msg = format!("{reason}; retrying in {} ms", f.wait.as_millis());
            self.announce.log.line("connection", &msg);
            self.announce.tell_listeners(&event);
        }
        self.reconnect_at = Some(tokio::time::Instant::now() + f.wait);
        Step::Continue(())
    }

    /// A durable sink's notice: a commit, its close, its failure, or an
    /// event it reports.
    pub(crate) fn on_notice(&mut self, n: Option<Notice>, client: &mqtt::Client) -> Step {
        match n {
            Some(Notice::Committed { sink, upto }) => {
                self.acks.committed(sink, upto);
                self.acks.release(client, self.connection, &self.counters);
            }
            Some(Notice::Closed { sink }) => self.sink_closed[sink] = true,
            Some(Notice::Failed { error, .. }) => {
                self.failure = Some(RunError::Sink(error));
                return Step::Break(());
            }
            Some(Notice::Event(e)) => {
                match &e {
                    Event::StoreUnavailable { .. } => self.store_down = true,
                    Event::StoreRestored { .. } => self.store_down = false,
                    _ => {}
                }
                self.announce.emit(e);
            }
            None => self.sink_closed.iter_mut().for_each(|c| *c = true),
        }
        Step::Continue(())
    }

    /// Every 200 ms: the sinks flush, the flood guard reports.
    pub(crate) fn on_tick(&mut self) -> Step {
        for s in self.sinks.iter_mut() {
            match s.flush() {
                Ok(()) => {}
                Err(SinkError::Closed(_)) => {
                    self.closing = self.closing.or(Some(StopReason::OutputClosed))
                }
                Err(e) => self.failure = self.failure.take().or(Some(RunError::Sink(e))),
            }
        }
        if self.failure.is_some() {
            return Step::Break(());
        }
        let now = self.start.elapsed().as_millis() as u64;
        if let Some(r) = self.flood.report(now) {
            self.announce.emit(Event::FloodRefused(r));
        }
        if let Some(m) = &mut self.meshcore {
            m.tick(now);
        }
        Step::Continue(())
    }
}
