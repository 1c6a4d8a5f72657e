//! How one batch reaches PostgreSQL: one transaction, its statements
//! pipelined (one round trip for all of them, one more for the commit).

use super::plan::Plan;
use super::postgres_statements::Statements;
use super::sql::{postgres as q, PACKET_COLUMNS, RECEPTION_COLUMNS};
use super::Counts;
use std::pin::pin;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::Client;

/// How a batch's packets and receptions reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PgMethod {
    /// One `INSERT … SELECT * FROM unnest(arrays) ON CONFLICT` per table.
    #[default]
    Unnest,
    /// Binary COPY into temporary staging tables, then `INSERT … SELECT …
    /// ON CONFLICT` from them (measured against unnest by the tests).
    Copy,
}

/// Writes `plan` and its MeshCore part in one transaction on `client`: its
/// packets and receptions as `method` says (receptions with `ON CONFLICT DO
/// NOTHING` when `skip`), its nodes and keys, then the MeshCore rows; the
/// rows each statement wrote.
pub(super) async fn write(
    client: &mut Client,
    st: &Statements,
    (plan, mc): (&Plan<'_, '_>, &super::meshcore::Plan<'_, '_>),
    method: PgMethod,
    skip: bool,
) -> Result<Counts, tokio_postgres::Error> {
    let tx = client.transaction().await?;
    let meshcore = super::meshcore::postgres::write(&tx, &st.meshcore, mc, skip);
    let counts = match plan.packets.is_empty() {
        true => with_meshcore(Counts::default(), meshcore.await?),
        false => both(&tx, st, plan, (method, skip), meshcore).await?,
    };
    tx.commit().await?;
    Ok(counts)
}

/// `n` with the MeshCore rows written.
fn with_meshcore(n: Counts, (p, r, m): super::meshcore::postgres::Written) -> Counts {
    Counts {
        meshcore_packets: p,
        meshcore_receptions: r,
        meshcore_nodes: m,
        ..n
    }
}

/// The Meshtastic rows of `plan`, their statements pipelined with the
/// MeshCore ones (`meshcore`, queued last).
async fn both(
    tx: &tokio_postgres::Transaction<'_>,
    st: &Statements,
    plan: &Plan<'_, '_>,
    (method, skip): (PgMethod, bool),
    meshcore: impl std::future::Future<
        Output = Result<super::meshcore::postgres::Written, tokio_postgres::Error>,
    >,
) -> Result<Counts, tokio_postgres::Error> {
    let (receptions, receptions_from_stage) = match skip {
        true => (&st.receptions_skip, &st.receptions_from_stage_skip),
        false => (&st.receptions, &st.receptions_from_stage),
    };
    let p = &plan.packets;
    let r = &plan.receptions;
    let (a, b, n, m) = match method {
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
            let our_node: Vec<Option<i64>> = p.iter().map(|c| c.our_node).collect();
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
            let pp: [&(dyn ToSql + Sync); 14] = [
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
                &our_node,
                &seen,
            ];
            let rp: [&(dyn ToSql + Sync); 12] = [
                &r_from, &r_id, &gateway, &relay, &transport, &topic, &rx_ms, &rx, &rssi, &snr,
                &hop_start, &hop_limit,
            ];
            tokio::join!(
                tx.execute(&st.packets, &pp),
                tx.execute(receptions, &rp),
                write_nodes(tx, st, plan),
                meshcore,
            )
        }
        PgMethod::Copy => {
            copy_packets(tx, plan).await?;
            copy_receptions(tx, plan).await?;
            tokio::join!(
                tx.execute(&st.packets_from_stage, &[]),
                tx.execute(receptions_from_stage, &[]),
                write_nodes(tx, st, plan),
                meshcore,
            )
        }
    };
    // In the order the server ran them (see `write_nodes`).
    let (packets, receptions) = (a?, b?);
    let n = n?;
    let counts = Counts {
        packets,
        receptions,
        ..n
    };
    Ok(with_meshcore(counts, m?))
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
    let keys = tx.query(&st.keys, &kp);
    let conflicts = tx.execute(&st.conflicts, &cp);
    let (nodes, keys, conflicts) = tokio::join!(nodes, keys, conflicts);
    // In the order the server ran them: after a failed statement the later
    // ones only say the transaction is aborted.
    let nodes = nodes?;
    let inserted = keys?;
    conflicts?;
    if !inserted.is_empty() {
        // Keys stored for the first time: link renumbered nodes.
        let keys: Vec<Vec<u8>> = inserted.iter().map(|r| r.get::<_, Vec<u8>>(1)).collect();
        let crc: Vec<i64> = keys
            .iter()
            .map(|k| {
                let k: [u8; 32] = k.as_slice().try_into().unwrap_or([0; 32]);
                i64::from(wireseal::meshtastic::node_number(&k))
            })
            .collect();
        let lp: [&(dyn ToSql + Sync); 2] = [&crc, &keys];
        let (a, b) = tokio::join!(tx.execute(&st.link[0], &lp), tx.execute(&st.link[1], &lp));
        a?;
        b?;
    }
    Ok(Counts {
        nodes,
        keys: inserted.len() as u64,
        ..Counts::default()
    })
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
                &c.our_node,
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
