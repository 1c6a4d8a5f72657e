//! [`StoreWriter`]: the bounded buffer between the gateway's MQTT loop and
//! the store. The loop pushes each message (its record, or `None` when it
//! has nothing to store, with the token that acknowledges it) while
//! [`StoreWriter::has_room`]; a thread of its own collects batches (up to
//! [`WriterConfig::max_batch`] records, or what came within
//! [`WriterConfig::linger`] of the first), writes them, and reports
//! [`Event::Committed`] with the tokens of the batch in the order they were
//! pushed: those messages may now be acknowledged. While the database is
//! unavailable the thread retries the same batch with a doubling wait and
//! reports [`Event::Unavailable`]; the buffer fills, `has_room` turns false,
//! and the loop stops reading from the broker until commits free room.
//!
//! With [`WriterConfig::retention`], the same thread removes packets older
//! than the window in small batches between the writes (at most a tenth of
//! its time while records arrive) and while idle, so pruning never holds
//! the writes back for long; each removal is reported as [`Event::Pruned`].
//!
//! Events go to a callback the thread calls ([`StoreWriter::start`]).

use super::{Committed, Entry, Store, StoreError};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How old packets are removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Packets first seen longer ago than this are removed.
    pub window: Duration,
    /// Packets removed per transaction at most.
    pub batch: usize,
    /// How long to wait after a removal that found nothing more to do.
    pub idle: Duration,
}

impl Retention {
    /// Keeps `window`: batches of 500 packets, checked every 10 s once
    /// caught up.
    pub fn keep(window: Duration) -> Self {
        Self {
            window,
            batch: 500,
            idle: Duration::from_secs(10),
        }
    }
}

/// How the writer batches and retries.
#[derive(Debug, Clone)]
pub struct WriterConfig {
    /// Messages held (pushed, not yet handed back committed) at most.
    pub buffer: usize,
    /// Records per transaction at most.
    pub max_batch: usize,
    /// How long a batch waits for more records after its first.
    pub linger: Duration,
    /// First wait before writing a batch again after the database was
    /// unavailable; doubled at each failure up to `retry_max`.
    pub retry_min: Duration,
    /// Longest wait between attempts.
    pub retry_max: Duration,
    /// Old packets removed as the writer goes, when set.
    pub retention: Option<Retention>,
}

impl Default for WriterConfig {
    fn default() -> Self {
        Self {
            buffer: 40_000,
            max_batch: 10_000,
            linger: Duration::from_millis(50),
            retry_min: Duration::from_millis(100),
            retry_max: Duration::from_secs(10),
            retention: None,
        }
    }
}

/// What the writer reports.
#[derive(Debug)]
pub enum Event<T> {
    /// A batch is committed: acknowledge `acks` now, in this order.
    /// Rejected records are among them (the database would refuse them
    /// again); `summary.rejected` gives their positions in `acks`.
    Committed {
        /// The tokens of the batch, in the order they were pushed.
        acks: Vec<T>,
        /// What was written.
        summary: Committed,
    },
    /// The database did not take a batch; it will be written again.
    Unavailable {
        /// Why.
        error: StoreError,
        /// Messages held unacknowledged.
        held: usize,
        /// When the next attempt is.
        retry_in: Duration,
    },
    /// The database took a batch again after being unavailable.
    Restored {
        /// How long it was unavailable.
        after: Duration,
        /// Messages still held.
        held: usize,
    },
    /// Retention removed old packets.
    Pruned {
        /// Packets removed.
        packets: u64,
        /// Receptions removed.
        receptions: u64,
    },
    /// The writer stopped on an error retrying cannot mend; the messages it
    /// held stay unacknowledged (the broker delivers them again to the next
    /// session).
    Stopped {
        /// Why.
        error: StoreError,
        /// Messages left unacknowledged.
        held: usize,
    },
    /// The writer committed everything after [`StoreWriter::close`] and ended.
    Closed,
}

impl<T> fmt::Display for Event<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Committed { acks, summary } => write!(
                f,
                "stored {} messages: {} new packets, {} new receptions, {} duplicates, {} rejected",
                acks.len(),
                summary.packets,
                summary.receptions,
                summary.duplicates,
                summary.rejected.len()
            ),
            Event::Unavailable {
                error,
                held,
                retry_in,
            } => write!(
                f,
                "{error}; holding {held} messages unacknowledged, trying again in {} ms",
                retry_in.as_millis()
            ),
            Event::Restored { after, held } => write!(
                f,
                "database available again after {:.1} s; writing the {held} messages held",
                after.as_secs_f64()
            ),
            Event::Pruned {
                packets,
                receptions,
            } => write!(
                f,
                "removed {packets} packets and {receptions} receptions past retention"
            ),
            Event::Stopped { error, held } => write!(
                f,
                "store stopped: {error}; {held} messages left unacknowledged for the broker \
                 to deliver again"
            ),
            Event::Closed => f.write_str("store closed"),
        }
    }
}

/// A message [`StoreWriter::push`] did not take (the buffer is full or the
/// writer closed), given back.
#[derive(Debug, PartialEq)]
pub struct Refused<T> {
    /// Its record.
    pub record: Option<Entry>,
    /// Its token.
    pub token: T,
}

/// What the writer thread shares with its handle.
#[derive(Debug, Default)]
struct Shared {
    held: AtomicUsize,
    stopped: AtomicBool,
    abandon: AtomicBool,
}

/// The buffer, batching and retries between the MQTT loop and a [`Store`].
#[derive(Debug)]
pub struct StoreWriter<T> {
    tx: Option<mpsc::Sender<(Option<Entry>, T)>>,
    shared: Arc<Shared>,
    buffer: usize,
    thread: Option<JoinHandle<()>>,
}

/// Where the writer thread reports its events.
pub type Notify<T> = Box<dyn FnMut(Event<T>) + Send>;

impl<T: Send + 'static> StoreWriter<T> {
    /// Starts the writer's thread on `store`; it calls `notify` with each
    /// event, in order.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn start(store: Store, cfg: WriterConfig, notify: Notify<T>) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared::default());
        let buffer = cfg.buffer.max(1);
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("wireseal-store".into())
            .spawn(move || run(store, cfg, rx, notify, s))?;
        Ok(Self {
            tx: Some(tx),
            shared,
            buffer,
            thread: Some(thread),
        })
    }

    /// A writer whose events arrive on a channel (tests, simple callers).
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn with_channel(
        store: Store,
        cfg: WriterConfig,
    ) -> std::io::Result<(Self, mpsc::Receiver<Event<T>>)> {
        let (etx, erx) = mpsc::channel();
        let w = Self::start(store, cfg, Box::new(move |e| drop(etx.send(e))))?;
        Ok((w, erx))
    }

    /// Whether [`StoreWriter::push`] will take another message. When false,
    /// stop reading from the broker until an [`Event::Committed`] frees room.
    pub fn has_room(&self) -> bool {
        self.held() < self.buffer
            && self.tx.is_some()
            && !self.shared.stopped.load(Ordering::SeqCst)
    }

    /// Messages pushed and not yet handed back in an [`Event::Committed`].
    pub fn held(&self) -> usize {
        self.shared.held.load(Ordering::SeqCst)
    }

    /// Queues one message: its record (`None` when it has nothing to store,
    /// so that its acknowledgement keeps its place in the order; a
    /// Meshtastic [`Record`](super::Record) or a MeshCore
    /// [`MeshcoreRecord`](super::MeshcoreRecord) as an [`Entry`]) and the
    /// token that acknowledges it.
    ///
    /// # Errors
    /// Gives the message back when the buffer is full or the writer closed.
    pub fn push(&mut self, record: Option<Entry>, token: T) -> Result<(), Box<Refused<T>>> {
        let refused = |(record, token)| Box::new(Refused { record, token });
        if !self.has_room() {
            return Err(refused((record, token)));
        }
        let Some(tx) = &self.tx else {
            return Err(refused((record, token)));
        };
        self.shared.held.fetch_add(1, Ordering::SeqCst);
        tx.send((record, token)).map_err(|e| {
            self.shared.held.fetch_sub(1, Ordering::SeqCst);
            refused(e.0)
        })
    }

    /// Takes no more messages: the writer commits what it holds (retrying
    /// while the database is unavailable), reports it, then [`Event::Closed`].
    pub fn close(&mut self) {
        self.tx = None;
    }
}

impl<T> Drop for StoreWriter<T> {
    /// Stops retrying: what is held and not committed stays unacknowledged.
    fn drop(&mut self) {
        self.shared.abandon.store(true, Ordering::SeqCst);
        self.tx = None;
        drop(self.thread.take());
    }
}

/// The messages of one batch: the records to write, and for each its
/// message's position among the tokens.
struct Batch<T> {
    records: Vec<Entry>,
    owner: Vec<usize>,
    acks: Vec<T>,
}

impl<T> Batch<T> {
    fn add(&mut self, (record, token): (Option<Entry>, T)) {
        if let Some(r) = record {
            self.records.push(r);
            self.owner.push(self.acks.len());
        }
        self.acks.push(token);
    }
}

/// Sleeps `d` unless abandoned first (then false).
fn wait(d: Duration, abandon: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    loop {
        if abandon.load(Ordering::SeqCst) {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(20)));
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// When retention runs next, and one removal.
struct Pruner {
    retention: Retention,
    next: Instant,
}

/// While records arrive, pruning takes at most this share of the writer's
/// time (each removal is followed by a pause nine times as long).
const PRUNE_SHARE: u32 = 10;

impl Pruner {
    /// Removes one batch when due; reports it. While `busy` (records are
    /// arriving) removals take at most a tenth of the thread's time; while
    /// idle a batch that came back full makes the next one due at once. A
    /// short batch waits `idle`.
    fn maybe<T>(&mut self, store: &mut Store, notify: &mut Notify<T>, busy: bool) {
        let start = Instant::now();
        if start < self.next {
            return;
        }
        let cutoff = unix_ms().saturating_sub(self.retention.window.as_millis() as u64);
        match store.prune(cutoff, self.retention.batch) {
            Ok((packets, receptions)) => {
                let took = start.elapsed();
                let more = packets as usize >= self.retention.batch;
                self.next = match (more, busy) {
                    (false, _) => Instant::now() + self.retention.idle,
                    (true, true) => Instant::now() + took * (PRUNE_SHARE - 1),
                    (true, false) => Instant::now(),
                };
                if packets + receptions > 0 {
                    notify(Event::Pruned {
                        packets,
                        receptions,
                    });
                }
            }
            // The write path reports an unavailable database; try later.
            Err(_) => self.next = Instant::now() + self.retention.idle,
        }
    }
}

/// The writer thread: its store, settings, messages and where it reports.
struct Worker<T> {
    store: Store,
    cfg: WriterConfig,
    rx: mpsc::Receiver<(Option<Entry>, T)>,
    notify: Notify<T>,
    shared: Arc<Shared>,
    pruner: Option<Pruner>,
    /// Since when the database has been unavailable, while it is.
    down_since: Option<Instant>,
}

/// Runs the writer thread until the handle closes it (then
/// [`Event::Closed`]), drops it, or the store fails for good.
fn run<T>(
    store: Store,
    cfg: WriterConfig,
    rx: mpsc::Receiver<(Option<Entry>, T)>,
    notify: Notify<T>,
    shared: Arc<Shared>,
) {
    let pruner = cfg.retention.map(|retention| Pruner {
        retention,
        next: Instant::now(),
    });
    let mut w = Worker {
        store,
        cfg,
        rx,
        notify,
        shared,
        pruner,
        down_since: None,
    };
    loop {
        let Some(first) = w.first() else {
            return;
        };
        let (batch, closed) = w.gather(first);
        if !w.commit(batch) {
            return;
        }
        if closed {
            (w.notify)(Event::Closed);
            return;
        }
    }
}

impl<T> Worker<T> {
    fn abandoned(&self) -> bool {
        self.shared.abandon.load(Ordering::SeqCst)
    }

    fn held(&self) -> usize {
        self.shared.held.load(Ordering::SeqCst)
    }

    /// Waits for the next message, pruning while idle; `None` once the
    /// writer is closed with nothing held (reported) or dropped.
    fn first(&mut self) -> Option<(Option<Entry>, T)> {
        loop {
            match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(m) => return Some(m),
                Err(mpsc::RecvTimeoutError::Timeout) if !self.abandoned() => {
                    if let Some(p) = &mut self.pruner {
                        p.maybe(&mut self.store, &mut self.notify, false);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) if !self.abandoned() => {
                    (self.notify)(Event::Closed);
                    return None;
                }
                Err(_) => return None,
            }
        }
    }

    /// A batch from `first` and what follows within the linger, up to the
    /// batch's size; whether the writer was closed meanwhile.
    fn gather(&mut self, first: (Option<Entry>, T)) -> (Batch<T>, bool) {
        let mut b = Batch {
            records: Vec::new(),
            owner: Vec::new(),
            acks: Vec::new(),
        };
        b.add(first);
        let deadline = Instant::now() + self.cfg.linger;
        while b.acks.len() < self.cfg.max_batch.max(1) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(m) => b.add(m),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => return (b, true),
            }
        }
        (b, false)
    }

    /// Writes `batch`, retrying while the database is unavailable, and
    /// reports it committed; false when the writer was dropped meanwhile or
    /// the store failed for good (reported).
    fn commit(&mut self, batch: Batch<T>) -> bool {
        let Batch {
            records,
            owner,
            acks,
        } = batch;
        let Some(summary) = self.write(&records, &owner) else {
            return false;
        };
        if let Some(t) = self.down_since.take() {
            let held = self.held();
            (self.notify)(Event::Restored {
                after: t.elapsed(),
                held,
            });
        }
        self.shared.held.fetch_sub(acks.len(), Ordering::SeqCst);
        (self.notify)(Event::Committed { acks, summary });
        if let Some(p) = &mut self.pruner {
            p.maybe(&mut self.store, &mut self.notify, true);
        }
        true
    }

    /// Writes `records` until the database takes them (rejected records
    /// given their message's position through `owner`); `None` when the
    /// writer was dropped while waiting or the store failed for good.
    fn write(&mut self, records: &[Entry], owner: &[usize]) -> Option<Committed> {
        let mut backoff = self.cfg.retry_min;
        loop {
            if records.is_empty() {
                return Some(Committed::default());
            }
            match self.store.write_entries(records) {
                Ok(mut c) => {
                    for r in &mut c.rejected {
                        r.index = owner[r.index];
                    }
                    return Some(c);
                }
                Err(error) if error.is_retryable() => {
                    self.down_since.get_or_insert_with(Instant::now);
                    let held = self.held();
                    (self.notify)(Event::Unavailable {
                        error,
                        held,
                        retry_in: backoff,
                    });
                    if !wait(backoff, &self.shared.abandon) {
                        return None;
                    }
                    backoff = (backoff * 2).min(self.cfg.retry_max);
                }
                Err(error) => {
                    self.shared.stopped.store(true, Ordering::SeqCst);
                    let held = self.held();
                    (self.notify)(Event::Stopped { error, held });
                    return None;
                }
            }
        }
    }
}
