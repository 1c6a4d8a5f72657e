//! The one event loop: MQTT in → the library's decoder → the flood guard
//! and the packet key → every sink, in order → acknowledgement once every
//! durable sink has committed. The broker connection, back-off, statistics,
//! stopping and the acknowledgement order live here and nowhere else.

use crate::counters::Counters;
use crate::event::Event;
use crate::flood::FloodGuard;
use crate::gateway::{Gateway, Listener, RunError};
use crate::log::{safe_topic, Log};
use crate::mqtt::{self, Ack};
use crate::retry::Backoff;
use crate::sink::{Committer, Context, Handled, Item, Notice, Packet, SinkError};
use std::collections::VecDeque;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wireseal::meshtastic::decoder::{Decoded, KeyEvent};
use wireseal::meshtastic::envelope::{self, PayloadVariant};
use wireseal::meshtastic::packet_key::ContentWindow;
use wireseal::meshtastic::untrusted::{safe_level, UNUSABLE_LABEL};
use wireseal::meshtastic::{Error, NodeId};

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

fn emit(listeners: &[Listener], log: &mut Log, e: Event) {
    for l in listeners {
        l(&e);
    }
    match e {
        Event::StoreUnavailable { .. }
        | Event::StoreRejected { .. }
        | Event::KeyConflict { .. } => log.line(e.as_str(), &e.to_string()),
        _ => log.always(&e.to_string()),
    }
}

/// A message taken and not yet acknowledged: its sequence number, its
/// acknowledgement with the connection it came on, and when it was taken
/// (Unix milliseconds).
type Held = (u64, Option<(Ack, u64)>, u64);

/// Messages taken and not yet acknowledged, in the order taken, and what
/// each durable sink has not committed yet.
struct Acks {
    queue: VecDeque<Held>,
    pending: Vec<VecDeque<u64>>,
}

impl Acks {
    /// Acknowledges, in order, every message no durable sink still holds.
    fn release(&mut self, client: &mqtt::Client, connection: u64, counters: &Counters) {
        let first_held = self
            .pending
            .iter()
            .filter_map(|q| q.front())
            .min()
            .copied()
            .unwrap_or(u64::MAX);
        while self.queue.front().is_some_and(|&(s, _, _)| s < first_held) {
            let Some((_, ack, _)) = self.queue.pop_front() else {
                break;
            };
            if let Some((a, on)) = ack {
                if on != connection {
                    counters.acks_for_closed_connection.bump();
                } else if client.ack(a) {
                    counters.acks.bump();
                } else {
                    counters.ack_dropped.bump();
                }
            }
        }
        counters.held.set(self.queue.len() as u64);
        counters
            .oldest_held_ms
            .set(self.queue.front().map_or(0, |&(_, _, t)| t.max(1)));
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

/// Runs `gw` until it stops; see [`Gateway::run`].
pub(crate) async fn run(gw: Gateway) -> Result<serde_json::Value, RunError> {
    let Gateway {
        prepared: mut p,
        mut sinks,
        listeners,
        counters,
        stop,
        mut log,
        ..
    } = gw;
    let persistent = p.mqtt.persistent.is_some();
    let mut client = mqtt::Client::new(&p.mqtt);
    let (output, output_task) = match sinks.iter().any(|s| s.publishes()) {
        true => {
            let (sender, out) = mqtt::output(&p.mqtt);
            (Some(sender), Some(tokio::spawn(mqtt::drive_output(out))))
        }
        false => (None, None),
    };
    // Messages on the gateway's own output topics come back on a broad
    // subscription (`msh/#`): they are not the feed's.
    let own: Vec<String> = p
        .publish
        .iter()
        .map(|x| format!("{x}/"))
        .chain(p.firmware_root.iter().map(|r| format!("{r}/2/json/")))
        .collect();
    let broker = format!("{}:{}", p.mqtt.endpoint.host, p.mqtt.endpoint.port);
    let (ntx, mut nrx) = tokio::sync::mpsc::unbounded_channel::<Notice>();
    let durable: Vec<bool> = sinks.iter().map(|s| s.durable()).collect();
    for (i, s) in sinks.iter_mut().enumerate() {
        if durable[i] {
            s.attach(Committer::new(i, ntx.clone()));
        }
    }
    drop(ntx);
    let mut acks = Acks {
        queue: VecDeque::new(),
        pending: vec![VecDeque::new(); sinks.len()],
    };
    let mut sink_closed = vec![false; sinks.len()];
    let mut flood = FloodGuard::new(p.flood);
    let mut content = ContentWindow::new(p.dedup_window.as_millis() as u64, 65_536);
    let mut backoff = Backoff::default();
    let mut reconnect_at: Option<tokio::time::Instant> = None;
    let (mut connection, mut seq) = (0u64, 0u64);
    let start = Instant::now();
    let mut ticker = tokio::time::interval(Duration::from_millis(200));
    let mut next_stats = p.stats.map(|d| Instant::now() + d);
    let mut closing: Option<&'static str> = None;
    let mut store_down = false;
    let mut failure: Option<RunError> = None;
    loop {
        if closing.is_none() {
            let reason = if stop.requested() {
                Some("interrupted")
            } else if p.max_packets.is_some_and(|m| counters.messages.get() >= m) {
                Some("max-packets")
            } else if log.closed() {
                Some("log-closed")
            } else {
                None
            };
            if let Some(r) = reason {
                closing = Some(r);
                emit(&listeners, &mut log, Event::Stopping { reason: r });
                sinks.iter_mut().for_each(|s| s.close());
            }
        }
        if closing.is_some() {
            let all_closed = durable.iter().zip(&sink_closed).all(|(d, c)| !d || *c);
            if all_closed {
                break;
            }
            if store_down && stop.requested() && closing == Some("interrupted") {
                log.always(&format!(
                    "store: stopping with {} messages not stored and not acknowledged; the broker \
                     delivers them again to the next session with this --client-id",
                    acks.queue.len()
                ));
                sinks.iter_mut().for_each(|s| s.abandon());
                break;
            }
        }
        if let Some(t) = next_stats.filter(|t| Instant::now() >= *t) {
            log.raw(&serde_json::json!({ "stats": counters.snapshot() }).to_string());
            next_stats = p.stats.map(|d| t + d);
        }
        let can_read =
            closing.is_none() && reconnect_at.is_none() && sinks.iter().all(|s| s.has_room());
        let wake = reconnect_at.unwrap_or_else(tokio::time::Instant::now);
        tokio::select! {
            ev = client.poll(), if can_read => match ev {
                Ok(mqtt::Incoming::Connected) => {
                    connection += 1;
                    counters.connects.bump();
                    let after_attempts = backoff.succeeded();
                    emit(&listeners, &mut log, Event::Connected { broker: broker.clone(), after_attempts });
                    if let Err(e) = client.subscribe(&p.filter, persistent) {
                        failure = Some(RunError::Io(format!("subscribing: {e}")));
                        break;
                    }
                }
                Ok(mqtt::Incoming::Subscribed { granted }) => {
                    let qos = if persistent { " at QoS 1" } else { "" };
                    let filter = format!("{}{qos}", p.filter);
                    if !granted {
                        failure = Some(RunError::Subscription(filter));
                        break;
                    }
                    emit(&listeners, &mut log, Event::Subscribed { filter });
                }
                Ok(mqtt::Incoming::Publish { topic, ack, .. }) if own.iter().any(|o| topic.starts_with(o.as_str())) => {
                    counters.own_output.bump();
                    seq += 1;
                    acks.queue.push_back((seq, ack.map(|a| (a, connection)), unix_ms()));
                    acks.release(&client, connection, &counters);
                }
                Ok(mqtt::Incoming::Publish { topic, payload, ack }) => {
                    counters.messages.bump();
                    seq += 1;
                    let taken_ms = unix_ms();
                    let now = start.elapsed().as_millis() as u64;
                    let t0 = std::time::Instant::now();
                    let result = p.decoder.decode(now, &payload);
                    counters.decode_seconds.observe(t0.elapsed().as_secs_f64());
                    let decoded = match result {
                        Ok(d) => Some(d),
                        Err(e) => {
                            let kind = match e {
                                Error::TooLong { .. } => {
                                    counters.oversized.bump();
                                    "oversized"
                                }
                                _ => {
                                    counters.malformed.bump();
                                    "malformed"
                                }
                            };
                            log.line(kind, &format!("{} bytes on {}: {e}", payload.len(), safe_topic(&topic)));
                            None
                        }
                    };
                    let mut packet = None;
                    if let Some(d) = &decoded {
                        counters.record(d);
                        match d.key_event {
                            Some(KeyEvent::Conflict { node, .. }) => {
                                emit(&listeners, &mut log, Event::KeyConflict { node })
                            }
                            Some(KeyEvent::Renumbered { from, to, .. }) => {
                                emit(&listeners, &mut log, Event::Renumbered { from, to })
                            }
                            _ => {}
                        }
                        if let Some(e) = d.error.filter(|e| !matches!(e.as_str(), "pkc-not-for-us" | "replay")) {
                            log.line(e.as_str(), &format!(
                                "packet {:#010x} from {} on {}", d.id, NodeId(d.from), safe_topic(&topic)
                            ));
                        }
                        let channel_level = safe_level(&d.channel_id);
                        let gateway_level = safe_level(&d.gateway_id);
                        if channel_level.is_err() || gateway_level.is_err() {
                            counters.unusable_ids.bump();
                        }
                        // Wall-clock time: gateways and restarts agree on a
                        // content's window.
                        let wall = unix_ms();
                        let key = match d.id {
                            0 => content.key(wall, d.from, 0, d.portnum(), &body(d, &payload)),
                            id => content.key(wall, d.from, id, None, &[]),
                        };
                        if !flood.admit(now, d.from, key.as_i64()) {
                            counters.flood_refused.bump();
                        } else {
                            packet = Some(Packet {
                                decoded: d,
                                decoder: &p.decoder,
                                key,
                                channel_level: channel_level.unwrap_or(UNUSABLE_LABEL),
                                gateway_level: gateway_level.unwrap_or(UNUSABLE_LABEL),
                            });
                        }
                    }
                    let item = Item { seq, topic: &topic, rx_time_ms: taken_ms, packet };
                    let mut cx = Cx { output: output.as_ref(), counters: &counters };
                    for (i, s) in sinks.iter_mut().enumerate() {
                        match s.handle(&item, &mut cx) {
                            Ok(Handled::Pending) if durable[i] => acks.pending[i].push_back(seq),
                            Ok(_) => {}
                            Err(SinkError::Closed(_)) => closing = closing.or(Some("output-closed")),
                            Err(e) => failure = failure.or(Some(RunError::Sink(e))),
                        }
                    }
                    if failure.is_some() {
                        break;
                    }
                    acks.queue.push_back((seq, ack.map(|a| (a, connection)), taken_ms));
                    acks.release(&client, connection, &counters);
                }
                Ok(mqtt::Incoming::Other | mqtt::Incoming::Disconnected) => {}
                Err(reason) => {
                    counters.connection_errors.bump();
                    let f = backoff.failed();
                    if p.max_retries.is_some_and(|m| f.attempt >= m) {
                        failure = Some(RunError::GaveUp { broker: broker.clone(), attempts: f.attempt, reason });
                        break;
                    }
                    if f.notice {
                        emit(&listeners, &mut log, Event::ConnectionFailed {
                            broker: broker.clone(),
                            reason,
                            attempt: f.attempt,
                            limit: p.max_retries,
                            retry_in: f.wait,
                            failing_for: f.failing_for,
                        });
                    } else {
                        log.line("connection", &format!("{reason}; retrying in {} ms", f.wait.as_millis()));
                        for l in &listeners {
                            l(&Event::ConnectionFailed {
                                broker: broker.clone(),
                                reason: reason.clone(),
                                attempt: f.attempt,
                                limit: p.max_retries,
                                retry_in: f.wait,
                                failing_for: f.failing_for,
                            });
                        }
                    }
                    reconnect_at = Some(tokio::time::Instant::now() + f.wait);
                }
            },
            n = nrx.recv(), if !durable.is_empty() && durable.iter().any(|d| *d) => match n {
                Some(Notice::Committed { sink, upto }) => {
                    let q = &mut acks.pending[sink];
                    while q.front().is_some_and(|&s| s <= upto) {
                        q.pop_front();
                    }
                    acks.release(&client, connection, &counters);
                }
                Some(Notice::Closed { sink }) => sink_closed[sink] = true,
                Some(Notice::Failed { error, .. }) => {
                    failure = Some(RunError::Sink(error));
                    break;
                }
                Some(Notice::Event(e)) => {
                    match &e {
                        Event::StoreUnavailable { .. } => store_down = true,
                        Event::StoreRestored { .. } => store_down = false,
                        _ => {}
                    }
                    emit(&listeners, &mut log, e);
                }
                None => sink_closed.iter_mut().for_each(|c| *c = true),
            },
            _ = tokio::time::sleep_until(wake), if reconnect_at.is_some() => reconnect_at = None,
            _ = stop.wait() => {}
            _ = ticker.tick() => {
                for s in sinks.iter_mut() {
                    if let Err(e) = s.flush() {
                        match e {
                            SinkError::Closed(_) => closing = closing.or(Some("output-closed")),
                            e => failure = failure.or(Some(RunError::Sink(e))),
                        }
                    }
                }
                if failure.is_some() {
                    break;
                }
                if let Some(r) = flood.report(start.elapsed().as_millis() as u64) {
                    emit(&listeners, &mut log, Event::FloodRefused(r));
                }
            }
        }
    }
    for s in sinks.iter_mut() {
        let _ = s.flush();
    }
    drop(sinks);
    if let (Some(o), Some(task)) = (&output, output_task) {
        // What is queued goes out before the disconnection.
        if o.disconnect() {
            if let Ok(Ok(failures)) = tokio::time::timeout(Duration::from_secs(5), task).await {
                counters.output_errors.add(failures);
            }
        }
    }
    if failure.is_none() && client.disconnect() {
        // The acknowledgements queued go out before the disconnection.
        let end = Instant::now() + Duration::from_secs(5);
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match tokio::time::timeout(left, client.poll()).await {
                Ok(Ok(mqtt::Incoming::Disconnected)) | Ok(Err(_)) | Err(_) => break,
                Ok(Ok(_)) => {}
            }
        }
    }
    let s = counters.snapshot();
    log.raw(&serde_json::json!({ "summary": s }).to_string());
    match failure {
        Some(e) => Err(e),
        None => Ok(s),
    }
}
