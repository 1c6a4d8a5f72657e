//! The PostgreSQL store: one kept connection (`tokio-postgres`, driven by
//! the caller's runtime or one the store owns; either way callers use it
//! from a plain thread, never from a runtime's worker), one
//! transaction per batch, the batch's rows sent as one array per column
//! (`INSERT … SELECT * FROM unnest($1, …) ON CONFLICT …`) or through binary
//! COPY into session staging tables ([`PgMethod`]). The statements of a batch
//! are pipelined: one round trip for all of them.
//!
//! Receptions are almost never stored already (only messages the broker
//! delivers again are), so they are inserted without `ON CONFLICT`, which
//! saves the server a look-up per row; when a batch does hold a stored
//! reception the server refuses it (unique violation), and that batch and the
//! next [`CAREFUL_BATCHES`] are written with `ON CONFLICT DO NOTHING`.
//!
//! Durability is the server's: a batch is reported committed when
//! PostgreSQL answers COMMIT, which with the default `synchronous_commit=on`
//! means its log is on disk.

use super::plan::Plan;
use super::postgres_statements::Statements;
use super::postgres_write::{write, PgMethod};
use super::schema::{self, Dialect};
use super::{Counts, Reason, StoreError};
use std::time::Duration;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls};

/// Batches written with `ON CONFLICT` on receptions after one that held a
/// stored reception.
pub const CAREFUL_BATCHES: u32 = 100;

/// A PostgreSQL database holding the store's schema.
pub struct PgStore {
    driver: Driver,
    config: Config,
    method: PgMethod,
    timeout: Duration,
    conn: Option<(Client, Statements)>,
    /// Batches still to write with `ON CONFLICT` on receptions.
    careful: u32,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("method", &self.method)
            .field("connected", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

/// A client error as the store's: the data refused (SQLSTATE classes 22,
/// 23, 54), the server refusing us in a way waiting does not mend (a wrong
/// password or user, 28; a database that does not exist, 3D), or the
/// database unavailable (anything else: the batch is kept and written
/// again later).
pub(super) fn classify(e: tokio_postgres::Error) -> StoreError {
    match e.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            let msg = format!("{} (SQLSTATE {code})", db.message());
            let class = code[..2.min(code.len())].to_owned();
            let reason = Reason::caused_by(msg, e);
            match class.as_str() {
                "22" | "23" | "54" => StoreError::Rejected(reason),
                "28" | "3D" => StoreError::Refused(reason),
                _ => StoreError::Unavailable(reason),
            }
        }
        None => {
            let text = match std::error::Error::source(&e) {
                Some(s) => format!("{e}: {s}"),
                None => e.to_string(),
            };
            StoreError::Unavailable(Reason::caused_by(text, e))
        }
    }
}

/// The runtime that drives the store's connection.
enum Driver {
    /// A current-thread runtime of the store's own, driven while the store
    /// waits on it.
    Own(tokio::runtime::Runtime),
    /// The caller's runtime, driven by its own threads.
    Shared(tokio::runtime::Handle),
}

impl Driver {
    /// Runs `f` to completion, blocking the calling thread.
    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        match self {
            Driver::Own(rt) => rt.block_on(f),
            Driver::Shared(h) => h.block_on(f),
        }
    }
}

impl PgStore {
    /// Connects to `config`, brings its schema to the current version and
    /// prepares the statements; the connection is driven by a runtime of
    /// the store's own (for tools and tests that have none).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the server cannot be reached or the
    /// runtime cannot start; [`StoreError::Refused`] when it refuses the
    /// login or has no such database; [`StoreError::Schema`] when the
    /// database holds a newer schema or tables the migration cannot take
    /// over.
    ///
    /// # Panics
    /// Called from within a runtime's worker (as every method of the store
    /// would: they block the calling thread).
    pub fn open(config: Config, method: PgMethod) -> Result<Self, StoreError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                StoreError::Unavailable(Reason::caused_by(
                    format!("starting the client runtime: {e}"),
                    e,
                ))
            })?;
        Self::open_with(config, method, Driver::Own(rt))
    }

    /// As [`PgStore::open`], the connection driven as a task on `handle`'s
    /// runtime, which must have its I/O and time drivers enabled and be
    /// driven by threads of its own while the store is used: a
    /// multi-thread runtime, or a current-thread one while another thread
    /// is inside its `Runtime::block_on`. The store's methods block the
    /// calling thread until the runtime has done their work.
    ///
    /// # Errors
    /// As [`PgStore::open`].
    ///
    /// # Panics
    /// Called from within a runtime's worker (as every method of the store
    /// would).
    pub fn open_on(
        config: Config,
        method: PgMethod,
        handle: &tokio::runtime::Handle,
    ) -> Result<Self, StoreError> {
        Self::open_with(config, method, Driver::Shared(handle.clone()))
    }

    fn open_with(config: Config, method: PgMethod, driver: Driver) -> Result<Self, StoreError> {
        let mut s = Self {
            driver,
            config,
            method,
            timeout: Duration::from_secs(30),
            conn: None,
            careful: 0,
        };
        s.reconnect()?;
        Ok(s)
    }

    /// Writes every batch with `ON CONFLICT` on receptions (the throughput
    /// measurement compares both ways).
    pub fn always_careful(&mut self) {
        self.careful = u32::MAX;
    }

    /// Replaces the connection with a new one (schema checked again).
    fn reconnect(&mut self) -> Result<(), StoreError> {
        self.conn = None;
        let conn = self.driver.block_on(async {
            tokio::time::timeout(self.timeout, connect(&self.config, schema::CURRENT))
                .await
                .unwrap_or_else(|_| Err(StoreError::Unavailable("no answer within 30 s".into())))
        })?;
        self.conn = Some(conn);
        Ok(())
    }

    /// Writes `plan` and `mc` in one transaction: all of it or nothing.
    /// Reconnects first when the last write lost the connection.
    pub(super) fn write_plan(
        &mut self,
        plan: &Plan,
        mc: &super::meshcore::Plan,
    ) -> Result<Counts, StoreError> {
        if self.conn.is_none() {
            self.reconnect()?;
        }
        let skip = self.careful > 0;
        self.careful = self.careful.saturating_sub(1);
        let r = match self.write_once(plan, mc, skip) {
            Err(Ok(e)) if !skip && e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                self.careful = CAREFUL_BATCHES;
                self.write_once(plan, mc, true)
            }
            r => r,
        };
        let r = r.map_err(|e| e.map_or_else(|s| s, classify));
        if matches!(r, Err(StoreError::Unavailable(_))) {
            // The connection may be half-way through a transaction or gone;
            // the next write starts on a new one.
            self.conn = None;
        }
        r
    }

    /// One attempt: the client's error, or the store's when there was no
    /// answer in time.
    fn write_once(
        &mut self,
        plan: &Plan,
        mc: &super::meshcore::Plan,
        skip: bool,
    ) -> Result<Counts, Result<tokio_postgres::Error, StoreError>> {
        let Self {
            driver,
            conn,
            method,
            timeout,
            ..
        } = self;
        let Some((client, st)) = conn.as_mut() else {
            return Err(Err(StoreError::Unavailable("not connected".into())));
        };
        driver.block_on(async {
            let w = write(client, st, (plan, mc), *method, skip);
            match tokio::time::timeout(*timeout, w).await {
                Ok(r) => r.map_err(Ok),
                Err(_) => Err(Err(StoreError::Unavailable(
                    format!("no answer within {} s", timeout.as_secs()).into(),
                ))),
            }
        })
    }
}

/// Connects, migrates to `target` and prepares.
async fn connect(config: &Config, target: i64) -> Result<(Client, Statements), StoreError> {
    let (mut client, connection) = config.connect(NoTls).await.map_err(classify)?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    migrate(&mut client, target).await?;
    let st = Statements::prepare(&client).await.map_err(classify)?;
    Ok((client, st))
}

/// Takes the schema to `target` in one transaction, holding an advisory
/// lock so that gateways starting together migrate once.
pub(super) async fn migrate(client: &mut Client, target: i64) -> Result<(), StoreError> {
    let tx = client.transaction().await.map_err(classify)?;
    tx.batch_execute("SELECT pg_advisory_xact_lock(2029912949)")
        .await
        .map_err(classify)?;
    let has_table: bool = tx
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])
        .await
        .map_err(classify)?
        .get(0);
    let found: i64 = if has_table {
        tx.query_one(
            "SELECT coalesce(max(version), 0)::int8 FROM schema_version",
            &[],
        )
        .await
        .map_err(classify)?
        .get(0)
    } else {
        0
    };
    schema::check_version(found, schema::CURRENT).map_err(|m| StoreError::Schema(m.into()))?;
    for to in found + 1..=target {
        tx.batch_execute(&schema::migration(Dialect::Postgres, to))
            .await
            .map_err(|e| match classify(e) {
                StoreError::Unavailable(m) | StoreError::Rejected(m) => {
                    StoreError::Schema(m.prefixed(format_args!("migrating to version {to}")))
                }
                other => other,
            })?;
        tx.execute(
            "INSERT INTO schema_version (version, applied_ms) VALUES ($1, $2)",
            &[&(to as i32), &schema::now_ms()],
        )
        .await
        .map_err(classify)?;
    }
    tx.commit().await.map_err(classify)
}

impl PgStore {
    /// Removes up to `limit` of the packets first seen before `cutoff_ms`
    /// (oldest first) and their receptions, and as many MeshCore packets and
    /// theirs, in one transaction; returns the packets and receptions
    /// removed. Nodes stay.
    pub(super) fn prune(&mut self, cutoff_ms: i64, limit: usize) -> Result<(u64, u64), StoreError> {
        if self.conn.is_none() {
            self.reconnect()?;
        }
        let Self {
            driver,
            conn,
            timeout,
            ..
        } = self;
        let Some((client, st)) = conn.as_mut() else {
            return Err(StoreError::Unavailable("not connected".into()));
        };
        let r = driver.block_on(async {
            let limit = limit as i64;
            let args: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&cutoff_ms, &limit];
            let both = async {
                let tx = client.transaction().await?;
                let a = tx.query_one(&st.prune, &args).await?;
                let b = tx.query_one(&st.meshcore.prune, &args).await?;
                tx.commit().await?;
                let n = |r: &tokio_postgres::Row, i| r.get::<_, i64>(i) as u64;
                Ok((n(&a, 0) + n(&b, 0), n(&a, 1) + n(&b, 1)))
            };
            match tokio::time::timeout(*timeout, both).await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) => Err(classify(e)),
                Err(_) => Err(StoreError::Unavailable("no answer in time".into())),
            }
        });
        if matches!(r, Err(StoreError::Unavailable(_))) {
            self.conn = None;
        }
        r
    }
}
