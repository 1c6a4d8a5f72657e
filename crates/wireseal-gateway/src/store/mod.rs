//! The gateway's store (`--store URL`): every decoded packet once, every
//! reception of it, and what packets say about their senders, in SQLite
//! (`sqlite:PATH`, compiled in) or PostgreSQL (`postgres://…`), Meshtastic's
//! and MeshCore's ([`meshcore`]) in tables of their own, written in one
//! transaction per batch. One schema for both databases ([`schema`]),
//! created and migrated by the gateway; duplicates across any number of
//! gateways are dropped by the database's keys; retention removes old
//! packets in small batches ([`Store::prune`]). See docs/gateway-store.md.
//!
//! [`Store::write_batch`] writes a batch in one transaction and reports what
//! it committed; [`StoreWriter`] owns the bounded buffer between the MQTT
//! loop and the database, batches by count and time, retries while the
//! database is away, and hands back the messages that may now be
//! acknowledged.

pub mod ingest;
pub mod meshcore;
mod plan;
mod postgres;
mod postgres_statements;
mod postgres_write;
mod record;
pub mod schema;
mod sql;
mod sqlite;
mod writer;

#[cfg(test)]
mod tests;

pub use meshcore::{
    MeshcoreNodeUpdate, MeshcorePacketRow, MeshcoreReception, MeshcoreRecord, Observation,
};
pub use postgres::PgStore;
pub use postgres_write::PgMethod;
pub use record::{NodeUpdate, Reception, Record, StoredPacket};
pub use record::{MAX_ID, MAX_NAME, MAX_PAYLOAD, MAX_TEXT, MAX_TOPIC};
pub use sqlite::{Durability, SqliteStore};
pub use writer::{Event, Retention, StoreWriter, WriterConfig};

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// What a [`StoreError`] says: the reason in words (never a password or a
/// URL's secret), and the database client's error it came from when there
/// is one ([`std::error::Error::source`] of the [`StoreError`]). It reads as
/// its text (`Deref<Target = str>`).
#[derive(Debug, Clone)]
pub struct Reason {
    text: String,
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl Reason {
    /// `text`, caused by `source`.
    pub fn caused_by(
        text: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            text: text.into(),
            source: Some(std::sync::Arc::new(source)),
        }
    }

    /// The same reason with `prefix: ` before its text, its source kept.
    pub fn prefixed(self, prefix: impl fmt::Display) -> Self {
        Self {
            text: format!("{prefix}: {}", self.text),
            source: self.source,
        }
    }
}

impl From<String> for Reason {
    fn from(text: String) -> Self {
        Self { text, source: None }
    }
}

impl From<&str> for Reason {
    fn from(text: &str) -> Self {
        text.to_owned().into()
    }
}

impl std::ops::Deref for Reason {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Reason {
    /// Reasons are equal when their texts are.
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Reason {}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a store operation did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The database cannot take the batch now: connection refused or lost,
    /// server shutting down, disk full, locked, no answer in time. Nothing of
    /// the batch is committed; write the same batch again later.
    Unavailable(Reason),
    /// The database refused the batch's data (a value or constraint it does
    /// not accept). Nothing is committed. [`Store::write_batch`] never
    /// returns this: it isolates the refused rows and reports them in
    /// [`Committed::rejected`].
    Rejected(Reason),
    /// The database's schema cannot be used: newer than this gateway's, or
    /// tables a migration cannot take over. Retrying will not help.
    Schema(Reason),
    /// The database refused us in a way waiting will not mend: a file that
    /// cannot be created or is not a database, a wrong password, a database
    /// that does not exist.
    Refused(Reason),
    /// The `--store` URL is not one the store understands.
    Url(Reason),
}

impl StoreError {
    /// Whether writing the same batch later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(m) => write!(f, "database unavailable: {m}"),
            StoreError::Rejected(m) => write!(f, "database refused the row: {m}"),
            StoreError::Schema(m) => write!(f, "database schema: {m}"),
            StoreError::Refused(m) => write!(f, "database refused: {m}"),
            StoreError::Url(m) => write!(f, "--store: {m}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let r = match self {
            StoreError::Unavailable(r)
            | StoreError::Rejected(r)
            | StoreError::Schema(r)
            | StoreError::Refused(r)
            | StoreError::Url(r) => r,
        };
        r.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// What one message gives the store: a Meshtastic record or a MeshCore one.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A Meshtastic packet's.
    Meshtastic(Record),
    /// A MeshCore packet's.
    Meshcore(MeshcoreRecord),
}

impl From<Record> for Entry {
    fn from(r: Record) -> Self {
        Entry::Meshtastic(r)
    }
}

impl From<MeshcoreRecord> for Entry {
    fn from(r: MeshcoreRecord) -> Self {
        Entry::Meshcore(r)
    }
}

/// Rows written by one transaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    packets: u64,
    receptions: u64,
    nodes: u64,
    keys: u64,
    meshcore_packets: u64,
    meshcore_receptions: u64,
    meshcore_nodes: u64,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.packets += o.packets;
        self.receptions += o.receptions;
        self.nodes += o.nodes;
        self.keys += o.keys;
        self.meshcore_packets += o.meshcore_packets;
        self.meshcore_receptions += o.meshcore_receptions;
        self.meshcore_nodes += o.meshcore_nodes;
    }
}

/// One batch's checked rows: its Meshtastic records and its MeshCore ones.
#[derive(Clone, Copy)]
struct Rows<'r, 'a> {
    meshtastic: &'r [record::Clean<'a>],
    meshcore: &'r [meshcore::Clean<'a>],
}

impl Rows<'_, '_> {
    fn len(&self) -> usize {
        self.meshtastic.len() + self.meshcore.len()
    }

    /// The batch position of its only row.
    fn only_index(&self) -> Option<usize> {
        match (self.meshtastic, self.meshcore) {
            ([c], []) => Some(c.index),
            ([], [c]) => Some(c.index),
            _ => None,
        }
    }
}

/// A record the store did not keep, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Its position in the batch given to [`Store::write_batch`].
    pub index: usize,
    /// Why: the check it failed or the database's refusal.
    pub reason: String,
}

/// What [`Store::write_batch`] committed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Committed {
    /// Records in the batch.
    pub records: usize,
    /// Packet rows inserted, or completed with the first decoded content.
    pub packets: u64,
    /// Reception rows inserted.
    pub receptions: u64,
    /// MeshCore packet rows inserted, or completed with opened content.
    pub meshcore_packets: u64,
    /// MeshCore reception rows inserted.
    pub meshcore_receptions: u64,
    /// MeshCore node rows inserted or updated.
    pub meshcore_nodes: u64,
    /// Records whose reception was already stored (dropped as duplicates).
    pub duplicates: u64,
    /// Node rows inserted or updated.
    pub nodes: u64,
    /// (node, key) pairs seen for the first time.
    pub keys: u64,
    /// Fields shortened to their cap or rewritten to valid text.
    pub capped: u64,
    /// Records not stored, in batch order.
    pub rejected: Vec<Rejected>,
}

/// Where the store is, from `--store URL`.
#[derive(Clone)]
pub enum StoreUrl {
    /// `sqlite:PATH`, `sqlite://PATH` or a bare path: a SQLite file.
    Sqlite(PathBuf),
    /// `postgres://…` or `postgresql://…` (libpq's URL form; a unix socket
    /// as `postgresql:///DB?host=/run/postgresql` or a percent-encoded
    /// path in the host part).
    Postgres(Box<tokio_postgres::Config>),
}

impl FromStr for StoreUrl {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<Self, StoreError> {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            let mut c = tokio_postgres::Config::from_str(s).map_err(|e| {
                StoreError::Url(format!("not a PostgreSQL URL ({e}); the URL is not shown").into())
            })?;
            if c.get_application_name().is_none() {
                c.application_name("wireseal-gateway");
            }
            if c.get_connect_timeout().is_none() {
                c.connect_timeout(std::time::Duration::from_secs(10));
            }
            return Ok(StoreUrl::Postgres(Box::new(c)));
        }
        let path = match s.strip_prefix("sqlite:") {
            Some(rest) => rest.strip_prefix("//").unwrap_or(rest),
            None if s.contains("://") => {
                return Err(StoreError::Url(
                    "expected sqlite:PATH, postgres://… or postgresql://…".into(),
                ))
            }
            None => s,
        };
        if path.is_empty() {
            return Err(StoreError::Url("sqlite: needs a file path".into()));
        }
        Ok(StoreUrl::Sqlite(path.into()))
    }
}

impl fmt::Display for StoreUrl {
    /// The store without secrets: the file, or the server, database and user.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreUrl::Sqlite(p) => write!(f, "sqlite:{}", p.display()),
            StoreUrl::Postgres(c) => {
                let hosts: Vec<String> = c
                    .get_hosts()
                    .iter()
                    .map(|h| match h {
                        tokio_postgres::config::Host::Tcp(h) => h.clone(),
                        tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
                    })
                    .collect();
                write!(
                    f,
                    "postgres database {:?} as {:?} on {} port {:?}",
                    c.get_dbname().unwrap_or(""),
                    c.get_user().unwrap_or(""),
                    hosts.join(","),
                    c.get_ports()
                )
            }
        }
    }
}

impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreUrl({self})")
    }
}

/// An open store.
#[derive(Debug)]
pub enum Store {
    /// A SQLite file.
    Sqlite(SqliteStore),
    /// A PostgreSQL database.
    Postgres(Box<PgStore>),
}

impl Store {
    /// Opens the store at `url` (creating or migrating its schema): SQLite
    /// with [`Durability::Full`], PostgreSQL with [`PgMethod::default`]. A
    /// PostgreSQL store's connection is driven by a runtime of the store's
    /// own; [`Store::open_on`] drives it on the caller's.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the server cannot be reached or the
    /// file is locked; [`StoreError::Refused`] when it refuses us for good;
    /// [`StoreError::Schema`] when its schema cannot be used.
    pub fn open(url: &StoreUrl) -> Result<Self, StoreError> {
        Ok(match url {
            StoreUrl::Sqlite(p) => Store::Sqlite(SqliteStore::open(p, Durability::default())?),
            StoreUrl::Postgres(c) => {
                Store::Postgres(Box::new(PgStore::open((**c).clone(), PgMethod::default())?))
            }
        })
    }

    /// As [`Store::open`], a PostgreSQL store's connection driven as a task
    /// on `handle`'s runtime (see [`PgStore::open_on`] for what that runtime
    /// must be); SQLite needs no runtime and ignores it. Use the store from
    /// a plain thread (the [`StoreWriter`]'s), never from a runtime's
    /// worker: its methods block.
    ///
    /// # Errors
    /// As [`Store::open`].
    ///
    /// # Panics
    /// Called from within a runtime's worker with a PostgreSQL URL.
    pub fn open_on(url: &StoreUrl, handle: &tokio::runtime::Handle) -> Result<Self, StoreError> {
        Ok(match url {
            StoreUrl::Sqlite(p) => Store::Sqlite(SqliteStore::open(p, Durability::default())?),
            StoreUrl::Postgres(c) => Store::Postgres(Box::new(PgStore::open_on(
                (**c).clone(),
                PgMethod::default(),
                handle,
            )?)),
        })
    }

    /// Writes `batch`: checks every record (lengths capped, text made valid,
    /// records that fail listed as rejected), then writes the rest in one
    /// transaction. Rows the database refuses are isolated by writing halves
    /// of the batch until each refused record stands alone; those are listed
    /// in [`Committed::rejected`] and everything else is committed.
    ///
    /// Writing a batch again is harmless: the database's keys drop what is
    /// already stored, so a batch whose commit was cut off may be retried.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the database cannot take it now
    /// (retry later; parts of the batch may already be committed when
    /// isolating refused rows); [`StoreError::Schema`] when the connection
    /// was renewed onto a database whose schema cannot be used.
    pub fn write_batch(&mut self, batch: &[Record]) -> Result<Committed, StoreError> {
        let mut caps = record::Caps::default();
        let mut done = Committed {
            records: batch.len(),
            ..Committed::default()
        };
        let mut rows = Vec::with_capacity(batch.len());
        for (i, r) in batch.iter().enumerate() {
            match record::check(i, r, &mut caps) {
                Ok(c) => rows.push(c),
                Err(reason) => done.rejected.push(Rejected { index: i, reason }),
            }
        }
        done.capped = caps.0;
        let all = Rows {
            meshtastic: &rows,
            meshcore: &[],
        };
        self.finish(all, done)
    }

    /// As [`Store::write_batch`], for a batch of either mesh's records (a
    /// message's [`Entry`]): both written in one transaction.
    ///
    /// # Errors
    /// As [`Store::write_batch`].
    pub fn write_entries(&mut self, batch: &[Entry]) -> Result<Committed, StoreError> {
        let mut caps = record::Caps::default();
        let mut done = Committed {
            records: batch.len(),
            ..Committed::default()
        };
        let (mut mt, mut mc) = (Vec::with_capacity(batch.len()), Vec::new());
        for (i, e) in batch.iter().enumerate() {
            let r = match e {
                Entry::Meshtastic(r) => record::check(i, r, &mut caps).map(|c| mt.push(c)),
                Entry::Meshcore(r) => meshcore::check(i, r, &mut caps).map(|c| mc.push(c)),
            };
            if let Err(reason) = r {
                done.rejected.push(Rejected { index: i, reason });
            }
        }
        done.capped = caps.0;
        let all = Rows {
            meshtastic: &mt,
            meshcore: &mc,
        };
        self.finish(all, done)
    }

    /// Writes the checked rows of a batch; what it committed.
    fn finish(&mut self, rows: Rows<'_, '_>, mut done: Committed) -> Result<Committed, StoreError> {
        let mut n = Counts::default();
        self.write_isolating(rows, &mut n, &mut done)?;
        done.packets = n.packets;
        done.receptions = n.receptions;
        done.nodes = n.nodes;
        done.keys = n.keys;
        done.meshcore_packets = n.meshcore_packets;
        done.meshcore_receptions = n.meshcore_receptions;
        done.meshcore_nodes = n.meshcore_nodes;
        done.rejected.sort_by_key(|r| r.index);
        let stored = (done.records - done.rejected.len()) as u64;
        done.duplicates = stored.saturating_sub(n.receptions + n.meshcore_receptions);
        Ok(done)
    }

    /// Removes up to `limit` of the packets first seen before `cutoff_ms`,
    /// oldest first, and their receptions, in one transaction; returns the
    /// packets and receptions removed. The node tables stay.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the database cannot take it now.
    pub fn prune(&mut self, cutoff_ms: u64, limit: usize) -> Result<(u64, u64), StoreError> {
        let cutoff = i64::try_from(cutoff_ms).unwrap_or(i64::MAX);
        match self {
            Store::Sqlite(s) => s.prune(cutoff, limit),
            Store::Postgres(s) => s.prune(cutoff, limit),
        }
    }

    fn write_isolating(
        &mut self,
        rows: Rows<'_, '_>,
        n: &mut Counts,
        done: &mut Committed,
    ) -> Result<(), StoreError> {
        if rows.len() == 0 {
            return Ok(());
        }
        let plan = plan::Plan::new(rows.meshtastic);
        let mc = meshcore::Plan::new(rows.meshcore);
        let r = match self {
            Store::Sqlite(s) => s.write_plan(&plan, &mc),
            Store::Postgres(s) => s.write_plan(&plan, &mc),
        };
        match r {
            Ok(c) => {
                n.add(c);
                Ok(())
            }
            Err(StoreError::Rejected(reason)) if rows.len() == 1 => {
                done.rejected.push(Rejected {
                    index: rows.only_index().unwrap_or(0),
                    reason: reason.to_string(),
                });
                Ok(())
            }
            Err(StoreError::Rejected(_)) => {
                let (a, b) = match (rows.meshtastic.len(), rows.meshcore.len()) {
                    (0, k) => {
                        let (x, y) = rows.meshcore.split_at(k / 2);
                        (
                            Rows {
                                meshcore: x,
                                ..rows
                            },
                            Rows {
                                meshcore: y,
                                ..rows
                            },
                        )
                    }
                    (k, 0) => {
                        let (x, y) = rows.meshtastic.split_at(k / 2);
                        (
                            Rows {
                                meshtastic: x,
                                ..rows
                            },
                            Rows {
                                meshtastic: y,
                                ..rows
                            },
                        )
                    }
                    _ => (
                        Rows {
                            meshcore: &[],
                            ..rows
                        },
                        Rows {
                            meshtastic: &[],
                            ..rows
                        },
                    ),
                };
                self.write_isolating(a, n, done)?;
                self.write_isolating(b, n, done)
            }
            Err(e) => Err(e),
        }
    }
}
