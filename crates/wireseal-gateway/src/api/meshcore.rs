//! The API's MeshCore rows: nodes from `meshcore_nodes` (by last heard,
//! through `meshcore_nodes_by_last_heard`), packets from
//! `meshcore_packets` (by first seen, through `meshcore_packets_recent`)
//! with their receptions (each packet's hash walks the receptions' key),
//! each with `"mesh": "meshcore"`. Keys, hashes and paths are lowercase
//! hex, as in the library's records.

use super::cursor::{NodeCursor, PacketCursor};
use super::reader::{Param, Reader};
use super::rows::{Count, McNode, McPacket, McReception, MinuteCount};
use super::{run, ApiError, MAX_RECEPTIONS};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

const NODE_COLUMNS: &str = "public_key, name, node_type, lat_e6, lon_e6, advert_timestamp, \
     signature, first_seen_ms, last_heard_ms";

const PACKET_COLUMNS: &str = "hash, payload_type, route, payload_len, channel_hash, \
     channel_name, src_hash, dst_hash, sender, our_key, decrypted, signature, text, record, \
     first_seen_ms";

fn hex_or_null(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| hex::encode(b).into())
}

fn byte_hex(v: Option<i64>) -> Value {
    v.and_then(|v| u8::try_from(v).ok())
        .map_or(Value::Null, |b| format!("{b:02x}").into())
}

fn degrees(v: Option<i64>) -> Value {
    v.map_or(Value::Null, |v| (v as f64 / 1e6).into())
}

/// A node as the API gives it.
pub(super) fn node_json(n: &McNode) -> Value {
    json!({
        "mesh": "meshcore",
        "id": hex::encode(&n.public_key),
        "public_key": hex::encode(&n.public_key),
        "name": n.name,
        "node_type": n.node_type,
        "latitude": degrees(n.lat_e6),
        "longitude": degrees(n.lon_e6),
        "advert_timestamp": n.advert_timestamp,
        "signature": n.signature,
        "first_seen_ms": n.first_seen_ms,
        "last_seen_ms": n.last_heard_ms,
    })
}

/// Up to `limit` nodes, last heard first, after `after` (MeshCore's rows
/// of one time come after Meshtastic's).
pub(super) async fn nodes(
    r: &Arc<Reader>,
    after: Option<&NodeCursor>,
    limit: i64,
) -> Result<Vec<McNode>, ApiError> {
    let (filter, mut params) = match after {
        None => ("", Vec::new()),
        Some(NodeCursor::Meshtastic { ms, .. }) => {
            ("WHERE last_heard_ms <= $1", vec![Param::Int(*ms)])
        }
        Some(NodeCursor::Meshcore { ms, key }) => (
            "WHERE (last_heard_ms, public_key) < ($1, $2)",
            vec![Param::Int(*ms), Param::Blob(key.to_vec())],
        ),
    };
    let n = params.len() + 1;
    params.push(Param::Int(limit));
    let sql = format!(
        "SELECT {NODE_COLUMNS} FROM meshcore_nodes {filter} \
         ORDER BY last_heard_ms DESC, public_key DESC LIMIT ${n}"
    );
    run(r, sql, params).await
}

/// `/api/nodes/{KEY}`: one MeshCore node, and how many packets it sent
/// that the store holds.
pub(super) async fn node(r: &Arc<Reader>, key: [u8; 32]) -> Result<Vec<u8>, ApiError> {
    let k = Param::Blob(key.to_vec());
    let rows: Vec<McNode> = run(
        r,
        format!("SELECT {NODE_COLUMNS} FROM meshcore_nodes WHERE public_key = $1"),
        vec![k],
    )
    .await?;
    let Some(n) = rows.first() else {
        return Err(ApiError::NotFound(format!(
            "{} is not in the store",
            hex::encode(key)
        )));
    };
    Ok(node_json(n).to_string().into_bytes())
}

/// Up to `limit` packets, newest first, first seen since `since`, after
/// `after`.
///
/// The page is read within the time range of its oldest row, found from
/// the time index alone, as Meshtastic's pages are.
pub(super) async fn packets(
    r: &Arc<Reader>,
    since: Option<i64>,
    after: Option<&PacketCursor>,
    limit: i64,
) -> Result<Vec<McPacket>, ApiError> {
    let mut terms = Vec::new();
    let mut params = Vec::new();
    if let Some(s) = since {
        params.push(Param::Int(s));
        terms.push(format!("first_seen_ms >= ${}", params.len()));
    }
    match after {
        None => {}
        Some(PacketCursor::Meshtastic { ms, .. }) => {
            params.push(Param::Int(*ms));
            terms.push(format!("first_seen_ms <= ${}", params.len()));
        }
        Some(PacketCursor::Meshcore { ms, hash }) => {
            params.extend([Param::Int(*ms), Param::Int(*hash)]);
            let i = params.len() - 1;
            terms.push(format!("(first_seen_ms, hash) < (${i}, ${})", i + 1));
        }
    }
    let clause = |t: &[String]| match t.is_empty() {
        true => String::new(),
        false => format!("WHERE {}", t.join(" AND ")),
    };
    let oldest = format!(
        "first_seen_ms >= COALESCE((SELECT first_seen_ms FROM meshcore_packets {} \
         ORDER BY first_seen_ms DESC LIMIT 1 OFFSET {}), 0)",
        clause(&terms),
        limit - 1
    );
    terms.push(oldest);
    params.push(Param::Int(limit));
    let sql = format!(
        "SELECT {PACKET_COLUMNS} FROM meshcore_packets {} \
         ORDER BY first_seen_ms DESC, hash DESC LIMIT ${}",
        clause(&terms),
        params.len()
    );
    run(r, sql, params).await
}

/// Receptions by packet hash: how many, and those listed.
pub(super) type Receptions = HashMap<i64, (i64, Vec<McReception>)>;

/// Each packet's receptions: how many, and the first [`MAX_RECEPTIONS`]
/// by time, in one query for the page.
pub(super) async fn receptions(
    r: &Arc<Reader>,
    packets: &[&McPacket],
) -> Result<Receptions, ApiError> {
    let mut out = Receptions::with_capacity(packets.len());
    if packets.is_empty() {
        return Ok(out);
    }
    let params: Vec<Param> = packets.iter().map(|p| Param::Int(p.hash)).collect();
    let marks: Vec<String> = (1..=params.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT hash, heard, observer_id, path, direction, rx_time_ms, snr, rssi FROM \
         (SELECT hash, observer_id, path, direction, rx_time_ms, snr, rssi, \
         count(*) OVER (PARTITION BY hash) AS heard, \
         row_number() OVER (PARTITION BY hash ORDER BY rx_time_ms, observer_id, path) AS pos \
         FROM meshcore_receptions WHERE hash IN ({})) AS r WHERE pos <= {MAX_RECEPTIONS} \
         ORDER BY hash, pos",
        marks.join(", ")
    );
    let rows: Vec<McReception> = run(r, sql, params).await?;
    for g in rows {
        let e = out.entry(g.hash).or_default();
        e.0 = g.heard;
        e.1.push(g);
    }
    Ok(out)
}

fn reception_json(g: &McReception) -> Value {
    json!({
        "observer_id": g.observer_id,
        "rx_time_ms": g.rx_time_ms,
        "snr": g.snr,
        "rssi": g.rssi,
        "path": g.path,
        "direction": Some(g.direction.as_str()).filter(|d| !d.is_empty()),
    })
}

/// A packet and its receptions (how many, and those listed).
pub(super) fn packet_json(p: &McPacket, (count, list): (i64, Vec<McReception>)) -> Value {
    json!({
        "mesh": "meshcore",
        "hash": hex::encode(p.hash.to_be_bytes()),
        "payload_type": p.payload_type,
        "route": p.route,
        "payload_len": p.payload_len,
        "channel_hash": byte_hex(p.channel_hash),
        "channel_name": p.channel_name,
        "src_hash": byte_hex(p.src_hash),
        "dst_hash": byte_hex(p.dst_hash),
        "sender": hex_or_null(p.sender.as_deref()),
        "our_key": hex_or_null(p.our_key.as_deref()),
        "decrypted": p.decrypted != 0,
        "signature": p.signature,
        "text": p.text,
        "first_seen_ms": p.first_seen_ms,
        "record": serde_json::from_str::<Value>(&p.record).unwrap_or(Value::Null),
        "receptions": {
            "count": count,
            "list": list.iter().map(reception_json).collect::<Vec<_>>(),
        },
    })
}

/// Packets per minute since `since`, by `meshcore:` and the name of the
/// channel that opened them (else their payload type), as `/api/stats`
/// lists channels.
pub(super) async fn per_minute(r: &Arc<Reader>, since: i64) -> Result<Vec<MinuteCount>, ApiError> {
    run(
        r,
        format!(
            "SELECT first_seen_ms / 60000 AS minute, \
             'meshcore:' || coalesce(channel_name, payload_type) AS channel_id, \
             count(*) AS packets FROM meshcore_packets WHERE first_seen_ms >= $1 \
             GROUP BY minute, channel_id ORDER BY minute LIMIT {}",
            super::STATS_GROUPS
        ),
        vec![Param::Int(since)],
    )
    .await
}

/// MeshCore nodes heard since `since`.
pub(super) async fn nodes_heard(r: &Arc<Reader>, since: i64) -> Result<i64, ApiError> {
    let n: Vec<Count> = run(
        r,
        "SELECT count(*) AS n FROM meshcore_nodes WHERE last_heard_ms >= $1".into(),
        vec![Param::Int(since)],
    )
    .await?;
    Ok(n.first().map_or(0, |c| c.n))
}
