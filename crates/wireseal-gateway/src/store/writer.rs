//! [`StoreWriter`]: the bounded buffer between the gateway's MQTT loop and
//! the store. The loop pushes each message (its record, or `None` when it
//! has nothing to store, with the token that acknowledges it) while
//! [`StoreWriter::has_room`]; a thread of its own collects batches (up to
//! [`WriterConfig::max_batch`] records, or what came within
//! [`WriterConfig::linger`] of the first), writes them, and sends back
//! [`Event::Committed`] with the tokens of the batch in the order they were
//! pushed: those messages may now be acknowledged. While the database is
//! unavailable the thread retries the same batch with a doubling wait and
//! reports [`Event::Unavailable`]; the buffer fills, `has_room` turns false,
//! and the loop stops reading from the broker until commits free room.

use super::{Committed, Record, Store, StoreError};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
}

impl Default for WriterConfig {
    fn default() -> Self {
        Self {
            buffer: 40_000,
            max_batch: 10_000,
            linger: Duration::from_millis(50),
            retry_min: Duration::from_millis(100),
            retry_max: Duration::from_secs(10),
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
    /// The writer stopped on an error retrying cannot mend; the messages it
    /// held stay unacknowledged (the broker delivers them again to the next
    /// session).
    Stopped {
        /// Why.
        error: StoreError,
        /// Messages left unacknowledged.
        held: usize,
    },
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
            Event::Stopped { error, held } => write!(
                f,
                "store stopped: {error}; {held} messages left unacknowledged for the broker \
                 to deliver again"
            ),
        }
    }
}

/// A message [`StoreWriter::push`] did not take (the buffer is full or the
/// writer closed), given back.
#[derive(Debug, PartialEq)]
pub struct Refused<T> {
    /// Its record.
    pub record: Option<Record>,
    /// Its token.
    pub token: T,
}

/// The buffer, batching and retries between the MQTT loop and a [`Store`].
#[derive(Debug)]
pub struct StoreWriter<T> {
    tx: Option<mpsc::Sender<(Option<Record>, T)>>,
    events: tokio::sync::mpsc::UnboundedReceiver<Event<T>>,
    held: usize,
    buffer: usize,
    abandon: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl<T: Send + 'static> StoreWriter<T> {
    /// Starts the writer's thread on `store`.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn start(store: Store, cfg: WriterConfig) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel();
        let (etx, events) = tokio::sync::mpsc::unbounded_channel();
        let abandon = Arc::new(AtomicBool::new(false));
        let buffer = cfg.buffer.max(1);
        let a = abandon.clone();
        let thread = std::thread::Builder::new()
            .name("wireseal-store".into())
            .spawn(move || run(store, cfg, rx, etx, a))?;
        Ok(Self {
            tx: Some(tx),
            events,
            held: 0,
            buffer,
            abandon,
            thread: Some(thread),
        })
    }

    /// Whether [`StoreWriter::push`] will take another message. When false,
    /// stop reading from the broker until an [`Event::Committed`] frees room.
    pub fn has_room(&self) -> bool {
        self.held < self.buffer && self.tx.is_some()
    }

    /// Messages pushed and not yet handed back in an [`Event::Committed`].
    pub fn held(&self) -> usize {
        self.held
    }

    /// Queues one message: its record (`None` when it has nothing to store,
    /// so that its acknowledgement keeps its place in the order) and the
    /// token that acknowledges it.
    ///
    /// # Errors
    /// Gives the message back when the buffer is full or the writer closed.
    pub fn push(&mut self, record: Option<Record>, token: T) -> Result<(), Box<Refused<T>>> {
        let refused = |(record, token)| Box::new(Refused { record, token });
        if self.held >= self.buffer {
            return Err(refused((record, token)));
        }
        let Some(tx) = &self.tx else {
            return Err(refused((record, token)));
        };
        tx.send((record, token)).map_err(|e| refused(e.0))?;
        self.held += 1;
        Ok(())
    }

    fn account(&mut self, e: Event<T>) -> Event<T> {
        match e {
            Event::Committed { acks, summary } => {
                self.held -= acks.len();
                Event::Committed { acks, summary }
            }
            Event::Unavailable {
                error, retry_in, ..
            } => Event::Unavailable {
                error,
                held: self.held,
                retry_in,
            },
            Event::Restored { after, .. } => Event::Restored {
                after,
                held: self.held,
            },
            Event::Stopped { error, .. } => {
                self.tx = None;
                Event::Stopped {
                    error,
                    held: self.held,
                }
            }
        }
    }

    /// The next event; `None` once the writer has ended (after
    /// [`StoreWriter::close`] and its last commit, or after
    /// [`Event::Stopped`]). Cancel-safe: usable in `tokio::select!`.
    pub async fn next_event(&mut self) -> Option<Event<T>> {
        let e = self.events.recv().await?;
        Some(self.account(e))
    }

    /// The next event if one is waiting.
    #[cfg(test)]
    pub fn try_next_event(&mut self) -> Option<Event<T>> {
        let e = self.events.try_recv().ok()?;
        Some(self.account(e))
    }

    /// The next event, waiting on this thread (not from inside an async
    /// runtime).
    #[cfg(test)]
    pub fn blocking_next_event(&mut self) -> Option<Event<T>> {
        let e = self.events.blocking_recv()?;
        Some(self.account(e))
    }

    /// Takes no more messages: the writer commits what it holds (retrying
    /// while the database is unavailable), reports it, and ends.
    pub fn close(&mut self) {
        self.tx = None;
    }
}

impl<T> Drop for StoreWriter<T> {
    /// Stops retrying: what is held and not committed stays unacknowledged.
    fn drop(&mut self) {
        self.abandon.store(true, Ordering::SeqCst);
        self.tx = None;
        drop(self.thread.take());
    }
}

/// The messages of one batch: the records to write, and for each its
/// message's position among the tokens.
struct Batch<T> {
    records: Vec<Record>,
    owner: Vec<usize>,
    acks: Vec<T>,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Self {
            records: Vec::new(),
            owner: Vec::new(),
            acks: Vec::new(),
        }
    }
}

impl<T> Batch<T> {
    fn add(&mut self, (record, token): (Option<Record>, T)) {
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

fn run<T>(
    mut store: Store,
    cfg: WriterConfig,
    rx: mpsc::Receiver<(Option<Record>, T)>,
    events: tokio::sync::mpsc::UnboundedSender<Event<T>>,
    abandon: Arc<AtomicBool>,
) {
    let max_batch = cfg.max_batch.max(1);
    let mut down_since: Option<Instant> = None;
    let mut closed = false;
    while !closed {
        let first = loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(m) => break m,
                Err(mpsc::RecvTimeoutError::Timeout) if !abandon.load(Ordering::SeqCst) => {}
                Err(_) => return,
            }
        };
        let mut b = Batch::default();
        b.add(first);
        let deadline = Instant::now() + cfg.linger;
        while b.acks.len() < max_batch {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(m) => b.add(m),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        let Batch {
            records,
            owner,
            acks,
        } = b;
        let mut backoff = cfg.retry_min;
        let summary = loop {
            if records.is_empty() {
                break Committed::default();
            }
            match store.write_batch(&records) {
                Ok(mut c) => {
                    for r in &mut c.rejected {
                        r.index = owner[r.index];
                    }
                    break c;
                }
                Err(error) if error.is_retryable() => {
                    down_since.get_or_insert_with(Instant::now);
                    let _ = events.send(Event::Unavailable {
                        error,
                        held: 0,
                        retry_in: backoff,
                    });
                    if !wait(backoff, &abandon) {
                        return;
                    }
                    backoff = (backoff * 2).min(cfg.retry_max);
                }
                Err(error) => {
                    let _ = events.send(Event::Stopped { error, held: 0 });
                    return;
                }
            }
        };
        if let Some(t) = down_since.take() {
            let _ = events.send(Event::Restored {
                after: t.elapsed(),
                held: 0,
            });
        }
        if events.send(Event::Committed { acks, summary }).is_err() {
            return;
        }
    }
}
