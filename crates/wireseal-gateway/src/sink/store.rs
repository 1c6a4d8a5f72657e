//! The store as a durable sink: every message's record (a Meshtastic or a
//! MeshCore one, or `None`, so that its acknowledgement keeps its place)
//! pushed to the [`StoreWriter`], and
//! the writer's commits reported to the gateway, which acknowledges them.
//! Each message's time from its push to its commit is the store's lag
//! ([`Counters::store_lag_seconds`]).

use super::{Committer, Context, Handled, Item, Sink, SinkError};
use crate::event::Event;
use crate::store::meshcore::{self, Observation};
use crate::store::{ingest, Entry, Event as WriterEvent, Store, StoreWriter, WriterConfig};
use crate::Counters;
use std::sync::Arc;
use std::time::Instant;

/// What the writer hands back with each commit: the message's sequence
/// number and when it was pushed.
type Token = (u64, Instant);

/// The store sink.
pub struct StoreSink {
    waiting: Option<(Store, WriterConfig)>,
    writer: Option<StoreWriter<Token>>,
    counters: Arc<Counters>,
}

impl StoreSink {
    /// A sink writing to `store` as `cfg` says, counting into `counters`.
    pub fn new(store: Store, cfg: WriterConfig, counters: Arc<Counters>) -> Self {
        Self {
            waiting: Some((store, cfg)),
            writer: None,
            counters,
        }
    }

    /// Messages held and not yet committed.
    pub fn held(&self) -> usize {
        self.writer.as_ref().map_or(0, StoreWriter::held)
    }
}

fn notify(
    committer: Committer,
    counters: Arc<Counters>,
) -> Box<dyn FnMut(WriterEvent<Token>) + Send> {
    Box::new(move |e| match e {
        WriterEvent::Committed { acks, summary } => {
            let c = &counters;
            let now = Instant::now();
            for (_, pushed) in &acks {
                c.store_lag_seconds
                    .observe(now.saturating_duration_since(*pushed).as_secs_f64());
            }
            c.stored_packets.add(summary.packets);
            c.stored_receptions.add(summary.receptions);
            c.stored_meshcore_packets.add(summary.meshcore_packets);
            c.stored_meshcore_receptions
                .add(summary.meshcore_receptions);
            c.store_duplicates.add(summary.duplicates);
            c.store_rejected.add(summary.rejected.len() as u64);
            c.store_capped.add(summary.capped);
            for r in summary.rejected {
                committer.event(Event::StoreRejected { reason: r.reason });
            }
            if let Some(&(last, _)) = acks.last() {
                committer.committed(last);
            }
        }
        WriterEvent::Unavailable {
            error,
            held,
            retry_in,
        } => {
            counters.store_unavailable.bump();
            committer.event(Event::StoreUnavailable {
                reason: error.to_string(),
                held,
                retry_in,
            });
        }
        WriterEvent::Restored { after, held } => {
            committer.event(Event::StoreRestored { after, held });
        }
        WriterEvent::Pruned {
            packets,
            receptions,
        } => {
            counters.pruned_packets.add(packets);
            counters.pruned_receptions.add(receptions);
            committer.event(Event::Pruned {
                packets,
                receptions,
            });
        }
        WriterEvent::Stopped { error, .. } => committer.failed(SinkError::failed("store", error)),
        WriterEvent::Closed => committer.closed(),
    })
}

impl Sink for StoreSink {
    fn name(&self) -> &'static str {
        "store"
    }

    fn durable(&self) -> bool {
        true
    }

    fn attach(&mut self, committer: Committer) {
        if let Some((store, cfg)) = self.waiting.take() {
            let n = notify(committer.clone(), self.counters.clone());
            match StoreWriter::start(store, cfg, n) {
                Ok(w) => self.writer = Some(w),
                Err(e) => committer.failed(SinkError::failed(
                    "store",
                    format!("starting the store's thread: {e}"),
                )),
            }
        }
    }

    fn handle(&mut self, item: &Item<'_>, _cx: &mut dyn Context) -> Result<Handled, SinkError> {
        let record = match (&item.packet, &item.meshcore) {
            (Some(p), _) => {
                let ids = ingest::Ids {
                    channel_id: p.channel_level,
                    gateway_id: p.gateway_level,
                };
                Some(Entry::from(ingest::record(
                    p.decoder,
                    p.decoded,
                    p.key,
                    ids,
                    item.topic,
                    item.rx_time_ms,
                )))
            }
            (None, Some(m)) => {
                let o = Observation {
                    observer_id: &m.heard.observer,
                    snr: m.heard.snr,
                    rssi: m.heard.rssi,
                    direction: m.heard.direction.as_str(),
                    topic: item.topic,
                    rx_time_ms: item.rx_time_ms,
                };
                Some(meshcore::record(m.decoded, m.channel, o).into())
            }
            (None, None) => None,
        };
        let Some(w) = &mut self.writer else {
            return Err(SinkError::failed(
                "store",
                "the store's writer is not running",
            ));
        };
        w.push(record, (item.seq, Instant::now()))
            .map_err(|_| SinkError::failed("store", "the store took no more messages"))?;
        self.counters.held.set(w.held() as u64);
        Ok(Handled::Pending)
    }

    fn has_room(&self) -> bool {
        self.writer.as_ref().is_some_and(StoreWriter::has_room)
    }

    fn close(&mut self) {
        if let Some(w) = &mut self.writer {
            w.close();
        }
    }

    fn abandon(&mut self) {
        self.writer = None;
    }
}
