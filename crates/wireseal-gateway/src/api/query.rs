//! The API's queries and the JSON they give.

use super::reader::{Cell, Param, Reader};
use super::{ApiError, Params, MAX_LIMIT, MAX_STATS_MINUTES};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use wireseal::meshtastic::decoder::Signature;
use wireseal::meshtastic::NodeId;

/// (minute, channel) groups `/api/stats` gives at most.
const STATS_GROUPS: i64 = 20_000;
/// Channels `/api/stats` totals at most.
const STATS_CHANNELS: usize = 100;

/// Packets of a node looked at for its signing status and our keys.
const RECENT: i64 = 1000;

pub(super) async fn run(
    r: &Arc<Reader>,
    sql: String,
    p: Vec<Param>,
) -> Result<Vec<Vec<Cell>>, ApiError> {
    r.query(sql, p).await.map_err(ApiError::Unavailable)
}

pub(super) fn id(c: &Cell) -> Value {
    c.int()
        .and_then(|v| u32::try_from(v).ok())
        .map_or(Value::Null, |v| NodeId(v).to_string().into())
}

fn b64(c: &Cell) -> Value {
    c.blob().map_or(Value::Null, |b| {
        base64::engine::general_purpose::STANDARD.encode(b).into()
    })
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

const NODE_COLUMNS: &str = "node, long_name, short_name, public_key, identity, key_conflicts, \
     renumbered_from, renumbered_to, first_seen_ms, last_seen_ms";

/// Packets of a node whose signatures give its signing status.
const SIGNING_PACKETS: i64 = 10;

/// The signing status of node `n.node`: the first of [`SIGNING`] that its
/// last [`SIGNING_PACKETS`] packets show (through `packets_by_from`), as a
/// rank from 1; NULL for a node with no packet stored.
fn signing_rank() -> String {
    let cases: String = SIGNING
        .iter()
        .enumerate()
        .map(|(i, s)| format!(" WHEN '{s}' THEN {}", i + 1))
        .collect();
    format!(
        "(SELECT min(CASE signature{cases} ELSE {} END) FROM (SELECT signature FROM packets \
         WHERE from_node = n.node ORDER BY first_seen_ms DESC LIMIT {SIGNING_PACKETS}) AS recent)",
        SIGNING.len()
    )
}

/// Signature statuses by precedence: a bad signature among a node's recent
/// packets outweighs good ones, a verified one outweighs one that could not
/// be checked, and `absent` (nothing signed, or no status) comes last.
const SIGNING: [&str; 5] = [
    Signature::Invalid.as_str(),
    Signature::Malformed.as_str(),
    Signature::Valid.as_str(),
    Signature::UnknownKey.as_str(),
    Signature::Absent.as_str(),
];

fn signing(c: &Cell) -> Value {
    c.int()
        .and_then(|r| usize::try_from(r - 1).ok())
        .and_then(|i| SIGNING.get(i))
        .map_or(Value::Null, |s| (*s).into())
}

fn node_json(r: &[Cell]) -> Value {
    json!({
        "id": id(&r[0]),
        "num": r[0].json(),
        "long_name": r[1].json(),
        "short_name": r[2].json(),
        "public_key": b64(&r[3]),
        "identity": r[4].json(),
        "key_conflicts": r[5].json(),
        "renumbered_from": id(&r[6]),
        "renumbered_to": id(&r[7]),
        "first_seen_ms": r[8].json(),
        "last_seen_ms": r[9].json(),
        "signing": signing(&r[10]),
    })
}

/// Parses a cursor `A.B[.C]` of whole numbers.
pub(super) fn cursor<const N: usize>(p: &Params) -> Result<Option<[i64; N]>, ApiError> {
    let Some(c) = p.get("before") else {
        return Ok(None);
    };
    let parts: Vec<i64> = c
        .split('.')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| ApiError::BadRequest("before: the `next` of the previous page".into()))?;
    <[i64; N]>::try_from(parts)
        .map(Some)
        .map_err(|_| ApiError::BadRequest("before: the `next` of the previous page".into()))
}

/// `/api/nodes?limit=&before=`: nodes, last heard first, each with its
/// signing status.
pub(super) async fn nodes(r: &Arc<Reader>, p: &Params) -> Result<Vec<u8>, ApiError> {
    p.only(&["limit", "before"])?;
    let limit = p.int("limit", 1, MAX_LIMIT)?.unwrap_or(100);
    let (filter, mut params) = match cursor::<2>(p)? {
        Some([ms, node]) => (
            "WHERE (last_seen_ms, node) < ($1, $2)",
            vec![Param::Int(ms), Param::Int(node)],
        ),
        None => ("", Vec::new()),
    };
    let n = params.len() + 1;
    params.push(Param::Int(limit));
    // The page is cut first, so the signing status is read for its nodes
    // alone.
    let sql = format!(
        "SELECT {NODE_COLUMNS}, {} FROM (SELECT {NODE_COLUMNS} FROM nodes {filter} \
         ORDER BY last_seen_ms DESC, node DESC LIMIT ${n}) AS n ORDER BY last_seen_ms DESC, node DESC",
        signing_rank()
    );
    let rows = run(r, sql, params).await?;
    let next = match rows.last() {
        Some(l) if rows.len() as i64 == limit => {
            json!(format!("{}.{}", l[9].json(), l[0].json()))
        }
        _ => Value::Null,
    };
    Ok(super::list(
        "nodes",
        rows.iter().map(|r| node_json(r)),
        &next,
    ))
}

/// `/api/nodes/{!id}`: one node with its keys, signing status, last
/// position and which of our nodes it sent direct messages to.
pub(super) async fn node(r: &Arc<Reader>, node: u32, p: &Params) -> Result<Vec<u8>, ApiError> {
    p.only(&[])?;
    let n = Param::Int(node.into());
    let rows = run(
        r,
        format!(
            "SELECT {NODE_COLUMNS}, {} FROM nodes AS n WHERE node = $1",
            signing_rank()
        ),
        vec![n.clone()],
    )
    .await?;
    let Some(row) = rows.first() else {
        return Err(ApiError::NotFound(format!(
            "{} is not in the store",
            NodeId(node)
        )));
    };
    let mut out = node_json(row);
    let keys = run(
        r,
        "SELECT public_key, first_seen_ms FROM node_keys WHERE node = $1 \
         ORDER BY first_seen_ms LIMIT 16"
            .into(),
        vec![n.clone()],
    )
    .await?;
    let signatures = run(
        r,
        format!(
            "SELECT signature, count(*) FROM (SELECT signature FROM packets WHERE from_node = $1 \
             ORDER BY first_seen_ms DESC LIMIT {RECENT}) AS recent GROUP BY signature"
        ),
        vec![n.clone()],
    )
    .await?;
    let ours = run(
        r,
        format!(
            "SELECT DISTINCT our_node FROM (SELECT our_node FROM packets WHERE from_node = $1 \
             ORDER BY first_seen_ms DESC LIMIT {RECENT}) AS recent WHERE our_node IS NOT NULL"
        ),
        vec![n.clone()],
    )
    .await?;
    let position = run(
        r,
        format!(
            "SELECT payload, first_seen_ms FROM packets WHERE from_node = $1 AND portnum = {} \
             ORDER BY first_seen_ms DESC LIMIT 1",
            wireseal::meshtastic::envelope::POSITION_APP
        ),
        vec![n],
    )
    .await?;
    let o = out.as_object_mut().expect("an object");
    o.insert(
        "keys".into(),
        keys.iter()
            .map(|k| json!({ "public_key": b64(&k[0]), "first_seen_ms": k[1].json() }))
            .collect(),
    );
    o.insert(
        "signature".into(),
        Value::Object(
            signatures
                .iter()
                .map(|s| (s[0].text().unwrap_or("unknown").to_owned(), s[1].json()))
                .collect::<Map<_, _>>(),
        ),
    );
    o.insert("talks_to".into(), ours.iter().map(|o| id(&o[0])).collect());
    o.insert(
        "position".into(),
        position
            .first()
            .map_or(Value::Null, |p| position_json(&p[0], &p[1])),
    );
    Ok(out.to_string().into_bytes())
}

pub(super) fn position_json(payload: &Cell, at: &Cell) -> Value {
    let Some(pos) = payload
        .blob()
        .and_then(|b| wireseal::meshtastic::envelope::decode_position(b).ok())
    else {
        return Value::Null;
    };
    match (pos.latitude_i, pos.longitude_i) {
        (Some(lat), Some(lon)) => json!({
            "latitude": f64::from(lat) * 1e-7,
            "longitude": f64::from(lon) * 1e-7,
            "altitude": pos.altitude,
            "seen_ms": at.json(),
        }),
        _ => Value::Null,
    }
}

/// `/api/stats?minutes=`: packets per channel and per minute over the last
/// minutes (60 by default), nodes heard, and the gateway's counts.
pub(super) async fn stats(r: &Arc<Reader>, p: &Params, extra: Value) -> Result<Vec<u8>, ApiError> {
    p.only(&["minutes"])?;
    let minutes = p.int("minutes", 1, MAX_STATS_MINUTES)?.unwrap_or(60);
    let since = now_ms() - minutes * 60_000;
    let per_minute = run(
        r,
        format!(
            "SELECT first_seen_ms / 60000 AS minute, channel_id, count(*) FROM packets \
             WHERE first_seen_ms >= $1 GROUP BY minute, channel_id ORDER BY minute \
             LIMIT {STATS_GROUPS}"
        ),
        vec![Param::Int(since)],
    )
    .await?;
    // The channels' totals are the minutes' sums when every minute came
    // back (one pass over the window); else a query of their own.
    let channels: Vec<(Value, i64)> = if (per_minute.len() as i64) < STATS_GROUPS {
        let mut sums: Vec<(Value, i64)> = Vec::new();
        for m in &per_minute {
            let (c, n) = (m[1].json(), m[2].int().unwrap_or(0));
            match sums.iter_mut().find(|s| s.0 == c) {
                Some(s) => s.1 += n,
                None => sums.push((c, n)),
            }
        }
        sums.sort_by_key(|s| std::cmp::Reverse(s.1));
        sums.truncate(STATS_CHANNELS);
        sums
    } else {
        run(
            r,
            format!(
                "SELECT channel_id, count(*) FROM packets WHERE first_seen_ms >= $1 \
                 GROUP BY channel_id ORDER BY count(*) DESC LIMIT {STATS_CHANNELS}"
            ),
            vec![Param::Int(since)],
        )
        .await?
        .iter()
        .map(|c| (c[0].json(), c[1].int().unwrap_or(0)))
        .collect()
    };
    let nodes = run(
        r,
        "SELECT count(*) FROM nodes WHERE last_seen_ms >= $1".into(),
        vec![Param::Int(since)],
    )
    .await?;
    Ok(json!({
        "since_ms": since,
        "minutes": minutes,
        "channels": channels.iter().map(|(c, n)| json!({
            "channel_id": c,
            "packets": n,
        })).collect::<Vec<_>>(),
        "per_minute": per_minute.iter().map(|m| json!({
            "minute_ms": m[0].int().map(|v| v * 60_000),
            "channel_id": m[1].json(),
            "packets": m[2].json(),
        })).collect::<Vec<_>>(),
        "nodes_heard": nodes.first().map_or(Value::Null, |n| n[0].json()),
        "gateway": extra,
    })
    .to_string()
    .into_bytes())
}
