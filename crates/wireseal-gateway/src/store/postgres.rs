//! The PostgreSQL store: one kept connection (`tokio-postgres`, driven by a
//! runtime the store owns, so callers use it from a plain thread), one
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
use super::schema::{self, Dialect};
use super::sql::{postgres as q, PACKET_COLUMNS, RECEPTION_COLUMNS};
use super::{Counts, StoreError};
use std::pin::pin;
use std::time::Duration;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Config, NoTls, Statement};

/// How a batch's packets and receptions reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PgMethod {
    /// One `INSERT … SELECT * FROM unnest(arrays) ON CONFLICT` per table.
    #[default]
    Unnest,
    /// Binary COPY into temporary staging tables, then `INSERT … SELECT …
    /// ON CONFLICT` from them (measured against unnest by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Copy,
}

/// Batches written with `ON CONFLICT` on receptions after one that held a
/// stored reception.
pub const CAREFUL_BATCHES: u32 = 100;

/// The prepared statements of one connection.
struct Statements {
    packets: Statement,
    receptions: Statement,
    receptions_skip: Statement,
    packets_from_stage: Statement,
    receptions_from_stage: Statement,
    receptions_from_stage_skip: Statement,
    nodes: Statement,
    keys: Statement,
    conflicts: Statement,
}

/// A PostgreSQL database holding the store's schema.
pub struct PgStore {
    rt: tokio::runtime::Runtime,
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
/// 23, 54) or the database unavailable (anything else: the batch is kept
/// and written again later).
fn classify(e: tokio_postgres::Error) -> StoreError {
    match e.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            let msg = format!("{} (SQLSTATE {code})", db.message());
            match &code[..2.min(code.len())] {
                "22" | "23" | "54" => StoreError::Rejected(msg),
                _ => StoreError::Unavailable(msg),
            }
        }
        None => StoreError::Unavailable(match std::error::Error::source(&e) {
            Some(s) => format!("{e}: {s}"),
            None => e.to_string(),
        }),
    }
}

impl PgStore {
    /// Connects to `config`, brings its schema to the current version and
    /// prepares the statements.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the server cannot be reached or
    /// refuses the login; [`StoreError::Schema`] when the database holds a
    /// newer schema or tables the migration cannot take over.
    pub fn open(config: Config, method: PgMethod) -> Result<Self, StoreError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Unavailable(format!("starting the client runtime: {e}")))?;
        let mut s = Self {
            rt,
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
    #[cfg(test)]
    pub(super) fn always_careful(&mut self) {
        self.careful = u32::MAX;
    }

    /// Replaces the connection with a new one (schema checked again).
    fn reconnect(&mut self) -> Result<(), StoreError> {
        self.conn = None;
        let conn = self.rt.block_on(async {
            tokio::time::timeout(self.timeout, connect(&self.config, schema::CURRENT))
                .await
                .unwrap_or_else(|_| Err(StoreError::Unavailable("no answer within 30 s".into())))
        })?;
        self.conn = Some(conn);
        Ok(())
    }

    /// Writes `plan` in one transaction: all of it or nothing. Reconnects
    /// first when the last write lost the connection.
    pub(super) fn write_plan(&mut self, plan: &Plan) -> Result<Counts, StoreError> {
        if self.conn.is_none() {
            self.reconnect()?;
        }
        let skip = self.careful > 0;
        self.careful = self.careful.saturating_sub(1);
        let r = match self.write_once(plan, skip) {
            Err(Ok(e)) if !skip && e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                self.careful = CAREFUL_BATCHES;
                self.write_once(plan, true)
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
        skip: bool,
    ) -> Result<Counts, Result<tokio_postgres::Error, StoreError>> {
        let Self {
            rt,
            conn,
            method,
            timeout,
            ..
        } = self;
        let Some((client, st)) = conn.as_mut() else {
            return Err(Err(StoreError::Unavailable("not connected".into())));
        };
        rt.block_on(async {
            match tokio::time::timeout(*timeout, write(client, st, plan, *method, skip)).await {
                Ok(r) => r.map_err(Ok),
                Err(_) => Err(Err(StoreError::Unavailable(format!(
                    "no answer within {} s",
                    timeout.as_secs()
                )))),
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
    client
        .batch_execute(&q::staging())
        .await
        .map_err(classify)?;
    let prep = |sql: String| {
        let c = &client;
        async move { c.prepare(&sql).await.map_err(classify) }
    };
    let st = Statements {
        packets: prep(q::packets_unnest()).await?,
        receptions: prep(q::receptions_unnest(false)).await?,
        receptions_skip: prep(q::receptions_unnest(true)).await?,
        packets_from_stage: prep(q::packets_from_stage()).await?,
        receptions_from_stage: prep(q::receptions_from_stage(false)).await?,
        receptions_from_stage_skip: prep(q::receptions_from_stage(true)).await?,
        nodes: prep(q::nodes()).await?,
        keys: prep(q::KEYS.to_owned()).await?,
        conflicts: prep(q::conflicts()).await?,
    };
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
    schema::check_version(found, schema::CURRENT).map_err(StoreError::Schema)?;
    for to in found + 1..=target {
        tx.batch_execute(&schema::migration(Dialect::Postgres, to))
            .await
            .map_err(|e| match classify(e) {
                StoreError::Unavailable(m) | StoreError::Rejected(m) => {
                    StoreError::Schema(format!("migrating to version {to}: {m}"))
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

async fn write(
    client: &mut Client,
    st: &Statements,
    plan: &Plan<'_, '_>,
    method: PgMethod,
    skip: bool,
) -> Result<Counts, tokio_postgres::Error> {
    let tx = client.transaction().await?;
    let (receptions, receptions_from_stage) = match skip {
        true => (&st.receptions_skip, &st.receptions_from_stage_skip),
        false => (&st.receptions, &st.receptions_from_stage),
    };
    let p = &plan.packets;
    let r = &plan.receptions;
    let (a, b, n) = match method {
        PgMethod::Unnest => {
            let from: Vec<i64> = p.iter().map(|c| c.from).collect();
            let id: Vec<i64> = p.iter().map(|c| c.id).collect();
            let to: Vec<i64> = p.iter().map(|c| c.to).collect();
            let channel_id: Vec<&str> = p.iter().map(|c| &*c.channel_id).collect();
            let decryption: Vec<&str> = p.iter().map(|c| &*c.decryption).collect();
            let channel_name: Vec<Option<&str>> =
                p.iter().map(|c| c.channel_name.as_deref()).collect();
            let portnum: Vec<Option<i64>> = p.iter().map(|c| c.portnum).collect();
            let payload: Vec<Option<&[u8]>> = p.iter().map(|c| c.payload).collect();
            let text: Vec<Option<&str>> = p.iter().map(|c| c.text.as_deref()).collect();
            let signature: Vec<&str> = p.iter().map(|c| &*c.signature).collect();
            let identity: Vec<Option<&str>> = p.iter().map(|c| c.identity.as_deref()).collect();
            let error: Vec<Option<&str>> = p.iter().map(|c| c.error.as_deref()).collect();
            let seen: Vec<i64> = p.iter().map(|c| c.rx_time_ms).collect();
            let r_from: Vec<i64> = r.iter().map(|c| c.from).collect();
            let r_id: Vec<i64> = r.iter().map(|c| c.id).collect();
            let gateway: Vec<&str> = r.iter().map(|c| &*c.gateway_id).collect();
            let relay: Vec<i64> = r.iter().map(|c| c.relay_node).collect();
            let transport: Vec<i32> = r.iter().map(|c| c.transport).collect();
            let topic: Vec<&str> = r.iter().map(|c| &*c.topic).collect();
            let rx_ms: Vec<i64> = r.iter().map(|c| c.rx_time_ms).collect();
            let rx: Vec<Option<i64>> = r.iter().map(|c| c.rx_time).collect();
            let rssi: Vec<Option<i32>> = r.iter().map(|c| c.rssi).collect();
            let snr: Vec<Option<f32>> = r.iter().map(|c| c.snr).collect();
            let hop_start: Vec<Option<i64>> = r.iter().map(|c| c.hop_start).collect();
            let hop_limit: Vec<Option<i64>> = r.iter().map(|c| c.hop_limit).collect();
            let pp: [&(dyn ToSql + Sync); 13] = [
                &from,
                &id,
                &to,
                &channel_id,
                &decryption,
                &channel_name,
                &portnum,
                &payload,
                &text,
                &signature,
                &identity,
                &error,
                &seen,
            ];
            let rp: [&(dyn ToSql + Sync); 12] = [
                &r_from, &r_id, &gateway, &relay, &transport, &topic, &rx_ms, &rx, &rssi, &snr,
                &hop_start, &hop_limit,
            ];
            tokio::join!(
                tx.execute(&st.packets, &pp),
                tx.execute(receptions, &rp),
                write_nodes(&tx, st, plan),
            )
        }
        PgMethod::Copy => {
            copy_packets(&tx, plan).await?;
            copy_receptions(&tx, plan).await?;
            tokio::join!(
                tx.execute(&st.packets_from_stage, &[]),
                tx.execute(receptions_from_stage, &[]),
                write_nodes(&tx, st, plan),
            )
        }
    };
    // In the order the server ran them (see `write_nodes`).
    let (packets, receptions) = (a?, b?);
    let counts = Counts {
        packets,
        receptions,
        ..n?
    };
    tx.commit().await?;
    Ok(counts)
}

/// The nodes, their keys and the recount of conflicting keys (statements
/// queued in this order on the connection, so each sees the one before).
async fn write_nodes(
    tx: &tokio_postgres::Transaction<'_>,
    st: &Statements,
    plan: &Plan<'_, '_>,
) -> Result<Counts, tokio_postgres::Error> {
    let n = &plan.nodes;
    let node: Vec<i64> = n.iter().map(|r| r.node).collect();
    let key: Vec<Option<&[u8]>> = n.iter().map(|r| r.key.map(|k| &k[..])).collect();
    let long: Vec<Option<&str>> = n
        .iter()
        .map(|r| r.info.and_then(|c| c.long_name.as_deref()))
        .collect();
    let short: Vec<Option<&str>> = n
        .iter()
        .map(|r| r.info.and_then(|c| c.short_name.as_deref()))
        .collect();
    let ident: Vec<Option<&str>> = n
        .iter()
        .map(|r| r.info.and_then(|c| c.node_identity.as_deref()))
        .collect();
    let first: Vec<i64> = n.iter().map(|r| r.first_seen_ms).collect();
    let last: Vec<i64> = n.iter().map(|r| r.last_seen_ms).collect();
    let k = &plan.keys;
    let k_node: Vec<i64> = k.iter().map(|r| r.node).collect();
    let k_key: Vec<&[u8]> = k.iter().map(|r| &r.key[..]).collect();
    let k_seen: Vec<i64> = k.iter().map(|r| r.first_seen_ms).collect();
    let mut recount = k_node.clone();
    recount.dedup();
    let np: [&(dyn ToSql + Sync); 7] = [&node, &key, &long, &short, &ident, &first, &last];
    let kp: [&(dyn ToSql + Sync); 3] = [&k_node, &k_key, &k_seen];
    let cp: [&(dyn ToSql + Sync); 1] = [&recount];
    let nodes = tx.execute(&st.nodes, &np);
    if k.is_empty() {
        return Ok(Counts {
            nodes: nodes.await?,
            ..Counts::default()
        });
    }
    let keys = tx.execute(&st.keys, &kp);
    let conflicts = tx.execute(&st.conflicts, &cp);
    let (nodes, keys, conflicts) = tokio::join!(nodes, keys, conflicts);
    // In the order the server ran them: after a failed statement the later
    // ones only say the transaction is aborted.
    let counts = Counts {
        nodes: nodes?,
        keys: keys?,
        ..Counts::default()
    };
    conflicts?;
    Ok(counts)
}

async fn copy_packets(
    tx: &tokio_postgres::Transaction<'_>,
    plan: &Plan<'_, '_>,
) -> Result<u64, tokio_postgres::Error> {
    use Type as T;
    let sink = tx.copy_in(&q::copy_packets()).await?;
    let types = [
        T::INT8,
        T::INT8,
        T::INT8,
        T::TEXT,
        T::TEXT,
        T::TEXT,
        T::INT8,
        T::BYTEA,
        T::TEXT,
        T::TEXT,
        T::TEXT,
        T::TEXT,
        T::INT8,
    ];
    debug_assert_eq!(types.len(), PACKET_COLUMNS.split(", ").count());
    let mut w = pin!(BinaryCopyInWriter::new(sink, &types));
    for c in &plan.packets {
        w.as_mut()
            .write(&[
                &c.from,
                &c.id,
                &c.to,
                &c.channel_id,
                &c.decryption,
                &c.channel_name,
                &c.portnum,
                &c.payload,
                &c.text,
                &c.signature,
                &c.identity,
                &c.error,
                &c.rx_time_ms,
            ])
            .await?;
    }
    w.finish().await
}

async fn copy_receptions(
    tx: &tokio_postgres::Transaction<'_>,
    plan: &Plan<'_, '_>,
) -> Result<u64, tokio_postgres::Error> {
    use Type as T;
    let sink = tx.copy_in(&q::copy_receptions()).await?;
    let types = [
        T::INT8,
        T::INT8,
        T::TEXT,
        T::INT8,
        T::INT4,
        T::TEXT,
        T::INT8,
        T::INT8,
        T::INT4,
        T::FLOAT4,
        T::INT8,
        T::INT8,
    ];
    debug_assert_eq!(types.len(), RECEPTION_COLUMNS.split(", ").count());
    let mut w = pin!(BinaryCopyInWriter::new(sink, &types));
    for c in &plan.receptions {
        w.as_mut()
            .write(&[
                &c.from,
                &c.id,
                &c.gateway_id,
                &c.relay_node,
                &c.transport,
                &c.topic,
                &c.rx_time_ms,
                &c.rx_time,
                &c.rssi,
                &c.snr,
                &c.hop_start,
                &c.hop_limit,
            ])
            .await?;
    }
    w.finish().await
}
