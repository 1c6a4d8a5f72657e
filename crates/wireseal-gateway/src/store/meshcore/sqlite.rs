//! MeshCore rows into SQLite, inside the batch's transaction, through
//! cached prepared statements.

use super::sql::sqlite as q;
use super::Plan;
use rusqlite::{params, Transaction};

/// Rows written: packets inserted or completed, receptions inserted, nodes
/// inserted or updated.
pub(in crate::store) type Written = (u64, u64, u64);

/// Writes `plan` in `tx`.
pub(in crate::store) fn write(tx: &Transaction<'_>, plan: &Plan) -> rusqlite::Result<Written> {
    let (mut packets, mut receptions, mut nodes) = (0u64, 0u64, 0u64);
    let mut st = tx.prepare_cached(&q::packet())?;
    for c in &plan.packets {
        packets += st.execute(params![
            c.hash,
            c.payload_type,
            c.route,
            c.payload_len,
            c.channel_hash,
            c.channel_name,
            c.src_hash,
            c.dst_hash,
            c.sender.map(|k| &k[..]),
            c.our_key.map(|k| &k[..]),
            c.decrypted,
            c.signature,
            c.text,
            c.record,
            c.rx_time_ms,
        ])? as u64;
    }
    let mut st = tx.prepare_cached(&q::reception())?;
    for c in &plan.receptions {
        receptions += st.execute(params![
            c.hash,
            c.observer_id,
            c.path,
            c.direction,
            c.topic,
            c.rx_time_ms,
            c.snr.map(f64::from),
            c.rssi,
        ])? as u64;
    }
    let mut st = tx.prepare_cached(&q::node())?;
    for n in &plan.nodes {
        let a = n.advert;
        let u = a.and_then(|c| c.node);
        nodes += st.execute(params![
            &n.key[..],
            a.and_then(|c| c.name.as_deref()),
            u.and_then(|u| u.node_type),
            u.and_then(|u| u.location).map(|l| i64::from(l.0)),
            u.and_then(|u| u.location).map(|l| i64::from(l.1)),
            u.and_then(|u| u.advert_timestamp).map(i64::from),
            n.signature,
            n.first_seen_ms,
            n.last_heard_ms,
        ])? as u64;
    }
    Ok((packets, receptions, nodes))
}

/// Removes up to `limit` of the packets first seen before `cutoff_ms` and
/// their receptions, in `tx`; the packets and receptions removed.
pub(in crate::store) fn prune(
    tx: &Transaction<'_>,
    cutoff_ms: i64,
    limit: usize,
) -> rusqlite::Result<(u64, u64)> {
    let mut pick = tx.prepare_cached(q::PRUNE_PICK)?;
    let hashes: Vec<i64> = pick
        .query_map(params![cutoff_ms, limit as i64], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut del_r = tx.prepare_cached(q::PRUNE_RECEPTIONS)?;
    let mut del_p = tx.prepare_cached(q::PRUNE_PACKET)?;
    let (mut packets, mut receptions) = (0u64, 0u64);
    for h in hashes {
        receptions += del_r.execute(params![h])? as u64;
        packets += del_p.execute(params![h])? as u64;
    }
    Ok((packets, receptions))
}
