//! The acknowledgement order: messages taken and not yet acknowledged, and
//! what each durable sink has not committed yet. A message is acknowledged
//! once no durable sink holds it or anything taken before it.

use crate::counters::Counters;
use crate::mqtt::{self, Ack};
use std::collections::VecDeque;

/// A message taken and not yet acknowledged.
struct Held {
    /// Its position in the feed.
    seq: u64,
    /// Its acknowledgement with the connection it came on (none at QoS 0).
    ack: Option<(Ack, u64)>,
    /// When it was taken, Unix milliseconds.
    taken_ms: u64,
}

/// Messages taken and not yet acknowledged, in the order taken, and what
/// each durable sink has not committed yet.
pub(crate) struct Acks {
    queue: VecDeque<Held>,
    pending: Vec<VecDeque<u64>>,
}

impl Acks {
    /// The order of `sinks` sinks (each may be durable).
    pub(crate) fn new(sinks: usize) -> Self {
        Self {
            queue: VecDeque::new(),
            pending: vec![VecDeque::new(); sinks],
        }
    }

    /// Messages taken and not acknowledged.
    pub(crate) fn held(&self) -> usize {
        self.queue.len()
    }

    /// Sink `sink` holds message `seq` until it reports it committed.
    pub(crate) fn pending(&mut self, sink: usize, seq: u64) {
        self.pending[sink].push_back(seq);
    }

    /// Sink `sink` committed everything up to `upto`.
    pub(crate) fn committed(&mut self, sink: usize, upto: u64) {
        let q = &mut self.pending[sink];
        while q.front().is_some_and(|&s| s <= upto) {
            q.pop_front();
        }
    }

    /// Message `seq` taken at `taken_ms` on `connection`, with its
    /// acknowledgement if it has one.
    pub(crate) fn taken(&mut self, seq: u64, ack: Option<Ack>, connection: u64, taken_ms: u64) {
        self.queue.push_back(Held {
            seq,
            ack: ack.map(|a| (a, connection)),
            taken_ms,
        });
    }

    /// Acknowledges, in order, every message no durable sink still holds.
    pub(crate) fn release(&mut self, client: &mqtt::Client, connection: u64, counters: &Counters) {
        let first_held = self
            .pending
            .iter()
            .filter_map(|q| q.front())
            .min()
            .copied()
            .unwrap_or(u64::MAX);
        while self.queue.front().is_some_and(|h| h.seq < first_held) {
            let Some(h) = self.queue.pop_front() else {
                break;
            };
            if let Some((a, on)) = h.ack {
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
            .set(self.queue.front().map_or(0, |h| h.taken_ms.max(1)));
    }
}
