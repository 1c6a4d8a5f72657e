//! MeshCore rows into PostgreSQL, inside the batch's transaction: one
//! statement per table, the rows as one array per column, pipelined with
//! the batch's other statements.

use super::plan::NodeRow;
use super::sql::postgres as q;
use super::Plan;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Statement, Transaction};

/// The MeshCore statements of one connection.
pub(in crate::store) struct Statements {
    packets: Statement,
    receptions: Statement,
    receptions_skip: Statement,
    nodes: Statement,
    /// Removes old packets and their receptions.
    pub prune: Statement,
}

impl Statements {
    /// Prepares every statement on `client`.
    pub(in crate::store) async fn prepare(client: &Client) -> Result<Self, tokio_postgres::Error> {
        Ok(Self {
            packets: client.prepare(&q::packets()).await?,
            receptions: client.prepare(&q::receptions(false)).await?,
            receptions_skip: client.prepare(&q::receptions(true)).await?,
            nodes: client.prepare(&q::nodes()).await?,
            prune: client.prepare(q::PRUNE).await?,
        })
    }
}

/// Rows written: packets inserted or completed, receptions inserted, nodes
/// inserted or updated.
pub(in crate::store) type Written = (u64, u64, u64);

/// Writes `plan` in `tx` (receptions with `ON CONFLICT DO NOTHING` when
/// `skip`); nothing is sent for an empty plan.
pub(in crate::store) async fn write(
    tx: &Transaction<'_>,
    st: &Statements,
    plan: &Plan<'_, '_>,
    skip: bool,
) -> Result<Written, tokio_postgres::Error> {
    if plan.is_empty() {
        return Ok((0, 0, 0));
    }
    let p = &plan.packets;
    let hash: Vec<i64> = p.iter().map(|c| c.hash).collect();
    let ptype: Vec<&str> = p.iter().map(|c| c.payload_type).collect();
    let route: Vec<&str> = p.iter().map(|c| c.route).collect();
    let plen: Vec<i64> = p.iter().map(|c| c.payload_len).collect();
    let ch: Vec<Option<i64>> = p.iter().map(|c| c.channel_hash).collect();
    let chname: Vec<Option<&str>> = p.iter().map(|c| c.channel_name.as_deref()).collect();
    let src: Vec<Option<i64>> = p.iter().map(|c| c.src_hash).collect();
    let dst: Vec<Option<i64>> = p.iter().map(|c| c.dst_hash).collect();
    let sender: Vec<Option<&[u8]>> = p.iter().map(|c| c.sender.map(|k| &k[..])).collect();
    let ours: Vec<Option<&[u8]>> = p.iter().map(|c| c.our_key.map(|k| &k[..])).collect();
    let dec: Vec<i32> = p.iter().map(|c| c.decrypted).collect();
    let sig: Vec<Option<&str>> = p.iter().map(|c| c.signature).collect();
    let text: Vec<Option<&str>> = p.iter().map(|c| c.text.as_deref()).collect();
    let record: Vec<&str> = p.iter().map(|c| c.record).collect();
    let seen: Vec<i64> = p.iter().map(|c| c.rx_time_ms).collect();
    let pp: [&(dyn ToSql + Sync); 15] = [
        &hash, &ptype, &route, &plen, &ch, &chname, &src, &dst, &sender, &ours, &dec, &sig, &text,
        &record, &seen,
    ];
    let r = &plan.receptions;
    let r_hash: Vec<i64> = r.iter().map(|c| c.hash).collect();
    let observer: Vec<&str> = r.iter().map(|c| &*c.observer_id).collect();
    let path: Vec<&str> = r.iter().map(|c| &*c.path).collect();
    let dir: Vec<&str> = r.iter().map(|c| c.direction).collect();
    let topic: Vec<&str> = r.iter().map(|c| &*c.topic).collect();
    let rx: Vec<i64> = r.iter().map(|c| c.rx_time_ms).collect();
    let snr: Vec<Option<f32>> = r.iter().map(|c| c.snr).collect();
    let rssi: Vec<Option<i32>> = r.iter().map(|c| c.rssi).collect();
    let rp: [&(dyn ToSql + Sync); 8] = [&r_hash, &observer, &path, &dir, &topic, &rx, &snr, &rssi];
    let receptions = if skip {
        &st.receptions_skip
    } else {
        &st.receptions
    };
    let (a, b, c) = tokio::join!(
        tx.execute(&st.packets, &pp),
        tx.execute(receptions, &rp),
        write_nodes(tx, st, plan),
    );
    // In the order the server ran them: after a failed statement the later
    // ones only say the transaction is aborted.
    Ok((a?, b?, c?))
}

/// The verified advert a node row takes its fields from.
fn upd<'a>(r: &NodeRow<'_, 'a>) -> Option<&'a super::MeshcoreNodeUpdate> {
    r.advert.and_then(|c| c.node)
}

async fn write_nodes(
    tx: &Transaction<'_>,
    st: &Statements,
    plan: &Plan<'_, '_>,
) -> Result<u64, tokio_postgres::Error> {
    let n = &plan.nodes;
    if n.is_empty() {
        return Ok(0);
    }
    let key: Vec<&[u8]> = n.iter().map(|r| &r.key[..]).collect();
    let name: Vec<Option<&str>> = n
        .iter()
        .map(|r| r.advert.and_then(|c| c.name.as_deref()))
        .collect();
    let ntype: Vec<Option<&str>> = n.iter().map(|r| upd(r).and_then(|u| u.node_type)).collect();
    let loc = |r: &NodeRow| upd(r).and_then(|u| u.location);
    let lat: Vec<Option<i64>> = n.iter().map(|r| loc(r).map(|l| i64::from(l.0))).collect();
    let lon: Vec<Option<i64>> = n.iter().map(|r| loc(r).map(|l| i64::from(l.1))).collect();
    let ts: Vec<Option<i64>> = n
        .iter()
        .map(|r| upd(r).and_then(|u| u.advert_timestamp).map(i64::from))
        .collect();
    let sig: Vec<Option<&str>> = n.iter().map(|r| r.signature).collect();
    let first: Vec<i64> = n.iter().map(|r| r.first_seen_ms).collect();
    let last: Vec<i64> = n.iter().map(|r| r.last_heard_ms).collect();
    let np: [&(dyn ToSql + Sync); 9] = [&key, &name, &ntype, &lat, &lon, &ts, &sig, &first, &last];
    tx.execute(&st.nodes, &np).await
}
