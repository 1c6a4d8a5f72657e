//! The SQLite store: one file, the SQLite compiled into the binary
//! (`rusqlite`'s `bundled`), write-ahead log, one transaction per batch
//! through cached prepared statements.
//!
//! Durability: `synchronous=FULL` by default, so a batch reported committed
//! is on disk (the log is synced at every commit) and survives a power loss
//! as well as a killed process; the gateway acknowledges MQTT messages only
//! then, and the broker forgets them. [`Durability::Normal`] syncs only at
//! checkpoints: a killed process loses nothing, a power loss may lose the
//! last batches already acknowledged.

use super::meshcore;
use super::plan::Plan;
use super::schema::{self, Dialect};
use super::sql::sqlite as q;
use super::{Counts, Reason, StoreError};
use rusqlite::{params, Connection, ErrorCode, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How SQLite syncs commits (`PRAGMA synchronous`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Sync the log at every commit: a committed batch survives power loss.
    #[default]
    Full,
    /// Sync at checkpoints only: a committed batch survives a killed
    /// process, not a power loss (measured against `Full` by the tests).
    Normal,
}

/// A SQLite database file holding the store's schema.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

fn classify(e: rusqlite::Error) -> StoreError {
    let rejected = match &e {
        rusqlite::Error::SqliteFailure(f, _) => matches!(
            f.code,
            ErrorCode::ConstraintViolation | ErrorCode::TooBig | ErrorCode::TypeMismatch
        ),
        rusqlite::Error::ToSqlConversionFailure(_) => true,
        _ => false,
    };
    let reason = Reason::caused_by(e.to_string(), e);
    match rejected {
        true => StoreError::Rejected(reason),
        false => StoreError::Unavailable(reason),
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its
    /// schema to the current version.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when another process holds the database
    /// locked; [`StoreError::Refused`] when the file cannot be created,
    /// opened or written (a missing directory, permissions, not a
    /// database); [`StoreError::Schema`] when it holds a newer schema or
    /// another program's tables.
    pub fn open(path: &Path, durability: Durability) -> Result<Self, StoreError> {
        Self::open_at(path, durability, schema::CURRENT)
    }

    /// Opens the database and takes its schema to `version` (tests build
    /// older versions with it).
    pub(super) fn open_at(
        path: &Path,
        durability: Durability,
        version: i64,
    ) -> Result<Self, StoreError> {
        let unavailable = |e: rusqlite::Error| {
            let busy = matches!(
                e.sqlite_error_code(),
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
            );
            let m = Reason::caused_by(format!("{}: {e}", path.display()), e);
            match busy {
                true => StoreError::Unavailable(m),
                false => StoreError::Refused(m),
            }
        };
        let mut conn = Connection::open(path).map_err(unavailable)?;
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(unavailable)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(unavailable)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Unavailable(
                format!(
                    "{}: SQLite refused write-ahead logging (journal mode {mode})",
                    path.display()
                )
                .into(),
            ));
        }
        let sync = match durability {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        };
        conn.execute_batch(&format!(
            "PRAGMA synchronous={sync}; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY; \
             PRAGMA wal_autocheckpoint=8192;"
        ))
        .map_err(unavailable)?;
        conn.set_prepared_statement_cache_capacity(16);
        migrate(&mut conn, version).map_err(|e| match e {
            StoreError::Rejected(m) => StoreError::Schema(m.prefixed(path.display())),
            other => other,
        })?;
        Ok(Self {
            conn,
            path: path.to_owned(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection (tests read the tables through it).
    #[cfg(test)]
    pub(super) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Writes `plan` and `mc` in one transaction: all of it or nothing.
    pub(super) fn write_plan(
        &mut self,
        plan: &Plan,
        mc: &meshcore::Plan,
    ) -> Result<Counts, StoreError> {
        self.write_plan_inner(plan, mc).map_err(classify)
    }

    fn write_plan_inner(
        &mut self,
        plan: &Plan,
        mc: &meshcore::Plan,
    ) -> Result<Counts, rusqlite::Error> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut n = Counts::default();
        if !mc.is_empty() {
            (n.meshcore_packets, n.meshcore_receptions, n.meshcore_nodes) =
                meshcore::sqlite::write(&tx, mc)?;
        }
        if !plan.packets.is_empty() {
            let mut st = tx.prepare_cached(&q::packet())?;
            for c in &plan.packets {
                n.packets += st.execute(params![
                    c.from,
                    c.id,
                    c.to,
                    c.channel_id,
                    c.decryption,
                    c.channel_name,
                    c.portnum,
                    c.payload,
                    c.text,
                    c.signature,
                    c.identity,
                    c.error,
                    c.our_node,
                    c.rx_time_ms,
                ])? as u64;
            }
            let mut st = tx.prepare_cached(&q::reception())?;
            for c in &plan.receptions {
                n.receptions += st.execute(params![
                    c.from,
                    c.id,
                    c.gateway_id,
                    c.relay_node,
                    c.transport,
                    c.topic,
                    c.rx_time_ms,
                    c.rx_time,
                    c.rssi,
                    c.snr.map(f64::from),
                    c.hop_start,
                    c.hop_limit,
                ])? as u64;
            }
            let mut st = tx.prepare_cached(&q::node())?;
            for r in &plan.nodes {
                let i = r.info;
                n.nodes += st.execute(params![
                    r.node,
                    r.key,
                    i.and_then(|c| c.long_name.as_deref()),
                    i.and_then(|c| c.short_name.as_deref()),
                    i.and_then(|c| c.node_identity.as_deref()),
                    r.first_seen_ms,
                    r.last_seen_ms,
                ])? as u64;
            }
            let mut keys = tx.prepare_cached(q::KEY)?;
            let mut recount = tx.prepare_cached(&q::conflicts())?;
            let [link_to, link_from] = q::link();
            let mut link_to = tx.prepare_cached(&link_to)?;
            let mut link_from = tx.prepare_cached(&link_from)?;
            for k in &plan.keys {
                if keys.execute(params![k.node, k.key, k.first_seen_ms])? > 0 {
                    n.keys += 1;
                    recount.execute(params![k.node])?;
                    let crc = i64::from(wireseal::meshtastic::node_number(k.key));
                    link_to.execute(params![crc, k.key])?;
                    link_from.execute(params![crc, k.key])?;
                }
            }
        }
        tx.commit()?;
        Ok(n)
    }
}

impl SqliteStore {
    /// Removes up to `limit` of the packets first seen before `cutoff_ms`
    /// (oldest first) and their receptions, and as many MeshCore packets and
    /// theirs, in one transaction; returns the packets and receptions
    /// removed. Nodes stay.
    pub(super) fn prune(&mut self, cutoff_ms: i64, limit: usize) -> Result<(u64, u64), StoreError> {
        self.prune_inner(cutoff_ms, limit).map_err(classify)
    }

    fn prune_inner(&mut self, cutoff_ms: i64, limit: usize) -> Result<(u64, u64), rusqlite::Error> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (mut packets, mut receptions) = (0u64, 0u64);
        {
            let mut pick = tx.prepare_cached(q::PRUNE_PICK)?;
            let keys: Vec<(i64, i64)> = pick
                .query_map(params![cutoff_ms, limit as i64], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?
                .collect::<Result<_, _>>()?;
            let mut del_r = tx.prepare_cached(q::PRUNE_RECEPTIONS)?;
            let mut del_p = tx.prepare_cached(q::PRUNE_PACKET)?;
            for (from, id) in keys {
                receptions += del_r.execute(params![from, id])? as u64;
                packets += del_p.execute(params![from, id])? as u64;
            }
            let (p, r) = meshcore::sqlite::prune(&tx, cutoff_ms, limit)?;
            packets += p;
            receptions += r;
        }
        tx.commit()?;
        Ok((packets, receptions))
    }
}

/// Takes the schema to `target` in one transaction.
fn migrate(conn: &mut Connection, target: i64) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(classify)?;
    let has_table: bool = tx
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .map_err(classify)?;
    let found: i64 = if has_table {
        tx.query_row(
            "SELECT coalesce(max(version), 0) FROM schema_version",
            [],
            |r| r.get(0),
        )
        .map_err(classify)?
    } else {
        0
    };
    schema::check_version(found, schema::CURRENT).map_err(|m| StoreError::Schema(m.into()))?;
    for to in found + 1..=target {
        tx.execute_batch(&schema::migration(Dialect::Sqlite, to))
            .map_err(|e| {
                StoreError::Schema(Reason::caused_by(
                    format!("migrating to version {to}: {e}"),
                    e,
                ))
            })?;
        tx.execute(
            "INSERT INTO schema_version (version, applied_ms) VALUES (?1, ?2)",
            params![to, schema::now_ms()],
        )
        .map_err(classify)?;
    }
    tx.commit().map_err(classify)
}
